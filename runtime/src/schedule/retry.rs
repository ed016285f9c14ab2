//! Retries (`Retries: N`, `--retries N`, `Default retries: N`): a test that failed or
//! errored runs again from its first step, each attempt in a new session, until it passes
//! or has no retries left. One that passes on a retry is `flaky`; the attempts before the
//! reported one are kept in its result (status, duration, failure).
//!
//! Skipped and blocked tests never get here (they are decided without a session), a test
//! stopped by a signal is not run again, and neither is one whose session could not even
//! be described (an unusable target: the same inputs would fail the same way).

use mcpr_compiler::ir::{Suite, Test};

use crate::codes::RunCode;
use crate::exec::{Attempt, Outcome, TestResult};
use crate::interrupt::Interrupt;

/// The most retries a test may have.
pub const MAX_RETRIES: u32 = 100;

/// How many times test `test` may run again: its own `retries`, else the run's
/// (`--retries`, `MCPR_RETRIES`, `retries` in `mcpr.toml`), else the suite's
/// `defaults.retries`, else none.
pub(super) fn retries_of(suite: &Suite, test: &Test, run: Option<u32>) -> u32 {
    test.retries
        .or(run)
        .or_else(|| suite.defaults.as_ref().and_then(|d| d.retries))
        .unwrap_or(0)
        .min(MAX_RETRIES)
}

/// The attempts of one test so far. The caller runs the test in a loop: after each
/// attempt [`Attempts::again`] says whether to run it again (the caller then closes the
/// attempt's session, so the next one opens a new session), else [`Attempts::finish`]
/// makes the result.
pub(super) struct Attempts {
    retries: u32,
    interrupt: Option<Interrupt>,
    earlier: Vec<Attempt>,
}

impl Attempts {
    /// A test that may run again `retries` times, unless `interrupt` is raised.
    pub(super) fn new(retries: u32, interrupt: Option<Interrupt>) -> Attempts {
        Attempts {
            retries,
            interrupt,
            earlier: Vec::new(),
        }
    }

    /// Whether the finished attempt `r` is run again (it is then recorded).
    pub(super) fn again(&mut self, r: &TestResult) -> bool {
        let again = r.status.is_failure()
            && self.earlier.len() < self.retries as usize
            && self.interrupt.as_ref().is_none_or(|i| i.raised().is_none())
            && r.failure
                .as_ref()
                .is_none_or(|f| f.code != RunCode::TargetUnusable);
        if again {
            self.earlier.push(r.as_attempt());
        }
        again
    }

    /// The result of the last attempt `r`, with the earlier ones recorded and `flaky` when
    /// it passed after a failure.
    pub(super) fn finish(self, mut r: TestResult) -> TestResult {
        if !self.earlier.is_empty() {
            r.attempts = self.earlier.len() as u32 + 1;
            if r.status == Outcome::Passed {
                r.status = Outcome::Flaky;
            }
            r.previous_attempts = self.earlier;
        }
        r
    }
}
