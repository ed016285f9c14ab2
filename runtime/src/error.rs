//! Named run-time failures. Every failure carries a stable `MCP-*` code, the last MCP message
//! exchanged and, when the server died, its exit status and the tail of its stderr.

use serde_json::Value;
use std::time::Duration;

use crate::codes::RunCode;
use crate::protocol::RpcError;
use crate::transcript::{Direction, MessageKind};

/// What went wrong, with the facts needed to say it precisely.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ErrorKind {
    /// The server command could not be started.
    #[error("could not start MCP server `{command}`: {reason}")]
    Spawn {
        /// The command line.
        command: String,
        /// The operating system's reason.
        reason: String,
    },
    /// The handshake (`initialize` or `server/discover`) did not produce a usable session.
    #[error("MCP handshake failed: {reason}")]
    Handshake {
        /// Why.
        reason: String,
    },
    /// The server offered a protocol version this client cannot use.
    #[error("MCP server answered protocol version {offered:?} to our {requested:?}; {reason}")]
    UnsupportedVersion {
        /// What we asked for.
        requested: String,
        /// What the server answered.
        offered: String,
        /// Why it is unusable.
        reason: String,
    },
    /// No response within the request's deadline.
    #[error("no response to {method} (id {id}) within {}{why}", fmt_duration(*after))]
    Timeout {
        /// The method.
        method: String,
        /// The request id.
        id: i64,
        /// The deadline that passed.
        after: Duration,
        /// Which deadline that was and what sets it (`: the handshake's deadline, …`),
        /// or empty when the caller says so itself.
        why: String,
    },
    /// The server process ended (or closed its stdout) while the session needed it.
    #[error("MCP server exited{}{}", match .during { Some(m) => format!(" during {m}"), None => String::new() }, match .status { Some(s) => format!(" ({s})"), None => " (closed its stdout)".to_string() })]
    ServerExited {
        /// The request in flight, if any.
        during: Option<String>,
        /// The exit status, described (`exit status 1`, `killed by signal 9`).
        status: Option<String>,
    },
    /// A line on stdout that is not a JSON-RPC message.
    #[error("MCP server wrote a line that is not a JSON-RPC message ({why}): {line}")]
    NotJsonRpc {
        /// The line (shortened).
        line: String,
        /// Why it is not a message.
        why: String,
    },
    /// A response to an id this client never used.
    #[error("MCP server answered request id {id}, which this client never sent")]
    UnknownResponseId {
        /// The id, as JSON text.
        id: String,
    },
    /// A message over the size limit.
    #[error(
        "MCP server sent a message of more than {limit} bytes (at least {seen} bytes); it was discarded"
    )]
    MessageTooLarge {
        /// The limit.
        limit: usize,
        /// How much was seen before giving up.
        seen: usize,
    },
    /// A message holding more JSON values than the session's limit.
    #[error(
        "MCP server sent a message of {count} JSON values, more than the limit of {limit} (--max-message-values); it was discarded unparsed"
    )]
    TooManyValues {
        /// The limit.
        limit: usize,
        /// The values the message holds.
        count: usize,
    },
    /// A second response for a request that was already answered.
    #[error("MCP server answered request id {id} a second time")]
    DuplicateResponse {
        /// The id.
        id: i64,
    },
    /// A result that does not have the shape the protocol requires.
    #[error("invalid {method} result: {reason}")]
    InvalidResult {
        /// The method.
        method: String,
        /// What is wrong.
        reason: String,
    },
    /// Progress notifications that break the rules.
    #[error("progress for token {token}: {reason}")]
    Progress {
        /// The token, as JSON text.
        token: String,
        /// What is wrong.
        reason: String,
    },
    /// A list whose cursor came back a second time.
    #[error("{method} returned cursor {cursor:?} a second time; following it would loop forever")]
    RepeatedCursor {
        /// The list method.
        method: String,
        /// The repeated cursor.
        cursor: String,
    },
    /// `outputSchema` declared but `structuredContent` missing or invalid.
    #[error("tool {tool}: {reason}")]
    StructuredContent {
        /// The tool.
        tool: String,
        /// What is wrong.
        reason: String,
    },
    /// Too many notifications waiting in the inbox.
    #[error(
        "MCP server flooded the session: more than {limit} notifications are waiting to be taken"
    )]
    NotificationFlood {
        /// The inbox limit.
        limit: usize,
    },
    /// The session would keep more bytes than its budget.
    #[error(
        "MCP server sent more than the session keeps: {what} passed the budget of {limit} bytes (--max-session-buffer)"
    )]
    BufferBudget {
        /// The budget in bytes.
        limit: usize,
        /// What filled it.
        what: &'static str,
    },
    /// A rule of the protocol version in use was broken (recorded as a violation; the
    /// session goes on).
    #[error("{what}: {reason}")]
    Conformance {
        /// The message or method concerned.
        what: String,
        /// The rule that was broken.
        reason: String,
    },
    /// The server answered with a JSON-RPC error.
    #[error("{method} failed: server answered error {error}")]
    Rpc {
        /// The method.
        method: String,
        /// The error.
        error: RpcError,
    },
    /// A tool result with `isError: true` where success was expected.
    #[error("tool {tool} reported an error: {text}")]
    ToolError {
        /// The tool.
        tool: String,
        /// The text content of the result.
        text: String,
    },
    /// A notification wait that found nothing.
    #[error("no {method:?} notification{} within {}; {}", match .filter { Some(f) => format!(" matching {f}"), None => String::new() }, fmt_duration(*after), describe_waiting(.waiting, *.more))]
    WaitTimeout {
        /// The awaited method.
        method: String,
        /// The match filter, as JSON text.
        filter: Option<String>,
        /// The wait's deadline.
        after: Duration,
        /// The notifications that arrived and are waiting to be taken, oldest first (method
        /// and params), at most [`ARRIVED_SHOWN`] of them.
        waiting: Vec<(String, Value)>,
        /// How many more arrived than `waiting` shows.
        more: usize,
    },
    /// A multi round-trip request that did not converge.
    #[error("{method}: {reason}")]
    InputRequired {
        /// The method.
        method: String,
        /// What went wrong.
        reason: String,
    },
    /// An operation the server did not declare a capability for, or the era forbids.
    #[error("{operation} is not available: {reason}")]
    Unsupported {
        /// The operation.
        operation: String,
        /// Why.
        reason: String,
    },
    /// A skill whose resources do not match their digest or size.
    #[error("skill {uri}: {reason}")]
    Skill {
        /// The skill or file URI.
        uri: String,
        /// What is wrong.
        reason: String,
    },
    /// An MCP Apps (`ui://`) resource that breaks the extension's rules.
    #[error("MCP App resource {uri}: {reason}")]
    App {
        /// The resource URI.
        uri: String,
        /// What is wrong.
        reason: String,
    },
    /// An HTTP exchange failed (status, connection, or a POST without the response).
    #[error("HTTP: {}{reason}", match .status { Some(s) => format!("status {s}: "), None => String::new() })]
    Http {
        /// The status code, when the server answered one.
        status: Option<u16>,
        /// What happened.
        reason: String,
    },
    /// 401 (or 403 with a challenge): the server refused the request's credentials.
    #[error("HTTP status {status}: the server requires {}; {}{}", if *.status == 403 { "other credentials" } else { "authentication" }, match .challenge { Some(c) => format!("WWW-Authenticate: {c}"), None => "it sent no WWW-Authenticate challenge".to_string() }, if .body.is_empty() { String::new() } else { format!("; body: {}", .body) })]
    Unauthorized {
        /// 401 or 403.
        status: u16,
        /// The challenges, described (scheme, realm, error, scope, resource_metadata …).
        challenge: Option<String>,
        /// The start of the body.
        body: String,
    },
    /// The server answered 404 for the session again right after the client initialized
    /// a new one (handshake era): the session cannot be kept.
    #[error("HTTP status 404: the server no longer knows session {session}, and still answered 404 after the client initialized again (new session {}){}", .renewed.as_deref().unwrap_or("without an id"), if .body.is_empty() { String::new() } else { format!("; body: {}", .body) })]
    SessionExpired {
        /// The first session id that expired.
        session: String,
        /// The session id of the re-initialized session, if the server gave one.
        renewed: Option<String>,
        /// The start of the last 404 body.
        body: String,
    },
    /// The `tokenFrom` command is empty.
    #[error("the tokenFrom command of target {target} is empty")]
    TokenCommandEmpty {
        /// The target's URL.
        target: String,
    },
    /// The `tokenFrom` command did not produce a token.
    #[error("the tokenFrom command `{command}` of target {target} {reason}")]
    TokenCommand {
        /// The command as written (after `${env.…}`), never its output.
        command: String,
        /// The target's URL.
        target: String,
        /// What went wrong (exit status and stderr tail, timeout, empty output…).
        reason: String,
    },
    /// The OAuth client flow could not give a request a token (`MCP-AUTH-004` …). The
    /// OAuth client (`crate::auth`) decides the code and the words; the failure carries them
    /// as data, so this module needs nothing of the client.
    #[error("{message}")]
    OAuth {
        /// The registered code of the failed step (`OAuthError::run_code`).
        code: RunCode,
        /// What failed, as the OAuth client says it (never a secret).
        message: String,
    },
    /// The session was closed before or during the operation.
    #[error("the MCP session is closed")]
    Closed,
    /// Writing to the server's stdin failed.
    #[error("could not write to the MCP server's stdin: {reason}")]
    Write {
        /// The operating system's reason.
        reason: String,
    },
    /// Bad input from the caller (not the server's fault).
    #[error("{0}")]
    Usage(String),
}

