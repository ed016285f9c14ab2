//! Client operations as library functions: lists with cursor following, tool calls with the
//! `outputSchema` ⇒ `structuredContent` check, resources, prompts, completion, logging,
//! subscriptions (legacy and `subscriptions/listen`), progress, cancellation, multi
//! round-trip requests, tasks (2025-11-25 core and the 2026 extension), skills, MCP Apps and
//! raw requests.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::BoxFuture;
use crate::error::{Error, ErrorKind, shorten};
use crate::protocol::jsonrpc::codes;
use crate::protocol::meta::{self, EXT_SKILLS, EXT_TASKS};
use crate::protocol::version::Era;
use crate::session::{
    Match, Notification, PendingRequest, RequestOptions, Session, SessionConfig, Started,
};
use crate::transport::stdio::{ShutdownReport, StdioConfig};

/// Most rounds of a multi round-trip request before giving up.
pub const MAX_INPUT_ROUNDS: usize = 16;
/// Most pages of a list before giving up.
pub const MAX_PAGES: usize = 10_000;

/// Options of a tool call.
#[derive(Debug, Clone, Default)]
pub struct CallOptions {
    /// Deadline (the session's default when `None`).
    pub timeout: Option<Duration>,
    /// Ask for progress (a fresh `progressToken`), and check it.
    pub progress: bool,
    /// Hand back `isError` results instead of failing with `MCP-TOOL-001`.
    pub allow_error: bool,
    /// 2026: request-scoped log level.
    pub log_level: Option<String>,
    /// 2025-11-25: task-augment the call with this `ttl` (ms; `Some(None)` sends `task: {}`).
    pub task_ttl: Option<Option<u64>>,
    /// Skip the `outputSchema` check.
    pub skip_schema_check: bool,
    /// Each progress notification restarts the deadline (implies `progress`), up to
    /// `max_total` (10× the deadline when `None`).
    pub reset_timeout_on_progress: bool,
    /// Hard maximum with `reset_timeout_on_progress`.
    pub max_total: Option<Duration>,
}

/// The outcome of a tool call.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ToolCall {
    /// The final result (a `CallToolResult`, or a task handle for task-augmented calls).
    pub result: Value,
    /// `true` when `isError` was set.
    pub is_error: bool,
    /// `true` when the server answered with a task instead of a result.
    pub is_task: bool,
    /// Progress notifications received for the call's token.
    pub progress: Vec<Value>,
    /// Multi round-trip rounds (2026) it took; 1 when none.
    pub rounds: usize,
    /// Round-trip time of the last round.
    #[serde(serialize_with = "ser_us")]
    pub elapsed: Duration,
}

fn ser_us<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(d.as_micros() as u64)
}

/// A live `subscriptions/listen` stream.
#[derive(Debug)]
pub struct Subscription {
    /// The subscription id (= the listen request id).
    pub id: i64,
    /// The filter the server acknowledged.
    pub acknowledged: Value,
    pending: Option<PendingRequest>,
}

/// What an MCP App resource looks like.
#[derive(Debug, Clone, serde::Serialize)]
pub struct AppReport {
    /// The tool.
    pub tool: String,
    /// The `ui://` resource.
    pub resource_uri: String,
    /// Its MIME type.
    pub mime_type: String,
    /// Bytes of HTML.
    pub size: usize,
    /// The `_meta.ui.csp` object, if any.
    pub csp: Option<Value>,
    /// `visibility` of the tool.
    pub visibility: Vec<String>,
}

/// Where a server is and how to reach it.
#[derive(Debug, Clone)]
pub enum Target {
    /// A command started over stdio.
    Stdio(StdioConfig),
    /// A Streamable HTTP endpoint (falls back to HTTP+SSE on 400/404/405).
    Http(crate::transport::http::HttpConfig),
    /// A legacy HTTP+SSE endpoint (2024-11-05).
    Sse(crate::transport::http::HttpConfig),
}

/// An MCP client on one session.
pub struct Client {
    session: Session,
    /// By name; a B-tree because a lookup on every call compares a few names, which is
    /// cheaper than hashing the name.
    tools: Mutex<Option<BTreeMap<String, Arc<Value>>>>,
    validators: Mutex<HashMap<String, Arc<jsonschema::Validator>>>,
    tokens: AtomicU64,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("session", &self.session)
            .finish()
    }
}

impl std::ops::Deref for Client {
    type Target = Session;
    fn deref(&self) -> &Session {
        &self.session
    }
}

fn opts(timeout: Option<Duration>) -> RequestOptions {
    RequestOptions {
        timeout,
        ..Default::default()
    }
}

impl Client {
    /// Starts a server over stdio and runs the handshake.
    pub async fn connect(stdio: StdioConfig, config: SessionConfig) -> Result<Client, Error> {
        Ok(Client::new(Session::start(stdio, config).await?))
    }

    /// Connects to any target and runs the handshake.
    pub async fn connect_to(target: Target, config: SessionConfig) -> Result<Client, Error> {
        match target {
            Target::Stdio(stdio) => Client::connect(stdio, config).await,
            Target::Http(http) => Client::connect_http(http, config).await,
            Target::Sse(http) => Client::connect_sse(http, config).await,
        }
    }

    /// Connects to a Streamable HTTP endpoint and runs the handshake.
    pub async fn connect_http(
        http: crate::transport::http::HttpConfig,
        config: SessionConfig,
    ) -> Result<Client, Error> {
        Ok(Client::new(Session::start_http(http, config).await?))
    }

    /// Connects with the legacy HTTP+SSE transport (2024-11-05).
    pub async fn connect_sse(
        http: crate::transport::http::HttpConfig,
        config: SessionConfig,
    ) -> Result<Client, Error> {
        Ok(Client::new(Session::start_sse(http, config).await?))
    }

    /// Wraps an open session.
    pub fn new(session: Session) -> Client {
        Client {
            session,
            tools: Mutex::new(None),
            validators: Mutex::new(HashMap::new()),
            tokens: AtomicU64::new(1),
        }
    }

    /// The session.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// Closes the session (see [`Session::close`]).
    pub async fn close(&self) -> ShutdownReport {
        self.session.close().await
    }

    #[cold]
    fn invalid(&self, method: &str, reason: impl Into<String>) -> Error {
        self.session.error(ErrorKind::InvalidResult {
            method: method.into(),
            reason: reason.into(),
        })
    }

