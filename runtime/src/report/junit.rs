//! `--junit PATH`: JUnit XML through quick-junit. Failed tests carry `<failure>`, errored
//! and blocked tests `<error>` (type `errored` / `blocked`), skipped ones `<skipped>`; every
//! message names the file:line of the failing statement.

use std::path::PathBuf;
use std::time::Duration;

use quick_junit::{NonSuccessKind, TestCase, TestCaseStatus, TestSuite};

use super::{Report, Reporter, failure_text};
use crate::exec::Outcome;
use crate::files::{Access, write_atomic};
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
        write_atomic(&self.path, xml.as_bytes(), Access::Shared)
    }
}

/// The JUnit XML of one or more suites.
pub fn report(runs: &[RunResult]) -> Result<String, String> {
    let mut report = quick_junit::Report::new("mcpr");
    let mut total = Duration::ZERO;
    for run in runs {
        let mut suite = TestSuite::new(run.suite_name.as_str());
        let time = Duration::from_millis(run.duration_ms);
        suite.set_time(time);
        total += time;
        for t in &run.tests {
            let message = t
                .failure
                .as_ref()
                .map(|f| match &f.location {
                    Some(l) => format!("{}:{}: {}: {}", l.file, l.line, f.code, f.message),
                    None => format!("{}: {}", f.code, f.message),
                })
                .unwrap_or_default();
            let detail = t.failure.as_ref().map(failure_text).unwrap_or_default();
            let status = match t.status {
                Outcome::Passed => TestCaseStatus::success(),
                Outcome::Skipped => {
                    let mut s = TestCaseStatus::skipped();
                    s.set_message(message);
                    s
                }
                Outcome::Failed | Outcome::Errored | Outcome::Blocked => {
                    let kind = if t.status == Outcome::Failed {
                        NonSuccessKind::Failure
                    } else {
                        NonSuccessKind::Error
                    };
                    let mut s = TestCaseStatus::non_success(kind);
                    s.set_message(message);
                    s.set_type(t.status.as_str());
                    s.set_description(detail);
                    s
                }
            };
            let mut case = TestCase::new(t.name.as_str(), status);
            case.set_classname(run.suite_name.as_str());
            case.set_time(Duration::from_millis(t.duration_ms));
            suite.add_test_case(case);
        }
        report.add_test_suite(suite);
    }
    report.set_time(total);
    report.to_string().map_err(|e| e.to_string())
}
