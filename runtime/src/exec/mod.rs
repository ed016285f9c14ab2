//! Execution of one test of a Suite IR: its own session, its steps in textual order, the
//! variables they read and write, and the checks of every step (mcp-test-language-1.md
//! §4.4–§4.6, architecture.md "Compatibility decisions").

mod answers;
mod arguments;
pub mod assert;
mod extensions;
mod fault;
mod gates;
mod last_response;
mod listen;
mod native;
mod pattern;
mod perform;
mod reconnect;
mod result;
mod script_wording;
mod step;
mod target;
mod tasks;

// The outcome is the run class's neighbour in `codes`; `exec::Outcome` stays its public path.
pub use crate::codes::Outcome;
pub(crate) use listen::{Listen, open_at_start};
pub use result::{
    Attempt, Failure, NotRun, StepResult, StepStatus, TestData, TestResult, TestTranscript, Timing,
    Warning, show_last_message, test_id,
};
pub use target::{
    TestInput, apply_client_settings, client_behaviour, inherit_of, runtime_target, withheld_env,
};

use std::borrow::Cow;
use std::time::{Duration, Instant};

use mcpr_compiler::ir::{self, Phase, Step, StepKind};
use serde_json::{Map, Value, json};

use crate::client::Client;
use crate::codes::RunCode;
use crate::compare::Mismatch;
use crate::error::{Error, ErrorKind};
use crate::protocol::RpcError;
use crate::session::{ProtocolChoice, SessionConfig, ShutdownGrace};
use crate::values::Vars;

use assert::McpError;
use last_response::LastResponse;

/// The runner's own request deadline when neither the step nor the suite sets one.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

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
            | ErrorKind::BufferBudget { .. }
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
    run_test_in(suite, test, input, SessionUse::Own).await
}

/// Which session a test runs in.
pub enum SessionUse {
    /// A session of its own, opened for the test.
    Own,
    /// A session several tests use one after another (`Session: shared`,
    /// `--reuse-server`): `open` is the session the last test left (made ready for this
    /// one here), `None` when the test opens it; `declare` is what the handshake must
    /// declare for every test that may use the session.
    Shared {
        /// The open session, if there is one.
        open: Option<Box<Client>>,
        /// Capabilities the later tests' steps turn on.
        declare: Declarations,
    },
}

/// Runs one test in the session `session` says, and hands back the still-open session
/// (`None` when it could not be opened): the session is opened (or taken over), the test's
/// requirements checked, its steps run, and what the session saw added to the result.
pub async fn run_test_in(
    suite: &ir::Suite,
    test: &ir::Test,
    input: TestInput,
    session: SessionUse,
) -> (TestResult, Option<Client>) {
    let started = Instant::now();
    let mut result = blank_result(test);
    let default_timeout = default_timeout(suite, &input);
    let (open, declare) = match session {
        SessionUse::Own => (None, Declarations::of(test)),
        SessionUse::Shared { open, declare } => (open, declare.with(Declarations::of(test))),
    };
    let mut behaviour = client_behaviour(suite.client.as_ref());
    if declare.roots && behaviour.roots.is_none() {
        // Roots given by a later step (`add_root`) are answered from then on; the
        // handshake era needs the capability declared in `initialize`.
        behaviour.roots = Some(Vec::new());
    }
    let config = session_config(suite, &input, &declare, &behaviour, default_timeout);
    let target = runtime_target(&input.target, &input.state, &input.context);
    // How the session is opened, kept for `Reconnect`.
    let reopen = target.clone().ok().map(|t| (t, config.clone()));
    let opened = match open {
        Some(client) => Ok(take_over(*client, behaviour, &mut result)),
        None => connect(target, config, started, &mut result).await,
    };
    let Ok(Opened {
        client,
        stderr_before,
        violations_before,
    }) = opened
    else {
        return (result, None);
    };
    result.protocol_version = Some(client.session().protocol_version().to_string());
    if let Some(reason) = unmet_requirement(&client, test.requires.as_ref()) {
        result.status = Outcome::Skipped;
        result.failure = Some(Box::new(reason));
        result.duration_ms = started.elapsed().as_millis() as u64;
        return (result, Some(client));
    }
    let mut runner = StepRunner {
        started,
        client,
        reopen,
        earlier: reconnect::Earlier {
            stderr_before,
            ..Default::default()
        },
        vars: test_vars(test, &input),
        default_timeout,
        sequence: 0,
        outputs: Map::new(),
        log_level: None,
        test_id: result.id.clone(),
        snapshots: input.snapshots.clone(),
        functions: input.functions.clone(),
        record: input.record,
        ci: input.context.ci,
        reply: None,
        last: None,
        task: None,
        output: None,
        listen: None,
        exercised: std::sync::Mutex::new(std::mem::take(&mut result.exercised)),
    };
    if runner.client.session().era() == crate::protocol::Era::Modern {
        // List changes come only on a listen stream: it stands before the first step, so a
        // change a step causes is not sent before anyone listens.
        open_at_start(&runner.client, &mut runner.listen).await;
    }
    run_steps(&mut runner, test, &mut result).await;
    let client = close_out(runner, &input, started, &mut result);
    // What the server sent with or right after the last answer is read first: a second
    // answer to the last request is a warning of this test.
    tokio::task::yield_now().await;
    result.warnings = warnings_of(&client, violations_before, result.failure.as_deref());
    (result, Some(client))
}

