//! `mcpr-reference-server`: a deterministic MCP server over stdio, built on rmcp, that
//! exercises every protocol feature in both eras (the `initialize` handshake up to
//! 2025-11-25 and the stateless 2026-07-28 revision).
//!
//! Tools: `echo`, `add` (outputSchema + structuredContent.sum), `fail` (isError),
//! `progress` (N steps), `sample`, `elicit`, `roots` (server→client requests in the
//! legacy era, multi round-trip `input_required` in 2026), `notify` (list_changed and
//! resource updates on demand), `log`, `slow` (cancellable), `environment` (cwd and one
//! variable), `long_task` (task-capable via
//! the tasks extension), `ask_task` (a task that needs input), `app` (an MCP App).
//! Resources: `fixture://status`, `fixture://readme`, `fixture://blob`, the template
//! `fixture://items/{id}`, `ui://reference/app.html`, the skill files. Prompts: `greet`,
//! `code_review` (with completions). Tools are listed 4 per page to exercise cursors.
//!
//! `--variant conflict` starts a drifted twin for compare targets: only `echo` and `add`,
//! and `add` answers `structuredContent.sum` as a string. `--http HOST:PORT` serves
//! Streamable HTTP at `/mcp` instead of stdio.

#![expect(
    deprecated,
    reason = "sampling, roots and logging are deprecated in 2026 but still part of the legacy era"
)]

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

mod era;
mod origin;
mod stdio;

use base64::Engine as _;
use rmcp::model::*;
use rmcp::service::{RequestContext, RoleServer, SubscriptionContext, SubscriptionSink};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

mod modes;
use modes::{BREAKS, Flaky, Modes, OPTIONAL};

const PAGE: usize = 4;
/// Methods this server serves through the SDK's typed handlers: one that reaches the
/// custom-request handler had params the SDK could not read.
const KNOWN_METHODS: &[&str] = &[
    "logging/setLevel",
    "tools/call",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/get",
    "completion/complete",
];
const APP_URI: &str = "ui://reference/app.html";
const SKILL_URI: &str = "skill://reference/greeter/SKILL.md";
const SKILL_EXTRA_URI: &str = "skill://reference/greeter/phrases.txt";
const SKILL_MD: &str = "---\nname: greeter\ndescription: Greets people politely.\n---\n\nSay hello, then the person's name.\n";
const SKILL_PHRASES: &str = "Hello\nGood morning\nWelcome\n";
const APP_HTML: &str = "<!doctype html><html><body><h1>mcpr reference app</h1></body></html>";

fn conv<T: DeserializeOwned>(value: Value) -> Result<T, ErrorData> {
    serde_json::from_value(value).map_err(|e| {
        ErrorData::internal_error(
            format!("reference server built an invalid value: {e}"),
            None,
        )
    })
}

#[derive(Clone)]
struct TaskEntry {
    status: String,
    status_message: Option<String>,
    result: Option<Value>,
    input_requests: Option<Value>,
    created: String,
}

#[derive(Default)]
struct State {
    /// The open listen streams, each under a key of the server's own: a subscription id is
    /// the client's request id, which clients without sessions (2026-07-28) reuse freely, so
    /// two streams may share one.
    listeners: Vec<(u64, SubscriptionSink)>,
    next_listener: u64,
    /// Listens accepted but whose sink is not registered yet (the SDK acknowledges a
    /// subscription before it calls `listen`); broadcasts wait for them.
    establishing: usize,
    log_level: Option<LoggingLevel>,
    tasks: HashMap<String, TaskEntry>,
    next_task: u64,
}

#[derive(Clone, Default)]
struct Reference {
    state: Arc<Mutex<State>>,
    /// `--variant conflict`: a drifted twin for compare targets, whose `add` answers the
    /// sum as a string and which offers only `echo` and `add`.
    conflict: bool,
    /// `--flaky FILE`: the first tool call of a session fails while fewer than
    /// `--flaky-sessions N` sessions (counted in FILE, across processes) have failed.
    flaky: Option<Arc<Flaky>>,
    /// Per session: whether a tool call came already (a new one for each HTTP session).
    called: Arc<std::sync::atomic::AtomicBool>,
    /// Per session: the resource URIs subscribed to (handshake era).
    subscribed: Arc<Mutex<HashSet<String>>>,
    /// `--broken LIST` and `--without LIST` (see [`modes`]).
    modes: Arc<Modes>,
}

impl Reference {
    fn breaks(&self, rule: &str) -> bool {
        self.modes.breaks(rule)
    }
}

fn is_modern(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|v| v.as_str() >= "2026-07-28")
}

fn text_result(text: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text.into())])
}

fn level_rank(level: &str) -> u8 {
    match level {
        "debug" => 0,
        "info" => 1,
        "notice" => 2,
        "warning" => 3,
        "error" => 4,
        "critical" => 5,
        "alert" => 6,
        "emergency" => 7,
        _ => 1,
    }
}

fn level_name(level: &LoggingLevel) -> String {
    serde_json::to_value(level)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| "info".into())
}

