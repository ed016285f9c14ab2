//! The driver's messages (docs/driver.md): a request line read into a [`Request`], and the
//! response written for it, a result or a [`Failure`] with its `kind`, `message`, run-time
//! `code` and `data`.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use crate::error::{Error, ErrorKind};
use crate::redact::Redactor;
use crate::transcript::Direction;

/// The longest request line the driver reads; longer ones are refused and skipped.
pub const MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

/// Most stderr lines a failure carries.
const STDERR_LINES: usize = 20;

/// Most non-protocol stdout lines a failure carries.
pub const NOISE_LINES: usize = 5;

/// A request read from one line.
#[derive(Debug, Clone)]
pub struct Request {
    /// The binding's id (a number or a string), echoed in the response.
    pub id: Value,
    /// The method.
    pub method: String,
    /// The params (an empty object when absent).
    pub params: Value,
}

/// A line that is not a request: the failure to answer with, and the id to answer it
/// under (`null` when the line had no usable id).
#[derive(Debug)]
pub struct Refused {
    /// The id of the response.
    pub id: Value,
    /// Why the line was refused.
    pub failure: Failure,
}

/// Reads a request line.
pub fn parse_request(line: &[u8]) -> Result<Request, Box<Refused>> {
    let refuse = |id: Value, failure: Failure| Box::new(Refused { id, failure });
    let value: Value = serde_json::from_slice(line).map_err(|e| {
        refuse(
            Value::Null,
            Failure::invalid(format!("the line is not JSON: {e}")),
        )
    })?;
    let Value::Object(mut obj) = value else {
        return Err(refuse(
            Value::Null,
            Failure::invalid("the line is not a JSON object"),
        ));
    };
    let id = match obj.remove("id") {
        Some(id @ (Value::Number(_) | Value::String(_))) => id,
        Some(other) => {
            return Err(refuse(
                Value::Null,
                Failure::invalid(format!(
                    "`id` must be a number or a string, not {}",
                    crate::protocol::jsonrpc::described(&other)
                )),
            ));
        }
        None => {
            return Err(refuse(
                Value::Null,
                Failure::invalid("the request has no `id`"),
            ));
        }
    };
    let method = match obj.remove("method") {
        Some(Value::String(m)) => m,
        Some(_) => return Err(refuse(id, Failure::invalid("`method` must be a string"))),
        None => return Err(refuse(id, Failure::invalid("the request has no `method`"))),
    };
    let params = match obj.remove("params") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(p @ Value::Object(_)) => p,
        Some(other) => {
            return Err(refuse(
                id,
                Failure::invalid(format!(
                    "`params` must be an object, not {}",
                    crate::protocol::jsonrpc::described(&other)
                )),
            ));
        }
    };
    if let Some(extra) = obj.keys().next() {
        return Err(refuse(
            id,
            Failure::invalid(format!(
                "unknown member `{extra}` (a request has id, method and params)"
            )),
        ));
    }
    Ok(Request { id, method, params })
}

/// The params of a method as its typed struct; a missing or mistyped member is an
/// `invalid-request` failure that names the method.
pub fn params<T: DeserializeOwned>(method: &str, params: Value) -> Result<T, Failure> {
    serde_json::from_value(params).map_err(|e| Failure::invalid(format!("{method}: {e}")))
}

/// The line of a successful response.
pub fn result_line(id: &Value, result: Value) -> String {
    json!({"id": id, "result": result}).to_string()
}

/// The line of a failed response.
pub fn error_line(id: &Value, failure: &Failure) -> String {
    json!({"id": id, "error": failure.to_json()}).to_string()
}

/// A failed request, as the binding sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// One of the kinds of docs/driver.md (`timeout`, `server-exited`, …).
    pub kind: &'static str,
    /// A sentence for people.
    pub message: String,
    /// mcpr's run-time code, when the failure has one.
    pub code: Option<&'static str>,
    /// What is known besides (`server`, `stderrTail`, `lastMessage`, …); boxed, so that
    /// results with a failure stay small.
    pub data: Box<Map<String, Value>>,
}

