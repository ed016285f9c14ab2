//! The IR additions that legacy `.mcp` scripts need, executed: tool arguments checked and
//! typed from the input schema (`positional`, `coerce`), tool calls as tasks, the "last
//! response" that `check` and `save-text` steps read, and the native actions `echo`,
//! `prompt`, `queue-answer`, `task-wait`, `skills-list`, `skills-verify` and `apps-verify`
//! (docs/legacy-mcp.md, docs/ir.md).

use std::io::{BufRead, IsTerminal, Write};
use std::time::{Duration, Instant};

use mcpr_compiler::ir::{NativeStep, TaskMode, ToolStep};
use serde_json::{Map, Value, json};

use crate::client::{CallOptions, Client, content_text};
use crate::codes::RunCode;
use crate::error::{Error, ErrorKind};
use crate::protocol::RpcError;
use crate::session::Session;

use super::values::as_text;
use super::{Reply, StepFail, fail};

/// What the last step that talked to the server got back, as legacy checks read it.
#[derive(Debug, Clone)]
pub(super) struct LastResponse {
    /// The reply value (a result, a tool result with `isError`, or `{code, message, data}`).
    pub value: Value,
    /// How to make the text view (see [`LastResponse::text`]): made only when a check reads
    /// it, not after every step.
    pub text: TextView,
    /// A JSON-RPC error, if the request failed with one.
    pub error: Option<Value>,
    /// Whether it was a tool result with `isError: true`.
    pub is_error: bool,
}

/// Where the text view of a [`LastResponse`] comes from.
#[derive(Debug, Clone)]
pub(super) enum TextView {
    /// This text (an error's message).
    Given(String),
    /// The text content of a tool result.
    Content,
    /// The view of a successful result of this method ([`text_view`]).
    Result(String),
}

impl LastResponse {
    /// The response of a step whose request was `method`.
    pub fn of(method: String, reply: &Reply) -> LastResponse {
        match reply {
            Reply::Rpc(e) => LastResponse {
                value: reply.value(),
                text: TextView::Given(e.message.clone()),
                error: Some(json!({"code": e.code, "message": e.message, "data": e.data})),
                is_error: false,
            },
            Reply::ToolError(v) => LastResponse {
                value: v.clone(),
                text: TextView::Content,
                error: None,
                is_error: true,
            },
            Reply::Ok(v) => LastResponse {
                value: v.clone(),
                text: TextView::Result(method),
                error: None,
                is_error: false,
            },
        }
    }

    /// The text view: tool text content, completion values or skill names one per line, an
    /// error's message, or compact JSON.
    pub fn text(&self) -> String {
        match &self.text {
            TextView::Given(text) => text.clone(),
            TextView::Content => content_text(&self.value),
            TextView::Result(method) => text_view(method, &self.value),
        }
    }
}

/// The text of a successful result as `assert_contains`/`assert_equals` see it.
fn text_view(method: &str, v: &Value) -> String {
    let lines = |items: Option<&Value>, key: Option<&str>| -> Option<String> {
        let items = items?.as_array()?;
        Some(
            items
                .iter()
                .map(|i| match key {
                    Some(k) => i.get(k).map(as_text).unwrap_or_default(),
                    None => as_text(i),
                })
                .collect::<Vec<_>>()
                .join("\n"),
        )
    };
    match method {
        "completion/complete" => {
            lines(v.get("completion").and_then(|c| c.get("values")), None).unwrap_or_default()
        }
        "native/skills-list" | "native/skills-verify" => {
            lines(v.get("skills"), Some("name")).unwrap_or_default()
        }
        "native/apps-verify" => lines(v.get("apps"), Some("resourceUri")).unwrap_or_default(),
        _ if v.get("content").is_some_and(Value::is_array) => {
            let text = content_text(v);
            if text.is_empty() {
                match v.get("structuredContent") {
                    Some(s) => s.to_string(),
                    None => v.to_string(),
                }
            } else {
                text
            }
        }
        _ => v.to_string(),
    }
}

