//! `mcpr-tester-server`: an MCP stdio server that answers as mcp-tester's own test server
//! does for the tools its assert, progress and notification scripts call, so scripts written
//! for mcp-tester (`conformance-tests/legacy/tester-server/`) run unchanged against it.
//!
//! Tools (names, arguments, texts and structured results as mcp-tester's server has them):
//! - `echo {message}`: text `Echo: MESSAGE`, structured `{echo}`; with the client's log level
//!   at `debug`, a `notifications/message` from the logger `echo` first;
//! - `add {a, b}` (integers): text `Result: SUM`, structured `{sum, a, b}`;
//! - `progressTest {seconds | count}` (default 10): one `notifications/progress` a second
//!   (`progress` 1…N of `total` N) when the call carries a progress token, then text
//!   `Countdown finished!`, structured `{status: "completed"}`; a `notifications/cancelled`
//!   for the call stops it without an answer;
//! - `add_tool {name}`: adds the tool `dyn_NAME` (text `Hello from dyn_NAME`) and sends
//!   `notifications/tools/list_changed`; text `Added tool dyn_NAME`, structured `{tool}`;
//! - `touch_resource {uri}`: `notifications/resources/updated` for the URI when the client
//!   subscribed to it; text `Touched URI`.
//!
//! Arguments are checked against each tool's schema: a missing or mistyped argument is the
//! JSON-RPC error -32602 `invalid params: …`, an unknown tool -32602 `unknown tool …`. The
//! resource `mcp://time` (subscribable), the template `file:///logs/{name}.log` and the prompt
//! `persona_developer` are listed and readable. The handshake is 2025-era (the asked version
//! when it is one of 2024-11-05…2025-11-25, else 2025-11-25); `server/discover` is refused.

use std::collections::{BTreeSet, HashSet};
use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

/// What the session remembers.
#[derive(Default)]
struct State {
    /// The level `logging/setLevel` asked for (no log messages before it).
    log_level: Option<String>,
    /// Tools added with `add_tool`.
    dynamic: BTreeSet<String>,
    /// URIs of `resources/subscribe`.
    subscribed: HashSet<String>,
}

/// The server: its state, the requests the client cancelled, and stdout.
#[derive(Clone)]
struct Server {
    state: Arc<Mutex<State>>,
    cancelled: Arc<Mutex<HashSet<String>>>,
    out: Arc<Mutex<std::io::Stdout>>,
}

