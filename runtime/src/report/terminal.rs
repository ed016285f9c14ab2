//! The terminal reporter: one line per test with its status and duration, and for each
//! failure the file:line with its source line, expected and actual, the last MCP message
//! and the server's stderr tail when it died; then `P passed, F failed, S skipped, B blocked`
//! and a recap of every test that failed, errored or was blocked, with its file:line, of
//! every flaky test (passed on a retry) and of tests whose outcome flipped in recent runs.
//! `-q` keeps only the failures, the summary and the recap; `-v` adds every step.
//! Colour only when asked (the CLI decides: a TTY and no `NO_COLOR`).

use std::io::Write;

use mcpr_compiler::ir::Suite;
use mcpr_compiler::style;

use super::{Report, Reporter, paint, tail};
use crate::budget::Verdict;
use crate::exec::{Failure, Outcome, StepStatus, TestResult};
use crate::redact::Redactor;
use crate::schedule::{Event, RunResult, Summary};

/// How much the terminal shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verbosity {
    /// `-q`: failing tests, the summary and the recap.
    Quiet,
    /// One line per test, details of failures.
    #[default]
    Normal,
    /// `-v`: also every step with its status and duration.
    Verbose,
}

/// Writes the human report as events arrive.
pub struct Terminal<W: Write> {
    out: W,
    color: bool,
    verbosity: Verbosity,
    /// Masks the suite's secrets in the source lines this reporter reads from disk (every
    /// other text arrives redacted already).
    redactor: Redactor,
    /// The environment and learned secrets of the run (what each suite's redactor masks
    /// besides the suite's own secrets).
    context: crate::context::RunContext,
    /// `--durations N`: the slowest N tests after the summary (0: every test).
    durations: Option<usize>,
}

/// `1.2s` or `45ms`.
pub fn duration(ms: u64) -> String {
    if ms >= 1000 {
        format!("{:.1}s", ms as f64 / 1000.0)
    } else {
        format!("{ms}ms")
    }
}

impl<W: Write> Terminal<W> {
    /// A reporter writing to `out`.
    pub fn new(out: W, color: bool) -> Terminal<W> {
        Terminal {
            out,
            color,
            verbosity: Verbosity::Normal,
            redactor: Redactor::new(),
            context: crate::context::RunContext::default(),
            durations: None,
        }
    }

    /// The same reporter masking, besides each suite's secrets, the credential-like values
    /// of the run's environment and the secrets the run learns (`context`, the run's own).
    pub fn with_context(mut self, context: &crate::context::RunContext) -> Terminal<W> {
        self.context = context.clone();
        self
    }

    /// The same reporter listing the slowest `n` tests after the summary (`--durations`;
    /// 0 lists every test).
    pub fn with_durations(mut self, n: Option<usize>) -> Terminal<W> {
        self.durations = n;
        self
    }

    /// The same reporter showing less (`-q`) or more (`-v`).
    pub fn with_verbosity(mut self, verbosity: Verbosity) -> Terminal<W> {
        self.verbosity = verbosity;
        self
    }

    /// The secrets of the suite being reported (set before each suite runs).
    pub fn set_redactor(&mut self, redactor: Redactor) {
        self.redactor = redactor;
    }

    /// The writer back.
    pub fn into_inner(self) -> W {
        self.out
    }

    /// Handles one scheduler event (write errors are ignored: a closed pipe must not stop
    /// the run).
    pub fn event(&mut self, e: &Event) {
        let _ = match e {
            Event::RunStarted { .. } if self.verbosity == Verbosity::Quiet => Ok(()),
            Event::RunStarted {
                suite,
                tests,
                withheld_env,
                ..
            } => writeln!(
                self.out,
                "{} {suite} ({tests} test{})",
                paint(self.color, style::BOLD, "mcpr —"),
                if *tests == 1 { "" } else { "s" }
            )
            .and_then(|()| match withheld_env.is_empty() {
                true => Ok(()),
                false => writeln!(
                    self.out,
                    "  not passed to the server (they look like credentials; `inherit env` passes them): {}",
                    withheld_env.join(", ")
                ),
            }),
            Event::TestStarted { .. } => Ok(()),
            Event::TestFinished(t) => self.test(t),
        };
    }