fn tools(conflict: bool) -> Vec<Value> {
    if conflict {
        let obj = |props: Value, required: &[&str]| json!({"type": "object", "properties": props, "required": required});
        return vec![
            json!({"name": "echo", "description": "Returns `text` unchanged.", "inputSchema": obj(json!({"text": {"type": "string"}}), &["text"])}),
            json!({"name": "add", "description": "Adds `a` and `b`; the sum is a string in structuredContent.sum.",
                   "inputSchema": obj(json!({"a": {"type": "number"}, "b": {"type": "number"}}), &["a", "b"]),
                   "outputSchema": obj(json!({"sum": {"type": "string"}}), &["sum"])}),
        ];
    }
    let obj = |props: Value, required: &[&str]| json!({"type": "object", "properties": props, "required": required});
    vec![
        json!({"name": "echo", "description": "Returns `text` unchanged.", "inputSchema": obj(json!({"text": {"type": "string"}}), &["text"]),
               "annotations": {"readOnlyHint": true}}),
        json!({"name": "add", "description": "Adds `a` and `b`; the sum is in structuredContent.sum.",
               "inputSchema": obj(json!({"a": {"type": "number"}, "b": {"type": "number"}}), &["a", "b"]),
               "outputSchema": obj(json!({"sum": {"type": "number"}}), &["sum"])}),
        json!({"name": "fail", "description": "Always fails with isError.", "inputSchema": obj(json!({"message": {"type": "string"}}), &[])}),
        json!({"name": "progress", "description": "Reports progress over `steps` steps (with a progressToken).",
               "inputSchema": obj(json!({"steps": {"type": "integer", "minimum": 0}, "delayMs": {"type": "integer", "minimum": 0}}), &["steps"])}),
        json!({"name": "sample", "description": "Asks the client to sample a message.", "inputSchema": obj(json!({"prompt": {"type": "string"}}), &[])}),
        json!({"name": "elicit", "description": "Asks the client for a name (form elicitation).", "inputSchema": obj(json!({"message": {"type": "string"}}), &[])}),
        json!({"name": "roots", "description": "Asks the client for its roots.", "inputSchema": obj(json!({"force": {"type": "boolean", "description": "Ask even a client that did not declare roots."}}), &[])}),
        json!({"name": "notify", "description": "Emits a notification on demand: kind tools | prompts | resources | updated (with uri).",
               "inputSchema": obj(json!({"kind": {"type": "string", "enum": ["tools", "prompts", "resources", "updated"]}, "uri": {"type": "string"}}), &["kind"])}),
        json!({"name": "log", "description": "Emits a log message at `level`.",
               "inputSchema": obj(json!({"level": {"type": "string"}, "message": {"type": "string"}}), &["message"])}),
        json!({"name": "slow", "description": "Sleeps `ms` milliseconds (cancellable).", "inputSchema": obj(json!({"ms": {"type": "integer", "minimum": 0}}), &["ms"])}),
        json!({"name": "long_task", "description": "Runs `ms` milliseconds; becomes a task when the client declares the tasks extension.",
               "inputSchema": obj(json!({"ms": {"type": "integer", "minimum": 0}}), &[]), "execution": {"taskSupport": "optional"}}),
        json!({"name": "ask_task", "description": "A task that needs the client's input (tasks extension only).", "inputSchema": obj(json!({}), &[]),
               "execution": {"taskSupport": "required"}}),
        json!({"name": "environment", "description": "Reports the working directory and the value of environment variable `name`.",
               "inputSchema": obj(json!({"name": {"type": "string"}}), &["name"])}),
        json!({"name": "regional", "description": "Echoes `text` with `region`, which travels in the Mcp-Param-Region header over 2026 HTTP.",
               "inputSchema": obj(json!({"region": {"type": "string", "x-mcp-header": "Region"}, "text": {"type": "string"}}), &["region", "text"])}),
        json!({"name": "app", "description": "Shows the reference MCP App.", "inputSchema": obj(json!({}), &[]),
               "_meta": {"ui": {"resourceUri": APP_URI, "visibility": ["model", "app"]}}}),
    ]
}

fn page<T: Clone>(
    items: &[T],
    cursor: Option<&str>,
) -> Result<(Vec<T>, Option<String>), ErrorData> {
    let start = match cursor {
        None => 0,
        Some(c) => c
            .strip_prefix("page-")
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|n| *n <= items.len())
            .ok_or_else(|| ErrorData::invalid_params(format!("invalid cursor {c:?}"), None))?,
    };
    let end = (start + PAGE).min(items.len());
    let next = (end < items.len()).then(|| format!("page-{end}"));
    Ok((items[start..end].to_vec(), next))
}

fn digest(bytes: &[u8]) -> String {
    let d = Sha256::digest(bytes);
    format!(
        "sha256:{}",
        d.iter().map(|b| format!("{b:02x}")).collect::<String>()
    )
}

fn skill() -> Value {
    json!({
        "uri": SKILL_URI,
        "frontmatter": {"name": "greeter", "description": "Greets people politely."},
        "resources": [
            {"uri": SKILL_URI, "digest": digest(SKILL_MD.as_bytes()), "size": SKILL_MD.len()},
            {"uri": SKILL_EXTRA_URI, "digest": digest(SKILL_PHRASES.as_bytes()), "size": SKILL_PHRASES.len()},
        ]
    })
}

fn input_required(
    key: &str,
    method: &str,
    params: Value,
    state: &str,
) -> Result<InputRequiredResult, ErrorData> {
    conv(
        json!({"resultType": "input_required", "inputRequests": {key: {"method": method, "params": params}}, "requestState": state}),
    )
}

fn sampling_params(prompt: &str) -> Value {
    json!({"messages": [{"role": "user", "content": {"type": "text", "text": prompt}}], "maxTokens": 64})
}

