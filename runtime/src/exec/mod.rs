//! Execution of one test of a Suite IR: its own session, its steps in textual order, the
//! variables they read and write, and the checks of every step (mcp-test-language-1.md
//! §4.4–§4.6, architecture.md "Compatibility decisions").

pub mod assert;
mod legacy;
pub mod secrets;
pub mod values;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use mcpr_compiler::ir::{
    self, Assert, NativeAction, NativeStep, Phase, SourceLocation, Status, Step, StepKind,
};
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::client::{CallOptions, Client, Target};
use crate::codes::RunCode;
use crate::error::{Error, ErrorKind};
use crate::protocol::RpcError;
use crate::session::{
    ClientBehaviour, ElicitationAnswer, Match, ProtocolChoice, RequestOptions, Root,
    SamplingAnswer, SessionConfig,
};
use crate::transcript::Direction;
use crate::transport::http::HttpConfig;
use crate::transport::stdio::StdioConfig;

use assert::{McpError, Mismatch, check_assertion, check_error, show};
use values::Vars;

/// The runner's own request deadline when neither the step nor the suite sets one.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// How a test ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Every step ran and every expectation held.
    Passed,
    /// An expectation did not hold.
    Failed,
    /// The server or the environment broke (no session, the server died, …).
    Errored,
    /// Not run: `skip`, or an unmet `requires`.
    Skipped,
    /// Not run: a dependency did not pass.
    Blocked,
}

impl Outcome {
    /// The lower-case name used in every report.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Passed => "passed",
            Outcome::Failed => "failed",
            Outcome::Errored => "errored",
            Outcome::Skipped => "skipped",
            Outcome::Blocked => "blocked",
        }
    }
}

/// Why a step or a test did not pass.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Failure {
    /// Stable code (`MCP-ASSERT-001`, `MCP-TIMEOUT-001`, `MCP-DEP-003`, …).
    pub code: RunCode,
    /// What went wrong, in one or a few sentences.
    pub message: String,
    /// What was expected, as text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// What came back, as text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actual: Option<String>,
    /// The failing step's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    /// Where the failing statement is written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<SourceLocation>,
    /// The flow calls the failing step came from, outermost first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flow: Vec<ir::FlowFrame>,
    /// The last MCP message exchanged, with its direction and kind.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_message: Option<String>,
    /// The server's exit status, when it died.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_status: Option<String>,
    /// The last lines of the server's stderr, when it died.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stderr_tail: Option<String>,
}

impl Failure {
    /// A failure with its code and message, and nothing else known.
    pub fn new(code: RunCode, message: impl Into<String>) -> Failure {
        Failure {
            code,
            message: message.into(),
            expected: None,
            actual: None,
            step: None,
            location: None,
            flow: Vec::new(),
            last_message: None,
            exit_status: None,
            stderr_tail: None,
        }
    }

    fn from_error(e: &Error) -> Failure {
        Failure {
            last_message: e.last_message.as_ref().map(|m| {
                let dir = match m.direction {
                    Direction::Sent => "sent",
                    Direction::Received => "received",
                };
                format!("({dir}, {}) {}", m.kind, m.text)
            }),
            exit_status: e.exit_status.clone(),
            stderr_tail: e.stderr_tail.clone().filter(|t| !t.is_empty()),
            ..Failure::new(e.kind.run_code(), e.kind.to_string())
        }
    }
}

/// Status of one step that ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StepStatus {
    /// Ran, and its expectations held.
    Passed,
    /// An expectation did not hold.
    Failed,
    /// The server or the transport broke.
    Errored,
}

/// One step that ran (steps skipped after a failure are not reported).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StepResult {
    /// Display name.
    pub name: String,
    /// JSON-RPC method, `native/<action>` or `utility/<function>`.
    pub method: String,
    /// Phase it belongs to.
    pub phase: Phase,
    /// How it went.
    pub status: StepStatus,
    /// Milliseconds, request and checks together.
    pub duration_ms: u64,
    /// Where it is written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceLocation>,
    /// Why it did not pass.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
    /// What the request returned (a result, or a tool result with `isError`), recorded only
    /// when the run keeps transcripts (`--transcript`, parity runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response: Option<Value>,
    /// The JSON-RPC error the request got (`{code, message, data}`), recorded like `response`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
    /// What the step printed (`echo`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
}

/// The result of one test.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TestResult {
    /// Test id (explicit, else the slug of the name).
    pub id: String,
    /// Display name.
    pub name: String,
    /// How it ended.
    pub status: Outcome,
    /// Milliseconds from opening the session to the last step.
    pub duration_ms: u64,
    /// The steps that ran, in order.
    pub steps: Vec<StepResult>,
    /// Values published with `export`.
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub outputs: Map<String, Value>,
    /// Why it did not pass (the first failing step's failure, or why it did not run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
    /// The negotiated protocol version, when a session was opened.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    /// Every message of the session, when the run keeps transcripts (`--transcript`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transcript: Option<TestTranscript>,
    /// For a data row: `{source, row, id, fingerprint}` (the test's `data`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

/// The messages of a test's session, oldest first.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TestTranscript {
    /// The kept messages (the newest ones when the session exceeded its limit).
    pub entries: Vec<crate::transcript::Entry>,
    /// Older messages that were dropped.
    pub dropped: u64,
}

impl TestResult {
    /// A test that did not run (skipped or blocked).
    pub fn not_run(id: &str, name: &str, status: Outcome, failure: Failure) -> TestResult {
        TestResult {
            id: id.into(),
            name: name.into(),
            status,
            duration_ms: 0,
            steps: Vec::new(),
            outputs: Map::new(),
            failure: Some(failure),
            protocol_version: None,
            transcript: None,
            data: None,
        }
    }
}

/// The id a test is known by: `id`, else the slug of its name (§4.7).
pub fn test_id(test: &ir::Test) -> String {
    match &test.id {
        Some(id) => id.clone(),
        None => slug(&test.name),
    }
}

