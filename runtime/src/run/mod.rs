//! A whole `mcpr run` as one library call: settings in a plain [`RunRequest`], reports
//! through a [`Reporter`], and a typed [`RunOutcome`] whose [`ExitClass`] the command line
//! turns into its exit code. What happens, in order:
//!
//! 1. the settings are checked (jobs, protocol version, shard) and the server override
//!    (`--url`, `--server`, `--profile`) resolved ([`target`]);
//! 2. the state file is read (`--state-in`);
//! 3. each suite runs in turn ([`suite`]): `Token from` commands, data sources, the
//!    snapshot store, the scheduler, latency budgets and the run history;
//! 4. the reporters write their reports, the state file is written (`--state-out`), and
//!    the outcome is classified.
//!
//! Parity runs (`mcpr parity`, `run --compare`) have their own entry point, [`parity()`].

pub mod config;
mod coverage;
mod parity;
pub mod project;
pub mod select;
mod suite;
mod target;

use std::path::PathBuf;
use std::time::Duration;

use mcpr_compiler::ir::Suite;

pub use crate::codes::ExitClass;
pub use coverage::CoverageSettings;
pub use parity::{ParityOutcome, ParityRequest, parity};
pub use target::TargetChoice;

use crate::budget::Verdict;
use crate::data::DataErrors;
use crate::exec::Outcome;
use crate::interrupt::{Interrupt, StopSignal};
use crate::report::{Report, Reporter};
use crate::schedule::{Closing, RunOptions, RunResult, RunStatus};
use crate::state;

/// A compiled suite and where it came from.
#[derive(Debug, Clone)]
pub struct SuiteFile {
    /// The suite.
    pub suite: Suite,
    /// The file as shown to people (and the key of its run history).
    pub shown: String,
    /// The folder relative data paths start from (the suite file's folder).
    pub dir: PathBuf,
    /// Lines of the file whose tests alone run (`FILE:LINE`); empty: every test.
    pub lines: Vec<u32>,
}

/// What data sources may do (`--allow-…`, `--max-rows`).
#[derive(Debug, Clone, Copy)]
pub struct DataFlags {
    /// Fetch rows over the network.
    pub allow_remote_data: bool,
    /// Run plugin commands.
    pub allow_custom_code: bool,
    /// Reach loopback, private and link-local addresses.
    pub allow_private_network: bool,
    /// Most rows one source may give.
    pub max_rows: usize,
}

impl Default for DataFlags {
    fn default() -> Self {
        DataFlags {
            allow_remote_data: false,
            allow_custom_code: false,
            allow_private_network: false,
            max_rows: crate::data::DEFAULT_MAX_ROWS,
        }
    }
}

/// Where response snapshots are kept and whether they may change.
#[derive(Debug, Clone, Default)]
pub struct SnapshotSettings {
    /// The snapshot file (default: the suite's `Snapshots:` file, else `mcpr.snap.json`).
    pub file: Option<PathBuf>,
    /// Overwrite snapshots that differ and record missing ones.
    pub update: bool,
}

/// The run history that latency budgets read.
#[derive(Debug, Clone)]
pub struct HistorySettings {
    /// The history file (default `.mcpr/history.jsonl`).
    pub file: Option<PathBuf>,
    /// Read and append the history (off: budgets see this run alone).
    pub enabled: bool,
    /// Fail passed tests that took markedly longer than they used to.
    pub fail_on_regression: bool,
}

impl Default for HistorySettings {
    fn default() -> Self {
        HistorySettings {
            file: None,
            enabled: true,
            fail_on_regression: false,
        }
    }
}