    fn test(&mut self, t: &TestResult) -> std::io::Result<()> {
        let c = self.color;
        let (mark, word) = match t.status {
            Outcome::Passed => (
                paint(c, style::GREEN, "✓"),
                paint(c, style::GREEN, "passed"),
            ),
            Outcome::Failed => (paint(c, style::RED, "✗"), paint(c, style::RED, "failed")),
            Outcome::Errored => (
                paint(c, style::BOLD_RED, "!"),
                paint(c, style::BOLD_RED, "errored"),
            ),
            Outcome::Skipped => (
                paint(c, style::YELLOW, "○"),
                paint(c, style::YELLOW, "skipped"),
            ),
            Outcome::Blocked => (
                paint(c, style::MAGENTA, "⊘"),
                paint(c, style::MAGENTA, "blocked"),
            ),
            Outcome::Flaky => (
                paint(c, style::BOLD_YELLOW, "~"),
                paint(c, style::BOLD_YELLOW, "flaky"),
            ),
            Outcome::Interrupted => (
                paint(c, style::BOLD_YELLOW, "■"),
                paint(c, style::BOLD_YELLOW, "interrupted"),
            ),
        };
        let word = format!("{word}{}", attempts_note(t));
        let quiet = self.verbosity == Verbosity::Quiet;
        match t.status {
            Outcome::Passed | Outcome::Skipped | Outcome::Blocked if quiet && !t.quarantined => {
                Ok(())
            }
            Outcome::Skipped | Outcome::Blocked | Outcome::Interrupted => {
                let why = t
                    .failure
                    .as_ref()
                    .map_or(String::new(), |f| format!(": {}", f.message));
                writeln!(self.out, "  {mark} {} — {word}{why}", t.name)
            }
            _ => {
                writeln!(
                    self.out,
                    "  {mark} {} {word} ({})",
                    t.name,
                    duration(t.duration_ms)
                )?;
                for (n, a) in t.previous_attempts.iter().enumerate() {
                    let why = a.failure.as_ref().map_or(String::new(), |f| {
                        let first = f.message.lines().next().unwrap_or_default();
                        format!(": {} {first}", f.code)
                    });
                    let line = format!("attempt {} {}{why}", n + 1, a.status.as_str());
                    writeln!(self.out, "      {}", paint(c, style::DIM, &line))?;
                }
                if self.verbosity == Verbosity::Verbose {
                    for s in &t.steps {
                        let (mark, word) = match s.status {
                            StepStatus::Passed => (paint(c, style::GREEN, "✓"), "passed"),
                            StepStatus::Failed => (paint(c, style::RED, "✗"), "failed"),
                            StepStatus::Errored => (paint(c, style::BOLD_RED, "!"), "errored"),
                        };
                        writeln!(
                            self.out,
                            "      {mark} {} {word} ({})",
                            s.name,
                            duration(s.duration_ms)
                        )?;
                    }
                }
                let failing = t.steps.iter().filter(|s| s.failure.is_some()).count();
                if failing > 1 || t.steps.iter().any(|s| s.output.is_some()) {
                    // Scripts that keep going after failures: every failure and every echo,
                    // in the order of the steps.
                    for s in &t.steps {
                        if let Some(o) = &s.output {
                            // Each line under the test (lint warnings are several).
                            for line in o.split('\n') {
                                writeln!(self.out, "      {}", paint(c, style::DIM, line))?;
                            }
                        }
                        if let Some(f) = &s.failure {
                            self.failure(f)?;
                        }
                    }
                } else if let Some(f) = &t.failure
                    && matches!(t.status, Outcome::Failed | Outcome::Errored)
                {
                    self.failure(f)?;
                }
                for n in &t.not_run {
                    let at = n
                        .source
                        .as_ref()
                        .map(|s| format!("{}:{}: ", s.file, s.line))
                        .unwrap_or_default();
                    let line = format!("not run: {at}{}", n.name);
                    writeln!(self.out, "      {}", paint(c, style::DIM, &line))?;
                }
                for w in &t.warnings {
                    let line = format!("warning {}: {}", w.code, w.message);
                    writeln!(self.out, "      {}", paint(c, style::YELLOW, &line))?;
                }
                Ok(())
            }
        }
    }

