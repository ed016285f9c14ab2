// mcpStart, mcpCall, mcpWaitNotification and mcpStop (docs/node.md): thin functions over
// `mcpr driver` (docs/driver.md). Everything MCP happens in the driver; this file checks
// arguments, names the servers and turns the driver's errors into messages for people.
"use strict";

const path = require("node:path");
const { Driver } = require("./driver.js");

/** The default deadline of the start, of each call and of each wait. */
const DEFAULT_TIMEOUT_MS = 30000;

/** The level of the log messages asked of every server unless mcpStart says otherwise. */
const DEFAULT_LOG_LEVEL = "debug";

/** Where a handle keeps what is not for users: its driver and its state. */
const INTERNAL = Symbol("mcpr.internal");

/** The longest JSON quoted for one notification in a timeout message. */
const QUOTE_CHARS = 300;

/**
 * A failure of an `mcp*` function. `message` ends with the last MCP message exchanged
 * with the server; `kind`, `code` and `data` are those of the driver's error
 * (docs/driver.md), or kind `driver` when the driver itself failed.
 */
class McpError extends Error {
  constructor(message, { kind, code = null, data = {}, server = null }) {
    super(message);
    this.name = "McpError";
    this.kind = kind;
    this.code = code;
    this.data = data;
    this.server = server;
  }
}

/** The handle mcpStart resolves to. */
class McpServer {
  constructor(fields, driver, id) {
    Object.assign(this, fields);
    Object.defineProperty(this, INTERNAL, {
      value: { driver, id, stopped: null, label: `MCP server ${fields.name} (${path.basename(fields.command)})` },
    });
  }
}

