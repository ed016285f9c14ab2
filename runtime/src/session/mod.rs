//! One connection to one server: request ids and deadlines, correlation by id, the
//! notification inbox, answers to server→client requests, the era handshake, the transcript,
//! protocol violations, and shutdown. One file per concern:
//!
//! - [`config`]: settings of a session and of a request;
//! - [`behaviour`]: what the client declares and how it answers server requests;
//! - `state`: the shared core under one lock; `pending`: requests awaiting answers;
//! - `send`: ids, lines and posts, the 2026 envelope (`envelope`);
//! - `inbound`: dispatch of what the server sends; `answers`: answers to server requests;
//! - `wait`: waits, deadlines, result checks, cancellation; `inbox`: notification waits;
//! - `progress`: progress tokens; `handshake`: `initialize` / `server/discover`.

mod answers;
pub mod behaviour;
pub mod config;
mod envelope;
mod fault;
mod handshake;
mod inbound;
mod inbox;
mod pending;
mod progress;
mod send;
mod state;
mod wait;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::task::JoinHandle;

use crate::error::{Error, ErrorKind, LastMessage};
use crate::protocol::version::{self, Era};
use crate::transcript::Entry;
use crate::transport::http::{HttpConfig, HttpFailure, HttpSink, HttpWire};
use crate::transport::stdio::{
    ProcessHandle, ShutdownReport, ShutdownStage, StdinWriter, StdioConfig, StdioProcess,
};
pub use answers::ServerRequest;
pub use behaviour::{ClientBehaviour, ElicitationAnswer, Root, SamplingAnswer};
pub use config::{
    FOREGROUND_SLICE, Observer, ProtocolChoice, RequestOptions, SessionConfig, ShutdownGrace,
};
pub use fault::Fault;
pub use handshake::ServerFacts;
pub use inbox::{Match, Notification, values_equal};
pub use pending::{Method, PendingRequest, Started};

use inbound::read_loop;
use state::Inner;

/// A protocol violation noticed on the wire.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Violation {
    /// The `MCP-*` code.
    pub code: crate::codes::RunCode,
    /// What happened.
    pub message: String,
    /// Milliseconds since the session started.
    pub at_ms: u64,
}

/// One live connection to a server.
pub struct Session {
    inner: Arc<Inner>,
    reader: Mutex<Option<JoinHandle<()>>>,
    facts: ServerFacts,
    config: SessionConfig,
    withheld_env: Vec<String>,
    command: String,
    closed: Mutex<Option<ShutdownReport>>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("command", &self.command)
            .field("facts", &self.facts)
            .finish()
    }
}

impl Session {
    /// Starts the server and runs the handshake of the chosen era.
    pub async fn start(stdio: StdioConfig, config: SessionConfig) -> Result<Session, Error> {
        let mut process = StdioProcess::spawn(&stdio)?;
        let writer = match process.stdin.take() {
            Some(stdin) => Some(StdinWriter::new(stdin, config.max_buffered_bytes).map_err(
                |e| {
                    Error::new(ErrorKind::Spawn {
                        command: stdio.display(),
                        reason: format!("cannot write to its stdin: {e}"),
                    })
                },
            )?),
            None => None,
        };
        let inner = Inner::new(
            &config,
            Some(process.handle.clone()),
            writer,
            None,
            stdio.max_message_bytes,
            process.foreground.take(),
        );
        let reader = process
            .stdout
            .take()
            .map(|r| tokio::spawn(read_loop(inner.clone(), r)));
        Session::open(inner, reader, config, process.withheld_env, stdio.display()).await
    }

