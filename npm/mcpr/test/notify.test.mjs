// mcpWaitNotification: kept from the start and handed out once (so "call, then wait"
// works), match at dot paths, and a timeout that lists what did arrive.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import {
  lastMessage,
  mcpCall,
  mcpStop,
  mcpWaitNotification,
  rejection,
  startNode,
  startReference,
} from "./helpers.mjs";

const servers = [];
after(async () => {
  for (const s of servers) await mcpStop(s);
});
async function node() {
  const srv = await startNode();
  servers.push(srv);
  return srv;
}

for (const legacy of [false, true]) {
  test(`call, then wait: a log message of the reference server (${legacy ? "2025-11-25" : "its newest protocol"})`, async () => {
    const ref = await startReference({}, { legacy });
    servers.push(ref);
    if (legacy) assert.equal(ref.protocolVersion, "2025-11-25");
    const result = await mcpCall(ref, "log", { level: "info", message: "disk almost full" });
    assert.match(result.content[0].text, /^logged/);
    const params = await mcpWaitNotification(ref, "notifications/message", {
      match: { "data.message": "disk almost full" },
    });
    assert.equal(params.level, "info");
    assert.deepEqual(params.data, { message: "disk almost full" });
  });
}

test("call, then wait: the seed's echo that notifies", async () => {
  const srv = await node();
  const res = await mcpCall(srv, "echo", { text: "hi" });
  assert.equal(res.content[0].text, "hi");
  const params = await mcpWaitNotification(srv, "notifications/message", { match: { "data.echoed": "hi" } });
  assert.deepEqual(params, { level: "info", logger: "node-server", data: { echoed: "hi" } });
});

test("each notification is handed out once, oldest first", async () => {
  const srv = await node();
  await mcpCall(srv, "burst", { count: 3, tag: "once" });
  const seqs = [];
  for (let i = 0; i < 3; i++) {
    seqs.push((await mcpWaitNotification(srv, "notifications/message")).data.seq);
  }
  assert.deepEqual(seqs, [1, 2, 3]);
  const err = await rejection(mcpWaitNotification(srv, "notifications/message", { timeoutMs: 300 }));
  assert.equal(err.kind, "timeout");
  assert.ok(err.message.split("\n")[0].endsWith("; no other notification is waiting to be taken"), err.message);
  // The same notification twice: the second wait does not get it again.
  await mcpCall(srv, "echo", { text: "twice?" });
  await mcpWaitNotification(srv, "notifications/message", { match: { "data.echoed": "twice?" } });
  await assert.rejects(
    mcpWaitNotification(srv, "notifications/message", { match: { "data.echoed": "twice?" }, timeoutMs: 300 }),
    { kind: "timeout" },
  );
});

test("match compares scalars at dot paths; the others stay for later waits", async () => {
  const srv = await node();
  await mcpCall(srv, "burst", { count: 4, tag: "dots" });
  const even = await mcpWaitNotification(srv, "notifications/message", {
    match: { "data.detail.even": true, "data.tag": "dots" },
  });
  assert.equal(even.data.seq, 2);
  const fourth = await mcpWaitNotification(srv, "notifications/message", { match: { "data.seq": 4 } });
  assert.equal(fourth.data.seq, 4);
  const none = await rejection(
    mcpWaitNotification(srv, "notifications/message", { match: { "data.tag": "other" }, timeoutMs: 300 }),
  );
  assert.equal(none.kind, "timeout");
  assert.deepEqual(
    none.data.arrived.map((n) => n.params.data.seq),
    [1, 3],
    "the timeout lists the notifications still waiting",
  );
  const first = await mcpWaitNotification(srv, "notifications/message", { match: { "data.detail.even": false } });
  assert.equal(first.data.seq, 1);
  await assert.rejects(mcpWaitNotification(srv, "notifications/message", { match: { "data.detail": { even: false } } }), TypeError);
});