/// Everything a run needs, as plain data.
#[derive(Debug, Clone, Default)]
pub struct RunRequest {
    /// The suites, in the order they run.
    pub suites: Vec<SuiteFile>,
    /// The server to run against instead of each suite's own.
    pub target: TargetChoice,
    /// Only tests whose name or id matches (with their dependencies).
    pub filter: Option<String>,
    /// With `filter`: do not pull in dependencies.
    pub no_deps: bool,
    /// `-k`, `--last-failed`, `--failed-first`.
    pub select: select::Asked,
    /// Start no further test after the first that did not pass.
    pub fail_fast: bool,
    /// Run only shard K of N (see [`parse_shard`]).
    pub shard: Option<(usize, usize)>,
    /// Most tests at once (default: the number of cores).
    pub jobs: Option<usize>,
    /// The protocol version every session speaks; probed when `None`.
    pub protocol: Option<String>,
    /// Read `${state.…}` from this state file.
    pub state_in: Option<PathBuf>,
    /// When every test passes, write the run's outputs to this state file.
    pub state_out: Option<PathBuf>,
    /// Accept a state file written for another target.
    pub allow_state_target_mismatch: bool,
    /// What data sources may do.
    pub data: DataFlags,
    /// Response snapshots.
    pub snapshots: SnapshotSettings,
    /// The run history.
    pub history: HistorySettings,
    /// Coverage of what the servers advertise (`--coverage`, `--min-coverage`).
    pub coverage: CoverageSettings,
    /// Keep each step's response and each session's messages in the results.
    pub transcript: bool,
    /// Most bytes each session keeps waiting (default 64 MiB).
    pub max_session_buffer: Option<usize>,
    /// Most JSON values one message may hold (default 1,000,000).
    pub max_message_values: Option<usize>,
    /// Skip and record stdout lines that are not JSON instead of stopping the session
    /// (`mcpr conformance`; `SessionConfig::tolerate_stray_lines`).
    pub tolerate_stray_lines: bool,
    /// Raised by a signal: the run ends its servers, marks what did not finish and still
    /// writes its reports; no further suite starts.
    pub interrupt: Option<Interrupt>,
    /// Keep the session's messages of every test that does not pass (for `--html`).
    pub transcript_failures: bool,
    /// The default step deadline (`--timeout`): over the suite's `defaults.timeoutMs` and
    /// mcpr's 10 s; a step's own `timeoutMs` still wins.
    pub timeout: Option<Duration>,
    /// How long each server may take to exit after its stdin closes, and again after
    /// SIGTERM (`--shutdown-grace`; default [`crate::session::config::DEFAULT_SHUTDOWN_GRACE`]).
    pub shutdown_grace: Option<crate::session::ShutdownGrace>,
    /// Tests on the same server share one session per job (`--reuse-server`), as a
    /// suite's `Session: shared` asks.
    pub reuse_server: bool,
    /// How many times a failed or errored test runs again where the test says nothing
    /// (`--retries`; 0 to [`crate::schedule::MAX_RETRIES`]).
    pub retries: Option<u32>,
    /// The quarantine file (`--quarantine`): its tests' failures do not fail the run.
    pub quarantine: Option<PathBuf>,
    /// What the run decided before it started: the environment it reads, whether it runs
    /// in CI (then a missing snapshot fails instead of being recorded), the OAuth state,
    /// the token cache and the secrets learned as it goes.
    pub context: crate::context::RunContext,
}

/// Why a run stopped before it could report.
#[derive(Debug)]
pub enum RunError {
    /// Bad settings or a suite that cannot run (exit class [`ExitClass::Usage`]).
    Usage(String),
    /// Data sources could not be loaded: every problem, sorted; the caller renders them (with
    /// colour or not).
    Data(Box<DataErrors>),
    /// The run could not go on (exit class [`ExitClass::ServerFailure`]).
    Failure(String),
}

impl RunError {
    /// The exit class of this failure.
    pub fn class(&self) -> ExitClass {
        match self {
            RunError::Usage(_) => ExitClass::Usage,
            RunError::Data(e) if e.is_environment() => ExitClass::ServerFailure,
            RunError::Data(_) => ExitClass::Usage,
            RunError::Failure(_) => ExitClass::ServerFailure,
        }
    }
}

