// mcpStop, and servers left running: stopped when the Node process ends, however it ends.
import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import {
  here,
  mcpCall,
  mcpStop,
  mcpWaitNotification,
  rejection,
  runNode,
  startNode,
  startReference,
  waitGone,
} from "./helpers.mjs";

const FIXTURE = path.join(here, "fixtures/leave-running.mjs");

test("mcpStop stops the server; a second mcpStop is harmless; calls after it reject", async () => {
  const srv = await startReference();
  const pid = srv.pid;
  assert.ok(Number.isInteger(pid));
  const stopped = await mcpStop(srv);
  assert.ok("exitStatus" in stopped && Array.isArray(stopped.stderrTail), JSON.stringify(stopped));
  await waitGone([pid]);
  assert.deepEqual(await mcpStop(srv), stopped);
  const err = await rejection(mcpCall(srv, "echo", { text: "hi" }));
  assert.ok(err.message.startsWith(`mcpCall: MCP server ${srv.name} (mcpr-reference-server) is not running (mcpStop stopped it)`), err.message);
  assert.match(err.message.split("\n").pop(), /^last MCP message/);
  await assert.rejects(mcpWaitNotification(srv, "notifications/message", { timeoutMs: 300 }), /is not running/);
});

test("mcpStop of a Node server reports how it ended", async () => {
  const srv = await startNode();
  const pid = (await mcpCall(srv, "pid", {})).structuredContent.pid;
  assert.equal(srv.pid, pid, "the handle's pid is the server's");
  const stopped = await mcpStop(srv);
  assert.equal(stopped.exitCode, 0, JSON.stringify(stopped));
  assert.match(stopped.exitStatus, /\b0\b/);
  await waitGone([pid]);
});

test("a server left running when the event loop runs dry is stopped, and the driver lets Node exit", async () => {
  const run = await runNode(FIXTURE, ["return"]);
  assert.equal(run.code, 0, run.stderr);
  const { pids } = JSON.parse(run.stdout);
  await waitGone(pids);
});

test("a server left running is stopped when Node dies of an uncaught exception", async () => {
  const run = await runNode(FIXTURE, ["throw"]);
  assert.equal(run.code, 1);
  assert.match(run.stderr, /uncaught on purpose/);
  const { pids } = JSON.parse(run.stdout);
  await waitGone(pids);
});

test("a server left running is stopped on process.exit with a call pending", async () => {
  const run = await runNode(FIXTURE, ["exit"]);
  assert.equal(run.code, 0, run.stderr);
  const { pids } = JSON.parse(run.stdout);
  await waitGone(pids);
});

test("a server left running is stopped when Node is killed", async () => {
  const run = await runNode(FIXTURE, ["wait"], {
    onStdout: (stdout, child) => {
      if (stdout.includes("\n")) child.kill("SIGKILL");
    },
  });
  assert.equal(run.signal, "SIGKILL");
  const { pids } = JSON.parse(run.stdout);
  await waitGone(pids);
});