test("the timeout message reads like the seed's and ends with the last MCP message", async () => {
  const srv = await node();
  await mcpCall(srv, "echo", { text: "hi" });
  await mcpWaitNotification(srv, "notifications/message", { match: { "data.echoed": "hi" } });
  const err = await rejection(
    mcpWaitNotification(srv, "notifications/message", { match: { "data.echoed": "never" }, timeoutMs: 300 }),
  );
  assert.equal(err.kind, "timeout");
  const lines = err.message.split("\n");
  assert.equal(
    lines[0],
    `mcpWaitNotification: no "notifications/message" matching {"data.echoed":"never"} notification from MCP server ${srv.name} (node) within 300ms; no other notification is waiting to be taken`,
  );
  const last = lastMessage(err);
  assert.deepEqual([last.direction, last.kind], ["received", "response"]);
  assert.deepEqual(last.message.result.content, [{ type: "text", text: "hi" }]);
  assert.match(lines[lines.length - 1], /^last MCP message \(received, response\): \{"jsonrpc":"2\.0","id":\d+,"result":\{/);
});

test("a timeout names the notifications that did arrive", async () => {
  const srv = await node();
  await mcpCall(srv, "echo", { text: "first" });
  await mcpCall(srv, "echo", { text: "second" });
  const err = await rejection(
    mcpWaitNotification(srv, "notifications/message", { match: { "data.echoed": "third" }, timeoutMs: 300 }),
  );
  const first = err.message.split("\n")[0];
  assert.ok(
    first.startsWith(
      `mcpWaitNotification: no "notifications/message" matching {"data.echoed":"third"} notification from MCP server ${srv.name} (node) within 300ms; 2 other notifications are waiting to be taken: notifications/message {`,
    ),
    first,
  );
  assert.ok(first.includes('"echoed":"first"') && first.includes('"echoed":"second"'), first);
  assert.equal(err.data.arrived.length, 2);
  lastMessage(err);
});

test("a timeout on the reference server lists its notifications of other methods", async () => {
  const ref = await startReference({}, { legacy: true });
  servers.push(ref);
  await mcpCall(ref, "log", { level: "warning", message: "arrived before the wait" });
  await mcpCall(ref, "notify", { kind: "tools" });
  const err = await rejection(mcpWaitNotification(ref, "notifications/progress", { timeoutMs: 300 }));
  assert.equal(err.kind, "timeout");
  const first = err.message.split("\n")[0];
  assert.ok(first.startsWith(`mcpWaitNotification: no "notifications/progress" notification from MCP server ${ref.name} (mcpr-reference-server) within 300ms; `), first);
  assert.match(first, /\d+ other notifications? (is|are) waiting to be taken: /);
  assert.ok(first.includes('notifications/message {"level":"warning"'), first);
  assert.ok(first.includes("arrived before the wait"), first);
  assert.ok(first.includes("notifications/tools/list_changed"), first);
  const methods = err.data.arrived.map((n) => n.method);
  assert.ok(methods.includes("notifications/message") && methods.includes("notifications/tools/list_changed"), methods);
  lastMessage(err);
  // Listing them did not take them.
  const params = await mcpWaitNotification(ref, "notifications/message", { match: { "data.message": "arrived before the wait" } });
  assert.equal(params.level, "warning");
  await mcpWaitNotification(ref, "notifications/tools/list_changed");
});

test("a server exiting during a wait rejects the wait at once", async () => {
  const srv = await node();
  const waiting = rejection(mcpWaitNotification(srv, "notifications/message", { match: { "data.echoed": "never" } }));
  const call = await rejection(mcpCall(srv, "exit", { code: 5, message: "going away" }));
  assert.equal(call.kind, "server-exited");
  const err = await waiting;
  assert.equal(err.kind, "server-exited");
  assert.ok(err.message.startsWith(`mcpWaitNotification: MCP server ${srv.name} (node) exited while waiting`), err.message);
  assert.ok(err.message.includes("going away"), err.message);
  lastMessage(err);
});