fn elicitation_params(message: &str) -> Value {
    json!({"mode": "form", "message": message, "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}})
}

fn now() -> String {
    chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

impl Reference {
    fn task_value(&self, id: &str, entry: &TaskEntry) -> Value {
        let mut v = json!({"taskId": id, "status": entry.status, "createdAt": entry.created, "lastUpdatedAt": now(), "ttlMs": 600_000, "pollIntervalMs": 50});
        if let Some(m) = &entry.status_message {
            v["statusMessage"] = json!(m);
        }
        v
    }

    /// `tasks/list` (2025-11-25 only): every task, oldest first, on one page.
    fn task_list(&self) -> Value {
        let st = self.state.lock().expect("state lock");
        let mut ids: Vec<(&String, &TaskEntry)> = st.tasks.iter().collect();
        ids.sort_by_key(|(id, _)| {
            id.trim_start_matches("task-")
                .parse::<u64>()
                .unwrap_or(u64::MAX)
        });
        let tasks: Vec<Value> = ids
            .into_iter()
            .map(|(id, entry)| self.task_value(id, entry))
            .collect();
        json!({"tasks": tasks})
    }

    fn new_task(&self, input_requests: Option<Value>) -> (String, TaskEntry) {
        let mut st = self.state.lock().expect("state lock");
        st.next_task += 1;
        let id = format!("task-{}", st.next_task);
        let status = if input_requests.is_some() {
            "input_required"
        } else {
            "working"
        };
        let entry = TaskEntry {
            status: status.into(),
            status_message: None,
            result: None,
            input_requests,
            created: now(),
        };
        st.tasks.insert(id.clone(), entry.clone());
        (id, entry)
    }

    async fn broadcast(
        &self,
        context: &RequestContext<RoleServer>,
        kind: &str,
        uri: Option<&str>,
    ) -> Result<String, ErrorData> {
        if is_modern(context) {
            // A subscription acknowledged a moment ago may not have its sink yet.
            for _ in 0..200 {
                if self.state.lock().expect("state lock").establishing == 0 {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            let sinks: Vec<SubscriptionSink> = self
                .state
                .lock()
                .expect("state lock")
                .listeners
                .iter()
                .map(|(_, sink)| sink.clone())
                .collect();
            let mut sent = 0;
            for sink in sinks {
                let r = match kind {
                    "tools" => sink.notify_tool_list_changed().await,
                    "prompts" => sink.notify_prompt_list_changed().await,
                    "resources" => sink.notify_resource_list_changed().await,
                    _ => {
                        sink.notify_resource_updated(uri.unwrap_or("fixture://status"))
                            .await
                    }
                };
                if r.is_ok() {
                    sent += 1;
                }
            }
            return Ok(format!("sent {kind} to {sent} subscription(s)"));
        }
        let peer = &context.peer;
        let r = match kind {
            "tools" => peer.notify_tool_list_changed().await,
            "prompts" => peer.notify_prompt_list_changed().await,
            "resources" => peer.notify_resource_list_changed().await,
            _ => {
                let uri = uri.unwrap_or("fixture://status").to_string();
                if !self
                    .subscribed
                    .lock()
                    .expect("subscriptions lock")
                    .contains(&uri)
                {
                    return Ok(format!("{uri} has no subscriber; nothing sent"));
                }
                peer.notify_resource_updated(conv(json!({"uri": uri}))?)
                    .await
            }
        };
        r.map_err(|e| ErrorData::internal_error(format!("could not notify: {e}"), None))?;
        Ok(format!("sent {kind}"))
    }

    async fn call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args: Map<String, Value> = request.arguments.clone().unwrap_or_default();
        let modern = is_modern(&context);
        let str_arg = |k: &str| args.get(k).and_then(Value::as_str).map(str::to_string);
        let u64_arg = |k: &str| args.get(k).and_then(Value::as_u64);
        let first = !self.called.swap(true, std::sync::atomic::Ordering::SeqCst);
        if first && self.flaky.as_ref().is_some_and(|f| f.take()) {
            return Err(ErrorData::internal_error(
                "flaky: the first tool call of this session fails",
                None,
            ));
        }
        if self.conflict && !matches!(request.name.as_ref(), "echo" | "add") {
            return Err(ErrorData::invalid_params(
                format!("Unknown tool: {}", request.name),
                None,
            ));
        }
        match request.name.as_ref() {
            "echo" => {
                let text = str_arg("text")
                    .ok_or_else(|| ErrorData::invalid_params("echo needs a string `text`", None))?;
                Ok(text_result(text).into())
            }
            "add" => {
                let (Some(a), Some(b)) = (
                    args.get("a").and_then(Value::as_f64),
                    args.get("b").and_then(Value::as_f64),
                ) else {
                    return Ok(CallToolResult::error(vec![ContentBlock::text(
                        "add needs numbers `a` and `b`",
                    )])
                    .into());
                };
                let sum = a + b;
                let sum_json = if sum.fract() == 0.0 && sum.abs() < 9.0e15 {
                    json!(sum as i64)
                } else {
                    json!(sum)
                };
                let structured = if self.conflict {
                    json!({"sum": sum_json.to_string()})
                } else {
                    json!({"sum": sum_json})
                };
                let mut r = CallToolResult::structured(structured.clone());
                r.content = vec![ContentBlock::text(structured.to_string())];
                Ok(r.into())
            }
            "fail" => {
                let msg = str_arg("message").unwrap_or_else(|| "the fail tool always fails".into());
                Ok(CallToolResult::error(vec![ContentBlock::text(msg)]).into())
            }
            "progress" => {
                let steps = u64_arg("steps").unwrap_or(3);
                let delay = u64_arg("delayMs").unwrap_or(5);
                if let Some(token) = context.meta.get_progress_token() {
                    let order: Vec<u64> = if self.breaks("progress") {
                        vec![1, 3, 2]
                    } else {
                        (1..=steps).collect()
                    };
                    for i in order {
                        tokio::time::sleep(Duration::from_millis(delay)).await;
                        let p: ProgressNotificationParam = conv(
                            json!({"progressToken": token, "progress": i, "total": steps, "message": format!("step {i} of {steps}")}),
                        )?;
                        context
                            .peer
                            .notify_progress(p)
                            .await
                            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                    }
                    if self.breaks("progress-late") {
                        // One more notification 20 ms after the result is sent.
                        let (peer, token) = (context.peer.clone(), token.clone());
                        tokio::spawn(async move {
                            tokio::time::sleep(Duration::from_millis(20)).await;
                            if let Ok(p) = conv::<ProgressNotificationParam>(
                                json!({"progressToken": token, "progress": steps + 1, "total": steps + 1}),
                            ) {
                                let _ = peer.notify_progress(p).await;
                            }
                        });
                    }
                }
                Ok(text_result(format!("done {steps} steps")).into())
            }
            "sample" => {
                let prompt = str_arg("prompt").unwrap_or_else(|| "Say hello".into());
                if modern {
                    if let Some(answer) = request
                        .input_responses
                        .as_ref()
                        .and_then(|r| r.get("sample"))
                    {
                        let text = answer
                            .get("content")
                            .and_then(|c| c.get("text"))
                            .and_then(Value::as_str)
                            .unwrap_or("");
                        return Ok(text_result(format!("sampled: {text}")).into());
                    }
                    return Ok(input_required(
                        "sample",
                        "sampling/createMessage",
                        sampling_params(&prompt),
                        "sample-1",
                    )?
                    .into());
                }
                let params: CreateMessageRequestParams = conv(sampling_params(&prompt))?;
                let result = context.peer.create_message(params).await.map_err(|e| {
                    ErrorData::internal_error(format!("sampling failed: {e}"), None)
                })?;
                let v = serde_json::to_value(&result).unwrap_or(Value::Null);
                let text = v
                    .get("content")
                    .and_then(|c| c.get("text"))
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                Ok(text_result(format!("sampled: {text}")).into())
            }
            "elicit" => {
                let message = str_arg("message").unwrap_or_else(|| "What is your name?".into());
                let answer = if modern {
                    match request
                        .input_responses
                        .as_ref()
                        .and_then(|r| r.get("elicit"))
                    {
                        Some(a) => a.clone(),
                        None => {
                            return Ok(input_required(
                                "elicit",
                                "elicitation/create",
                                elicitation_params(&message),
                                "elicit-1",
                            )?
                            .into());
                        }
                    }
                } else {
                    let params: ElicitRequestParams = conv(elicitation_params(&message))?;
                    let r = context.peer.create_elicitation(params).await.map_err(|e| {
                        ErrorData::internal_error(format!("elicitation failed: {e}"), None)
                    })?;
                    serde_json::to_value(&r).unwrap_or(Value::Null)
                };
                let action = answer.get("action").and_then(Value::as_str).unwrap_or("?");
                let name = answer
                    .get("content")
                    .and_then(|c| c.get("name"))
                    .and_then(Value::as_str)
                    .unwrap_or("");
                Ok(text_result(format!("elicitation {action}: {name}")).into())
            }
            "roots" => {
                let answer = if modern {
                    match request
                        .input_responses
                        .as_ref()
                        .and_then(|r| r.get("roots"))
                    {
                        Some(a) => a.clone(),
                        None => {
                            return Ok(input_required(
                                "roots",
                                "roots/list",
                                json!({}),
                                "roots-1",
                            )?
                            .into());
                        }
                    }
                } else {
                    // A server may ask only a client that declared roots (as the SDKs do);
                    // `force: true` asks anyway, to see the client refuse.
                    let declared = context
                        .client_capabilities()
                        .is_some_and(|c| c.roots.is_some());
                    if !declared && args.get("force") != Some(&json!(true)) {
                        return Err(ErrorData::new(
                            ErrorCode(-32021),
                            "the client did not declare the roots capability",
                            Some(json!({"requiredCapabilities": {"roots": {}}})),
                        ));
                    }
                    let r = context.peer.list_roots().await.map_err(|e| {
                        ErrorData::internal_error(format!("roots/list failed: {e}"), None)
                    })?;
                    serde_json::to_value(&r).unwrap_or(Value::Null)
                };
                let uris: Vec<String> = answer
                    .get("roots")
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(|r| {
                                r.get("uri").and_then(Value::as_str).map(str::to_string)
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                Ok(text_result(format!("roots: {}", uris.join(", "))).into())
            }
            "notify" => {
                let kind = str_arg("kind").unwrap_or_else(|| "tools".into());
                let uri = str_arg("uri");
                let text = self.broadcast(&context, &kind, uri.as_deref()).await?;
                Ok(text_result(text).into())
            }
            "log" => {
                let level = str_arg("level").unwrap_or_else(|| "info".into());
                let message = str_arg("message").unwrap_or_default();
                let threshold = if modern {
                    context.meta.log_level().map(|l| level_name(&l))
                } else {
                    Some(
                        self.state
                            .lock()
                            .expect("state lock")
                            .log_level
                            .as_ref()
                            .map(level_name)
                            .unwrap_or_else(|| "debug".into()),
                    )
                };
                let sent = match threshold {
                    Some(t) if level_rank(&level) >= level_rank(&t) => {
                        let p: LoggingMessageNotificationParam = conv(
                            json!({"level": level, "logger": "reference", "data": {"message": message}}),
                        )?;
                        context
                            .peer
                            .notify_logging_message(p)
                            .await
                            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                        true
                    }
                    _ => false,
                };
                Ok(text_result(if sent {
                    format!("logged at {level}")
                } else {
                    format!("not logged (level {level} below threshold or not requested)")
                })
                .into())
            }
            "slow" => {
                let ms = u64_arg("ms").unwrap_or(1000);
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_millis(ms)) => Ok(text_result(format!("slept {ms}ms")).into()),
                    _ = context.ct.cancelled() => Err(ErrorData::internal_error("cancelled", None)),
                }
            }
            "long_task" => {
                let ms = u64_arg("ms").unwrap_or(100);
                let wants_task = context
                    .client_capabilities()
                    .is_some_and(|c| c.supports_tasks());
                if !wants_task {
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                    return Ok(text_result(format!("finished after {ms}ms")).into());
                }
                let (id, entry) = self.new_task(None);
                let me = self.clone();
                let task_id = id.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                    let mut st = me.state.lock().expect("state lock");
                    if let Some(t) = st.tasks.get_mut(&task_id)
                        && t.status == "working"
                    {
                        t.status = "completed".into();
                        t.result = Some(
                            json!({"content": [{"type": "text", "text": format!("finished after {ms}ms")}], "isError": false}),
                        );
                    }
                });
                let mut v = self.task_value(&id, &entry);
                v["resultType"] = json!("task");
                Ok(CallToolResponse::Task(conv(v)?))
            }
            "ask_task" => {
                let wants_task = context
                    .client_capabilities()
                    .is_some_and(|c| c.supports_tasks());
                if !wants_task {
                    return Err(ErrorData::new(
                        ErrorCode(-32021),
                        "ask_task needs the tasks extension",
                        Some(
                            json!({"requiredCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}}),
                        ),
                    ));
                }
                let requests = json!({"name": {"method": "elicitation/create", "params": elicitation_params("Who is asking?")}});
                let (id, entry) = self.new_task(Some(requests));
                let mut v = self.task_value(&id, &entry);
                v["resultType"] = json!("task");
                Ok(CallToolResponse::Task(conv(v)?))
            }
            "regional" => {
                let region = str_arg("region").unwrap_or_default();
                let text = str_arg("text").unwrap_or_default();
                Ok(text_result(format!("{text}@{region}")).into())
            }
            "environment" => {
                let name = str_arg("name").unwrap_or_default();
                let cwd = std::env::current_dir()
                    .map(|d| d.display().to_string())
                    .unwrap_or_default();
                let value = std::env::var(&name).ok();
                Ok(
                    text_result(json!({"cwd": cwd, "name": name, "value": value}).to_string())
                        .into(),
                )
            }
            "app" => Ok(text_result(
                "The reference app is at ui://reference/app.html (text fallback).",
            )
            .into()),
            other if self.breaks("unknown-tool") => Err(ErrorData::internal_error(
                format!("Unknown tool: {other}"),
                None,
            )),
            other => Err(ErrorData::invalid_params(
                format!("Unknown tool: {other}"),
                None,
            )),
        }
    }

    fn read(&self, uri: &str) -> Result<ReadResourceResult, ErrorData> {
        let contents = match uri {
            "fixture://status" => {
                json!([{"uri": uri, "mimeType": "application/json", "text": "{\"status\":\"ready\"}"}])
            }
            "fixture://readme" => {
                json!([{"uri": uri, "mimeType": "text/plain", "text": "The mcpr reference server."}])
            }
            "fixture://blob" => {
                json!([{"uri": uri, "mimeType": "application/octet-stream", "blob": base64::engine::general_purpose::STANDARD.encode([0u8, 1, 2, 3, 254, 255])}])
            }
            APP_URI => {
                json!([{"uri": uri, "mimeType": "text/html;profile=mcp-app", "text": APP_HTML,
                                "_meta": {"ui": {"csp": {"connectDomains": [], "resourceDomains": ["https://cdn.example.invalid"]}, "prefersBorder": true}}}])
            }
            SKILL_URI => json!([{"uri": uri, "mimeType": "text/markdown", "text": SKILL_MD}]),
            SKILL_EXTRA_URI => {
                json!([{"uri": uri, "mimeType": "text/plain", "text": SKILL_PHRASES}])
            }
            _ => match uri.strip_prefix("fixture://items/") {
                Some(id) if !id.is_empty() && !id.contains('/') => {
                    json!([{"uri": uri, "mimeType": "text/plain", "text": format!("item {id}")}])
                }
                _ => {
                    return Err(ErrorData::resource_not_found(
                        format!("Resource not found: {uri}"),
                        Some(json!({"uri": uri})),
                    ));
                }
            },
        };
        conv(json!({"resultType": "complete", "contents": contents}))
    }
}

impl ServerHandler for Reference {
    fn get_info(&self) -> ServerConfig {
        let caps: ServerCapabilities = serde_json::from_value(self.modes.advertised(json!({
            "tools": {"listChanged": true},
            "resources": {"subscribe": true, "listChanged": true},
            "prompts": {"listChanged": true},
            "logging": {},
            "completions": {},
            "extensions": {
                "io.modelcontextprotocol/tasks": {},
                "io.modelcontextprotocol/skills": {},
                "io.modelcontextprotocol/ui": {}
            }
        })))
        .expect("static capabilities are valid");
        ServerConfig::new(caps)
            .with_server_info(Implementation::new(
                "mcpr-reference-server",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions("Deterministic fixture server for mcpr's own tests.")
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.modes.offers("tools", "tools/call")?;
        self.call(request, context).await
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        // Lets rmcp check arguments and, over 2026 HTTP, the Mcp-Param-* headers.
        tools(self.conflict)
            .into_iter()
            .find(|t| t["name"] == name)
            .and_then(|t| serde_json::from_value(t).ok())
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.modes.offers("tools", "tools/list")?;
        let cursor = request.as_ref().and_then(|r| r.cursor.clone());
        let (items, next) = page(&tools(self.conflict), cursor.as_deref())?;
        let mut v = json!({"resultType": "complete", "tools": items});
        if let Some(n) = next {
            v["nextCursor"] = json!(n);
        }
        conv(v)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.modes.offers("resources", "resources/list")?;
        conv(json!({"resultType": "complete", "resources": [
            {"uri": "fixture://status", "name": "status", "mimeType": "application/json"},
            {"uri": "fixture://readme", "name": "readme", "mimeType": "text/plain"},
            {"uri": "fixture://blob", "name": "blob", "mimeType": "application/octet-stream"},
            {"uri": APP_URI, "name": "app", "mimeType": "text/html;profile=mcp-app"},
        ]}))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.modes.offers("resources", "resources/templates/list")?;
        conv(
            json!({"resultType": "complete", "resourceTemplates": [{"uriTemplate": "fixture://items/{id}", "name": "item", "mimeType": "text/plain"}]}),
        )
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.modes.offers("resources", "resources/read")?;
        Ok(self.read(&request.uri)?.into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.modes.offers("prompts", "prompts/list")?;
        conv(json!({"resultType": "complete", "prompts": [
            {"name": "greet", "description": "Greets someone.", "arguments": [{"name": "name", "required": true}]},
            {"name": "code_review", "description": "Reviews code.", "arguments": [{"name": "language", "required": true}, {"name": "framework"}]},
        ]}))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        self.modes.offers("prompts", "prompts/get")?;
        let args = request.arguments.clone().unwrap_or_default();
        let arg = |k: &str| args.get(k).and_then(Value::as_str).map(str::to_string);
        let text = match request.name.as_str() {
            "greet" => format!(
                "Hello, {}!",
                arg("name").ok_or_else(|| ErrorData::invalid_params(
                    "greet needs the argument `name`",
                    None
                ))?
            ),
            "code_review" => format!(
                "Review this {} code{}.",
                arg("language").ok_or_else(|| ErrorData::invalid_params(
                    "code_review needs the argument `language`",
                    None
                ))?,
                arg("framework")
                    .map(|f| format!(" using {f}"))
                    .unwrap_or_default()
            ),
            other => {
                return Err(ErrorData::invalid_params(
                    format!("Unknown prompt: {other}"),
                    None,
                ));
            }
        };
        let r: GetPromptResult = conv(
            json!({"resultType": "complete", "description": request.name, "messages": [{"role": "user", "content": {"type": "text", "text": text}}]}),
        )?;
        Ok(r.into())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        self.modes.offers("completions", "completion/complete")?;
        let v = serde_json::to_value(&request).unwrap_or(Value::Null);
        let arg = v
            .get("argument")
            .and_then(|a| a.get("name"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let prefix = v
            .get("argument")
            .and_then(|a| a.get("value"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let language = v
            .get("context")
            .and_then(|c| c.get("arguments"))
            .and_then(|a| a.get("language"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let candidates: Vec<&str> = match arg {
            "language" => vec!["python", "rust", "typescript"],
            "framework" => match language {
                "python" => vec!["django", "fastapi", "flask"],
                "rust" => vec!["axum", "rocket", "tokio"],
                "typescript" => vec!["express", "nest", "next"],
                _ => vec![],
            },
            "name" => vec!["Alice", "Bob", "Charlie"],
            "id" => vec!["1", "2", "3", "10"],
            _ => vec![],
        };
        let values: Vec<&str> = candidates
            .into_iter()
            .filter(|c| c.starts_with(prefix))
            .collect();
        conv(
            json!({"resultType": "complete", "completion": {"values": values, "total": values.len(), "hasMore": false}}),
        )
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        era::refuse_removed(is_modern(&context), "logging/setLevel")?;
        self.modes.offers("logging", "logging/setLevel")?;
        self.state.lock().expect("state lock").log_level = Some(request.level);
        Ok(())
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        era::refuse_removed(is_modern(&context), "resources/subscribe")?;
        self.modes.offers("resources", "resources/subscribe")?;
        self.read(&request.uri)?;
        self.subscribed
            .lock()
            .expect("subscriptions lock")
            .insert(request.uri);
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        era::refuse_removed(is_modern(&context), "resources/unsubscribe")?;
        self.modes.offers("resources", "resources/unsubscribe")?;
        self.subscribed
            .lock()
            .expect("subscriptions lock")
            .remove(&request.uri);
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.state.lock().expect("state lock").establishing += 1;
        Some(requested.clone())
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let sink = context.sink().clone();
        let key = {
            let mut st = self.state.lock().expect("state lock");
            st.next_listener += 1;
            let key = st.next_listener;
            st.listeners.push((key, sink));
            st.establishing = st.establishing.saturating_sub(1);
            key
        };
        context.cancelled().await;
        self.state
            .lock()
            .expect("state lock")
            .listeners
            .retain(|(k, _)| *k != key);
        Ok(())
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let v = serde_json::to_value(&request).unwrap_or(Value::Null);
        let id = v
            .get("taskId")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let entry = self
            .state
            .lock()
            .expect("state lock")
            .tasks
            .get(&id)
            .cloned()
            .ok_or_else(|| ErrorData::invalid_params(format!("unknown task {id}"), None))?;
        let mut out = self.task_value(&id, &entry);
        out["resultType"] = json!("complete");
        match entry.status.as_str() {
            "completed" => out["result"] = entry.result.unwrap_or_else(|| json!({"content": []})),
            "input_required" => {
                out["inputRequests"] = entry.input_requests.unwrap_or_else(|| json!({}))
            }
            "failed" => out["error"] = json!({"code": -32603, "message": "the task failed"}),
            _ => {}
        }
        conv(out)
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let v = serde_json::to_value(&request).unwrap_or(Value::Null);
        let id = v
            .get("taskId")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let mut st = self.state.lock().expect("state lock");
        let entry = st
            .tasks
            .get_mut(&id)
            .ok_or_else(|| ErrorData::invalid_params(format!("unknown task {id}"), None))?;
        if entry.status == "input_required"
            && let Some(answer) = v.get("inputResponses").and_then(|r| r.get("name"))
        {
            let name = answer
                .get("content")
                .and_then(|c| c.get("name"))
                .and_then(Value::as_str)
                .unwrap_or("nobody");
            entry.status = "completed".into();
            entry.input_requests = None;
            entry.result = Some(
                json!({"content": [{"type": "text", "text": format!("task answered by {name}")}], "isError": false}),
            );
        }
        Ok(())
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let v = serde_json::to_value(&request).unwrap_or(Value::Null);
        let id = v
            .get("taskId")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let mut st = self.state.lock().expect("state lock");
        let entry = st
            .tasks
            .get_mut(&id)
            .ok_or_else(|| ErrorData::invalid_params(format!("unknown task {id}"), None))?;
        if entry.status == "working" || entry.status == "input_required" {
            entry.status = "cancelled".into();
            entry.status_message = Some("cancelled by the client".into());
        }
        Ok(())
    }

    /// `tasks/list` and `tasks/result` (2025-11-25 only); `tasks/result` waits until the
    /// task ends and answers what the original request would have (the tool result, or the
    /// error of a failed task).
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        era::refuse_removed(is_modern(&context), &request.method)?;
        if KNOWN_METHODS.contains(&request.method.as_str()) {
            // A method the server serves, whose params the SDK could not read into their
            // type (a log level that does not exist, a missing name): Invalid params.
            let what = format!("invalid params of {}", request.method);
            return Err(ErrorData::invalid_params(what, None));
        }
        if request.method == "tasks/list" && !is_modern(&context) {
            return Ok(CustomResult::new(self.task_list()));
        }
        if request.method != "tasks/result" || is_modern(&context) {
            let what = format!("Method not found: {}", request.method);
            if self.breaks("unknown-method") {
                return Err(ErrorData::internal_error(what, None));
            }
            return Err(ErrorData::new(ErrorCode::METHOD_NOT_FOUND, what, None));
        }
        let id = request
            .params
            .as_ref()
            .and_then(|p| p.get("taskId"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        loop {
            let entry = self
                .state
                .lock()
                .expect("state lock")
                .tasks
                .get(&id)
                .cloned()
                .ok_or_else(|| ErrorData::invalid_params(format!("unknown task {id}"), None))?;
            match entry.status.as_str() {
                "completed" => {
                    return Ok(CustomResult::new(
                        entry.result.unwrap_or_else(|| json!({"content": []})),
                    ));
                }
                "failed" => return Err(ErrorData::internal_error("the task failed", None)),
                "cancelled" => {
                    return Err(ErrorData::invalid_params("the task was cancelled", None));
                }
                _ => tokio::time::sleep(Duration::from_millis(10)).await,
            }
        }
    }

    async fn list_skills(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        conv(json!({"resultType": "complete", "skills": [skill()]}))
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        if request.uri != SKILL_URI {
            return Err(ErrorData::invalid_params(
                format!("unknown skill {}", request.uri),
                None,
            ));
        }
        conv(json!({"resultType": "complete", "skill": skill()}))
    }
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut conflict = false;
    let mut http: Option<String> = None;
    let mut required: Vec<(String, String)> = Vec::new();
    let mut flaky_file: Option<std::path::PathBuf> = None;
    let mut flaky_sessions: u64 = 1;
    let mut modes = Modes::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match (a.as_str(), it.clone().next().map(String::as_str)) {
            ("--variant", Some("conflict")) => {
                conflict = true;
                it.next();
            }
            (flag @ ("--broken" | "--without"), Some(list)) if modes.add(flag, list) => {
                it.next();
            }
            ("--http", Some(addr)) => {
                http = Some(addr.to_string());
                it.next();
            }
            ("--flaky", Some(file)) => {
                flaky_file = Some(file.into());
                it.next();
            }
            ("--flaky-sessions", Some(n)) if n.parse::<u64>().is_ok() => {
                flaky_sessions = n.parse().unwrap_or(1);
                it.next();
            }
            ("--require-header", Some(pair)) if pair.contains(':') => {
                let (name, value) = pair.split_once(':').unwrap_or_default();
                required.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
                it.next();
            }
            _ => {
                eprintln!(
                    "usage: mcpr-reference-server [--variant conflict] [--flaky FILE [--flaky-sessions N]] [--broken {}] [--without {}] [--http HOST:PORT [--require-header 'NAME: VALUE']…]",
                    BREAKS.join(","),
                    OPTIONAL.join(",")
                );
                std::process::exit(2);
            }
        }
    }
    let server = Reference {
        conflict,
        flaky: flaky_file.map(|file| {
            Arc::new(Flaky {
                file,
                sessions: flaky_sessions,
            })
        }),
        modes: Arc::new(modes),
        ..Reference::default()
    };
    if server.breaks("stdout") {
        println!("reference server starting (this banner is not JSON-RPC)");
    }
    if let Some(addr) = http {
        serve_http(server, &addr, required).await;
        return;
    }
    let server_breaks_stdin_exit = server.breaks("stdin-exit");
    // A log line on stdout once stdin closed (`--broken stdout-late`).
    let stdout_late = server.breaks("stdout-late");
    let goodbye = || {
        if stdout_late {
            println!("reference server: stdin closed, shutting down (this line is not JSON-RPC)");
        }
    };
    let transport = stdio::transport(server.breaks("unknown-cancel"));
    // Stays alive after stdin closed, until a signal ends it (`--broken stdin-exit`).
    let linger = async {
        if server_breaks_stdin_exit {
            tokio::time::sleep(Duration::from_secs(3600)).await;
        }
    };
    // In the stateless era the SDK serves every request while "starting" and ends with an
    // error when stdin closes: that is the end of the stdio session too.
    let service = match server.serve(transport).await {
        Ok(s) => s,
        Err(e) => {
            linger.await;
            goodbye();
            eprintln!("mcpr-reference-server: could not start: {e}");
            std::process::exit(1);
        }
    };
    let ended = service.waiting().await;
    linger.await;
    goodbye();
    if let Err(e) = ended {
        eprintln!("mcpr-reference-server: {e}");
        std::process::exit(1);
    }
}

/// Serves Streamable HTTP at `http://ADDR/mcp` (sessions for the handshake era, stateless
/// requests for 2026-07-28). The bound address is printed on stderr, so `:0` works.
/// Every `required` header (lower-case name, exact value) must be on every request, else
/// 401 with a Bearer challenge naming the protected-resource metadata.
async fn serve_http(server: Reference, addr: &str, required: Vec<(String, String)>) {
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    };
    let config = origin::validate(
        StreamableHttpServerConfig::default().with_sse_keep_alive(None),
        server.breaks(origin::NO_ORIGIN_CHECK),
    );
    let service = StreamableHttpService::new(
        // Each session its own `called` flag and subscriptions (the rest of the state is
        // the server's).
        move || {
            Ok(Reference {
                called: Arc::default(),
                subscribed: Arc::default(),
                ..server.clone()
            })
        },
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("mcpr-reference-server: cannot listen on {addr}: {e}");
            std::process::exit(1);
        }
    };
    let metadata = match listener.local_addr() {
        Ok(a) => format!("http://{a}/.well-known/oauth-protected-resource/mcp"),
        Err(_) => "/.well-known/oauth-protected-resource/mcp".into(),
    };
    let required = Arc::new(required);
    let router = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn(era::removed_over_http))
        .layer(
        axum::middleware::from_fn(
            move |req: axum::extract::Request, next: axum::middleware::Next| {
                let required = required.clone();
                let metadata = metadata.clone();
                async move {
                    let missing = required.iter().find(|(name, value)| {
                        req.headers()
                            .get(name.as_str())
                            .and_then(|v| v.to_str().ok())
                            != Some(value.as_str())
                    });
                    match missing {
                        None => next.run(req).await,
                        Some((name, _)) => {
                            let error = if req.headers().contains_key(name.as_str()) {
                                "invalid_token"
                            } else {
                                "invalid_request"
                            };
                            let challenge = format!(
                                "Bearer realm=\"mcpr-reference\", error=\"{error}\", error_description=\"header {name} is missing or wrong\", resource_metadata=\"{metadata}\""
                            );
                            axum::response::Response::builder()
                                .status(401)
                                .header("WWW-Authenticate", challenge)
                                .header("Content-Type", "text/plain")
                                .body(axum::body::Body::from("unauthorized"))
                                .unwrap_or_default()
                        }
                    }
                }
            },
        ),
    );
    match listener.local_addr() {
        Ok(a) => eprintln!("mcpr-reference-server: listening on http://{a}/mcp"),
        Err(e) => eprintln!("mcpr-reference-server: listening ({e})"),
    }
    if let Err(e) = axum::serve(listener, router).await {
        eprintln!("mcpr-reference-server: {e}");
        std::process::exit(1);
    }
}
