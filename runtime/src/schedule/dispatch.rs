//! Running a planned suite: tests start when their producers have finished (up to `jobs`
//! at once, each on a thread of its own), blocked and skipped tests are decided without a
//! session, and finished tests are handed to the reporters in report order, redacted.
//!
//! `jobs` bounds live servers, not only running tests: a test's thread counts until its
//! session is closed and its server reaped, so a server holding a port or a lock file is
//! gone before the next test starts. An [`Interrupt`] ends every server at once and marks
//! the tests that did not finish.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mcpr_compiler::ir::{Suite, Target};
use serde_json::Value;
use tokio::sync::Notify;
use tokio::task::JoinSet;

use super::closing::Closing;
use super::plan::{Finished, Plan, Planned, deps_value, skip_reason};
use super::retry::{Attempts, retries_of};
use super::shared::{Job, SessionKey, Worker, shareable};
use super::{Event, PlanError, RunOptions, plan_error};
use crate::codes::RunCode;
use crate::exec::{self, Declarations, Failure, Outcome, TestInput, TestResult, Timing};
use crate::interrupt::{Interrupt, StopSignal};
use crate::redact::Redactor;

/// What a dispatched suite hands back.
pub(super) struct Dispatched {
    /// The reported (redacted) results in report order, with their plan indexes.
    pub(super) shown: Vec<(usize, Box<TestResult>)>,
    /// Per reported test (same order), the real values of its `sensitive` exports: they go
    /// to the state file, never to a report.
    pub(super) secret_outputs: Vec<(usize, String, serde_json::Map<String, Value>)>,
    /// The planned tests (same indexes as the plan).
    pub(super) planned: Arc<Vec<Planned>>,
    /// The signal that stopped the run, if one did.
    pub(super) interrupted: Option<StopSignal>,
    /// The sessions still closing (their tests' close times are 0 in `shown`).
    pub(super) closing: Closing,
}

/// How long an interrupted run waits for its tests' threads to close their sessions.
const INTERRUPT_CLOSE_WAIT: Duration = Duration::from_secs(5);

/// The state of a suite's run while its tests are under way.
pub(super) struct Dispatch<'o> {
    suite: Arc<Suite>,
    tests: Arc<Vec<Planned>>,
    plan: Plan,
    opts: &'o RunOptions,
    default_target: Target,
    /// Masks secrets (suite values, sensitive exports as they appear) in what is reported.
    redactor: Redactor,
    /// Per test, the names of its sensitive exports.
    sensitive: Vec<Vec<String>>,
    /// Per finished test, what its consumers read; its whole result until it is reported,
    /// and as reported (redacted, boxed: most slots wait empty for most of the run).
    results: Vec<Option<Finished>>,
    unreported: HashMap<usize, TestResult>,
    shown: Vec<Option<Box<TestResult>>>,
    started: Vec<bool>,
    running: JoinSet<(usize, TestResult)>,
    /// The threads of started tests: each closes its session after handing over its result,
    /// and says how long closing took (microseconds).
    closing: Vec<(usize, std::thread::JoinHandle<u64>)>,
    /// Per test, its entry in `closing`.
    thread_of: Vec<Option<usize>>,
    /// When the suite started (the timeline's zero) and, per started test, its lane and
    /// when it was launched.
    epoch: Instant,
    launched: Vec<Option<(usize, Instant)>>,
    /// The test last put in each lane of the timeline (one lane per job); a lane is free
    /// again once that test's thread has ended (its server closed).
    lanes: Vec<Option<usize>>,
    /// Tests launched since the last events were handed out.
    just_started: Vec<usize>,
    /// Test threads not ended yet (their server may still be closing).
    live: Arc<AtomicUsize>,
    /// Told each time a test thread ends.
    ended: Arc<Notify>,
    /// The signal that stopped the run, once one did.
    interrupted: Option<StopSignal>,
    /// How many tests of the report order were reported.
    emitted: usize,
    /// `--fail-fast` saw a failure: no further test starts.
    stop: bool,
    /// Tests share sessions (`Session: shared`, `--reuse-server`): they run on `workers`.
    shared: Option<Shared>,
    /// The report positions (indexes into `plan.order`) of the tests not started whose
    /// producers have all finished: what `start_ready` looks at, so a test ending costs
    /// its consumers, not a pass over every test.
    ready: BTreeSet<usize>,
    /// Per test, its selected producers not finished yet.
    waiting: Vec<usize>,
    /// Per test, the tests it produces for.
    consumers: Vec<Vec<usize>>,
    /// Per test, its report position (`usize::MAX` when it is not in the report order).
    position: Vec<usize>,
}

