//! One connection to one server: request ids and deadlines, correlation by id, the
//! notification inbox, answers to server→client requests, the era handshake, the transcript,
//! protocol violations, and shutdown.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};
use tokio::sync::{Notify, mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::error::{Error, ErrorKind, LastMessage, shorten};
use crate::protocol::jsonrpc::{self, IdKey, Incoming, RpcError, codes};
use crate::protocol::meta::{self, ClientInfo, EXT_TASKS};
use crate::protocol::version::{self, Era};
use crate::transcript::{Direction, Entry, Transcript};
use crate::transport::http::{HttpConfig, HttpFailure, HttpSink, HttpWire, MessageInfo};
use crate::transport::stdio::{
    Foreground, ForegroundReader, Frame, LineReader, ProcessHandle, ShutdownReport, ShutdownStage,
    StdinWriter, StdioConfig, StdioProcess, WriteFailure,
};

/// Which protocol version to speak.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum ProtocolChoice {
    /// Probe with `server/discover`, fall back to `initialize` (mcp-protocol.md §4).
    #[default]
    Auto,
    /// Speak exactly this version (a handshake version runs `initialize`, a modern one runs
    /// `server/discover`); any other outcome is a handshake failure.
    Pinned(String),
}

/// A root the client exposes.
#[derive(Debug, Clone, PartialEq)]
pub struct Root {
    /// `file://…` URI.
    pub uri: String,
    /// Optional name.
    pub name: Option<String>,
}

/// How the client answers `sampling/createMessage`.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingAnswer {
    /// The assistant's text.
    pub text: String,
    /// The model name reported.
    pub model: String,
    /// The stop reason reported.
    pub stop_reason: String,
}

impl Default for SamplingAnswer {
    fn default() -> Self {
        SamplingAnswer {
            text: "sampled text".into(),
            model: "mcpr-canned".into(),
            stop_reason: "endTurn".into(),
        }
    }
}

/// How the client answers `elicitation/create`.
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitationAnswer {
    /// `accept`, `decline` or `cancel`.
    pub action: String,
    /// The form content sent with `accept`.
    pub content: Option<Value>,
    /// Whether URL-mode elicitation is declared and accepted.
    pub url_mode: bool,
}

impl Default for ElicitationAnswer {
    fn default() -> Self {
        ElicitationAnswer {
            action: "accept".into(),
            content: Some(json!({})),
            url_mode: false,
        }
    }
}

/// What the client declares and how it answers the server's requests.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClientBehaviour {
    /// Roots (declares `roots`), or none.
    pub roots: Option<Vec<Root>>,
    /// Sampling answer (declares `sampling`), or none.
    pub sampling: Option<SamplingAnswer>,
    /// Elicitation answer (declares `elicitation`), or none.
    pub elicitation: Option<ElicitationAnswer>,
    /// Declare tasks (2025-11-25 `tasks` capability; 2026 tasks extension).
    pub tasks: bool,
    /// Further extensions to declare (`io.modelcontextprotocol/ui` …).
    pub extensions: Map<String, Value>,
    /// Answer sampling and elicitation only with queued answers: without one the request
    /// fails (legacy scripts prepare every answer before the call).
    pub prepared_answers_only: bool,
}

impl ClientBehaviour {
    /// Everything declared, with canned answers: for tests and interop runs.
    pub fn everything() -> ClientBehaviour {
        let mut extensions = Map::new();
        extensions.insert(
            meta::EXT_UI.into(),
            json!({"mimeTypes": ["text/html;profile=mcp-app"]}),
        );
        ClientBehaviour {
            roots: Some(vec![Root {
                uri: "file:///tmp/mcpr-root".into(),
                name: Some("mcpr root".into()),
            }]),
            sampling: Some(SamplingAnswer::default()),
            elicitation: Some(ElicitationAnswer {
                action: "accept".into(),
                content: Some(json!({})),
                url_mode: true,
            }),
            tasks: true,
            extensions,
            prepared_answers_only: false,
        }
    }

    /// The capabilities object for `initialize` (legacy) or the envelope (modern).
    pub fn capabilities(&self, era: Era) -> Value {
        let mut caps = Map::new();
        if self.roots.is_some() {
            caps.insert(
                "roots".into(),
                if era == Era::Legacy {
                    json!({"listChanged": true})
                } else {
                    json!({})
                },
            );
        }
        if self.sampling.is_some() {
            caps.insert("sampling".into(), json!({}));
        }
        if let Some(e) = &self.elicitation {
            caps.insert(
                "elicitation".into(),
                if e.url_mode {
                    json!({"form": {}, "url": {}})
                } else {
                    json!({"form": {}})
                },
            );
        }
        let mut extensions = self.extensions.clone();
        if self.tasks {
            if era == Era::Legacy {
                caps.insert("tasks".into(), json!({"list": {}, "cancel": {}}));
            }
            extensions.insert(EXT_TASKS.into(), json!({}));
        }
        if !extensions.is_empty() {
            caps.insert("extensions".into(), Value::Object(extensions));
        }
        Value::Object(caps)
    }

    /// The answer to one server→client request (legacy) or input request (modern).
    pub fn answer(&self, method: &str, params: &Value) -> Result<Value, RpcError> {
        let not_supported = |what: &str| RpcError {
            code: codes::METHOD_NOT_FOUND,
            message: format!("the client does not support {what}"),
            data: None,
        };
        match method {
            "ping" => Ok(json!({})),
            "roots/list" => match &self.roots {
                Some(roots) => Ok(json!({"roots": roots.iter().map(|r| {
                    let mut o = json!({"uri": r.uri});
                    if let Some(n) = &r.name { o["name"] = json!(n); }
                    o
                }).collect::<Vec<_>>()})),
                None => Err(not_supported("roots")),
            },
            "sampling/createMessage" | "elicitation/create" if self.prepared_answers_only => {
                let (what, command) = if method == "sampling/createMessage" {
                    ("sampling", "sample_response")
                } else {
                    ("elicitation", "elicit_response")
                };
                Err(RpcError {
                    code: codes::INTERNAL_ERROR,
                    message: format!(
                        "no answer prepared for this {what} request (queue one with {command} before the call)"
                    ),
                    data: None,
                })
            }
            "sampling/createMessage" => match &self.sampling {
                Some(s) => Ok(
                    json!({"role": "assistant", "content": {"type": "text", "text": s.text}, "model": s.model, "stopReason": s.stop_reason}),
                ),
                None => Err(not_supported("sampling")),
            },
            "elicitation/create" => match &self.elicitation {
                Some(e) => {
                    let mode = params.get("mode").and_then(Value::as_str).unwrap_or("form");
                    if mode == "url" && !e.url_mode {
                        return Err(RpcError {
                            code: codes::INVALID_PARAMS,
                            message: "the client did not declare URL-mode elicitation".into(),
                            data: None,
                        });
                    }
                    let mut out = json!({"action": e.action});
                    if e.action == "accept" && mode == "form" {
                        let mut content = e.content.clone().unwrap_or_else(|| json!({}));
                        // SEP-1034: fields the answer leaves out take the schema's defaults.
                        if let (Some(obj), Some(props)) = (
                            content.as_object_mut(),
                            params
                                .get("requestedSchema")
                                .and_then(|s| s.get("properties"))
                                .and_then(Value::as_object),
                        ) {
                            for (name, prop) in props {
                                if let Some(default) = prop.get("default")
                                    && !obj.contains_key(name)
                                {
                                    obj.insert(name.clone(), default.clone());
                                }
                            }
                        }
                        out["content"] = content;
                    }
                    Ok(out)
                }
                None => Err(not_supported("elicitation")),
            },
            other => Err(RpcError {
                code: codes::METHOD_NOT_FOUND,
                message: format!("Method not found: {other}"),
                data: None,
            }),
        }
    }
}

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
    pub shutdown_grace: Duration,
    /// Which version to speak.
    pub protocol: ProtocolChoice,
    /// The client's declarations and canned answers.
    pub behaviour: ClientBehaviour,
    /// The client's name and version.
    pub client_info: ClientInfo,
    /// Stop the session at the first stdout violation (non-JSON line, unknown or duplicate
    /// response id, oversized message, flood). On by default.
    pub strict: bool,
    /// Most notifications waiting in the inbox before the session counts as flooded.
    pub max_inbox: usize,
    /// Most messages kept in the transcript (older ones are dropped and counted).
    pub transcript_limit: usize,
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

/// How long a request that could not be written waits for the server's exit to explain it.
const UNSENT_GRACE: Duration = Duration::from_secs(2);

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
            shutdown_grace: Duration::from_secs(2),
            protocol: ProtocolChoice::Auto,
            behaviour: ClientBehaviour::default(),
            client_info: ClientInfo::default(),
            strict: true,
            max_inbox: 50_000,
            transcript_limit: 100_000,
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
}

/// A protocol violation noticed on the wire.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Violation {
    /// The `MCP-*` code.
    pub code: &'static str,
    /// What happened.
    pub message: String,
    /// Milliseconds since the session started.
    pub at_ms: u64,
}

/// A notification in the inbox.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Notification {
    /// Its method.
    pub method: String,
    /// Its params (`null` when absent).
    pub params: Value,
    /// Milliseconds since the session started.
    pub at_ms: u64,
}

/// A request the server sent to the client, with the answer it got.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ServerRequest {
    /// The method.
    pub method: String,
    /// The params.
    pub params: Value,
    /// The result sent back, or the error as `{"error": …}`.
    pub answer: Value,
    /// Whether a queued per-step answer was used.
    pub queued: bool,
    /// Milliseconds since the session started.
    pub at_ms: u64,
}

/// A scalar match at a path of a notification's params.
#[derive(Debug, Clone, PartialEq)]
pub struct Match {
    /// Path segments (object keys, or array indices as decimal text).
    pub path: Vec<String>,
    /// The expected value (numbers compare numerically, types otherwise strictly).
    pub value: Value,
}

impl Match {
    /// A match at a dot path (`data.status`).
    pub fn dotted(path: &str, value: Value) -> Match {
        Match {
            path: path.split('.').map(str::to_string).collect(),
            value,
        }
    }

    /// True when `params` holds the value at the path.
    pub fn matches(&self, params: &Value) -> bool {
        let mut cur = params;
        for seg in &self.path {
            cur = match cur {
                Value::Object(o) => match o.get(seg) {
                    Some(v) => v,
                    None => return false,
                },
                Value::Array(a) => match seg.parse::<usize>().ok().and_then(|i| a.get(i)) {
                    Some(v) => v,
                    None => return false,
                },
                _ => return false,
            };
        }
        values_equal(cur, &self.value)
    }
}

