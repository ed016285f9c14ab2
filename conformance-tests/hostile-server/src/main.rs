//! `mcpr-hostile-server MODE`: an MCP stdio server that misbehaves in one chosen way, for
//! the runtime's fault-injection tests. Apart from its fault it answers `initialize`
//! (2025-11-25), refuses `server/discover` (-32601) and offers one tool, `echo`.
//!
//! Modes: garbage, partial-exit, crash-mid-call, never-answer, wrong-id, duplicate, huge,
//! flood, stderr-flood, ignore-sigterm, slow-start, exit-1, bad-version, orphan,
//! repeat-cursor, bad-progress, bad-structured, instant (a fast, correct server for
//! benchmarks), batch (answers tools/call inside a JSON-RPC batch and echoes any version),
//! sloppy-modern (speaks 2026-07-28 but leaves out resultType, caching hints and
//! subscription ids, and logs unasked), late-modern (answers the first `server/discover`
//! only after a second, then serves 2026-07-28 alone: `initialize` gets -32022),
//! endless-input (speaks 2026-07-28 and answers every `tools/call` with `input_required`),
//! hang-initialize (reads, never answers the handshake), notification-hog (300
//! notifications of 1 MiB before answering `tools/call`), setsid-exit (starts a `setsid`
//! `sleep` that holds its stdout and exits on `tools/call`), setsid-orphan (a `setsid` `sleep`
//! outside its group, stdio closed), ignore-sigterm-in-call (on `tools/call`, ignores SIGTERM
//! and never answers), tasks-2025 (2025-11-25 tasks done by the book: a task-augmented `tools/call` answers a
//! task, `tasks/get` gives its status only, `tasks/result` the tool's result), lock-file PATH
//! (holds PATH as a lock while it lives, as a server holding a port would: refuses to start
//! when the file exists; after stdin closes it takes 300 ms to exit, then removes it; on
//! SIGTERM it removes it at once and exits), linger MS (after stdin closes, sleeps MS
//! milliseconds before it exits, as a server held by a timer does), busy-exit MS (after
//! stdin closes, keeps a core busy for MS milliseconds, then writes `busy-exit done` on
//! stderr and exits, as a server with a long clean-up does), many-values N (answers
//! `tools/call` with N one-digit numbers, 7,400,000 by default: about 15 MB), many-tools N
//! (a `tools/list` of N tools, 100,000 by default), duplicate-call (every answer to
//! `tools/call` twice), stray-progress (progress for a token
//! never sent before answering `tools/call`), dangling-ref (also offers `sum`, whose
//! outputSchema has a `$ref` that resolves nowhere), fork-on-term PIDFILE [clean-env] (stays
//! alive after stdin closes; on SIGTERM starts a `setsid sleep 300`, writes its pid to
//! PIDFILE and exits; with `clean-env` the child gets an empty environment).
//!
//! HTTP modes listen on 127.0.0.1 (the URL is printed on stderr), answer the handshake
//! properly and break `tools/call`: http-garbage (a body that is not JSON), http-status-500,
//! http-hang (never answers), http-huge (a 50 MB body), http-sse-flood (100,000 events before
//! the answer), http-wrong-id, http-session-expired (404 for a known session, every time),
//! http-session-expiry (the first session expires at its first `tools/call`; a session
//! initialized after that works), http-header-refetch (speaks 2026-07-28; its first
//! `tools/list` leaves out the `x-mcp-header` of `echo`'s `region`, later ones have it, and
//! `tools/call` answers -32020 unless `Mcp-Param-Region` matches — always for region
//! `reject`), http-slips (answers `tools/call` with `Content-Type: text/plain` and a new
//! `Mcp-Session-Id` on every response after `initialize`).

mod large;

use std::io::Write as _;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

