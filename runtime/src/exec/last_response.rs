//! The "last response" that `check` and `save-text` steps read: the response of the last
//! step that talked to the server, with the text view mcp-tester scripts compare against.

use serde_json::{Map, Value, json};

use crate::codes::RunCode;

use super::{Reply, StepFail, fail};
use crate::client::content_text;
use crate::session::Session;
use crate::values::as_text;

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
    /// A last response that is an error with only a message (a failed check, a request
    /// that ran out of time), as mcp-tester's client reports one.
    pub(super) fn error(message: String) -> LastResponse {
        LastResponse {
            value: json!({"code": null, "message": message}),
            text: TextView::Given(message.clone()),
            error: Some(json!({"code": null, "message": message})),
            is_error: false,
        }
    }

    /// The response of a step whose request was `method`.
    pub fn of(method: String, reply: Reply) -> LastResponse {
        match reply {
            Reply::Rpc(ref e) => LastResponse {
                value: reply.value(),
                text: TextView::Given(e.message.clone()),
                error: Some(json!({"code": e.code, "message": e.message, "data": e.data})),
                is_error: false,
            },
            Reply::ToolError(v) => LastResponse {
                value: v,
                text: TextView::Content,
                error: None,
                is_error: true,
            },
            Reply::Ok(v) => LastResponse {
                value: v,
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
pub(super) fn text_view(method: &str, v: &Value) -> String {
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
        // mcp-tester searches its response indented (`"sum": 30`); the compact form is
        // searched too, so both spellings are found.
        let indented = serde_json::to_string_pretty(&l.value).unwrap_or_default();
        let text_and_raw = format!("{text}\n{raw}\n{indented}");
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
pub(super) fn sampling_prompt(params: &Value) -> String {
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
        match crate::values::lookup(&last.value, p) {
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