/// The value a `check` step without `params` reads: the last response with its text, its
/// JSON, errors, the last task and the last elicitation and sampling requests.
pub(super) fn check_subject(
    last: Option<&LastResponse>,
    task: Option<&Value>,
    session: &Session,
) -> Value {
    let mut o = Map::new();
    if let Some(l) = last {
        let raw = l.value.to_string();
        let text = l.text();
        let text_and_raw = format!("{text}\n{raw}");
        o.insert("text".into(), json!(text));
        o.insert("raw".into(), json!(raw));
        o.insert("textAndRaw".into(), json!(text_and_raw));
        o.insert("result".into(), l.value.clone());
        o.insert("isError".into(), json!(l.is_error));
        if let Some(e) = &l.error {
            o.insert("error".into(), e.clone());
        }
    }
    if let Some(t) = task {
        o.insert("task".into(), t.clone());
    }
    let requests = session.server_requests();
    if let Some(r) = requests
        .iter()
        .rev()
        .find(|r| r.method == "elicitation/create")
    {
        let message = r.params.get("message").map(as_text).unwrap_or_default();
        o.insert("elicited".into(), json!(message));
    }
    if let Some(r) = requests
        .iter()
        .rev()
        .find(|r| r.method == "sampling/createMessage")
    {
        o.insert("sampled".into(), json!(sampling_prompt(&r.params)));
    }
    Value::Object(o)
}

/// The text of a sampling request's messages, one per line.
fn sampling_prompt(params: &Value) -> String {
    let mut out = Vec::new();
    for m in params
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let content = m.get("content");
        let items: Vec<&Value> = match content {
            Some(Value::Array(a)) => a.iter().collect(),
            Some(other) => vec![other],
            None => Vec::new(),
        };
        for c in items {
            if let Some(t) = c.get("text").and_then(Value::as_str) {
                out.push(t.to_string());
            }
        }
    }
    out.join("\n")
}

/// The JSON types a schema property allows, `null` last.
fn schema_types(prop: &Value) -> Vec<String> {
    let mut types: Vec<String> = match prop.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    };
    if types.is_empty() {
        for key in ["anyOf", "oneOf"] {
            for alt in prop
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                types.extend(schema_types(alt));
            }
        }
    }
    types.sort_by_key(|t| t == "null");
    types
}

/// A text value converted to the first type of the property it fits; text that fits none
/// stays text (the server then reports the mismatch).
pub(super) fn coerce(value: Value, prop: &Value) -> Value {
    let Value::String(text) = &value else {
        return value;
    };
    for t in schema_types(prop) {
        let converted = match t.as_str() {
            "string" => return value,
            "integer" => text.trim().parse::<i64>().ok().map(Value::from),
            "number" => match text.trim().parse::<i64>() {
                Ok(i) => Some(Value::from(i)),
                Err(_) => text
                    .trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|f| f.is_finite())
                    .map(Value::from),
            },
            "boolean" => match text.trim() {
                "true" => Some(Value::Bool(true)),
                "false" => Some(Value::Bool(false)),
                _ => None,
            },
            "array" => serde_json::from_str::<Value>(text)
                .ok()
                .filter(Value::is_array),
            "object" => serde_json::from_str::<Value>(text)
                .ok()
                .filter(Value::is_object),
            "null" => (text == "null").then_some(Value::Null),
            _ => None,
        };
        if let Some(v) = converted {
            return v;
        }
    }
    value
}