const LEVELS: &[&str] = &[
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

impl Server {
    /// Writes one message as a line.
    fn send(&self, message: &Value) {
        if let Ok(mut out) = self.out.lock() {
            let _ = writeln!(out, "{message}").and_then(|()| out.flush());
        }
    }

    fn notify(&self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    fn reply(&self, id: &Value, result: Result<Value, (i64, String)>) {
        self.send(&match result {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err((code, message)) => {
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
            }
        });
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A log message, when the client asked for its level or a lower one.
    fn log(&self, level: &str, logger: &str, data: &str) {
        let wanted = self.state().log_level.clone();
        let rank = |l: &str| LEVELS.iter().position(|x| *x == l);
        if let (Some(w), Some(l)) = (wanted.as_deref().and_then(rank), rank(level))
            && l >= w
        {
            self.notify(
                "notifications/message",
                json!({"level": level, "logger": logger, "data": data}),
            );
        }
    }
}

fn main() {
    let server = Server {
        state: Arc::default(),
        cancelled: Arc::default(),
        out: Arc::new(Mutex::new(std::io::stdout())),
    };
    eprintln!("mcpr-tester-server on stdio");
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let Some(method) = msg.get("method").and_then(Value::as_str) else {
            continue; // an answer of the client
        };
        let params = msg.get("params").cloned().unwrap_or(Value::Null);
        let Some(id) = msg.get("id").cloned() else {
            if method == "notifications/cancelled"
                && let Some(request) = params.get("requestId")
                && let Ok(mut c) = server.cancelled.lock()
            {
                c.insert(request.to_string());
            }
            continue;
        };
        if method == "tools/call" && params["name"] == "progressTest" {
            // Runs beside the loop, so a cancellation can reach it.
            let s = server.clone();
            std::thread::spawn(move || progress_test(&s, &id, &params));
            continue;
        }
        let result = answer(&server, method, &params);
        server.reply(&id, result);
    }
}

/// The result of one request, or a JSON-RPC error.
fn answer(s: &Server, method: &str, params: &Value) -> Result<Value, (i64, String)> {
    match method {
        "initialize" => {
            let asked = params["protocolVersion"].as_str().unwrap_or_default();
            let version =
                if ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"].contains(&asked) {
                    asked
                } else {
                    "2025-11-25"
                };
            Ok(json!({
                "protocolVersion": version,
                "capabilities": {
                    "logging": {},
                    "tools": {"listChanged": true},
                    "prompts": {"listChanged": true},
                    "resources": {"listChanged": true, "subscribe": true},
                },
                "serverInfo": {"name": "mcpr-tester-server", "version": env!("CARGO_PKG_VERSION")},
            }))
        }
        "ping" => Ok(json!({})),
        "logging/setLevel" => {
            let level = params["level"].as_str().unwrap_or_default();
            if !LEVELS.contains(&level) {
                return Err((
                    -32602,
                    format!("invalid params: unknown log level {level:?}"),
                ));
            }
            s.state().log_level = Some(level.to_string());
            Ok(json!({}))
        }
        "tools/list" => {
            let mut tools = static_tools();
            tools.extend(s.state().dynamic.iter().map(|n| dynamic_tool(n)));
            Ok(json!({ "tools": tools }))
        }
        "tools/call" => call(s, params),
        "resources/list" => Ok(json!({"resources": [{
            "uri": "mcp://time",
            "name": "System Clock",
            "description": "The server's current time",
            "mimeType": "text/plain",
        }]})),
        "resources/templates/list" => Ok(json!({"resourceTemplates": [{
            "uriTemplate": "file:///logs/{name}.log",
            "name": "Log File",
            "description": "A server log file by name",
        }]})),
        "resources/read" => {
            let uri = params["uri"].as_str().unwrap_or_default();
            let text = if uri == "mcp://time" {
                let secs = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs());
                format!("{secs} seconds since the Unix epoch")
            } else if uri.starts_with("file:///logs/") && uri.ends_with(".log") {
                format!("Log content for {uri}")
            } else {
                return Err((-32002, format!("resource not found: {uri}")));
            };
            Ok(json!({"contents": [{"uri": uri, "mimeType": "text/plain", "text": text}]}))
        }
        "resources/subscribe" | "resources/unsubscribe" => {
            let Some(uri) = params["uri"].as_str() else {
                return Err((
                    -32602,
                    "invalid params: a subscription needs a `uri`".into(),
                ));
            };
            let mut st = s.state();
            if method == "resources/subscribe" {
                st.subscribed.insert(uri.to_string());
            } else {
                st.subscribed.remove(uri);
            }
            Ok(json!({}))
        }
        "prompts/list" => Ok(json!({"prompts": [{
            "name": "persona_developer",
            "description": "Makes the model an expert Go developer",
        }]})),
        "prompts/get" if params["name"] == "persona_developer" => Ok(json!({
            "description": "Persona instructions",
            "messages": [{"role": "user", "content": {"type": "text", "text": "You are an expert Go developer."}}],
        })),
        "prompts/get" => Err((
            -32602,
            format!("invalid params: unknown prompt {}", params["name"]),
        )),
        other => Err((-32601, format!("method not found: {other}"))),
    }
}

fn schema(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required})
}

/// The tools every session has.
fn static_tools() -> Vec<Value> {
    let int = |d: &str| json!({"type": "integer", "description": d});
    let string = |d: &str| json!({"type": "string", "description": d});
    vec![
        json!({
            "name": "echo",
            "title": "Echo",
            "description": "Returns the message, prefixed with `Echo: `",
            "annotations": {"readOnlyHint": true},
            "inputSchema": schema(json!({"message": string("What to send back")}), &["message"]),
            "outputSchema": schema(json!({"echo": string("The message")}), &[]),
        }),
        json!({
            "name": "add",
            "title": "Add Numbers",
            "description": "Adds two integers",
            "annotations": {"readOnlyHint": true},
            "inputSchema": schema(json!({"a": int("First addend"), "b": int("Second addend")}), &["a", "b"]),
            "outputSchema": schema(json!({"sum": int("a + b"), "a": int("First addend"), "b": int("Second addend")}), &[]),
        }),
        json!({
            "name": "progressTest",
            "title": "Progress Test",
            "description": "Counts down one step a second, reporting progress, for progress and cancellation tests",
            "annotations": {"readOnlyHint": true},
            "inputSchema": schema(json!({"seconds": int("Steps to count (one a second)"), "count": int("The same as seconds")}), &[]),
            "outputSchema": schema(json!({"status": string("How the countdown ended")}), &[]),
        }),
        json!({
            "name": "add_tool",
            "title": "Add Tool",
            "description": "Adds the tool dyn_NAME and announces it with notifications/tools/list_changed",
            "inputSchema": schema(json!({"name": string("The new tool's name, after dyn_")}), &["name"]),
            "outputSchema": schema(json!({"tool": string("The added tool")}), &["tool"]),
        }),
        json!({
            "name": "touch_resource",
            "title": "Touch Resource",
            "description": "Announces a change of the resource to its subscribers (notifications/resources/updated)",
            "inputSchema": schema(json!({"uri": string("The changed resource")}), &["uri"]),
        }),
    ]
}

