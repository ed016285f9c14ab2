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
mod http;
mod origin;
mod stdio;
mod tools;

use base64::Engine as _;
use rmcp::model::*;
use rmcp::service::{RequestContext, RoleServer, SubscriptionContext, SubscriptionSink};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
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
    tasks: HashMap<String, TaskEntry>,
    next_task: u64,
}

/// The state of one session; the rest of the state is the server's.
#[derive(Default)]
struct Session {
    /// Whether a tool call came already.
    called: bool,
    /// The resource URIs subscribed to (handshake era).
    subscribed: HashSet<String>,
    /// The level `logging/setLevel` asked for (handshake era).
    log_level: Option<LoggingLevel>,
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
    /// What belongs to the session (a new one for each HTTP session).
    session: Arc<Mutex<Session>>,
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
        tools::tools(self.conflict)
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
        let (items, next) = page(&tools::tools(self.conflict), cursor.as_deref())?;
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
        self.session.lock().expect("session lock").log_level = Some(request.level);
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
        self.session
            .lock()
            .expect("session lock")
            .subscribed
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
        self.session
            .lock()
            .expect("session lock")
            .subscribed
            .remove(&request.uri);
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        if self.modes.without.contains("subscriptions") {
            // `--without subscriptions`: the listen stream is refused.
            return None;
        }
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
    let mut json_response = false;
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
            ("--json-response", _) => json_response = true,
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
                    "usage: mcpr-reference-server [--variant conflict] [--flaky FILE [--flaky-sessions N]] [--broken {}] [--without {}] [--http HOST:PORT [--json-response] [--require-header 'NAME: VALUE']…]",
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
        http::serve_http(server, &addr, required, json_response).await;
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