impl ErrorKind {
    /// The registered code of this failure.
    pub fn run_code(&self) -> RunCode {
        match self {
            ErrorKind::Spawn { .. } => RunCode::Spawn,
            ErrorKind::Handshake { .. } => RunCode::Handshake,
            ErrorKind::UnsupportedVersion { .. } => RunCode::UnsupportedVersion,
            ErrorKind::Timeout { .. } => RunCode::Timeout,
            ErrorKind::ServerExited { .. } => RunCode::ServerExited,
            ErrorKind::NotJsonRpc { .. } => RunCode::NotJsonRpc,
            ErrorKind::UnknownResponseId { .. } => RunCode::UnknownResponseId,
            ErrorKind::MessageTooLarge { .. } => RunCode::MessageTooLarge,
            ErrorKind::TooManyValues { .. } => RunCode::TooManyValues,
            ErrorKind::DuplicateResponse { .. } => RunCode::DuplicateResponse,
            ErrorKind::InvalidResult { .. } => RunCode::InvalidResult,
            ErrorKind::Progress { .. } => RunCode::BadProgress,
            ErrorKind::RepeatedCursor { .. } => RunCode::RepeatedCursor,
            ErrorKind::StructuredContent { .. } => RunCode::StructuredContent,
            ErrorKind::NotificationFlood { .. } => RunCode::NotificationFlood,
            ErrorKind::BufferBudget { .. } => RunCode::BufferBudget,
            ErrorKind::InputRequired { .. } => RunCode::InputRequired,
            ErrorKind::Conformance { .. } => RunCode::Conformance,
            ErrorKind::Rpc { .. } => RunCode::RpcError,
            ErrorKind::ToolError { .. } => RunCode::ToolError,
            ErrorKind::WaitTimeout { .. } => RunCode::NoNotification,
            ErrorKind::Unsupported { .. } => RunCode::Unsupported,
            ErrorKind::Skill { .. } => RunCode::Skill,
            ErrorKind::App { .. } => RunCode::App,
            ErrorKind::Http { .. } => RunCode::Http,
            ErrorKind::SessionExpired { .. } => RunCode::SessionExpired,
            ErrorKind::TokenCommandEmpty { .. } => RunCode::TokenCommandEmpty,
            ErrorKind::TokenCommand { .. } => RunCode::TokenCommand,
            ErrorKind::Unauthorized { .. } => RunCode::Unauthorized,
            ErrorKind::OAuth { code, .. } => *code,
            ErrorKind::Closed => RunCode::Closed,
            ErrorKind::Write { .. } => RunCode::Write,
            ErrorKind::Usage(_) => RunCode::Usage,
        }
    }

