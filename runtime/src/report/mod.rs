//! Reporters: they read run events and results only, never sessions or transports. Every
//! output format implements [`Reporter`]; a run hands its events and its final report to
//! one reporter, usually a [`Reporters`] list of several. One module per output format:
//!
//! - [`terminal`]: the human lines of a run, live;
//! - [`progress`]: the live progress bar around the terminal lines;
//! - [`json`], [`junit`]: report files;
//! - [`github`]: GitHub Actions annotations and the job summary;
//! - [`html`]: the self-contained HTML report with the run's timeline;
//! - [`parity`]: the parity table and its Markdown form;
//! - [`merge`]: the reports of a sharded run combined into one.

pub mod diff;
pub mod github;
pub mod html;
pub mod json;
pub mod junit;
pub mod merge;
pub mod parity;
pub mod progress;
pub mod terminal;

use mcpr_compiler::ir::{SourceLocation, Suite};

use crate::exec::{Failure, TestResult};
use crate::parity::ParityReport;
use crate::schedule::{Event, RunResult};

/// What a command produced, handed to every reporter once at the end.
#[derive(Debug, Clone, Copy)]
pub enum Report<'a> {
    /// The suites of `mcpr run`, in the order they ran.
    Run(&'a [RunResult]),
    /// The parity of each suite (`mcpr parity`, `mcpr run --compare`).
    Parity(&'a [ParityReport]),
}

/// One output of a run. Every method has a default that does nothing, so a format
/// implements only what it shows: a live format follows the events, a file format writes
/// itself in [`Reporter::finish`].
pub trait Reporter: Send {
    /// A suite is about to run (before any of its events): reporters that read source
    /// files take the suite's secrets from here.
    fn suite_started(&mut self, _suite: &Suite) {}

    /// Something happened during a run (a suite started, a test finished).
    fn event(&mut self, _event: &Event) {}

    /// A suite finished, with its budgets and regressions evaluated.
    fn suite_finished(&mut self, _run: &RunResult) {}

    /// A remark for the person running mcpr (`warning: …`, `note: …`), as it happens.
    fn note(&mut self, _text: &str) {}

    /// The command's result: write the report. The error says what could not be written.
    fn finish(&mut self, _report: Report<'_>) -> Result<(), String> {
        Ok(())
    }
}

/// Several reporters as one, called in the order they were added.
#[derive(Default)]
pub struct Reporters(Vec<Box<dyn Reporter>>);

impl Reporters {
    /// No reporter yet.
    pub fn new() -> Reporters {
        Reporters(Vec::new())
    }

    /// Adds a reporter after the others.
    pub fn push(&mut self, reporter: impl Reporter + 'static) {
        self.0.push(Box::new(reporter));
    }
}

impl Reporter for Reporters {
    fn suite_started(&mut self, suite: &Suite) {
        self.0.iter_mut().for_each(|r| r.suite_started(suite));
    }

    fn event(&mut self, event: &Event) {
        self.0.iter_mut().for_each(|r| r.event(event));
    }

    fn suite_finished(&mut self, run: &RunResult) {
        self.0.iter_mut().for_each(|r| r.suite_finished(run));
    }

    fn note(&mut self, text: &str) {
        self.0.iter_mut().for_each(|r| r.note(text));
    }

    /// Every reporter writes its report; the first failure is returned.
    fn finish(&mut self, report: Report<'_>) -> Result<(), String> {
        let mut first = Ok(());
        for r in &mut self.0 {
            if let Err(e) = r.finish(report)
                && first.is_ok()
            {
                first = Err(e);
            }
        }
        first
    }
}

/// Notes on stderr, as they happen (the runner's `warning:` and `note:` lines).
#[derive(Debug, Default)]
pub struct StderrNotes;

impl Reporter for StderrNotes {
    fn note(&mut self, text: &str) {
        eprintln!("{text}");
    }
}

/// A failure as one block of plain text: code and message, expected/actual, the last MCP
/// message and the server's stderr tail (used by JUnit and GitHub-style outputs).
pub fn failure_text(f: &Failure) -> String {
    let mut s = String::new();
    if let Some(loc) = &f.location {
        s.push_str(&format!("{}:{}:{}: ", loc.file, loc.line, loc.column));
    }
    for frame in f.flow.iter().rev() {
        let at = &frame.call_site;
        s.push_str(&format!(
            "(in flow “{}” used at {}:{}:{}) ",
            frame.name, at.file, at.line, at.column
        ));
    }
    if let Some(step) = &f.step {
        s.push_str(&format!("step “{step}”: "));
    }
    s.push_str(&format!("{}: {}", f.code, f.message));
    if let Some(e) = &f.expected {
        s.push_str(&format!("\nexpected: {e}"));
    }
    if let Some(a) = &f.actual {
        s.push_str(&format!("\nactual:   {a}"));
    }
    if let Some(m) = &f.last_message {
        s.push_str(&format!(
            "\nlast MCP message {}",
            crate::exec::show_last_message(m)
        ));
    }
    if let Some(x) = &f.exit_status {
        s.push_str(&format!("\nserver exit status: {x}"));
    }
    if let Some(t) = &f.stderr_tail {
        s.push_str(&format!("\nserver stderr (last lines):\n{}", tail(t, 20)));
    }
    s
}

/// Where a test's report points: the failing statement, else the test's first step.
pub fn test_location(t: &TestResult) -> Option<&SourceLocation> {
    t.failure
        .as_ref()
        .and_then(|f| f.location.as_ref())
        .or(t.source.as_ref())
}

/// Writes a report to `path` (its missing folders created, as CI artifact paths such as
/// `target/mcpr/junit.xml` need), or to stdout when the path is `-`.
pub fn write_output(path: &std::path::Path, text: &str) -> Result<(), String> {
    write_output_with(path, &mut |w| w.write_all(text.as_bytes()))
}

/// [`write_output`] of what `write` writes as it goes (a large report is never held whole).
pub fn write_output_with(
    path: &std::path::Path,
    write: &mut dyn FnMut(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<(), String> {
    if path.as_os_str() == "-" {
        use std::io::Write;
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        // A closed stdout (`| head`) must not fail the run.
        let _ = write(&mut out);
        let _ = out.flush();
        return Ok(());
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create the folder {}: {e}", dir.display()))?;
    }
    crate::files::write_atomic_with(path, crate::files::Access::Shared, write)
}

/// The last `n` lines of a text.
pub fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

pub use mcpr_compiler::style::paint;