impl Failure {
    /// A failure of a kind with a message and no data.
    pub fn new(kind: &'static str, message: impl Into<String>) -> Failure {
        Failure {
            kind,
            message: message.into(),
            code: None,
            data: Box::default(),
        }
    }

    /// A request the driver cannot read.
    pub fn invalid(message: impl Into<String>) -> Failure {
        Failure::new("invalid-request", message)
    }

    /// Adds a member to `data`.
    pub fn with(mut self, key: &str, value: Value) -> Failure {
        self.data.insert(key.to_string(), value);
        self
    }

    /// The error object of the response.
    pub fn to_json(&self) -> Value {
        let mut o = Map::new();
        o.insert("kind".into(), json!(self.kind));
        o.insert("message".into(), json!(self.message));
        if let Some(code) = self.code {
            o.insert("code".into(), json!(code));
        }
        o.insert("data".into(), Value::Object((*self.data).clone()));
        Value::Object(o)
    }

    /// A run-time failure of the runtime, with its context, secrets masked. `noise` is what
    /// the server printed on stdout that is not protocol.
    pub fn from_error(err: &Error, server: &str, noise: &[String], redactor: &Redactor) -> Failure {
        let kind = kind_of(&err.kind);
        let mut f = Failure::new(kind, redactor.text(&err.kind.to_string()));
        f.code = Some(err.code());
        f.data.insert("server".into(), json!(server));
        if let Some(status) = &err.exit_status {
            exit_status(&mut f.data, status);
        }
        if let Some(tail) = &err.stderr_tail {
            f.data
                .insert("stderrTail".into(), json!(tail_lines(tail, redactor)));
        }
        let noise: Vec<String> = noise
            .iter()
            .take(NOISE_LINES)
            .map(|l| redactor.text(l))
            .collect();
        f.data.insert("stdoutNoise".into(), json!(noise));
        if let Some(m) = &err.last_message {
            let direction = match m.direction {
                Direction::Sent => "sent",
                Direction::Received => "received",
            };
            f.data.insert(
                "lastMessage".into(),
                json!({"direction": direction, "kind": m.kind.as_str(), "text": redactor.text(&m.text)}),
            );
        }
        match &err.kind {
            ErrorKind::Rpc { error, .. } => {
                f.data.insert(
                    "error".into(),
                    json!({"code": error.code, "message": error.message, "data": error.data}),
                );
            }
            ErrorKind::WaitTimeout { waiting, more, .. } => {
                let arrived: Vec<Value> = waiting
                    .iter()
                    .map(|(method, params)| json!({"method": method, "params": params}))
                    .collect();
                f.data.insert("arrived".into(), json!(arrived));
                f.data.insert("more".into(), json!(more));
            }
            _ => {}
        }
        f
    }
}

/// `exitStatus` as the runtime words it (`exit status 3`, `killed by signal 9 (SIGKILL)`),
/// and beside it `exitCode` or `signal` as a number, for bindings to word their own way.
pub fn exit_status(data: &mut Map<String, Value>, status: &str) {
    data.insert("exitStatus".into(), json!(status));
    let number = |prefix: &str| {
        status
            .strip_prefix(prefix)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse::<i64>().ok())
    };
    if let Some(code) = number("exit status ") {
        data.insert("exitCode".into(), json!(code));
    } else if let Some(signal) = number("killed by signal ") {
        data.insert("signal".into(), json!(signal));
    }
}

/// The last lines of a stderr tail, secrets masked.
pub fn tail_lines(tail: &str, redactor: &Redactor) -> Vec<String> {
    let lines: Vec<&str> = tail.trim_end_matches('\n').lines().collect();
    let start = lines.len().saturating_sub(STDERR_LINES);
    lines[start..]
        .iter()
        .filter(|l| !l.is_empty() || lines.len() > 1)
        .map(|l| redactor.text(&crate::error::shorten(l, 500)))
        .collect()
}