    /// True when the server declared `capabilities[path…]`.
    pub fn server_has(&self, path: &[&str]) -> bool {
        let mut cur = &self.session.facts().capabilities;
        for p in path {
            match cur.get(p) {
                Some(v) => cur = v,
                None => return false,
            }
        }
        !cur.is_null() && cur != &Value::Bool(false)
    }

    /// True when the server declared an extension.
    pub fn server_has_extension(&self, id: &str) -> bool {
        self.session
            .facts()
            .capabilities
            .get("extensions")
            .and_then(|e| e.get(id))
            .is_some()
    }

    /// A raw request with any method and params: the result, or `MCP-RPC-001` on an error.
    pub async fn raw(
        &self,
        method: &str,
        params: Option<Value>,
        timeout: Option<Duration>,
    ) -> Result<Value, Error> {
        self.session.request(method, params, &opts(timeout)).await
    }

    /// Round trip to the server: `ping` (legacy) or `server/discover` (2026, which has no
    /// ping). Returns the round-trip time.
    pub async fn ping(&self, timeout: Option<Duration>) -> Result<Duration, Error> {
        let start = Instant::now();
        match self.session.era() {
            Era::Legacy => {
                let r = self.session.request("ping", None, &opts(timeout)).await?;
                if !r.is_object() {
                    return Err(self.invalid("ping", "the result is not an object"));
                }
            }
            Era::Modern => {
                self.session
                    .request("server/discover", Some(json!({})), &opts(timeout))
                    .await?;
            }
        }
        Ok(start.elapsed())
    }

