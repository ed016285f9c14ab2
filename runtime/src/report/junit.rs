//! `--junit PATH` (`-` for stdout): JUnit XML through quick-junit. Failed tests carry
//! `<failure>`, errored, blocked and interrupted tests `<error>` (type `errored` / `blocked` /
//! `interrupted`: a signal stopped the run before the test ended), skipped
//! ones `<skipped>`; every message names the file:line of the failing statement. A flaky
//! test (passed on a retry) is a success with a `<flakyFailure>`/`<flakyError>` per earlier
//! attempt and the property `mcpr.status` = `flaky`; a retried test that never passed has
//! `<rerunFailure>`/`<rerunError>`; `mcpr.attempts` and `mcpr.quarantined` are properties.

use std::path::PathBuf;
use std::time::Duration;

use quick_junit::{FlakyOrRerun, NonSuccessKind, TestCase, TestCaseStatus, TestRerun, TestSuite};

use super::terminal::duration;
use super::{Report, Reporter, failure_text, tail, test_location};
use crate::exec::{Attempt, Outcome, StepStatus, TestResult};
use crate::schedule::RunResult;

/// Writes the JUnit XML of a run to a file when the command ends (a parity run has none).
#[derive(Debug)]
pub struct JunitFile {
    path: PathBuf,
}

impl JunitFile {
    /// A reporter writing `path`.
    pub fn new(path: PathBuf) -> JunitFile {
        JunitFile { path }
    }
}

impl Reporter for JunitFile {
    fn finish(&mut self, report: Report<'_>) -> Result<(), String> {
        let Report::Run(runs) = report else {
            return Ok(());
        };
        let xml =
            self::report(runs).map_err(|e| format!("cannot write {}: {e}", self.path.display()))?;
        super::write_output(&self.path, &xml)
    }
}

/// The JUnit XML of one or more suites: a `<testsuite>` per suite with its `timestamp`,
/// `hostname` and `file`; a `<testcase>` per test with `classname` (the suite file, so equal
/// suite names in two files stay apart), `file` and `line`, the step log in `<system-out>`
/// and the server's stderr tail in `<system-err>`.
pub fn report(runs: &[RunResult]) -> Result<String, String> {
    let mut report = quick_junit::Report::new("mcpr");
    let mut total = Duration::ZERO;
    for run in runs {
        let mut suite = TestSuite::new(run.suite_name.as_str());
        let time = Duration::from_millis(run.duration_ms);
        suite.set_time(time);
        if let Some(at) = run
            .started_at
            .as_deref()
            .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        {
            suite.set_timestamp(at);
        }
        if let Some(host) = &run.hostname {
            suite.extra.insert("hostname".into(), host.as_str().into());
        }
        if let Some(file) = &run.file {
            suite.extra.insert("file".into(), file.as_str().into());
        }
        total += time;
        let classname = run.file.as_deref().unwrap_or(&run.suite_name);
        for t in &run.tests {
            suite.add_test_case(case(t, classname));
        }
        report.add_test_suite(suite);
    }
    report.set_time(total);
    report.to_string().map_err(|e| e.to_string())
}

fn case(t: &TestResult, classname: &str) -> TestCase {
    let message = t
        .failure
        .as_ref()
        .map(|f| match &f.location {
            Some(l) => format!("{}:{}: {}: {}", l.file, l.line, f.code, f.message),
            None => format!("{}: {}", f.code, f.message),
        })
        .unwrap_or_default();
    let detail = t.failure.as_deref().map(failure_text).unwrap_or_default();
    let mut status = match t.status {
        Outcome::Passed | Outcome::Flaky => TestCaseStatus::success(),
        Outcome::Skipped => {
            let mut s = TestCaseStatus::skipped();
            s.set_message(message);
            s
        }
        Outcome::Failed | Outcome::Errored | Outcome::Blocked | Outcome::Interrupted => {
            let kind = if t.status == Outcome::Failed {
                NonSuccessKind::Failure
            } else {
                NonSuccessKind::Error
            };
            let mut s = TestCaseStatus::non_success(kind);
            s.set_message(message);
            s.set_type(t.status.as_str());
            s.set_description(detail);
            s.set_rerun_kind(FlakyOrRerun::Rerun);
            s
        }
    };
    // Earlier attempts: `<flakyFailure>`/`<flakyError>` under a test that passed on a
    // retry, `<rerunFailure>`/`<rerunError>` under one that never passed.
    status.add_reruns(t.previous_attempts.iter().map(rerun));
    let mut case = TestCase::new(t.name.as_str(), status);
    case.set_classname(classname);
    if t.status == Outcome::Flaky {
        case.add_property(("mcpr.status", "flaky"));
    }
    if t.attempts > 1 {
        case.add_property(("mcpr.attempts", t.attempts.to_string().as_str()));
    }
    if t.quarantined {
        case.add_property(("mcpr.quarantined", "true"));
    }
    case.set_time(Duration::from_millis(t.duration_ms));
    if let Some(l) = test_location(t) {
        case.extra.insert("file".into(), (&*l.file).into());
        case.extra.insert("line".into(), l.line.to_string().into());
    }
    let log = step_log(t);
    if !log.is_empty() {
        case.set_system_out(log);
    }
    let stderr = t
        .stderr
        .as_deref()
        .or_else(|| t.failure.as_ref().and_then(|f| f.stderr_tail.as_deref()));
    if let Some(e) = stderr {
        case.set_system_err(tail(e, 20));
    }
    case
}

/// An earlier attempt of a retried test as a JUnit rerun.
fn rerun(a: &Attempt) -> TestRerun {
    let kind = if a.status == Outcome::Errored {
        NonSuccessKind::Error
    } else {
        NonSuccessKind::Failure
    };
    let mut r = TestRerun::new(kind);
    r.set_time(Duration::from_millis(a.duration_ms));
    r.set_type(a.status.as_str());
    if let Some(f) = &a.failure {
        r.set_message(match &f.location {
            Some(l) => format!("{}:{}: {}: {}", l.file, l.line, f.code, f.message),
            None => format!("{}: {}", f.code, f.message),
        });
        r.set_description(failure_text(f));
    }
    r
}

/// One line per step that ran (status, name, method, duration) with what it printed.
pub fn step_log(t: &TestResult) -> String {
    let mut out = String::new();
    for s in &t.steps {
        let status = match s.status {
            StepStatus::Passed => "passed",
            StepStatus::Failed => "failed",
            StepStatus::Errored => "errored",
        };
        out.push_str(&format!(
            "{status}: {} [{}] ({})\n",
            s.name,
            s.method,
            duration(s.duration_ms)
        ));
        if let Some(o) = &s.output {
            for line in o.lines() {
                out.push_str(&format!("  {line}\n"));
            }
        }
    }
    for w in &t.warnings {
        out.push_str(&format!("warning {}: {}\n", w.code, w.message));
    }
    out
}
