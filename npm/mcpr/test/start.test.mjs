// mcpStart: the handle, the environment (inherited minus credentials, `env` added), `cwd`,
// and a server that does not come up.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import util from "node:util";
import {
  NODE_SERVER,
  REFERENCE,
  McpError,
  lastMessage,
  mcpCall,
  mcpStart,
  mcpStop,
  rejection,
  startNode,
  startReference,
} from "./helpers.mjs";

// A credential of the runner (the shape of a GitHub token) and an ordinary variable.
const TOKEN = "ghp_" + "N0deBindingTestTokenAbcdefghijklmnop12";
process.env.GITHUB_TOKEN = TOKEN;
process.env.MCPR_NODE_TEST_ORDINARY = "ordinary-value";

const servers = [];
after(async () => {
  for (const s of servers) await mcpStop(s);
});

/** The reference server's `environment` tool: {cwd, name, value}. */
async function environment(server, name) {
  const result = await mcpCall(server, "environment", { name });
  return JSON.parse(result.content[0].text);
}

test("the handle names the server and says what the handshake gave", async () => {
  const srv = await startReference();
  servers.push(srv);
  assert.match(srv.name, /^mcp-\d+$/);
  assert.equal(srv.command, REFERENCE);
  assert.deepEqual(srv.args, []);
  assert.equal(typeof srv.serverInfo.name, "string");
  assert.ok(srv.serverInfo.name.length > 0);
  assert.match(srv.protocolVersion, /^\d{4}-\d{2}-\d{2}$/);
  assert.ok(Array.isArray(srv.withheldEnv));
  assert.ok(Number.isInteger(srv.pid) && srv.pid > 0, `pid ${srv.pid}`);
  const other = await startNode();
  servers.push(other);
  assert.notEqual(other.name, srv.name, "each server has a name of its own");
  assert.deepEqual(other.serverInfo, { name: "node-test-server", version: "1.0.0" });
  assert.equal(other.protocolVersion, "2025-11-25");
});

test("the server inherits the environment minus credentials, which the handle names without values", async () => {
  const srv = await startReference({ env: { MCPR_NODE_TEST_ADDED: "added-value" } });
  servers.push(srv);
  assert.ok(srv.withheldEnv.includes("GITHUB_TOKEN"), `withheldEnv: ${srv.withheldEnv}`);
  assert.ok(!srv.withheldEnv.includes("MCPR_NODE_TEST_ORDINARY"));
  assert.ok(!srv.withheldEnv.includes("PATH"));
  for (const shown of [JSON.stringify(srv), util.inspect(srv, { depth: 10, showHidden: true })]) {
    assert.ok(!shown.includes(TOKEN), `the handle shows the token's value: ${shown}`);
  }
  assert.equal((await environment(srv, "GITHUB_TOKEN")).value, null, "the server saw the credential");
  assert.equal((await environment(srv, "MCPR_NODE_TEST_ORDINARY")).value, "ordinary-value");
  assert.equal((await environment(srv, "MCPR_NODE_TEST_ADDED")).value, "added-value");
});

test("`env` adds to the environment of a Node server too, and the environment is the one at mcpStart", async () => {
  process.env.MCPR_NODE_TEST_LATE = "set-after-other-starts";
  try {
    const srv = await startNode([], { env: { API_TOKEN: "given-on-purpose", COUNT: 3 } });
    servers.push(srv);
    const env = async (name) => (await mcpCall(srv, "env", { name })).structuredContent.value;
    assert.equal(await env("GITHUB_TOKEN"), null);
    assert.equal(await env("MCPR_NODE_TEST_ORDINARY"), "ordinary-value");
    assert.equal(await env("MCPR_NODE_TEST_LATE"), "set-after-other-starts");
    assert.equal(await env("COUNT"), "3");
    assert.equal(await env("API_TOKEN"), "given-on-purpose", "a credential given in env reaches the server");
    assert.ok(srv.withheldEnv.includes("GITHUB_TOKEN"));
  } finally {
    delete process.env.MCPR_NODE_TEST_LATE;
  }
});

test("cwd is relative to the current directory", async () => {
  const project = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mcpr-node-cwd-")));
  try {
    fs.mkdirSync(path.join(project, "sub"));
    const before = process.cwd();
    process.chdir(project);
    let srv;
    try {
      srv = await startReference({ cwd: "sub" });
    } finally {
      process.chdir(before);
    }
    servers.push(srv);
    assert.equal((await environment(srv, "HOME")).cwd, path.join(project, "sub"));
    const plain = await startReference();
    servers.push(plain);
    assert.equal((await environment(plain, "HOME")).cwd, before, "without cwd, the current directory");
  } finally {
    fs.rmSync(project, { recursive: true, force: true });
  }
});

test("a server that does not come up rejects with its stderr tail", async () => {
  const err = await rejection(startNode(["--fail-start", "fatal: database not configured"]));
  assert.ok(err instanceof McpError, String(err));
  assert.equal(err.kind, "start-failed");
  assert.ok(err.data.stderrTail.includes("fatal: database not configured"), `stderrTail: ${err.data.stderrTail}`);
  const first = err.message.split("\n")[0];
  assert.ok(first.startsWith("mcpStart: "), first);
  assert.ok(first.includes(NODE_SERVER), first);
  assert.ok(err.message.includes("\n  fatal: database not configured\n"), err.message);
  assert.ok(err.message.includes("\n  node-server: giving up before the handshake\n"), err.message);
  assert.equal(lastMessage(err).direction, "sent", "the server never answered");
  assert.equal(err.server, null);
});

test("a server that never finishes the handshake rejects at the start's deadline", async () => {
  const err = await rejection(startNode(["--mute"], { timeoutMs: 300 }));
  assert.ok(["start-failed", "timeout"].includes(err.kind), err.kind);
  assert.ok(err.message.split("\n")[0].includes("did not come up"), err.message);
  assert.equal(lastMessage(err).direction, "sent", "the server never answered");
});

test("a command that does not exist rejects with an McpError", async () => {
  const err = await rejection(mcpStart(path.join(os.tmpdir(), "mcpr-node-no-such-server"), []));
  assert.ok(err instanceof McpError, String(err));
  assert.ok(err.message.startsWith("mcpStart: "), err.message);
  assert.match(err.message.split("\n").pop(), /^last MCP message/);
});

test("mistaken arguments reject with a TypeError", async () => {
  await assert.rejects(mcpStart(""), TypeError);
  await assert.rejects(mcpStart("node", "server.js"), TypeError);
  await assert.rejects(mcpStart("node", [], { timeout: 5 }), /unknown option "timeout"/);
  await assert.rejects(mcpStart("node", [], { timeoutMs: -1 }), TypeError);
  await assert.rejects(mcpStart("node", [], { env: { A: { b: 1 } } }), TypeError);
  await assert.rejects(mcpCall({ name: "mcp-1" }, "echo", {}), /server handle from mcpStart/);
});