    /// The stable code of this failure (`MCP-TIMEOUT-001`, …), as the registry spells it.
    pub fn code(&self) -> &'static str {
        self.run_code().as_str()
    }
}

/// Most notifications a wait timeout lists.
pub const ARRIVED_SHOWN: usize = 5;

/// Most characters of one notification's params in a wait timeout.
const PARAMS_SHOWN: usize = 200;

fn describe_waiting(waiting: &[(String, Value)], more: usize) -> String {
    if waiting.is_empty() {
        return "no other notification arrived (none is waiting to be taken)".into();
    }
    let parts: Vec<String> = waiting
        .iter()
        .map(|(m, params)| {
            if params.is_null() {
                m.clone()
            } else {
                format!("{m} {}", shorten(&params.to_string(), PARAMS_SHOWN))
            }
        })
        .collect();
    let tail = if more > 0 {
        format!("; and {more} more")
    } else {
        String::new()
    };
    format!(
        "arrived and waiting to be taken: {}{tail}",
        parts.join("; ")
    )
}

/// Formats a duration the way failure messages show it (`300ms`, `2s`, `1.5s`).
pub fn fmt_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{:.1}s", d.as_secs_f64())
    }
}

/// The last MCP message of the session, as sent or received.
#[derive(Debug, Clone, PartialEq)]
pub struct LastMessage {
    /// Sent or received.
    pub direction: Direction,
    /// `request`, `response`, `notification`, `error`…
    pub kind: MessageKind,
    /// The message as it went over the wire (shortened when huge).
    pub text: String,
}

impl LastMessage {
    /// The last message, from a transcript entry's parts.
    pub fn new(direction: Direction, kind: MessageKind, text: &str) -> LastMessage {
        LastMessage {
            direction,
            kind,
            text: shorten(text, 2000),
        }
    }
}

