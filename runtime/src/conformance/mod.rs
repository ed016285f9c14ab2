//! `mcpr conformance`: the standard flow library (`stdlib-flows/`, served by the compiler)
//! run against one server in every protocol era it speaks, each flow one check.
//!
//! 1. the eras are discovered ([`discover`]): the handshake mcpr would pick, and the other
//!    era's newest version when the server speaks both;
//! 2. for each version, a suite is generated from the chosen libraries ([`suite`]) and
//!    compiled like any `.mcpr` file, then run through [`crate::run::run`] with the
//!    command's reporters (their reports are written once, over every era);
//! 3. each test becomes a check with a [`Verdict`]: SUCCESS, FAILURE, WARNING (a `should`
//!    check that failed) or INFO (an optional capability the server does not offer, or an
//!    input the check needs and was not given);
//! 4. the expected-failures baseline ([`baseline`]) is applied: a listed check that fails
//!    is expected, one that passes is stale and fails.

pub mod baseline;
pub mod cancellation;
pub mod discover;
pub mod http;
pub mod native;
pub mod negotiation;
pub mod progress;
pub mod render;
pub mod stdio;
pub mod suite;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use mcpr_compiler::stdlib::{self, Level, LibraryDoc};
use serde::Serialize;
use serde_json::Value;

pub use native::NativeCheck;

use crate::codes::{ExitClass, RunCode};
use crate::exec::Outcome;
use crate::interrupt::Interrupt;
use crate::report::{Report, Reporter};
use crate::run::{self, HistorySettings, RunRequest, SuiteFile, TargetChoice};
use crate::schedule::{Event, RunResult};

/// Everything `mcpr conformance` needs, as plain data.
#[derive(Debug, Clone, Default)]
pub struct ConformanceRequest {
    /// The server: a command line or a URL.
    pub target: TargetChoice,
    /// The protocol versions to test; empty: every era the server speaks.
    pub versions: Vec<String>,
    /// The libraries to run (names after `std:`); empty: every library.
    pub suites: Vec<String>,
    /// Inputs of the flows (`tool`, `arguments`, …).
    pub inputs: BTreeMap<String, Value>,
    /// The expected-failures file.
    pub baseline: Option<PathBuf>,
    /// Most checks at once.
    pub jobs: Option<usize>,
    /// The deadline of each request (and of discovery's handshakes).
    pub timeout: Option<Duration>,
    /// Keep the messages of every check that does not pass (for `--html`).
    pub transcript_failures: bool,
    /// Raised by a signal.
    pub interrupt: Option<Interrupt>,
    /// The run's context (environment, CI, OAuth state, learned secrets).
    pub context: crate::context::RunContext,
}

/// How one check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Verdict {
    /// The server did what the check asks.
    Success,
    /// A `must` check failed (or a baseline entry is stale).
    Failure,
    /// A `should` check failed.
    Warning,
    /// Not applicable: an optional capability not offered, or an input not given.
    Info,
}

impl Verdict {
    /// The word printed for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Success => "SUCCESS",
            Verdict::Failure => "FAILURE",
            Verdict::Warning => "WARNING",
            Verdict::Info => "INFO",
        }
    }
}

/// One check against one protocol version.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckResult {
    /// The check's id (`tools.unknown-tool`).
    pub check: String,
    /// The library (after `std:`).
    pub library: String,
    /// The flow's name.
    pub flow: String,
    /// What it checks.
    pub checks: String,
    /// The protocol version it ran with.
    pub version: String,
    /// The verdict, after the baseline.
    pub verdict: Verdict,
    /// Specification sections.
    pub spec: Vec<String>,
    /// Why it did not succeed (the failure, the capability not offered, the missing input).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// A failure the baseline lists: shown, not counted.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub expected: bool,
}

/// What a finished conformance run hands back.
#[derive(Debug)]
pub struct ConformanceOutcome {
    /// The versions tested, in order.
    pub versions: Vec<String>,
    /// Every check of every version.
    pub checks: Vec<CheckResult>,
    /// Baseline entries that name no check that ran (shown as a note).
    pub unused_baseline: Vec<String>,
    /// How the run ended: [`ExitClass::TestsFailed`] when a check failed.
    pub exit: ExitClass,
}

impl ConformanceOutcome {
    /// How many checks have `verdict` (expected failures left out).
    pub fn count(&self, verdict: Verdict) -> usize {
        self.checks
            .iter()
            .filter(|c| c.verdict == verdict && !c.expected)
            .count()
    }
}

/// Why a conformance run could not report.
#[derive(Debug)]
pub enum ConformanceError {
    /// Bad settings: an unknown library or version, a bad baseline (exit 2).
    Usage(String),
    /// The server could not be reached in any era (exit 3).
    Failure(String),
}

