//! `matches` under the step's deadline. Patterns are ECMAScript, matched by `regress`, a
//! backtracking engine with no step budget of its own: a pattern such as `^(a+)+$` takes
//! exponential time on a text of a few dozen characters that almost matches. So a match
//! runs on a thread of its own and the step waits for it no longer than what is left of its
//! deadline; past it the step fails with `MCP-ASSERT-002`, and the test (on its own thread,
//! its session's I/O untouched) goes on and ends as any other. A signal that stops the run
//! ends the wait at once ([`crate::interrupt::raised_anywhere`]).
//!
//! A thread cannot be stopped from outside: one still matching past its deadline runs on
//! until it finishes or the process ends (a run's process ends with the run). At most
//! [`MAX_RUNAWAY`] such threads are left running at once; while that many are, a further
//! match fails at once with the same code instead of adding a thread.

use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use mcpr_compiler::regexp::Pattern;

/// How long a match may take when no step set a deadline on this thread.
pub const DEFAULT_BUDGET: Duration = Duration::from_secs(10);

/// The least time a match is given, even when the step's deadline is (nearly) spent.
pub const LEAST_BUDGET: Duration = Duration::from_millis(100);

/// How often a wait for a match looks whether a signal stopped the run.
const SLICE: Duration = Duration::from_millis(100);

/// Most threads left matching past their deadline at once, in this process.
pub const MAX_RUNAWAY: usize = 4;

static RUNAWAY: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// When the matches of the step under way on this thread must be done.
    static DEADLINE: Cell<Option<(Instant, Duration)>> = const { Cell::new(None) };
}

/// Sets the deadline of the matches made on this thread until the guard is dropped:
/// `deadline` is when the step's deadline (`limit` long) ends.
pub fn deadline_until(deadline: Instant, limit: Duration) -> DeadlineGuard {
    let before = DEADLINE.with(|d| d.replace(Some((deadline, limit))));
    DeadlineGuard { before }
}

/// Restores the deadline that applied before [`deadline_until`].
pub struct DeadlineGuard {
    before: Option<(Instant, Duration)>,
}

impl Drop for DeadlineGuard {
    fn drop(&mut self) {
        DEADLINE.with(|d| d.set(self.before));
    }
}

/// A match that did not end in time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unfinished {
    /// What happened, in one sentence (after "the pattern …").
    pub why: String,
}

/// Whether `re` matches somewhere in `text`, decided within what is left of this thread's
/// step deadline (at least [`LEAST_BUDGET`]).
pub fn is_match(re: &Pattern, text: &str) -> Result<bool, Unfinished> {
    let (budget, limit) = match DEADLINE.with(Cell::get) {
        Some((at, limit)) => (
            at.saturating_duration_since(Instant::now())
                .max(LEAST_BUDGET),
            limit,
        ),
        None => (DEFAULT_BUDGET, DEFAULT_BUDGET),
    };
    let running = RUNAWAY.load(Ordering::Relaxed);
    if running >= MAX_RUNAWAY {
        return Err(Unfinished {
            why: format!(
                "was not tried: {running} earlier matches are still running past their deadline (patterns that backtrack without end)"
            ),
        });
    }
    let (tx, rx) = mpsc::sync_channel(1);
    // 0 while the step waits, 1 once it gave up, 2 once the match is done.
    let state = Arc::new(AtomicU8::new(0));
    let spawned = {
        let (re, text, state) = (re.clone(), text.to_owned(), Arc::clone(&state));
        std::thread::Builder::new()
            .name("mcpr-match".into())
            .spawn(move || {
                let _ = tx.send(re.is_match(&text));
                if state.swap(2, Ordering::AcqRel) == 1 {
                    // The step gave up on this match: it no longer runs away.
                    RUNAWAY.fetch_sub(1, Ordering::AcqRel);
                }
            })
    };
    if spawned.is_err() {
        // No thread to spare: match here, as without a deadline.
        return Ok(re.is_match(text));
    }
    // Waited for in slices: a run stopped by a signal stops waiting at once.
    let until = Instant::now() + budget;
    let mut stopped = false;
    loop {
        let left = until.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left.min(SLICE)) {
            Ok(found) => return Ok(found),
            Err(mpsc::RecvTimeoutError::Timeout) if !left.is_zero() => {
                if crate::interrupt::raised_anywhere() {
                    stopped = true;
                    break;
                }
            }
            Err(_) => break,
        }
    }
    RUNAWAY.fetch_add(1, Ordering::AcqRel);
    if state
        .compare_exchange(0, 1, Ordering::AcqRel, Ordering::Acquire)
        .is_err()
    {
        // Done between the timeout and now: its result is there.
        RUNAWAY.fetch_sub(1, Ordering::AcqRel);
        if let Ok(found) = rx.try_recv() {
            return Ok(found);
        }
    }
    if stopped {
        return Err(Unfinished {
            why: "was still matching when a signal stopped the run".into(),
        });
    }
    Err(Unfinished {
        why: format!(
            "did not finish matching a text of {} bytes within {} (what was left of the step's deadline of {}; set by `Wait up to` below the step, `Default timeout:` or `--timeout`): the pattern backtracks too much, as nested quantifiers such as (a+)+ do",
            text.len(),
            shown(budget),
            shown(limit)
        ),
    })
}

fn shown(d: Duration) -> String {
    if d.as_millis().is_multiple_of(1000) {
        format!("{} s", d.as_secs())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_catastrophic_pattern_ends_at_the_deadline_and_others_still_match() {
        let bomb = mcpr_compiler::regexp::compile("^(a+)+$").expect("compiles");
        let text = format!("{}!", "a".repeat(40));
        let started = Instant::now();
        let limit = Duration::from_millis(300);
        let _guard = deadline_until(Instant::now() + limit, limit);
        let e = is_match(&bomb, &text).expect_err("cannot finish");
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{:?}",
            started.elapsed()
        );
        // Another test of this process may have raised a stop request: then the wait ends
        // as a stopped run's does.
        if !crate::interrupt::raised_anywhere() {
            assert!(e.why.contains("within 0.3 s"), "{}", e.why);
        }
        let plain = mcpr_compiler::regexp::compile("^C-[0-9]+$").expect("compiles");
        assert_eq!(is_match(&plain, "C-12"), Ok(true));
        assert_eq!(is_match(&bomb, "aaaa"), Ok(true));
        assert_eq!(is_match(&bomb, "aab"), Ok(false));
    }
}