    /// Connects to a Streamable HTTP endpoint and runs the handshake of the chosen era
    /// (the same probe as on stdio: a 2026 `server/discover`, then `initialize`). When the
    /// endpoint refuses the POST with 400, 404 or 405 and no version was pinned to 2026, the
    /// legacy HTTP+SSE transport is tried on the same URL (mcp-protocol.md §13.2).
    pub async fn start_http(http: HttpConfig, config: SessionConfig) -> Result<Session, Error> {
        let url = http.url.clone();
        let max = http.max_message_bytes;
        let wire = HttpWire::new(http.clone()).map_err(|reason| {
            Error::new(ErrorKind::Http {
                status: None,
                reason,
            })
        })?;
        let inner = Inner::new(&config, None, None, Some(Arc::new(wire)), max, None);
        let modern_pin = matches!(&config.protocol, ProtocolChoice::Pinned(v) if version::era_of(v) == Some(Era::Modern));
        match Session::open(inner, None, config.clone(), Vec::new(), url).await {
            Err(e)
                if !modern_pin
                    && matches!(
                        e.kind,
                        ErrorKind::Http {
                            status: Some(400 | 404 | 405),
                            ..
                        }
                    ) =>
            {
                Session::start_sse(http, config).await.map_err(|sse| {
                    let mut first = e;
                    first.kind = ErrorKind::Http {
                        status: None,
                        reason: format!(
                            "Streamable HTTP failed ({}), and so did HTTP+SSE ({})",
                            first.kind, sse.kind
                        ),
                    };
                    first
                })
            }
            other => other,
        }
    }

    /// Connects with the legacy HTTP+SSE transport (2024-11-05): GET the URL as an event
    /// stream, POST to the endpoint it announces, read every answer from the stream. Only
    /// the handshake era applies.
    pub async fn start_sse(http: HttpConfig, config: SessionConfig) -> Result<Session, Error> {
        let url = http.url.clone();
        let max = http.max_message_bytes;
        let wire = Arc::new(HttpWire::new(http).map_err(|reason| {
            Error::new(ErrorKind::Http {
                status: None,
                reason,
            })
        })?);
        let inner = Inner::new(&config, None, None, Some(wire.clone()), max, None);
        let sink: Arc<dyn HttpSink> = inner.sink();
        if let Err(f) = wire.connect_sse(sink, config.connect_timeout).await {
            wire.abort_all();
            let (status, reason) = match f {
                HttpFailure::Status { status, body } => (Some(status), body),
                HttpFailure::Rpc(e) => (None, e.to_string()),
                HttpFailure::Io(r) | HttpFailure::NoAnswer(r) => (None, r),
                HttpFailure::TooLarge { limit } => (None, format!("an event over {limit} bytes")),
                HttpFailure::SessionExpired { body, .. } => (Some(404), body),
                HttpFailure::Authorization(kind) => return Err(Error::new(*kind)),
                HttpFailure::Unauthorized {
                    status,
                    challenge,
                    body,
                } => {
                    return Err(Error::new(ErrorKind::Unauthorized {
                        status,
                        challenge,
                        body,
                    }));
                }
            };
            return Err(Error::new(ErrorKind::Http { status, reason }));
        }
        Session::open(inner, None, config, Vec::new(), url).await
    }

    async fn open(
        inner: Arc<Inner>,
        reader: Option<JoinHandle<()>>,
        config: SessionConfig,
        withheld_env: Vec<String>,
        command: String,
    ) -> Result<Session, Error> {
        let mut session = Session {
            inner,
            reader: Mutex::new(reader),
            facts: ServerFacts {
                era: Era::Legacy,
                protocol_version: String::new(),
                capabilities: json!({}),
                server_info: Value::Null,
                instructions: None,
                supported_versions: Vec::new(),
                handshake_result: Value::Null,
            },
            config,
            withheld_env,
            command,
            closed: Mutex::new(None),
        };
        match session.handshake().await {
            Ok(facts) => {
                session.facts = facts;
                Ok(session)
            }
            Err(e) => {
                if let Some(handle) = &session.inner.handle {
                    handle.kill_now();
                    handle
                        .shutdown(ShutdownGrace::Fixed(Duration::from_millis(200)))
                        .await;
                }
                if let Some(http) = &session.inner.http {
                    http.abort_all();
                }
                Err(e)
            }
        }
    }

