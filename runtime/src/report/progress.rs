//! The live progress bar of `mcpr run` on a terminal: finished/total tests, the last test
//! that finished, elapsed time. It wraps the reporter that prints the human lines: those
//! are printed with the bar suspended, so they never tear it. Hidden when stdout is not a
//! terminal, under CI, or when turned off.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mcpr_compiler::ir::Suite;

use super::{Report, Reporter};
use crate::schedule::{Event, RunResult};

/// Whether a live bar belongs on this output.
pub fn wanted(stdout_is_terminal: bool, ci: Option<&str>, disabled: bool) -> bool {
    let in_ci = ci.is_some_and(|v| !v.is_empty() && v != "0" && v != "false");
    stdout_is_terminal && !in_ci && !disabled
}

/// A reporter with a progress bar (which may be hidden) around it.
pub struct WithProgress<R: Reporter> {
    inner: R,
    bar: ProgressBar,
    shown: bool,
}

impl<R: Reporter> WithProgress<R> {
    /// `inner` with a bar on stdout when [`wanted`] (with `CI` read from the environment),
    /// else a hidden bar that draws nothing.
    pub fn new(inner: R, disabled: bool) -> WithProgress<R> {
        let ci = std::env::var("CI").ok();
        let show = wanted(std::io::stdout().is_terminal(), ci.as_deref(), disabled);
        let bar = ProgressBar::with_draw_target(
            Some(0),
            if show {
                ProgressDrawTarget::stdout()
            } else {
                ProgressDrawTarget::hidden()
            },
        );
        if let Ok(style) = ProgressStyle::with_template(
            "{spinner} [{bar:30}] {pos}/{len} tests {elapsed} {wide_msg}",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        WithProgress {
            inner,
            bar,
            shown: show,
        }
    }
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
                // Drawn from the first suite on, so an empty bar never flashes up.
                if self.shown {
                    self.bar.enable_steady_tick(Duration::from_millis(120));
                }
            }
            Event::TestFinished(t) => {
                self.bar.inc(1);
                self.bar.set_message(t.name.clone());
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
    use super::wanted;

    #[test]
    fn only_on_a_terminal_outside_ci() {
        assert!(wanted(true, None, false));
        assert!(wanted(true, Some("false"), false));
        assert!(wanted(true, Some(""), false));
        assert!(!wanted(true, Some("true"), false));
        assert!(!wanted(true, Some("1"), false));
        assert!(!wanted(false, None, false));
        assert!(!wanted(true, None, true));
    }
}
