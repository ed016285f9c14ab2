// The `mcpr` package as a library (ES module). The same objects as index.js, so `import`
// and `require` in one process share one driver and one set of servers.
import mcpr from "./index.js";

export const { mcpStart, mcpCall, mcpWaitNotification, mcpStop, McpError, DEFAULT_TIMEOUT_MS } = mcpr;
export default mcpr;