    fn failure(&mut self, f: &Failure) -> std::io::Result<()> {
        let c = self.color;
        let pad = "      ";
        if let Some(loc) = &f.location {
            writeln!(
                self.out,
                "{pad}{} {}:{}:{}",
                paint(c, style::DIM, "at"),
                loc.file,
                loc.line,
                loc.column
            )?;
            if let Some(line) = source_line(&loc.file, loc.line) {
                let line = self.redactor.text(&excerpt(line.trim_end(), loc.column));
                writeln!(self.out, "{pad}{:>4} | {line}", loc.line)?;
            }
        }
        for frame in f.flow.iter().rev() {
            let at = &frame.call_site;
            writeln!(
                self.out,
                "{pad}in flow “{}” used at {}:{}:{}",
                frame.name, at.file, at.line, at.column
            )?;
        }
        if let Some(step) = &f.step {
            writeln!(self.out, "{pad}step “{step}”")?;
        }
        let message = f.message.replace('\n', &format!("\n{pad}  "));
        writeln!(
            self.out,
            "{pad}{}: {message}",
            paint(c, style::BOLD, f.code.as_str())
        )?;
        if let Some(e) = &f.expected {
            writeln!(
                self.out,
                "{pad}{} {}",
                paint(c, style::GREEN, "expected:"),
                indent(e, pad)
            )?;
        }
        if let Some(a) = &f.actual {
            writeln!(
                self.out,
                "{pad}{} {}",
                paint(c, style::RED, "actual:  "),
                indent(a, pad)
            )?;
        }
        if let Some(lines) = super::diff::terminal(f, c) {
            writeln!(self.out, "{pad}{}", paint(c, style::DIM, "diff:"))?;
            for l in lines {
                writeln!(self.out, "{pad}  {}", self.redactor.text(&l))?;
            }
        }
        if let Some(m) = &f.last_message {
            writeln!(
                self.out,
                "{pad}last MCP message {}",
                crate::exec::show_last_message(m)
            )?;
        }
        if let Some(x) = &f.exit_status {
            writeln!(self.out, "{pad}server exit status: {x}")?;
        }
        if let Some(t) = &f.stderr_tail {
            writeln!(self.out, "{pad}server stderr (last lines):")?;
            for l in tail(t, 20).lines() {
                writeln!(self.out, "{pad}  {l}")?;
            }
        }
        Ok(())
    }

    /// Writes the latency budgets and regressions of a run, when it has any.
    pub fn budgets(&mut self, run: &RunResult) {
        let _ = self.try_budgets(run);
    }

