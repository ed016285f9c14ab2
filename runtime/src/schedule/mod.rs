//! The scheduler: which tests run, in which order, how many at once, and what their
//! dependencies hand them (mcp-test-language-1.md §4.6–§4.8).
//!
//! Tests are ordered depth-first by the dependency graph (dependencies first, otherwise
//! source order); that order is also the order of every report, whatever the parallelism.
//! Independent tests run at the same time, up to `jobs`, each in its own session, or, when
//! the suite shares sessions, one after another in a session per job ([`shared`]). A test
//! whose dependency did not pass is `blocked` and never opens a session.
//!
//! [`plan`] makes the plan (rows expanded, ids and dependencies checked, the selection);
//! [`dispatch`] runs it ([`shared`]: the workers of a run that shares sessions); this module holds the settings and results, and the suite's
//! outputs.

mod closing;
mod dispatch;
pub mod keyword;
mod plan;
mod quarantine;
mod retry;
mod shared;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcpr_compiler::ir::{self, Suite};
use mcpr_compiler::names::slug;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::codes::RunCode;
use crate::data::{DataOptions, SuiteRows};
use crate::exec::{Outcome, TestResult};

pub use closing::Closing;
pub use plan::glob_match;
pub use quarantine::Quarantine;
pub use retry::MAX_RETRIES;

/// How to run a suite.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Most tests running at once (at least 1).
    pub jobs: usize,
    /// Only tests whose name (glob, `*` wildcard, case-insensitive, whole name) or id match.
    pub filter: Option<String>,
    /// With `filter`: do not pull in the dependencies of the selected tests.
    pub no_deps: bool,
    /// The rest of the selection (`-k`, `FILE:LINE`, `--last-failed`) and the tests that
    /// start first (`--failed-first`).
    pub selection: Selection,
    /// Stop starting tests after the first one that did not pass.
    pub fail_fast: bool,
    /// Replaces the suite's default target (tests naming a `server` keep theirs).
    pub target: Option<ir::Target>,
    /// Most bytes each session keeps waiting (`--max-session-buffer`).
    pub max_buffered_bytes: usize,
    /// Most JSON values of one message (`--max-message-values`).
    pub max_message_values: usize,
    /// Skip and record stdout lines that are not JSON (`mcpr conformance`).
    pub tolerate_stray_lines: bool,
    /// Deadline of each session's handshake.
    pub connect_timeout: Option<Duration>,
    /// The protocol version every session speaks (`--protocol`); probed when `None`.
    pub protocol: Option<String>,
    /// Loaded state for `${state.…}` (an object).
    pub state: Value,
    /// Values to mask in everything reported besides the suite's own secrets (the
    /// sensitive values of the loaded state).
    pub secrets: Vec<String>,
    /// Run only shard `K` of `N` (1-based): whole dependency components, dealt round-robin
    /// in source order, so every machine of a split CI run gets a deterministic share.
    pub shard: Option<(usize, usize)>,
    /// The snapshot store of the run (save it afterwards with `SnapshotStore::save`).
    pub snapshots: Option<Arc<std::sync::Mutex<crate::snapshot::SnapshotStore>>>,
    /// Keep each step's response and each session's messages in the results.
    pub transcript: bool,
    /// Keep the messages of the sessions of tests that do not pass (the HTML report).
    pub transcript_failures: bool,
    /// How long each server may take to exit after its stdin closes (`--shutdown-grace`).
    pub shutdown_grace: Option<crate::session::ShutdownGrace>,
    /// Tests on the same server share one session per job (`--reuse-server`), as the
    /// suite's `Session: shared` asks.
    pub reuse_server: bool,
    /// The default step deadline (`--timeout`), over the suite's `defaults.timeoutMs`.
    pub timeout: Option<Duration>,
    /// Where data files are, what data sources may do, and `--max-rows`.
    pub data: DataOptions,
    /// Rows loaded beforehand with [`crate::data::load_suite`] (so the caller can render data
    /// errors itself); loaded by [`run_suite`] when absent.
    pub rows: Option<Arc<SuiteRows>>,
    /// Raised by a signal: every server is ended and the tests that did not finish are
    /// marked interrupted (`MCP-INTERRUPT-001`).
    pub interrupt: Option<crate::interrupt::Interrupt>,
    /// How many times a failed or errored test runs again (`--retries`), where the test
    /// says nothing; `None`: the suite's `defaults.retries`, else 0.
    pub retries: Option<u32>,
    /// The tests whose failures do not fail the run (`--quarantine`).
    pub quarantine: Quarantine,
    /// The run's context: environment, CI, OAuth state and learned secrets.
    pub context: crate::context::RunContext,
    /// The suite's function host, when it declares custom-function modules and may run them.
    pub functions: Option<Arc<crate::functions::FunctionHost>>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            jobs: std::thread::available_parallelism().map_or(1, usize::from),
            filter: None,
            no_deps: false,
            fail_fast: false,
            target: None,
            connect_timeout: None,
            shutdown_grace: None,
            reuse_server: false,
            max_buffered_bytes: crate::session::config::DEFAULT_BUFFER_BYTES,
            max_message_values: crate::session::config::DEFAULT_MESSAGE_VALUES,
            tolerate_stray_lines: false,
            protocol: None,
            state: json!({}),
            secrets: Vec::new(),
            shard: None,
            snapshots: None,
            transcript: false,
            transcript_failures: false,
            timeout: None,
            data: DataOptions::default(),
            rows: None,
            interrupt: None,
            retries: None,
            quarantine: Quarantine::default(),
            selection: Selection::default(),
            context: crate::context::RunContext::default(),
            functions: None,
        }
    }
}