/// Type-sensitive equality where numbers compare by value (`1` equals `1.0`).
pub fn values_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(i), Some(j)) => i == j,
            _ => x.as_f64() == y.as_f64(),
        },
        _ => a == b,
    }
}

fn filter_text(filter: &[Match]) -> Option<String> {
    if filter.is_empty() {
        return None;
    }
    let mut o = Map::new();
    for m in filter {
        o.insert(m.path.join("."), m.value.clone());
    }
    Some(Value::Object(o).to_string())
}

struct PendingSlot {
    method: Method,
    log_level: bool,
    tx: oneshot::Sender<Result<Result<Value, RpcError>, ErrorKind>>,
}

/// The params to change, copied now if they were borrowed.
fn edit<'v>(params: &'v mut Option<Cow<'_, Value>>) -> &'v mut Value {
    params.get_or_insert_with(|| Cow::Owned(json!({}))).to_mut()
}

/// A request's method: the methods this client sends are not copied per request.
pub type Method = Cow<'static, str>;

/// `method` as a [`Method`].
fn method_name(method: &str) -> Method {
    const SENT: [&str; 22] = [
        "tools/call",
        "tools/list",
        "resources/read",
        "resources/list",
        "resources/templates/list",
        "resources/subscribe",
        "resources/unsubscribe",
        "prompts/get",
        "prompts/list",
        "completion/complete",
        "logging/setLevel",
        "ping",
        "initialize",
        "server/discover",
        "subscriptions/listen",
        "tasks/get",
        "tasks/result",
        "tasks/list",
        "tasks/cancel",
        "tasks/update",
        "skills/list",
        "skills/get",
    ];
    match SENT.iter().find(|m| **m == method) {
        Some(m) => Cow::Borrowed(m),
        None => Cow::Owned(method.to_string()),
    }
}

/// The requests awaiting an answer, by id. Ids are handed out in increasing order and
/// added as they are, so the list stays sorted; a session rarely has more than a few in
/// flight, and a sorted list is less code and memory on every call than a tree.
#[derive(Default)]
struct Pending(Vec<(i64, PendingSlot)>);

impl Pending {
    fn insert(&mut self, id: i64, slot: PendingSlot) {
        match self.0.last() {
            Some((last, _)) if *last >= id => {
                let at = self.0.partition_point(|(i, _)| *i < id);
                if self.0.get(at).is_some_and(|(i, _)| *i == id) {
                    self.0[at].1 = slot;
                } else {
                    self.0.insert(at, (id, slot));
                }
            }
            _ => self.0.push((id, slot)),
        }
    }

    fn position(&self, id: i64) -> Option<usize> {
        // The newest request is the likeliest to be answered: look there first.
        match self.0.last() {
            Some((last, _)) if *last == id => Some(self.0.len() - 1),
            _ => self.0.binary_search_by_key(&id, |(i, _)| *i).ok(),
        }
    }

    fn remove(&mut self, id: i64) -> Option<PendingSlot> {
        self.position(id).map(|at| self.0.remove(at).1)
    }

    fn contains(&self, id: i64) -> bool {
        self.position(id).is_some()
    }

    fn slots(&self) -> impl Iterator<Item = &PendingSlot> {
        self.0.iter().map(|(_, slot)| slot)
    }

    /// Empties the list, handing out every slot.
    fn take_all(&mut self) -> impl Iterator<Item = PendingSlot> + use<> {
        std::mem::take(&mut self.0)
            .into_iter()
            .map(|(_, slot)| slot)
    }
}

struct ProgressState {
    last: Option<f64>,
    last_at: Option<Instant>,
    events: Vec<Value>,
    problems: Vec<String>,
}

struct State {
    next_id: i64,
    pending: Pending,
    // An ordered set: a handful of small integer keys, where SipHash would cost more
    // than the search.
    cancelled: BTreeSet<i64>,
    inbox: VecDeque<Notification>,
    violations: Vec<Violation>,
    fatal: Option<ErrorKind>,
    server_requests: Vec<ServerRequest>,
    progress: HashMap<String, ProgressState>,
    transcript: Transcript,
    queued: HashMap<String, VecDeque<Result<Value, RpcError>>>,
    eof: bool,
}

struct Inner {
    started: Instant,
    observer: Option<mpsc::UnboundedSender<Entry>>,
    state: Mutex<State>,
    inbox_changed: Notify,
    writer: Option<StdinWriter>,
    behaviour: Mutex<ClientBehaviour>,
    envelope: Mutex<Option<Envelope>>,
    handle: Option<ProcessHandle>,
    http: Option<Arc<HttpWire>>,
    negotiated: Mutex<Option<String>>,
    request_headers: Mutex<HashMap<i64, Vec<(String, String)>>>,
    strict: bool,
    max_inbox: usize,
    batching: Mutex<bool>,
    max_message_bytes: usize,
    /// Held while an expired HTTP session is initialized again.
    renewing: tokio::sync::Mutex<()>,
    /// Reads answers on the waiting thread (stdio on a one-thread runtime, when enabled).
    foreground: Option<ForegroundReader>,
    /// When (nanoseconds after `started`) a foreground wait last let the runtime run its
    /// other tasks.
    last_turn: std::sync::atomic::AtomicU64,
}

struct Envelope {
    version: String,
    capabilities: Value,
    client_info: Value,
    /// The `_meta` object of the three as JSON text, written into request lines as it is.
    meta: Arc<str>,
}

impl Envelope {
    fn new(version: String, capabilities: Value, client_info: Value) -> Envelope {
        let mut envelope = Envelope {
            version,
            capabilities,
            client_info,
            meta: Arc::from(""),
        };
        envelope.meta = envelope.meta_text();
        envelope
    }

    /// Declares other capabilities from now on.
    fn set_capabilities(&mut self, capabilities: Value) {
        self.capabilities = capabilities;
        self.meta = self.meta_text();
    }

    /// Adds the envelope to the `_meta` of `params` (keys set already are kept).
    fn insert_into(&self, params: &mut Value) {
        meta::insert_meta(params, meta::ENVELOPE_PROTOCOL_VERSION, json!(self.version));
        meta::insert_meta(
            params,
            meta::ENVELOPE_CLIENT_CAPABILITIES,
            self.capabilities.clone(),
        );
        meta::insert_meta(params, meta::ENVELOPE_CLIENT_INFO, self.client_info.clone());
    }

    fn meta_text(&self) -> Arc<str> {
        let mut params = Value::Null;
        self.insert_into(&mut params);
        Arc::from(params["_meta"].to_string())
    }
}

/// A request that was sent and whose answer is awaited.
#[derive(Debug)]
pub struct PendingRequest {
    /// Its JSON-RPC id.
    pub id: i64,
    /// Its method.
    pub method: Method,
    deadline: Duration,
    sent_at: Instant,
    progress_key: Option<String>,
    max_total: Option<Duration>,
    rx: oneshot::Receiver<Result<Result<Value, RpcError>, ErrorKind>>,
    /// What it takes to send the request again after the session is renewed (handshake
    /// era over HTTP, requests other than `initialize`).
    /// Boxed: HTTP only, and every wait's future holds this struct.
    resend: Option<Box<(Option<Value>, RequestOptions)>>,
    /// Why the request could not be written to a server's stdin (see [`Session::wait`]);
    /// boxed, as it is rare and every wait's future holds this struct.
    unsent: Option<Box<ErrorKind>>,
}

/// A request as [`Session::start_request`] leaves it.
pub enum Started {
    /// Its answer (or failure) was read at once.
    Answered(Result<Value, Error>),
    /// Its answer is awaited: [`Session::finish_request`].
    Waiting(PendingRequest),
}

/// Facts learnt in the handshake.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ServerFacts {
    /// The era in use.
    pub era: Era,
    /// The protocol version in use.
    pub protocol_version: String,
    /// The server's capabilities.
    pub capabilities: Value,
    /// `serverInfo` (legacy) or `_meta` serverInfo (modern); `null` when absent.
    pub server_info: Value,
    /// The server's instructions, if any.
    pub instructions: Option<String>,
    /// 2026: the versions the server listed in `server/discover`.
    pub supported_versions: Vec<String>,
    /// The raw result of `initialize` or `server/discover`.
    pub handshake_result: Value,
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

/// Feeds what the HTTP transport reads into the session (weakly: the session owns the
/// transport, not the other way round).
struct SessionSink(std::sync::Weak<Inner>);

impl HttpSink for SessionSink {
    fn on_message(&self, value: Value, text: String) {
        if let Some(inner) = self.0.upgrade() {
            inner.on_message(value, Some(&text), false);
        }
    }

    fn on_garbage(&self, text: String, why: String) {
        if let Some(inner) = self.0.upgrade() {
            let mut st = inner.state.lock().expect("state lock");
            inner.on_bad_line(&mut st, &text, why, true);
        }
    }

    fn on_request_failed(&self, id: i64, failure: HttpFailure) {
        if let Some(inner) = self.0.upgrade() {
            inner.fail_pending(id, failure);
        }
    }

    fn is_pending(&self, id: i64) -> bool {
        self.0.upgrade().is_some_and(|inner| {
            inner
                .state
                .lock()
                .map(|st| st.pending.contains(id))
                .unwrap_or(false)
        })
    }

    fn on_post_rejected(&self, what: String, failure: HttpFailure) {
        if let Some(inner) = self.0.upgrade() {
            let reason = match failure {
                HttpFailure::Rpc(e) => format!("the server refused it with error {e}"),
                HttpFailure::Status { status, body } => {
                    format!("the server refused it with HTTP {status}: {body}")
                }
                HttpFailure::Io(e) | HttpFailure::NoAnswer(e) => e,
                HttpFailure::TooLarge { limit } => format!("an answer over {limit} bytes"),
                HttpFailure::Unauthorized {
                    status,
                    challenge,
                    body,
                } => ErrorKind::Unauthorized {
                    status,
                    challenge,
                    body,
                }
                .to_string(),
                HttpFailure::SessionExpired { session, .. } => {
                    format!("the server no longer knows session {session} (HTTP 404)")
                }
            };
            let kind = ErrorKind::Conformance { what, reason };
            let mut st = inner.state.lock().expect("state lock");
            inner.record_violation(&mut st, &kind, false);
        }
    }
}