/// Lower case, every run of characters outside `a-z0-9` becomes `-`, trimmed; `test` when
/// nothing is left.
pub fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.to_lowercase().chars() {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let t = out.trim_matches('-');
    if t.is_empty() {
        "test".into()
    } else {
        t.into()
    }
}

/// Everything one test needs besides the IR.
#[derive(Debug, Clone)]
pub struct TestInput {
    /// The server to run against (the suite target, a named server, or an override).
    pub target: ir::Target,
    /// Outputs of the dependencies: id → {key: value}.
    pub deps: Map<String, Value>,
    /// The loaded state (`${state.…}`), an object.
    pub state: Value,
    /// Deadline of the handshake.
    pub connect_timeout: Duration,
    /// The protocol version to speak; probed when `None`.
    pub protocol: Option<String>,
    /// The snapshot store, shared by the tests of a run (`None`: snapshot expectations fail).
    pub snapshots: Option<std::sync::Arc<std::sync::Mutex<crate::snapshot::SnapshotStore>>>,
    /// Keep each step's response and the session's messages in the result.
    pub record: bool,
}

/// Turns an IR target into a runtime target, interpolating `${env.…}` and `${state.…}`.
pub fn runtime_target(target: &ir::Target, state: &Value) -> Result<Target, String> {
    let mut vars = Vars::new();
    vars.set("state", state.clone());
    let text = |s: &str| vars.interpolate_text(s);
    Ok(match target {
        ir::Target::Stdio(t) => {
            let args = t
                .args
                .iter()
                .flatten()
                .map(|a| text(a))
                .collect::<Result<Vec<_>, _>>()?;
            let mut stdio = StdioConfig::new(text(&t.command)?, args);
            if let Some(cwd) = &t.cwd {
                stdio.cwd = Some(text(cwd)?.into());
            }
            if let Some(env) = &t.env {
                for (k, v) in env.iter() {
                    stdio.env.insert(k.to_string(), text(v)?);
                }
            }
            Target::Stdio(stdio)
        }
        ir::Target::StreamableHttp(h) | ir::Target::Sse(h) => {
            if h.oauth.is_some() {
                return Err("`oauth` targets are not supported by this runner (no interactive login); use `Token from` or an Authorization header instead".into());
            }
            if h.token_from.is_some() {
                return Err("the target's `tokenFrom` command has not been run (auth::resolve_credentials runs it before the tests)".into());
            }
            let mut http = HttpConfig::new(text(&h.url)?);
            if let Some(headers) = &h.headers {
                let mut map = BTreeMap::new();
                for (k, v) in headers.iter() {
                    map.insert(k.to_string(), text(v)?);
                }
                http.headers = map;
            }
            if matches!(target, ir::Target::Sse(_)) {
                Target::Sse(http)
            } else {
                Target::Http(http)
            }
        }
    })
}

/// The suite's `client` block as the session's client behaviour.
///
/// Without settings the client declares sampling (answering “deterministic response” from
/// model `mcprigor-fixture`) and elicitation (answering `decline`) and no roots, as the
/// reference runner does.
pub fn client_behaviour(client: Option<&ir::ClientBehavior>) -> ClientBehaviour {
    let mut b = ClientBehaviour {
        sampling: Some(SamplingAnswer {
            text: "deterministic response".into(),
            model: "mcprigor-fixture".into(),
            ..SamplingAnswer::default()
        }),
        elicitation: Some(ElicitationAnswer {
            action: "decline".into(),
            content: None,
            url_mode: false,
        }),
        ..ClientBehaviour::default()
    };
    // The settings as JSON, as a `configure-client` step's are after interpolation.
    if let Some(Ok(Value::Object(client))) = client.map(serde_json::to_value) {
        apply_client_settings(&mut b, &client);
    }
    b
}

/// Applies `roots` / `sampling` / `elicitation` settings (the suite's `client` block or
/// a `configure-client` step's `behavior`) over a behaviour; absent keys keep theirs.
pub fn apply_client_settings(b: &mut ClientBehaviour, client: &Map<String, Value>) {
    if let Some(Value::Bool(only)) = client.get("preparedAnswersOnly") {
        b.prepared_answers_only = *only;
    }
    if let Some(Value::Object(ext)) = client.get("extensions") {
        for (k, v) in ext {
            b.extensions.insert(k.clone(), v.clone());
        }
    }
    if let Some(Value::Array(roots)) = client.get("roots") {
        b.roots = Some(
            roots
                .iter()
                .filter_map(|r| match r {
                    Value::String(uri) => Some(Root {
                        uri: uri.clone(),
                        name: None,
                    }),
                    Value::Object(o) => Some(Root {
                        uri: o.get("uri")?.as_str()?.to_string(),
                        name: o.get("name").and_then(Value::as_str).map(str::to_string),
                    }),
                    _ => None,
                })
                .collect(),
        );
    }
    if let Some(s) = client.get("sampling") {
        let mut answer = b.sampling.clone().unwrap_or_default();
        match s {
            Value::String(text) => answer.text = text.clone(),
            Value::Object(o) => {
                if let Some(t) = o
                    .get("text")
                    .or_else(|| o.get("response"))
                    .and_then(Value::as_str)
                {
                    answer.text = t.to_string();
                }
                if let Some(m) = o.get("model").and_then(Value::as_str) {
                    answer.model = m.to_string();
                }
            }
            _ => {}
        }
        b.sampling = Some(answer);
    }
    if let Some(e) = client.get("elicitation") {
        let mut answer = ElicitationAnswer {
            action: "accept".into(),
            content: None,
            url_mode: false,
        };
        match e {
            Value::String(action) => {
                answer.action = action.clone();
                answer.content = None;
            }
            Value::Object(o) => {
                if let Some(a) = o.get("action").and_then(Value::as_str) {
                    answer.action = a.to_string();
                }
                answer.content = o.get("content").cloned();
            }
            _ => {}
        }
        b.elicitation = Some(answer);
    }
}

