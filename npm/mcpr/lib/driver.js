// The connection to one `mcpr driver` process: JSON lines over its stdin and stdout, as
// docs/driver.md specifies (protocol 1). This file knows the wire, not MCP: it sends
// requests, matches responses to them by id, and rejects what is pending when the driver
// goes away. lib/api.js builds the `mcp*` functions on it, with one driver per server.
"use strict";

const { spawn } = require("node:child_process");
const { binaryPath } = require("./binary.js");

/** The driver protocol version this binding speaks. */
const PROTOCOL = 1;

/** How long past a request's own deadline the binding waits for the driver's answer. */
const BACKSTOP_MARGIN_MS = 15000;

/** The deadline for requests without one of their own (hello, close). */
const UNTIMED_BACKSTOP_MS = 60000;

/** The driver's stderr lines kept for messages. */
const STDERR_LINES = 20;

function packageVersion() {
  try {
    return require("../package.json").version;
  } catch {
    return "unknown";
  }
}

/**
 * A failure of the driver itself or of the wire (not of an MCP server): the driver could
 * not be started, exited, or did not answer. Its shape is that of the driver's error
 * object, with kind `driver`.
 */
function driverFailure(message, data = {}) {
  return { kind: "driver", message, code: null, data };
}

class Driver {
  constructor() {
    /** Requests sent and not yet answered, by id. */
    this.pending = new Map();
    this.nextId = 1;
    this.dead = null; // the failure object once the driver is gone
    this.stdoutBuffer = "";
    this.stderrBuffer = "";
    this.stderrTail = [];
    this.referenced = false;

    let binary;
    try {
      binary = binaryPath();
    } catch (err) {
      this.dead = driverFailure(`cannot find the mcpr binary: ${err.message}`);
      this.ready = Promise.reject(this.dead);
      this.ready.catch(() => {});
      return;
    }
    this.binary = binary;
    // detached (its own process group, POSIX only): a Ctrl-C meant for Node does not kill
    // the driver mid-way; it stops its servers in order when Node's end of its stdin closes.
    this.child = spawn(binary, ["driver"], {
      stdio: ["pipe", "pipe", "pipe"],
      detached: process.platform !== "win32",
      windowsHide: true,
    });
    this.pid = this.child.pid;
    live.add(this);
    this.child.stdout.setEncoding("utf8");
    this.child.stderr.setEncoding("utf8");
    this.child.stdout.on("data", (chunk) => this.onStdout(chunk));
    this.child.stderr.on("data", (chunk) => this.onStderr(chunk));
    // A write after the driver died fails with EPIPE; the exit handler reports it.
    this.child.stdin.on("error", () => {});
    this.child.on("error", (err) =>
      this.fail(driverFailure(`cannot run the mcpr driver (${binary} driver): ${err.message}`)),
    );
    this.child.on("exit", (code, signal) => {
      // stdout may still hold the last answers: read them before failing what is left.
      const how = signal ? `killed by ${signal}` : `exit code ${code}`;
      const finish = () =>
        this.fail(
          driverFailure(`the mcpr driver (${binary} driver) exited (${how})`, {
            driverStderr: this.stderrTail.slice(),
          }),
        );
      if (this.child.stdout.readableEnded) finish();
      else this.child.stdout.once("close", finish);
    });
    this.setReferenced(false);

    this.ready = this.send("hello", { protocol: PROTOCOL, client: `mcpr-node ${packageVersion()}` })
      .then((result) => {
        if (result.protocol !== PROTOCOL) {
          throw driverFailure(
            `the mcpr driver answered hello with protocol ${JSON.stringify(result.protocol)}; this package speaks ${PROTOCOL}`,
          );
        }
        this.version = result.version;
        this.methods = result.methods;
        return result;
      })
      .catch((failure) => {
        if (failure && failure.kind === "unsupported-protocol") {
          const supported = JSON.stringify(failure.data && failure.data.supported);
          failure = driverFailure(
            `the mcpr binary ${binary} speaks driver protocol ${supported}, this package speaks ${PROTOCOL}: ` +
              "install matching versions of the npm package and the binary",
            failure.data,
          );
        }
        this.fail(failure);
        throw failure;
      });
    this.ready.catch(() => {});
  }

  /**
   * Sends a request and resolves to its result, or rejects with the driver's error object
   * (`{kind, message, code, data}`). `timeoutMs` is the request's own deadline; the binding
   * gives up on the driver some time after it.
   */
  async request(method, params, timeoutMs) {
    await this.ready;
    return this.send(method, params, { timeoutMs });
  }