    /// Whether waits read answers in the foreground (see [`SessionConfig::foreground_reads`]):
    /// stdio, a runtime of one thread, and the setting on.
    pub fn reads_in_foreground(&self) -> bool {
        self.inner.foreground.is_some()
    }

    /// Facts from the handshake.
    pub fn facts(&self) -> &ServerFacts {
        &self.facts
    }

    /// True for a Streamable HTTP session.
    pub fn is_http(&self) -> bool {
        self.inner.http.is_some()
    }

    /// Records a rule break that does not stop the session (`MCP-PROTOCOL-011` and the
    /// like), for checks made above the session.
    pub fn note_violation(&self, kind: ErrorKind) {
        if let Ok(mut st) = self.inner.state.lock() {
            self.inner.record_violation(&mut st, &kind, false);
        }
    }

    /// The era in use.
    pub fn era(&self) -> Era {
        self.facts.era
    }

    /// The protocol version in use.
    pub fn protocol_version(&self) -> &str {
        &self.facts.protocol_version
    }

    /// The command line of the server.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// Names of runner environment variables withheld from the server as credentials.
    pub fn withheld_env(&self) -> &[String] {
        &self.withheld_env
    }

    /// The server's process id (also its process group id).
    pub fn pid(&self) -> i32 {
        self.inner.handle.as_ref().map(|h| h.pid).unwrap_or(0)
    }

    /// The session's default request deadline.
    pub fn request_timeout(&self) -> Duration {
        self.config.request_timeout
    }

    /// The client behaviour in force.
    pub fn behaviour(&self) -> ClientBehaviour {
        self.inner.behaviour.lock().expect("behaviour lock").clone()
    }

    /// Replaces the client behaviour from now on (a `configure-client` step): later
    /// server requests are answered with it. In the handshake era what `initialize` declared
    /// stays declared; in 2026 later requests declare the new capabilities.
    pub fn set_behaviour(&self, behaviour: ClientBehaviour) {
        // 2026 declares capabilities with every request: later requests carry the new ones.
        if let Some(env) = self.inner.envelope.lock().expect("envelope lock").as_mut() {
            env.set_capabilities(behaviour.capabilities(Era::Modern));
        }
        *self.inner.behaviour.lock().expect("behaviour lock") = behaviour;
    }

    /// Wraps a failure with this session's context (last message, exit status, stderr).
    pub fn error(&self, kind: ErrorKind) -> Error {
        self.inner.error(kind)
    }

    /// The requests the server sent to the client, with their answers.
    pub fn server_requests(&self) -> Vec<ServerRequest> {
        self.inner
            .state
            .lock()
            .map(|st| st.server_requests.clone())
            .unwrap_or_default()
    }

    /// The protocol violations seen so far.
    pub fn violations(&self) -> Vec<Violation> {
        self.inner
            .state
            .lock()
            .map(|st| st.violations.clone())
            .unwrap_or_default()
    }

    /// The transcript (newest entries, oldest first) and how many were dropped.
    pub fn transcript(&self) -> (Vec<Entry>, u64) {
        self.inner
            .state
            .lock()
            .map(|st| (st.transcript.entries(), st.transcript.dropped()))
            .unwrap_or_default()
    }

    /// The last message sent or received.
    pub fn last_message(&self) -> Option<LastMessage> {
        self.inner.last_message()
    }

    /// The server's stderr tail (at most 64 KiB).
    pub fn stderr_tail(&self) -> String {
        self.inner
            .handle
            .as_ref()
            .map(ProcessHandle::stderr_tail)
            .unwrap_or_default()
    }

    /// The server's stderr tail once the server is gone: after [`Session::close`], waits
    /// (at most 500 ms) until the stream is drained, so the last lines are in it.
    pub async fn final_stderr_tail(&self) -> String {
        if let Some(h) = &self.inner.handle {
            h.wait_stderr_closed(Duration::from_millis(500)).await;
        }
        self.stderr_tail()
    }