    /// Follows every cursor of a list method and returns all items of `key`. A cursor that
    /// comes back twice is `MCP-PROTOCOL-007`.
    pub async fn list_all(
        &self,
        method: &str,
        key: &str,
        extra: Option<Value>,
        timeout: Option<Duration>,
    ) -> Result<Vec<Value>, Error> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        let mut seen: HashSet<String> = HashSet::new();
        for _ in 0..MAX_PAGES {
            let mut params = extra.clone().unwrap_or_else(|| json!({}));
            if let Some(c) = &cursor {
                params["cursor"] = json!(c);
            }
            let result = self
                .session
                .request(method, Some(params), &opts(timeout))
                .await?;
            match result.get(key) {
                Some(Value::Array(page)) => items.extend(page.iter().cloned()),
                Some(other) => {
                    return Err(self.invalid(
                        method,
                        format!(
                            "`{key}` is a {}, not an array",
                            crate::protocol::jsonrpc::kind_of(other)
                        ),
                    ));
                }
                None => return Err(self.invalid(method, format!("`{key}` is missing"))),
            }
            match result.get("nextCursor") {
                None | Some(Value::Null) => return Ok(items),
                Some(Value::String(next)) => {
                    if !seen.insert(next.clone()) {
                        return Err(self.session.error(ErrorKind::RepeatedCursor {
                            method: method.into(),
                            cursor: next.clone(),
                        }));
                    }
                    cursor = Some(next.clone());
                }
                Some(other) => {
                    return Err(
                        self.invalid(method, format!("nextCursor is {other}, not a string"))
                    );
                }
            }
        }
        Err(self.invalid(method, format!("more than {MAX_PAGES} pages")))
    }

    /// All tools (cached for the `outputSchema` check).
    pub async fn list_tools(&self) -> Result<Vec<Value>, Error> {
        let mut tools = self.list_all("tools/list", "tools", None, None).await?;
        if self.session.is_http() && self.session.era() == Era::Modern {
            // 2026 HTTP clients must drop tools whose x-mcp-header annotations are invalid.
            tools.retain(|t| match invalid_param_headers(t) {
                None => true,
                Some(reason) => {
                    let name = t.get("name").and_then(Value::as_str).unwrap_or("?");
                    self.session.note_violation(ErrorKind::Conformance {
                        what: format!("tool {name}"),
                        reason: format!("dropped from tools/list: {reason}"),
                    });
                    false
                }
            });
        }
        let mut map = BTreeMap::new();
        for t in &tools {
            let Some(name) = t.get("name").and_then(Value::as_str) else {
                return Err(self.invalid(
                    "tools/list",
                    format!("a tool has no name: {}", shorten(&t.to_string(), 200)),
                ));
            };
            if !t.get("inputSchema").is_some_and(Value::is_object) {
                return Err(self.invalid(
                    "tools/list",
                    format!("tool {name} has no inputSchema object"),
                ));
            }
            map.insert(name.to_string(), Arc::new(t.clone()));
        }
        *self.tools.lock().expect("tools lock") = Some(map);
        self.validators.lock().expect("validators lock").clear();
        Ok(tools)
    }

    /// All resources.
    pub async fn list_resources(&self) -> Result<Vec<Value>, Error> {
        self.list_all("resources/list", "resources", None, None)
            .await
    }

    /// All resource templates.
    pub async fn list_resource_templates(&self) -> Result<Vec<Value>, Error> {
        self.list_all("resources/templates/list", "resourceTemplates", None, None)
            .await
    }

    /// All prompts.
    pub async fn list_prompts(&self) -> Result<Vec<Value>, Error> {
        self.list_all("prompts/list", "prompts", None, None).await
    }

    /// The definition of a tool from `tools/list` (cached; every page read), if it exists.
    pub async fn tool_definition(&self, name: &str) -> Result<Option<Arc<Value>>, Error> {
        match self.cached_definition(name) {
            Some(found) => Ok(found),
            None => {
                if !self.server_has(&["tools"]) {
                    return Ok(None);
                }
                self.list_tools().await?;
                Ok(self
                    .tools
                    .lock()
                    .expect("tools lock")
                    .as_ref()
                    .and_then(|m| m.get(name).cloned()))
            }
        }
    }

    /// The definition of tool `name` when the tools were listed already (`Some(None)`
    /// when the list has no such tool), `None` when they were not.
    fn cached_definition(&self, name: &str) -> Option<Option<Arc<Value>>> {
        self.tools
            .lock()
            .expect("tools lock")
            .as_ref()
            .map(|m| m.get(name).cloned())
    }

    /// The definition of tool `name` before a call to it: a `tools/list` that the server
    /// refuses does not stop the call; it only skips the checks the definition allows.
    async fn definition_for_call(&self, name: &str) -> Result<Option<Arc<Value>>, Error> {
        match self.tool_definition(name).await {
            Ok(d) => Ok(d),
            Err(e) if e.rpc_error().is_some() => {
                self.tools
                    .lock()
                    .expect("tools lock")
                    .get_or_insert_with(BTreeMap::new);
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// Checks `structuredContent` against the tool's `outputSchema`.
    fn check_structured(
        &self,
        name: &str,
        tool: Option<&Value>,
        result: &Value,
    ) -> Result<(), Error> {
        let Some(tool) = tool else {
            return Ok(());
        };
        let Some(schema) = field(tool, "outputSchema") else {
            return Ok(());
        };
        let Some(structured) = result.get("structuredContent") else {
            return Err(self.session.error(ErrorKind::StructuredContent {
                tool: name.into(),
                reason: "the tool declares an outputSchema but the result has no structuredContent"
                    .into(),
            }));
        };
        let validator = {
            let cached = self
                .validators
                .lock()
                .expect("validators lock")
                .get(name)
                .cloned();
            match cached {
                Some(v) => v,
                None => {
                    let v = jsonschema::validator_for(schema).map_err(|e| {
                        self.session.error(ErrorKind::StructuredContent {
                            tool: name.into(),
                            reason: format!("its outputSchema is not a valid JSON Schema: {e}"),
                        })
                    })?;
                    let v = Arc::new(v);
                    self.validators
                        .lock()
                        .expect("validators lock")
                        .insert(name.to_string(), v.clone());
                    v
                }
            }
        };
        let problems: Vec<String> = validator
            .iter_errors(structured)
            .take(5)
            .map(|e| {
                let path = e.instance_path().to_string();
                if path.is_empty() {
                    e.to_string()
                } else {
                    format!("at {path}: {e}")
                }
            })
            .collect();
        if !problems.is_empty() {
            return Err(self.session.error(ErrorKind::StructuredContent {
                tool: name.into(),
                reason: format!(
                    "structuredContent does not match the outputSchema: {}",
                    problems.join("; ")
                ),
            }));
        }
        Ok(())
    }

    /// A fresh progress token.
    pub fn next_progress_token(&self) -> Value {
        json!(format!(
            "mcpr-progress-{}",
            self.tokens.fetch_add(1, Ordering::Relaxed)
        ))
    }

    /// Sends a request that may answer `input_required` (2026 multi round-trip): every
    /// input request is answered from the client behaviour (or queued answers) and the
    /// request is retried with a new id, the answers and the echoed `requestState`.
    pub async fn request_with_input(
        &self,
        method: &str,
        params: Value,
        ropts: &RequestOptions,
    ) -> Result<(Value, usize), Error> {
        let first = self
            .session
            .request_borrowed(method, &params, ropts)
            .await?;
        if !needs_input(&first) {
            return Ok((first, 1));
        }
        self.input_rounds(method, params, ropts, first).await
    }

    /// The rounds after a first `input_required` result `first`. Boxed behind `dyn`: the
    /// rounds of a multi round-trip request keep their code out of every request's future.
    fn input_rounds<'a>(
        &'a self,
        method: &'a str,
        params: Value,
        ropts: &'a RequestOptions,
        first: Value,
    ) -> BoxFuture<'a, Result<(Value, usize), Error>> {
        Box::pin(self.answer_input_rounds(method, params, ropts, first))
    }

    async fn answer_input_rounds(
        &self,
        method: &str,
        params: Value,
        ropts: &RequestOptions,
        first: Value,
    ) -> Result<(Value, usize), Error> {
        let mut params = params;
        let mut result = first;
        for round in 2..=MAX_INPUT_ROUNDS {
            let requests = result.get("inputRequests");
            let state = result.get("requestState");
            if requests.is_none() && state.is_none() {
                return Err(self.input_error(
                    method,
                    "an input_required result without inputRequests or requestState",
                ));
            }
            let mut responses = Map::new();
            if let Some(reqs) = requests {
                let Some(reqs) = reqs.as_object() else {
                    return Err(self.input_error(method, "inputRequests is not an object"));
                };
                for (key, req) in reqs {
                    let Some(m) = req.get("method").and_then(Value::as_str) else {
                        return Err(self
                            .input_error(method, format!("input request {key:?} has no method")));
                    };
                    let p = req.get("params").cloned().unwrap_or(Value::Null);
                    match self.session.answer_input_request(m, &p) {
                        Ok(answer) => {
                            responses.insert(key.clone(), answer);
                        }
                        Err(e) => return Err(self.input_error(method, format!("the server asked for {m} ({key:?}), which the client cannot answer: {e}"))),
                    }
                }
            }
            let obj = params.as_object_mut().expect("params are an object");
            obj.insert("inputResponses".into(), Value::Object(responses));
            match state {
                Some(s) => {
                    obj.insert("requestState".into(), s.clone());
                }
                None => {
                    obj.remove("requestState");
                }
            }
            result = self
                .session
                .request_borrowed(method, &params, ropts)
                .await?;
            if !needs_input(&result) {
                return Ok((result, round));
            }
        }
        Err(self.input_error(
            method,
            format!("still input_required after {MAX_INPUT_ROUNDS} rounds"),
        ))
    }

    #[cold]
    fn input_error(&self, method: &str, reason: impl Into<String>) -> Error {
        self.session.error(ErrorKind::InputRequired {
            method: method.into(),
            reason: reason.into(),
        })
    }

    /// Calls a tool. Checks the result shape, `isError` (unless allowed), the
    /// `outputSchema` ⇒ `structuredContent` rule and, when asked, progress.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
        copts: &CallOptions,
    ) -> Result<ToolCall, Error> {
        // Sized for every member it may get: growing a map hashes its keys again.
        let mut params = Map::with_capacity(3);
        params.insert("name".into(), Value::String(name.to_string()));
        params.insert("arguments".into(), arguments);
        let mut params = Value::Object(params);
        if let Some(ttl) = copts.task_ttl {
            params["task"] = match ttl {
                Some(ms) => json!({"ttl": ms}),
                None => json!({}),
            };
        }
        let token =
            (copts.progress || copts.reset_timeout_on_progress).then(|| self.next_progress_token());
        let modern_http = self.session.is_http() && self.session.era() == Era::Modern;
        // Learn the tool's definition (outputSchema, x-mcp-header) before the call, so
        // that the call's answer stays the last message of the exchange. A tools/list
        // that the server refuses does not stop the call; it only skips those checks.
        let definition = if copts.skip_schema_check && !modern_http {
            None
        } else {
            match self.cached_definition(name) {
                Some(known) => known,
                None => {
                    // Boxed behind `dyn`: listing the tools happens once per session.
                    let listing: BoxFuture<'_, _> = Box::pin(self.definition_for_call(name));
                    listing.await?
                }
            }
        };
        let http_headers = match (&definition, modern_http) {
            (Some(tool), true) => param_headers(tool, &params["arguments"]),
            _ => Vec::new(),
        };
        let ropts = RequestOptions {
            timeout: copts.timeout,
            log_level: copts.log_level.clone(),
            progress_token: token.clone(),
            reset_on_progress: copts.reset_timeout_on_progress,
            max_total: copts.max_total,
            http_headers,
            ..Default::default()
        };
        let start = Instant::now();
        // The params are kept only where the call may be sent again.
        let retry_params = modern_http.then(|| params.clone());
        // The common case, an answer read at once, runs without entering a future.
        let first = match self.session.start_request("tools/call", &params, &ropts) {
            Ok(Started::Answered(first)) => first,
            Ok(Started::Waiting(pending)) => self.session.finish_request(pending).await,
            Err(e) => Err(e),
        };
        let mut outcome = match first {
            Ok(first) if needs_input(&first) => {
                self.input_rounds("tools/call", params, &ropts, first).await
            }
            other => other.map(|result| (result, 1)),
        };
        if let Some(params) = retry_params
            && let Err(e) = &outcome
            && e.rpc_error()
                .is_some_and(|r| r.code == codes::HEADER_MISMATCH)
        {
            // 2026-07-28: the server's idea of the tool's `x-mcp-header` parameters may have
            // changed since the list was read; read it again and send the call once more.
            // (Boxed: the rare path keeps its code out of every call's future.)
            outcome = Box::pin(self.call_again_with_new_headers(name, params, ropts)).await;
        }
        let elapsed = start.elapsed();
        let (progress, problems) = match &token {
            Some(t) => {
                let p = self.session.progress_of(t);
                self.session.retire_progress_token(t);
                p
            }
            None => (Vec::new(), Vec::new()),
        };
        let (result, rounds) = outcome?;
        let is_task = field(&result, "resultType").and_then(Value::as_str) == Some("task")
            || (copts.task_ttl.is_some() && field(&result, "task").is_some());
        if is_task {
            return self.task_call(result, progress, rounds, elapsed);
        }
        if !field(&result, "content").is_some_and(Value::is_array) {
            return Err(self.invalid(
                "tools/call",
                format!("tool {name}: `content` is missing or not an array"),
            ));
        }
        if let Some(t) = &token
            && !problems.is_empty()
        {
            return Err(self.session.error(ErrorKind::Progress {
                token: t.to_string(),
                reason: problems.join("; "),
            }));
        }
        let is_error = field(&result, "isError")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        if is_error {
            if !copts.allow_error {
                return Err(self.session.error(ErrorKind::ToolError {
                    tool: name.into(),
                    text: content_text(&result),
                }));
            }
        } else if !copts.skip_schema_check {
            self.check_structured(name, definition.as_deref(), &result)?;
        }
        Ok(ToolCall {
            result,
            is_error,
            is_task: false,
            progress,
            rounds,
            elapsed,
        })
    }

    /// A tool call answered with a task.
    #[inline(never)]
    fn task_call(
        &self,
        result: Value,
        progress: Vec<Value>,
        rounds: usize,
        elapsed: Duration,
    ) -> Result<ToolCall, Error> {
        let task = result.get("task").unwrap_or(&result);
        if task.get("taskId").and_then(Value::as_str).is_none()
            || task.get("status").and_then(Value::as_str).is_none()
        {
            return Err(self.invalid(
                "tools/call",
                "a task result without string taskId and status",
            ));
        }
        Ok(ToolCall {
            result,
            is_error: false,
            is_task: true,
            progress,
            rounds,
            elapsed,
        })
    }

    /// A `tools/call` sent again with the `x-mcp-header` parameters of a fresh tool list.
    async fn call_again_with_new_headers(
        &self,
        name: &str,
        params: Value,
        ropts: RequestOptions,
    ) -> Result<(Value, usize), Error> {
        *self.tools.lock().expect("tools lock") = None;
        let definition = self.tool_definition(name).await?;
        let ropts = RequestOptions {
            http_headers: definition
                .as_ref()
                .map(|tool| param_headers(tool, &params["arguments"]))
                .unwrap_or_default(),
            ..ropts
        };
        self.request_with_input("tools/call", params, &ropts).await
    }

    /// Starts a tool call without waiting (for cancellation tests); finish it with
    /// [`Session::wait`] or stop it with [`Session::cancel`].
    pub fn start_tool_call(
        &self,
        name: &str,
        arguments: Value,
        progress: bool,
    ) -> Result<(PendingRequest, Option<Value>), Error> {
        let token = progress.then(|| self.next_progress_token());
        let ropts = RequestOptions {
            progress_token: token.clone(),
            ..Default::default()
        };
        let p = self.session.send(
            "tools/call",
            Some(json!({"name": name, "arguments": arguments})),
            &ropts,
        )?;
        Ok((p, token))
    }

    /// Reads a resource (multi round-trip aware).
    pub async fn read_resource(&self, uri: &str) -> Result<Value, Error> {
        let (result, _) = self
            .request_with_input(
                "resources/read",
                json!({"uri": uri}),
                &RequestOptions::default(),
            )
            .await?;
        if !result.get("contents").is_some_and(Value::is_array) {
            return Err(self.invalid("resources/read", "`contents` is missing or not an array"));
        }
        Ok(result)
    }

    /// Gets a prompt (multi round-trip aware).
    pub async fn get_prompt(&self, name: &str, arguments: Option<Value>) -> Result<Value, Error> {
        let mut params = json!({"name": name});
        if let Some(a) = arguments {
            params["arguments"] = a;
        }
        let (result, _) = self
            .request_with_input("prompts/get", params, &RequestOptions::default())
            .await?;
        if !result.get("messages").is_some_and(Value::is_array) {
            return Err(self.invalid("prompts/get", "`messages` is missing or not an array"));
        }
        Ok(result)
    }

    /// `completion/complete` for a prompt (`ref/prompt`) or resource template
    /// (`ref/resource`) argument; returns the `completion` object.
    pub async fn complete(
        &self,
        reference: Value,
        argument: &str,
        value: &str,
        context: Option<Value>,
    ) -> Result<Value, Error> {
        let mut params = json!({"ref": reference, "argument": {"name": argument, "value": value}});
        if let Some(c) = context {
            params["context"] = json!({"arguments": c});
        }
        let result = self
            .session
            .request(
                "completion/complete",
                Some(params),
                &RequestOptions::default(),
            )
            .await?;
        let Some(completion) = result.get("completion") else {
            return Err(self.invalid("completion/complete", "`completion` is missing"));
        };
        match completion.get("values").and_then(Value::as_array) {
            Some(v) if v.len() <= 100 && v.iter().all(Value::is_string) => Ok(completion.clone()),
            Some(v) if v.len() > 100 => Err(self.invalid(
                "completion/complete",
                format!("{} values; at most 100 are allowed", v.len()),
            )),
            _ => Err(self.invalid(
                "completion/complete",
                "`completion.values` is not an array of strings",
            )),
        }
    }

    /// `logging/setLevel` (legacy). In 2026 use [`CallOptions::log_level`] instead.
    pub async fn set_log_level(&self, level: &str) -> Result<(), Error> {
        if self.session.era() == Era::Modern {
            return Err(self.session.error(ErrorKind::Unsupported {
                operation: "logging/setLevel".into(),
                reason: "2026-07-28 has no setLevel; use a request-scoped log level".into(),
            }));
        }
        self.session
            .request(
                "logging/setLevel",
                Some(json!({"level": level})),
                &RequestOptions::default(),
            )
            .await?;
        Ok(())
    }

    fn require_legacy(&self, operation: &str, instead: &str) -> Result<(), Error> {
        if self.session.era() == Era::Modern {
            return Err(self.session.error(ErrorKind::Unsupported {
                operation: operation.into(),
                reason: format!("2026-07-28 removed it; use {instead}"),
            }));
        }
        Ok(())
    }

    /// `resources/subscribe` (legacy; needs `resources.subscribe`).
    pub async fn subscribe(&self, uri: &str) -> Result<(), Error> {
        self.require_legacy("resources/subscribe", "subscriptions/listen")?;
        if !self.server_has(&["resources", "subscribe"]) {
            return Err(self.session.error(ErrorKind::Unsupported {
                operation: "resources/subscribe".into(),
                reason: "the server did not declare resources.subscribe".into(),
            }));
        }
        self.session
            .request(
                "resources/subscribe",
                Some(json!({"uri": uri})),
                &RequestOptions::default(),
            )
            .await?;
        Ok(())
    }

    /// `resources/unsubscribe` (legacy).
    pub async fn unsubscribe(&self, uri: &str) -> Result<(), Error> {
        self.require_legacy("resources/unsubscribe", "cancelling the listen request")?;
        self.session
            .request(
                "resources/unsubscribe",
                Some(json!({"uri": uri})),
                &RequestOptions::default(),
            )
            .await?;
        Ok(())
    }

    /// Opens a `subscriptions/listen` stream (2026) and waits for its acknowledgement, which
    /// must be the first message of the stream.
    pub async fn listen(
        &self,
        notifications: Value,
        timeout: Option<Duration>,
    ) -> Result<Subscription, Error> {
        if self.session.era() != Era::Modern {
            return Err(self.session.error(ErrorKind::Unsupported {
                operation: "subscriptions/listen".into(),
                reason: "it exists from 2026-07-28 on; use resources/subscribe".into(),
            }));
        }
        let ropts = RequestOptions {
            timeout: Some(Duration::from_secs(24 * 3600)),
            ..Default::default()
        };
        let pending = self.session.send(
            "subscriptions/listen",
            Some(json!({"notifications": notifications})),
            &ropts,
        )?;
        let id = pending.id;
        let filter = [Match {
            path: vec!["_meta".into(), meta::ENVELOPE_SUBSCRIPTION_ID.into()],
            value: json!(id),
        }];
        let wait = timeout.unwrap_or(self.session.request_timeout());
        let ack = self
            .session
            .wait_notification("notifications/subscriptions/acknowledged", &filter, wait)
            .await;
        match ack {
            Ok(n) => {
                let acknowledged = n
                    .params
                    .get("notifications")
                    .cloned()
                    .unwrap_or(Value::Null);
                Ok(Subscription {
                    id,
                    acknowledged,
                    pending: Some(pending),
                })
            }
            Err(e) => {
                let _ = self.session.cancel(pending, "no acknowledgement");
                Err(e)
            }
        }
    }

    /// Waits for the next notification of a listen stream (matched by its subscription id).
    pub async fn wait_subscription_notification(
        &self,
        sub: &Subscription,
        method: &str,
        timeout: Duration,
    ) -> Result<Notification, Error> {
        let filter = [Match {
            path: vec!["_meta".into(), meta::ENVELOPE_SUBSCRIPTION_ID.into()],
            value: json!(sub.id),
        }];
        self.session
            .wait_notification(method, &filter, timeout)
            .await
    }

    /// Ends a listen stream from the client side (`notifications/cancelled` on stdio).
    pub fn stop_listen(&self, mut sub: Subscription) -> Result<(), Error> {
        match sub.pending.take() {
            Some(p) => self.session.cancel(p, "client ended the subscription"),
            None => Ok(()),
        }
    }

    // ---- tasks -------------------------------------------------------------------------

    /// `tasks/get`: legacy returns the task fields flat; 2026 returns the detailed task.
    pub async fn task_get(&self, task_id: &str) -> Result<Value, Error> {
        let r = self
            .session
            .request(
                "tasks/get",
                Some(json!({"taskId": task_id})),
                &RequestOptions::default(),
            )
            .await?;
        let task = r.get("task").unwrap_or(&r);
        if task.get("status").and_then(Value::as_str).is_none() {
            return Err(self.invalid("tasks/get", "no string `status`"));
        }
        Ok(r)
    }

    /// `tasks/result` (2025-11-25): blocks until the task ends and returns what the original
    /// request would have returned. Server requests that arrive meanwhile are answered.
    pub async fn task_result(
        &self,
        task_id: &str,
        timeout: Option<Duration>,
    ) -> Result<Value, Error> {
        self.require_legacy("tasks/result", "tasks/get polling")?;
        self.session
            .request(
                "tasks/result",
                Some(json!({"taskId": task_id})),
                &opts(timeout),
            )
            .await
    }

    /// `tasks/list` (2025-11-25), following cursors.
    pub async fn task_list(&self) -> Result<Vec<Value>, Error> {
        self.require_legacy("tasks/list", "tasks/get")?;
        self.list_all("tasks/list", "tasks", None, None).await
    }

    /// `tasks/cancel`.
    pub async fn task_cancel(&self, task_id: &str) -> Result<Value, Error> {
        self.session
            .request(
                "tasks/cancel",
                Some(json!({"taskId": task_id})),
                &RequestOptions::default(),
            )
            .await
    }

    /// `tasks/update` (2026 extension): answers a task's input requests.
    pub async fn task_update(&self, task_id: &str, input_responses: Value) -> Result<Value, Error> {
        self.session
            .request(
                "tasks/update",
                Some(json!({"taskId": task_id, "inputResponses": input_responses})),
                &RequestOptions::default(),
            )
            .await
    }

    /// Polls a 2026 task until it is terminal, answering its input requests (each key once)
    /// with `tasks/update`. Returns the final `tasks/get` result.
    pub async fn task_run_to_end(&self, task_id: &str, timeout: Duration) -> Result<Value, Error> {
        let deadline = Instant::now() + timeout;
        let mut answered: HashSet<String> = HashSet::new();
        loop {
            let r = self.task_get(task_id).await?;
            let task = r.get("task").unwrap_or(&r).clone();
            let status = task
                .get("status")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            match status.as_str() {
                "completed" | "failed" | "cancelled" => return Ok(r),
                "input_required" => {
                    let requests = r
                        .get("inputRequests")
                        .or_else(|| task.get("inputRequests"))
                        .and_then(Value::as_object)
                        .cloned()
                        .unwrap_or_default();
                    let mut responses = Map::new();
                    for (key, req) in requests {
                        if answered.contains(&key) {
                            continue;
                        }
                        let m = req
                            .get("method")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string();
                        let p = req.get("params").cloned().unwrap_or(Value::Null);
                        let answer = self.session.answer_input_request(&m, &p).map_err(|e| {
                            self.input_error("tasks/get", format!("cannot answer {m}: {e}"))
                        })?;
                        responses.insert(key.clone(), answer);
                        answered.insert(key);
                    }
                    if !responses.is_empty() {
                        self.task_update(task_id, Value::Object(responses)).await?;
                    }
                }
                "working" => {}
                other => {
                    return Err(self.invalid("tasks/get", format!("unknown task status {other:?}")));
                }
            }
            if Instant::now() >= deadline {
                return Err(self.session.error(ErrorKind::Timeout {
                    method: "tasks/get (polling)".into(),
                    id: 0,
                    after: timeout,
                }));
            }
            let poll = task
                .get("pollIntervalMs")
                .or_else(|| task.get("pollInterval"))
                .and_then(Value::as_u64)
                .unwrap_or(100)
                .clamp(10, 1000);
            tokio::time::sleep(Duration::from_millis(poll)).await;
        }
    }

    /// True when the 2026 tasks extension is in play on both sides.
    pub fn tasks_extension(&self) -> bool {
        self.server_has_extension(EXT_TASKS) && self.session.behaviour().tasks
    }

    // ---- skills ------------------------------------------------------------------------

    /// `skills/list`, following cursors.
    pub async fn skills_list(&self) -> Result<Vec<Value>, Error> {
        if !self.server_has_extension(EXT_SKILLS) {
            return Err(self.session.error(ErrorKind::Unsupported {
                operation: "skills/list".into(),
                reason: "the server did not declare the skills extension".into(),
            }));
        }
        self.list_all("skills/list", "skills", None, None).await
    }

    /// `skills/get`.
    pub async fn skill_get(&self, uri: &str) -> Result<Value, Error> {
        let r = self
            .session
            .request(
                "skills/get",
                Some(json!({"uri": uri})),
                &RequestOptions::default(),
            )
            .await?;
        match r.get("skill") {
            Some(s) if s.get("uri").and_then(Value::as_str) == Some(uri) => Ok(s.clone()),
            Some(_) => Err(self.invalid(
                "skills/get",
                "the skill's uri differs from the one asked for",
            )),
            None => Err(self.invalid("skills/get", "`skill` is missing")),
        }
    }

    /// Reads every file a skill lists and checks its size and SHA-256 digest. Returns how
    /// many files were verified (0 for `"dynamic"` skills).
    pub async fn verify_skill(&self, skill: &Value) -> Result<usize, Error> {
        let uri = skill
            .get("uri")
            .and_then(Value::as_str)
            .unwrap_or("(no uri)")
            .to_string();
        let name = skill
            .get("frontmatter")
            .and_then(|f| f.get("name"))
            .and_then(Value::as_str);
        let skill_err = |reason: String| {
            self.session.error(ErrorKind::Skill {
                uri: uri.clone(),
                reason,
            })
        };
        if !uri.starts_with("skill://") {
            return Err(skill_err("the uri does not use the skill:// scheme".into()));
        }
        let dir = uri.trim_end_matches("/SKILL.md");
        match name {
            Some(n) if dir.rsplit('/').next() == Some(n) => {}
            Some(n) => {
                return Err(skill_err(format!(
                    "the last path segment is not frontmatter.name {n:?}"
                )));
            }
            None => return Err(skill_err("frontmatter.name is missing".into())),
        }
        let mut files = match skill.get("resources") {
            Some(Value::String(s)) if s == "dynamic" => return Ok(0),
            Some(Value::Array(files)) => files.clone(),
            _ => {
                return Err(skill_err(
                    "`resources` is neither an array nor \"dynamic\"".into(),
                ));
            }
        };
        // SKILL.md first: nothing else is read before its frontmatter is verified.
        files.sort_by_key(|f| f.get("uri").and_then(Value::as_str) != Some(uri.as_str()));
        for f in &files {
            let furi = f
                .get("uri")
                .and_then(Value::as_str)
                .ok_or_else(|| skill_err("a resource entry has no uri".into()))?;
            let digest = f
                .get("digest")
                .and_then(Value::as_str)
                .ok_or_else(|| skill_err(format!("{furi}: no digest")))?;
            let size = f
                .get("size")
                .and_then(Value::as_u64)
                .ok_or_else(|| skill_err(format!("{furi}: no size")))?;
            let read = self.read_resource(furi).await?;
            let bytes = resource_bytes(&read).map_err(|e| skill_err(format!("{furi}: {e}")))?;
            if bytes.len() as u64 != size {
                return Err(skill_err(format!(
                    "{furi}: listed size {size}, read {} bytes",
                    bytes.len()
                )));
            }
            let actual = format!("sha256:{}", hex(&Sha256::digest(&bytes)));
            if actual != digest {
                return Err(skill_err(format!(
                    "{furi}: listed digest {digest}, content hashes to {actual}"
                )));
            }
            if furi == uri {
                let listed = skill.get("frontmatter").cloned().unwrap_or(Value::Null);
                if let Err(reason) = check_frontmatter(&bytes, &listed) {
                    return Err(skill_err(format!("{furi}: {reason}")));
                }
            }
        }
        Ok(files.len())
    }

    // ---- MCP Apps ------------------------------------------------------------------------

    /// Checks a tool's MCP App: `_meta.ui.resourceUri` uses `ui://`, the resource exists and
    /// has the app MIME type, and its CSP fields are lists of strings.
    pub async fn check_app(&self, tool_name: &str) -> Result<AppReport, Error> {
        let tool = self.tool_definition(tool_name).await?.ok_or_else(|| {
            self.session
                .error(ErrorKind::Usage(format!("no tool named {tool_name}")))
        })?;
        let ui = tool.get("_meta").and_then(|m| m.get("ui"));
        let uri = ui
            .and_then(|u| u.get("resourceUri"))
            .or_else(|| tool.get("_meta").and_then(|m| m.get("ui/resourceUri")))
            .and_then(Value::as_str)
            .ok_or_else(|| {
                self.session.error(ErrorKind::App {
                    uri: String::new(),
                    reason: format!("tool {tool_name} has no _meta.ui.resourceUri"),
                })
            })?
            .to_string();
        let app_err = |reason: String| {
            self.session.error(ErrorKind::App {
                uri: uri.clone(),
                reason,
            })
        };
        if !uri.starts_with("ui://") {
            return Err(app_err(
                "the resource uri does not use the ui:// scheme".into(),
            ));
        }
        let visibility: Vec<String> = ui
            .and_then(|u| u.get("visibility"))
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        if visibility.iter().any(|v| v != "model" && v != "app") {
            return Err(app_err(format!(
                "visibility {visibility:?} may hold only \"model\" and \"app\""
            )));
        }
        let read = self.read_resource(&uri).await?;
        let content = read["contents"]
            .get(0)
            .ok_or_else(|| app_err("resources/read returned no contents".into()))?;
        let mime = content
            .get("mimeType")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        if mime != "text/html;profile=mcp-app" {
            return Err(app_err(format!(
                "mimeType is {mime:?}, not \"text/html;profile=mcp-app\""
            )));
        }
        let bytes = resource_bytes(&read).map_err(app_err)?;
        let csp = content
            .get("_meta")
            .and_then(|m| m.get("ui"))
            .and_then(|u| u.get("csp"))
            .cloned();
        if let Some(c) = &csp {
            for field in [
                "connectDomains",
                "resourceDomains",
                "frameDomains",
                "baseUriDomains",
            ] {
                if let Some(v) = c.get(field)
                    && !v.as_array().is_some_and(|a| a.iter().all(Value::is_string))
                {
                    return Err(app_err(format!("csp.{field} is not a list of strings")));
                }
            }
        }
        Ok(AppReport {
            tool: tool_name.into(),
            resource_uri: uri,
            mime_type: mime,
            size: bytes.len(),
            csp,
            visibility,
        })
    }
}