const MODES: &[&str] = &[
    "lock-file",
    "linger",
    "busy-exit",
    "hang-initialize",
    "notification-hog",
    "setsid-exit",
    "setsid-orphan",
    "ignore-sigterm-in-call",
    "http-sse-hog",
    "tasks-2025",
    "garbage",
    "partial-exit",
    "crash-mid-call",
    "never-answer",
    "wrong-id",
    "duplicate",
    "huge",
    "flood",
    "stderr-flood",
    "ignore-sigterm",
    "slow-start",
    "endless-input",
    "exit-1",
    "bad-version",
    "orphan",
    "repeat-cursor",
    "bad-progress",
    "bad-structured",
    "instant",
    "fuzz-target",
    "batch",
    "sloppy-modern",
    "late-modern",
    "http-garbage",
    "http-status-500",
    "http-hang",
    "http-huge",
    "http-sse-flood",
    "http-wrong-id",
    "http-session-expired",
    "http-session-expiry",
    "http-header-refetch",
    "many-values",
    "many-tools",
    "fork-on-term",
    "stray-progress",
    "duplicate-call",
    "dangling-ref",
    "http-slips",
];

/// Blocking writes to stdout (simple and fast; this server does one thing at a time).
struct Out {
    stdout: std::io::Stdout,
}

impl Out {
    async fn line(&mut self, value: &Value) {
        let mut s = value.to_string();
        s.push('\n');
        self.raw(s.as_bytes()).await;
    }

    async fn raw(&mut self, bytes: &[u8]) {
        let mut lock = self.stdout.lock();
        if lock.write_all(bytes).and_then(|()| lock.flush()).is_err() {
            std::process::exit(0);
        }
    }
}

/// What the `instant` mode reads of a message: only what its answers need.
#[derive(serde::Deserialize)]
struct InstantRequest<'a> {
    #[serde(borrow, default)]
    method: Option<std::borrow::Cow<'a, str>>,
    #[serde(default)]
    id: Option<Value>,
    #[serde(borrow, default)]
    params: Option<InstantParams<'a>>,
}

#[derive(serde::Deserialize)]
struct InstantParams<'a> {
    #[serde(borrow, default)]
    arguments: Option<InstantArguments<'a>>,
}

#[derive(serde::Deserialize)]
struct InstantArguments<'a> {
    #[serde(borrow, default)]
    text: Option<std::borrow::Cow<'a, str>>,
}

/// Ends an answer begun with its `id`: the `result` or `error` member and the newline.
fn member(reply: &mut Vec<u8>, key: &str, value: &Value) -> serde_json::Result<()> {
    reply.extend_from_slice(b",\"");
    reply.extend_from_slice(key.as_bytes());
    reply.extend_from_slice(b"\":");
    serde_json::to_writer(&mut *reply, value)?;
    reply.extend_from_slice(b"}\n");
    Ok(())
}

/// The `instant` mode: a correct server for benchmarks (initialize, ping, tools/list,
/// tools/call of `echo`) that spends as little as it can on each message, so that a
/// benchmark measures the client. Blocking reads and writes on one thread (tokio's stdin
/// goes through a thread pool on every read); each message is read into borrowed parts
/// of its line and each answer written in one piece.
fn serve_instant() {
    use std::io::BufRead as _;
    let mut input = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    let mut line = Vec::new();
    let mut reply = Vec::with_capacity(4096);
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        // Not JSON (or not UTF-8): ignored, like a notification.
        let Ok(msg) = serde_json::from_slice::<InstantRequest<'_>>(&line) else {
            continue;
        };
        let (Some(method), Some(id)) = (msg.method, msg.id) else {
            continue;
        };
        reply.clear();
        reply.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        if serde_json::to_writer(&mut reply, &id).is_err() {
            continue;
        }
        let written = match &*method {
            "tools/call" => {
                let text = msg
                    .params
                    .and_then(|p| p.arguments)
                    .and_then(|a| a.text)
                    .unwrap_or_default();
                reply.extend_from_slice(br#","result":{"content":[{"type":"text","text":"#);
                serde_json::to_writer(&mut reply, &*text)
                    .map(|()| reply.extend_from_slice(b"}]}}\n"))
            }
            "initialize" => member(
                &mut reply,
                "result",
                &json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "mcpr-hostile-server", "version": "0.1.0"}}),
            ),
            "tools/list" => member(
                &mut reply,
                "result",
                &json!({"tools": tool_list("instant")}),
            ),
            "ping" => member(&mut reply, "result", &json!({})),
            other => member(
                &mut reply,
                "error",
                &json!({"code": -32601, "message": format!("Method not found: {other}")}),
            ),
        };
        if written.is_err() {
            continue;
        }
        if stdout
            .write_all(&reply)
            .and_then(|()| stdout.flush())
            .is_err()
        {
            return;
        }
    }
}