  send(method, params, { timeoutMs } = {}) {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.nextId++;
    const line = JSON.stringify(params === undefined ? { id, method } : { id, method, params });
    return new Promise((resolve, reject) => {
      const backstop = (timeoutMs === undefined ? UNTIMED_BACKSTOP_MS : timeoutMs + BACKSTOP_MARGIN_MS);
      const timer = setTimeout(() => {
        if (!this.pending.delete(id)) return;
        this.updateRef();
        reject(driverFailure(`the mcpr driver did not answer ${method} within ${backstop}ms`, {
          driverStderr: this.stderrTail.slice(),
        }));
      }, backstop);
      timer.unref();
      this.pending.set(id, { method, resolve, reject, timer });
      this.updateRef();
      this.child.stdin.write(line + "\n");
    });
  }

  onStdout(chunk) {
    this.stdoutBuffer += chunk;
    let nl;
    while ((nl = this.stdoutBuffer.indexOf("\n")) >= 0) {
      const line = this.stdoutBuffer.slice(0, nl);
      this.stdoutBuffer = this.stdoutBuffer.slice(nl + 1);
      if (line.trim()) this.onLine(line);
    }
  }

  onLine(line) {
    let response;
    try {
      response = JSON.parse(line);
    } catch {
      this.noteStderr(`(driver stdout, not JSON) ${line.slice(0, 500)}`);
      return;
    }
    if (response === null || typeof response !== "object") return;
    const entry = this.pending.get(response.id);
    if (!entry) return; // an answer to nothing in flight (id null: a line the driver could not read)
    this.pending.delete(response.id);
    clearTimeout(entry.timer);
    this.updateRef();
    if (response.error !== undefined) {
      const e = response.error || {};
      entry.reject({
        kind: typeof e.kind === "string" ? e.kind : "failed",
        message: typeof e.message === "string" ? e.message : JSON.stringify(e),
        code: typeof e.code === "string" ? e.code : null,
        data: e.data && typeof e.data === "object" ? e.data : {},
      });
    } else {
      entry.resolve(response.result === undefined ? {} : response.result);
    }
  }

  onStderr(chunk) {
    this.stderrBuffer += chunk;
    let nl;
    while ((nl = this.stderrBuffer.indexOf("\n")) >= 0) {
      this.noteStderr(this.stderrBuffer.slice(0, nl));
      this.stderrBuffer = this.stderrBuffer.slice(nl + 1);
    }
    if (process.env.MCPR_DRIVER_STDERR) process.stderr.write(chunk);
  }

  noteStderr(line) {
    this.stderrTail.push(line);
    if (this.stderrTail.length > STDERR_LINES) this.stderrTail.shift();
  }

  /** Rejects every pending request with `failure`; the driver is not used again. */
  fail(failure) {
    if (this.stderrBuffer) {
      this.noteStderr(this.stderrBuffer);
      this.stderrBuffer = "";
      if (failure.data && failure.data.driverStderr) failure.data.driverStderr = this.stderrTail.slice();
    }
    if (!this.dead) this.dead = failure;
    for (const [id, entry] of this.pending) {
      this.pending.delete(id);
      clearTimeout(entry.timer);
      entry.reject(failure);
    }
    this.close();
    this.setReferenced(false);
  }

  /** Closes the driver's stdin: it stops its servers and exits. Safe to call twice. */
  close() {
    live.delete(this);
    if (!this.dead) this.dead = driverFailure("the mcpr driver was closed");
    if (this.child && !this.child.stdin.destroyed) this.child.stdin.destroy();
  }

  /**
   * The driver keeps Node's event loop alive only while a request is in flight: an idle
   * driver (servers left open, nothing awaited) lets the process exit, and the exit
   * closes the driver's stdin.
   */
  updateRef() {
    this.setReferenced(this.pending.size > 0 && !this.dead);
  }

  setReferenced(on) {
    if (!this.child || this.referenced === on) return;
    this.referenced = on;
    for (const handle of [this.child, this.child.stdout, this.child.stderr, this.child.stdin]) {
      if (handle && typeof handle.ref === "function") {
        if (on) handle.ref();
        else handle.unref();
      }
    }
  }
}

/** The drivers of this process that are not closed. */
const live = new Set();

// Node closes the drivers' stdin when it exits anyway (the pipe's end dies with the
// process, whatever ends it); closing them here too makes that explicit and immediate.
process.on("exit", () => {
  for (const driver of live) driver.close();
});

module.exports = { Driver, driverFailure, PROTOCOL };