/// Builds the arguments of a tool step with `positional` and/or `coerce`: named values
/// first, positional values in alphabetical order of the remaining schema properties, each
/// string typed from its property. Fails with the list of valid names on an unknown name or
/// a value too many.
pub(super) async fn tool_arguments(
    client: &Client,
    name: &str,
    named: Map<String, Value>,
    positional: Vec<Value>,
    coerce_values: bool,
) -> Result<Value, StepFail> {
    let definition = match client.tool_definition(name).await {
        Ok(d) => d,
        Err(e) if e.rpc_error().is_some() => None,
        Err(e) => return Err(super::broke(e)),
    };
    let Some(tool) = definition else {
        if positional.is_empty() {
            // Unknown tool: send as written, the server reports it.
            return Ok(Value::Object(named));
        }
        return Err(fail(
            RunCode::ToolArguments,
            format!(
                "tool {name:?} is not in the server's tool list, so its positional arguments cannot be matched to names; name them (name:value)"
            ),
        ));
    };
    let props: Map<String, Value> = tool
        .get("inputSchema")
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut names: Vec<&String> = props.keys().collect();
    names.sort();
    let valid = || {
        if names.is_empty() {
            "it takes no arguments".to_string()
        } else {
            format!(
                "valid names: {}",
                names
                    .iter()
                    .map(|n| n.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    };
    let mut out = Map::new();
    for (key, value) in named {
        let Some(prop) = props.get(&key) else {
            return Err(fail(
                RunCode::ToolArguments,
                format!("tool {name:?} has no argument {key:?}; {}", valid()),
            ));
        };
        let v = if coerce_values {
            coerce(value, prop)
        } else {
            value
        };
        out.insert(key, v);
    }
    let free: Vec<&String> = names
        .iter()
        .copied()
        .filter(|n| !out.contains_key(n.as_str()))
        .collect();
    if positional.len() > free.len() {
        return Err(fail(
            RunCode::ToolArguments,
            format!(
                "tool {name:?} got {} positional values but has only {} free {} ({}); {}",
                positional.len(),
                free.len(),
                if free.len() == 1 {
                    "property"
                } else {
                    "properties"
                },
                free.iter()
                    .map(|n| n.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                valid()
            ),
        ));
    }
    for (key, value) in free.into_iter().zip(positional) {
        let v = if coerce_values {
            coerce(value, &props[key.as_str()])
        } else {
            value
        };
        out.insert(key.clone(), v);
    }
    Ok(Value::Object(out))
}

/// Runs a tool step that has legacy settings; `task` is the last task seen, updated by task
/// calls.
pub(super) async fn call_tool(
    client: &Client,
    t: &ToolStep,
    name: &str,
    arguments: Value,
    opts: &CallOptions,
    timeout: Duration,
    task: &mut Option<Value>,
) -> Result<Reply, StepFail> {
    let Some(mode) = t.task else {
        return match client.call_tool(name, arguments, opts).await {
            Ok(call) if call.is_error => Ok(Reply::ToolError(call.result)),
            Ok(call) => Ok(Reply::Ok(call.result)),
            Err(e) => match e.rpc_error() {
                Some(rpc) => Ok(Reply::Rpc(rpc.clone())),
                None => Err(super::broke(e)),
            },
        };
    };
    // The tasks extension is declared for task commands only.
    let _tasks = TasksDeclared::new(client.session());
    let mut copts = opts.clone();
    copts.task_ttl = Some(None);
    let started = client.call_tool(name, arguments, &copts).await;
    let call = match started {
        Ok(c) => c,
        Err(e) => {
            return match e.rpc_error() {
                Some(rpc) => Ok(Reply::Rpc(rpc.clone())),
                None => Err(super::broke(e)),
            };
        }
    };
    if !call.is_task {
        return Err(fail(
            RunCode::NoTaskHandle,
            format!(
                "tool {name:?} answered directly instead of with a task handle (does the server support the tasks extension for this tool?)"
            ),
        ));
    }
    let handle = call.result.get("task").unwrap_or(&call.result).clone();
    *task = Some(handle.clone());
    let Some(id) = handle
        .get("taskId")
        .and_then(Value::as_str)
        .map(str::to_string)
    else {
        return Err(fail(RunCode::NoTaskHandle, "the task handle has no taskId"));
    };
    match mode {
        TaskMode::Start => Ok(Reply::Ok(handle)),
        TaskMode::Run => {
            let end = client
                .task_run_to_end(&id, timeout)
                .await
                .map_err(task_error)?;
            let end_task = end.get("task").unwrap_or(&end).clone();
            *task = Some(end_task.clone());
            Ok(task_reply(&end_task))
        }
    }
}

/// Declares the tasks extension (2026: with every request) while it lives, as mcp-tester
/// does for its task commands only; plain tool calls stay synchronous.
pub(super) struct TasksDeclared<'a> {
    session: &'a Session,
    before: bool,
}

impl<'a> TasksDeclared<'a> {
    /// Turns the declaration on.
    pub fn new(session: &'a Session) -> TasksDeclared<'a> {
        let mut b = session.behaviour();
        let before = b.tasks;
        if !before {
            b.tasks = true;
            session.set_behaviour(b);
        }
        TasksDeclared { session, before }
    }
}

impl Drop for TasksDeclared<'_> {
    fn drop(&mut self) {
        if !self.before {
            let mut b = self.session.behaviour();
            b.tasks = false;
            self.session.set_behaviour(b);
        }
    }
}

/// A final task as a reply: `completed` gives the tool result, `failed` a JSON-RPC error,
/// anything else the task itself.
fn task_reply(task: &Value) -> Reply {
    match task.get("status").and_then(Value::as_str) {
        Some("completed") => {
            let result = task.get("result").cloned().unwrap_or_else(|| task.clone());
            if result.get("isError") == Some(&Value::Bool(true)) {
                Reply::ToolError(result)
            } else {
                Reply::Ok(result)
            }
        }
        Some("failed") => {
            let e = task.get("error");
            Reply::Rpc(RpcError {
                code: e
                    .and_then(|e| e.get("code"))
                    .and_then(Value::as_i64)
                    .unwrap_or(-32603),
                message: e
                    .and_then(|e| e.get("message"))
                    .and_then(Value::as_str)
                    .unwrap_or("the task failed")
                    .to_string(),
                data: e.and_then(|e| e.get("data")).cloned(),
            })
        }
        _ => Reply::Ok(task.clone()),
    }
}

fn task_error(e: Error) -> StepFail {
    match &e.kind {
        ErrorKind::Timeout { .. } => fail(RunCode::Timeout, e.kind.to_string()),
        _ => super::broke(e),
    }
}

/// `task-wait`: polls `tasks/get` until the task reaches `status` (or, without it, a final
/// status), answering its input requests with the queued answers.
pub(super) async fn task_wait(
    client: &Client,
    n: &NativeStep,
    id: &str,
    timeout: Duration,
    task: &mut Option<Value>,
) -> Result<Reply, StepFail> {
    let _tasks = TasksDeclared::new(client.session());
    let deadline = Instant::now() + timeout;
    let want = n.status();
    loop {
        let r = match client.task_get(id).await {
            Ok(r) => r,
            Err(e) => {
                return match e.rpc_error() {
                    Some(rpc) => Ok(Reply::Rpc(rpc.clone())),
                    None => Err(super::broke(e)),
                };
            }
        };
        let t = r.get("task").unwrap_or(&r).clone();
        *task = Some(t.clone());
        let status = t
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let last = matches!(status.as_str(), "completed" | "failed" | "cancelled");
        match want {
            Some(w) if w == status => return Ok(Reply::Ok(t)),
            None if last => return Ok(task_reply(&t)),
            Some(w) if last => {
                return Err(fail(
                    RunCode::TaskStatus,
                    format!("task {id} ended with status {status}, never reaching {w}"),
                ));
            }
            _ => {}
        }
        if status == "input_required" && want != Some("input_required") {
            // Let the client answer through tasks/update, then keep polling.
            let rest = deadline.saturating_duration_since(Instant::now());
            let end = client.task_run_to_end(id, rest).await.map_err(task_error)?;
            let t = end.get("task").unwrap_or(&end).clone();
            *task = Some(t.clone());
            return match want {
                None => Ok(task_reply(&t)),
                Some(w) if t.get("status").and_then(Value::as_str) == Some(w) => Ok(Reply::Ok(t)),
                Some(w) => Err(fail(
                    RunCode::TaskStatus,
                    format!(
                        "task {id} ended with status {}, never reaching {w}",
                        t.get("status").map(as_text).unwrap_or_default()
                    ),
                )),
            };
        }
        if Instant::now() >= deadline {
            return Err(fail(
                RunCode::Timeout,
                format!(
                    "task {id} is still {status} after {}",
                    crate::error::fmt_duration(timeout)
                ),
            ));
        }
        let poll = t
            .get("pollInterval")
            .or_else(|| t.get("pollIntervalMs"))
            .and_then(Value::as_u64)
            .unwrap_or(100)
            .clamp(10, 1000);
        tokio::time::sleep(Duration::from_millis(poll)).await;
    }
}

/// `skills-list`: `{skills, count}`.
pub(super) async fn skills_list(client: &Client) -> Result<Reply, Error> {
    let skills = client.skills_list().await?;
    let count = skills.len();
    Ok(Reply::Ok(json!({"skills": skills, "count": count})))
}

/// `skills-verify`: reads every file of every skill; the first violation fails the step.
pub(super) async fn skills_verify(client: &Client) -> Result<Reply, StepFail> {
    let skills = client.skills_list().await.map_err(verify_error)?;
    let mut files = 0;
    for s in &skills {
        files += client.verify_skill(s).await.map_err(verify_error)?;
    }
    let count = skills.len();
    Ok(Reply::Ok(
        json!({"skills": skills, "count": count, "files": files}),
    ))
}

/// `apps-verify`: checks the app of every tool that declares one; `{apps, count}`.
pub(super) async fn apps_verify(client: &Client) -> Result<Reply, StepFail> {
    let tools = client.list_tools().await.map_err(verify_error)?;
    let mut apps = Vec::new();
    for t in &tools {
        let meta = t.get("_meta");
        let has_app = meta
            .and_then(|m| m.get("ui"))
            .and_then(|u| u.get("resourceUri"))
            .or_else(|| meta.and_then(|m| m.get("ui/resourceUri")))
            .is_some();
        if !has_app {
            continue;
        }
        let name = t.get("name").and_then(Value::as_str).unwrap_or_default();
        let report = client.check_app(name).await.map_err(verify_error)?;
        apps.push(serde_json::to_value(report).unwrap_or(Value::Null));
    }
    if apps.is_empty() {
        return Err(fail(
            RunCode::NoApps,
            "no tool of the server declares an MCP App (_meta.ui.resourceUri)",
        ));
    }
    let count = apps.len();
    Ok(Reply::Ok(json!({"apps": apps, "count": count})))
}

fn verify_error(e: Error) -> StepFail {
    let code = e.kind.run_code();
    let message = e.kind.to_string();
    let mut f = super::broke(e);
    if !f.broke {
        f.failure.code = code;
        f.failure.message = message;
    }
    f
}

/// `prompt`: asks on the terminal. Fails when stdin is not a terminal or `CI` is set, since
/// nobody could answer.
pub(super) fn prompt(variable: &str, message: Option<&str>) -> Result<String, StepFail> {
    let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false");
    if ci || !std::io::stdin().is_terminal() {
        return Err(fail(
            RunCode::NoTerminal,
            format!(
                "input_var {variable} asks the person at the terminal, but this run is not interactive ({}); set the value in the script with set_var, or run it in a terminal",
                if ci {
                    "CI is set"
                } else {
                    "stdin is not a terminal"
                }
            ),
        ));
    }
    let mut err = std::io::stderr();
    let _ = write!(err, "{}: ", message.unwrap_or(variable));
    let _ = err.flush();
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| fail(RunCode::NoTerminal, format!("cannot read the answer: {e}")))?;
    Ok(line.trim_end_matches(['\n', '\r']).to_string())
}

/// `queue-answer`: the answer a server request of `method` gets next.
pub(super) fn queue_answer(
    session: &Session,
    method: &str,
    params: &Value,
) -> Result<(), StepFail> {
    let answer = match method {
        "elicitation/create" => {
            let action = params
                .get("action")
                .and_then(Value::as_str)
                .unwrap_or("accept");
            let mut a = json!({"action": action});
            if action == "accept" {
                a["content"] = params.get("content").cloned().unwrap_or_else(|| json!({}));
            }
            a
        }
        "sampling/createMessage" => {
            let text = params.get("text").map(as_text).unwrap_or_default();
            let model = params
                .get("model")
                .and_then(Value::as_str)
                .unwrap_or("mcpr-script");
            json!({"role": "assistant", "content": {"type": "text", "text": text}, "model": model, "stopReason": "endTurn"})
        }
        other => {
            return Err(fail(
                RunCode::NativeStep,
                format!(
                    "queue-answer answers elicitation/create or sampling/createMessage, not {other}"
                ),
            ));
        }
    };
    session.queue_answer(method, Ok(answer));
    Ok(())
}

/// `save-text`: the value at the first present path, as text.
pub(super) fn save_text(last: Option<&LastResponse>, paths: &Value) -> Result<String, StepFail> {
    let Some(last) = last else {
        return Err(fail(
            RunCode::Capture,
            "there is no response to read yet: set_var reads the response of an earlier command",
        ));
    };
    let list: Vec<&str> = match paths {
        Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
        Value::String(s) => vec![s.as_str()],
        _ => Vec::new(),
    };
    for p in &list {
        match super::values::lookup(&last.value, p) {
            Ok(Some(Value::Null)) | Ok(None) => continue,
            Ok(Some(v)) => return Ok(as_text(v)),
            Err(e) => return Err(fail(RunCode::Capture, e)),
        }
    }
    Err(fail(
        RunCode::Capture,
        format!(
            "{} is absent in the last response: {}",
            list.join(" and "),
            crate::error::shorten(&last.value.to_string(), 300)
        ),
    ))
}

/// The `subscriptions/listen` stream of a 2026 session and the resource URIs it covers.
pub(super) type Listen = Option<(crate::client::Subscription, Vec<String>)>;

/// 2026 has no `resources/subscribe`: (re)opens the test's listen stream with every list
/// change and the resource URIs subscribed so far plus `uri`.
pub(super) async fn listen(
    client: &Client,
    current: &mut Listen,
    uri: Option<String>,
) -> Result<Value, Error> {
    let mut uris = match current.take() {
        Some((sub, uris)) => {
            client.stop_listen(sub)?;
            uris
        }
        None => Vec::new(),
    };
    if let Some(u) = uri
        && !uris.contains(&u)
    {
        uris.push(u);
    }
    let mut filter = json!({
        "toolsListChanged": true,
        "promptsListChanged": true,
        "resourcesListChanged": true,
    });
    if !uris.is_empty() {
        filter["resourceSubscriptions"] = json!(uris);
    }
    let sub = client.listen(filter, None).await?;
    let acknowledged = sub.acknowledged.clone();
    *current = Some((sub, uris));
    Ok(json!({"acknowledged": acknowledged}))
}

/// Whether a notification method arrives on a 2026 listen stream.
pub(super) fn needs_listen(method: &str) -> bool {
    method.ends_with("/list_changed") || method == "notifications/resources/updated"
}