impl ConformanceError {
    /// The exit class of this failure.
    pub fn class(&self) -> ExitClass {
        match self {
            ConformanceError::Usage(_) => ExitClass::Usage,
            ConformanceError::Failure(_) => ExitClass::ServerFailure,
        }
    }
}

/// The libraries `names` asks for (every one when empty).
pub fn libraries(names: &[String]) -> Result<Vec<LibraryDoc>, ConformanceError> {
    let docs = stdlib::documents().map_err(ConformanceError::Usage)?;
    if names.is_empty() {
        return Ok(docs);
    }
    let mut out = Vec::new();
    for name in names
        .iter()
        .filter(|n| n.as_str() != STDIO && n.as_str() != http::SUITE)
    {
        let bare = name.strip_prefix("std:").unwrap_or(name);
        match docs.iter().find(|d| d.library.name == bare) {
            Some(d) => out.push(d.clone()),
            None => {
                return Err(ConformanceError::Usage(format!(
                    "--suite {name:?} is not a standard library; known: {}",
                    stdlib::known_names().join(", ")
                )));
            }
        }
    }
    Ok(out)
}

/// The name of the stdio transport's checks for `--suite` (not a flow library).
pub const STDIO: &str = "stdio";

/// The stdio transport's checks.
pub const STDIO_CHECKS: &[NativeCheck] = &[stdio::CLEAN, stdio::EXIT];

/// The checks the command makes itself for a flow library (`--suite LIBRARY` runs them), as
/// `--list` shows them after the library's flows.
pub const LIBRARY_CHECKS: &[NativeCheck] =
    &[negotiation::CHECK, progress::CHECK, cancellation::CHECK];

/// Forwards everything but `finish`: the reports are written once, after every era.
struct Eras<'a>(&'a mut dyn Reporter);

impl Reporter for Eras<'_> {
    fn suite_started(&mut self, suite: &mcpr_compiler::ir::Suite) {
        self.0.suite_started(suite);
    }
    fn event(&mut self, event: &Event) {
        self.0.event(event);
    }
    fn suite_finished(&mut self, run: &RunResult) {
        self.0.suite_finished(run);
    }
    fn note(&mut self, text: &str) {
        self.0.note(text);
    }
}