/// What a request-like step got back.
enum Reply {
    /// A result.
    Ok(Value),
    /// A JSON-RPC error.
    Rpc(RpcError),
    /// A tool result with `isError: true`.
    ToolError(Value),
}

impl Reply {
    fn as_error(&self) -> Option<McpError> {
        match self {
            Reply::Ok(_) => None,
            Reply::Rpc(e) => Some(McpError {
                code: Some(e.code),
                message: e.message.clone(),
            }),
            Reply::ToolError(r) => Some(McpError {
                code: None,
                message: crate::client::content_text(r),
            }),
        }
    }

    /// The value JSON assertions, captures and exports read.
    fn value(&self) -> Value {
        self.value_ref().into_owned()
    }

    /// [`Reply::value`] without copying a result.
    fn value_ref(&self) -> Cow<'_, Value> {
        match self {
            Reply::Ok(v) | Reply::ToolError(v) => Cow::Borrowed(v),
            Reply::Rpc(e) => {
                Cow::Owned(json!({"code": e.code, "message": e.message, "data": e.data}))
            }
        }
    }
}

fn from_result(r: Result<Value, Error>) -> Result<Reply, Error> {
    match r {
        Ok(v) => Ok(Reply::Ok(v)),
        Err(e) => match e.rpc_error() {
            Some(rpc) => Ok(Reply::Rpc(rpc.clone())),
            None => Err(e),
        },
    }
}

/// A session-level error as a step failure (`broke` when the session cannot go on).
fn broke(e: Error) -> StepFail {
    StepFail {
        broke: session_broke(&e.kind),
        failure: Box::new(Failure::from_error(&e)),
    }
}

fn session_broke(kind: &ErrorKind) -> bool {
    matches!(
        kind,
        ErrorKind::Spawn { .. }
            | ErrorKind::Handshake { .. }
            | ErrorKind::UnsupportedVersion { .. }
            | ErrorKind::ServerExited { .. }
            | ErrorKind::Closed
            | ErrorKind::Write { .. }
            | ErrorKind::Http { .. }
            | ErrorKind::Unauthorized { .. }
            | ErrorKind::SessionExpired { .. }
            | ErrorKind::NotificationFlood { .. }
    )
}

fn step_method(step: &Step) -> String {
    match &step.kind {
        StepKind::Tool(_) => "tools/call".into(),
        StepKind::Request(r) => r.method.clone(),
        StepKind::Set(s) => format!("utility/{}", s.function),
        StepKind::Native(n) => format!(
            "native/{}",
            serde_json::to_value(n.action())
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default()
        ),
    }
}

fn step_name(step: &Step) -> String {
    if let Some(n) = &step.name {
        return n.clone();
    }
    match &step.kind {
        StepKind::Tool(t) => format!("Call tool “{}”", t.name),
        StepKind::Request(r) => format!("Send “{}”", r.method),
        StepKind::Set(s) => format!("Set “{}” using “{}”", s.variable, s.function),
        StepKind::Native(_) => step_method(step),
    }
}

/// Runs one test: opens its session, checks its requirements, runs its steps and closes
/// the session. Never panics on a misbehaving server; every problem becomes the result.
pub async fn run_test(suite: &ir::Suite, test: &ir::Test, input: TestInput) -> TestResult {
    let (result, client) = run_test_open(suite, test, input).await;
    if let Some(c) = client {
        c.close().await;
    }
    result
}

/// Like [`run_test`], but hands back the still-open session so the caller can close it off
/// the critical path (the scheduler closes sessions in the background).
pub async fn run_test_open(
    suite: &ir::Suite,
    test: &ir::Test,
    input: TestInput,
) -> (TestResult, Option<Client>) {
    let id = test_id(test);
    let started = Instant::now();
    let default_timeout = suite
        .defaults
        .as_ref()
        .and_then(|d| d.timeout_ms)
        .map_or(DEFAULT_TIMEOUT, Duration::from_millis);
    let mut result = TestResult {
        id: id.clone(),
        name: test.name.clone(),
        status: Outcome::Passed,
        duration_ms: 0,
        steps: Vec::new(),
        outputs: Map::new(),
        failure: None,
        protocol_version: None,
        transcript: None,
        data: test.data.clone().map(Value::Object),
    };
    let target = match runtime_target(&input.target, &input.state) {
        Ok(t) => t,
        Err(e) => {
            result.status = Outcome::Errored;
            result.failure = Some(Failure::new(RunCode::TargetUnusable, e));
            return (result, None);
        }
    };
    let config = SessionConfig {
        request_timeout: default_timeout,
        connect_timeout: input.connect_timeout,
        behaviour: client_behaviour(suite.client.as_ref()),
        protocol: match &input.protocol {
            Some(v) => ProtocolChoice::Pinned(v.clone()),
            None => ProtocolChoice::Auto,
        },
        ..SessionConfig::default()
    };
    let client = match Client::connect_to(target, config).await {
        Ok(c) => c,
        Err(e) => {
            result.status = Outcome::Errored;
            result.failure = Some(Failure::from_error(&e));
            result.duration_ms = started.elapsed().as_millis() as u64;
            return (result, None);
        }
    };
    result.protocol_version = Some(client.session().protocol_version().to_string());
    if let Some(reason) = unmet_requirement(&client, test.requires.as_ref()) {
        result.status = Outcome::Skipped;
        result.failure = Some(reason);
        result.duration_ms = started.elapsed().as_millis() as u64;
        return (result, Some(client));
    }

    let mut vars = Vars::new();
    vars.set("state", input.state.clone());
    vars.set("deps", Value::Object(input.deps.clone()));
    if let Some(vs) = &test.variables {
        for (k, v) in vs {
            vars.set(k.clone(), v.clone());
        }
    }
    let mut runner = StepRunner {
        client: &client,
        vars,
        default_timeout,
        sequence: 0,
        outputs: Map::new(),
        log_level: None,
        test_id: id.clone(),
        snapshots: input.snapshots.clone(),
        record: input.record,
        reply: None,
        last: None,
        task: None,
        output: None,
        listen: None,
    };
    let keep_going = test.continue_on_failure == Some(true);
    let mut failed = false;
    let mut stopped = false;
    for step in &test.steps {
        let cleanup = step.phase == Some(Phase::Cleanup) || step.always == Some(true);
        if (failed && !keep_going || stopped) && !cleanup {
            continue;
        }
        let sr = runner.run(step).await;
        // With continueOnFailure, only a broken session or an unresolvable variable stops.
        if sr.status == StepStatus::Errored
            || sr
                .failure
                .as_ref()
                .is_some_and(|f| f.code == RunCode::UnresolvedVariable)
        {
            stopped = true;
        }
        if sr.status != StepStatus::Passed {
            if result.failure.is_none() {
                result.failure = sr.failure.clone();
            }
            let status = if sr.status == StepStatus::Errored {
                Outcome::Errored
            } else {
                Outcome::Failed
            };
            if result.status == Outcome::Passed || status == Outcome::Errored {
                result.status = status;
            }
            failed = true;
        }
        result.steps.push(sr);
    }
    result.outputs = runner.outputs;
    result.duration_ms = started.elapsed().as_millis() as u64;
    if input.record {
        let (entries, dropped) = client.session().transcript();
        result.transcript = Some(TestTranscript { entries, dropped });
    }
    (result, Some(client))
}

