//! GitHub Actions annotations (printed when `GITHUB_ACTIONS=true`): one `::error` per test
//! that failed, errored or was blocked, pointing at the `.mcpr` line of the failing
//! statement, and a closing `::notice` with the counts.

use std::io::Write;

use super::terminal::summary_line;
use super::{Report, Reporter};
use crate::exec::Outcome;
use crate::schedule::{RunResult, Summary};

/// Prints the annotations of a run on stdout when the command ends (GitHub Actions reads
/// workflow commands from the job's output).
#[derive(Debug, Default)]
pub struct GithubAnnotations;

impl Reporter for GithubAnnotations {
    fn finish(&mut self, report: Report<'_>) -> Result<(), String> {
        if let Report::Run(runs) = report {
            let mut out = std::io::stdout().lock();
            // A closed stdout must not fail the run.
            let _ = out.write_all(annotations(runs).as_bytes());
            let _ = out.flush();
        }
        Ok(())
    }
}

fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// The annotation lines of one or more runs.
pub fn annotations(runs: &[RunResult]) -> String {
    let mut out = String::new();
    let (total, _) = Summary::of_runs(runs);
    for run in runs {
        for t in &run.tests {
            if !matches!(
                t.status,
                Outcome::Failed | Outcome::Errored | Outcome::Blocked
            ) {
                continue;
            }
            let mut props = Vec::new();
            let mut message = format!("{} {}", t.name, t.status.as_str());
            if let Some(f) = &t.failure {
                if let Some(loc) = &f.location {
                    props.push(format!("file={}", escape_property(&loc.file)));
                    props.push(format!("line={}", loc.line));
                    props.push(format!("col={}", loc.column));
                }
                message = super::failure_text(f);
            }
            props.push(format!(
                "title={}",
                escape_property(&format!("mcpr: {}", t.name))
            ));
            out.push_str(&format!(
                "::error {}::{}\n",
                props.join(","),
                escape_data(&message)
            ));
        }
    }
    out.push_str(&format!(
        "::notice title=mcpr::{}\n",
        escape_data(&summary_line(&total))
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(escape_data("a%b\nc"), "a%25b%0Ac");
        assert_eq!(escape_property("a:b,c"), "a%3Ab%2Cc");
    }
}