/// The result of a test before it runs: passed, with nothing in it yet.
fn blank_result(test: &ir::Test) -> TestResult {
    TestResult {
        id: test_id(test),
        name: test.name.clone(),
        status: Outcome::Passed,
        duration_ms: 0,
        steps: Vec::new(),
        not_run: Vec::new(),
        outputs: Map::new(),
        failure: None,
        protocol_version: None,
        transcript: None,
        data: test.data.clone().map(|d| TestData::Json(Value::Object(d))),
        logical_name: None,
        source: None,
        timing: None,
        stderr: None,
        session: None,
        attempts: 0,
        previous_attempts: Vec::new(),
        quarantined: false,
        exercised: crate::coverage::Exercised {
            server: test.server.clone(),
            ..Default::default()
        },
        warnings: Vec::new(),
    }
}

/// A step's deadline where the step says nothing: `--timeout` (explicit) wins over the
/// suite's default, which wins over mcpr's own.
fn default_timeout(suite: &ir::Suite, input: &TestInput) -> Duration {
    input.timeout.unwrap_or_else(|| {
        suite
            .defaults
            .as_ref()
            .and_then(|d| d.timeout_ms)
            .map_or(DEFAULT_TIMEOUT, Duration::from_millis)
    })
}

/// How the test's session is opened: deadlines, shutdown grace, the client's behaviour
/// and what the handshake declares, the limits and the protocol version.
fn session_config(
    suite: &ir::Suite,
    input: &TestInput,
    declare: &Declarations,
    behaviour: &crate::session::ClientBehaviour,
    default_timeout: Duration,
) -> SessionConfig {
    SessionConfig {
        request_timeout: default_timeout,
        connect_timeout: input.connect_timeout.unwrap_or(default_timeout),
        shutdown_grace: input
            .shutdown_grace
            .or_else(|| suite_shutdown_grace(suite).map(ShutdownGrace::Fixed))
            .unwrap_or(crate::session::config::DEFAULT_SHUTDOWN_GRACE),
        behaviour: behaviour.clone(),
        handshake_tasks: declare.tasks,
        max_buffered_bytes: input.max_buffered_bytes,
        max_message_values: input.max_message_values,
        tolerate_stray_lines: input.tolerate_stray_lines,
        protocol: match &input.protocol {
            Some(v) => ProtocolChoice::Pinned(v.clone()),
            None => ProtocolChoice::Auto,
        },
        ..SessionConfig::default()
    }
}

/// An open session and where this test's share of what it saw begins.
struct Opened {
    client: Client,
    /// Bytes of stderr the session had before this test.
    stderr_before: u64,
    /// Violations the session had recorded before this test (its earlier tests' warnings).
    violations_before: usize,
}

/// A shared session the last test left, made ready for this one.
fn take_over(
    client: Client,
    behaviour: crate::session::ClientBehaviour,
    result: &mut TestResult,
) -> Opened {
    client.session().begin_next_test(behaviour);
    result.timing = Some(Timing::default());
    Opened {
        stderr_before: client.session().stderr_total(),
        violations_before: client.session().violations().len(),
        client,
    }
}

