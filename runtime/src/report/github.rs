//! GitHub Actions output (printed when `GITHUB_ACTIONS=true` or with `--format github`):
//! one `::error` per test that failed, errored or was blocked, pointing at the line of the
//! failing statement (or of the test's first step when none failed: a blocked test), a
//! `::warning` per flaky test (passed on a retry), quarantined failure and unsteady test
//! (its outcome flipped in recent runs), a `::notice` per quarantined test that passes, a
//! closing `::notice` with the counts, and a Markdown job summary appended to
//! `$GITHUB_STEP_SUMMARY` (counts per suite, each failure with its location and diff).

use std::io::Write;
use std::path::PathBuf;

use super::diff::{failure_diff, unified};
use super::terminal::{duration, summary_line};
use super::{Report, Reporter, test_location};
use crate::exec::Outcome;
use crate::schedule::{RunResult, Summary};
use mcpr_compiler::github::{Annotation, Level};

/// Prints the annotations of a run on stdout when the command ends (GitHub Actions reads
/// workflow commands from the job's output), and appends the job summary.
#[derive(Debug, Default)]
pub struct GithubAnnotations {
    summary: Option<PathBuf>,
    stderr: bool,
}

impl GithubAnnotations {
    /// Annotations, and the job summary appended to `summary` when given.
    pub fn new(summary: Option<PathBuf>) -> GithubAnnotations {
        GithubAnnotations {
            summary,
            stderr: false,
        }
    }

    /// The annotations on stderr instead (stdout carries a report; Actions reads both).
    pub fn on_stderr(mut self) -> GithubAnnotations {
        self.stderr = true;
        self
    }

    /// Annotations, with the job summary where `GITHUB_STEP_SUMMARY` of the command's
    /// environment `env` names a file.
    pub fn from_env(env: &crate::environment::Environment) -> GithubAnnotations {
        let summary = env.non_empty("GITHUB_STEP_SUMMARY").map(PathBuf::from);
        GithubAnnotations::new(summary)
    }
}

impl Reporter for GithubAnnotations {
    fn finish(&mut self, report: Report<'_>) -> Result<(), String> {
        let Report::Run(runs) = report else {
            return Ok(());
        };
        let text = annotations(runs);
        // A closed stdout must not fail the run.
        if self.stderr {
            let _ = std::io::stderr().lock().write_all(text.as_bytes());
        } else {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(text.as_bytes());
            let _ = out.flush();
        }
        if let Some(path) = &self.summary {
            append(path, &job_summary(runs))?;
        }
        Ok(())
    }
}

/// Appends `text` to a file (the job summary is shared by the steps of a job).
fn append(path: &std::path::Path, text: &str) -> Result<(), String> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(|e| format!("cannot write the job summary {}: {e}", path.display()))
}

fn did_not_pass(status: Outcome) -> bool {
    matches!(
        status,
        Outcome::Failed | Outcome::Errored | Outcome::Blocked | Outcome::Interrupted
    )
}

/// The annotation lines of one or more runs.
pub fn annotations(runs: &[RunResult]) -> String {
    let mut out = String::new();
    let (total, _) = Summary::of_runs(runs);
    for t in runs.iter().flat_map(|r| &r.tests) {
        // A flaky test, a quarantined one and one whose quarantine can go are warnings and
        // notices: they do not fail the run.
        let level = match t.status {
            Outcome::Flaky => Level::Warning,
            s if did_not_pass(s) && t.quarantined => Level::Warning,
            s if did_not_pass(s) => Level::Error,
            Outcome::Passed if t.quarantined => Level::Notice,
            _ => continue,
        };
        let failure = t
            .failure
            .as_deref()
            .filter(|_| t.status != Outcome::Flaky)
            .or_else(|| t.previous_attempts.first()?.failure.as_ref());
        let mut message = match failure {
            Some(f) => super::failure_text(f),
            None => format!("{} {}", t.name, t.status.as_str()),
        };
        if t.status == Outcome::Flaky {
            message = format!(
                "flaky: passed on attempt {}; the first attempt: {message}",
                t.attempts
            );
        } else if t.quarantined && t.status == Outcome::Passed {
            message = "quarantined, and passes now: remove it from the quarantine".into();
        } else if t.quarantined {
            message = format!("quarantined (does not fail the run): {message}");
        }
        let title = match t.status {
            Outcome::Flaky => format!("mcpr: {} (flaky)", t.name),
            _ if t.quarantined => format!("mcpr: {} (quarantined)", t.name),
            _ => format!("mcpr: {}", t.name),
        };
        let mut annotation = Annotation::new(level, message);
        if let Some(loc) = test_location(t) {
            annotation = annotation
                .file(&*loc.file)
                .line(loc.line)
                .column(loc.column);
        }
        out.push_str(&format!("{}\n", annotation.title(title)));
    }
    for f in runs.iter().flat_map(|r| &r.flips) {
        let annotation = Annotation::new(
            Level::Warning,
            format!(
                "{} flipped {} times in the last {} runs",
                f.test, f.flips, f.runs
            ),
        )
        .title(format!("mcpr: {} (unsteady)", f.test));
        out.push_str(&format!("{annotation}\n"));
    }
    // A run under its minimum coverage, with what was not exercised.
    for (r, why) in runs
        .iter()
        .filter_map(|r| Some((r, r.coverage.as_ref()?.shortfall()?)))
    {
        let mut annotation = Annotation::new(Level::Error, why);
        if let Some(file) = &r.file {
            annotation = annotation.file(file);
        }
        let annotation = annotation.title(format!("mcpr: coverage of {}", r.suite_name));
        out.push_str(&format!("{annotation}\n"));
    }
    let summary = Annotation::new(Level::Notice, summary_line(&total)).title("mcpr");
    out.push_str(&format!("{summary}\n"));
    out
}

