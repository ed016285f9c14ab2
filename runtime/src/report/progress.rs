//! The live progress bar of `mcpr run` on a terminal: finished/total tests, elapsed time,
//! the failures so far and the tests running now. It wraps the reporter that prints the
//! human lines: those are printed with the bar suspended, so they never tear it. Hidden
//! when stdout is not a terminal, under CI, or when turned off; drawn only once a suite
//! with tests has started (never a full bar at `0/0`).

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mcpr_compiler::ir::Suite;

use super::{Report, Reporter};
use crate::exec::Outcome;
use crate::schedule::{Event, RunResult};

/// Whether a live bar belongs on this output: a terminal, no CI service, not turned off.
pub fn wanted(stdout_is_terminal: bool, ci: bool, disabled: bool) -> bool {
    stdout_is_terminal && !ci && !disabled
}

/// A reporter with a progress bar (which may be hidden) around it.
pub struct WithProgress<R: Reporter> {
    inner: R,
    bar: ProgressBar,
    shown: bool,
    drawing: bool,
    /// The tests running now: id and name, in the order they started.
    running: Vec<(String, String)>,
    /// Tests that failed, errored or were blocked so far.
    failures: usize,
}

impl<R: Reporter> WithProgress<R> {
    /// `inner` with a bar on stdout when [`wanted`] (`ci`: a CI service runs the command),
    /// else a hidden bar that draws nothing.
    pub fn new(inner: R, disabled: bool, ci: bool) -> WithProgress<R> {
        let show = wanted(std::io::stdout().is_terminal(), ci, disabled);
        // Hidden until a suite with tests starts: the first frame then has its length.
        let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::hidden());
        if let Ok(style) = ProgressStyle::with_template(
            "{spinner} [{bar:30}] {pos}/{len} tests {elapsed} {wide_msg}",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        WithProgress {
            inner,
            bar,
            shown: show,
            drawing: false,
            running: Vec::new(),
            failures: 0,
        }
    }

    fn update_message(&self) {
        self.bar.set_message(message(self.failures, &self.running));
    }
}

/// The bar's message: failures so far, then the tests running now.
pub fn message(failures: usize, running: &[(String, String)]) -> String {
    let mut parts = Vec::new();
    if failures > 0 {
        parts.push(format!("{failures} failed"));
    }
    if !running.is_empty() {
        let names: Vec<&str> = running.iter().map(|(_, n)| n.as_str()).collect();
        parts.push(format!("running: {}", names.join(", ")));
    }
    parts.join(" · ")
}

impl<R: Reporter> Reporter for WithProgress<R> {
    fn suite_started(&mut self, suite: &Suite) {
        self.inner.suite_started(suite);
    }

    fn event(&mut self, event: &Event) {
        let inner = &mut self.inner;
        self.bar.suspend(|| inner.event(event));
        match event {
            Event::RunStarted { tests, .. } => {
                self.bar
                    .set_length(self.bar.length().unwrap_or(0) + *tests as u64);
                // Drawn from the first suite with tests on, so an empty bar never flashes up.
                if self.shown && !self.drawing && *tests > 0 {
                    self.drawing = true;
                    self.bar.set_draw_target(ProgressDrawTarget::stdout());
                    self.bar.enable_steady_tick(Duration::from_millis(120));
                }
            }
            Event::TestStarted { id, name } => {
                self.running.push((id.clone(), name.clone()));
                self.update_message();
            }
            Event::TestFinished(t) => {
                self.running.retain(|(id, _)| *id != t.id);
                if matches!(
                    t.status,
                    Outcome::Failed | Outcome::Errored | Outcome::Blocked
                ) {
                    self.failures += 1;
                }
                self.bar.inc(1);
                self.update_message();
            }
        }
    }

    fn suite_finished(&mut self, run: &RunResult) {
        let inner = &mut self.inner;
        self.bar.suspend(|| inner.suite_finished(run));
    }

    fn note(&mut self, text: &str) {
        let inner = &mut self.inner;
        self.bar.suspend(|| inner.note(text));
    }

    fn finish(&mut self, report: Report<'_>) -> Result<(), String> {
        self.bar.finish_and_clear();
        self.inner.finish(report)
    }
}

impl<R: Reporter> Drop for WithProgress<R> {
    fn drop(&mut self) {
        // A run that stops early must not leave a half-drawn bar behind.
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::{message, wanted};

    #[test]
    fn message_counts_failures_and_names_running_tests() {
        assert_eq!(message(0, &[]), "");
        let running = [("a".to_string(), "A".to_string()), ("b".into(), "B".into())];
        assert_eq!(message(0, &running), "running: A, B");
        assert_eq!(message(2, &running[..1]), "2 failed · running: A");
    }

    #[test]
    fn only_on_a_terminal_outside_ci() {
        assert!(wanted(true, false, false));
        assert!(!wanted(true, true, false));
        assert!(!wanted(false, false, false));
        assert!(!wanted(true, false, true));
    }
}