/// What a finished run hands back.
#[derive(Debug)]
pub struct RunOutcome {
    /// Each suite's result, in the order they ran.
    pub runs: Vec<RunResult>,
    /// How the run ended.
    pub exit: ExitClass,
    /// Why the latency gate failed, when it did (`N budget(s) exceeded, M regression(s)`).
    pub gate: Option<String>,
    /// The signal that stopped the run, if one did (then `exit` is
    /// [`ExitClass::Interrupted`] and the exit code is the signal's).
    pub interrupted: Option<StopSignal>,
}

/// Parses `K/N` (1 ≤ K ≤ N) as a shard.
pub fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    text.split_once('/')
        .and_then(|(k, n)| Some((k.trim().parse().ok()?, n.trim().parse().ok()?)))
        .ok_or_else(|| "--shard takes K/N, such as 1/4".to_string())
}

/// The scheduler settings every suite of the request shares.
fn run_options(
    req: &RunRequest,
    target: Option<mcpr_compiler::ir::Target>,
) -> Result<RunOptions, RunError> {
    let mut opts = RunOptions {
        filter: req.filter.clone(),
        no_deps: req.no_deps,
        fail_fast: req.fail_fast,
        target,
        transcript: req.transcript,
        transcript_failures: req.transcript_failures,
        timeout: req.timeout,
        shutdown_grace: req.shutdown_grace,
        reuse_server: req.reuse_server,
        shard: req.shard,
        interrupt: req.interrupt.clone(),
        max_buffered_bytes: req
            .max_session_buffer
            .unwrap_or(crate::session::config::DEFAULT_BUFFER_BYTES),
        max_message_values: req
            .max_message_values
            .unwrap_or(crate::session::config::DEFAULT_MESSAGE_VALUES),
        tolerate_stray_lines: req.tolerate_stray_lines,
        context: req.context.clone(),
        ..RunOptions::default()
    };
    if let Some(n) = req.retries {
        if n > crate::schedule::MAX_RETRIES {
            return Err(RunError::Usage(format!(
                "--retries {n} is too many: at most {}",
                crate::schedule::MAX_RETRIES
            )));
        }
        opts.retries = Some(n);
    }
    if let Some(path) = &req.quarantine {
        opts.quarantine = crate::schedule::Quarantine::load(path).map_err(RunError::Usage)?;
    }
    if let Some(j) = req.jobs {
        if j == 0 {
            return Err(RunError::Usage("--jobs must be at least 1".into()));
        }
        opts.jobs = j;
    }
    if let Some(version) = &req.protocol {
        if crate::protocol::version::era_of(version).is_none() {
            return Err(RunError::Usage(format!(
                "--protocol {version:?} is not a protocol version mcpr speaks; known: {}, {}",
                crate::protocol::HANDSHAKE_VERSIONS.join(", "),
                crate::protocol::MODERN_VERSIONS.join(", ")
            )));
        }
        opts.protocol = Some(version.clone());
    }
    Ok(opts)
}