impl Inner {
    fn new(
        config: &SessionConfig,
        handle: Option<ProcessHandle>,
        writer: Option<StdinWriter>,
        http: Option<Arc<HttpWire>>,
        max_message_bytes: usize,
        foreground: Option<ForegroundReader>,
    ) -> Arc<Inner> {
        // Blocking the thread is only right where the session's own tasks are the only
        // ones that could have run meanwhile: a runtime of one thread, the caller's.
        let one_thread = tokio::runtime::Handle::try_current()
            .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::CurrentThread);
        let foreground = foreground.filter(|_| config.foreground_reads && one_thread);
        Arc::new(Inner {
            started: Instant::now(),
            observer: config.observer.clone().map(|observer| {
                let (tx, mut rx) = mpsc::unbounded_channel::<Entry>();
                tokio::spawn(async move {
                    while let Some(entry) = rx.recv().await {
                        (observer.0)(&entry);
                    }
                });
                tx
            }),
            state: Mutex::new(State {
                next_id: 1,
                pending: Pending::default(),
                cancelled: BTreeSet::new(),
                inbox: VecDeque::new(),
                violations: Vec::new(),
                fatal: None,
                server_requests: Vec::new(),
                progress: HashMap::new(),
                transcript: Transcript::new(config.transcript_limit),
                queued: HashMap::new(),
                eof: false,
            }),
            inbox_changed: Notify::new(),
            writer,
            behaviour: Mutex::new(config.behaviour.clone()),
            envelope: Mutex::new(None),
            handle,
            http,
            negotiated: Mutex::new(None),
            request_headers: Mutex::new(HashMap::new()),
            strict: config.strict,
            max_inbox: config.max_inbox,
            batching: Mutex::new(false),
            max_message_bytes,
            renewing: tokio::sync::Mutex::new(()),
            foreground,
            last_turn: std::sync::atomic::AtomicU64::new(0),
        })
    }

    fn elapsed_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    fn last_message(&self) -> Option<LastMessage> {
        let st = self.state.lock().ok()?;
        let (direction, kind, text) = st.transcript.last_text()?;
        Some(LastMessage::new(direction, kind, &text))
    }

    /// Wraps a failure with the session's context.
    #[cold]
    fn error(&self, kind: ErrorKind) -> Error {
        let mut e = Error::new(kind);
        e.last_message = self.last_message();
        let Some(handle) = &self.handle else { return e };
        let dead =
            handle.exit_status().is_some() || matches!(e.kind, ErrorKind::ServerExited { .. });
        if dead {
            e.exit_status = handle.exit_description();
        }
        if dead
            || matches!(
                e.kind,
                ErrorKind::Handshake { .. } | ErrorKind::UnsupportedVersion { .. }
            )
        {
            e.stderr_tail = Some(handle.stderr_tail());
        }
        e
    }

    #[cold]
    fn record_violation(&self, st: &mut State, kind: &ErrorKind, fatal: bool) {
        if st.violations.len() < 1000 {
            st.violations.push(Violation {
                code: kind.code(),
                message: kind.to_string(),
                at_ms: self.elapsed_ms(),
            });
        }
        if fatal && self.strict && st.fatal.is_none() {
            st.fatal = Some(kind.clone());
            for slot in st.pending.take_all() {
                let _ = slot.tx.send(Err(kind.clone()));
            }
            self.inbox_changed.notify_waiters();
        }
    }

    fn push_transcript(
        &self,
        st: &mut State,
        direction: Direction,
        kind: &'static str,
        method: Option<&str>,
        text: &[u8],
    ) {
        let at = self.started.elapsed();
        st.transcript.push(at, direction, kind, method, text);
        if let Some(observer) = &self.observer
            && let Some(entry) = st.transcript.last()
        {
            let _ = observer.send(entry);
        }
    }

    /// Sends a line (the transcript entry is written first, so order is kept).
    #[allow(clippy::result_large_err)]
    fn send_line(
        self: &Arc<Self>,
        value: &Value,
        kind: &'static str,
        method: Option<&str>,
    ) -> Result<(), ErrorKind> {
        // Straight into a byte buffer: `Display` would go through the formatter per piece.
        let text = serde_json::to_string(value).unwrap_or_else(|_| value.to_string());
        self.send_text(text, Some(value), kind, method)
    }

    /// Sends a line already serialized (`value` is the message, when the caller has it; an
    /// HTTP post needs it for its headers and reads it back from the text otherwise).
    #[allow(clippy::result_large_err)]
    fn send_text(
        self: &Arc<Self>,
        text: String,
        value: Option<&Value>,
        kind: &'static str,
        method: Option<&str>,
    ) -> Result<(), ErrorKind> {
        // With foreground reads nothing reads the server's answers until this thread
        // does, so the message is recorded after it is written, while the server works
        // on it; otherwise before, so that it precedes its answer in the transcript.
        let after = self.foreground.is_some();
        if !after {
            let mut st = self.state.lock().map_err(|_| ErrorKind::Closed)?;
            self.push_transcript(&mut st, Direction::Sent, kind, method, text.as_bytes());
        }
        if let Some(http) = &self.http {
            self.post(http, text, value);
            return Ok(());
        }
        // Over stdio the text becomes the line: its buffer gets the newline.
        let mut line = text.into_bytes();
        line.push(b'\n');
        let sent = match &self.writer {
            Some(writer) => writer.send(&line).map_err(|f| match f {
                WriteFailure::Closed => ErrorKind::Closed,
                WriteFailure::Failed(reason) => ErrorKind::Write { reason },
            }),
            None => Err(ErrorKind::Closed),
        };
        if after {
            let text = &line[..line.len() - 1];
            let mut st = self.state.lock().map_err(|_| ErrorKind::Closed)?;
            self.push_transcript(&mut st, Direction::Sent, kind, method, text);
        }
        sent
    }

    /// Posts a message over HTTP (`value` is the message, when the caller has it).
    #[inline(never)]
    fn post(self: &Arc<Self>, http: &Arc<HttpWire>, text: String, value: Option<&Value>) {
        let parsed;
        let value = match value {
            Some(v) => v,
            None => {
                parsed = serde_json::from_str::<Value>(&text).unwrap_or(Value::Null);
                &parsed
            }
        };
        let info = self.message_info(value);
        let sink: Arc<dyn HttpSink> = Arc::new(SessionSink(Arc::downgrade(self)));
        http.post(sink, text, info);
    }

    /// The HTTP headers' view of an outgoing message.
    fn message_info(&self, value: &Value) -> MessageInfo {
        let method = value
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_string);
        let id = if method.is_some() {
            value.get("id").and_then(Value::as_i64)
        } else {
            None
        };
        // Only the 2026 version is needed, not the whole envelope.
        let modern_version = self
            .envelope
            .lock()
            .ok()
            .and_then(|e| e.as_ref().map(|env| env.version.clone()));
        let params = value.get("params");
        let param = |k: &str| {
            params
                .and_then(|p| p.get(k))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        let name = match method.as_deref() {
            Some("tools/call" | "prompts/get") => param("name"),
            Some("resources/read") => param("uri"),
            Some("tasks/get" | "tasks/update" | "tasks/cancel") => param("taskId"),
            _ => None,
        };
        let modern = modern_version.is_some();
        let protocol_version =
            modern_version.or_else(|| self.negotiated.lock().ok().and_then(|n| n.clone()));
        let extra_headers = id
            .and_then(|i| {
                self.request_headers
                    .lock()
                    .ok()
                    .and_then(|mut h| h.remove(&i))
            })
            .unwrap_or_default();
        MessageInfo {
            id,
            method,
            name,
            protocol_version,
            modern,
            extra_headers,
            session_id: None,
        }
    }

    /// Ends a pending request with what the HTTP transport saw.
    fn fail_pending(&self, id: i64, failure: HttpFailure) {
        let mut st = self.state.lock().expect("state lock");
        let Some(slot) = st.pending.remove(id) else {
            return;
        };
        let outcome = match failure {
            HttpFailure::Rpc(e) => Ok(Err(e)),
            HttpFailure::Status { status, body } => Err(ErrorKind::Http {
                status: Some(status),
                reason: if body.is_empty() {
                    "(empty body)".into()
                } else {
                    body
                },
            }),
            HttpFailure::Io(reason) | HttpFailure::NoAnswer(reason) => Err(ErrorKind::Http {
                status: None,
                reason,
            }),
            HttpFailure::TooLarge { limit } => {
                Err(ErrorKind::MessageTooLarge { limit, seen: limit })
            }
            HttpFailure::Unauthorized {
                status,
                challenge,
                body,
            } => Err(ErrorKind::Unauthorized {
                status,
                challenge,
                body,
            }),
            HttpFailure::SessionExpired { session, body } => Err(ErrorKind::SessionExpired {
                session,
                renewed: None,
                body,
            }),
        };
        let _ = slot.tx.send(outcome);
    }

    fn on_frame_line(self: &Arc<Self>, bytes: Vec<u8>) {
        let text = match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                let line = String::from_utf8_lossy(e.as_bytes()).into_owned();
                let mut st = self.state.lock().expect("state lock");
                self.on_bad_line(&mut st, &line, "not valid UTF-8".into(), true);
                return;
            }
        };
        // A message starts with `{` (or `[`); only other lines need the whitespace scan.
        if !text.starts_with(['{', '[']) && text.trim().is_empty() {
            self.on_blank_line(&text);
            return;
        }
        match jsonrpc::parse(&text) {
            Ok(incoming) => self.on_incoming(incoming, Some(&text), false),
            Err(e) => {
                let mut st = self.state.lock().expect("state lock");
                self.on_bad_line(&mut st, &text, format!("not JSON: {e}"), true);
            }
        }
    }

    /// Records a line that is not a JSON-RPC message: in the transcript (unless empty)
    /// and as a violation.
    #[cold]
    #[inline(never)]
    fn on_bad_line(&self, st: &mut State, line: &str, why: String, fatal: bool) {
        if !line.is_empty() {
            self.push_transcript(st, Direction::Received, "invalid", None, line.as_bytes());
        }
        let kind = ErrorKind::NotJsonRpc {
            line: shorten(line, 300),
            why,
        };
        self.record_violation(st, &kind, fatal);
    }

    #[cold]
    #[inline(never)]
    fn on_blank_line(&self, text: &str) {
        let kind = ErrorKind::NotJsonRpc {
            line: format!("{text:?}"),
            why: "a blank line".into(),
        };
        let mut st = self.state.lock().expect("state lock");
        self.record_violation(&mut st, &kind, false);
    }

    fn on_message(self: &Arc<Self>, value: Value, text: Option<&str>, in_batch: bool) {
        self.on_incoming(jsonrpc::classify(value), text, in_batch);
    }

    /// Handles a classified message; `text` is its line, recorded in the transcript
    /// (`None` for the members of a batch, recorded as the batch's line).
    fn on_incoming(self: &Arc<Self>, incoming: Incoming, text: Option<&str>, in_batch: bool) {
        let mut st = self.state.lock().expect("state lock");
        let (kind, method) = match &incoming {
            Incoming::Request { method, .. } => ("request", Some(method.as_str())),
            Incoming::Notification { method, .. } => ("notification", Some(method.as_str())),
            Incoming::Result { .. } => ("response", None),
            Incoming::Error { .. } => ("error", None),
            Incoming::Batch(_) => ("batch", None),
            Incoming::Invalid(_) => ("invalid", None),
        };
        if let Some(text) = text {
            self.push_transcript(&mut st, Direction::Received, kind, method, text.as_bytes());
        }
        // Answers first; the other kinds are handled out of line, to keep the code an
        // answer runs through small.
        match incoming {
            Incoming::Result { id, result } => self.on_response(&mut st, id, Ok(result)),
            Incoming::Error {
                id: Some(id),
                error,
            } => self.on_response(&mut st, id, Err(error)),
            Incoming::Notification { method, params } => {
                self.on_notification(&mut st, method, params)
            }
            Incoming::Request { id, method, params } => {
                self.on_server_request(st, id, method, params)
            }
            Incoming::Batch(items) => self.on_batch(st, items, in_batch),
            Incoming::Error { id: None, error } => {
                let kind = ErrorKind::Rpc {
                    method: "(a request the server could not read)".into(),
                    error,
                };
                self.record_violation(&mut st, &kind, true);
            }
            Incoming::Invalid(why) => self.on_invalid(&mut st, why),
        }
    }

    /// A JSON value that is not a JSON-RPC message (the transcript has its line).
    #[cold]
    #[inline(never)]
    fn on_invalid(&self, st: &mut State, why: String) {
        let line = st
            .transcript
            .last_text()
            .map(|(_, _, text)| shorten(&text, 300))
            .unwrap_or_default();
        self.record_violation(st, &ErrorKind::NotJsonRpc { line, why }, true);
    }

    #[inline(never)]
    fn on_batch(
        self: &Arc<Self>,
        mut st: std::sync::MutexGuard<'_, State>,
        items: Vec<Value>,
        in_batch: bool,
    ) {
        if in_batch || !*self.batching.lock().expect("batching lock") {
            let why = "a JSON-RPC batch, which this protocol version does not allow";
            self.on_invalid(&mut st, why.into());
            return;
        }
        drop(st);
        for item in items {
            self.on_message(item, None, true);
        }
    }

    /// Answers a request from the server (from the queued answers or the client
    /// behaviour) and records it.
    #[inline(never)]
    fn on_server_request(
        self: &Arc<Self>,
        mut st: std::sync::MutexGuard<'_, State>,
        id: Value,
        method: String,
        params: Value,
    ) {
        let modern = self.envelope.lock().map(|e| e.is_some()).unwrap_or(false);
        if modern {
            let kind = ErrorKind::InvalidResult {
                method: method.clone(),
                reason: "a 2026-07-28 server must not send requests to the client".into(),
            };
            self.record_violation(&mut st, &kind, false);
        }
        let queued = st.queued.get_mut(&method).and_then(VecDeque::pop_front);
        let used_queue = queued.is_some();
        let answer = match queued {
            Some(a) => a,
            None => self
                .behaviour
                .lock()
                .expect("behaviour lock")
                .answer(&method, &params),
        };
        let recorded = match &answer {
            Ok(v) => v.clone(),
            Err(e) => json!({"error": e.to_value()}),
        };
        let at_ms = self.elapsed_ms();
        st.server_requests.push(ServerRequest {
            method,
            params,
            answer: recorded,
            queued: used_queue,
            at_ms,
        });
        drop(st);
        let reply = jsonrpc::response(&id, answer);
        let _ = self.send_line(&reply, "response", None);
    }

    fn on_response(&self, st: &mut State, id: IdKey, outcome: Result<Value, RpcError>) {
        match id {
            IdKey::Int(i) => {
                if let Some(slot) = st.pending.remove(i) {
                    let _ = slot.tx.send(Ok(outcome));
                } else if st.cancelled.contains(&i) {
                    // A late answer to a request we gave up on: allowed, ignored.
                } else if i >= 1 && i < st.next_id {
                    self.record_violation(st, &ErrorKind::DuplicateResponse { id: i }, true);
                } else {
                    self.record_violation(
                        st,
                        &ErrorKind::UnknownResponseId { id: i.to_string() },
                        true,
                    );
                }
            }
            IdKey::Str(s) => self.record_violation(
                st,
                &ErrorKind::UnknownResponseId {
                    id: format!("{s:?}"),
                },
                true,
            ),
            IdKey::Invalid(s) => {
                self.record_violation(st, &ErrorKind::UnknownResponseId { id: s }, true)
            }
        }
    }

    #[inline(never)]
    fn on_notification(&self, st: &mut State, method: String, params: Value) {
        let modern = self.envelope.lock().map(|e| e.is_some()).unwrap_or(false);
        if modern {
            let reason = match method.as_str() {
                "notifications/message" if !st.pending.slots().any(|p| p.log_level) => Some(
                    "a 2026-07-28 server may send log messages only while a request that asked for them (_meta io.modelcontextprotocol/logLevel) is in flight",
                ),
                "notifications/tools/list_changed"
                | "notifications/prompts/list_changed"
                | "notifications/resources/list_changed"
                | "notifications/resources/updated"
                | "notifications/subscriptions/acknowledged"
                    if meta::get_meta(&params, meta::ENVELOPE_SUBSCRIPTION_ID).is_none() =>
                {
                    Some(
                        "in 2026-07-28 this notification belongs on a subscriptions/listen stream and must carry _meta io.modelcontextprotocol/subscriptionId",
                    )
                }
                _ => None,
            };
            if let Some(reason) = reason {
                let kind = ErrorKind::Conformance {
                    what: method.clone(),
                    reason: reason.into(),
                };
                self.record_violation(st, &kind, false);
            }
        }
        if method == "notifications/progress" {
            let token = params
                .get("progressToken")
                .map(Value::to_string)
                .unwrap_or_else(|| "(none)".into());
            let progress = params.get("progress").and_then(Value::as_f64);
            match st.progress.get_mut(&token) {
                Some(p) => {
                    match progress {
                        None => p
                            .problems
                            .push("a notification without a numeric `progress`".into()),
                        Some(v) => {
                            if let Some(last) = p.last
                                && v <= last
                            {
                                p.problems.push(format!(
                                    "progress went from {last} to {v}; it must increase"
                                ));
                            }
                            p.last = Some(v);
                        }
                    }
                    p.last_at = Some(Instant::now());
                    p.events.push(params.clone());
                }
                None => {
                    let kind = ErrorKind::Progress { token, reason: "notification for a token this client never sent (or whose request has ended)".into() };
                    self.record_violation(st, &kind, false);
                }
            }
        }
        st.inbox.push_back(Notification {
            method,
            params,
            at_ms: self.elapsed_ms(),
        });
        if st.inbox.len() > self.max_inbox {
            if self.strict {
                self.record_violation(
                    st,
                    &ErrorKind::NotificationFlood {
                        limit: self.max_inbox,
                    },
                    true,
                );
            }
            st.inbox.pop_front();
        }
        self.inbox_changed.notify_waiters();
    }

    /// Drops request `id` from the requests awaiting an answer.
    fn forget_pending(&self, id: i64) {
        self.state.lock().expect("state lock").pending.remove(id);
    }

    /// Handles a line or an oversize report, from the reader task or a foreground wait;
    /// hands back any other frame (the end of the stream), which only the task handles.
    fn on_frame(self: &Arc<Self>, frame: Frame) -> Option<Frame> {
        match frame {
            Frame::Line(bytes) => self.on_frame_line(bytes),
            Frame::TooLarge { seen } => self.on_too_large(seen),
            end => return Some(end),
        }
        None
    }

    fn on_too_large(&self, seen: usize) {
        let limit = self.max_message_bytes;
        let mut st = self.state.lock().expect("state lock");
        self.record_violation(&mut st, &ErrorKind::MessageTooLarge { limit, seen }, true);
    }

    /// Lets the runtime run its other tasks when foreground waits have kept it for a
    /// slice: without it, calls answered in the foreground one after another would never
    /// give the thread back.
    fn due_for_turn(&self, now: Instant) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        let at = now.saturating_duration_since(self.started).as_nanos() as u64;
        at.saturating_sub(self.last_turn.load(Relaxed)) >= FOREGROUND_SLICE.as_nanos() as u64
    }

    /// Notes that the runtime had its turn at `now`.
    fn took_turn(&self, now: Instant) {
        use std::sync::atomic::Ordering::Relaxed;
        let at = now.saturating_duration_since(self.started).as_nanos() as u64;
        self.last_turn.store(at, Relaxed);
    }

    /// Reads in the foreground until `rx` has the answer, or `until`, or something only
    /// the reader task handles (the end of the stream, a line the pipe to the server
    /// could not take at once): `None` then, and the wait goes on in the background.
    fn wait_in_foreground<T>(
        self: &Arc<Self>,
        rx: &mut oneshot::Receiver<T>,
        until: Instant,
    ) -> Option<T> {
        use tokio::sync::oneshot::error::TryRecvError;
        let fg = self.foreground.as_ref()?;
        let queued = || self.writer.as_ref().is_some_and(StdinWriter::has_queued);
        // `Some(outcome)` when the foreground wait is over: the answer, or `None` to go on
        // in the background.
        let settled = |rx: &mut oneshot::Receiver<T>| match rx.try_recv() {
            Ok(answer) => Some(Some(answer)),
            Err(TryRecvError::Closed) => Some(None),
            Err(TryRecvError::Empty) if queued() => Some(None),
            Err(TryRecvError::Empty) => None,
        };
        if let Some(outcome) = settled(rx) {
            return outcome;
        }
        fg.alarm().set(until);
        let answer = loop {
            match fg.next() {
                Foreground::Frame(frame) => {
                    if self.on_frame(frame).is_some() {
                        break None;
                    }
                }
                Foreground::Stop => break None,
                Foreground::Alarm if Instant::now() >= until => break None,
                Foreground::Alarm => {}
            }
            if let Some(outcome) = settled(rx) {
                break outcome;
            }
        };
        fg.alarm().unset();
        if answer.is_some() {
            // The rest of what was read in one go (a notification after the answer) is
            // handled now, as the reader task would have before the caller ran on.
            while let Some(frame) = fg.buffered() {
                if self.on_frame(frame).is_some() {
                    break;
                }
            }
        }
        fg.hand_over();
        answer
    }

    fn on_eof(&self, partial: Option<Vec<u8>>) {
        let mut st = self.state.lock().expect("state lock");
        if let Some(bytes) = partial {
            let line = String::from_utf8_lossy(&bytes);
            let why = "stdout closed before the line ended".to_string();
            self.on_bad_line(&mut st, &line, why, false);
        }
        st.eof = true;
        let status = self
            .handle
            .as_ref()
            .and_then(ProcessHandle::exit_description);
        if st.fatal.is_none() {
            st.fatal = Some(ErrorKind::ServerExited {
                during: None,
                status: status.clone(),
            });
        }
        for slot in st.pending.take_all() {
            let _ = slot.tx.send(Err(ErrorKind::ServerExited {
                during: Some(slot.method.into_owned()),
                status: status.clone(),
            }));
        }
        self.inbox_changed.notify_waiters();
    }
}