/// The `Mcp-Param-*` headers of a 2026 `tools/call` over HTTP: one per argument whose
/// `inputSchema` property carries `x-mcp-header` (strings as they are, made header-safe;
/// integers in decimal; booleans as `true`/`false`; absent or null arguments left out).
pub fn param_headers(tool: &Value, arguments: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Some(props) = tool
        .get("inputSchema")
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
    else {
        return out;
    };
    for (prop, schema) in props {
        let Some(header) = schema.get("x-mcp-header").and_then(Value::as_str) else {
            continue;
        };
        let value = match arguments.get(prop) {
            Some(Value::String(s)) => crate::transport::http::header_value(s),
            Some(Value::Number(n)) if n.is_i64() || n.is_u64() => n.to_string(),
            Some(Value::Bool(b)) => b.to_string(),
            _ => continue,
        };
        out.push((format!("Mcp-Param-{header}"), value));
    }
    out
}

/// A member of a JSON object, found by comparing names one by one. The objects read on
/// every call (a result, a tool's definition) have a handful of members, and
/// `Value::get` hashes the name first (SipHash), which costs more than the comparisons.
fn field<'v>(value: &'v Value, name: &str) -> Option<&'v Value> {
    value
        .as_object()?
        .iter()
        .find_map(|(k, v)| (k.as_str() == name).then_some(v))
}