/// Runs the standard library against the server; the reporters get every era's run.
pub async fn run(
    req: ConformanceRequest,
    reporter: &mut dyn Reporter,
) -> Result<ConformanceOutcome, ConformanceError> {
    let libs = libraries(&req.suites)?;
    let baseline = match &req.baseline {
        Some(path) => Some(baseline::Baseline::read(path).map_err(ConformanceError::Usage)?),
        None => None,
    };
    if let Some(b) = &baseline {
        b.check_names(&libs).map_err(ConformanceError::Usage)?;
    }
    let versions = if req.versions.is_empty() {
        discover::eras(&req.target, req.timeout.unwrap_or(Duration::from_secs(10)))
            .await
            .map_err(ConformanceError::Failure)?
    } else {
        for v in &req.versions {
            if crate::protocol::version::era_of(v).is_none() {
                return Err(ConformanceError::Usage(format!(
                    "--protocol {v:?} is not a protocol version mcpr speaks"
                )));
            }
        }
        req.versions.clone()
    };
    let transport = |name: &str| req.suites.is_empty() || req.suites.iter().any(|s| s == name);
    let http_url = match &req.target {
        TargetChoice::Url(url) if transport(http::SUITE) => Some(url.clone()),
        _ => None,
    };
    let stdio_command = match &req.target {
        TargetChoice::Command(_) if transport(STDIO) => {
            let opts = discover::options(&req.target, Duration::from_secs(1))
                .map_err(ConformanceError::Usage)?;
            Some((opts.command, opts.args))
        }
        _ => None,
    };
    let mut runs = Vec::new();
    let mut checks = Vec::new();
    for version in &versions {
        let timeout = req.timeout.unwrap_or(Duration::from_secs(10));
        if let Some((program, args)) = &stdio_command {
            checks.extend(stdio::checks(program, args, version, timeout).await);
        }
        let negotiation = libs.iter().any(|l| l.library.name == "protocol")
            && crate::protocol::version::era_of(version) == Some(crate::protocol::Era::Legacy);
        if negotiation {
            checks.push(negotiation::check(&req.target, version, timeout).await);
        }
        if libs
            .iter()
            .any(|l| l.library.name == cancellation::CHECK.library)
        {
            checks.push(cancellation::check(&req.target, version, timeout).await);
        }
        if libs
            .iter()
            .any(|l| l.library.name == progress::CHECK.library)
        {
            checks.push(progress::check(&req.target, version, timeout, &req.inputs).await);
        }
        if let Some(url) = &http_url {
            checks.extend(http::checks(url, version, timeout).await);
        }
        if libs.is_empty() {
            continue;
        }
        let capabilities = if libs
            .iter()
            .flat_map(|l| &l.flows)
            .any(|f| !f.unless.is_empty())
        {
            discover::capabilities(&req.target, version, timeout).await
        } else {
            None
        };
        let generated = suite::generate(version, &libs, &req.inputs, capabilities.as_ref());
        if !generated.runs_any() {
            // Every check of the era is INFO (or none applies): nothing to run.
            for planned in &generated.checks {
                checks.push(judge(version, planned, None));
            }
            continue;
        }
        let compiled = suite::compile(&generated.source).map_err(ConformanceError::Usage)?;
        let run_req = RunRequest {
            suites: vec![SuiteFile {
                suite: compiled,
                shown: format!("conformance {version}"),
                dir: std::env::current_dir().unwrap_or_default(),
                lines: Vec::new(),
            }],
            target: req.target.clone(),
            protocol: Some(version.clone()),
            jobs: req.jobs,
            timeout: req.timeout,
            history: HistorySettings {
                enabled: false,
                ..HistorySettings::default()
            },
            interrupt: req.interrupt.clone(),
            transcript_failures: req.transcript_failures,
            tolerate_stray_lines: true,
            context: req.context.clone(),
            ..RunRequest::default()
        };
        let outcome = run::run(run_req, &mut Eras(reporter))
            .await
            .map_err(|e| match e {
                run::RunError::Usage(m) => ConformanceError::Usage(m),
                run::RunError::Failure(m) => ConformanceError::Failure(m),
                run::RunError::Data(d) => ConformanceError::Usage(d.render(false)),
            })?;
        let result = outcome.runs.into_iter().next();
        for planned in &generated.checks {
            let test = result
                .as_ref()
                .and_then(|r| r.tests.iter().find(|t| t.id == planned.test_id));
            checks.push(judge(version, planned, test));
        }
        runs.extend(result);
        if req.interrupt.as_ref().is_some_and(|i| i.raised().is_some()) {
            break;
        }
    }
    let unused = match &baseline {
        Some(b) => b.apply(&mut checks),
        None => Vec::new(),
    };
    if let Err(e) = reporter.finish(Report::Run(&runs)) {
        reporter.note(&format!("warning: {e}"));
    }
    let failed = checks
        .iter()
        .any(|c| c.verdict == Verdict::Failure && !c.expected);
    Ok(ConformanceOutcome {
        versions,
        checks,
        unused_baseline: unused,
        exit: if failed {
            ExitClass::TestsFailed
        } else {
            ExitClass::Passed
        },
    })
}

/// The verdict of one planned check from its test's result.
fn judge(
    version: &str,
    planned: &suite::Planned,
    test: Option<&crate::exec::TestResult>,
) -> CheckResult {
    let flow = &planned.flow;
    let (verdict, detail) = if !planned.missing.is_empty() {
        (
            Verdict::Info,
            Some(format!(
                "not run: needs {}",
                planned
                    .missing
                    .iter()
                    .map(|n| format!("--input {n}=…"))
                    .collect::<Vec<_>>()
                    .join(" ")
            )),
        )
    } else if !planned.declared.is_empty() {
        (
            Verdict::Info,
            Some(format!(
                "not applicable: the server declares {}",
                planned.declared.join(", ")
            )),
        )
    } else if planned.unknown_capabilities {
        (
            Verdict::Info,
            Some("not run: the server's capabilities could not be read".into()),
        )
    } else {
        match test {
            None => (Verdict::Failure, Some("the check did not run".into())),
            Some(t) => match t.status {
                Outcome::Passed => (Verdict::Success, None),
                Outcome::Skipped
                    if t.failure
                        .as_ref()
                        .is_some_and(|f| f.code == RunCode::MissingCapability) =>
                {
                    (
                        Verdict::Info,
                        Some(format!(
                            "optional capability not offered: {}",
                            flow.requires.join(", ")
                        )),
                    )
                }
                _ => {
                    let why = t
                        .failure
                        .as_deref()
                        .map(failure_text)
                        .unwrap_or_else(|| t.status.as_str().to_string());
                    let verdict = match flow.level {
                        Level::Must => Verdict::Failure,
                        Level::Should => Verdict::Warning,
                    };
                    (verdict, Some(why))
                }
            },
        }
    };
    CheckResult {
        check: flow.check.clone(),
        library: flow.library.to_string(),
        flow: flow.name.clone(),
        checks: flow.checks.clone(),
        version: version.to_string(),
        verdict,
        spec: flow.spec.clone(),
        detail,
        expected: false,
    }
}

