#!/usr/bin/env node
// A stand-in for `mcpr driver` that speaks the driver protocol (docs/driver.md) and no
// MCP at all: it starts no server and answers from what it was sent. The tests point
// MCPR_BINARY at it to see exactly what the binding writes on the wire (the default
// deadlines, inheritEnv, cwd) and how the binding reports a driver that answers an error
// without a last MCP message, or dies.
//   open              → a server named as asked, pid of this process
//   callTool "requests"  → structuredContent.requests: every request line received so far
//   callTool "bare-error" → an error of kind `failed` with no data
//   callTool "die"    → exits 7 without answering, after a line on stderr
//   waitNotification  → params {request: the request's params}
//   close             → {exitStatus: "exit status 0", exitCode: 0, stderrTail: []}
// With STUB_DRIVER_PROTOCOL=N in its environment, it speaks driver protocol N only.
"use strict";

if (process.argv[2] !== "driver") {
  process.stderr.write(`stub-driver: only \`driver\`, not ${process.argv.slice(2).join(" ")}\n`);
  process.exit(2);
}
const requests = [];
const answer = (o) => process.stdout.write(JSON.stringify(o) + "\n");

function handle(req) {
  const p = req.params || {};
  switch (req.method) {
    case "hello":
      if (process.env.STUB_DRIVER_PROTOCOL && Number(process.env.STUB_DRIVER_PROTOCOL) !== p.protocol) {
        const supported = [Number(process.env.STUB_DRIVER_PROTOCOL)];
        return answer({ id: req.id, error: { kind: "unsupported-protocol", message: "no", data: { supported } } });
      }
      return answer({ id: req.id, result: { protocol: 1, version: "stub", methods: ["hello", "open", "callTool", "waitNotification", "close"] } });
    case "open":
      return answer({
        id: req.id,
        result: {
          server: p.name || "mcp-1",
          serverInfo: { name: "stub", version: "0" },
          protocolVersion: "2025-11-25",
          capabilities: {},
          instructions: null,
          withheldEnv: [],
          pid: process.pid,
        },
      });
    case "callTool":
      if (p.name === "bare-error") {
        return answer({ id: req.id, error: { kind: "failed", message: "stub failure" } });
      }
      if (p.name === "die") {
        process.stderr.write("stub-driver: dying on request\n");
        return process.exit(7);
      }
      return answer({ id: req.id, result: { result: { content: [{ type: "text", text: "ok" }], structuredContent: { requests } } } });
    case "waitNotification":
      return answer({ id: req.id, result: { method: p.method, params: { request: p } } });
    case "close":
      return answer({ id: req.id, result: { exitStatus: "exit status 0", exitCode: 0, stderrTail: [] } });
    default:
      return answer({ id: req.id ?? null, error: { kind: "invalid-request", message: `unknown method ${req.method}`, data: {} } });
  }
}

let buffer = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  let nl;
  while ((nl = buffer.indexOf("\n")) >= 0) {
    const line = buffer.slice(0, nl);
    buffer = buffer.slice(nl + 1);
    const req = JSON.parse(line);
    requests.push(req);
    handle(req);
  }
});
process.stdin.on("end", () => process.exit(0));