/// Which tests run besides `--test`, and which start first. A test runs when every part
/// given selects it (and its dependencies run unless `no_deps`).
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// `-k EXPR`: words of the name, logical name or id.
    pub keyword: Option<keyword::Keyword>,
    /// Names or ids (of the test, its logical test, or a data row's id): `FILE:LINE` gives
    /// the names of the tests at those lines, `--last-failed` the ids that did not pass.
    pub names: Option<BTreeSet<String>>,
    /// Names or ids of the tests that start (and are reported) first, with their
    /// dependencies before them (`--failed-first`).
    pub first: BTreeSet<String>,
}

impl Selection {
    /// Whether `names` (a test's name, logical name and id) are in `set`.
    pub fn has(set: &BTreeSet<String>, names: &[&str]) -> bool {
        names.iter().any(|n| set.contains(*n))
    }
}

/// A problem with the suite that stops it before any test runs.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct PlanError {
    /// `MCP-DEP-001` duplicate id, `MCP-DEP-002` cycle, `MCP-DEP-004` unknown dependency,
    /// `MCP-CONFIG-002` unknown named server or unusable data, `MCP-CONFIG-004` no server
    /// at all (a legacy script run without `--server`/`--url`/`--profile`).
    pub code: RunCode,
    /// What is wrong.
    pub message: String,
}

fn plan_error(code: RunCode, message: impl Into<String>) -> PlanError {
    PlanError {
        code,
        message: message.into(),
    }
}

/// What happens during a run, for reporters. `TestFinished` events arrive in report order.
#[derive(Debug, Clone)]
pub enum Event {
    /// The run begins: suite name and number of tests that will be reported.
    RunStarted {
        /// Suite name.
        suite: String,
        /// Tests in the report.
        tests: usize,
        /// In a parity run, the compare target the suite runs against.
        target: Option<String>,
        /// Names of the runner's credential-like variables the servers do not get.
        withheld_env: Vec<String>,
    },
    /// A test opened its session (in the order tests start).
    TestStarted {
        /// Test id.
        id: String,
        /// Display name.
        name: String,
    },
    /// A test ended (or was skipped or blocked), in report order.
    TestFinished(Box<TestResult>),
}

/// Counts per outcome.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// Passed tests.
    pub passed: usize,
    /// Failed tests.
    pub failed: usize,
    /// Errored tests (the server or the environment broke).
    pub errored: usize,
    /// Skipped tests.
    pub skipped: usize,
    /// Blocked tests.
    pub blocked: usize,
    /// Tests that passed on a retry (also counted nowhere else).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub flaky: usize,
    /// Quarantined tests that failed, errored or were blocked (counted nowhere else: they
    /// do not fail the run).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub quarantined: usize,
    /// Tests a signal stopped, or kept from starting (`MCP-INTERRUPT-001`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub interrupted: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Summary {
    /// The counts of several runs together, and their milliseconds in all.
    pub fn of_runs(runs: &[RunResult]) -> (Summary, u64) {
        let mut total = Summary::default();
        let mut ms = 0;
        for r in runs {
            total.passed += r.summary.passed;
            total.failed += r.summary.failed;
            total.errored += r.summary.errored;
            total.skipped += r.summary.skipped;
            total.blocked += r.summary.blocked;
            total.flaky += r.summary.flaky;
            total.quarantined += r.summary.quarantined;
            total.interrupted += r.summary.interrupted;
            ms += r.duration_ms;
        }
        (total, ms)
    }

    /// Whether no test failed, errored, was blocked or was interrupted.
    pub fn passed(&self) -> bool {
        self.failed + self.errored + self.blocked + self.interrupted == 0
    }
}

/// How a whole run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// No test failed, errored or was blocked, and no signal stopped the run.
    Passed,
    /// Some test failed, errored or was blocked.
    Failed,
    /// A signal (SIGINT, SIGTERM, SIGHUP) stopped the run: its tests that had not ended
    /// are `interrupted`, whatever the others did.
    Interrupted,
}

