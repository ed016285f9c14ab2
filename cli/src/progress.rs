//! The live progress bar of `mcpr run` on a terminal: finished/total tests, the last test
//! that finished, elapsed time. Hidden when stdout is not a terminal, under CI, or with
//! `--no-progress`; report lines are printed with the bar suspended so they never tear it.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mcpr_runtime::schedule::Event;

/// Whether a live bar belongs on this output.
pub fn wanted(stdout_is_terminal: bool, ci: Option<&str>, disabled: bool) -> bool {
    let in_ci = ci.is_some_and(|v| !v.is_empty() && v != "0" && v != "false");
    stdout_is_terminal && !in_ci && !disabled
}

/// A progress bar that may be hidden.
pub struct Progress {
    bar: ProgressBar,
    shown: bool,
}

impl Progress {
    /// A bar on stdout when [`wanted`], else a hidden one that draws nothing.
    pub fn new(disabled: bool) -> Progress {
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
        Progress { bar, shown: show }
    }

    /// Prints through `print` with the bar out of the way, then advances it.
    pub fn event(&self, e: &Event, print: impl FnOnce()) {
        self.bar.suspend(print);
        match e {
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

    /// Prints with the bar out of the way.
    pub fn suspend(&self, print: impl FnOnce()) {
        self.bar.suspend(print);
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Drop for Progress {
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