async fn read_loop(inner: Arc<Inner>, mut reader: LineReader) {
    loop {
        match reader.next().await {
            Frame::PartialAtEof(bytes) => {
                if let Some(h) = &inner.handle {
                    h.wait_exit(Duration::from_secs(1)).await;
                    h.wait_stderr_closed(Duration::from_millis(500)).await;
                }
                inner.on_eof(Some(bytes));
                return;
            }
            Frame::Eof | Frame::Failed(_) => {
                if let Some(h) = &inner.handle {
                    h.wait_exit(Duration::from_secs(1)).await;
                    // A dead server's failure quotes its stderr: let the drain finish.
                    h.wait_stderr_closed(Duration::from_millis(500)).await;
                }
                inner.on_eof(None);
                return;
            }
            // Lines and oversize reports; `on_frame` hands back only the ends above.
            frame => {
                let _ = inner.on_frame(frame);
            }
        }
    }
}

impl Session {
    /// Starts the server and runs the handshake of the chosen era.
    pub async fn start(stdio: StdioConfig, config: SessionConfig) -> Result<Session, Error> {
        let mut process = StdioProcess::spawn(&stdio)?;
        let writer = match process.stdin.take() {
            Some(stdin) => Some(StdinWriter::new(stdin).map_err(|e| {
                Error::new(ErrorKind::Spawn {
                    command: stdio.display(),
                    reason: format!("cannot write to its stdin: {e}"),
                })
            })?),
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
        let sink: Arc<dyn HttpSink> = Arc::new(SessionSink(Arc::downgrade(&inner)));
        if let Err(f) = wire.connect_sse(sink, config.connect_timeout).await {
            wire.abort_all();
            let (status, reason) = match f {
                HttpFailure::Status { status, body } => (Some(status), body),
                HttpFailure::Rpc(e) => (None, e.to_string()),
                HttpFailure::Io(r) | HttpFailure::NoAnswer(r) => (None, r),
                HttpFailure::TooLarge { limit } => (None, format!("an event over {limit} bytes")),
                HttpFailure::SessionExpired { body, .. } => (Some(404), body),
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
                    handle.shutdown(Duration::from_millis(200)).await;
                }
                if let Some(http) = &session.inner.http {
                    http.abort_all();
                }
                Err(e)
            }
        }
    }

