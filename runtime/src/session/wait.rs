//! Waiting for answers: in the foreground on a one-thread runtime, or through the reader
//! task with deadlines that progress may extend; expired HTTP sessions renewed; results
//! checked against the era's rules; cancellation.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::sync::oneshot;

use super::Session;
use super::config::{FOREGROUND_SLICE, RequestOptions};
use super::pending::{PendingRequest, Started};
use super::state::Inner;
use crate::error::{Error, ErrorKind};
use crate::protocol::era;
use crate::protocol::jsonrpc::RpcError;
use crate::protocol::version::Era;
use crate::transcript::{Direction, MessageKind};
use crate::transport::stdio::{Foreground, StdinWriter};

/// How long a request that could not be written waits for the server's exit to explain it.
pub(super) const UNSENT_GRACE: Duration = Duration::from_secs(2);

impl Inner {
    /// Lets the runtime run its other tasks when foreground waits have kept it for a
    /// slice: without it, calls answered in the foreground one after another would never
    /// give the thread back.
    pub(super) fn due_for_turn(&self, now: Instant) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        let at = now.saturating_duration_since(self.started).as_nanos() as u64;
        at.saturating_sub(self.last_turn.load(Relaxed)) >= FOREGROUND_SLICE.as_nanos() as u64
    }

    /// Notes that the runtime had its turn at `now`.
    pub(super) fn took_turn(&self, now: Instant) {
        use std::sync::atomic::Ordering::Relaxed;
        let at = now.saturating_duration_since(self.started).as_nanos() as u64;
        self.last_turn.store(at, Relaxed);
    }

    /// Reads in the foreground until `rx` has the answer, or `until`, or something only
    /// the reader task handles (the end of the stream, a line the pipe to the server
    /// could not take at once): `None` then, and the wait goes on in the background.
    pub(super) fn wait_in_foreground<T>(
        self: &Arc<Self>,
        rx: &mut oneshot::Receiver<T>,
        until: Instant,
    ) -> Option<T> {
        use tokio::sync::oneshot::error::TryRecvError;
        let fg = self.foreground.as_ref()?;
        let queued = || self.writer.as_ref().is_some_and(StdinWriter::has_queued);
        // `Some(outcome)` when the foreground wait is over: the answer, or `None` to go on
        // in the background.
        let settled = |rx: &mut oneshot::Receiver<T>| match rx.try_recv() {
            Ok(answer) => Some(Some(answer)),
            Err(TryRecvError::Closed) => Some(None),
            Err(TryRecvError::Empty) if queued() => Some(None),
            Err(TryRecvError::Empty) => None,
        };
        if let Some(outcome) = settled(rx) {
            return outcome;
        }
        fg.alarm().set(until);
        let answer = loop {
            match fg.next() {
                Foreground::Frame(frame) => {
                    if self.on_frame(frame).is_some() {
                        break None;
                    }
                }
                Foreground::Stop => break None,
                Foreground::Alarm if Instant::now() >= until => break None,
                Foreground::Alarm => {}
            }
            if let Some(outcome) = settled(rx) {
                break outcome;
            }
        };
        fg.alarm().unset();
        if answer.is_some() {
            // The rest of what was read in one go (a notification after the answer) is
            // handled now, as the reader task would have before the caller ran on.
            while let Some(frame) = fg.buffered() {
                if self.on_frame(frame).is_some() {
                    break;
                }
            }
        }
        fg.hand_over();
        answer
    }
}

impl Session {
    /// Waits for the answer of a sent request until its deadline. On timeout the request is
    /// cancelled (`notifications/cancelled`, except for the handshake: `protocol::era::may_cancel`).
    ///
    /// Handshake era over HTTP: when the server answers 404 for the session (it expired),
    /// the client initializes a new session once and sends the request again with a new
    /// id; the transcript records it. A second 404 is `MCP-HTTP-002`.
    pub(super) async fn wait_outcome(
        &self,
        pending: PendingRequest,
    ) -> Result<Result<Value, RpcError>, Error> {
        let mut pending = pending;
        // Kept only where an expired HTTP session may need the request sent again.
        let resend = pending
            .resend
            .take()
            .map(|r| (pending.method.to_string(), *r));
        let first = self.wait_once(pending).await;
        match (first, resend) {
            (Err(e), Some(resend))
                if matches!(e.kind, ErrorKind::SessionExpired { renewed: None, .. }) =>
            {
                // Boxed: this rare path (it renews the session, which waits in turn) stays
                // out of every wait's future.
                Box::pin(self.wait_renewed(e, resend)).await
            }
            (other, _) => other,
        }
    }