/// The facts of a failure.
#[derive(Debug, Clone)]
pub struct ErrorInfo {
    /// What happened.
    pub kind: ErrorKind,
    /// The last MCP message sent or received before the failure.
    pub last_message: Option<LastMessage>,
    /// The server's exit status, when it is dead.
    pub exit_status: Option<String>,
    /// The tail of the server's stderr (at most 64 KiB), when it is dead or did not start.
    pub stderr_tail: Option<String>,
}

/// A failure: what happened plus the context a reader needs to act on it. (Boxed, so that
/// results stay small; the fields are reached through `Deref`.)
#[derive(Debug, Clone)]
pub struct Error(Box<ErrorInfo>);

impl std::ops::Deref for Error {
    type Target = ErrorInfo;
    fn deref(&self) -> &ErrorInfo {
        &self.0
    }
}

impl std::ops::DerefMut for Error {
    fn deref_mut(&mut self) -> &mut ErrorInfo {
        &mut self.0
    }
}

impl Error {
    /// A failure without context.
    pub fn new(kind: ErrorKind) -> Error {
        Error(Box::new(ErrorInfo {
            kind,
            last_message: None,
            exit_status: None,
            stderr_tail: None,
        }))
    }

    /// The stable code (`MCP-TIMEOUT-001`, …).
    pub fn code(&self) -> &'static str {
        self.kind.code()
    }

    /// The JSON-RPC error the server answered, if this is one.
    pub fn rpc_error(&self) -> Option<&RpcError> {
        match &self.kind {
            ErrorKind::Rpc { error, .. } => Some(error),
            _ => None,
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code(), self.kind)?;
        match &self.last_message {
            Some(m) => {
                let dir = match m.direction {
                    Direction::Sent => "sent",
                    Direction::Received => "received",
                };
                write!(f, "\nlast MCP message ({dir}, {}): {}", m.kind, m.text)?;
            }
            None => write!(f, "\nlast MCP message: none was exchanged")?,
        }
        if let Some(status) = &self.exit_status {
            write!(f, "\nserver exit status: {status}")?;
        }
        if let Some(tail) = &self.stderr_tail {
            if tail.is_empty() {
                write!(f, "\nserver stderr: (empty)")?;
            } else {
                let shown = tail_lines(tail, 20);
                write!(f, "\nserver stderr (last lines):\n{shown}")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Error {
        Error::new(kind)
    }
}

/// Cuts text to at most `max` bytes (on a char boundary), marking the cut.
pub fn shorten(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes in all)", &text[..end], text.len())
}

fn tail_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.trim_end_matches('\n').lines().collect();
    let start = lines.len().saturating_sub(n);
    lines[start..]
        .iter()
        .map(|l| format!("  {}", shorten(l, 500)))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_quotes_last_message_and_code() {
        let mut e = Error::new(ErrorKind::Timeout {
            method: "tools/call".into(),
            id: 3,
            after: Duration::from_millis(300),
            why: String::new(),
        });
        e.last_message = Some(LastMessage {
            direction: Direction::Sent,
            kind: MessageKind::Request,
            text: "{\"id\":3}".into(),
        });
        let s = e.to_string();
        assert!(
            s.starts_with("MCP-TIMEOUT-001: no response to tools/call (id 3) within 300ms"),
            "{s}"
        );
        assert!(
            s.contains("last MCP message (sent, request): {\"id\":3}"),
            "{s}"
        );
    }

    #[test]
    fn wait_timeout_lists_waiting() {
        let k = ErrorKind::WaitTimeout {
            method: "notifications/message".into(),
            filter: Some("{\"data.echoed\":\"never\"}".into()),
            after: Duration::from_millis(300),
            waiting: vec![],
            more: 0,
        };
        assert_eq!(
            k.to_string(),
            "no \"notifications/message\" notification matching {\"data.echoed\":\"never\"} within 300ms; no other notification arrived (none is waiting to be taken)"
        );
        let k = ErrorKind::WaitTimeout {
            method: "notifications/progress".into(),
            filter: Some("{\"data.status\":\"done\"}".into()),
            after: Duration::from_secs(2),
            waiting: vec![
                (
                    "notifications/progress".into(),
                    serde_json::json!({"data": {"status": "running"}}),
                ),
                ("notifications/tools/list_changed".into(), Value::Null),
            ],
            more: 3,
        };
        assert_eq!(
            k.to_string(),
            "no \"notifications/progress\" notification matching {\"data.status\":\"done\"} within 2s; arrived and waiting to be taken: notifications/progress {\"data\":{\"status\":\"running\"}}; notifications/tools/list_changed; and 3 more"
        );
    }

    #[test]
    fn shorten_respects_char_boundaries() {
        assert_eq!(shorten("héllo", 2), "h… (6 bytes in all)");
        assert_eq!(shorten("abc", 5), "abc");
        assert_eq!(fmt_duration(Duration::from_millis(1500)), "1.5s");
    }
}
