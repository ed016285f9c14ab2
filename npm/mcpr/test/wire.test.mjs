// What the binding writes to the driver (docs/driver.md), seen through a stub driver that
// answers from what it was sent: the 30-second defaults, the inherited environment, an
// absolute cwd; and how a failure of the driver itself is reported.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { DEFAULT_TIMEOUT_MS, McpError, STUB_DRIVER, mcpCall, mcpStart, mcpStop, mcpWaitNotification, rejection } from "./helpers.mjs";

let saved;
before(() => {
  fs.chmodSync(STUB_DRIVER, 0o755);
  saved = process.env.MCPR_BINARY;
  process.env.MCPR_BINARY = STUB_DRIVER;
});
after(() => {
  if (saved === undefined) delete process.env.MCPR_BINARY;
  else process.env.MCPR_BINARY = saved;
});

async function sent(srv) {
  return (await mcpCall(srv, "requests", {})).structuredContent.requests;
}

test("defaults: 30 seconds for the start, each call and each wait", async () => {
  assert.equal(DEFAULT_TIMEOUT_MS, 30000);
  const srv = await mcpStart("my-server", ["--flag"]);
  const wait = await mcpWaitNotification(srv, "notifications/message");
  assert.equal(wait.request.timeoutMs, 30000);
  const requests = await sent(srv);
  assert.deepEqual(requests[0].method, "hello");
  assert.equal(requests[0].params.protocol, 1);
  const open = requests.find((r) => r.method === "open");
  assert.equal(open.params.timeoutMs, 30000);
  assert.deepEqual(open.params.command, ["my-server", "--flag"]);
  assert.equal(open.params.inheritEnv, "all");
  assert.equal(open.params.logLevel, "debug", "log messages asked for, all of them");
  assert.equal(open.params.protocol, undefined, "the protocol left to the driver");
  assert.equal(open.params.name, srv.name);
  const call = requests.find((r) => r.method === "callTool");
  assert.equal(call.params.timeoutMs, 30000);
  assert.equal(call.params.allowError, false);
  assert.deepEqual(call.params.arguments, {});
  await mcpStop(srv);
});

test("given deadlines, env and cwd go to the driver as asked; cwd made absolute", async () => {
  const srv = await mcpStart("my-server", [], {
    timeoutMs: 1234,
    env: { A: "1", N: 2, U: undefined, Z: null },
    cwd: "some/dir",
    logLevel: "warning",
    protocol: "2025-06-18",
  });
  await mcpCall(srv, "requests", { x: 1 }, { timeoutMs: 4321, allowError: true });
  await mcpWaitNotification(srv, "m", { match: { "a.b": 1, c: null }, timeoutMs: 99 });
  const requests = await sent(srv);
  const open = requests.find((r) => r.method === "open").params;
  assert.equal(open.timeoutMs, 1234);
  assert.deepEqual(open.env, { A: "1", N: "2" });
  assert.equal(open.cwd, path.resolve("some/dir"));
  assert.equal(open.logLevel, "warning");
  assert.equal(open.protocol, "2025-06-18");
  const call = requests.find((r) => r.method === "callTool").params;
  assert.deepEqual([call.timeoutMs, call.allowError, call.arguments], [4321, true, { x: 1 }]);
  const wait = requests.find((r) => r.method === "waitNotification").params;
  assert.deepEqual([wait.method, wait.match, wait.timeoutMs], ["m", { "a.b": 1, c: null }, 99]);
  await mcpStop(srv);
});

test("logLevel null asks for no log messages", async () => {
  const srv = await mcpStart("my-server", [], { logLevel: null });
  const open = (await sent(srv)).find((r) => r.method === "open").params;
  assert.ok(!("logLevel" in open), JSON.stringify(open));
  await mcpStop(srv);
});

test("a failure without a last MCP message still ends with the line, saying there was none", async () => {
  const srv = await mcpStart("my-server", []);
  const err = await rejection(mcpCall(srv, "bare-error", {}));
  assert.ok(err instanceof McpError);
  assert.equal(err.kind, "failed");
  assert.equal(err.message.split("\n").pop(), "last MCP message: none (nothing was exchanged with the server)");
  await mcpStop(srv);
});

test("a driver that dies fails the call with kind driver and its stderr", async () => {
  const srv = await mcpStart("my-server", []);
  const err = await rejection(mcpCall(srv, "die", {}));
  assert.equal(err.kind, "driver");
  assert.match(err.message, /the mcpr driver .* exited \(exit code 7\)/);
  assert.ok(err.message.includes("\n  stub-driver: dying on request\n"), err.message);
  assert.deepEqual(err.data.driverStderr, ["stub-driver: dying on request"]);
  assert.match(err.message.split("\n").pop(), /^last MCP message/);
  const again = await rejection(mcpCall(srv, "requests", {}));
  assert.match(again.message, /is not running/);
  assert.deepEqual(await mcpStop(srv), { exitStatus: null, stderrTail: [] });
});

test("a binary without the driver fails mcpStart with what it printed", async () => {
  process.env.MCPR_BINARY = process.execPath; // `node driver` is not a driver
  try {
    const err = await rejection(mcpStart("my-server", []));
    assert.equal(err.kind, "driver");
    assert.ok(err.message.startsWith("mcpStart: cannot start my-server: the mcpr driver"), err.message);
  } finally {
    process.env.MCPR_BINARY = STUB_DRIVER;
  }
});

test("a driver of another protocol version fails mcpStart, saying which it speaks", async () => {
  process.env.STUB_DRIVER_PROTOCOL = "2";
  try {
    const err = await rejection(mcpStart("my-server", []));
    assert.equal(err.kind, "driver");
    assert.match(err.message, /speaks driver protocol \[2\], this package speaks 1/);
    assert.match(err.message.split("\n").pop(), /^last MCP message/);
  } finally {
    delete process.env.STUB_DRIVER_PROTOCOL;
  }
});