    /// [`Session::wait`] after the server answered 404 for an expired HTTP session.
    pub(super) async fn wait_renewed(
        &self,
        expired: Error,
        (method, (params, opts)): (String, (Option<Value>, RequestOptions)),
    ) -> Result<Result<Value, RpcError>, Error> {
        let ErrorKind::SessionExpired { session, .. } = &expired.kind else {
            return Err(expired);
        };
        let session = session.clone();
        self.renew_session(&session, &method).await?;
        let mut again = self.send(&method, params.as_ref(), &opts)?;
        again.resend = None;
        match self.wait_once(again).await {
            Err(mut e) => {
                if let ErrorKind::SessionExpired { body, .. } = &e.kind {
                    e.kind = ErrorKind::SessionExpired {
                        session,
                        renewed: self.inner.http.as_ref().and_then(|h| h.session_id()),
                        body: body.clone(),
                    };
                }
                Err(e)
            }
            ok => ok,
        }
    }

    /// Initializes a new session after the server forgot `expired` (unless another request
    /// did so already), and notes it in the transcript.
    pub(super) async fn renew_session(&self, expired: &str, method: &str) -> Result<(), Error> {
        let Some(http) = &self.inner.http else {
            return Ok(());
        };
        let _guard = self.inner.renewing.lock().await;
        if http.session_id().as_deref() != Some(expired) {
            return Ok(());
        }
        {
            let mut st = self.inner.state.lock().expect("state lock");
            self.inner.push_transcript(
                &mut st,
                Direction::Sent,
                MessageKind::Note,
                None,
                format!(
                    "the server answered HTTP 404 for session {expired} during {method}: the session expired; initializing a new session and sending {method} again"
                )
                .as_bytes(),
            );
        }
        http.forget_session();
        let version = self.facts.protocol_version.clone();
        // Boxed: `initialize` waits through `wait`, which may renew a session.
        Box::pin(self.initialize(&version, true, self.config.connect_timeout))
            .await
            .map(|_| ())
    }

    pub(super) async fn wait_once(
        &self,
        pending: PendingRequest,
    ) -> Result<Result<Value, RpcError>, Error> {
        let mut pending = pending;
        if let Some(kind) = pending.unsent.take() {
            return Box::pin(self.wait_unsent(pending, *kind)).await;
        }
        if self.inner.foreground.is_some() {
            if self.inner.due_for_turn(pending.sent_at) {
                tokio::task::yield_now().await;
                self.inner.took_turn(pending.sent_at);
            }
            if let Some(answer) = self.answer_in_foreground(&mut pending) {
                return answer;
            }
        }
        // Boxed behind `dyn`: the reader task's path (timers, progress, timeouts and
        // their cancellation) keeps its code out of the foreground's.
        let background: crate::BoxFuture<'_, _> = Box::pin(self.wait_in_background(pending));
        background.await
    }

    /// The answer to `pending` read in the foreground (see [`Inner::wait_in_foreground`]),
    /// or `None` when the wait goes on in the background.
    pub(super) fn answer_in_foreground(
        &self,
        pending: &mut PendingRequest,
    ) -> Option<Result<Result<Value, RpcError>, Error>> {
        let slice = (pending.sent_at + pending.deadline).min(pending.sent_at + FOREGROUND_SLICE);
        let answer = self.inner.wait_in_foreground(&mut pending.rx, slice)?;
        Some(match answer {
            Ok(outcome) => self.check_result_type(&pending.method, outcome),
            Err(kind) => Err(self.inner.error(with_during(kind, &pending.method))),
        })
    }