/// Runs every suite of `req`, reporting through `reporter`; see the module documentation.
pub async fn run(req: RunRequest, reporter: &mut dyn Reporter) -> Result<RunOutcome, RunError> {
    let Some(first) = req.suites.first() else {
        return Err(RunError::Usage("no suite to run".into()));
    };
    let target = req.target.resolve().map_err(RunError::Usage)?;
    let mut opts = run_options(&req, target)?;
    let Some(first_target) = crate::schedule::default_target(&first.suite, opts.target.as_ref())
    else {
        return Err(RunError::Usage(format!(
            "{} names no server (a .mcp script never does, nor a suite that says `Server from the command line`); pass --server CMD, --url URL or --profile NAME",
            first.shown
        )));
    };
    let first_suite = first.suite.clone();
    if let Some(path) = &req.state_in {
        let loaded = state::read(path, &first_target, req.allow_state_target_mismatch)
            .map_err(RunError::Usage)?;
        opts.state = loaded.state;
        opts.secrets = loaded.secrets;
    }
    let mut runner = suite::SuiteRunner::new(&req, opts, reporter);
    let mut runs = Vec::new();
    let mut left = req.suites.len();
    // The servers of the suite that ran last, still shutting down: the next suite starts its
    // own once they are gone (`--jobs` bounds the servers alive at once); the last suite's
    // close while the reports are written.
    let mut closing = Closing::default();
    for file in req.suites {
        if let Some(signal) = req.interrupt.as_ref().and_then(Interrupt::raised) {
            runner.note(&format!(
                "note: {} and {} more suite(s) not started: the run got {}",
                file.shown,
                left - 1,
                signal.name()
            ));
            break;
        }
        left -= 1;
        closing.wait().await;
        let (run, still_closing) = runner.run(file).await?;
        runs.push(run);
        closing = still_closing;
    }
    drop(runner);
    let interrupted = req.interrupt.as_ref().and_then(Interrupt::raised);
    let finished = reporter.finish(Report::Run(&runs));
    let state = match &req.state_out {
        Some(path) => write_state(path, &first_suite, &first_target, &runs, reporter),
        None => Ok(()),
    };
    closing.wait().await;
    state?;
    finished.map_err(RunError::Failure)?;
    let mut outcome = classify(runs);
    if let Some(signal) = interrupted {
        outcome.exit = ExitClass::Interrupted;
        outcome.interrupted = Some(signal);
    }
    Ok(outcome)
}

/// Writes the state file when every suite passed; says so when it did not.
fn write_state(
    path: &std::path::Path,
    suite: &Suite,
    target: &mcpr_compiler::ir::Target,
    runs: &[RunResult],
    reporter: &mut dyn Reporter,
) -> Result<(), RunError> {
    if !runs.iter().all(|r| r.status == RunStatus::Passed) {
        let why = match runs.iter().find_map(|r| r.interrupted.as_deref()) {
            Some(signal) => format!("the run got {signal}"),
            None => "the run did not pass".to_string(),
        };
        reporter.note(&format!("note: {} not written: {why}", path.display()));
        return Ok(());
    }
    let mut outputs = serde_json::Map::new();
    let mut sensitive = Vec::new();
    for r in runs {
        outputs.extend(r.state_outputs.clone());
        sensitive.extend(r.sensitive_outputs.iter().cloned());
    }
    state::write(path, suite, target, &outputs, &sensitive).map_err(RunError::Failure)
}

/// The exit class of finished runs: an errored test outranks a failed one, which
/// outranks a failed latency gate.
pub fn classify(runs: Vec<RunResult>) -> RunOutcome {
    let exceeded = runs
        .iter()
        .flat_map(|r| &r.budgets)
        .filter(|b| b.verdict == Verdict::Exceeded)
        .count();
    let regressed: usize = runs.iter().map(|r| r.regressions.len()).sum();
    let gate = (exceeded + regressed > 0)
        .then(|| format!("{exceeded} budget(s) exceeded, {regressed} regression(s)"));
    let short = runs
        .iter()
        .any(|r| r.coverage.as_ref().is_some_and(|c| !c.passed));
    let mut exit = if gate.is_some() || short {
        ExitClass::TestsFailed
    } else {
        ExitClass::Passed
    };
    for t in runs
        .iter()
        .flat_map(|r| &r.tests)
        .filter(|t| !t.quarantined)
    {
        match t.status {
            Outcome::Errored => exit = ExitClass::ServerFailure,
            Outcome::Failed | Outcome::Blocked => exit = exit.max(ExitClass::TestsFailed),
            _ => {}
        }
    }
    RunOutcome {
        runs,
        exit,
        gate,
        interrupted: None,
    }
}
