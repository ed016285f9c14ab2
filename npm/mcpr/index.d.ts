// Type declarations of the `mcpr` package's library (docs/node.md).

/** A scalar that `match` compares: the value at a dot path of a notification's params. */
export type McpScalar = string | number | boolean | null;

export interface McpStartOptions {
  /** Variables added to the server's environment (which is this process's, minus credentials). */
  env?: Record<string, string | number | boolean | null | undefined>;
  /** The server's working folder, relative to the current directory. */
  cwd?: string;
  /** Deadline of the start and the handshake, in milliseconds (default 30000). */
  timeoutMs?: number;
  /**
   * The log messages (`notifications/message`) asked of the server, from this level up
   * (`debug` … `emergency`); default `debug`, all of them. `null`: ask for none, leaving
   * it to the server (which in the 2026-07-28 revision then sends none).
   */
  logLevel?: "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency" | null;
  /** Pin an MCP protocol version (`2025-11-25`, `2026-07-28`, …); default: the newest the server accepts. */
  protocol?: string;
}

/** The handle `mcpStart` resolves to; the other functions take it. */
export interface McpServer {
  /** The driver's name of the server, `mcp-1`, `mcp-2`, … */
  readonly name: string;
  /** The command as given to `mcpStart`. */
  readonly command: string;
  /** The arguments as given to `mcpStart`. */
  readonly args: readonly string[];
  /** The server's `serverInfo`, or null when it sent none. */
  readonly serverInfo: { name: string; version?: string; [key: string]: unknown } | null;
  /** The MCP protocol version in use. */
  readonly protocolVersion: string;
  /** The server's capabilities. */
  readonly capabilities: Record<string, unknown>;
  /** The server's instructions, or null. */
  readonly instructions: string | null;
  /** Names (never values) of this process's variables the server did not get because they look like credentials. */
  readonly withheldEnv: readonly string[];
  /** The server's process id. */
  readonly pid?: number;
}

/** One block of a tool result's `content`. */
export interface McpContentBlock {
  type: string;
  text?: string;
  [key: string]: unknown;
}

/** What `mcpCall` resolves to: the tool's CallToolResult. */
export interface McpCallResult {
  content: McpContentBlock[];
  /** Present when the tool sent it. */
  structuredContent?: Record<string, unknown>;
  /** Present when the tool sent it; true only with `allowError: true`. */
  isError?: boolean;
  [key: string]: unknown;
}

export interface McpCallOptions {
  /** Deadline of this call, in milliseconds (default 30000). */
  timeoutMs?: number;
  /** Resolve to a result marked `isError` instead of rejecting (default false). */
  allowError?: boolean;
}

export interface McpWaitOptions {
  /** Dot path of the params → the scalar it must equal, e.g. `{ "data.status": "done" }`. */
  match?: Record<string, McpScalar>;
  /** Deadline of this wait, in milliseconds (default 30000). */
  timeoutMs?: number;
}

/** What `mcpStop` resolves to. */
export interface McpStopResult {
  /** How the server process ended (`exit status 0`, `killed by signal 9 (SIGKILL)`), or null when unknown. */
  exitStatus: string | null;
  /** The exit code, when the server exited. */
  exitCode?: number;
  /** The signal number, when a signal ended the server. */
  signal?: number;
  /** The server's last stderr lines. */
  stderrTail: string[];
}

/** The last MCP message exchanged with a server, as an error carries it. */
export interface McpLastMessage {
  direction: "sent" | "received";
  kind: "request" | "response" | "notification" | "error";
  /** The message as it went over the wire (shortened past 2,000 bytes, secrets masked). */
  text: string;
}

/** The kinds of `McpError`: those of docs/driver.md, and `driver` when the driver itself failed. */
export type McpErrorKind =
  | "invalid-request"
  | "no-hello"
  | "unsupported-protocol"
  | "unknown-server"
  | "start-failed"
  | "server-exited"
  | "timeout"
  | "rpc-error"
  | "tool-error"
  | "invalid-result"
  | "transport"
  | "failed"
  | "driver";

/** What an `McpError` knows (docs/driver.md, "Errors"). */
export interface McpErrorData {
  server?: string;
  exitStatus?: string;
  exitCode?: number;
  signal?: number;
  stderrTail?: string[];
  stdoutNoise?: string[];
  /** kind `driver`: the driver's own last stderr lines. */
  driverStderr?: string[];
  lastMessage?: McpLastMessage;
  /** `timeout` of a wait: the notifications that arrived and are still waiting (at most 10). */
  arrived?: Array<{ method: string; params?: unknown }>;
  /** `timeout` of a wait: how many more arrived than `arrived` lists. */
  more?: number;
  /** `rpc-error`: the server's JSON-RPC error. */
  error?: { code: number; message: string; data?: unknown };
  /** `tool-error`: the result marked `isError`. */
  result?: McpCallResult;
  [key: string]: unknown;
}

/** The error every `mcp*` function rejects with (argument mistakes reject with a TypeError). */
export declare class McpError extends Error {
  readonly name: "McpError";
  /** What failed; see `McpErrorKind`. */
  readonly kind: McpErrorKind;
  /** mcpr's run-time code (`mcpr explain CODE`), or null. */
  readonly code: string | null;
  readonly data: McpErrorData;
  /** The handle's name (`mcp-1`), or null for a failed start. */
  readonly server: string | null;
}

/** Runs `command args…`, finishes the MCP handshake and resolves to the server's handle. */
export declare function mcpStart(
  command: string,
  args?: readonly string[],
  options?: McpStartOptions,
): Promise<McpServer>;
export declare function mcpStart(command: string, options: McpStartOptions): Promise<McpServer>;

/** Calls a tool; resolves to its result. */
export declare function mcpCall(
  server: McpServer,
  tool: string,
  args?: Record<string, unknown>,
  options?: McpCallOptions,
): Promise<McpCallResult>;

/** Resolves to the params of the oldest not yet taken notification `method` that matches. */
export declare function mcpWaitNotification<P = Record<string, unknown>>(
  server: McpServer,
  method: string,
  options?: McpWaitOptions,
): Promise<P>;

/** Stops the server (optional: servers left running are stopped when the process exits). */
export declare function mcpStop(server: McpServer): Promise<McpStopResult>;

/** 30000: the default deadline of a start, a call and a wait, in milliseconds. */
export declare const DEFAULT_TIMEOUT_MS: number;