    fn try_budgets(&mut self, run: &RunResult) -> std::io::Result<()> {
        let c = self.color;
        if !run.budgets.is_empty() {
            writeln!(self.out, "\n{}", paint(c, style::BOLD, "Latency budgets"))?;
        }
        for b in &run.budgets {
            let what = format!("p{} of {}", b.percentile, b.test);
            match (b.verdict, b.measured_ms) {
                (Verdict::Within, Some(m)) => writeln!(
                    self.out,
                    "  {} {what}: {} ≤ {} ({} samples)",
                    paint(c, style::GREEN, "✓"),
                    duration(m),
                    duration(b.max_ms),
                    b.samples
                )?,
                (Verdict::Exceeded, Some(m)) => writeln!(
                    self.out,
                    "  {} {what}: {} > {} ({} samples)",
                    paint(c, style::RED, "✗"),
                    duration(m),
                    duration(b.max_ms),
                    b.samples
                )?,
                _ => writeln!(
                    self.out,
                    "  {} {what}: pending, {} of {} samples needed",
                    paint(c, style::YELLOW, "…"),
                    b.samples,
                    b.needed
                )?,
            }
        }
        if !run.regressions.is_empty() {
            writeln!(self.out, "\n{}", paint(c, style::BOLD, "Regressions"))?;
        }
        for r in &run.regressions {
            writeln!(
                self.out,
                "  {} {}: {} against a median of {} over {} runs (threshold {})",
                paint(c, style::RED, "✗"),
                r.test,
                duration(r.duration_ms),
                duration(r.median_ms),
                r.samples,
                duration(r.threshold_ms)
            )?;
        }
        Ok(())
    }

    /// Writes the summary line of one or more runs, then the recap of what did not pass.
    pub fn summary(&mut self, runs: &[RunResult]) {
        let (s, ms) = Summary::of_runs(runs);
        let _ = writeln!(
            self.out,
            "\n{} ({})",
            painted_summary(&s, self.color),
            duration(ms)
        );
        let _ = self.out.write_all(recap(runs, self.color).as_bytes());
        if let Some(n) = self.durations {
            let _ = self.out.write_all(slowest(runs, n).as_bytes());
        }
        for c in runs.iter().filter_map(|r| r.coverage.as_ref()) {
            let _ = self.out.write_all(coverage_text(c, self.color).as_bytes());
        }
    }
}

/// The slowest `n` tests of the runs (every test when `n` is 0), slowest first, each with
/// its duration, status and file; ties keep the report order.
pub fn slowest(runs: &[RunResult], n: usize) -> String {
    let mut all: Vec<(&TestResult, Option<&str>)> = runs
        .iter()
        .flat_map(|r| r.tests.iter().map(move |t| (t, r.file.as_deref())))
        .collect();
    all.sort_by_key(|(t, _)| std::cmp::Reverse(t.duration_ms));
    let shown = if n == 0 { all.len() } else { n.min(all.len()) };
    if shown == 0 {
        return String::new();
    }
    let title = match (n, shown) {
        (0, _) => "Every test, slowest first".to_string(),
        (_, 1) => "The slowest test".to_string(),
        _ => format!("The {shown} slowest tests"),
    };
    let mut out = format!("\n{title}:\n");
    for (t, file) in &all[..shown] {
        out.push_str(&format!(
            "  {:>8}  {:<7}  {}{}\n",
            duration(t.duration_ms),
            t.status.as_str(),
            t.name,
            file.map(|f| format!("  ({f})")).unwrap_or_default()
        ));
    }
    out
}

/// The coverage of a suite's run, after the recap: per server its share, then each kind
/// with what was not exercised; the shortfall when the run is under its minimum.
pub fn coverage_text(c: &crate::coverage::Coverage, color: bool) -> String {
    use crate::coverage::shown;
    let mut out = format!(
        "\nCoverage: {} of {} advertised definitions exercised ({}%{})\n",
        c.covered,
        c.total,
        shown(c.percent),
        match c.minimum {
            Some(m) => format!(", minimum {}%", shown(m)),
            None => String::new(),
        }
    );
    for s in &c.servers {
        out.push_str(&format!(
            "  {} ({}): {} of {} ({}%)\n",
            s.target,
            if s.server.is_empty() {
                "server"
            } else {
                &s.server
            },
            s.covered,
            s.total,
            shown(s.percent)
        ));
        for (noun, k) in s.kinds() {
            if k.advertised == 0 {
                continue;
            }
            out.push_str(&format!("    {noun} {}/{}", k.exercised, k.advertised));
            if !k.missing.is_empty() {
                out.push_str(&format!(", not exercised: {}", k.missing.join(", ")));
            }
            out.push('\n');
        }
    }
    for u in &c.unlisted {
        out.push_str(&format!(
            "  {u} (not listed; counted as advertising nothing)\n"
        ));
    }
    if let Some(why) = c.shortfall() {
        out.push_str(&paint(color, style::RED, &why));
        out.push('\n');
    }
    out
}