    async fn handshake(&self) -> Result<ServerFacts, Error> {
        let deadline = Instant::now() + self.config.connect_timeout;
        let remaining = || deadline.saturating_duration_since(Instant::now());
        match self.config.protocol.clone() {
            ProtocolChoice::Pinned(v) => match version::era_of(&v) {
                Some(Era::Legacy) => self.initialize(&v, true, remaining()).await,
                Some(Era::Modern) => self.discover(&v, true, remaining()).await,
                None => Err(Error::new(ErrorKind::Usage(format!(
                    "unknown protocol version {v:?}; known: {}, {}",
                    version::HANDSHAKE_VERSIONS.join(", "),
                    version::MODERN_VERSIONS.join(", ")
                )))),
            },
            ProtocolChoice::Auto => {
                if self.inner.http.as_ref().is_some_and(|h| h.is_sse()) {
                    // HTTP+SSE exists only in the handshake era: no probe.
                    return self
                        .initialize(version::LATEST_HANDSHAKE, false, remaining())
                        .await;
                }
                let probe = self
                    .config
                    .probe_timeout
                    .min(self.config.connect_timeout / 2);
                let modern = version::MODERN_VERSIONS[version::MODERN_VERSIONS.len() - 1];
                match self.discover(modern, false, probe).await {
                    Ok(facts) => Ok(facts),
                    Err(e)
                        if matches!(
                            e.kind,
                            ErrorKind::Timeout { .. }
                                | ErrorKind::Rpc { .. }
                                | ErrorKind::Handshake { .. }
                                | ErrorKind::Http { .. }
                        ) =>
                    {
                        *self.inner.envelope.lock().expect("envelope lock") = None;
                        self.initialize(version::LATEST_HANDSHAKE, false, remaining())
                            .await
                    }
                    Err(e) => Err(e),
                }
            }
        }
    }

    async fn initialize(
        &self,
        requested: &str,
        pinned: bool,
        timeout: Duration,
    ) -> Result<ServerFacts, Error> {
        let behaviour = self.inner.behaviour.lock().expect("behaviour lock").clone();
        let params = json!({
            "protocolVersion": requested,
            "capabilities": behaviour.capabilities(Era::Legacy),
            "clientInfo": self.config.client_info.to_value(),
        });
        let opts = RequestOptions {
            timeout: Some(timeout),
            no_envelope: true,
            ..Default::default()
        };
        let outcome = self
            .request_outcome("initialize", Some(params), &opts)
            .await?;
        let result = match outcome {
            Ok(r) => r,
            Err(rpc) => {
                // A server that already serves 2026-07-28 on this connection (it answered a
                // probe we stopped waiting for, say, because it started slowly) refuses the
                // handshake with -32022 and names what it supports: follow it, unless the
                // suite pinned a version.
                if !pinned && rpc.code == codes::UNSUPPORTED_PROTOCOL_VERSION {
                    let supported = supported_versions(&rpc);
                    let modern = version::MODERN_VERSIONS
                        .iter()
                        .rev()
                        .find(|v| supported.iter().any(|s| s == *v));
                    if let Some(v) = modern {
                        return self.discover(v, false, timeout).await;
                    }
                }
                return Err(self.inner.error(ErrorKind::Handshake {
                    reason: format!("the server answered initialize with error {rpc}"),
                }));
            }
        };
        let Some(offered) = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .map(str::to_string)
        else {
            return Err(self.inner.error(ErrorKind::Handshake {
                reason: "the initialize result has no string protocolVersion".into(),
            }));
        };
        let Some(capabilities) = result
            .get("capabilities")
            .filter(|c| c.is_object())
            .cloned()
        else {
            return Err(self.inner.error(ErrorKind::Handshake {
                reason: "the initialize result has no capabilities object".into(),
            }));
        };
        if version::era_of(&offered) != Some(Era::Legacy) {
            return Err(self.inner.error(ErrorKind::UnsupportedVersion {
                requested: requested.into(),
                offered,
                reason: format!(
                    "the initialize handshake exists in {} only",
                    version::HANDSHAKE_VERSIONS.join(", ")
                ),
            }));
        }
        if pinned && offered != requested {
            return Err(self.inner.error(ErrorKind::UnsupportedVersion {
                requested: requested.into(),
                offered,
                reason: "the version is pinned".into(),
            }));
        }
        {
            let mut st = self.inner.state.lock().expect("state lock");
            if result
                .get("serverInfo")
                .and_then(|s| s.get("name"))
                .and_then(Value::as_str)
                .is_none()
            {
                let kind = ErrorKind::InvalidResult {
                    method: "initialize".into(),
                    reason: "serverInfo.name is missing".into(),
                };
                self.inner.record_violation(&mut st, &kind, false);
            }
        }
        *self.inner.batching.lock().expect("batching lock") = version::batching_allowed(&offered);
        *self.inner.negotiated.lock().expect("negotiated lock") = Some(offered.clone());
        if let Some(http) = &self.inner.http
            && !http.is_sse()
        {
            // The GET stream stands before `initialized`, so what the server sends on
            // initialization (list_changed, roots/list…) has somewhere to go.
            let sink: Arc<dyn HttpSink> = Arc::new(SessionSink(Arc::downgrade(&self.inner)));
            let ready = http.open_get_stream(sink, Some(offered.clone()));
            let _ = tokio::time::timeout(Duration::from_secs(2).min(timeout), ready).await;
        }
        self.notify("notifications/initialized", None)
            .map_err(|k| self.inner.error(k))?;
        Ok(ServerFacts {
            era: Era::Legacy,
            protocol_version: offered,
            capabilities,
            server_info: result.get("serverInfo").cloned().unwrap_or(Value::Null),
            instructions: result
                .get("instructions")
                .and_then(Value::as_str)
                .map(str::to_string),
            supported_versions: Vec::new(),
            handshake_result: result,
        })
    }