/// Whether a result asks for input before the request can finish (2026 multi round-trip).
fn needs_input(result: &Value) -> bool {
    field(result, "resultType").and_then(Value::as_str) == Some("input_required")
}

/// Why a tool's `x-mcp-header` annotations are invalid (2026), if they are: not a header
/// token, duplicated (case-insensitively), on a property that is not a string, integer or
/// boolean, or anywhere but directly on a top-level property.
pub fn invalid_param_headers(tool: &Value) -> Option<String> {
    fn count(v: &Value) -> usize {
        match v {
            Value::Object(o) => o
                .iter()
                .map(|(k, v)| usize::from(k == "x-mcp-header") + count(v))
                .sum(),
            Value::Array(a) => a.iter().map(count).sum(),
            _ => 0,
        }
    }
    let schema = tool.get("inputSchema")?;
    let mut seen = HashSet::new();
    let mut direct = 0;
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (prop, ps) in props {
            let Some(h) = ps.get("x-mcp-header") else {
                continue;
            };
            direct += 1;
            let Some(h) = h.as_str() else {
                return Some(format!("{prop}: x-mcp-header is not a string"));
            };
            let tchar = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
            if h.is_empty() || !h.bytes().all(tchar) {
                return Some(format!("{prop}: x-mcp-header {h:?} is not a header token"));
            }
            if !seen.insert(h.to_ascii_lowercase()) {
                return Some(format!("{prop}: x-mcp-header {h:?} is used twice"));
            }
            match ps.get("type").and_then(Value::as_str) {
                Some("string" | "integer" | "boolean") => {}
                other => {
                    return Some(format!(
                        "{prop}: x-mcp-header on a property of type {}",
                        other.unwrap_or("(none)")
                    ));
                }
            }
        }
    }
    if count(schema) > direct {
        return Some("x-mcp-header inside a nested schema (items, anyOf, $ref, …)".into());
    }
    None
}