impl RunStatus {
    /// The status of a run with these counts: `interrupted` when a signal stopped it.
    pub fn of(summary: &Summary, interrupted: bool) -> RunStatus {
        if interrupted || summary.interrupted > 0 {
            RunStatus::Interrupted
        } else if summary.passed() {
            RunStatus::Passed
        } else {
            RunStatus::Failed
        }
    }

    /// The lower-case name used in every report.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Passed => "passed",
            RunStatus::Failed => "failed",
            RunStatus::Interrupted => "interrupted",
        }
    }
}

/// The result of a whole run.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunResult {
    /// Suite name.
    pub suite_name: String,
    /// The suite file as shown to people (set by the caller that read it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// When the suite started, RFC 3339 with the local offset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    /// The machine it ran on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hostname: Option<String>,
    /// Most tests at once (the lanes of the timeline).
    #[serde(default = "one")]
    pub jobs: usize,
    /// With `--shard K/N`: which shard this is, and every test of the whole selection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// Passed when no test failed, errored or was blocked.
    pub status: RunStatus,
    /// Milliseconds for the whole run.
    pub duration_ms: u64,
    /// Every test in report order.
    pub tests: Vec<TestResult>,
    /// Outputs of every test: `ID.KEY` → value.
    pub outputs: Map<String, Value>,
    /// Counts per outcome.
    pub summary: Summary,
    /// Latency budgets evaluated after the run (filled in by the caller that keeps history).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub budgets: Vec<crate::budget::BudgetResult>,
    /// Tests that took markedly longer than they used to (with `--fail-on-regression`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub regressions: Vec<crate::budget::Regression>,
    /// Tests whose outcome flipped between passing and not passing in recent runs (filled
    /// in by the caller that keeps history).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flips: Vec<crate::budget::Flip>,
    /// The signal that stopped the run (`SIGINT`, `SIGTERM`, `SIGHUP`), if one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<String>,
    /// Names (never values) of the runner's credential-like variables the servers did not
    /// get.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub withheld_env: Vec<String>,
    /// What the state file keeps: `outputs` with the real values of `sensitive` exports
    /// (never in a report).
    #[serde(skip)]
    pub state_outputs: Map<String, Value>,
    /// The keys of `state_outputs` that hold sensitive values.
    #[serde(skip)]
    pub sensitive_outputs: Vec<String>,
    /// What the run exercised of each server (with `--coverage`, `--min-coverage` or the
    /// suite's `minimumCoverage`; filled in by the caller).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage: Option<crate::coverage::Coverage>,
}

/// This machine's name, when it has one.
fn hostname() -> Option<String> {
    nix::unistd::gethostname()
        .ok()
        .and_then(|h| h.into_string().ok())
        .filter(|h| !h.is_empty())
}

fn one() -> usize {
    1
}

/// Which shard of a sharded run a result is, for `mcpr report merge`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Shard {
    /// K of `--shard K/N`, from 1.
    pub index: usize,
    /// N of `--shard K/N`.
    pub count: usize,
    /// The ids of every test of the selection before it was split, in report order.
    pub tests: Vec<String>,
}

impl RunResult {
    /// Counts per outcome of a list of results.
    pub fn summarise(tests: &[TestResult]) -> Summary {
        let mut s = Summary::default();
        for t in tests {
            if t.quarantined
                && !t.status.is_pass()
                && !matches!(t.status, Outcome::Skipped | Outcome::Interrupted)
            {
                s.quarantined += 1;
                continue;
            }
            match t.status {
                Outcome::Passed => s.passed += 1,
                Outcome::Failed => s.failed += 1,
                Outcome::Errored => s.errored += 1,
                Outcome::Skipped => s.skipped += 1,
                Outcome::Blocked => s.blocked += 1,
                Outcome::Flaky => s.flaky += 1,
                Outcome::Interrupted => s.interrupted += 1,
            }
        }
        s
    }
}

/// Runs a suite and calls `on_event` as it goes; `TestFinished` events come in report
/// order. Returns every result in that order, once every server of the suite is gone.
pub async fn run_suite(
    suite: Arc<Suite>,
    opts: RunOptions,
    on_event: &mut (dyn FnMut(&Event) + Send),
) -> Result<RunResult, PlanError> {
    let (result, closing) = run_suite_closing(suite, opts, on_event).await?;
    closing.wait().await;
    Ok(result)
}