/// The summary line with each non-zero count in its status's colour.
pub fn painted_summary(s: &Summary, color: bool) -> String {
    let part = |n: usize, word: &str, code: style::Style| {
        let text = format!("{n} {word}");
        if n > 0 {
            paint(color, code, &text)
        } else {
            text
        }
    };
    let mut line = [
        part(s.passed, "passed", style::GREEN),
        part(s.failed, "failed", style::RED),
        part(s.skipped, "skipped", style::YELLOW),
        part(s.blocked, "blocked", style::MAGENTA),
    ]
    .join(", ");
    if s.errored > 0 {
        line.push_str(&format!(
            ", {}",
            part(s.errored, "errored", style::BOLD_RED)
        ));
    }
    if s.flaky > 0 {
        line.push_str(&format!(", {}", part(s.flaky, "flaky", style::BOLD_YELLOW)));
    }
    if s.quarantined > 0 {
        line.push_str(&format!(
            ", {}",
            part(s.quarantined, "quarantined", style::DIM)
        ));
    }
    if s.interrupted > 0 {
        line.push_str(&format!(
            ", {}",
            part(s.interrupted, "interrupted", style::BOLD_YELLOW)
        ));
    }
    line
}

/// After a test's status: how many attempts it took, and whether it is quarantined
/// (`, passed on attempt 2`, ` (3 attempts)`, `, quarantined`, `, quarantined — passes now:
/// remove it from the quarantine`).
fn attempts_note(t: &TestResult) -> String {
    let mut note = String::new();
    if t.attempts > 1 && t.status == Outcome::Flaky {
        note.push_str(&format!(", passed on attempt {}", t.attempts));
    } else if t.attempts > 1 {
        note.push_str(&format!(" ({} attempts)", t.attempts));
    }
    if t.quarantined {
        note.push_str(if t.status == Outcome::Passed {
            ", quarantined — passes now: remove it from the quarantine"
        } else {
            ", quarantined"
        });
    }
    note
}

