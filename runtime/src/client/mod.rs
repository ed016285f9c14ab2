//! Client operations as library functions, one file per feature over a [`Session`]:
//!
//! - `lists`: lists with cursor following, and the tool definitions they cache;
//! - `tools`: tool calls with the `outputSchema` ⇒ `structuredContent` check and the 2026
//!   `x-mcp-header` parameters;
//! - `input`: multi round-trip requests (2026 `input_required`), and the reads that use them
//!   (resources, prompts) with completion;
//! - `subscriptions`: logging, `resources/subscribe` and the 2026 `subscriptions/listen`;
//! - `tasks`: the 2025-11-25 task methods and the 2026 tasks extension;
//! - `skills` and `apps`: the skills and MCP Apps extensions.
//!
//! A [`Client`] owns its session and hands it out with [`Client::session`] for what is not
//! an operation (facts, transcript, violations, raw requests).

mod apps;
mod input;
mod lists;
mod skills;
mod subscriptions;
mod tasks;
mod tools;

pub use apps::AppReport;
pub use input::MAX_INPUT_ROUNDS;
pub use lists::MAX_PAGES;
pub use skills::{check_frontmatter, resource_bytes};
pub use subscriptions::Subscription;
pub use tools::{CallOptions, ToolCall, invalid_param_headers, param_headers};

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::error::{Error, ErrorKind};
use crate::protocol::jsonrpc::codes;
use crate::protocol::version::Era;
use crate::session::{RequestOptions, Session, SessionConfig};
use crate::transport::stdio::{ShutdownReport, StdioConfig};

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

    /// The keys of a dotted capability path (`resources.subscribe`); after `extensions.`
    /// the rest is one key, an extension id with dots of its own
    /// (`extensions.io.modelcontextprotocol/tasks`).
    pub fn capability_path(capability: &str) -> Vec<&str> {
        match capability.strip_prefix("extensions.") {
            Some(id) if !id.is_empty() => vec!["extensions", id],
            _ => capability.split('.').collect(),
        }
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
                    .request("server/discover", Some(&json!({})), &opts(timeout))
                    .await?;
            }
        }
        Ok(start.elapsed())
    }

    /// A fresh progress token.
    pub fn next_progress_token(&self) -> Value {
        json!(format!(
            "mcpr-progress-{}",
            self.tokens.fetch_add(1, Ordering::Relaxed)
        ))
    }
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