    async fn discover(
        &self,
        requested: &str,
        pinned: bool,
        timeout: Duration,
    ) -> Result<ServerFacts, Error> {
        let deadline = Instant::now() + timeout;
        let mut version = requested.to_string();
        for _attempt in 0..2 {
            let behaviour = self.inner.behaviour.lock().expect("behaviour lock").clone();
            *self.inner.envelope.lock().expect("envelope lock") = Some(Envelope::new(
                version.clone(),
                behaviour.capabilities(Era::Modern),
                self.config.client_info.to_value(),
            ));
            let opts = RequestOptions {
                timeout: Some(deadline.saturating_duration_since(Instant::now())),
                ..Default::default()
            };
            let outcome = self
                .request_outcome("server/discover", Some(json!({})), &opts)
                .await?;
            match outcome {
                Ok(result) => {
                    let supported: Vec<String> = result
                        .get("supportedVersions")
                        .and_then(Value::as_array)
                        .map(|a| {
                            a.iter()
                                .filter_map(Value::as_str)
                                .map(str::to_string)
                                .collect()
                        })
                        .unwrap_or_default();
                    let Some(capabilities) = result
                        .get("capabilities")
                        .filter(|c| c.is_object())
                        .cloned()
                    else {
                        return Err(self.inner.error(ErrorKind::Handshake {
                            reason: "the server/discover result has no capabilities object".into(),
                        }));
                    };
                    if !supported.is_empty() && !supported.contains(&version) {
                        return Err(self.inner.error(ErrorKind::UnsupportedVersion {
                            requested: version,
                            offered: supported.join(", "),
                            reason: "server/discover does not list the version in use".into(),
                        }));
                    }
                    self.check_modern_result("server/discover", &result);
                    let server_info = meta::get_meta(&result, meta::ENVELOPE_SERVER_INFO)
                        .or_else(|| result.get("serverInfo"))
                        .cloned()
                        .unwrap_or(Value::Null);
                    return Ok(ServerFacts {
                        era: Era::Modern,
                        protocol_version: version,
                        capabilities,
                        server_info,
                        instructions: result
                            .get("instructions")
                            .and_then(Value::as_str)
                            .map(str::to_string),
                        supported_versions: supported,
                        handshake_result: result,
                    });
                }
                Err(rpc)
                    if rpc.code == codes::UNSUPPORTED_PROTOCOL_VERSION
                        || rpc.code == codes::RC_UNSUPPORTED_PROTOCOL_VERSION =>
                {
                    let supported = supported_versions(&rpc);
                    let usable = supported
                        .iter()
                        .rev()
                        .find(|v| version::era_of(v) == Some(Era::Modern))
                        .cloned();
                    match usable {
                        // The server refused a version it lists as supported: ask once more.
                        Some(v) if v == version => {}
                        Some(v) if !pinned => version = v,
                        _ => {
                            return Err(self.inner.error(ErrorKind::UnsupportedVersion {
                                requested: version,
                                offered: supported.join(", "),
                                reason: "no stateless version both sides speak".into(),
                            }));
                        }
                    }
                }
                Err(rpc) => {
                    let kind = ErrorKind::Rpc {
                        method: "server/discover".into(),
                        error: rpc,
                    };
                    return Err(self.inner.error(kind));
                }
            }
        }
        Err(self.inner.error(ErrorKind::Handshake {
            reason: "server/discover did not settle on a version".into(),
        }))
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

    /// Queues the answer to the next server request (or 2026 input request) of `method`;
    /// queued answers are used before the client behaviour, oldest first.
    pub fn queue_answer(&self, method: &str, answer: Result<Value, RpcError>) {
        let mut st = self.inner.state.lock().expect("state lock");
        st.queued
            .entry(method.to_string())
            .or_default()
            .push_back(answer);
    }

    /// Answers an input request (2026 `inputRequests` entry) the way a server request
    /// would be answered: queued answer first, then the behaviour.
    pub fn answer_input_request(&self, method: &str, params: &Value) -> Result<Value, RpcError> {
        let queued = {
            let mut st = self.inner.state.lock().expect("state lock");
            st.queued.get_mut(method).and_then(VecDeque::pop_front)
        };
        let used = queued.is_some();
        let answer = match queued {
            Some(a) => a,
            None => self.behaviour().answer(method, params),
        };
        let mut st = self.inner.state.lock().expect("state lock");
        let recorded = match &answer {
            Ok(v) => v.clone(),
            Err(e) => json!({"error": e.to_value()}),
        };
        let at_ms = self.inner.elapsed_ms();
        st.server_requests.push(ServerRequest {
            method: method.into(),
            params: params.clone(),
            answer: recorded,
            queued: used,
            at_ms,
        });
        answer
    }

    /// Sends a notification.
    #[allow(clippy::result_large_err)]
    pub fn notify(&self, method: &str, params: Option<Value>) -> Result<(), ErrorKind> {
        if let Some(fatal) = self.fatal() {
            return Err(fatal);
        }
        let msg = jsonrpc::notification(method, params);
        self.inner.send_line(&msg, "notification", Some(method))
    }

    fn fatal(&self) -> Option<ErrorKind> {
        self.inner.state.lock().ok().and_then(|st| st.fatal.clone())
    }

    /// Sends a request and returns at once; `wait` collects the answer.
    pub fn send(
        &self,
        method: &str,
        params: Option<Value>,
        opts: &RequestOptions,
    ) -> Result<PendingRequest, Error> {
        self.send_params(method, params.map(Cow::Owned), opts)
    }

    /// [`Session::send`] with params that may be borrowed: they are copied only when the
    /// message needs more than they hold (the 2026 envelope, a log level, a progress token)
    /// or the transport keeps them (HTTP), so a caller that may send the same params again
    /// need not copy them for every attempt.
    fn send_params(
        &self,
        method: &str,
        params: Option<Cow<'_, Value>>,
        opts: &RequestOptions,
    ) -> Result<PendingRequest, Error> {
        if self.closed.lock().map(|c| c.is_some()).unwrap_or(true) {
            return Err(self.inner.error(ErrorKind::Closed));
        }
        // What only some requests need is done out of line, to keep the code every
        // request runs through small.
        let mut params = params;
        let resend = match &self.inner.http {
            Some(http) => self.resend_for(http, method, params.as_deref(), opts),
            None => None,
        };
        // Over stdio the 2026 envelope usually goes into the line as text made once per
        // session; otherwise it is added to the params here.
        let envelope = self.envelope_text(params.as_deref(), opts);
        if envelope.is_none() {
            self.add_meta(&mut params, opts);
        }
        let name = method_name(method);
        let (tx, rx) = oneshot::channel();
        let id = {
            let mut st = self.inner.state.lock().expect("state lock");
            if let Some(fatal) = &st.fatal {
                let kind = with_during(fatal.clone(), method);
                drop(st);
                return Err(self.inner.error(kind));
            }
            let id = st.next_id;
            st.next_id += 1;
            st.pending.insert(
                id,
                PendingSlot {
                    method: name.clone(),
                    log_level: opts.log_level.is_some(),
                    tx,
                },
            );
            id
        };
        if let Some(token) = &opts.progress_token {
            self.track_progress(token, &mut params);
        }
        // Over stdio the line is written straight from the parts; HTTP needs the message.
        let sent = if self.inner.http.is_some() {
            self.send_over_http(id, method, params, opts)
        } else {
            let text = jsonrpc::request_text(id, method, params.as_deref(), envelope.as_deref());
            self.inner.send_text(text, None, "request", Some(method))
        };
        let unsent = match sent {
            Ok(()) => None,
            Err(kind) => Some(self.unsent(id, kind)?),
        };
        Ok(PendingRequest {
            id,
            method: name,
            deadline: opts.timeout.unwrap_or(self.config.request_timeout),
            sent_at: Instant::now(),
            progress_key: opts
                .progress_token
                .as_ref()
                .filter(|_| opts.reset_on_progress)
                .map(Value::to_string),
            max_total: opts.max_total,
            rx,
            resend,
            unsent,
        })
    }

    /// What it takes to send a request again if its HTTP session expires: only
    /// handshake-era Streamable HTTP has sessions that can.
    #[inline(never)]
    fn resend_for(
        &self,
        http: &HttpWire,
        method: &str,
        params: Option<&Value>,
        opts: &RequestOptions,
    ) -> Option<Box<(Option<Value>, RequestOptions)>> {
        let sessions = !http.is_sse()
            && self
                .inner
                .envelope
                .lock()
                .map(|e| e.is_none())
                .unwrap_or(false);
        (sessions && method != "initialize").then(|| Box::new((params.cloned(), opts.clone())))
    }

    /// The `_meta` text of the 2026 envelope when a request over stdio can carry it as it
    /// is: the params have no `_meta` of their own and nothing else goes into it.
    fn envelope_text(&self, params: Option<&Value>, opts: &RequestOptions) -> Option<Arc<str>> {
        let plain = match params {
            None => true,
            Some(Value::Object(members)) => !members.contains_key("_meta"),
            Some(_) => false,
        };
        if !plain
            || self.inner.http.is_some()
            || opts.no_envelope
            || opts.log_level.is_some()
            || opts.progress_token.is_some()
        {
            return None;
        }
        let envelope = self.inner.envelope.lock().expect("envelope lock");
        envelope.as_ref().map(|env| env.meta.clone())
    }

    /// Adds the 2026 envelope and a request-scoped log level to the params' `_meta`.
    #[inline(never)]
    fn add_meta(&self, params: &mut Option<Cow<'_, Value>>, opts: &RequestOptions) {
        if !opts.no_envelope
            && let Some(env) = self.inner.envelope.lock().expect("envelope lock").as_ref()
        {
            env.insert_into(edit(params));
        }
        if let Some(level) = &opts.log_level {
            meta::insert_meta(edit(params), meta::ENVELOPE_LOG_LEVEL, json!(level));
        }
    }

    /// Starts following the progress of a request sent with `token`.
    #[inline(never)]
    fn track_progress(&self, token: &Value, params: &mut Option<Cow<'_, Value>>) {
        self.inner
            .state
            .lock()
            .expect("state lock")
            .progress
            .insert(
                token.to_string(),
                ProgressState {
                    last: None,
                    last_at: None,
                    events: Vec::new(),
                    problems: Vec::new(),
                },
            );
        meta::insert_meta(edit(params), "progressToken", token.clone());
    }

    /// Sends a request over HTTP (with the headers the call asked for).
    #[allow(clippy::result_large_err)]
    #[inline(never)]
    fn send_over_http(
        &self,
        id: i64,
        method: &str,
        params: Option<Cow<'_, Value>>,
        opts: &RequestOptions,
    ) -> Result<(), ErrorKind> {
        if !opts.http_headers.is_empty() {
            self.inner
                .request_headers
                .lock()
                .expect("headers lock")
                .insert(id, opts.http_headers.clone());
        }
        let msg = jsonrpc::request(id, method, params.map(Cow::into_owned));
        self.inner.send_line(&msg, "request", Some(method))
    }

    /// A request that could not be sent. A server whose stdin is closed has almost always
    /// exited: the request stays pending so that the end of its stdout fails it with the
    /// exit status and stderr (the wait gives that a moment), rather than as a bare write
    /// failure. Other failures end the request now.
    #[cold]
    #[inline(never)]
    fn unsent(&self, id: i64, kind: ErrorKind) -> Result<Box<ErrorKind>, Error> {
        match kind {
            ErrorKind::Write { .. } if self.inner.handle.is_some() => Ok(Box::new(kind)),
            kind => {
                self.inner.forget_pending(id);
                Err(self.inner.error(kind))
            }
        }
    }

    /// Waits for the answer of a sent request until its deadline. On timeout the request is
    /// cancelled (`notifications/cancelled`, except for `initialize`).
    ///
    /// Handshake era over HTTP: when the server answers 404 for the session (it expired),
    /// the client initializes a new session once and sends the request again with a new
    /// id; the transcript records it. A second 404 is `MCP-HTTP-002`.
    pub async fn wait(&self, pending: PendingRequest) -> Result<Result<Value, RpcError>, Error> {
        let mut pending = pending;
        // Kept only where an expired HTTP session may need the request sent again.
        let resend = pending
            .resend
            .take()
            .map(|r| (pending.method.to_string(), *r));
        let first = self.wait_once(pending).await;
        match (first, resend) {
            (Err(e), Some(resend))
                if matches!(e.kind, ErrorKind::SessionExpired { renewed: None, .. }) =>
            {
                // Boxed: this rare path (it renews the session, which waits in turn) stays
                // out of every wait's future.
                Box::pin(self.wait_renewed(e, resend)).await
            }
            (other, _) => other,
        }
    }

    /// [`Session::wait`] after the server answered 404 for an expired HTTP session.
    async fn wait_renewed(
        &self,
        expired: Error,
        (method, (params, opts)): (String, (Option<Value>, RequestOptions)),
    ) -> Result<Result<Value, RpcError>, Error> {
        let ErrorKind::SessionExpired { session, .. } = &expired.kind else {
            return Err(expired);
        };
        let session = session.clone();
        self.renew_session(&session, &method).await?;
        let mut again = self.send(&method, params, &opts)?;
        again.resend = None;
        match self.wait_once(again).await {
            Err(mut e) => {
                if let ErrorKind::SessionExpired { body, .. } = &e.kind {
                    e.kind = ErrorKind::SessionExpired {
                        session,
                        renewed: self.inner.http.as_ref().and_then(|h| h.session_id()),
                        body: body.clone(),
                    };
                }
                Err(e)
            }
            ok => ok,
        }
    }

    /// Initializes a new session after the server forgot `expired` (unless another request
    /// did so already), and notes it in the transcript.
    async fn renew_session(&self, expired: &str, method: &str) -> Result<(), Error> {
        let Some(http) = &self.inner.http else {
            return Ok(());
        };
        let _guard = self.inner.renewing.lock().await;
        if http.session_id().as_deref() != Some(expired) {
            return Ok(());
        }
        {
            let mut st = self.inner.state.lock().expect("state lock");
            self.inner.push_transcript(
                &mut st,
                Direction::Sent,
                "note",
                None,
                format!(
                    "the server answered HTTP 404 for session {expired} during {method}: the session expired; initializing a new session and sending {method} again"
                )
                .as_bytes(),
            );
        }
        http.forget_session();
        let version = self.facts.protocol_version.clone();
        // Boxed: `initialize` waits through `wait`, which may renew a session.
        Box::pin(self.initialize(&version, true, self.config.connect_timeout))
            .await
            .map(|_| ())
    }

    async fn wait_once(&self, pending: PendingRequest) -> Result<Result<Value, RpcError>, Error> {
        let mut pending = pending;
        if let Some(kind) = pending.unsent.take() {
            return Box::pin(self.wait_unsent(pending, *kind)).await;
        }
        if self.inner.foreground.is_some() {
            if self.inner.due_for_turn(pending.sent_at) {
                tokio::task::yield_now().await;
                self.inner.took_turn(pending.sent_at);
            }
            if let Some(answer) = self.answer_in_foreground(&mut pending) {
                return answer;
            }
        }
        // Boxed behind `dyn`: the reader task's path (timers, progress, timeouts and
        // their cancellation) keeps its code out of the foreground's.
        let background: crate::BoxFuture<'_, _> = Box::pin(self.wait_in_background(pending));
        background.await
    }

    /// The answer to `pending` read in the foreground (see [`Inner::wait_in_foreground`]),
    /// or `None` when the wait goes on in the background.
    fn answer_in_foreground(
        &self,
        pending: &mut PendingRequest,
    ) -> Option<Result<Result<Value, RpcError>, Error>> {
        let slice = (pending.sent_at + pending.deadline).min(pending.sent_at + FOREGROUND_SLICE);
        let answer = self.inner.wait_in_foreground(&mut pending.rx, slice)?;
        Some(match answer {
            Ok(outcome) => self.check_result_type(&pending.method, outcome),
            Err(kind) => Err(self.inner.error(with_during(kind, &pending.method))),
        })
    }

    /// A request that could not be written: the server's exit (within a moment) is the
    /// failure if it comes, the write failure otherwise.
    async fn wait_unsent(
        &self,
        pending: PendingRequest,
        unsent: ErrorKind,
    ) -> Result<Result<Value, RpcError>, Error> {
        let PendingRequest {
            id, method, mut rx, ..
        } = pending;
        let exited = tokio::time::timeout(UNSENT_GRACE, &mut rx).await;
        self.inner.forget_pending(id);
        match exited {
            Ok(Ok(Err(kind @ ErrorKind::ServerExited { .. }))) => {
                Err(self.inner.error(with_during(kind, &method)))
            }
            _ => Err(self.inner.error(with_during(unsent, &method))),
        }
    }

    /// Waits for the reader task to deliver the answer, until the deadline (which progress
    /// may extend) passes.
    async fn wait_in_background(
        &self,
        pending: PendingRequest,
    ) -> Result<Result<Value, RpcError>, Error> {
        let PendingRequest {
            id,
            method,
            deadline,
            sent_at,
            progress_key,
            max_total,
            mut rx,
            resend: _,
            unsent: _,
        } = pending;
        let hard_limit = sent_at + max_total.unwrap_or(deadline * 10).max(deadline);
        let mut until = sent_at + deadline;
        let waited = loop {
            match tokio::time::timeout_at(until.into(), &mut rx).await {
                Ok(answer) => break Ok(answer),
                Err(elapsed) => {
                    // Progress since the deadline was set restarts it, up to the hard limit.
                    let last = progress_key.as_ref().and_then(|k| {
                        self.inner
                            .state
                            .lock()
                            .ok()
                            .and_then(|st| st.progress.get(k).and_then(|p| p.last_at))
                    });
                    match last.map(|t| (t + deadline).min(hard_limit)) {
                        Some(next) if next > until => until = next,
                        _ => break Err(elapsed),
                    }
                }
            }
        };
        let after = until.saturating_duration_since(sent_at);
        match waited {
            Ok(Ok(Ok(outcome))) => self.check_result_type(&method, outcome),
            Ok(Ok(Err(kind))) => Err(self.inner.error(with_during(kind, &method))),
            Ok(Err(_closed)) => Err(self.inner.error(ErrorKind::Closed)),
            Err(_elapsed) => {
                {
                    let mut st = self.inner.state.lock().expect("state lock");
                    st.pending.remove(id);
                    st.cancelled.insert(id);
                }
                if let Some(http) = &self.inner.http {
                    http.abort(id);
                }
                if method != "initialize" {
                    let _ = self.notify(
                        "notifications/cancelled",
                        Some(json!({"requestId": id, "reason": "timed out"})),
                    );
                }
                Err(self.inner.error(ErrorKind::Timeout {
                    method: method.into_owned(),
                    id,
                    after,
                }))
            }
        }
    }

    fn check_result_type(
        &self,
        method: &str,
        outcome: Result<Value, RpcError>,
    ) -> Result<Result<Value, RpcError>, Error> {
        if self.facts.era == Era::Modern
            && let Ok(result) = &outcome
        {
            let rt = result.get("resultType");
            let ok = match rt {
                None => true,
                Some(Value::String(s)) => match s.as_str() {
                    "complete" => true,
                    "input_required" => {
                        matches!(method, "tools/call" | "prompts/get" | "resources/read")
                    }
                    "task" => method == "tools/call" || method.starts_with("tasks/"),
                    _ => false,
                },
                Some(_) => false,
            };
            if ok {
                self.check_modern_result(method, result);
            }
            if !ok {
                return Err(self.inner.error(ErrorKind::InvalidResult {
                    method: method.into(),
                    reason: format!(
                        "resultType {} is not valid here",
                        rt.map(Value::to_string).unwrap_or_default()
                    ),
                }));
            }
        }
        Ok(outcome)
    }

    /// Records (without failing) what a 2026 result lacks: `resultType`, and the caching
    /// hints `ttlMs` and `cacheScope` on discover, list and read results.
    fn check_modern_result(&self, method: &str, result: &Value) {
        let mut problems = Vec::new();
        let rt = result.get("resultType").and_then(Value::as_str);
        if result.get("resultType").is_none() {
            problems.push("the result has no resultType".to_string());
        }
        let cacheable = matches!(
            method,
            "server/discover"
                | "tools/list"
                | "prompts/list"
                | "resources/list"
                | "resources/templates/list"
                | "resources/read"
                | "skills/list"
                | "skills/get"
        );
        if cacheable && rt.is_none_or(|t| t == "complete") {
            if result.get("ttlMs").is_none_or(|t| t.as_u64().is_none()) {
                problems.push("ttlMs is missing or not a non-negative integer".into());
            }
            if !matches!(
                result.get("cacheScope").and_then(Value::as_str),
                Some("public" | "private")
            ) {
                problems.push("cacheScope is missing or neither \"public\" nor \"private\"".into());
            }
        }
        if !problems.is_empty() {
            let kind = ErrorKind::Conformance {
                what: format!("{method} result"),
                reason: problems.join("; "),
            };
            if let Ok(mut st) = self.inner.state.lock() {
                self.inner.record_violation(&mut st, &kind, false);
            }
        }
    }

    /// Sends a request and waits for its answer: `Ok(Ok(result))`, `Ok(Err(json-rpc error))`,
    /// or a failure of the session.
    pub async fn request_outcome(
        &self,
        method: &str,
        params: Option<Value>,
        opts: &RequestOptions,
    ) -> Result<Result<Value, RpcError>, Error> {
        let pending = self.send(method, params, opts)?;
        self.wait(pending).await
    }

    /// [`Session::request`] with borrowed params (copied only where the message needs it).
    pub async fn request_borrowed(
        &self,
        method: &str,
        params: &Value,
        opts: &RequestOptions,
    ) -> Result<Value, Error> {
        match self.start_request(method, params, opts)? {
            Started::Answered(outcome) => outcome,
            Started::Waiting(pending) => self.finish_request(pending).await,
        }
    }

    /// Sends a request and, in the common case, reads its answer at once in the
    /// foreground, without a future: a caller on the hot path awaits only when the
    /// answer is not there ([`Started::Waiting`], finished by [`Session::finish_request`]).
    pub fn start_request(
        &self,
        method: &str,
        params: &Value,
        opts: &RequestOptions,
    ) -> Result<Started, Error> {
        let mut pending = self.send_params(method, Some(Cow::Borrowed(params)), opts)?;
        let now = self.inner.foreground.is_some()
            && pending.unsent.is_none()
            && pending.resend.is_none()
            && !self.inner.due_for_turn(pending.sent_at);
        match now
            .then(|| self.answer_in_foreground(&mut pending))
            .flatten()
        {
            Some(answer) => Ok(Started::Answered(
                answer.and_then(|outcome| self.rpc_result(method, outcome)),
            )),
            None => Ok(Started::Waiting(pending)),
        }
    }

    /// Waits for the answer of a request [`Session::start_request`] could not read at
    /// once. Boxed behind `dyn`: the wait's large future stays out of its callers'.
    pub fn finish_request(
        &self,
        pending: PendingRequest,
    ) -> crate::BoxFuture<'_, Result<Value, Error>> {
        Box::pin(async move {
            let method = pending.method.clone();
            let outcome = self.wait(pending).await?;
            self.rpc_result(&method, outcome)
        })
    }