    /// A request that could not be written: the server's exit (within a moment) is the
    /// failure if it comes, the write failure otherwise.
    pub(super) async fn wait_unsent(
        &self,
        pending: PendingRequest,
        unsent: ErrorKind,
    ) -> Result<Result<Value, RpcError>, Error> {
        let PendingRequest {
            id, method, mut rx, ..
        } = pending;
        let exited = tokio::time::timeout(UNSENT_GRACE, &mut rx).await;
        self.inner.forget_pending(id);
        match exited {
            Ok(Ok(Err(kind @ ErrorKind::ServerExited { .. }))) => {
                Err(self.inner.error(with_during(kind, &method)))
            }
            _ => Err(self.inner.error(with_during(unsent, &method))),
        }
    }

    /// Waits for the reader task to deliver the answer, until the deadline (which progress
    /// may extend) passes.
    pub(super) async fn wait_in_background(
        &self,
        pending: PendingRequest,
    ) -> Result<Result<Value, RpcError>, Error> {
        let PendingRequest {
            id,
            method,
            deadline,
            sent_at,
            progress_key,
            max_total,
            mut rx,
            resend: _,
            unsent: _,
        } = pending;
        let hard_limit = sent_at + max_total.unwrap_or(deadline * 10).max(deadline);
        let mut until = sent_at + deadline;
        let waited = loop {
            match tokio::time::timeout_at(until.into(), &mut rx).await {
                Ok(answer) => break Ok(answer),
                Err(elapsed) => {
                    // Progress since the deadline was set restarts it, up to the hard limit.
                    let last = progress_key.as_ref().and_then(|k| {
                        self.inner
                            .state
                            .lock()
                            .ok()
                            .and_then(|st| st.progress.get(k).and_then(|p| p.last_at))
                    });
                    match last.map(|t| (t + deadline).min(hard_limit)) {
                        Some(next) if next > until => until = next,
                        _ => break Err(elapsed),
                    }
                }
            }
        };
        let after = until.saturating_duration_since(sent_at);
        match waited {
            Ok(Ok(Ok(outcome))) => self.check_result_type(&method, outcome),
            Ok(Ok(Err(kind))) => Err(self.inner.error(with_during(kind, &method))),
            Ok(Err(_closed)) => Err(self.inner.error(ErrorKind::Closed)),
            Err(_elapsed) => {
                {
                    let mut st = self.inner.state.lock().expect("state lock");
                    st.pending.remove(id);
                    st.cancelled.insert(id);
                }
                if let Some(http) = &self.inner.http {
                    http.abort(id);
                }
                if era::may_cancel(&method) {
                    let _ = self.notify(
                        "notifications/cancelled",
                        Some(json!({"requestId": id, "reason": "timed out"})),
                    );
                }
                Err(self.inner.error(ErrorKind::Timeout {
                    method: method.into_owned(),
                    id,
                    after,
                    why: String::new(),
                }))
            }
        }
    }

    pub(super) fn check_result_type(
        &self,
        method: &str,
        outcome: Result<Value, RpcError>,
    ) -> Result<Result<Value, RpcError>, Error> {
        if self.facts.era == Era::Modern
            && let Ok(result) = &outcome
        {
            if let Err(reason) = era::check_result_type(method, result) {
                return Err(self.inner.error(ErrorKind::InvalidResult {
                    method: method.into(),
                    reason,
                }));
            }
            self.check_modern_result(method, result);
        }
        Ok(outcome)
    }

    /// Records (without failing) what a 2026 result lacks: `resultType`, and the caching
    /// hints `ttlMs` and `cacheScope` on discover, list and read results.
    pub(super) fn check_modern_result(&self, method: &str, result: &Value) {
        let problems = era::missing_result_members(method, result);
        if !problems.is_empty() {
            let kind = ErrorKind::Conformance {
                what: format!("{method} result"),
                reason: problems.join("; "),
            };
            if let Ok(mut st) = self.inner.state.lock() {
                self.inner.record_violation(&mut st, &kind, false);
            }
        }
    }