/// Opens the test's own session; when it cannot, the result says why (errored) and the
/// error is `Err`.
async fn connect(
    target: Result<crate::client::Target, String>,
    config: SessionConfig,
    started: Instant,
    result: &mut TestResult,
) -> Result<Opened, ()> {
    let target = match target {
        Ok(t) => t,
        Err(e) => {
            result.status = Outcome::Errored;
            result.failure = Some(Box::new(Failure::new(RunCode::TargetUnusable, e)));
            return Err(());
        }
    };
    match Client::connect_to(target, config).await {
        Ok(client) => {
            result.timing = Some(connect_timing(&client, started.elapsed()));
            Ok(Opened {
                client,
                stderr_before: 0,
                violations_before: 0,
            })
        }
        Err(e) => {
            result.status = Outcome::Errored;
            result.failure = Some(Box::new(Failure::from_error(&e)));
            result.duration_ms = started.elapsed().as_millis() as u64;
            result.timing = Some(Timing {
                spawn_us: started.elapsed().as_micros() as u64,
                ..Timing::default()
            });
            Err(())
        }
    }
}

/// The variables a test starts with: `${env.…}` from the run's environment, `state`, its
/// dependencies' outputs (`deps`) and its own variables.
fn test_vars(test: &ir::Test, input: &TestInput) -> Vars {
    let mut vars = Vars::with_env(&input.context.env);
    vars.set("state", input.state.clone());
    vars.set("deps", Value::Object(input.deps.clone()));
    if let Some(vs) = &test.variables {
        for (k, v) in vs {
            vars.set(k.clone(), v.clone());
        }
    }
    vars
}

/// Runs the test's steps in order. After a failure only cleanup steps run, unless the
/// test continues on failure; then only a broken session or an unresolvable variable
/// stops it, and the steps it skips are listed as not run.
async fn run_steps(runner: &mut StepRunner, test: &ir::Test, result: &mut TestResult) {
    let keep_going = test.continue_on_failure == Some(true);
    let mut failed = false;
    let mut stopped = false;
    for step in &test.steps {
        let cleanup = step.phase == Some(Phase::Cleanup) || step.always == Some(true);
        if (failed && !keep_going || stopped) && !cleanup {
            if stopped && keep_going {
                result.not_run.push(NotRun {
                    name: step_name(step),
                    source: step.source.clone(),
                });
            }
            continue;
        }
        let sr = runner.run(step).await;
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
}

/// After the last step: the listen stream ends, and the result gets the outputs, what the
/// test exercised, its duration, the transcript (when asked for) and the server's stderr.
/// Hands back the session.
fn close_out(
    mut runner: StepRunner,
    input: &TestInput,
    started: Instant,
    result: &mut TestResult,
) -> Client {
    if let Some((sub, _)) = runner.listen.take() {
        // The stream ends with the test, so the server need not hold it open until the
        // session is closed.
        let _ = runner.client.stop_listen(sub);
    }
    let client = runner.client;
    let earlier = runner.earlier;
    result.outputs = runner.outputs;
    result.exercised = runner
        .exercised
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    result.duration_ms = started.elapsed().as_millis() as u64;
    let failed = matches!(result.status, Outcome::Failed | Outcome::Errored);
    if input.record || (input.record_failed && failed) {
        // The sessions a `Reconnect` closed come first, each from its own `seq` 0.
        let (entries, dropped) = client.session().transcript();
        let mut all = earlier.transcript;
        all.extend(entries);
        result.transcript = Some(TestTranscript {
            entries: all,
            dropped: dropped + earlier.dropped,
        });
    }
    let stderr = earlier.stderr + &stderr_since(&client, earlier.stderr_before);
    if !stderr.trim().is_empty() {
        result.stderr = Some(crate::error::shorten(&last_lines(&stderr, 20), 4000));
    }
    client
}

/// The protocol rules the session saw broken since its `before`th violation, but the one
/// the test failed with (its failure says it already).
fn warnings_of(client: &Client, before: usize, failure: Option<&Failure>) -> Vec<Warning> {
    client
        .session()
        .violations()
        .into_iter()
        .skip(before)
        .filter(|v| failure.is_none_or(|f| !f.message.contains(&v.message)))
        .map(|v| Warning {
            code: v.code,
            message: v.message,
            at_ms: v.at_ms,
        })
        .collect()
}

/// The suite's own shutdown grace (`Shutdown grace:`, YAML `defaults.shutdownGraceMs`).
fn suite_shutdown_grace(suite: &ir::Suite) -> Option<Duration> {
    suite
        .defaults
        .as_ref()
        .and_then(|d| d.shutdown_grace_ms)
        .map(Duration::from_millis)
}

/// What the server wrote on stderr after it had written `before` bytes in all (a shared
/// session's earlier tests are not this test's business), as far as the tail still holds it.
fn stderr_since(client: &Client, before: u64) -> String {
    let tail = client.session().stderr_tail();
    let new = client.session().stderr_total().saturating_sub(before);
    let keep = usize::try_from(new).unwrap_or(usize::MAX).min(tail.len());
    let mut from = tail.len() - keep;
    while !tail.is_char_boundary(from) {
        from += 1;
    }
    tail[from..].to_string()
}

/// Capabilities a test's steps turn on after the handshake (task steps, roots configured by
/// a step), which the handshake era must declare in `initialize`.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Declarations {
    /// A task step: the client declares the tasks capability.
    pub tasks: bool,
    /// Roots given by a step: the client declares roots.
    pub roots: bool,
}

