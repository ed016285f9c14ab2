// A small MCP server over stdio for Node, no dependencies: the `dist/index.js` of seed
// 002's marker example. One tool, `search`; `API_KEY` must be set in its environment (the
// marker's `env=`), or it exits at once with a message on stderr.
"use strict";
const readline = require("node:readline");

if (!process.env.API_KEY) {
  process.stderr.write("fatal: API_KEY is not set\n");
  process.exit(2);
}

const VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
const SEARCH = {
  name: "search",
  description: "Searches the notes of the test corpus for the given words.",
  inputSchema: {
    type: "object",
    properties: { q: { type: "string", description: "The words to look for." } },
    required: ["q"],
  },
};

function answer(method, params) {
  if (method === "initialize") {
    const asked = params.protocolVersion;
    return {
      protocolVersion: VERSIONS.includes(asked) ? asked : VERSIONS[0],
      capabilities: { tools: {} },
      serverInfo: { name: "node-search", version: "1.0.0" },
    };
  }
  if (method === "ping") return {};
  if (method === "tools/list") return { tools: [SEARCH] };
  if (method === "tools/call" && params.name === "search") {
    return { content: [{ type: "text", text: `no notes mention ${JSON.stringify(params.arguments?.q ?? "")}` }] };
  }
  return undefined;
}

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  if (!line.trim()) return;
  const msg = JSON.parse(line);
  if (msg.id === undefined || msg.method === undefined) return;
  const result = answer(msg.method, msg.params || {});
  const reply = result === undefined
    ? { jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: `method not found: ${msg.method}` } }
    : { jsonrpc: "2.0", id: msg.id, result };
  process.stdout.write(JSON.stringify(reply) + "\n");
});