    /// Sends a request and waits for its answer: the result, or a failure — a JSON-RPC error
    /// answer is an `MCP-RPC-001` failure whose [`Error::rpc_error`] is the error. The
    /// params are borrowed: they are copied only where the message needs more than they
    /// hold (the 2026 envelope with other `_meta`, a log level, a progress token) or the
    /// transport keeps them (HTTP). This is one of the two ways to send a request; the
    /// other, [`Session::send`] with [`Session::wait`], leaves the request in the caller's
    /// hands while it is in flight (to cancel it, or to send others meanwhile).
    pub async fn request(
        &self,
        method: &str,
        params: Option<&Value>,
        opts: &RequestOptions,
    ) -> Result<Value, Error> {
        match self.start_request(method, params, opts)? {
            Started::Answered(outcome) => outcome,
            Started::Waiting(pending) => self.finish_request(pending).await,
        }
    }

    /// Waits for the answer of a request sent with [`Session::send`], until its deadline:
    /// the result, or a failure (a JSON-RPC error answer is `MCP-RPC-001`, as with
    /// [`Session::request`]).
    pub async fn wait(&self, pending: PendingRequest) -> Result<Value, Error> {
        let method = pending.method.clone();
        let outcome = self.wait_outcome(pending).await?;
        self.rpc_result(&method, outcome)
    }

    /// Sends a request and waits for its answer, keeping a JSON-RPC error answer apart from
    /// a failure of the session (the handshake reads the error's code).
    pub(super) async fn exchange(
        &self,
        method: &str,
        params: Option<&Value>,
        opts: &RequestOptions,
    ) -> Result<Result<Value, RpcError>, Error> {
        let pending = self.send(method, params, opts)?;
        self.wait_outcome(pending).await
    }

    /// Sends a request and, in the common case, reads its answer at once in the
    /// foreground, without a future: a caller on the hot path awaits only when the
    /// answer is not there ([`Started::Waiting`], finished by [`Session::finish_request`]).
    /// [`Session::request`] is this and that in one.
    pub(crate) fn start_request(
        &self,
        method: &str,
        params: Option<&Value>,
        opts: &RequestOptions,
    ) -> Result<Started, Error> {
        let mut pending = self.send_params(method, params.map(Cow::Borrowed), opts)?;
        let now = self.inner.foreground.is_some()
            && pending.unsent.is_none()
            && pending.resend.is_none()
            && !self.inner.due_for_turn(pending.sent_at);
        match now
            .then(|| self.answer_in_foreground(&mut pending))
            .flatten()
        {
            Some(answer) => Ok(Started::Answered(
                answer.and_then(|outcome| self.rpc_result(method, outcome)),
            )),
            None => Ok(Started::Waiting(pending)),
        }
    }

    /// Waits for the answer of a request [`Session::start_request`] could not read at
    /// once. Boxed behind `dyn`: the wait's large future stays out of its callers'.
    pub(crate) fn finish_request(
        &self,
        pending: PendingRequest,
    ) -> crate::BoxFuture<'_, Result<Value, Error>> {
        Box::pin(self.wait(pending))
    }

    /// A result, or the JSON-RPC error answer as an `MCP-RPC-001` failure.
    pub(super) fn rpc_result(
        &self,
        method: &str,
        outcome: Result<Value, RpcError>,
    ) -> Result<Value, Error> {
        outcome.map_err(|error| {
            self.inner.error(ErrorKind::Rpc {
                method: method.into(),
                error,
            })
        })
    }

    /// Cancels an in-flight request: the client stops waiting for it and tells the server
    /// (`notifications/cancelled`); a late answer is ignored.
    pub fn cancel(&self, pending: PendingRequest, reason: &str) -> Result<(), Error> {
        {
            let mut st = self.inner.state.lock().expect("state lock");
            st.pending.remove(pending.id);
            st.cancelled.insert(pending.id);
        }
        if let Some(http) = &self.inner.http {
            http.abort(pending.id);
        }
        self.notify(
            "notifications/cancelled",
            Some(json!({"requestId": pending.id, "reason": reason})),
        )
        .map_err(|k| self.inner.error(k))
    }
}

pub(super) fn with_during(kind: ErrorKind, method: &str) -> ErrorKind {
    match kind {
        ErrorKind::ServerExited {
            during: None,
            status,
        } => ErrorKind::ServerExited {
            during: Some(method.into()),
            status,
        },
        other => other,
    }
}