/// The bytes of the first content of a `resources/read` result (`text` as UTF-8, `blob`
/// base64-decoded).
pub fn resource_bytes(read: &Value) -> Result<Vec<u8>, String> {
    let c = read
        .get("contents")
        .and_then(|c| c.get(0))
        .ok_or("no contents")?;
    if let Some(t) = c.get("text").and_then(Value::as_str) {
        return Ok(t.as_bytes().to_vec());
    }
    if let Some(b) = c.get("blob").and_then(Value::as_str) {
        return base64::engine::general_purpose::STANDARD
            .decode(b)
            .map_err(|e| format!("blob is not base64: {e}"));
    }
    Err("the content has neither text nor blob".into())
}

/// Compares the YAML frontmatter of a `SKILL.md` with the frontmatter its listing entry
/// declared, field by field (SEP-2640): a field missing on either side or with another
/// value is a discrepancy, and the skill must not be loaded.
pub fn check_frontmatter(skill_md: &[u8], listed: &Value) -> Result<(), String> {
    let text = std::str::from_utf8(skill_md).map_err(|_| "SKILL.md is not UTF-8".to_string())?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    if lines.next().map(str::trim_end) != Some("---") {
        return Err("SKILL.md does not start with a `---` frontmatter block".into());
    }
    let mut yaml = String::new();
    let mut closed = false;
    for line in lines {
        if line.trim_end() == "---" {
            closed = true;
            break;
        }
        yaml.push_str(line);
    }
    if !closed {
        return Err("the frontmatter block of SKILL.md is not closed by `---`".into());
    }
    let parsed: Value = if yaml.trim().is_empty() {
        Value::Object(Map::new())
    } else {
        serde_saphyr::from_str(&yaml)
            .map_err(|e| format!("the frontmatter of SKILL.md is not YAML: {e}"))?
    };
    let (Some(file), Some(entry)) = (parsed.as_object(), listed.as_object()) else {
        return Err(format!(
            "frontmatter to compare is not a mapping (SKILL.md: {}, listing: {})",
            crate::protocol::jsonrpc::kind_of(&parsed),
            crate::protocol::jsonrpc::kind_of(listed)
        ));
    };
    let mut keys: Vec<&String> = entry.keys().chain(file.keys()).collect();
    keys.sort();
    keys.dedup();
    for k in keys {
        match (entry.get(k), file.get(k)) {
            (Some(a), Some(b)) if crate::session::values_equal(a, b) => {}
            (Some(a), Some(b)) => {
                return Err(format!(
                    "frontmatter field {k:?} is {} in SKILL.md but {} in the listing",
                    shorten(&b.to_string(), 200),
                    shorten(&a.to_string(), 200)
                ));
            }
            (Some(_), None) => {
                return Err(format!(
                    "frontmatter field {k:?} of the listing is missing from SKILL.md"
                ));
            }
            (None, _) => {
                return Err(format!(
                    "SKILL.md has frontmatter field {k:?}, which the listing does not declare"
                ));
            }
        }
    }
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The text blocks of a tool result, joined by newlines.
pub fn content_text(result: &Value) -> String {
    result
        .get("content")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|c| c.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// A JSON-RPC error is "method not found".
pub fn is_method_not_found(e: &Error) -> bool {
    e.rpc_error()
        .is_some_and(|r| r.code == codes::METHOD_NOT_FOUND)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skill_frontmatter_is_compared_field_by_field() {
        let entry = json!({"name": "pdf", "description": "Fill PDF forms"});
        let md = |front: &str| format!("---\n{front}---\n\nBody.\n").into_bytes();
        assert_eq!(
            check_frontmatter(&md("name: pdf\ndescription: Fill PDF forms\n"), &entry),
            Ok(())
        );
        let e = check_frontmatter(&md("name: pdf\ndescription: Exfiltrate\n"), &entry).unwrap_err();
        assert!(
            e.contains(
                "field \"description\" is \"Exfiltrate\" in SKILL.md but \"Fill PDF forms\""
            ),
            "{e}"
        );
        let e = check_frontmatter(&md("name: pdf\n"), &entry).unwrap_err();
        assert!(
            e.contains("\"description\" of the listing is missing"),
            "{e}"
        );
        let e = check_frontmatter(
            &md("name: pdf\ndescription: Fill PDF forms\nallowed-tools: Bash\n"),
            &entry,
        )
        .unwrap_err();
        assert!(
            e.contains("\"allowed-tools\", which the listing does not declare"),
            "{e}"
        );
        assert!(
            check_frontmatter(b"no frontmatter", &entry)
                .unwrap_err()
                .contains("does not start")
        );
        assert!(
            check_frontmatter(b"---\nname: pdf\n", &entry)
                .unwrap_err()
                .contains("not closed")
        );
    }

    #[test]
    fn x_mcp_header_rules() {
        let tool = |props: Value| json!({"name": "t", "inputSchema": {"type": "object", "properties": props}});
        let good = tool(
            json!({"region": {"type": "string", "x-mcp-header": "Region"}, "n": {"type": "integer", "x-mcp-header": "N"}, "q": {"type": "string"}}),
        );
        assert_eq!(invalid_param_headers(&good), None);
        let headers = param_headers(&good, &json!({"region": "eu west", "n": 3, "q": "x"}));
        assert_eq!(
            headers,
            vec![
                ("Mcp-Param-Region".to_string(), "eu west".to_string()),
                ("Mcp-Param-N".to_string(), "3".to_string())
            ]
        );
        assert_eq!(
            param_headers(&good, &json!({"region": "é"}))[0].1,
            "=?base64?w6k=?="
        );
        for bad in [
            json!({"a": {"type": "string", "x-mcp-header": ""}}),
            json!({"a": {"type": "string", "x-mcp-header": "Bad Name"}}),
            json!({"a": {"type": "number", "x-mcp-header": "A"}}),
            json!({"a": {"type": "string", "x-mcp-header": "A"}, "b": {"type": "string", "x-mcp-header": "a"}}),
            json!({"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}),
        ] {
            assert!(invalid_param_headers(&tool(bad.clone())).is_some(), "{bad}");
        }
    }

    #[test]
    fn resource_bytes_text_and_blob() {
        assert_eq!(
            resource_bytes(&json!({"contents":[{"uri":"a","text":"hé"}]})).unwrap(),
            "hé".as_bytes()
        );
        assert_eq!(
            resource_bytes(&json!({"contents":[{"uri":"a","blob":"aGk="}]})).unwrap(),
            b"hi"
        );
        assert!(resource_bytes(&json!({"contents":[]})).is_err());
        assert_eq!(hex(&[0, 255, 16]), "00ff10");
        assert_eq!(
            content_text(
                &json!({"content":[{"type":"text","text":"a"},{"type":"image"},{"type":"text","text":"b"}]})
            ),
            "a\nb"
        );
    }
}