    /// Bytes the server wrote on stderr in all.
    pub fn stderr_total(&self) -> u64 {
        self.inner
            .handle
            .as_ref()
            .map(ProcessHandle::stderr_total)
            .unwrap_or(0)
    }

    /// The exit status, if the server has exited.
    pub fn exit_status(&self) -> Option<String> {
        self.inner
            .handle
            .as_ref()
            .and_then(ProcessHandle::exit_description)
    }

    /// Makes the session ready for the next test of a shared run: the notification inbox,
    /// answers queued for server requests, the server requests seen, progress, violations
    /// and the transcript are forgotten, and the client behaviour is `behaviour` again (a
    /// step of the last test may have changed it). What the server keeps (subscriptions, a
    /// log level, its own data) stays as the last test left it.
    pub fn begin_next_test(&self, behaviour: ClientBehaviour) {
        if let Ok(mut st) = self.inner.state.lock() {
            st.inbox.clear();
            st.inbox_bytes = 0;
            st.queued.clear();
            st.server_requests.clear();
            st.progress.clear();
            st.violations.clear();
            st.transcript.clear();
        }
        self.set_behaviour(behaviour);
    }

    /// True while the session can still be used.
    pub fn is_alive(&self) -> bool {
        self.fatal().is_none() && self.closed.lock().map(|c| c.is_none()).unwrap_or(false)
    }

    /// Ends the session: stdin EOF, grace, SIGTERM, grace, SIGKILL, on the whole process
    /// group. Calling it again returns the first report.
    pub async fn close(&self) -> ShutdownReport {
        if let Some(r) = self.closed.lock().expect("closed lock").clone() {
            return r;
        }
        let report = match (&self.inner.handle, &self.inner.http) {
            (Some(handle), _) => {
                let exited_before = handle.exit_status().is_some();
                // The writer writes what is queued, then drops stdin: EOF.
                if let Some(w) = &self.inner.writer {
                    w.close();
                }
                let mut report = handle.shutdown(self.config.shutdown_grace).await;
                if !exited_before && report.stage == ShutdownStage::AlreadyExited {
                    // It exited in the moment between closing stdin and looking.
                    report.stage = ShutdownStage::StdinEof;
                }
                report
            }
            (None, Some(http)) => {
                let start = Instant::now();
                let version = if self.facts.era == Era::Legacy {
                    Some(self.facts.protocol_version.clone())
                } else {
                    None
                };
                let status = http
                    .close(version)
                    .await
                    .map(|s| format!("DELETE answered {s}"));
                ShutdownReport {
                    stage: ShutdownStage::Disconnected,
                    status,
                    elapsed: start.elapsed(),
                    ended_stragglers: false,
                    idle: false,
                }
            }
            (None, None) => ShutdownReport {
                stage: ShutdownStage::Disconnected,
                status: None,
                elapsed: Duration::ZERO,
                ended_stragglers: false,
                idle: false,
            },
        };
        let reader = self.reader.lock().expect("reader lock").take();
        if let Some(reader) = reader {
            // Stdout closes when the group is gone; give the reader a moment to drain.
            let _ = tokio::time::timeout(Duration::from_millis(500), reader).await;
        }
        {
            let mut st = self.inner.state.lock().expect("state lock");
            for slot in st.pending.take_all() {
                let _ = slot.tx.send(Err(ErrorKind::Closed));
            }
        }
        *self.closed.lock().expect("closed lock") = Some(report.clone());
        report
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let closed = self.closed.lock().map(|c| c.is_some()).unwrap_or(false);
        if !closed {
            if let Some(handle) = &self.inner.handle {
                handle.kill_now();
            }
            if let Some(http) = &self.inner.http {
                http.abort_all();
            }
        }
        if let Ok(mut r) = self.reader.lock()
            && let Some(task) = r.take()
        {
            task.abort();
        }
    }
}
