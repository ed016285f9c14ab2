// What the tests share: the package under test, the servers, and checks of messages.
//
// The package: the repository's (../index.js, ../index.mjs) by default, with MCPR_BINARY
// pointing at target/debug/mcpr unless set; or an installed one when MCPR_NODE_PACKAGE
// names it (conformance-tests/dist/node.sh sets it to `mcpr` and leaves MCPR_BINARY unset,
// so the binary comes from the platform package).
// The reference server: MCPR_REFERENCE_SERVER, else target/debug/mcpr-reference-server.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, "../../..");
export const PACKAGE = process.env.MCPR_NODE_PACKAGE || "";

if (!PACKAGE && !process.env.MCPR_BINARY) {
  const built = path.join(repoRoot, "target/debug/mcpr");
  if (fs.existsSync(built)) process.env.MCPR_BINARY = built;
}

export const require = createRequire(import.meta.url);
/** The package as `require` gives it. */
export const cjs = require(PACKAGE || "../index.js");
/** The package as `import` gives it. */
export const esm = await import(PACKAGE || "../index.mjs");
export const { mcpStart, mcpCall, mcpWaitNotification, mcpStop, McpError, DEFAULT_TIMEOUT_MS } = esm;

/** Where the package's own files are (for the package.json and .d.ts checks). */
export const packageDir = path.dirname(require.resolve(PACKAGE ? `${PACKAGE}/package.json` : "../package.json"));

export const NODE_SERVER = path.join(here, "servers/node-server.cjs");
export const STUB_DRIVER = path.join(here, "servers/stub-driver.cjs");
export const REFERENCE =
  process.env.MCPR_REFERENCE_SERVER || path.join(repoRoot, "target/debug/mcpr-reference-server");

/** The Node test server (node-server.cjs), started as `node node-server.cjs ARGS…`. */
export function startNode(args = [], options) {
  return mcpStart(process.execPath, [NODE_SERVER, ...args], options);
}

/** The reference server; `legacy` pins 2025-11-25 (where its `notify` tool reaches a client without a subscription stream). */
export function startReference(options = {}, { legacy = false } = {}) {
  assert.ok(
    fs.existsSync(REFERENCE),
    `no reference server at ${REFERENCE}: build it (cargo build -p mcpr-reference-server) or set MCPR_REFERENCE_SERVER`,
  );
  return mcpStart(REFERENCE, [], legacy ? { protocol: "2025-11-25", ...options } : options);
}

const LAST_LINE = /^last MCP message \((sent|received), (request|response|notification|error)\): (\{.*\})$/;

/**
 * Checks that `err` is an McpError whose message ends with the last-MCP-message line, and
 * returns that message: {direction, kind, message}.
 */
export function lastMessage(err) {
  assert.ok(err instanceof McpError, `not an McpError: ${err && err.stack}`);
  assert.ok(err instanceof Error);
  const lines = err.message.split("\n");
  const last = lines[lines.length - 1];
  const m = LAST_LINE.exec(last);
  assert.ok(m, `the message does not end with the last MCP message:\n${err.message}`);
  const message = JSON.parse(m[3]);
  assert.equal(message.jsonrpc, "2.0", last);
  assert.equal(m[3], err.data.lastMessage.text, "the line quotes data.lastMessage");
  return { direction: m[1], kind: m[2], message };
}

/** Awaits `promise`, which must reject; returns the rejection. */
export async function rejection(promise) {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  assert.fail("expected a rejection, got a result");
}

/** Whether process `pid` is gone (or a zombie nobody reaped yet). */
function isGone(pid) {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return err.code === "ESRCH";
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

/**
 * Resolves when every pid is gone; rejects naming the ones still there after `deadlineMs`
 * (a generous bound: the driver's shutdown gives each server a grace period first).
 */
export async function waitGone(pids, deadlineMs = 20000) {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const alive = pids.filter((pid) => !isGone(pid));
    if (alive.length === 0) return;
    if (Date.now() > end) assert.fail(`still running after ${deadlineMs}ms: pids ${alive.join(", ")}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Runs `node FILE ARGS…` and resolves to {code, signal, stdout, stderr}; kills it and
 * fails when it has not exited after `deadlineMs`.
 */
export function runNode(file, args = [], { env = process.env, cwd, deadlineMs = 60000, onStdout } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file, ...args], { env, cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", (c) => {
      stdout += c;
      if (onStdout) onStdout(stdout, child);
    });
    child.stderr.on("data", (c) => (stderr += c));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`node ${file} ${args.join(" ")} did not exit within ${deadlineMs}ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, deadlineMs);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}
