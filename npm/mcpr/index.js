// The `mcpr` package as a library (CommonJS): seed 004's mcpStart, mcpCall,
// mcpWaitNotification and mcpStop over the `mcpr driver` engine. See docs/node.md.
"use strict";

const api = require("./lib/api.js");

module.exports = {
  mcpStart: api.mcpStart,
  mcpCall: api.mcpCall,
  mcpWaitNotification: api.mcpWaitNotification,
  mcpStop: api.mcpStop,
  McpError: api.McpError,
  DEFAULT_TIMEOUT_MS: api.DEFAULT_TIMEOUT_MS,
};