/// A test's failure as a check's detail: the code and message, then what was expected and
/// what came back (as `mcpr run` prints them), cut to a line each.
fn failure_text(f: &crate::exec::Failure) -> String {
    let cut = |t: &str| {
        let flat = t.split_whitespace().collect::<Vec<_>>().join(" ");
        let mut s: String = flat.chars().take(200).collect();
        if s.len() < flat.len() {
            s.push('…');
        }
        s
    };
    let mut s = format!("{}: {}", f.code, f.message);
    if let Some(e) = &f.expected {
        s.push_str(&format!("\nexpected: {}", cut(e)));
    }
    if let Some(a) = &f.actual {
        s.push_str(&format!("\nactual:   {}", cut(a)));
    }
    s
}

impl ConformanceError {
    /// What went wrong, for the person running mcpr.
    pub fn message(&self) -> &str {
        match self {
            ConformanceError::Usage(m) | ConformanceError::Failure(m) => m,
        }
    }
}

/// `--input NAME=VALUE`: the value read as JSON (`{"text":"hi"}`, `3`, `true`), else kept
/// as text (`echo`).
pub fn parse_input(text: &str) -> Result<(String, Value), String> {
    let Some((name, value)) = text.split_once('=') else {
        return Err(format!("--input {text:?} is not NAME=VALUE"));
    };
    let name = name.trim();
    let valid = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !valid {
        return Err(format!("--input {text:?}: {name:?} is not an input name"));
    }
    let value = serde_json::from_str(value).unwrap_or_else(|_| Value::String(value.to_string()));
    Ok((name.to_string(), value))
}

/// The versions `--protocol` asks for: none (discover), or `all` (the newest
/// `initialize` version and every stateless one), or the versions given.
pub fn versions_asked(flags: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for f in flags {
        let more: Vec<String> = if f == "all" {
            std::iter::once(crate::protocol::LATEST_HANDSHAKE)
                .chain(crate::protocol::MODERN_VERSIONS.iter().copied())
                .map(String::from)
                .collect()
        } else {
            vec![f.clone()]
        };
        for v in more {
            if !out.contains(&v) {
                out.push(v);
            }
        }
    }
    out
}

/// `mcpr conformance --list`: every check of the libraries, with its level, versions,
/// capabilities and inputs, and the checks the command makes itself (the handshake's
/// version negotiation, the unknown cancellation, the stdio and HTTP transports).
pub fn list(names: &[String]) -> Result<String, String> {
    let libs = libraries(names).map_err(|e| e.message().to_string())?;
    let line = |id: &str, name: &str, notes: &str, spec: &str| {
        format!("  {id:<34} {name} ({notes}) [{spec}]\n")
    };
    let mut s = String::new();
    for lib in &libs {
        s.push_str(&format!("std:{} — {}\n", lib.library.name, lib.summary));
        for f in &lib.flows {
            let mut notes = vec![
                match f.level {
                    Level::Must => "must".to_string(),
                    Level::Should => "should".to_string(),
                },
                f.era.clone().unwrap_or_else(|| "all versions".into()),
            ];
            if !f.requires.is_empty() {
                notes.push(format!("requires {}", f.requires.join(", ")));
            }
            if !f.unless.is_empty() {
                notes.push(format!("only without {}", f.unless.join(", ")));
            }
            for i in &f.inputs {
                notes.push(match &i.default {
                    Some(d) => format!("input {}={d}", i.name),
                    None => format!("input {}", i.name),
                });
            }
            s.push_str(&line(
                &f.check,
                &f.name,
                &notes.join(", "),
                &f.spec.join("; "),
            ));
        }
        for c in LIBRARY_CHECKS
            .iter()
            .filter(|c| c.library == lib.library.name)
        {
            s.push_str(&line(c.check, c.flow, c.listed, &c.spec.join("; ")));
        }
    }
    let transport = |name: &str| names.is_empty() || names.iter().any(|n| n == name);
    if transport(STDIO) {
        s.push_str("stdio — the stdio transport (a server given as `-- CMD ARGS…`)\n");
        for c in STDIO_CHECKS {
            s.push_str(&line(c.check, c.flow, c.listed, &c.spec.join("; ")));
        }
    }
    if transport(http::SUITE) {
        s.push_str("http — the Streamable HTTP transport (a server given as `--url URL`)\n");
        for c in http::CHECKS {
            let era = match c.4 {
                None => "all versions",
                Some(crate::protocol::Era::Legacy) => "the initialize versions",
                Some(crate::protocol::Era::Modern) => "the stateless versions",
            };
            s.push_str(&line(c.0, c.1, era, c.3));
        }
    }
    Ok(s)
}