fn unmet_requirement(client: &Client, req: Option<&ir::Requirements>) -> Option<Failure> {
    let req = req?;
    for cap in req.capabilities.iter().flatten() {
        let path: Vec<&str> = cap.split('.').collect();
        if !client.server_has(&path) {
            return Some(Failure::new(
                RunCode::MissingCapability,
                format!("the server does not declare capability {cap}"),
            ));
        }
    }
    if let Some(versions) = &req.protocol_versions {
        let got = client.session().protocol_version();
        if !versions.iter().any(|v| v == got) {
            return Some(Failure::new(
                RunCode::ProtocolNotRequired,
                format!(
                    "the negotiated protocol version {got} is not one of {}",
                    versions.join(", ")
                ),
            ));
        }
    }
    None
}

struct StepRunner<'a> {
    client: &'a Client,
    vars: Vars,
    default_timeout: Duration,
    sequence: u64,
    outputs: Map<String, Value>,
    log_level: Option<String>,
    test_id: String,
    snapshots: Option<std::sync::Arc<std::sync::Mutex<crate::snapshot::SnapshotStore>>>,
    /// Keep what each step got back.
    record: bool,
    /// What the current step got back: `(response, error)`.
    reply: Option<(Option<Value>, Option<Value>)>,
    /// The response of the last step that talked to the server (legacy checks read it).
    last: Option<legacy::LastResponse>,
    /// The last task handle or state seen.
    task: Option<Value>,
    /// What the running step printed.
    output: Option<String>,
    /// The 2026 `subscriptions/listen` stream opened by subscribe/notification steps.
    listen: legacy::Listen,
}

/// A step that did not pass, before location and last message are added.
struct StepFail {
    broke: bool,
    failure: Box<Failure>,
}

impl From<Mismatch> for StepFail {
    fn from(m: Mismatch) -> StepFail {
        StepFail {
            broke: false,
            failure: Box::new(Failure {
                expected: m.expected,
                actual: m.actual,
                ..Failure::new(m.code, m.message)
            }),
        }
    }
}

fn fail(code: RunCode, message: impl Into<String>) -> StepFail {
    StepFail {
        broke: false,
        failure: Box::new(Failure::new(code, message)),
    }
}