/// The workers of a run that shares sessions (see [`super::shared`]).
struct Shared {
    /// One per job at most, started as tests need them.
    workers: Vec<Worker>,
    threads: Vec<std::thread::JoinHandle<()>>,
    /// Per test, the worker it was handed to.
    worker_of: Vec<Option<usize>>,
    /// Numbers the sessions of the run.
    sessions: Arc<std::sync::atomic::AtomicU64>,
    /// Per server, what the handshake declares for every test that may share its session.
    declare: HashMap<SessionKey, Declarations>,
}

/// Where a ready test can run now.
enum Slot {
    /// Nowhere yet: every job is busy.
    Wait,
    /// In this lane (a worker, when sessions are shared).
    Lane(usize),
}

impl<'o> Dispatch<'o> {
    pub(super) fn new(
        suite: Arc<Suite>,
        mut plan: Plan,
        opts: &'o RunOptions,
        default_target: Target,
        epoch: Instant,
    ) -> Dispatch<'o> {
        let n = plan.tests.len();
        let sensitive = plan
            .tests
            .iter()
            .map(|t| {
                t.test
                    .steps
                    .iter()
                    .flat_map(|s| s.export.iter().flat_map(|e| e.iter()))
                    .filter(|(_, e)| e.sensitive == Some(true))
                    .map(|(k, _)| k.to_string())
                    .collect()
            })
            .collect();
        let tests = Arc::new(std::mem::take(&mut plan.tests));
        let share = opts.reuse_server
            || suite.defaults.as_ref().and_then(|d| d.session)
                == Some(mcpr_compiler::ir::SessionMode::Shared);
        let shared = share.then(|| {
            let mut declare = HashMap::<SessionKey, Declarations>::new();
            for t in tests.iter().filter(|t| shareable(t)) {
                let d = declare.entry(t.test.server.clone()).or_default();
                *d = d.with(Declarations::of(&t.test));
            }
            Shared {
                workers: Vec::new(),
                threads: Vec::new(),
                worker_of: vec![None; n],
                sessions: Arc::new(std::sync::atomic::AtomicU64::new(0)),
                declare,
            }
        });
        let mut redactor = Redactor::for_suite(&suite, &opts.context.env, opts.context.secrets());
        opts.secrets.iter().for_each(|s| redactor.add(s));
        let mut consumers = vec![Vec::new(); n];
        let mut waiting = vec![0; n];
        for (i, producers) in plan.edges.iter().enumerate() {
            for &p in producers.iter().filter(|p| plan.selected[**p]) {
                consumers[p].push(i);
                waiting[i] += 1;
            }
        }
        let mut position = vec![usize::MAX; n];
        for (k, &i) in plan.order.iter().enumerate() {
            position[i] = k;
        }
        let ready = (0..plan.order.len())
            .filter(|k| waiting[plan.order[*k]] == 0)
            .collect();
        Dispatch {
            ready,
            waiting,
            consumers,
            position,
            redactor,
            suite,
            tests,
            plan,
            opts,
            default_target,
            sensitive,
            results: vec![None; n],
            unreported: HashMap::new(),
            shown: vec![None; n],
            started: vec![false; n],
            running: JoinSet::new(),
            closing: Vec::new(),
            thread_of: vec![None; n],
            epoch,
            launched: vec![None; n],
            lanes: vec![None; opts.jobs.max(1)],
            just_started: Vec::new(),
            live: Arc::new(AtomicUsize::new(0)),
            ended: Arc::new(Notify::new()),
            interrupted: None,
            emitted: 0,
            stop: false,
            shared,
        }
    }

    /// Runs every selected test; hands back the reported results in report order, the
    /// planned tests they belong to (same indexes as the plan), and the signal that stopped
    /// the run, if one did.
    pub(super) async fn run(
        mut self,
        on_event: &mut (dyn FnMut(&Event) + Send),
    ) -> Result<Dispatched, PlanError> {
        let interrupt = self.opts.interrupt.clone();
        let ended = Arc::clone(&self.ended);
        loop {
            self.start_ready();
            for i in std::mem::take(&mut self.just_started) {
                on_event(&Event::TestStarted {
                    id: self.tests[i].id.clone(),
                    name: self.tests[i].name.clone(),
                });
            }
            self.emit_finished(on_event);
            if self.emitted >= self.plan.order.len() {
                break;
            }
            // With shared sessions an idle worker is always free, whatever `live` says.
            if self.running.is_empty()
                && (self.shared.is_some() || self.live.load(Ordering::Acquire) == 0)
            {
                // The last live thread may have ended after `start_ready` looked (it saw
                // `jobs` threads alive): only a second look that starts nothing is a bug.
                let decided = self.started.iter().filter(|s| **s).count();
                self.start_ready();
                if self.started.iter().filter(|s| **s).count() > decided {
                    continue;
                }
                return Err(plan_error(
                    RunCode::Internal,
                    "the scheduler has tests left but none can start (a bug in mcpr: please report it)",
                ));
            }
            tokio::select! {
                joined = self.running.join_next(), if !self.running.is_empty() => match joined {
                    Some(Ok((i, mut r))) => {
                        if let Some(s) = &mut self.shared
                            && let Some(w) = s.worker_of[i]
                        {
                            s.workers[w].busy = false;
                        }
                        r.id = self.tests[i].id.clone();
                        r.data = self.tests[i].result_data();
                        if let Some((lane, at)) = self.launched[i] {
                            let timing = r.timing.get_or_insert_with(Timing::default);
                            timing.lane = lane;
                            timing.start_us = at.duration_since(self.epoch).as_micros() as u64;
                        }
                        r.quarantined = self.opts.quarantine.holds(&r.id, &r.name);
                        if self.opts.fail_fast && r.status.is_failure() && !r.quarantined {
                            self.stop = true;
                        }
                        self.finish(i, r);
                    }
                    Some(Err(e)) => {
                        return Err(plan_error(
                            RunCode::Internal,
                            format!("a test task ended abnormally: {e}"),
                        ));
                    }
                    None => {}
                },
                _ = ended.notified() => {}
                signal = raised(interrupt.as_ref()) => self.interrupt(signal),
            }
        }
        // Workers close their sessions once they are let go. The sessions still closing are
        // handed to the caller, which writes its reports meanwhile and waits for them.
        let closing = std::mem::take(&mut self.closing);
        let workers = self
            .shared
            .as_mut()
            .map(|s| {
                s.workers.clear();
                std::mem::take(&mut s.threads)
            })
            .unwrap_or_default();
        let mut closed = Vec::new();
        let mut pending = Closing::default();
        if self.interrupted.is_some() {
            let joined = tokio::task::spawn_blocking(move || {
                for w in workers {
                    let _ = w.join();
                }
                closing
                    .into_iter()
                    .map(|(i, h)| (i, h.join().unwrap_or(0)))
                    .collect::<Vec<_>>()
            });
            // The servers are killed; a thread still in an HTTP exchange ends with the process.
            if let Ok(Ok(all)) = tokio::time::timeout(INTERRUPT_CLOSE_WAIT, joined).await {
                closed = all;
            }
        } else {
            let mut open = Vec::new();
            for (i, h) in closing {
                if h.is_finished() {
                    closed.push((i, h.join().unwrap_or(0)));
                } else {
                    open.push(h);
                }
            }
            pending = Closing::new(open, workers);
        }
        for (i, us) in closed {
            if let Some(t) = self.shown[i].as_mut().and_then(|r| r.timing.as_mut()) {
                t.close_us = us;
            }
        }
        let shown = self
            .plan
            .order
            .iter()
            .filter_map(|&i| self.shown[i].take().map(|r| (i, r)))
            .collect();
        let secret_outputs = self
            .plan
            .order
            .iter()
            .filter_map(|&i| {
                let r = self.results[i].as_ref()?;
                let secret: serde_json::Map<String, Value> = self.sensitive[i]
                    .iter()
                    .filter_map(|k| Some((k.clone(), r.outputs.get(k)?.clone())))
                    .collect();
                (!secret.is_empty()).then(|| (i, self.tests[i].id.clone(), secret))
            })
            .collect();
        Ok(Dispatched {
            shown,
            secret_outputs,
            planned: self.tests,
            interrupted: self.interrupted,
            closing: pending,
        })
    }

    /// Stops the run: every server is ended now, tests under way and tests not started are
    /// marked interrupted, and what finished stays as it is.
    fn interrupt(&mut self, signal: StopSignal) {
        self.interrupted = Some(signal);
        self.running.abort_all();
        if let Some(s) = &mut self.shared {
            s.workers.clear();
        }
        crate::transport::stdio::kill_all_process_groups();
        // The function host too: a call under way ends with it.
        if let Some(host) = &self.opts.functions {
            host.kill_now();
        }
        for i in 0..self.tests.len() {
            if !self.plan.selected[i] || self.results[i].is_some() {
                continue;
            }
            let why = if self.started[i] {
                format!("interrupted while running: the run got {}", signal.name())
            } else {
                format!("not run: the run got {}", signal.name())
            };
            let t = &self.tests[i];
            let failure = Failure::new(RunCode::Interrupted, why);
            let mut r = TestResult::not_run(&t.id, &t.name, Outcome::Interrupted, failure);
            r.data = t.result_data();
            self.started[i] = true;
            self.finish(i, r);
        }
    }

    /// Decides the ready tests (producers all finished) in report order: blocked or
    /// skipped at once, or started while a job is free. Consumers come after their
    /// producers in the report order, so one pass forward also sees the tests a decision
    /// made ready; once no job is free (for any test: with shared sessions any idle worker
    /// takes any test), only tests that need no session are still decided.
    fn start_ready(&mut self) {
        let mut from = 0;
        let mut full = false;
        while let Some(&k) = self.ready.range(from..).next() {
            from = k + 1;
            let i = self.plan.order[k];
            if self.started[i] {
                self.ready.remove(&k);
                continue;
            }
            if let Some(mut r) = self.decided_without_session(i) {
                r.data = self.tests[i].result_data();
                self.started[i] = true;
                self.ready.remove(&k);
                self.finish(i, r);
                continue;
            }
            if full {
                continue;
            }
            let Slot::Lane(lane) = self.slot_for(i) else {
                // Tests further on may still be decided without a session (after
                // `--fail-fast`, all of them are).
                full = true;
                if !self.stop {
                    break;
                }
                continue;
            };
            self.started[i] = true;
            self.ready.remove(&k);
            self.launched[i] = Some((lane, Instant::now()));
            self.just_started.push(i);
            if self.shared.is_some() {
                self.hand_over(i, lane);
            } else {
                self.lanes[lane] = Some(i);
                self.launch(i);
            }
        }
    }

    /// Keeps test `i`'s result and makes the consumers it was the last producer of ready.
    fn finish(&mut self, i: usize, r: TestResult) {
        self.results[i] = Some(Finished::of(&r));
        self.unreported.insert(i, r);
        for c in std::mem::take(&mut self.consumers[i]) {
            self.waiting[c] -= 1;
            if self.waiting[c] == 0 && !self.started[c] && self.position[c] != usize::MAX {
                self.ready.insert(self.position[c]);
            }
        }
    }

    /// Where test `i` can start now: a free job (its timeline lane), or with shared sessions
    /// a worker — one holding a session for the test's server, else a new one while fewer
    /// than `jobs` exist, else an idle one (holding no session, or one it then closes).
    fn slot_for(&mut self, i: usize) -> Slot {
        let Some(s) = &mut self.shared else {
            // A job is free once its thread has ended and its result has been taken: a
            // result not yet taken may stop the run (`--fail-fast`) or release a consumer.
            let jobs = self.opts.jobs.max(1);
            if self.live.load(Ordering::Acquire) >= jobs || self.running.len() >= jobs {
                return Slot::Wait;
            }
            return Slot::Lane(self.free_lane());
        };
        let t = &self.tests[i];
        let key = shareable(t).then(|| t.test.server.clone());
        let idle = |w: &Worker| !w.busy;
        if let Some(k) = &key
            && let Some(w) = s
                .workers
                .iter()
                .position(|w| idle(w) && w.open.as_ref() == Some(k))
        {
            return Slot::Lane(w);
        }
        if s.workers.len() < self.opts.jobs.max(1) {
            let lane = s.workers.len();
            let alive = LiveGuard::enter(&self.live, &self.ended);
            let started = Worker::spawn(
                lane,
                Arc::clone(&self.suite),
                Arc::clone(&self.tests),
                Arc::clone(&s.sessions),
                alive,
            );
            // A worker that cannot start leaves the test to an existing one.
            if let Ok((worker, thread)) = started {
                s.workers.push(worker);
                s.threads.push(thread);
                return Slot::Lane(lane);
            }
        }
        s.workers
            .iter()
            .position(|w| idle(w) && w.open.is_none())
            .or_else(|| s.workers.iter().position(idle))
            .map_or(Slot::Wait, Slot::Lane)
    }

    /// Hands test `i` to worker `w` (sessions are shared).
    fn hand_over(&mut self, i: usize, w: usize) {
        let input = self.input_for(i);
        let (id, name) = (self.tests[i].id.clone(), self.tests[i].name.clone());
        let Some(s) = &mut self.shared else {
            return;
        };
        let shared = shareable(&self.tests[i]).then(|| {
            let key = self.tests[i].test.server.clone();
            let declare = s.declare.get(&key).copied().unwrap_or_default();
            (key, declare)
        });
        let (reply, result) = tokio::sync::oneshot::channel();
        s.worker_of[i] = Some(w);
        let job = Job {
            index: i,
            input,
            shared,
            retries: retries_of(&self.suite, &self.tests[i].test, self.opts.retries),
            interrupt: self.opts.interrupt.clone(),
            reply,
        };
        if !s.workers[w].send(job) {
            s.workers[w].busy = false;
        }
        self.running.spawn(async move {
            let r = result.await.unwrap_or_else(|_| {
                let why =
                    "the test's worker ended without a result (a bug in mcpr: please report it)";
                let failure = Failure::new(RunCode::Internal, why);
                TestResult::not_run(&id, &name, Outcome::Errored, failure)
            });
            (i, r)
        });
    }

    /// The timeline lane for a test starting now: one whose last test's thread has ended,
    /// else one whose test is only closing its session, else the first. Lanes only draw the
    /// timeline; `live` decides when a test may start.
    fn free_lane(&self) -> usize {
        let ended = |i: usize| self.thread_of[i].is_none_or(|k| self.closing[k].1.is_finished());
        let lanes = &self.lanes;
        lanes
            .iter()
            .position(|l| l.is_none_or(ended))
            .or_else(|| {
                lanes
                    .iter()
                    .position(|l| l.is_some_and(|i| self.results[i].is_some()))
            })
            .unwrap_or(0)
    }

    /// A test that needs no session: blocked (a producer did not pass or was not
    /// selected), skipped, or not started after `--fail-fast`.
    fn decided_without_session(&self, i: usize) -> Option<TestResult> {
        let t = &self.tests[i];
        let producers = &self.plan.edges[i];
        let id_of = |p: &usize| self.tests[*p].id.as_str();
        let not_passed: Vec<&str> = producers
            .iter()
            .filter(|p| {
                !self.plan.selected[**p]
                    || self.results[**p]
                        .as_ref()
                        .is_some_and(|r| !r.status.is_pass())
            })
            .map(id_of)
            .collect();
        // Blocked only by quarantined tests: quarantined too (it had no chance to run).
        let by_quarantine = !not_passed.is_empty()
            && producers.iter().all(|p| {
                self.plan.selected[*p]
                    && self.results[*p]
                        .as_ref()
                        .is_some_and(|r| r.status.is_pass() || r.quarantined)
            });
        let (status, failure) = if !not_passed.is_empty() {
            let unselected: Vec<&str> = producers
                .iter()
                .filter(|p| !self.plan.selected[**p])
                .map(id_of)
                .collect();
            let mut msg = format!("dependencies did not pass: {}", not_passed.join(", "));
            if !unselected.is_empty() {
                msg.push_str(&format!(" (not selected: {})", unselected.join(", ")));
            }
            (Outcome::Blocked, Failure::new(RunCode::Blocked, msg))
        } else if let Some(reason) = skip_reason(&t.test) {
            (Outcome::Skipped, Failure::new(RunCode::Skip, reason))
        } else if self.stop {
            let why = "not run: --fail-fast stopped the run after a failure";
            (Outcome::Skipped, Failure::new(RunCode::FailFast, why))
        } else {
            return None;
        };
        let mut r = TestResult::not_run(&t.id, &t.name, status, failure);
        r.quarantined = self.opts.quarantine.holds(&t.id, &t.name)
            || (status == Outcome::Blocked && by_quarantine);
        Some(r)
    }

    /// What test `i` needs besides the IR: its target, its dependencies' outputs, the
    /// run's settings.
    fn input_for(&self, i: usize) -> TestInput {
        let t = &self.tests[i];
        let target = match &t.test.server {
            Some(name) => self
                .suite
                .servers
                .as_ref()
                .and_then(|s| s.get(name))
                .cloned()
                .unwrap_or_else(|| self.default_target.clone()),
            None => self.default_target.clone(),
        };
        TestInput {
            target,
            deps: deps_value(&self.tests, &self.results, t, &self.plan.edges[i]),
            state: self.opts.state.clone(),
            connect_timeout: self.opts.connect_timeout,
            protocol: self.opts.protocol.clone(),
            snapshots: self.opts.snapshots.clone(),
            record: self.opts.transcript,
            max_buffered_bytes: self.opts.max_buffered_bytes,
            max_message_values: self.opts.max_message_values,
            tolerate_stray_lines: self.opts.tolerate_stray_lines,
            record_failed: self.opts.transcript_failures,
            timeout: self.opts.timeout,
            shutdown_grace: self.opts.shutdown_grace,
            context: self.opts.context.clone(),
            functions: self.opts.functions.clone(),
        }
    }

    /// Starts test `i` on a thread of its own.
    fn launch(&mut self, i: usize) {
        let input = self.input_for(i);
        let t = &self.tests[i];
        let (id, name) = (t.id.clone(), t.name.clone());
        let alive = LiveGuard::enter(&self.live, &self.ended);
        let retries = (
            retries_of(&self.suite, &t.test, self.opts.retries),
            self.opts.interrupt.clone(),
        );
        match spawn_test(
            Arc::clone(&self.suite),
            Arc::clone(&self.tests),
            i,
            input,
            retries,
            alive,
        ) {
            Ok((thread, result)) => {
                self.thread_of[i] = Some(self.closing.len());
                self.closing.push((i, thread));
                self.running.spawn(async move {
                    let r = result.await.unwrap_or_else(|_| {
                        let why = "the test's thread ended without a result (a bug in mcpr: please report it)";
                        let failure = Failure::new(RunCode::Internal, why);
                        TestResult::not_run(&id, &name, Outcome::Errored, failure)
                    });
                    (i, r)
                });
            }
            Err(e) => {
                let why = format!("cannot start a thread for the test: {e}");
                let failure = Failure::new(RunCode::Internal, why);
                self.finish(
                    i,
                    TestResult::not_run(&id, &name, Outcome::Errored, failure),
                );
            }
        }
    }

    /// Reports what is finished, in report order, with its secrets masked (a sensitive
    /// export joins the secrets as soon as its test finishes).
    fn emit_finished(&mut self, on_event: &mut (dyn FnMut(&Event) + Send)) {
        while self.emitted < self.plan.order.len() {
            let i = self.plan.order[self.emitted];
            let Some(r) = self.unreported.remove(&i) else {
                break;
            };
            for k in &self.sensitive[i] {
                if let Some(v) = r.outputs.get(k) {
                    self.redactor.add(&crate::values::as_text(v));
                }
            }
            let mut people = r.redacted(&self.redactor, &self.sensitive[i]);
            let planned = &self.tests[i];
            people.source = planned.test.steps.iter().find_map(|s| s.source.clone());
            if planned.row.is_some() {
                people.logical_name = Some(planned.logical.clone());
            }
            on_event(&Event::TestFinished(Box::new(people.clone())));
            self.shown[i] = Some(Box::new(people));
            self.emitted += 1;
        }
    }
}