    /// A result, or the JSON-RPC error answer as an `MCP-RPC-001` failure.
    fn rpc_result(&self, method: &str, outcome: Result<Value, RpcError>) -> Result<Value, Error> {
        outcome.map_err(|error| {
            self.inner.error(ErrorKind::Rpc {
                method: method.into(),
                error,
            })
        })
    }

    /// Sends a request; a JSON-RPC error answer becomes an `MCP-RPC-001` failure.
    pub async fn request(
        &self,
        method: &str,
        params: Option<Value>,
        opts: &RequestOptions,
    ) -> Result<Value, Error> {
        let outcome = self.request_outcome(method, params, opts).await?;
        self.rpc_result(method, outcome)
    }

    /// Cancels an in-flight request: the client stops waiting for it and tells the server
    /// (`notifications/cancelled`); a late answer is ignored.
    pub fn cancel(&self, pending: PendingRequest, reason: &str) -> Result<(), Error> {
        {
            let mut st = self.inner.state.lock().expect("state lock");
            st.pending.remove(pending.id);
            st.cancelled.insert(pending.id);
        }
        if let Some(http) = &self.inner.http {
            http.abort(pending.id);
        }
        self.notify(
            "notifications/cancelled",
            Some(json!({"requestId": pending.id, "reason": reason})),
        )
        .map_err(|k| self.inner.error(k))
    }