fn result(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

fn error_with(id: &Value, code: i64, message: &str, data: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message, "data": data}})
}

fn tool_list(mode: &str) -> Value {
    let mut echo = json!({"name": "echo", "description": "Echoes `text`", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}});
    if mode == "bad-structured" {
        echo["outputSchema"] = json!({"type": "object", "properties": {"sum": {"type": "integer"}}, "required": ["sum"]});
    }
    if mode == "dangling-ref" {
        return json!([echo, {"name": "sum", "description": "Adds `a` and `b`",
            "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}},
            "outputSchema": {"type": "object", "properties": {"sum": {"$ref": "#/$defs/missing"}}}}]);
    }
    if mode == "fuzz-target" {
        return json!([
            echo,
            {"name": "divide", "description": "Divides `a` by `b`", "inputSchema": {"type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}},
            {"name": "score", "description": "Scores a name", "inputSchema": {"type": "object",
                "properties": {"name": {"type": "string", "maxLength": 40}}, "required": ["name"]},
                "outputSchema": {"type": "object", "properties": {"score": {"type": "integer"}}, "required": ["score"]}},
        ]);
    }
    json!([echo])
}

/// `fuzz-target`: `divide` crashes when `b` is 0 (whatever else is given), `score` answers
/// a non-ASCII name with `structuredContent` against its `outputSchema`; wrong or missing
/// arguments get -32602.
fn fuzz_target_call(id: &Value, params: &Value) -> Value {
    let args = &params["arguments"];
    match params["name"].as_str() {
        Some("echo") => match args["text"].as_str() {
            Some(t) => result(id, json!({"content": [{"type": "text", "text": t}]})),
            None => error(id, -32602, "echo needs a string `text`"),
        },
        Some("divide") => {
            if args["b"].as_f64() == Some(0.0) {
                eprintln!("hostile: panicked at 'attempt to divide by zero' (mode fuzz-target)");
                std::process::exit(70);
            }
            match (args["a"].as_i64(), args["b"].as_i64()) {
                (Some(a), Some(b)) => result(
                    id,
                    json!({"content": [{"type": "text", "text": a.wrapping_div(b).to_string()}]}),
                ),
                _ => error(id, -32602, "divide needs integers `a` and `b`"),
            }
        }
        Some("score") => match args["name"].as_str() {
            Some(n) if n.is_ascii() => result(
                id,
                json!({"content": [{"type": "text", "text": n.len().to_string()}], "structuredContent": {"score": n.len()}}),
            ),
            Some(_) => result(
                id,
                json!({"content": [{"type": "text", "text": "NaN"}], "structuredContent": {"score": "NaN"}}),
            ),
            None => error(id, -32602, "score needs a string `name`"),
        },
        _ => error(id, -32602, "unknown tool"),
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mode = std::env::args().nth(1).unwrap_or_default();
    if !MODES.contains(&mode.as_str()) {
        eprintln!(
            "usage: mcpr-hostile-server MODE\nmodes: {}",
            MODES.join(", ")
        );
        std::process::exit(2);
    }
    if mode == "instant" {
        serve_instant();
        return;
    }
    if let Some(fault) = mode.strip_prefix("http-") {
        serve_http(fault).await;
        return;
    }
    let mut out = Out {
        stdout: std::io::stdout(),
    };
    match mode.as_str() {
        "exit-1" => {
            eprintln!("hostile: refusing to start (mode exit-1)");
            std::process::exit(1);
        }
        "slow-start" => {
            let secs: u64 = std::env::args()
                .nth(2)
                .and_then(|s| s.parse().ok())
                .unwrap_or(10);
            eprintln!("hostile: sleeping {secs}s before reading stdin");
            tokio::time::sleep(Duration::from_secs(secs)).await;
        }
        "garbage" => {
            out.raw(b"Server starting... (this banner is not JSON-RPC)\n")
                .await;
        }
        "ignore-sigterm" => {
            let mut term =
                tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
                    .expect("SIGTERM handler");
            tokio::spawn(async move {
                while term.recv().await.is_some() {
                    eprintln!("hostile: ignoring SIGTERM");
                }
            });
        }
        "setsid-exit" | "setsid-orphan" => {
            // A descendant in a session (and group) of its own, which the group kill misses;
            // with setsid-exit it keeps our stdout (and so the client's pipe) open.
            let mut cmd = std::process::Command::new("setsid");
            cmd.args(["sleep", "300"]);
            if mode == "setsid-orphan" {
                cmd.stdin(std::process::Stdio::null())
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null());
            }
            match cmd.spawn() {
                Ok(c) => eprintln!("hostile: setsid grandchild {}", c.id()),
                Err(e) => eprintln!("hostile: could not spawn setsid: {e}"),
            }
        }
        "lock-file" => {
            let path = std::env::args().nth(2).unwrap_or_default();
            if let Err(e) = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                eprintln!("hostile: lock {path} is held by another server: {e}");
                std::process::exit(1);
            }
            let mut term =
                tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
                    .expect("SIGTERM handler");
            tokio::spawn(async move {
                term.recv().await;
                let _ = std::fs::remove_file(&path);
                std::process::exit(143);
            });
        }
        "fork-on-term" => {
            let mut term =
                tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
                    .expect("SIGTERM handler");
            tokio::spawn(async move {
                term.recv().await;
                // A child in a session (and group) of its own, started as we are told to go.
                let mut cmd = std::process::Command::new("setsid");
                cmd.args(["sleep", "300"])
                    .stdin(std::process::Stdio::null())
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null());
                if std::env::args().nth(3).as_deref() == Some("clean-env") {
                    cmd.env_clear().env("PATH", "/usr/bin:/bin");
                }
                if let Ok(c) = cmd.spawn() {
                    let _ = std::fs::write(
                        std::env::args().nth(2).unwrap_or_default(),
                        c.id().to_string(),
                    );
                    eprintln!("hostile: setsid child {} on SIGTERM", c.id());
                }
                std::process::exit(143);
            });
        }
        "orphan" => {
            // A grandchild in our process group that outlives us.
            let child = std::process::Command::new("sleep").arg("300").spawn();
            match child {
                Ok(c) => eprintln!("hostile: left grandchild {} behind", c.id()),
                Err(e) => eprintln!("hostile: could not spawn sleep: {e}"),
            }
        }
        _ => {}
    }

    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let mut answered_calls = 0u64;
    let mut task_text = String::new();
    let mut discovers = 0u32;
    while let Ok(Some(line)) = lines.next_line().await {
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let Some(method) = msg
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_string)
        else {
            continue;
        };
        let Some(id) = msg.get("id").cloned() else {
            continue;
        };
        if mode == "never-answer"
            || (mode == "hang-initialize"
                && matches!(method.as_str(), "initialize" | "server/discover"))
        {
            continue;
        }
        let params = msg.get("params").cloned().unwrap_or(Value::Null);
        let reply = match method.as_str() {
            "initialize" if mode == "late-modern" => error_with(
                &id,
                -32022,
                "this connection serves 2026-07-28; initialize is not accepted",
                json!({"supported": ["2026-07-28"], "requested": params.get("protocolVersion")}),
            ),
            "server/discover" if mode == "late-modern" => {
                discovers += 1;
                if discovers == 1 {
                    tokio::time::sleep(Duration::from_millis(1000)).await;
                }
                result(
                    &id,
                    json!({"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}, "serverInfo": {"name": "late", "version": "0"}, "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "late", "version": "0"}}}),
                )
            }
            "initialize" if mode == "tasks-2025" => result(
                &id,
                json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}, "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}}, "serverInfo": {"name": "tasks-2025", "version": "0"}}),
            ),
            "tools/call" if mode == "tasks-2025" && params.get("task").is_some() => {
                let text = params
                    .get("arguments")
                    .and_then(|a| a.get("text"))
                    .and_then(Value::as_str)
                    .unwrap_or("");
                task_text = format!("done: {text}");
                result(
                    &id,
                    json!({"task": {"taskId": "task-1", "status": "working", "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttl": 60000, "pollInterval": 10}}),
                )
            }
            "tasks/get" if mode == "tasks-2025" => result(
                &id,
                json!({"taskId": "task-1", "status": "completed", "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:01Z", "ttl": 60000}),
            ),
            "tasks/result" if mode == "tasks-2025" => result(
                &id,
                json!({"content": [{"type": "text", "text": task_text}], "isError": false, "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "task-1"}}}),
            ),
            "initialize" => {
                let requested = params
                    .get("protocolVersion")
                    .and_then(Value::as_str)
                    .unwrap_or("2025-11-25");
                let version = match mode.as_str() {
                    "bad-version" => "1999-01-01",
                    "batch" => requested,
                    _ => "2025-11-25",
                };
                result(
                    &id,
                    json!({"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": {"name": "mcpr-hostile-server", "version": "0.1.0"}}),
                )
            }
            "server/discover" if mode == "endless-input" => result(
                &id,
                json!({"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}, "serverInfo": {"name": "endless", "version": "0"}, "ttlMs": 0, "cacheScope": "private", "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "endless", "version": "0"}}}),
            ),
            "server/discover" if mode == "sloppy-modern" => result(
                &id,
                json!({"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}, "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "sloppy", "version": "0"}}}),
            ),
            "server/discover" => error(&id, -32601, "Method not found: server/discover"),
            "ping" => result(&id, json!({})),
            "tools/list" if mode == "many-tools" => {
                out.raw(&large::many_tools(&id, large::count(large::DEFAULT_TOOLS)))
                    .await;
                continue;
            }
            "tools/list" => {
                if mode == "repeat-cursor" {
                    result(
                        &id,
                        json!({"tools": tool_list(&mode), "nextCursor": "page-2"}),
                    )
                } else {
                    result(&id, json!({"tools": tool_list(&mode)}))
                }
            }
            "tools/call" => {
                answered_calls += 1;
                match mode.as_str() {
                    "fuzz-target" => fuzz_target_call(&id, &params),
                    "many-values" => {
                        out.raw(&large::many_values(
                            &id,
                            large::count(large::DEFAULT_VALUES),
                        ))
                        .await;
                        continue;
                    }
                    "endless-input" => result(
                        &id,
                        json!({"resultType": "input_required", "inputRequests": {"roots": {"method": "roots/list", "params": {}}}, "requestState": format!("round-{answered_calls}")}),
                    ),
                    "stray-progress" => {
                        out.line(&json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "never-sent", "progress": 1}})).await;
                        result(
                            &id,
                            json!({"content": [{"type": "text", "text": "after stray progress"}]}),
                        )
                    }
                    "dangling-ref" if params["name"] == "sum" => result(
                        &id,
                        json!({"content": [{"type": "text", "text": "{}"}], "structuredContent": {"sum": 3}}),
                    ),
                    "sloppy-modern" => {
                        out.line(&json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "unasked"}})).await;
                        out.line(&json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})).await;
                        result(
                            &id,
                            json!({"content": [{"type": "text", "text": "sloppy"}]}),
                        )
                    }
                    "partial-exit" => {
                        out.raw(br#"{"jsonrpc":"2.0","id":"#).await;
                        std::process::exit(0);
                    }
                    "setsid-exit" => std::process::exit(0),
                    "ignore-sigterm-in-call" => {
                        let mut term = tokio::signal::unix::signal(
                            tokio::signal::unix::SignalKind::terminate(),
                        )
                        .expect("SIGTERM handler");
                        eprintln!("hostile: in tools/call, ignoring SIGTERM from now on");
                        loop {
                            term.recv().await;
                            eprintln!("hostile: ignoring SIGTERM during a call");
                        }
                    }
                    "notification-hog" => {
                        let big = "x".repeat(1 << 20);
                        for i in 0..300 {
                            out.line(&json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": {"chunk": i, "text": big}}})).await;
                        }
                        result(
                            &id,
                            json!({"content": [{"type": "text", "text": "after the hog"}]}),
                        )
                    }
                    "crash-mid-call" => {
                        eprintln!(
                            "hostile: panicked while handling tools/call (mode crash-mid-call)"
                        );
                        std::process::exit(70);
                    }
                    "stderr-flood" => {
                        let chunk = "hostile: stderr flood line that goes on and on to fill the pipe quickly..........\n".repeat(100);
                        let mut err = std::io::stderr().lock();
                        for _ in 0..1200 {
                            let _ = err.write_all(chunk.as_bytes());
                        }
                        let _ = err.write_all(b"hostile: END-OF-STDERR-FLOOD\n");
                        let _ = err.flush();
                        std::process::exit(3);
                    }
                    "huge" => {
                        // 50 MB of text in one response line, written in chunks.
                        let head = format!(
                            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":""#
                        );
                        out.raw(head.as_bytes()).await;
                        let chunk = vec![b'x'; 1024 * 1024];
                        for _ in 0..50 {
                            out.raw(&chunk).await;
                        }
                        out.raw(b"\"}]}}\n").await;
                        continue;
                    }
                    "flood" => {
                        let mut buf = String::with_capacity(8 * 1024 * 1024);
                        for i in 0..100_000u32 {
                            buf.push_str(r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":{"flood":"#);
                            buf.push_str(&i.to_string());
                            buf.push_str("}}}\n");
                            if buf.len() > 4 * 1024 * 1024 {
                                out.raw(buf.as_bytes()).await;
                                buf.clear();
                            }
                        }
                        out.raw(buf.as_bytes()).await;
                        result(
                            &id,
                            json!({"content": [{"type": "text", "text": "flooded"}]}),
                        )
                    }
                    "bad-progress" => {
                        if let Some(token) =
                            params.get("_meta").and_then(|m| m.get("progressToken"))
                        {
                            for p in [1, 3, 2] {
                                out.line(&json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": p, "total": 3}})).await;
                            }
                        }
                        result(&id, json!({"content": [{"type": "text", "text": "done"}]}))
                    }
                    "bad-structured" => result(
                        &id,
                        json!({"content": [{"type": "text", "text": "{\"sum\":\"five\"}"}], "structuredContent": {"sum": "five"}}),
                    ),
                    "wrong-id" => {
                        let wrong = id
                            .as_i64()
                            .map(|i| json!(i + 1000))
                            .unwrap_or(json!("wrong"));
                        result(
                            &wrong,
                            json!({"content": [{"type": "text", "text": "to whom it may concern"}]}),
                        )
                    }
                    _ => {
                        let text = params
                            .get("arguments")
                            .and_then(|a| a.get("text"))
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_string();
                        result(&id, json!({"content": [{"type": "text", "text": text}]}))
                    }
                }
            }
            other => error(&id, -32601, &format!("Method not found: {other}")),
        };
        let reply = if mode == "batch" && method == "tools/call" {
            json!([{"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "in a batch"}}, reply])
        } else {
            reply
        };
        if mode == "duplicate-call" && method == "tools/call" {
            // Both copies in one write: they arrive together.
            let line = format!("{reply}\n");
            out.raw(format!("{line}{line}").as_bytes()).await;
            continue;
        }
        out.line(&reply).await;
        if mode == "duplicate" {
            out.line(&reply).await;
        }
    }
    // stdin closed
    if mode == "lock-file" {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let _ = std::fs::remove_file(std::env::args().nth(2).unwrap_or_default());
        return;
    }
    let millis = || -> u64 {
        std::env::args()
            .nth(2)
            .and_then(|s| s.parse().ok())
            .unwrap_or(1000)
    };
    if mode == "linger" {
        tokio::time::sleep(Duration::from_millis(millis())).await;
        return;
    }
    if mode == "busy-exit" {
        let until = std::time::Instant::now() + Duration::from_millis(millis());
        let mut spins = 0u64;
        while std::time::Instant::now() < until {
            spins = std::hint::black_box(spins.wrapping_add(1));
        }
        eprintln!("hostile: busy-exit done");
        return;
    }
    if mode == "ignore-sigterm" || mode == "fork-on-term" {
        eprintln!("hostile: stdin closed after {answered_calls} calls; staying alive anyway");
        loop {
            tokio::time::sleep(Duration::from_secs(3600)).await;
        }
    }
}

/// A deliberately small HTTP/1.1 server: one request per connection, `Connection: close`.
async fn serve_http(fault: &str) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = match tokio::net::TcpListener::bind("127.0.0.1:0").await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("hostile: cannot listen: {e}");
            std::process::exit(1);
        }
    };
    match listener.local_addr() {
        Ok(a) => eprintln!("hostile: listening on http://{a}/mcp"),
        Err(e) => eprintln!("hostile: listening ({e})"),
    }
    let fault = fault.to_string();
    let inits = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
    let lists = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
    loop {
        let Ok((mut sock, _)) = listener.accept().await else {
            continue;
        };
        let fault = fault.clone();
        let inits = inits.clone();
        let lists = lists.clone();
        tokio::spawn(async move {
            // Read the head, then Content-Length bytes of body.
            let mut buf = Vec::new();
            let mut chunk = [0u8; 8192];
            let head_end = loop {
                match sock.read(&mut chunk).await {
                    Ok(0) | Err(_) => return,
                    Ok(n) => buf.extend_from_slice(&chunk[..n]),
                }
                if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                    break i + 4;
                }
            };
            let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
            let len: usize = head
                .lines()
                .find_map(|l| {
                    l.strip_prefix("content-length:")
                        .and_then(|v| v.trim().parse().ok())
                })
                .unwrap_or(0);
            while buf.len() < head_end + len {
                match sock.read(&mut chunk).await {
                    Ok(0) | Err(_) => return,
                    Ok(n) => buf.extend_from_slice(&chunk[..n]),
                }
            }
            let body: Value =
                serde_json::from_slice(&buf[head_end..head_end + len]).unwrap_or(Value::Null);
            let method = body
                .get("method")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            let id = body.get("id").cloned().unwrap_or(Value::Null);
            let asked_session = head.lines().find_map(|l| {
                l.strip_prefix("mcp-session-id:")
                    .map(|v| v.trim().to_string())
            });
            // The session a reply hands out: a new one per initialize in the expiry mode.
            let session = if method == "initialize" && fault == "session-expiry" {
                format!(
                    "hostile-{}",
                    inits.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1
                )
            } else if fault == "slips" && method != "initialize" {
                // A new session id on every response but the one that assigns it.
                format!(
                    "hostile-churn-{}",
                    inits.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1
                )
            } else {
                asked_session.clone().unwrap_or_else(|| "hostile-1".into())
            };
            let send = |status: &str, ctype: &str, payload: Vec<u8>| {
                let mut r = format!("HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nMcp-Session-Id: {session}\r\nConnection: close\r\n\r\n", payload.len()).into_bytes();
                r.extend_from_slice(&payload);
                r
            };
            let reply = match method.as_str() {
                "server/discover" if fault == "header-refetch" => send("200 OK", "application/json", result(&id, json!({"resultType": "complete", "ttlMs": 0, "cacheScope": "private", "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}, "serverInfo": {"name": "mcpr-hostile-server", "version": "0.1.0"}})).to_string().into_bytes()),
                "tools/list" if fault == "header-refetch" => {
                    let first = lists.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0;
                    let mut region = json!({"type": "string"});
                    if !first {
                        region["x-mcp-header"] = json!("Region");
                    }
                    let tool = json!({"name": "echo", "description": "Echoes `text`", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}, "region": region}}});
                    send("200 OK", "application/json", result(&id, json!({"resultType": "complete", "ttlMs": 0, "cacheScope": "private", "tools": [tool]})).to_string().into_bytes())
                }
                "tools/call" if fault == "header-refetch" => {
                    let region = body.pointer("/params/arguments/region").and_then(Value::as_str).unwrap_or("");
                    let header = head.lines().find_map(|l| l.strip_prefix("mcp-param-region:").map(|v| v.trim().to_string()));
                    if region == "reject" || header.as_deref() != Some(region) {
                        send("400 Bad Request", "application/json", error(&id, -32020, "Mcp-Param-Region is missing or does not match the body").to_string().into_bytes())
                    } else {
                        let text = body.pointer("/params/arguments/text").cloned().unwrap_or(json!(""));
                        send("200 OK", "application/json", result(&id, json!({"resultType": "complete", "content": [{"type": "text", "text": text}]})).to_string().into_bytes())
                    }
                }
                "tools/call" if fault == "session-expiry" => {
                    if asked_session.as_deref() == Some("hostile-1") {
                        send("404 Not Found", "text/plain", b"session hostile-1 expired".to_vec())
                    } else {
                        let text = body.pointer("/params/arguments/text").cloned().unwrap_or(json!(""));
                        send("200 OK", "application/json", result(&id, json!({"content": [{"type": "text", "text": text}]})).to_string().into_bytes())
                    }
                }
                "initialize" => send("200 OK", "application/json", result(&id, json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "mcpr-hostile-server", "version": "0.1.0"}})).to_string().into_bytes()),
                "server/discover" => send("200 OK", "application/json", error(&id, -32601, "Method not found").to_string().into_bytes()),
                "tools/list" => send("200 OK", "application/json", result(&id, json!({"tools": tool_list("")})).to_string().into_bytes()),
                "tools/call" => match fault.as_str() {
                    "garbage" => send("200 OK", "application/json", b"<html>Internal proxy page</html>".to_vec()),
                    "slips" => {
                        let text = body.pointer("/params/arguments/text").cloned().unwrap_or(json!(""));
                        send("200 OK", "text/plain", result(&id, json!({"content": [{"type": "text", "text": text}]})).to_string().into_bytes())
                    }
                    "session-expired" => send("404 Not Found", "text/plain", b"no such session".to_vec()),
                    "status-500" => send("500 Internal Server Error", "text/plain", b"upstream exploded".to_vec()),
                    "hang" => {
                        tokio::time::sleep(Duration::from_secs(3600)).await;
                        return;
                    }
                    "huge" => {
                        let total = 50 * 1024 * 1024;
                        let headr = format!("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {total}\r\nConnection: close\r\n\r\n");
                        if sock.write_all(headr.as_bytes()).await.is_err() {
                            return;
                        }
                        let block = vec![b' '; 1024 * 1024];
                        for _ in 0..50 {
                            if sock.write_all(&block).await.is_err() {
                                return;
                            }
                        }
                        return;
                    }
                    "sse-hog" => {
                        let headr = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";
                        if sock.write_all(headr.as_bytes()).await.is_err() {
                            return;
                        }
                        let big = "x".repeat(1 << 20);
                        for i in 0..300u32 {
                            let event = format!("event: message\ndata: {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{{\"level\":\"info\",\"data\":{{\"chunk\":{i},\"text\":\"{big}\"}}}}}}\n\n");
                            if sock.write_all(event.as_bytes()).await.is_err() {
                                return;
                            }
                        }
                        let end = format!("event: message\ndata: {}\n\n", result(&id, json!({"content": []})));
                        let _ = sock.write_all(end.as_bytes()).await;
                        return;
                    }
                    "sse-flood" => {
                        let headr = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";
                        if sock.write_all(headr.as_bytes()).await.is_err() {
                            return;
                        }
                        let mut events = String::with_capacity(4 * 1024 * 1024);
                        for i in 0..100_000u32 {
                            events.push_str(&format!("event: message\ndata: {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{{\"level\":\"info\",\"data\":{i}}}}}\n\n"));
                            if events.len() > 1024 * 1024 {
                                if sock.write_all(events.as_bytes()).await.is_err() {
                                    return;
                                }
                                events.clear();
                            }
                        }
                        events.push_str(&format!("event: message\ndata: {}\n\n", result(&id, json!({"content": []}))));
                        let _ = sock.write_all(events.as_bytes()).await;
                        return;
                    }
                    _ => {
                        let wrong = id.as_i64().map(|i| json!(i + 1000)).unwrap_or(json!("wrong"));
                        send("200 OK", "application/json", result(&wrong, json!({"content": []})).to_string().into_bytes())
                    }
                },
                _ if id.is_null() => send("202 Accepted", "text/plain", Vec::new()),
                other => send("200 OK", "application/json", error(&id, -32601, &format!("Method not found: {other}")).to_string().into_bytes()),
            };
            let _ = sock.write_all(&reply).await;
            let _ = sock.shutdown().await;
        });
    }
}