impl StepRunner<'_> {
    async fn run(&mut self, step: &Step) -> StepResult {
        let name = step_name(step);
        let started = Instant::now();
        self.reply = None;
        let outcome = self.run_inner(step, &name).await;
        let (response, error) = self.reply.take().unwrap_or((None, None));
        let duration_ms = started.elapsed().as_millis() as u64;
        let (status, failure) = match outcome {
            Ok(()) => (StepStatus::Passed, None),
            Err(f) => {
                let mut failure = *f.failure;
                if matches!(failure.code, RunCode::Timeout | RunCode::NoNotification) {
                    failure.message = format!("step “{name}” timed out: {}", failure.message);
                }
                failure.step = Some(name.clone());
                failure.location = step.source.clone();
                failure.flow = step.flow.clone();
                if failure.last_message.is_none() {
                    failure.last_message = self.client.session().last_message().map(|m| {
                        let dir = match m.direction {
                            Direction::Sent => "sent",
                            Direction::Received => "received",
                        };
                        format!("({dir}, {}) {}", m.kind, m.text)
                    });
                }
                if let Some(status) = self.client.session().exit_status() {
                    failure.exit_status.get_or_insert(status);
                    let tail = self.client.session().stderr_tail();
                    if failure.stderr_tail.is_none() && !tail.is_empty() {
                        failure.stderr_tail = Some(tail);
                    }
                }
                let broke = f.broke || self.client.session().exit_status().is_some();
                (
                    if broke {
                        StepStatus::Errored
                    } else {
                        StepStatus::Failed
                    },
                    Some(failure),
                )
            }
        };
        StepResult {
            name,
            method: step_method(step),
            phase: step.phase.unwrap_or(Phase::Test),
            status,
            duration_ms,
            source: step.source.clone(),
            failure,
            response,
            error,
            output: self.output.take(),
        }
    }

    fn timeout_of(&self, step: &Step) -> Duration {
        let native = match &step.kind {
            StepKind::Native(n) => n.timeout_ms(),
            _ => None,
        };
        step.timeout_ms
            .or(native)
            .map_or(self.default_timeout, Duration::from_millis)
    }

    async fn run_inner(&mut self, step: &Step, name: &str) -> Result<(), StepFail> {
        if let StepKind::Set(set) = &step.kind {
            let args = match &set.arguments {
                Some(a) => self
                    .vars
                    .interpolate(&Value::Object(a.clone()))
                    .map_err(|e| fail(RunCode::UnresolvedVariable, e))?,
                None => Value::Object(Map::new()),
            };
            let args = args.as_object().cloned().unwrap_or_default();
            let v = values::builtin(&set.function, &args).map_err(|e| {
                let code = if e.starts_with("unknown function") {
                    RunCode::UnknownFunction
                } else {
                    RunCode::FunctionFailed
                };
                fail(code, format!("{}: {e}", set.function))
            })?;
            self.vars.set(set.variable.clone(), v);
            return Ok(());
        }
        let timeout = self.timeout_of(step);
        let started = Instant::now();
        let expects_error = step.assert.as_ref().and_then(|a| a.status) == Some(Status::Error);
        let native = match &step.kind {
            StepKind::Native(n) => Some(n.action()),
            _ => None,
        };
        // The request has its own deadline; this guard names the step if anything else hangs.
        let guard = timeout + Duration::from_secs(2);
        let reply = match tokio::time::timeout(guard, self.perform(step, timeout)).await {
            // Waiting for a notification while expecting an error: nothing may arrive.
            Ok(Err(f))
                if native == Some(NativeAction::AwaitNotification)
                    && expects_error
                    && matches!(f.failure.code, RunCode::Timeout | RunCode::NoNotification) =>
            {
                return Ok(());
            }
            Ok(Ok(reply)) if native == Some(NativeAction::AwaitNotification) && expects_error => {
                return Err(StepFail::from(Mismatch {
                    code: RunCode::Assertion,
                    message: "expected no notification, but one arrived".into(),
                    expected: Some("no matching notification before the deadline".into()),
                    actual: Some(show(&reply.value())),
                }));
            }
            // A request that ran out of time while an error is expected: the expected
            // error, worded as mcp-tester's Go client words it.
            Ok(Err(f))
                if expects_error
                    && f.failure.code == RunCode::Timeout
                    && !matches!(native, Some(NativeAction::Check)) =>
            {
                let message = format!("context deadline exceeded ({})", f.failure.message);
                self.last = Some(legacy::LastResponse {
                    value: json!({"code": null, "message": message}),
                    text: legacy::TextView::Given(message.clone()),
                    error: Some(json!({"code": null, "message": message})),
                    is_error: false,
                });
                return Ok(());
            }
            Ok(Ok(reply)) => reply,
            Ok(Err(f)) => return Err(f),
            Err(_) => {
                return Err(fail(
                    RunCode::StepTimeout,
                    format!(
                        "step “{name}” did not finish within {}",
                        crate::error::fmt_duration(guard)
                    ),
                ));
            }
        };
        let elapsed = started.elapsed();
        if self.record {
            self.reply = Some(match &reply {
                Reply::Rpc(_) => (None, Some(reply.value())),
                _ => (Some(reply.value()), None),
            });
        }
        let reads_only = matches!(
            native,
            Some(
                NativeAction::Check
                    | NativeAction::SaveText
                    | NativeAction::Echo
                    | NativeAction::Prompt
                    | NativeAction::QueueAnswer
                    | NativeAction::ConfigureClient
            )
        );
        if !reads_only {
            self.last = Some(legacy::LastResponse::of(step_method(step), &reply));
        }
        if native == Some(NativeAction::Check) && expects_error {
            // A check under `expect_error` must fail; its failure becomes the last response.
            let mut inner = step.assert.clone().unwrap_or_default();
            inner.status = None;
            let a = self.interpolated_assert(&inner)?;
            let value = reply.value();
            let failed = a
                .json
                .iter()
                .flat_map(|j| j.as_slice())
                .find_map(|assertion| check_assertion(&value, assertion).err());
            return match failed {
                Some(m) => {
                    let message = format!("assertion failed: {}", m.message);
                    self.last = Some(legacy::LastResponse {
                        value: json!({"code": null, "message": message}),
                        text: legacy::TextView::Given(message.clone()),
                        error: Some(json!({"code": null, "message": message})),
                        is_error: false,
                    });
                    Ok(())
                }
                None => Err(StepFail::from(Mismatch {
                    code: RunCode::Assertion,
                    message: "expected the check to fail, but it held".into(),
                    expected: Some("a failing check".into()),
                    actual: Some(show(&value)),
                })),
            };
        }
        let assert = match &step.assert {
            Some(a) => Some(self.interpolated_assert(a)?),
            None => None,
        };
        let expect_error = assert.as_ref().and_then(|a| a.status) == Some(Status::Error);
        match reply.as_error() {
            None if expect_error => {
                return Err(StepFail::from(Mismatch {
                    code: RunCode::Assertion,
                    message: "expected an MCP error, but the request succeeded".into(),
                    expected: Some("an error (a JSON-RPC error or a result with isError)".into()),
                    actual: Some(show(&reply.value())),
                }));
            }
            Some(err) if !expect_error => {
                let (code, what) = match &reply {
                    Reply::ToolError(_) => {
                        (RunCode::ToolError, "the tool reported an error (isError)")
                    }
                    _ => (
                        RunCode::RpcError,
                        "the server answered with a JSON-RPC error",
                    ),
                };
                return Err(fail(
                    code,
                    match err.code {
                        Some(c) => format!("{what}: {c} {}", err.message),
                        None => format!("{what}: {}", err.message),
                    },
                ));
            }
            Some(err) => {
                if let Some(want) = assert.as_ref().and_then(|a| a.error.as_ref()) {
                    check_error(&err, want)?;
                }
            }
            None => {}
        }
        let value = reply.value_ref();
        let value: &Value = &value;
        if let Some(a) = &assert {
            for assertion in a.json.iter().flat_map(|j| j.as_slice()) {
                check_assertion(value, assertion)?;
                if let Some(snap) = &assertion.snapshot {
                    self.check_snapshot(value, assertion.path.as_deref(), snap)?;
                }
            }
            if let Some(max) = a.max_duration_ms
                && elapsed > Duration::from_millis(max)
            {
                return Err(fail(
                    RunCode::TooSlow,
                    format!(
                        "step took {} ms, more than the allowed {max} ms",
                        elapsed.as_millis()
                    ),
                ));
            }
        }
        for (var, path) in step.capture.iter().flat_map(|c| c.iter()) {
            match values::lookup(value, path).map_err(|e| fail(RunCode::Capture, e))? {
                Some(v) => self.vars.set(var.to_string(), v.clone()),
                None => {
                    return Err(fail(
                        RunCode::Capture,
                        format!("cannot save {path} as {var:?}: it is absent in the result"),
                    ));
                }
            }
        }
        for (key, export) in step.export.iter().flat_map(|e| e.iter()) {
            match values::lookup(value, &export.path).map_err(|e| fail(RunCode::Export, e))? {
                Some(v) => {
                    self.outputs.insert(key.to_string(), v.clone());
                }
                None => {
                    return Err(fail(
                        RunCode::Export,
                        format!(
                            "cannot export {} as {key:?}: it is absent in the result",
                            export.path
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    fn check_snapshot(
        &self,
        value: &Value,
        path: Option<&str>,
        snap: &ir::SnapshotAssertion,
    ) -> Result<(), StepFail> {
        let path = path.unwrap_or("$");
        let at = values::lookup(value, path)
            .map_err(|e| fail(RunCode::Assertion, e))?
            .cloned()
            .ok_or_else(|| {
                fail(
                    RunCode::SnapshotMissing,
                    format!("snapshot {:?}: {path} is absent in the result", snap.name),
                )
            })?;
        let Some(store) = &self.snapshots else {
            return Err(fail(
                RunCode::SnapshotStore,
                format!("snapshot {:?}: no snapshot store in this run", snap.name),
            ));
        };
        let key = format!("{}.{}", self.test_id, snap.name);
        let ignore = snap.ignore.clone().unwrap_or_default();
        let mut store = store.lock().map_err(|_| {
            fail(
                RunCode::SnapshotStore,
                "the snapshot store is unusable after a panic",
            )
        })?;
        store.check(&key, &at, &ignore).map_err(StepFail::from)
    }

    fn interpolated_assert<'a>(&self, a: &'a Assert) -> Result<Cow<'a, Assert>, StepFail> {
        if !values::mentions_template(a) {
            // Nothing to fill in (the usual case): the expectation as written.
            return Ok(Cow::Borrowed(a));
        }
        let raw = serde_json::to_value(a).map_err(|e| fail(RunCode::Assertion, e.to_string()))?;
        let done = self
            .vars
            .interpolate(&raw)
            .map_err(|e| fail(RunCode::Assertion, format!("in an expectation: {e}")))?;
        serde_json::from_value(done).map(Cow::Owned).map_err(|e| {
            fail(
                RunCode::Assertion,
                format!("an expectation is invalid after interpolation: {e}"),
            )
        })
    }

    fn interp(&self, v: &Value) -> Result<Value, StepFail> {
        self.vars
            .interpolate(v)
            .map_err(|e| fail(RunCode::UnresolvedVariable, e))
    }

    fn interp_str(&self, s: &str) -> Result<String, StepFail> {
        self.vars
            .interpolate_text(s)
            .map_err(|e| fail(RunCode::UnresolvedVariable, e))
    }

    async fn perform(&mut self, step: &Step, timeout: Duration) -> Result<Reply, StepFail> {
        match &step.kind {
            StepKind::Tool(t) => {
                let name = self.interp_str(&t.name)?;
                let args = match &t.arguments {
                    Some(a) if values::mentions_template(a) => {
                        self.interp(&Value::Object(a.clone()))?
                    }
                    Some(a) => Value::Object(a.clone()),
                    None => json!({}),
                };
                let opts = CallOptions {
                    timeout: Some(timeout),
                    allow_error: true,
                    log_level: self.log_level.clone(),
                    ..CallOptions::default()
                };
                if t.positional.is_some() || t.coerce == Some(true) || t.task.is_some() {
                    let positional = match &t.positional {
                        Some(p) => match self.interp(&Value::Array(p.clone()))? {
                            Value::Array(a) => a,
                            _ => Vec::new(),
                        },
                        None => Vec::new(),
                    };
                    let named = match args {
                        Value::Object(o) => o,
                        _ => Map::new(),
                    };
                    let args = if t.positional.is_some() || t.coerce == Some(true) {
                        legacy::tool_arguments(
                            self.client,
                            &name,
                            named,
                            positional,
                            t.coerce == Some(true),
                        )
                        .await?
                    } else {
                        Value::Object(named)
                    };
                    return legacy::call_tool(
                        self.client,
                        t,
                        &name,
                        args,
                        &opts,
                        timeout,
                        &mut self.task,
                    )
                    .await;
                }
                match self.client.call_tool(&name, args, &opts).await {
                    Ok(call) if call.is_error => Ok(Reply::ToolError(call.result)),
                    Ok(call) => Ok(Reply::Ok(call.result)),
                    Err(e) => match e.rpc_error() {
                        Some(rpc) => Ok(Reply::Rpc(rpc.clone())),
                        None => Err(broke(e)),
                    },
                }
            }
            StepKind::Request(r) => {
                let params = match &r.params {
                    Some(p) => Some(self.interp(p)?),
                    None => None,
                };
                if r.method == "ping"
                    && params.is_none()
                    && self.client.session().era() == crate::protocol::Era::Modern
                {
                    // 2026 has no ping; the same round trip is `server/discover`.
                    return match self.client.ping(Some(timeout)).await {
                        Ok(_) => Ok(Reply::Ok(json!({}))),
                        Err(e) => match e.rpc_error() {
                            Some(rpc) => Ok(Reply::Rpc(rpc.clone())),
                            None => Err(broke(e)),
                        },
                    };
                }
                self.request(&r.method, params, timeout)
                    .await
                    .map_err(broke)
            }
            StepKind::Native(n) => self.native(n, timeout).await.map_err(|e| match e {
                NativeFail::Session(e) => broke(e),
                NativeFail::Step(f) => f,
            }),
            StepKind::Set(_) => Ok(Reply::Ok(Value::Null)),
        }
    }

    async fn request(
        &self,
        method: &str,
        params: Option<Value>,
        timeout: Duration,
    ) -> Result<Reply, Error> {
        let opts = RequestOptions {
            timeout: Some(timeout),
            log_level: self.log_level.clone(),
            ..RequestOptions::default()
        };
        match self
            .client
            .session()
            .request(method, params.as_ref(), &opts)
            .await
        {
            Ok(v) if method == "tools/call" && v.get("isError") == Some(&Value::Bool(true)) => {
                Ok(Reply::ToolError(v))
            }
            Ok(v) => Ok(Reply::Ok(v)),
            Err(e) => match e.rpc_error() {
                Some(rpc) => Ok(Reply::Rpc(rpc.clone())),
                None => Err(e),
            },
        }
    }

    async fn native(&mut self, n: &NativeStep, timeout: Duration) -> Result<Reply, NativeFail> {
        let c = self.client;
        let need = |what: Option<&str>, member: &str| -> Result<String, NativeFail> {
            match what {
                Some(s) => self.interp_str(s).map_err(NativeFail::Step),
                None => Err(NativeFail::Step(fail(
                    RunCode::NativeStep,
                    format!("this native step needs `{member}`"),
                ))),
            }
        };
        let params = match n.params() {
            Some(p) => Some(self.interp(p).map_err(NativeFail::Step)?),
            None => None,
        };
        let reply = match n.action() {
            NativeAction::Request => {
                let method = need(n.method(), "method")?;
                if n.progress() == Some(true) || n.cancel_after_ms().is_some() {
                    return self.request_with_extras(n, &method, params, timeout).await;
                }
                self.request(&method, params, timeout).await?
            }
            NativeAction::AwaitNotification => {
                let method = need(n.method(), "method")?;
                if c.session().era() == crate::protocol::Era::Modern
                    && self.listen.is_none()
                    && legacy::needs_listen(&method)
                {
                    legacy::listen(c, &mut self.listen, None).await?;
                }
                let filter: Vec<Match> = match &params {
                    Some(Value::Object(o)) => {
                        o.iter().map(|(k, v)| Match::dotted(k, v.clone())).collect()
                    }
                    _ => Vec::new(),
                };
                let note = c
                    .session()
                    .wait_notification(&method, &filter, timeout)
                    .await?;
                self.sequence += 1;
                Reply::Ok(
                    json!({"method": note.method, "params": note.params, "sequence": self.sequence}),
                )
            }
            NativeAction::Subscribe => {
                let uri = need(n.uri(), "uri")?;
                if c.session().era() == crate::protocol::Era::Modern {
                    // 2026 removed resources/subscribe: the listen stream carries the URI.
                    from_result(legacy::listen(c, &mut self.listen, Some(uri)).await)?
                } else {
                    from_result(c.subscribe(&uri).await.map(|()| json!({})))?
                }
            }
            NativeAction::Unsubscribe => {
                let uri = need(n.uri(), "uri")?;
                from_result(c.unsubscribe(&uri).await.map(|()| json!({})))?
            }
            NativeAction::SetLogLevel => {
                let level = need(n.level(), "level")?;
                if c.session().era() == crate::protocol::Era::Modern {
                    // 2026 has no setLevel: the level travels with every later request.
                    self.log_level = Some(level);
                    Reply::Ok(json!({}))
                } else {
                    from_result(c.set_log_level(&level).await.map(|()| json!({})))?
                }
            }
            NativeAction::ListAll => {
                let method = need(n.method(), "method")?;
                let field = need(n.field(), "field")?;
                self.list_all(&method, &field, params, timeout).await?
            }
            NativeAction::TaskGet => {
                let id = need(n.task_id(), "taskId")?;
                let _tasks = legacy::TasksDeclared::new(c.session());
                let r = from_result(c.task_get(&id).await)?;
                if let Reply::Ok(v) = &r {
                    self.task = Some(v.get("task").unwrap_or(v).clone());
                }
                r
            }
            NativeAction::TaskList => {
                from_result(c.task_list().await.map(|tasks| json!({"tasks": tasks})))?
            }
            NativeAction::TaskCancel => {
                let id = need(n.task_id(), "taskId")?;
                let _tasks = legacy::TasksDeclared::new(c.session());
                let r = from_result(c.task_cancel(&id).await)?;
                if let Reply::Ok(v) = &r
                    && v.get("status").is_some()
                {
                    self.task = Some(v.get("task").unwrap_or(v).clone());
                }
                r
            }
            NativeAction::Echo => {
                let text = match n.message() {
                    Some(m) => self.interp_str(m).map_err(NativeFail::Step)?,
                    None => String::new(),
                };
                self.output = Some(text.clone());
                Reply::Ok(json!({"output": text}))
            }
            NativeAction::Prompt => {
                let var = need(n.variable(), "variable")?;
                let message = match n.message() {
                    Some(m) => Some(self.interp_str(m).map_err(NativeFail::Step)?),
                    None => None,
                };
                let answer = legacy::prompt(&var, message.as_deref()).map_err(NativeFail::Step)?;
                self.vars.set(var, json!(answer));
                Reply::Ok(json!({"value": answer}))
            }
            NativeAction::QueueAnswer => {
                let method = need(n.method(), "method")?;
                let answer = params.clone().unwrap_or_else(|| json!({}));
                legacy::queue_answer(c.session(), &method, &answer).map_err(NativeFail::Step)?;
                Reply::Ok(json!({"queued": method}))
            }
            NativeAction::Check => match params {
                Some(v) => Reply::Ok(v),
                None => Reply::Ok(legacy::check_subject(
                    self.last.as_ref(),
                    self.task.as_ref(),
                    c.session(),
                )),
            },
            NativeAction::SaveText => {
                let var = need(n.variable(), "variable")?;
                let paths = params.clone().unwrap_or(Value::Null);
                let text =
                    legacy::save_text(self.last.as_ref(), &paths).map_err(NativeFail::Step)?;
                self.vars.set(var, json!(text));
                Reply::Ok(json!({"value": text}))
            }
            NativeAction::TaskWait => {
                let id = need(n.task_id(), "taskId")?;
                legacy::task_wait(c, n, &id, timeout, &mut self.task)
                    .await
                    .map_err(NativeFail::Step)?
            }
            NativeAction::SkillsList => legacy::skills_list(c).await?,
            NativeAction::SkillsVerify => {
                legacy::skills_verify(c).await.map_err(NativeFail::Step)?
            }
            NativeAction::AppsVerify => legacy::apps_verify(c).await.map_err(NativeFail::Step)?,
            NativeAction::ConfigureClient => {
                let settings = match n.behavior() {
                    // A behaviour is plain data: writing it as JSON cannot fail.
                    Some(b) => self
                        .interp(&serde_json::to_value(b).unwrap_or_default())
                        .map_err(NativeFail::Step)?,
                    None => {
                        return Err(NativeFail::Step(fail(
                            RunCode::NativeStep,
                            "this native step needs `behavior`",
                        )));
                    }
                };
                let mut behaviour = c.session().behaviour();
                if let Value::Object(map) = &settings {
                    apply_client_settings(&mut behaviour, map);
                }
                c.session().set_behaviour(behaviour);
                Reply::Ok(json!({"configured": true}))
            }
        };
        Ok(reply)
    }

    async fn list_all(
        &self,
        method: &str,
        field: &str,
        extra: Option<Value>,
        timeout: Duration,
    ) -> Result<Reply, Error> {
        let mut items = Vec::new();
        let mut pages = 0u64;
        let mut cursor: Option<Value> = None;
        let mut seen = std::collections::HashSet::new();
        loop {
            let mut params = match &extra {
                Some(Value::Object(o)) => Value::Object(o.clone()),
                _ => json!({}),
            };
            if let Some(c) = &cursor {
                params["cursor"] = c.clone();
            }
            let page = match self.request(method, Some(params), timeout).await? {
                Reply::Ok(v) => v,
                other => return Ok(other),
            };
            pages += 1;
            match page.get(field) {
                Some(Value::Array(a)) => items.extend(a.iter().cloned()),
                _ => {
                    return Err(self.client.session().error(ErrorKind::InvalidResult {
                        method: method.into(),
                        reason: format!("`{field}` is missing or not an array"),
                    }));
                }
            }
            match page.get("nextCursor") {
                Some(Value::String(next)) if seen.insert(next.clone()) && pages < 10_000 => {
                    cursor = Some(Value::String(next.clone()));
                }
                Some(Value::String(next)) => {
                    return Err(self.client.session().error(ErrorKind::RepeatedCursor {
                        method: method.into(),
                        cursor: next.clone(),
                    }));
                }
                _ => break,
            }
        }
        Ok(Reply::Ok(json!({"items": items, "pages": pages})))
    }

    async fn request_with_extras(
        &self,
        n: &NativeStep,
        method: &str,
        params: Option<Value>,
        timeout: Duration,
    ) -> Result<Reply, NativeFail> {
        let session = self.client.session();
        let token = (n.progress() == Some(true)).then(|| self.client.next_progress_token());
        // A cancellation is a deadline at `cancelAfterMs`, then `notifications/cancelled`.
        let deadline = match n.cancel_after_ms() {
            Some(ms) => timeout.min(Duration::from_millis(ms)),
            None => timeout,
        };
        let opts = RequestOptions {
            timeout: Some(deadline),
            progress_token: token.clone(),
            log_level: self.log_level.clone(),
            ..RequestOptions::default()
        };
        let pending = session.send(method, params.as_ref(), &opts)?;
        let id = pending.id;
        let outcome = match session.wait(pending).await {
            Ok(result) => Some(Ok(result)),
            Err(e) if e.rpc_error().is_some() => e.rpc_error().cloned().map(Err),
            Err(e)
                if n.cancel_after_ms().is_some() && matches!(e.kind, ErrorKind::Timeout { .. }) =>
            {
                session
                    .notify(
                        "notifications/cancelled",
                        Some(json!({"requestId": id, "reason": "cancelled by the test"})),
                    )
                    .map_err(|k| NativeFail::Session(session.error(k)))?;
                None
            }
            Err(e) => return Err(NativeFail::Session(e)),
        };
        let progress = match &token {
            Some(t) => {
                let (events, _) = session.progress_of(t);
                session.retire_progress_token(t);
                events
            }
            None => Vec::new(),
        };
        Ok(match outcome {
            None => Reply::Ok(json!({"cancelled": true, "progress": progress})),
            Some(Ok(result)) if token.is_some() => {
                Reply::Ok(json!({"result": result, "progress": progress}))
            }
            Some(Ok(result)) => Reply::Ok(result),
            Some(Err(rpc)) => Reply::Rpc(rpc),
        })
    }
}

enum NativeFail {
    Session(Error),
    Step(StepFail),
}

impl From<Error> for NativeFail {
    fn from(e: Error) -> NativeFail {
        NativeFail::Session(e)
    }
}