/// [`run_suite`] that returns as soon as the last result is in, with the sessions still
/// closing: the caller does its own work meanwhile (writing reports) and waits for them.
/// A test whose session was still closing has a close time of 0 in its timing.
pub async fn run_suite_closing(
    suite: Arc<Suite>,
    opts: RunOptions,
    on_event: &mut (dyn FnMut(&Event) + Send),
) -> Result<(RunResult, Closing), PlanError> {
    let started = Instant::now();
    let rows = match &opts.rows {
        Some(r) => Arc::clone(r),
        None => Arc::new(
            crate::data::load_suite(&suite, &opts.data)
                .await
                .map_err(|e| plan_error(e.run_code(), e.to_string()))?,
        ),
    };
    let plan = plan::Plan::make(&suite, &rows, &opts)?;
    // Without a default target every test names its server (Plan::make checks that).
    let Some(default_target) = default_target(&suite, opts.target.as_ref()) else {
        return Err(plan_error(RunCode::NoServer, "the suite names no server"));
    };
    let suite_name = suite
        .name
        .clone()
        .unwrap_or_else(|| "MCP test suite".into());
    let mut targets = vec![&default_target];
    targets.extend(suite.servers.iter().flat_map(|s| s.iter().map(|(_, t)| t)));
    let withheld_env = crate::exec::withheld_env(targets);
    on_event(&Event::RunStarted {
        suite: suite_name.clone(),
        tests: plan.order.len(),
        target: None,
        withheld_env: withheld_env.clone(),
    });
    let shard = opts.shard.map(|(index, count)| Shard {
        index,
        count,
        tests: plan
            .whole
            .iter()
            .map(|&i| plan.tests[i].id.clone())
            .collect(),
    });
    let dispatch =
        dispatch::Dispatch::new(Arc::clone(&suite), plan, &opts, default_target, started);
    let dispatch::Dispatched {
        shown,
        secret_outputs,
        planned,
        interrupted,
        closing,
    } = dispatch.run(on_event).await?;
    // A data row publishes its outputs under its logical test too.
    let logical = |i: usize| {
        let p = &planned[i];
        p.row.is_some().then_some(p.logical.as_str())
    };
    let outputs = suite_outputs(
        shown
            .iter()
            .map(|(i, r)| (logical(*i), r.id.as_str(), &r.outputs)),
    );
    let secret = || {
        secret_outputs
            .iter()
            .map(|(i, id, o)| (logical(*i), id.as_str(), o))
    };
    let mut state_outputs = outputs.clone();
    state_outputs.extend(suite_outputs(secret()));
    let sensitive_outputs = suite_outputs(secret())
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    // Each boxed result is moved into place and its box freed as the list fills.
    let tests: Vec<TestResult> = shown.into_iter().map(|(_, r)| *r).collect();
    let summary = RunResult::summarise(&tests);
    let result = RunResult {
        suite_name,
        file: None,
        started_at: Some(chrono::Local::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, false)),
        hostname: hostname(),
        jobs: opts.jobs.max(1),
        shard,
        status: RunStatus::of(&summary, interrupted.is_some()),
        duration_ms: started.elapsed().as_millis() as u64,
        tests,
        outputs,
        summary,
        budgets: Vec::new(),
        regressions: Vec::new(),
        flips: Vec::new(),
        interrupted: interrupted.map(|s| s.name().to_string()),
        withheld_env,
        state_outputs,
        sensitive_outputs,
        coverage: None,
    };
    Ok((result, closing))
}

/// The server of tests that name none: the run's override, else the suite's `Server:`,
/// else (when every test names its server) the first named server.
pub fn default_target(suite: &Suite, run_override: Option<&ir::Target>) -> Option<ir::Target> {
    run_override
        .or(suite.target.as_ref())
        .or_else(|| {
            suite
                .servers
                .as_ref()
                .and_then(|s| s.iter().next().map(|(_, t)| t))
        })
        .cloned()
}

/// The outputs of a suite's tests (the logical test of a data row, the test id, the
/// test's outputs), `ID.KEY`; a data-driven test's rows also publish each key as a list in
/// row order under the logical test's slug.
pub fn suite_outputs<'r>(
    tests: impl Iterator<Item = (Option<&'r str>, &'r str, &'r Map<String, Value>)>,
) -> Map<String, Value> {
    let mut outputs = Map::new();
    let mut by_logical: BTreeMap<String, Vec<&Map<String, Value>>> = BTreeMap::new();
    for (logical, id, r) in tests {
        for (k, v) in r {
            outputs.insert(format!("{id}.{k}"), v.clone());
        }
        if let Some(logical) = logical {
            by_logical.entry(slug(logical)).or_default().push(r);
        }
    }
    for (logical, rs) in by_logical {
        if rs.len() < 2 {
            continue;
        }
        let mut keys: Vec<&String> = Vec::new();
        for r in &rs {
            for k in r.keys() {
                if !keys.contains(&k) {
                    keys.push(k);
                }
            }
        }
        for k in keys {
            let list: Vec<Value> = rs
                .iter()
                .map(|r| r.get(k).cloned().unwrap_or(Value::Null))
                .collect();
            outputs.insert(format!("{logical}.{k}"), Value::Array(list));
        }
    }
    outputs
}