/// Every test that failed, errored or was blocked, one line each with its file:line and
/// the first line of why (pytest's short summary, nextest's final list); empty when none.
pub fn recap(runs: &[RunResult], color: bool) -> String {
    let mut out = String::new();
    for t in runs.iter().flat_map(|r| &r.tests) {
        let (mark, code) = match t.status {
            Outcome::Failed => ("✗", style::RED),
            Outcome::Errored => ("!", style::BOLD_RED),
            Outcome::Blocked => ("⊘", style::MAGENTA),
            Outcome::Passed | Outcome::Skipped | Outcome::Flaky | Outcome::Interrupted => {
                continue;
            }
        };
        if out.is_empty() {
            out.push_str(&format!("{}\n", paint(color, style::BOLD, "Did not pass:")));
        }
        let code = if t.quarantined { style::DIM } else { code };
        let at = super::test_location(t)
            .map(|l| format!(" at {}:{}:{}", l.file, l.line, l.column))
            .unwrap_or_default();
        let why = t
            .failure
            .as_ref()
            .map(|f| {
                let first = f.message.lines().next().unwrap_or_default();
                format!(": {} {first}", f.code)
            })
            .unwrap_or_default();
        out.push_str(&format!(
            "  {} {} — {}{at}{why}\n",
            paint(color, code, mark),
            t.name,
            paint(
                color,
                code,
                &format!("{}{}", t.status.as_str(), attempts_note(t))
            )
        ));
    }
    let mut flaky = runs
        .iter()
        .flat_map(|r| &r.tests)
        .filter(|t| t.status == Outcome::Flaky)
        .peekable();
    if flaky.peek().is_some() {
        out.push_str(&format!(
            "{}\n",
            paint(color, style::BOLD, "Flaky (passed on a retry):")
        ));
    }
    for t in flaky {
        let at = super::test_location(t)
            .map(|l| format!(" at {}:{}:{}", l.file, l.line, l.column))
            .unwrap_or_default();
        let first = t.previous_attempts.first().and_then(|a| a.failure.as_ref());
        let why = first
            .map(|f| {
                let line = f.message.lines().next().unwrap_or_default();
                format!(": first attempt {} {line}", f.code)
            })
            .unwrap_or_default();
        out.push_str(&format!(
            "  {} {} — {}{at}{why}\n",
            paint(color, style::BOLD_YELLOW, "~"),
            t.name,
            paint(
                color,
                style::BOLD_YELLOW,
                &format!("flaky{}", attempts_note(t))
            )
        ));
    }
    if runs.iter().any(|r| !r.flips.is_empty()) {
        out.push_str(&format!(
            "{}\n",
            paint(
                color,
                style::BOLD,
                "Unsteady (the outcome flipped in recent runs):"
            )
        ));
    }
    for f in runs.iter().flat_map(|r| &r.flips) {
        out.push_str(&format!(
            "  {} {} flipped {} times in the last {} runs\n",
            paint(color, style::YELLOW, "↯"),
            f.test,
            f.flips,
            f.runs
        ));
    }
    out
}

impl<W: Write + Send> Reporter for Terminal<W> {
    fn suite_started(&mut self, suite: &Suite) {
        self.set_redactor(Redactor::for_suite(
            suite,
            &self.context.env,
            self.context.secrets(),
        ));
    }

    fn event(&mut self, event: &Event) {
        Terminal::event(self, event);
    }

    fn suite_finished(&mut self, run: &RunResult) {
        self.budgets(run);
    }

    fn finish(&mut self, report: Report<'_>) -> Result<(), String> {
        if let Report::Run(runs) = report {
            self.summary(runs);
        }
        Ok(())
    }
}

/// `P passed, F failed, S skipped, B blocked`, plus `, E errored` when some errored.
pub fn summary_line(s: &Summary) -> String {
    let mut line = format!(
        "{} passed, {} failed, {} skipped, {} blocked",
        s.passed, s.failed, s.skipped, s.blocked
    );
    if s.errored > 0 {
        line.push_str(&format!(", {} errored", s.errored));
    }
    if s.flaky > 0 {
        line.push_str(&format!(", {} flaky", s.flaky));
    }
    if s.quarantined > 0 {
        line.push_str(&format!(", {} quarantined", s.quarantined));
    }
    if s.interrupted > 0 {
        line.push_str(&format!(", {} interrupted", s.interrupted));
    }
    line
}

fn indent(text: &str, pad: &str) -> String {
    text.replace('\n', &format!("\n{pad}          "))
}

/// A long source line (a one-line JSON suite) cut to a window around `column`.
fn excerpt(line: &str, column: u32) -> String {
    const WIDTH: usize = 120;
    let chars: Vec<char> = line.chars().collect();
    if chars.len() <= WIDTH {
        return line.to_string();
    }
    let at = (column as usize).saturating_sub(1).min(chars.len());
    let start = at.saturating_sub(20);
    let end = (start + WIDTH).min(chars.len());
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.extend(&chars[start..end]);
    if end < chars.len() {
        out.push('…');
    }
    out
}

fn source_line(file: &str, line: u32) -> Option<String> {
    let text = std::fs::read_to_string(file).ok()?;
    text.lines()
        .nth(line.checked_sub(1)? as usize)
        .map(str::to_string)
}