fn dynamic_tool(name: &str) -> Value {
    json!({"name": name, "description": "A tool added while the server runs", "inputSchema": {"type": "object"}})
}

fn text(t: impl Into<String>) -> Value {
    json!({"type": "text", "text": t.into()})
}

/// Checks `args` against the tool's input schema: required members, and the types of the
/// members it declares.
fn check_args(tool: &Value, args: &Value) -> Result<(), (i64, String)> {
    let schema = &tool["inputSchema"];
    let Some(args) = args.as_object() else {
        return Err((
            -32602,
            "invalid params: the arguments are not an object".into(),
        ));
    };
    let missing: Vec<&str> = schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|r| !args.contains_key(*r))
        .collect();
    if !missing.is_empty() {
        return Err((
            -32602,
            format!(
                "invalid params: missing required arguments: {}",
                missing.join(", ")
            ),
        ));
    }
    for (name, value) in args {
        let ok = match schema["properties"][name]["type"].as_str() {
            Some("integer") => value.as_i64().is_some(),
            Some("string") => value.is_string(),
            _ => true,
        };
        if !ok {
            return Err((
                -32602,
                format!(
                    "invalid params: argument {name:?} must be of type {}, not {value}",
                    schema["properties"][name]["type"]
                ),
            ));
        }
    }
    Ok(())
}

/// `tools/call` of every tool but `progressTest`.
fn call(s: &Server, params: &Value) -> Result<Value, (i64, String)> {
    let name = params["name"].as_str().unwrap_or_default();
    let args = params
        .get("arguments")
        .cloned()
        .unwrap_or_else(|| json!({}));
    let dynamic = s.state().dynamic.contains(name);
    let tool = static_tools()
        .into_iter()
        .find(|t| t["name"] == name)
        .or_else(|| dynamic.then(|| dynamic_tool(name)))
        .ok_or_else(|| (-32602, format!("unknown tool {name:?}")))?;
    check_args(&tool, &args)?;
    let arg = |k: &str| args[k].clone();
    Ok(match name {
        "echo" => {
            let message = arg("message").as_str().unwrap_or_default().to_string();
            s.log("debug", "echo", &format!("echo called with {message}"));
            json!({"content": [text(format!("Echo: {message}"))], "structuredContent": {"echo": message}})
        }
        "add" => {
            let (a, b) = (
                arg("a").as_i64().unwrap_or(0),
                arg("b").as_i64().unwrap_or(0),
            );
            json!({"content": [text(format!("Result: {}", a + b))], "structuredContent": {"sum": a + b, "a": a, "b": b}})
        }
        "add_tool" => {
            let tool = format!("dyn_{}", arg("name").as_str().unwrap_or_default());
            s.state().dynamic.insert(tool.clone());
            s.notify("notifications/tools/list_changed", json!({}));
            json!({"content": [text(format!("Added tool {tool}"))], "structuredContent": {"tool": tool}})
        }
        "touch_resource" => {
            let uri = arg("uri").as_str().unwrap_or_default().to_string();
            if s.state().subscribed.contains(&uri) {
                s.notify("notifications/resources/updated", json!({"uri": uri}));
            }
            json!({"content": [text(format!("Touched {uri}"))]})
        }
        _ => json!({"content": [text(format!("Hello from {name}"))]}),
    })
}

/// `progressTest`: one step a second, progress when asked for, no answer once cancelled.
fn progress_test(s: &Server, id: &Value, params: &Value) {
    let tool = static_tools()
        .into_iter()
        .find(|t| t["name"] == "progressTest")
        .unwrap_or_default();
    let args = params
        .get("arguments")
        .cloned()
        .unwrap_or_else(|| json!({}));
    if let Err(e) = check_args(&tool, &args) {
        s.reply(id, Err(e));
        return;
    }
    let steps = args["seconds"]
        .as_i64()
        .or_else(|| args["count"].as_i64())
        .unwrap_or(10);
    let token = params["_meta"]["progressToken"].clone();
    let cancelled = || {
        s.cancelled
            .lock()
            .is_ok_and(|c| c.contains(&id.to_string()))
    };
    for step in 1..=steps {
        if cancelled() {
            eprintln!("mcpr-tester-server: request {id} cancelled");
            return;
        }
        if !token.is_null() {
            s.notify(
                "notifications/progress",
                json!({"progressToken": token, "progress": step, "total": steps}),
            );
        }
        std::thread::sleep(Duration::from_secs(1));
    }
    if cancelled() {
        return;
    }
    s.reply(
        id,
        Ok(json!({
            "content": [text("Countdown finished!")],
            "structuredContent": {"status": "completed"},
        })),
    );
}