function quote(value, limit = QUOTE_CHARS) {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  if (text === undefined) return String(value);
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

/** `last MCP message (received, response): {...}`, from the error's `data.lastMessage`. */
function lastMessageLine(data) {
  const last = data && data.lastMessage;
  if (!last || typeof last !== "object") {
    return "last MCP message: none (nothing was exchanged with the server)";
  }
  // `text` is the message as it went over the wire (docs/driver.md, "Errors").
  let text = last.text;
  if (typeof text !== "string") text = typeof last.message === "string" ? last.message : JSON.stringify(last.message);
  return `last MCP message (${last.direction}, ${last.kind}): ${text}`;
}

/** The lines between the first and the last: exit status, stderr tail, stdout noise, code. */
function detailLines(failure) {
  const data = failure.data || {};
  const lines = [];
  if (failure.kind === "rpc-error" && data.error && data.error.data !== undefined && data.error.data !== null) {
    lines.push(`error data: ${quote(data.error.data, 2000)}`);
  }
  if (data.exitStatus) lines.push(`server exit status: ${data.exitStatus}`);
  if (Array.isArray(data.stderrTail) && data.stderrTail.length) {
    lines.push("server stderr (last lines):");
    for (const l of data.stderrTail) lines.push(`  ${l}`);
  }
  if (Array.isArray(data.driverStderr) && data.driverStderr.length) {
    lines.push("mcpr driver stderr (last lines):");
    for (const l of data.driverStderr) lines.push(`  ${l}`);
  }
  if (Array.isArray(data.stdoutNoise) && data.stdoutNoise.length) {
    lines.push("server stdout that is not MCP:");
    for (const l of data.stdoutNoise) lines.push(`  ${l}`);
  }
  if (failure.code) lines.push(`mcpr code: ${failure.code} (mcpr explain ${failure.code})`);
  return lines;
}

function toError(first, failure, server) {
  const lines = [first, ...detailLines(failure), lastMessageLine(failure.data)];
  return new McpError(lines.join("\n"), {
    kind: failure.kind,
    code: failure.code,
    data: failure.data || {},
    server: server ? server.name : null,
  });
}

/** A failure that is not the driver's own error object (a bug, a TypeError): passed on. */
function isFailure(value) {
  return value && typeof value === "object" && !(value instanceof Error) && typeof value.kind === "string";
}

function checkTimeout(fn, timeoutMs) {
  if (timeoutMs === undefined || timeoutMs === null) return DEFAULT_TIMEOUT_MS;
  if (typeof timeoutMs !== "number" || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new TypeError(`${fn}: timeoutMs must be a positive number of milliseconds, not ${quote(timeoutMs)}`);
  }
  return Math.ceil(timeoutMs);
}

function checkOptions(fn, options, known) {
  if (options === undefined || options === null) return {};
  if (typeof options !== "object" || Array.isArray(options)) {
    throw new TypeError(`${fn}: the options must be an object, not ${quote(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      throw new TypeError(`${fn}: unknown option ${JSON.stringify(key)} (known: ${known.join(", ")})`);
    }
  }
  return options;
}

function internalOf(fn, server) {
  const internal = server && server[INTERNAL];
  if (!internal) {
    throw new TypeError(`${fn}: the first argument must be a server handle from mcpStart, not ${quote(server)}`);
  }
  return internal;
}

function isPlainObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** An error for a server whose driver is gone (stopped, or the driver exited). */
function goneError(fn, server, internal, what) {
  const failure = internal.driver.dead;
  const why = internal.stopped ? "mcpStop stopped it" : failure.message;
  return toError(`${fn}: ${internal.label} is not running (${why}); cannot do ${what}`, failure, server);
}

/** The names of this process's servers: mcp-1, mcp-2, … (one driver each). */
let started = 0;

/**
 * Runs `command` with `args`, finishes the MCP handshake and resolves to the server's
 * handle. The server inherits this process's environment minus the variables that look
 * like credentials (named in `withheldEnv`); `env` adds to it.
 */
async function mcpStart(command, args, options) {
  const fn = "mcpStart";
  if (isPlainObject(args) && options === undefined) {
    options = args;
    args = [];
  }
  if (typeof command !== "string" || command === "") {
    throw new TypeError(`${fn}: the command must be a non-empty string, not ${quote(command)}`);
  }
  if (args === undefined || args === null) args = [];
  if (!Array.isArray(args)) {
    throw new TypeError(`${fn}: args must be an array of strings, not ${quote(args)}`);
  }
  args = args.map((a) => {
    if (typeof a === "string") return a;
    if (typeof a === "number" || typeof a === "boolean") return String(a);
    throw new TypeError(`${fn}: args must be strings, not ${quote(a)}`);
  });
  const opts = checkOptions(fn, options, ["env", "cwd", "timeoutMs", "protocol", "logLevel"]);
  const timeoutMs = checkTimeout(fn, opts.timeoutMs);
  const params = { command: [command, ...args], inheritEnv: "all", timeoutMs };
  if (opts.env !== undefined && opts.env !== null) {
    if (!isPlainObject(opts.env)) throw new TypeError(`${fn}: env must be an object of strings`);
    params.env = {};
    for (const [name, value] of Object.entries(opts.env)) {
      if (value === undefined || value === null) continue; // e.g. process.env.UNSET
      if (typeof value === "object") {
        throw new TypeError(`${fn}: env.${name} must be a string, not ${quote(value)}`);
      }
      params.env[name] = String(value);
    }
  }
  if (opts.cwd !== undefined && opts.cwd !== null) {
    if (typeof opts.cwd !== "string") throw new TypeError(`${fn}: cwd must be a string`);
    // Relative to this process's current folder (the project), whatever the driver's is.
    params.cwd = path.resolve(opts.cwd);
  }
  // Log messages are notifications like any other: ask for all of them, so that they are
  // kept from the start in both protocol eras (2026-07-28 sends none unless asked).
  if (opts.logLevel === undefined) params.logLevel = DEFAULT_LOG_LEVEL;
  else if (opts.logLevel !== null && opts.logLevel !== false) {
    if (typeof opts.logLevel !== "string") throw new TypeError(`${fn}: logLevel must be a string, or null`);
    params.logLevel = opts.logLevel;
  }
  if (opts.protocol !== undefined) {
    if (typeof opts.protocol !== "string") throw new TypeError(`${fn}: protocol must be a string`);
    params.protocol = opts.protocol;
  }

  const commandLine = quote([command, ...args].map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : JSON.stringify(w))).join(" "), 200);
  const name = `mcp-${++started}`;
  params.name = name;
  // A driver of its own, started now: it inherits this process's environment as it is
  // at this call (process.env changed since is seen), and it goes with its server.
  const driver = new Driver();
  let result;
  try {
    result = await driver.request("open", params, timeoutMs);
  } catch (failure) {
    driver.close();
    if (!isFailure(failure)) throw failure;
    let first;
    if (failure.kind === "driver") first = `${fn}: cannot start ${commandLine}: ${failure.message}`;
    else if (failure.kind === "invalid-request") first = `${fn}: the driver refused to start ${commandLine}: ${failure.message}`;
    else if (failure.kind === "timeout") {
      first = `${fn}: MCP server ${commandLine} did not come up within ${timeoutMs}ms: ${failure.message}`;
    } else {
      const why = failure.message.replace(/^(the )?MCP server did not come up:\s*/i, "");
      first = `${fn}: MCP server ${commandLine} did not come up: ${why}`;
    }
    throw toError(first, failure, null);
  }
  return new McpServer(
    {
      name,
      command,
      args,
      serverInfo: result.serverInfo === undefined ? null : result.serverInfo,
      protocolVersion: result.protocolVersion,
      capabilities: result.capabilities || {},
      instructions: result.instructions === undefined ? null : result.instructions,
      withheldEnv: Array.isArray(result.withheldEnv) ? result.withheldEnv.slice() : [],
      pid: result.pid,
    },
    driver,
    typeof result.server === "string" ? result.server : name,
  );
}

/**
 * Calls `tool` with `args` and resolves to its result (`content`, `structuredContent`
 * when sent). Rejects on a JSON-RPC error, on no answer within the timeout, when the
 * server exits mid-call, and on `isError` unless `allowError`.
 */
async function mcpCall(server, tool, args, options) {
  const fn = "mcpCall";
  const internal = internalOf(fn, server);
  if (typeof tool !== "string" || tool === "") {
    throw new TypeError(`${fn}: the tool name must be a non-empty string, not ${quote(tool)}`);
  }
  if (args === undefined || args === null) args = {};
  if (!isPlainObject(args)) throw new TypeError(`${fn}: args must be an object, not ${quote(args)}`);
  const opts = checkOptions(fn, options, ["timeoutMs", "allowError"]);
  const timeoutMs = checkTimeout(fn, opts.timeoutMs);
  const what = `tools/call ${JSON.stringify(tool)}`;
  if (internal.driver.dead) throw goneError(fn, server, internal, what);
  let answer;
  try {
    answer = await internal.driver.request(
      "callTool",
      { server: internal.id, name: tool, arguments: args, allowError: opts.allowError === true, timeoutMs },
      timeoutMs,
    );
  } catch (failure) {
    if (!isFailure(failure)) throw failure;
    const label = internal.label;
    const data = failure.data || {};
    let first;
    switch (failure.kind) {
      case "timeout":
        first = `${fn}: no answer to ${what} from ${label} within ${timeoutMs}ms`;
        break;
      case "rpc-error": {
        const e = data.error || {};
        first = `${fn}: ${label} answered ${what} with JSON-RPC error ${e.code}: ${e.message === undefined ? failure.message : e.message}`;
        break;
      }
      case "server-exited":
        first = `${fn}: ${label} exited during ${what} (${data.exitStatus || failure.message})`;
        break;
      case "tool-error":
        first = `${fn}: tool ${JSON.stringify(tool)} of ${label} answered isError: ${toolText(data.result)} (pass {allowError: true} to check such a result yourself)`;
        break;
      case "invalid-result":
        first = `${fn}: ${label} answered ${what} with an invalid result: ${failure.message}`;
        break;
      case "unknown-server":
        first = `${fn}: ${label} is not running${internal.stopped ? " (mcpStop stopped it)" : ""}: ${failure.message}`;
        break;
      default:
        first = `${fn}: ${what} on ${label} failed: ${failure.message}`;
    }
    throw toError(first, failure, server);
  }
  return answer.result === undefined ? answer : answer.result;
}

/** The text of a tool result's first text blocks, for a message. */
function toolText(result) {
  const content = result && Array.isArray(result.content) ? result.content : [];
  const texts = content.filter((b) => b && b.type === "text" && typeof b.text === "string").map((b) => b.text);
  return texts.length ? quote(texts.join(" "), 500) : quote(result === undefined ? null : result, 500);
}

/**
 * Resolves to the `params` of the oldest notification `method` from `server` that matches
 * `match` and was not handed out before (notifications are kept from the server's start).
 */
async function mcpWaitNotification(server, method, options) {
  const fn = "mcpWaitNotification";
  const internal = internalOf(fn, server);
  if (typeof method !== "string" || method === "") {
    throw new TypeError(`${fn}: the method must be a non-empty string, not ${quote(method)}`);
  }
  const opts = checkOptions(fn, options, ["match", "timeoutMs"]);
  const timeoutMs = checkTimeout(fn, opts.timeoutMs);
  const params = { server: internal.id, method, timeoutMs };
  const match = opts.match === undefined || opts.match === null ? null : opts.match;
  if (match !== null) {
    if (!isPlainObject(match)) throw new TypeError(`${fn}: match must be an object (dot path → scalar)`);
    for (const [key, value] of Object.entries(match)) {
      if (value !== null && typeof value === "object") {
        throw new TypeError(`${fn}: match compares scalars; ${JSON.stringify(key)} is ${quote(value)}`);
      }
      if (value === undefined || typeof value === "function" || typeof value === "symbol" || typeof value === "bigint") {
        throw new TypeError(`${fn}: match.${key} must be a string, number, boolean or null`);
      }
    }
    params.match = match;
  }
  const wanted = `${JSON.stringify(method)}${match && Object.keys(match).length ? ` matching ${JSON.stringify(match)}` : ""}`;
  if (internal.driver.dead) throw goneError(fn, server, internal, `waiting for ${wanted}`);
  let answer;
  try {
    answer = await internal.driver.request("waitNotification", params, timeoutMs);
  } catch (failure) {
    if (!isFailure(failure)) throw failure;
    const label = internal.label;
    const data = failure.data || {};
    let first;
    switch (failure.kind) {
      case "timeout":
        first = `${fn}: no ${wanted} notification from ${label} within ${timeoutMs}ms; ${arrivedClause(data)}`;
        break;
      case "server-exited":
        first = `${fn}: ${label} exited while waiting for a ${wanted} notification (${data.exitStatus || failure.message})`;
        break;
      case "unknown-server":
        first = `${fn}: ${label} is not running${internal.stopped ? " (mcpStop stopped it)" : ""}: ${failure.message}`;
        break;
      default:
        first = `${fn}: waiting for a ${wanted} notification from ${label} failed: ${failure.message}`;
    }
    throw toError(first, failure, server);
  }
  return answer.params === undefined || answer.params === null ? {} : answer.params;
}

/** What a timed-out wait says of the notifications that did arrive and are not taken. */
function arrivedClause(data) {
  const arrived = Array.isArray(data.arrived) ? data.arrived : [];
  const more = Number.isInteger(data.more) ? data.more : 0;
  const total = arrived.length + more;
  if (total === 0) return "no other notification is waiting to be taken";
  const listed = arrived.map((n) =>
    n && n.params !== undefined && n.params !== null ? `${n.method} ${quote(n.params)}` : `${n && n.method}`,
  );
  const tail = more > 0 ? `, and ${more} more` : "";
  const verb = total === 1 ? "notification is" : "notifications are";
  return `${total} other ${verb} waiting to be taken: ${listed.join(", ")}${tail}`;
}

/**
 * Stops the server and resolves to `{exitStatus, exitCode or signal, stderrTail}`. Stopping a stopped server
 * resolves to the same answer; a server left running is stopped when this process exits.
 */
async function mcpStop(server) {
  const fn = "mcpStop";
  const internal = internalOf(fn, server);
  if (internal.stopped) return internal.stopped;
  if (internal.driver.dead) {
    // The driver stopped its server when it went away.
    internal.stopped = Promise.resolve({ exitStatus: null, stderrTail: [] });
    return internal.stopped;
  }
  // close stops the server; closing the driver's stdin then ends the driver (and would
  // stop the server too, had close failed).
  internal.stopped = internal.driver.request("close", { server: internal.id }).then(
    (result) => {
      internal.driver.close();
      return {
        ...result,
        exitStatus: result.exitStatus === undefined ? null : result.exitStatus,
        stderrTail: Array.isArray(result.stderrTail) ? result.stderrTail : [],
      };
    },
    (failure) => {
      internal.driver.close();
      if (!isFailure(failure)) throw failure;
      throw toError(`${fn}: stopping ${internal.label} failed: ${failure.message}`, failure, server);
    },
  );
  return internal.stopped;
}

module.exports = {
  mcpStart,
  mcpCall,
  mcpWaitNotification,
  mcpStop,
  McpError,
  McpServer,
  DEFAULT_TIMEOUT_MS,
};