impl Declarations {
    /// What the steps of `test` need declared.
    pub fn of(test: &ir::Test) -> Declarations {
        let mut d = Declarations::default();
        for step in &test.steps {
            match &step.kind {
                StepKind::Tool(t) if t.task.is_some() => d.tasks = true,
                StepKind::Native(n) => match n.as_ref() {
                    ir::NativeStep::TaskGet(_)
                    | ir::NativeStep::TaskList(_)
                    | ir::NativeStep::TaskCancel(_)
                    | ir::NativeStep::TaskWait(_) => d.tasks = true,
                    ir::NativeStep::ConfigureClient(c)
                        if c.behavior.as_ref().is_some_and(|b| b.roots.is_some()) =>
                    {
                        d.roots = true
                    }
                    _ => {}
                },
                _ => {}
            }
        }
        d
    }

    /// What either needs declared.
    pub fn with(self, other: Declarations) -> Declarations {
        Declarations {
            tasks: self.tasks || other.tasks,
            roots: self.roots || other.roots,
        }
    }
}

/// The spawn and handshake phases of a session that just connected after `connect`: the
/// handshake lasts until the session's last message so far (the session's clock starts
/// once the server runs), the spawn is the rest.
fn connect_timing(client: &Client, connect: Duration) -> Timing {
    let (entries, _) = client.session().transcript();
    let handshake = entries.last().map_or(Duration::ZERO, |e| e.at).min(connect);
    Timing {
        spawn_us: (connect - handshake).as_micros() as u64,
        handshake_us: handshake.as_micros() as u64,
        ..Timing::default()
    }
}

/// The last `n` lines of a text.
fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

fn unmet_requirement(client: &Client, req: Option<&ir::Requirements>) -> Option<Failure> {
    let req = req?;
    for cap in req.capabilities.iter().flatten() {
        let path = Client::capability_path(cap);
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

struct StepRunner {
    /// When the test started (steps report their start after it).
    started: Instant,
    client: Client,
    /// The server and settings the session was opened with, for `Reconnect` (`None` when
    /// the target could not be resolved).
    reopen: Option<(crate::client::Target, SessionConfig)>,
    /// What the sessions a `Reconnect` closed left behind.
    earlier: reconnect::Earlier,
    vars: Vars,
    default_timeout: Duration,
    sequence: u64,
    outputs: Map<String, Value>,
    log_level: Option<String>,
    test_id: String,
    snapshots: Option<std::sync::Arc<std::sync::Mutex<crate::snapshot::SnapshotStore>>>,
    /// The suite's function host (`None`: only the built-in functions).
    functions: Option<std::sync::Arc<crate::functions::FunctionHost>>,
    /// Keep what each step got back.
    record: bool,
    /// A CI service runs the test: nobody is at the terminal to answer `prompt`.
    ci: bool,
    /// What the current step got back: `(response, error)`.
    reply: Option<(Option<Value>, Option<Value>)>,
    /// The response of the last step that talked to the server (legacy checks read it).
    last: Option<LastResponse>,
    /// The last task handle or state seen.
    task: Option<Value>,
    /// What the running step printed.
    output: Option<String>,
    /// The 2026 `subscriptions/listen` stream opened by subscribe/notification steps.
    listen: Listen,
    /// What the steps exercised (tools called, resources read, prompts got), for coverage;
    /// behind a lock because requests are sent through `&self`.
    exercised: std::sync::Mutex<crate::coverage::Exercised>,
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
                expected_value: m.expected_value.map(|v| *v),
                actual_value: m.actual_value.map(|v| *v),
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