    /// Progress notifications received for a token, and the rule breaks seen.
    pub fn progress_of(&self, token: &Value) -> (Vec<Value>, Vec<String>) {
        let st = self.inner.state.lock().expect("state lock");
        match st.progress.get(&token.to_string()) {
            Some(p) => (p.events.clone(), p.problems.clone()),
            None => (Vec::new(), Vec::new()),
        }
    }

    /// Stops accepting progress for a token (its request ended).
    pub fn retire_progress_token(&self, token: &Value) {
        let mut st = self.inner.state.lock().expect("state lock");
        st.progress.remove(&token.to_string());
    }

    /// Waits for the oldest notification of `method` whose params match every `filter`
    /// entry, and takes it out of the inbox. Notifications are kept from the start of the
    /// session, so waiting after the call that caused one works.
    pub async fn wait_notification(
        &self,
        method: &str,
        filter: &[Match],
        timeout: Duration,
    ) -> Result<Notification, Error> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let notified = self.inner.inbox_changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let mut st = self.inner.state.lock().expect("state lock");
                if let Some(i) = st
                    .inbox
                    .iter()
                    .position(|n| n.method == method && filter.iter().all(|m| m.matches(&n.params)))
                {
                    return Ok(st.inbox.remove(i).expect("index found above"));
                }
                let dead = st.eof || matches!(st.fatal, Some(ErrorKind::NotificationFlood { .. }));
                if dead && let Some(fatal) = st.fatal.clone() {
                    drop(st);
                    return Err(self.inner.error(fatal));
                }
            }
            tokio::select! {
                _ = &mut notified => {}
                _ = tokio::time::sleep_until(deadline) => {
                    let st = self.inner.state.lock().expect("state lock");
                    let mut waiting: Vec<(String, usize)> = Vec::new();
                    for n in &st.inbox {
                        match waiting.iter_mut().find(|(m, _)| *m == n.method) {
                            Some((_, c)) => *c += 1,
                            None => waiting.push((n.method.clone(), 1)),
                        }
                    }
                    drop(st);
                    return Err(self.inner.error(ErrorKind::WaitTimeout { method: method.into(), filter: filter_text(filter), after: timeout, waiting }));
                }
            }
        }
    }

    /// The notifications waiting in the inbox (not taken).
    pub fn inbox(&self) -> Vec<Notification> {
        self.inner
            .state
            .lock()
            .map(|st| st.inbox.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// Takes every waiting notification of `method` out of the inbox.
    pub fn take_notifications(&self, method: &str) -> Vec<Notification> {
        let mut st = self.inner.state.lock().expect("state lock");
        let (taken, kept): (VecDeque<_>, VecDeque<_>) =
            st.inbox.drain(..).partition(|n| n.method == method);
        st.inbox = kept;
        taken.into_iter().collect()
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
                }
            }
            (None, None) => ShutdownReport {
                stage: ShutdownStage::Disconnected,
                status: None,
                elapsed: Duration::ZERO,
                ended_stragglers: false,
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

fn with_during(kind: ErrorKind, method: &str) -> ErrorKind {
    match kind {
        ErrorKind::ServerExited {
            during: None,
            status,
        } => ErrorKind::ServerExited {
            during: Some(method.into()),
            status,
        },
        other => other,
    }
}

/// The versions an "unsupported protocol version" error names in `data.supported`.
fn supported_versions(rpc: &RpcError) -> Vec<String> {
    rpc.data
        .as_ref()
        .and_then(|d| d.get("supported"))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pending_requests_are_found_by_id_in_any_order() {
        let mut pending = Pending::default();
        let mut receivers = Vec::new();
        let slot = |receivers: &mut Vec<_>, method: &str| {
            let (tx, rx) = oneshot::channel();
            receivers.push(rx);
            PendingSlot {
                method: method_name(method),
                log_level: false,
                tx,
            }
        };
        for id in [1, 2, 3, 7, 5] {
            pending.insert(id, slot(&mut receivers, &format!("m{id}")));
        }
        pending.insert(3, slot(&mut receivers, "again"));
        let ids: Vec<i64> = pending.0.iter().map(|(i, _)| *i).collect();
        assert_eq!(ids, [1, 2, 3, 5, 7]);
        assert!(pending.contains(7) && pending.contains(1) && !pending.contains(4));
        assert_eq!(
            pending.remove(3).map(|s| s.method).as_deref(),
            Some("again")
        );
        assert!(pending.remove(3).is_none());
        assert_eq!(pending.remove(7).map(|s| s.method).as_deref(), Some("m7"));
        assert_eq!(pending.remove(1).map(|s| s.method).as_deref(), Some("m1"));
        let rest: Vec<String> = pending.take_all().map(|s| s.method.into_owned()).collect();
        assert_eq!(rest, ["m2", "m5"]);
        assert!(!pending.contains(2) && pending.slots().next().is_none());
    }

    #[test]
    fn match_paths_and_numbers() {
        let p = json!({"data": {"status": "done", "n": 1, "list": [{"x": true}]}});
        assert!(Match::dotted("data.status", json!("done")).matches(&p));
        assert!(Match::dotted("data.n", json!(1.0)).matches(&p));
        assert!(!Match::dotted("data.n", json!("1")).matches(&p));
        assert!(Match::dotted("data.list.0.x", json!(true)).matches(&p));
        assert!(!Match::dotted("data.missing", json!(null)).matches(&p));
        let m = Match {
            path: vec![
                "_meta".into(),
                "io.modelcontextprotocol/subscriptionId".into(),
            ],
            value: json!(3),
        };
        assert!(m.matches(&json!({"_meta": {"io.modelcontextprotocol/subscriptionId": 3}})));
    }

    #[test]
    fn behaviour_answers() {
        let b = ClientBehaviour::everything();
        assert_eq!(b.answer("ping", &Value::Null).unwrap(), json!({}));
        assert_eq!(
            b.answer("roots/list", &Value::Null).unwrap()["roots"][0]["uri"],
            "file:///tmp/mcpr-root"
        );
        assert_eq!(
            b.answer("sampling/createMessage", &json!({})).unwrap()["role"],
            "assistant"
        );
        assert_eq!(
            b.answer("elicitation/create", &json!({"mode": "form"}))
                .unwrap()["action"],
            "accept"
        );
        let none = ClientBehaviour::default();
        assert_eq!(
            none.answer("roots/list", &Value::Null).unwrap_err().code,
            -32601
        );
        assert_eq!(
            none.answer("foo/bar", &Value::Null).unwrap_err().code,
            -32601
        );
        let defaults = b
            .answer(
                "elicitation/create",
                &json!({"requestedSchema": {"properties": {"name": {"type": "string", "default": "John"}, "age": {"type": "integer", "default": 30}}}}),
            )
            .unwrap();
        assert_eq!(defaults["content"], json!({"name": "John", "age": 30}));
        let form_only = ClientBehaviour {
            elicitation: Some(ElicitationAnswer::default()),
            ..Default::default()
        };
        assert_eq!(
            form_only
                .answer("elicitation/create", &json!({"mode": "url"}))
                .unwrap_err()
                .code,
            -32602
        );
        let caps = b.capabilities(Era::Legacy);
        assert!(caps["roots"]["listChanged"].as_bool().unwrap());
        assert!(caps["extensions"][EXT_TASKS].is_object());
        assert!(b.capabilities(Era::Modern).get("tasks").is_none());
    }
}
