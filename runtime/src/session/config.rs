//! Settings of a session and of one request.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::behaviour::ClientBehaviour;
use crate::protocol::meta::ClientInfo;
use crate::transcript::Entry;
pub use crate::transport::ShutdownGrace;

/// Which protocol version to speak.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum ProtocolChoice {
    /// Probe with `server/discover`, fall back to `initialize` (mcp-protocol.md §4).
    #[default]
    Auto,
    /// Speak exactly this version (a handshake version runs `initialize`, a modern one runs
    /// `server/discover`); any other outcome is a handshake failure.
    Pinned(String),
    /// Send `initialize` asking for exactly this version, known or not, and take the
    /// handshake version the server offers instead (or follow a -32022 to the stateless
    /// version it names): how `mcpr conformance` checks version negotiation.
    Offered(String),
}

/// Default of [`SessionConfig::max_buffered_bytes`]: 64 MiB.
pub const DEFAULT_BUFFER_BYTES: usize = 64 * 1024 * 1024;

/// Default of [`SessionConfig::max_message_values`]: a million JSON values, about 70 to
/// 150 MB once parsed (a message of 16 MiB could hold eight million).
pub const DEFAULT_MESSAGE_VALUES: usize = 1_000_000;

/// How long a server may take to exit after its stdin closes, and again after SIGTERM,
/// by default: [`ShutdownGrace::Auto`], up to one second but no longer than the server keeps
/// busy. Measured (exit after stdin EOF): the reference server 2 ms, the Node servers
/// server-memory, -filesystem and -sequential-thinking 9-36 ms, Python SDK servers
/// 90-633 ms busy the whole time; server-everything asleep for up to 350 ms on a timer it
/// starts at `initialize` (ended after 20 ms idle instead).
pub const DEFAULT_SHUTDOWN_GRACE: ShutdownGrace = ShutdownGrace::Auto;

/// Settings of a session.
#[derive(Debug, Clone)]
pub struct SessionConfig {
    /// Deadline of each request unless the call says otherwise.
    pub request_timeout: Duration,
    /// Deadline of the whole handshake (probe included).
    pub connect_timeout: Duration,
    /// Longest wait for the `server/discover` probe before falling back to `initialize`.
    pub probe_timeout: Duration,
    /// Grace periods of the shutdown (after stdin EOF, after SIGTERM).
    pub shutdown_grace: ShutdownGrace,
    /// Which version to speak.
    pub protocol: ProtocolChoice,
    /// The client's declarations and canned answers.
    pub behaviour: ClientBehaviour,
    /// The client's name and version.
    pub client_info: ClientInfo,
    /// Stop the session at the first stdout violation (non-JSON line, unknown or duplicate
    /// response id, oversized message, flood). On by default.
    pub strict: bool,
    /// A line on stdout that is not JSON is recorded (a violation, in the transcript) and
    /// skipped instead of stopping the session, even when `strict`: for `mcpr conformance`,
    /// whose `stdio.stdout-clean` check judges such lines once while its other checks judge
    /// the server's protocol behaviour. Off by default.
    pub tolerate_stray_lines: bool,
    /// Most notifications waiting in the inbox before the session counts as flooded.
    pub max_inbox: usize,
    /// Most bytes the session keeps for the test: notifications waiting to be taken, lines
    /// waiting for the server to read them, and the transcript. Past it the session stops
    /// with `MCP-PROTOCOL-012` (the transcript drops its oldest entries instead).
    pub max_buffered_bytes: usize,
    /// Most JSON values one message may hold (every scalar, array and object counts one).
    /// A message with more is discarded unparsed and stops the session with
    /// `MCP-PROTOCOL-013`: the memory one message takes stays bounded, whatever its size.
    pub max_message_values: usize,
    /// Most messages kept in the transcript (older ones are dropped and counted).
    pub transcript_limit: usize,
    /// Declare the tasks capability in `initialize` although the behaviour does not declare
    /// it yet: in the handshake era what `initialize` declares stays declared, so a test
    /// whose task steps turn tasks on later must declare them up front (2026 declares with
    /// every request and needs no such thing).
    pub handshake_tasks: bool,
    /// Called with every transcript entry as it is recorded (live reporting).
    pub observer: Option<Observer>,
    /// Over stdio, on a runtime with one thread (as `mcpr run` runs each test), a wait
    /// reads the answer itself for its first [`FOREGROUND_SLICE`] instead of letting the
    /// session's reader task do it (see [`ForegroundReader`]). On by default; off, every
    /// message goes through the reader task.
    pub foreground_reads: bool,
}

/// How long a wait may read in the foreground before it hands over to the session's
/// reader task, and how long the runtime's other tasks (the transcript observer, other
/// sessions) may wait for a turn while answers are read in the foreground.
pub const FOREGROUND_SLICE: Duration = Duration::from_millis(10);

/// A callback that sees every message of a session, in order, shortly after it is
/// recorded. It runs on a task of its own, so it may block briefly or call the session.
#[derive(Clone)]
pub struct Observer(pub Arc<dyn Fn(&Entry) + Send + Sync>);

impl Observer {
    /// Wraps a closure.
    pub fn new(f: impl Fn(&Entry) + Send + Sync + 'static) -> Observer {
        Observer(Arc::new(f))
    }
}

impl std::fmt::Debug for Observer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Observer(..)")
    }
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            request_timeout: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(30),
            probe_timeout: Duration::from_secs(10),
            shutdown_grace: DEFAULT_SHUTDOWN_GRACE,
            protocol: ProtocolChoice::Auto,
            behaviour: ClientBehaviour::default(),
            client_info: ClientInfo::default(),
            strict: true,
            tolerate_stray_lines: false,
            max_inbox: 50_000,
            max_buffered_bytes: DEFAULT_BUFFER_BYTES,
            max_message_values: DEFAULT_MESSAGE_VALUES,
            transcript_limit: 100_000,
            handshake_tasks: false,
            observer: None,
            foreground_reads: true,
        }
    }
}

/// Per-request options.
#[derive(Debug, Clone, Default)]
pub struct RequestOptions {
    /// Deadline (the session's default when `None`).
    pub timeout: Option<Duration>,
    /// Leave out the 2026 `_meta` envelope (to test how a server reacts).
    pub no_envelope: bool,
    /// 2026: request-scoped log level (`_meta` `io.modelcontextprotocol/logLevel`).
    pub log_level: Option<String>,
    /// A progress token to put in `_meta.progressToken`.
    pub progress_token: Option<Value>,
    /// Each progress notification for the token restarts the deadline (up to `max_total`).
    pub reset_on_progress: bool,
    /// Hard maximum of a request whose deadline progress restarts (10× the deadline when
    /// `None`).
    pub max_total: Option<Duration>,
    /// Extra HTTP headers for this request (ignored on stdio).
    pub http_headers: Vec<(String, String)>,
    /// A fault to inject on this request's answer (docs/faults.md).
    pub fault: Option<super::Fault>,
}
