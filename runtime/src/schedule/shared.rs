//! Shared sessions (`Session: shared`, `--reuse-server`): each job is a worker, a thread
//! with a one-thread runtime that runs the tests it is handed one after another and keeps
//! the session of the last one open for the next test on the same server. A worker holds at
//! most one session, so `jobs` still bounds live servers: a test for another server, or one
//! that needs a session of its own, closes the open session first.
//!
//! Between two tests of a session, `Session::begin_next_test` forgets the notification
//! inbox, queued answers, the server requests seen and the transcript, and restores the
//! client behaviour; variables are each test's own anyway. A session that broke (its server
//! exited, the connection failed), or whose test errored or timed out, is closed, and the
//! next test opens a new one. A retried test's later attempts each open a new session too
//! (the failed attempt's is closed); the last attempt's may then be kept for the next test.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use mcpr_compiler::ir::Suite;
use tokio::sync::{mpsc, oneshot};

use super::plan::Planned;
use super::retry::Attempts;
use crate::client::Client;
use crate::codes::RunCode;
use crate::exec::{self, Declarations, Outcome, SessionUse, TestInput, TestResult};

/// Which server a test's session talks to: the name of its `server`, `None` for the
/// suite's target.
pub(super) type SessionKey = Option<String>;

/// Whether test `t` may run in a shared session: any test not marked `isolated`, a data
/// row as much as a test without rows.
pub(super) fn shareable(t: &Planned) -> bool {
    t.test.isolated != Some(true)
}

/// One test handed to a worker.
pub(super) struct Job {
    /// The test's index in the plan.
    pub(super) index: usize,
    pub(super) input: TestInput,
    /// `Some`: the session to share (what every test that may share it needs declared);
    /// `None`: the test gets a session of its own.
    pub(super) shared: Option<(SessionKey, Declarations)>,
    /// How many times the test runs again when it fails (each retry in a new session).
    pub(super) retries: u32,
    /// Raised by a signal: no retry starts.
    pub(super) interrupt: Option<crate::interrupt::Interrupt>,
    /// Where the result goes as soon as the test ends.
    pub(super) reply: oneshot::Sender<TestResult>,
}

/// A worker as the dispatcher sees it.
pub(super) struct Worker {
    jobs: mpsc::UnboundedSender<Job>,
    /// The server of the session it keeps open, as far as the dispatcher knows.
    pub(super) open: Option<SessionKey>,
    /// Running a test (until its result arrives).
    pub(super) busy: bool,
}

impl Worker {
    /// Starts a worker thread; `sessions` numbers the sessions of the run.
    pub(super) fn spawn(
        lane: usize,
        suite: Arc<Suite>,
        tests: Arc<Vec<Planned>>,
        sessions: Arc<AtomicU64>,
        alive: super::dispatch::LiveGuard,
    ) -> std::io::Result<(Worker, std::thread::JoinHandle<()>)> {
        let (tx, rx) = mpsc::unbounded_channel();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let thread = std::thread::Builder::new()
            .name(format!("mcpr-worker-{lane}"))
            .spawn(move || {
                let _alive = alive;
                // As in `spawn_test`: the work runs as a task, not as `block_on`'s future.
                let _ = rt.block_on(rt.spawn(work(rx, suite, tests, sessions)));
            })?;
        Ok((
            Worker {
                jobs: tx,
                open: None,
                busy: false,
            },
            thread,
        ))
    }

    /// Hands the worker a test; false when the worker is gone.
    pub(super) fn send(&mut self, job: Job) -> bool {
        self.open = job.shared.as_ref().map(|(k, _)| k.clone());
        self.busy = true;
        self.jobs.send(job).is_ok()
    }
}

/// Whether test `r` leaves a session the next test should not inherit: it errored (the
/// server misbehaved), or a request of it timed out — a server that still works on it may
/// not answer the next test's requests (many stdio servers take one at a time).
fn left_unsettled(r: &TestResult) -> bool {
    r.status == Outcome::Errored
        || r.steps.iter().any(|s| {
            s.failure
                .as_ref()
                .is_some_and(|f| f.code == RunCode::Timeout)
        })
}

/// An open shared session: its server, the client and its number in the run.
struct Open {
    key: SessionKey,
    client: Client,
    number: u64,
}

/// The worker's loop: runs each job, keeps a usable shared session for the next, and closes
/// what it holds when the dispatcher lets go of it.
async fn work(
    mut jobs: mpsc::UnboundedReceiver<Job>,
    suite: Arc<Suite>,
    tests: Arc<Vec<Planned>>,
    sessions: Arc<AtomicU64>,
) {
    let mut open: Option<Open> = None;
    while let Some(job) = jobs.recv().await {
        let runnable = tests[job.index].runnable();
        let test = &*runnable;
        let keep = match &job.shared {
            Some((key, _)) => open.as_ref().is_some_and(|o| o.key == *key),
            None => false,
        };
        if !keep && let Some(o) = open.take() {
            o.client.close().await;
        }
        let mut attempts = Attempts::new(job.retries, job.interrupt.clone());
        match job.shared {
            None => {
                let (r, client) = loop {
                    let input = job.input.clone();
                    let (r, client) = exec::run_test_in(&suite, test, input, SessionUse::Own).await;
                    if !attempts.again(&r) {
                        break (attempts.finish(r), client);
                    }
                    if let Some(c) = client {
                        c.close().await;
                    }
                };
                let _ = job.reply.send(r);
                if let Some(c) = client {
                    c.close().await;
                }
            }
            Some((key, declare)) => {
                // The first attempt takes the session the last test left; a retry opens a
                // new one (the failed attempt's is closed).
                let mut reuse = open.take().map(|o| (o.number, Box::new(o.client)));
                let (r, client) = loop {
                    let (number, open) = reuse.take().unzip();
                    let session = SessionUse::Shared { open, declare };
                    let input = job.input.clone();
                    let (mut r, client) = exec::run_test_in(&suite, test, input, session).await;
                    if client.is_some() {
                        let n =
                            number.unwrap_or_else(|| sessions.fetch_add(1, Ordering::Relaxed) + 1);
                        r.session = Some(n);
                    }
                    if !attempts.again(&r) {
                        break (attempts.finish(r), client);
                    }
                    if let Some(c) = client {
                        c.close().await;
                    }
                };
                let (Some(client), Some(number)) = (client, r.session) else {
                    let _ = job.reply.send(r);
                    continue;
                };
                let usable = client.session().is_alive() && !left_unsettled(&r);
                let _ = job.reply.send(r);
                if usable {
                    open = Some(Open {
                        key,
                        client,
                        number,
                    });
                } else {
                    client.close().await;
                }
            }
        }
    }
    if let Some(o) = open {
        o.client.close().await;
    }
}