/// Text safe inside Markdown and HTML.
fn html(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('|', "&#124;")
}

/// A fence longer than any run of backticks in `text`.
fn fence(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

/// The Markdown job summary of one or more runs.
pub fn job_summary(runs: &[RunResult]) -> String {
    let (total, ms) = Summary::of_runs(runs);
    let signal = runs.iter().find_map(|r| r.interrupted.as_deref());
    let mut out = match signal {
        Some(signal) => format!(
            "## ⏹️ mcpr: interrupted by {signal}: {} ({})\n\n",
            summary_line(&total),
            duration(ms)
        ),
        None => format!(
            "## {} mcpr: {} ({})\n\n",
            if total.passed() { "✅" } else { "❌" },
            summary_line(&total),
            duration(ms)
        ),
    };
    // The column of interrupted tests shows only when a signal stopped the run.
    let stopped = signal.is_some() || total.interrupted > 0;
    out.push_str("| suite | file | passed | failed | errored | skipped | blocked |");
    out.push_str(if stopped { " interrupted |\n" } else { "\n" });
    out.push_str("|---|---|---:|---:|---:|---:|---:|");
    out.push_str(if stopped { "---:|\n" } else { "\n" });
    for r in runs {
        let s = &r.summary;
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} |",
            html(&r.suite_name),
            r.file.as_deref().map(html).unwrap_or_default(),
            s.passed,
            s.failed,
            s.errored,
            s.skipped,
            s.blocked
        ));
        if stopped {
            out.push_str(&format!(" {} |", s.interrupted));
        }
        out.push('\n');
    }
    let failing: Vec<_> = runs
        .iter()
        .flat_map(|r| &r.tests)
        .filter(|t| did_not_pass(t.status) || t.status == Outcome::Flaky)
        .collect();
    if failing.is_empty() {
        return out;
    }
    if failing.iter().any(|t| t.status == Outcome::Flaky) {
        out.push_str("\n### Did not pass, or passed only on a retry\n\n");
    } else {
        out.push_str("\n### Did not pass\n\n");
    }
    for t in failing {
        let at = test_location(t)
            .map(|l| format!(" at <code>{}:{}:{}</code>", html(&l.file), l.line, l.column))
            .unwrap_or_default();
        let status = match (t.quarantined, t.attempts) {
            (true, _) => format!("{}, quarantined", t.status.as_str()),
            (false, n) if n > 1 => format!("{} on attempt {n}", t.status.as_str()),
            _ => t.status.as_str().to_string(),
        };
        out.push_str(&format!(
            "<details><summary><b>{}</b> — {status}{at}</summary>\n\n",
            html(&t.name),
        ));
        let failure = t
            .failure
            .as_deref()
            .filter(|_| t.status != Outcome::Flaky)
            .or_else(|| t.previous_attempts.first()?.failure.as_ref());
        if let Some(f) = failure {
            out.push_str(&format!("{}: {}\n\n", f.code, html(&f.message)));
            if let Some(d) = failure_diff(f) {
                let text = unified(&d);
                let fence = fence(&text);
                out.push_str(&format!("{fence}diff\n{text}{fence}\n\n"));
            }
        }
        out.push_str("</details>\n\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(html("a<b>|c&"), "a&lt;b&gt;&#124;c&amp;");
        assert_eq!(fence("x ```` y"), "`````");
        assert_eq!(fence("plain"), "```");
    }
}