/// Waits for the stop request, or forever when there is none.
async fn raised(interrupt: Option<&Interrupt>) -> StopSignal {
    match interrupt {
        Some(i) => i.wait().await,
        None => std::future::pending().await,
    }
}

/// One live test thread: counted from its launch until it is dropped, at the very end of
/// the thread (after its server is reaped), or at once when the thread cannot start.
pub(super) struct LiveGuard {
    live: Arc<AtomicUsize>,
    ended: Arc<Notify>,
}

impl LiveGuard {
    fn enter(live: &Arc<AtomicUsize>, ended: &Arc<Notify>) -> LiveGuard {
        live.fetch_add(1, Ordering::AcqRel);
        LiveGuard {
            live: Arc::clone(live),
            ended: Arc::clone(ended),
        }
    }
}

impl Drop for LiveGuard {
    fn drop(&mut self) {
        self.live.fetch_sub(1, Ordering::AcqRel);
        self.ended.notify_one();
    }
}

/// Runs one test on a thread of its own, with a single-threaded runtime: the session's
/// reader, writer and the steps then never wake each other across threads, which costs more
/// than the call itself against a fast server. The result arrives on the receiver as soon as
/// the test ends; the thread then closes the session, and `alive` is dropped as it ends.
pub(super) fn spawn_test(
    suite: Arc<Suite>,
    tests: Arc<Vec<Planned>>,
    i: usize,
    input: TestInput,
    (retries, interrupt): (u32, Option<Interrupt>),
    alive: LiveGuard,
) -> std::io::Result<(
    std::thread::JoinHandle<u64>,
    tokio::sync::oneshot::Receiver<TestResult>,
)> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let thread = std::thread::Builder::new()
        .name(format!("mcpr-test-{i}"))
        .spawn(move || {
            let _alive = alive;
            // The test runs as a task of the runtime, not as `block_on`'s own future: when
            // the session's reader wakes a task, the scheduler runs it at once, where waking
            // the `block_on` future would first turn the I/O driver (one more system call
            // for every message).
            let test = async move {
                let mut attempts = Attempts::new(retries, interrupt);
                let (r, client) = loop {
                    let (r, client) =
                        exec::run_test_open(&suite, &tests[i].runnable(), input.clone()).await;
                    if !attempts.again(&r) {
                        break (attempts.finish(r), client);
                    }
                    if let Some(c) = client {
                        c.close().await;
                    }
                };
                let _ = tx.send(r);
                // Off the critical path: the next test need not wait for the shutdown.
                let closing = Instant::now();
                if let Some(c) = client {
                    c.close().await;
                }
                closing.elapsed().as_micros() as u64
            };
            // A panic in the test drops `tx`: the caller reports the missing result.
            rt.block_on(rt.spawn(test)).unwrap_or(0)
        })?;
    Ok((thread, rx))
}
