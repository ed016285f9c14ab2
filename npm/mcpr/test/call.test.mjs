// mcpCall: the result, and each way a call fails — a JSON-RPC error, no answer within the
// timeout, the server exiting mid-call, isError — and allowError.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { lastMessage, mcpCall, mcpStop, rejection, startNode, startReference } from "./helpers.mjs";

let ref;
const servers = [];
before(async () => {
  ref = await startReference();
  servers.push(ref);
});
after(async () => {
  for (const s of servers) await mcpStop(s);
});

test("a call resolves to the tool's content and structuredContent", async () => {
  const echoed = await mcpCall(ref, "echo", { text: "hi" });
  assert.equal(echoed.content[0].type, "text");
  assert.equal(echoed.content[0].text, "hi");
  assert.ok(!echoed.isError);
  const sum = await mcpCall(ref, "add", { a: 2, b: 3 });
  assert.equal(sum.structuredContent.sum, 5);
  assert.ok(Array.isArray(sum.content));
});

test("a JSON-RPC error rejects, with the error and the server's answer as last message", async () => {
  const err = await rejection(mcpCall(ref, "no_such_tool", {}));
  assert.equal(err.kind, "rpc-error");
  assert.equal(err.data.error.code, -32602);
  const first = err.message.split("\n")[0];
  assert.ok(first.startsWith(`mcpCall: MCP server ${ref.name} (mcpr-reference-server) answered tools/call "no_such_tool" with JSON-RPC error -32602`), first);
  const last = lastMessage(err);
  assert.deepEqual([last.direction, last.kind], ["received", "error"]);
  assert.equal(last.message.error.code, -32602);
});

test("a JSON-RPC error of a Node server carries its data", async () => {
  const srv = await startNode();
  servers.push(srv);
  const err = await rejection(mcpCall(srv, "rpcerror", { message: "quota exceeded" }));
  assert.equal(err.kind, "rpc-error");
  assert.deepEqual(err.data.error, { code: -32001, message: "quota exceeded", data: { why: "quota exceeded" } });
  assert.ok(err.message.includes("JSON-RPC error -32001: quota exceeded"), err.message);
  assert.deepEqual(lastMessage(err).message.error.data, { why: "quota exceeded" });
});

test("no answer within the timeout rejects, and the server stays usable", async () => {
  const err = await rejection(mcpCall(ref, "slow", { ms: 120000 }, { timeoutMs: 300 }));
  assert.equal(err.kind, "timeout");
  assert.equal(
    err.message.split("\n")[0],
    `mcpCall: no answer to tools/call "slow" from MCP server ${ref.name} (mcpr-reference-server) within 300ms`,
  );
  lastMessage(err);
  assert.equal((await mcpCall(ref, "echo", { text: "still here" })).content[0].text, "still here");
});

test("a server that hangs: the timeout names the request that got no answer", async () => {
  const srv = await startNode();
  servers.push(srv);
  const err = await rejection(mcpCall(srv, "hang", {}, { timeoutMs: 300 }));
  assert.equal(err.kind, "timeout");
  assert.match(err.message.split("\n")[0], /^mcpCall: no answer to tools\/call "hang" from MCP server mcp-\d+ \(node\) within 300ms$/);
  const last = lastMessage(err);
  assert.equal(last.direction, "sent");
});

test("a server exiting mid-call rejects with its exit status and stderr tail", async () => {
  const srv = await startNode();
  servers.push(srv);
  const err = await rejection(mcpCall(srv, "exit", { code: 3, message: "fatal: lost the database" }));
  assert.equal(err.kind, "server-exited");
  assert.match(String(err.data.exitStatus), /3/);
  assert.ok(err.data.stderrTail.includes("fatal: lost the database"), `stderrTail: ${err.data.stderrTail}`);
  const first = err.message.split("\n")[0];
  assert.ok(first.startsWith(`mcpCall: MCP server ${srv.name} (node) exited during tools/call "exit"`), first);
  assert.ok(err.message.includes("\n  fatal: lost the database\n"), err.message);
  const last = lastMessage(err);
  assert.deepEqual([last.direction, last.kind], ["sent", "request"]);
  assert.equal(last.message.method, "tools/call");
  assert.equal(last.message.params.name, "exit");
});

test("a result marked isError rejects", async () => {
  const err = await rejection(mcpCall(ref, "fail", { message: "boom" }));
  assert.equal(err.kind, "tool-error");
  assert.equal(err.data.result.isError, true);
  const first = err.message.split("\n")[0];
  assert.ok(first.startsWith(`mcpCall: tool "fail" of MCP server ${ref.name} (mcpr-reference-server) answered isError: `), first);
  assert.ok(first.includes("boom"), first);
  const last = lastMessage(err);
  assert.deepEqual([last.direction, last.kind], ["received", "response"]);
  assert.equal(last.message.result.isError, true);
});

test("allowError hands a result marked isError back", async () => {
  const result = await mcpCall(ref, "fail", { message: "boom" }, { allowError: true });
  assert.equal(result.isError, true);
  assert.ok(result.content.some((b) => b.type === "text" && b.text.includes("boom")), JSON.stringify(result));
  const srv = await startNode();
  servers.push(srv);
  const own = await mcpCall(srv, "fail", { message: "expected failure" }, { allowError: true });
  assert.deepEqual(own, { content: [{ type: "text", text: "expected failure" }], isError: true });
  await assert.rejects(mcpCall(srv, "fail", { message: "x" }, { allowError: false }), { kind: "tool-error" });
});

test("errors carry kind, code and data, and are McpErrors", async () => {
  const err = await rejection(mcpCall(ref, "fail", {}));
  assert.equal(err.name, "McpError");
  assert.equal(typeof err.kind, "string");
  assert.ok(err.code === null || typeof err.code === "string");
  assert.equal(typeof err.data, "object");
  assert.equal(err.server, ref.name);
  assert.ok(typeof err.stack === "string");
});
