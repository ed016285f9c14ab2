#!/usr/bin/env node
// A small MCP server over stdio for the tests of the `mcpr` npm package (Node standard
// library only). It speaks the handshake era (`initialize`) and offers the tools the
// reference server does not:
//   echo {text}            notifies notifications/message {level, data: {echoed: text}},
//                          then answers text (and structuredContent {text}); without a
//                          text, answers isError (docs/node.md's first test uses it)
//   burst {count, tag}     notifies `count` notifications/message with
//                          data {tag, seq, detail: {even}} (seq 1..count), then answers
//   env {name}             answers {name, value, cwd} (value null when unset)
//   fail {message}         answers isError: true
//   rpcerror {message}     answers a JSON-RPC error -32001 with data {why: message}
//   exit {code, message}   writes message to stderr and exits mid-call, without answering
//   hang {}                never answers
//   pid {}                 answers {pid}
// Other requests get -32601 (so a `server/discover` probe falls back to `initialize`).
//
// Start-up modes (first argument):
//   --fail-start MESSAGE   writes MESSAGE and a second line to stderr, exits 3 at once
//   --mute                 reads its input and never answers (a start that never finishes)
"use strict";

const argv = process.argv.slice(2);
if (argv[0] === "--fail-start") {
  process.stderr.write(`${argv[1] || "cannot start"}\n`);
  process.stderr.write("node-server: giving up before the handshake\n");
  process.exit(3);
}
const mute = argv[0] === "--mute";

const VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

function send(message) {
  if (mute) return;
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n");
}
function notify(method, params) {
  send({ method, params });
}
function text(t) {
  return { content: [{ type: "text", text: t }] };
}

const TOOLS = [
  ["echo", { text: { type: "string" } }, ["text"]],
  ["burst", { count: { type: "integer" }, tag: { type: "string" } }, ["count"]],
  ["env", { name: { type: "string" } }, ["name"]],
  ["fail", { message: { type: "string" } }, []],
  ["rpcerror", { message: { type: "string" } }, []],
  ["exit", { code: { type: "integer" }, message: { type: "string" } }, []],
  ["hang", {}, []],
  ["pid", {}, []],
].map(([name, properties, required]) => ({
  name,
  description: `The ${name} tool of the test server.`,
  inputSchema: { type: "object", properties, required },
}));

function callTool(id, name, args) {
  switch (name) {
    case "echo":
      if (typeof args.text !== "string" || args.text === "") {
        return send({ id, result: { ...text("echo needs a text"), isError: true } });
      }
      notify("notifications/message", { level: "info", logger: "node-server", data: { echoed: args.text } });
      return send({ id, result: { ...text(String(args.text)), structuredContent: { text: args.text } } });
    case "burst": {
      const count = Number(args.count) || 0;
      for (let seq = 1; seq <= count; seq++) {
        notify("notifications/message", {
          level: "info",
          data: { tag: args.tag ?? "burst", seq, detail: { even: seq % 2 === 0 } },
        });
      }
      return send({ id, result: text(`sent ${count}`) });
    }
    case "env": {
      const value = process.env[args.name];
      const facts = { name: args.name, value: value === undefined ? null : value, cwd: process.cwd() };
      return send({ id, result: { ...text(JSON.stringify(facts)), structuredContent: facts } });
    }
    case "fail":
      return send({ id, result: { ...text(args.message || "it failed"), isError: true } });
    case "rpcerror":
      return send({ id, error: { code: -32001, message: args.message || "refused", data: { why: args.message || "refused" } } });
    case "exit":
      process.stderr.write(`${args.message || "node-server: exiting mid-call"}\n`);
      return process.exit(args.code ?? 4);
    case "hang":
      return;
    case "pid":
      return send({ id, result: { ...text(String(process.pid)), structuredContent: { pid: process.pid } } });
    default:
      return send({ id, error: { code: -32602, message: `Unknown tool: ${name}` } });
  }
}

function handle(msg) {
  const { id, method, params = {} } = msg;
  if (method === undefined) return; // a response to us: none expected
  if (id === undefined) return; // notifications/initialized, cancelled, …
  switch (method) {
    case "initialize": {
      const asked = params.protocolVersion;
      return send({
        id,
        result: {
          protocolVersion: VERSIONS.includes(asked) ? asked : VERSIONS[0],
          capabilities: { tools: {}, logging: {} },
          serverInfo: { name: "node-test-server", version: "1.0.0" },
        },
      });
    }
    case "ping":
      return send({ id, result: {} });
    case "logging/setLevel":
      return send({ id, result: {} });
    case "tools/list":
      return send({ id, result: { tools: TOOLS } });
    case "tools/call":
      return callTool(id, params.name, params.arguments || {});
    default:
      return send({ id, error: { code: -32601, message: `Method not found: ${method}` } });
  }
}

let buffer = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  let nl;
  while ((nl = buffer.indexOf("\n")) >= 0) {
    const line = buffer.slice(0, nl).trim();
    buffer = buffer.slice(nl + 1);
    if (!line) continue;
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      continue;
    }
    for (const m of Array.isArray(msg) ? msg : [msg]) handle(m);
  }
});
process.stdin.on("end", () => process.exit(0));