/// The driver's kind of a run-time failure.
fn kind_of(kind: &ErrorKind) -> &'static str {
    match kind {
        ErrorKind::Spawn { .. }
        | ErrorKind::Handshake { .. }
        | ErrorKind::UnsupportedVersion { .. } => "start-failed",
        ErrorKind::ServerExited { .. } | ErrorKind::Closed => "server-exited",
        ErrorKind::Timeout { .. } | ErrorKind::WaitTimeout { .. } => "timeout",
        ErrorKind::Rpc { .. } => "rpc-error",
        ErrorKind::ToolError { .. } => "tool-error",
        ErrorKind::InvalidResult { .. }
        | ErrorKind::StructuredContent { .. }
        | ErrorKind::RepeatedCursor { .. }
        | ErrorKind::Progress { .. }
        | ErrorKind::InputRequired { .. }
        | ErrorKind::NotJsonRpc { .. }
        | ErrorKind::UnknownResponseId { .. }
        | ErrorKind::DuplicateResponse { .. } => "invalid-result",
        ErrorKind::Usage(_) => "invalid-request",
        _ => "transport",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(line: &str) -> (Value, String) {
        let r = parse_request(line.as_bytes()).expect_err(line);
        assert_eq!(r.failure.kind, "invalid-request", "{line}");
        (r.id, r.failure.message)
    }

    #[test]
    fn a_request_has_an_id_a_method_and_object_params() {
        let r =
            parse_request(br#"{"id": 3, "method": "listTools", "params": {"server": "mcp-1"}}"#)
                .unwrap();
        assert_eq!((r.id, r.method.as_str()), (json!(3), "listTools"));
        assert_eq!(r.params, json!({"server": "mcp-1"}));
        let r = parse_request(br#"{"id": "a", "method": "shutdown"}"#).unwrap();
        assert_eq!(r.params, json!({}));
    }

    #[test]
    fn lines_that_are_not_requests_say_why_and_keep_a_usable_id() {
        assert!(refused("not json").1.contains("not JSON"));
        assert!(refused("[1]").1.contains("not a JSON object"));
        assert_eq!(
            refused(r#"{"method": "x"}"#),
            (Value::Null, "the request has no `id`".into())
        );
        assert_eq!(refused(r#"{"id": true, "method": "x"}"#).0, Value::Null);
        let (id, msg) = refused(r#"{"id": 7}"#);
        assert_eq!(
            (id, msg.as_str()),
            (json!(7), "the request has no `method`")
        );
        let (id, msg) = refused(r#"{"id": 7, "method": "x", "params": [1]}"#);
        assert_eq!(id, json!(7));
        assert!(msg.contains("`params` must be an object"), "{msg}");
        assert!(
            refused(r#"{"id": 7, "method": "x", "jsonrpc": "2.0"}"#)
                .1
                .contains("`jsonrpc`")
        );
    }

    #[test]
    fn failures_carry_the_context_of_the_runtime_error() {
        let mut err = Error::new(ErrorKind::ServerExited {
            during: Some("tools/call".into()),
            status: Some("exit status 3".into()),
        });
        err.exit_status = Some("exit status 3".into());
        err.stderr_tail = Some("booting\nfatal: database not configured\n".into());
        let mut redactor = Redactor::new();
        redactor.add("s3cr3t-value");
        let f = Failure::from_error(&err, "mcp-1", &["hello s3cr3t-value".into()], &redactor);
        assert_eq!(f.kind, "server-exited");
        assert_eq!(f.code, Some("MCP-EXIT-001"));
        assert_eq!(f.data["exitStatus"], "exit status 3");
        assert_eq!(f.data["exitCode"], 3);
        assert_eq!(
            f.data["stderrTail"],
            json!(["booting", "fatal: database not configured"])
        );
        assert!(
            !f.data["stdoutNoise"].to_string().contains("s3cr3t"),
            "{:?}",
            f.data
        );
    }
}
