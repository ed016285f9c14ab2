//! Everything the server sends, dispatched: answers to pending requests, notifications,
//! server requests, batches, lines that are not JSON-RPC, the end of the stream; and the
//! HTTP transport's sink into the same paths.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::inbox::Notification;
use super::state::{Inner, State};
use crate::error::{ErrorKind, shorten};
use crate::protocol::compact;
use crate::protocol::era;
use crate::protocol::jsonrpc::{self, IdKey, Incoming, RpcError};
use crate::transcript::{Direction, MessageKind};
use crate::transport::http::{HttpFailure, HttpSink};
use crate::transport::stdio::{Frame, LineReader, ProcessHandle};

/// Feeds what the HTTP transport reads into the session (weakly: the session owns the
/// transport, not the other way round).
pub(super) struct SessionSink(std::sync::Weak<Inner>);

impl HttpSink for SessionSink {
    fn on_text(&self, text: String) {
        if let Some(inner) = self.0.upgrade() {
            inner.on_text(text);
        }
    }

    fn on_slip(&self, what: String, reason: String) {
        if let Some(inner) = self.0.upgrade() {
            let mut st = inner.state.lock().expect("state lock");
            inner.record_violation(&mut st, &ErrorKind::Conformance { what, reason }, false);
        }
    }

    fn on_too_large(&self, limit: usize) {
        if let Some(inner) = self.0.upgrade() {
            inner.on_too_large(limit);
        }
    }

    fn on_request_failed(&self, id: i64, failure: HttpFailure) {
        if let Some(inner) = self.0.upgrade() {
            inner.fail_pending(id, failure);
        }
    }

    fn is_pending(&self, id: i64) -> bool {
        self.0.upgrade().is_some_and(|inner| {
            inner
                .state
                .lock()
                .map(|st| st.pending.contains(id))
                .unwrap_or(false)
        })
    }

    fn on_post_rejected(&self, what: String, failure: HttpFailure) {
        if let Some(inner) = self.0.upgrade() {
            let reason = match failure {
                HttpFailure::Rpc(e) => format!("the server refused it with error {e}"),
                HttpFailure::Status { status, body } => {
                    format!("the server refused it with HTTP {status}: {body}")
                }
                HttpFailure::Io(e) | HttpFailure::NoAnswer(e) => e,
                HttpFailure::TooLarge { limit } => format!("an answer over {limit} bytes"),
                HttpFailure::Unauthorized {
                    status,
                    challenge,
                    body,
                } => ErrorKind::Unauthorized {
                    status,
                    challenge,
                    body,
                }
                .to_string(),
                HttpFailure::SessionExpired { session, .. } => {
                    format!("the server no longer knows session {session} (HTTP 404)")
                }
                HttpFailure::Authorization(kind) => kind.to_string(),
            };
            let kind = ErrorKind::Conformance { what, reason };
            let mut st = inner.state.lock().expect("state lock");
            inner.record_violation(&mut st, &kind, false);
        }
    }
}

impl Inner {
    /// The HTTP transport's way into this session (weak: the session owns the transport).
    pub(super) fn sink(self: &Arc<Self>) -> Arc<dyn HttpSink> {
        Arc::new(SessionSink(Arc::downgrade(self)))
    }

    /// Ends a pending request with what the HTTP transport saw.
    pub(super) fn fail_pending(&self, id: i64, failure: HttpFailure) {
        let mut st = self.state.lock().expect("state lock");
        // A JSON body (or a stream) that held the answer a `Drop`/`Delay` fault took: the
        // request waits for the delayed answer, or for its deadline.
        if matches!(failure, HttpFailure::NoAnswer(_)) && st.held.remove(&id) {
            return;
        }
        let Some(slot) = st.pending.remove(id) else {
            return;
        };
        let outcome = match failure {
            HttpFailure::Rpc(e) => Ok(Err(e)),
            HttpFailure::Status { status, body } => Err(ErrorKind::Http {
                status: Some(status),
                reason: if body.is_empty() {
                    "(empty body)".into()
                } else {
                    body
                },
            }),
            HttpFailure::Io(reason) | HttpFailure::NoAnswer(reason) => Err(ErrorKind::Http {
                status: None,
                reason,
            }),
            HttpFailure::TooLarge { limit } => {
                Err(ErrorKind::MessageTooLarge { limit, seen: limit })
            }
            HttpFailure::Unauthorized {
                status,
                challenge,
                body,
            } => Err(ErrorKind::Unauthorized {
                status,
                challenge,
                body,
            }),
            HttpFailure::SessionExpired { session, body } => Err(ErrorKind::SessionExpired {
                session,
                renewed: None,
                body,
            }),
            HttpFailure::Authorization(kind) => Err(*kind),
        };
        let _ = slot.tx.send(outcome);
    }

    pub(super) fn on_frame_line(self: &Arc<Self>, bytes: Vec<u8>) {
        let text = match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                let line = String::from_utf8_lossy(e.as_bytes()).into_owned();
                let mut st = self.state.lock().expect("state lock");
                self.on_bad_line(&mut st, &line, "not valid UTF-8".into(), true);
                return;
            }
        };
        // A message starts with `{` (or `[`); only other lines need the whitespace scan.
        if !text.starts_with(['{', '[']) && text.trim().is_empty() {
            self.on_blank_line(&text);
            return;
        }
        self.on_text(text);
    }

    /// Handles the text of one message (a stdout line, an HTTP body or SSE event): counted,
    /// parsed and dispatched; a text that is not JSON is recorded and stops the session.
    pub(super) fn on_text(self: &Arc<Self>, text: String) {
        let limit = self.max_message_values;
        if compact::may_exceed(text.len(), limit) {
            let count = compact::count_values(text.as_bytes());
            if count > limit {
                self.on_too_many_values(limit, count);
                return;
            }
        }
        match jsonrpc::parse(&text) {
            Ok(incoming) => self.on_incoming(incoming, Some(&text), false),
            Err(e) => {
                let mut st = self.state.lock().expect("state lock");
                let fatal = !self.tolerate_stray_lines;
                self.on_bad_line(&mut st, &text, format!("not JSON: {e}"), fatal);
            }
        }
    }

    /// Records a line that is not a JSON-RPC message: in the transcript (unless empty)
    /// and as a violation.
    #[cold]
    #[inline(never)]
    pub(super) fn on_bad_line(&self, st: &mut State, line: &str, why: String, fatal: bool) {
        if !line.is_empty() {
            self.push_transcript(
                st,
                Direction::Received,
                MessageKind::Invalid,
                None,
                line.as_bytes(),
            );
        }
        let kind = ErrorKind::NotJsonRpc {
            line: shorten(line, 300),
            why,
        };
        self.record_violation(st, &kind, fatal);
    }

    #[cold]
    #[inline(never)]
    pub(super) fn on_blank_line(&self, text: &str) {
        let kind = ErrorKind::NotJsonRpc {
            line: format!("{text:?}"),
            why: "a blank line".into(),
        };
        let mut st = self.state.lock().expect("state lock");
        self.record_violation(&mut st, &kind, false);
    }

    pub(super) fn on_message(self: &Arc<Self>, value: Value, text: Option<&str>, in_batch: bool) {
        self.on_incoming(jsonrpc::classify(value), text, in_batch);
    }

    /// Handles a classified message; `text` is its line, recorded in the transcript
    /// (`None` for the members of a batch, recorded as the batch's line).
    pub(super) fn on_incoming(
        self: &Arc<Self>,
        incoming: Incoming,
        text: Option<&str>,
        in_batch: bool,
    ) {
        let (incoming, twice) = match self.apply_fault(incoming, text) {
            Some(go_on) => go_on,
            None => return,
        };
        if twice {
            // A `Duplicate` fault: the same answer once more, after the first.
            self.on_incoming(incoming.clone(), text, in_batch);
        }
        let mut st = self.state.lock().expect("state lock");
        let (kind, method) = match &incoming {
            Incoming::Request { method, .. } => (MessageKind::Request, Some(method.as_str())),
            Incoming::Notification { method, .. } => {
                (MessageKind::Notification, Some(method.as_str()))
            }
            Incoming::Result { .. } => (MessageKind::Response, None),
            Incoming::Error { .. } => (MessageKind::Error, None),
            Incoming::Batch(_) => (MessageKind::Batch, None),
            Incoming::Invalid(_) => (MessageKind::Invalid, None),
        };
        if let Some(text) = text {
            self.push_transcript(&mut st, Direction::Received, kind, method, text.as_bytes());
        }
        // Answers first; the other kinds are handled out of line, to keep the code an
        // answer runs through small.
        match incoming {
            Incoming::Result { id, result } => self.on_response(&mut st, id, Ok(result)),
            Incoming::Error {
                id: Some(id),
                error,
            } => self.on_response(&mut st, id, Err(error)),
            Incoming::Notification { method, params } => {
                let size = text.map_or_else(|| params.to_string().len(), str::len);
                self.on_notification(&mut st, method, params, size)
            }
            Incoming::Request { id, method, params } => {
                self.on_server_request(st, id, method, params)
            }
            Incoming::Batch(items) => self.on_batch(st, items, in_batch),
            Incoming::Error { id: None, error } => {
                let kind = ErrorKind::Rpc {
                    method: "(a request the server could not read)".into(),
                    error,
                };
                self.record_violation(&mut st, &kind, true);
            }
            Incoming::Invalid(why) => self.on_invalid(&mut st, why),
        }
    }

    /// A JSON value that is not a JSON-RPC message (the transcript has its line).
    #[cold]
    #[inline(never)]
    pub(super) fn on_invalid(&self, st: &mut State, why: String) {
        let line = st
            .transcript
            .last_text()
            .map(|(_, _, text)| shorten(&text, 300))
            .unwrap_or_default();
        self.record_violation(st, &ErrorKind::NotJsonRpc { line, why }, true);
    }

    #[inline(never)]
    pub(super) fn on_batch(
        self: &Arc<Self>,
        mut st: std::sync::MutexGuard<'_, State>,
        items: Vec<Value>,
        in_batch: bool,
    ) {
        if in_batch || !*self.batching.lock().expect("batching lock") {
            let why = "a JSON-RPC batch, which this protocol version does not allow";
            self.on_invalid(&mut st, why.into());
            return;
        }
        drop(st);
        for item in items {
            self.on_message(item, None, true);
        }
    }

    pub(super) fn on_response(&self, st: &mut State, id: IdKey, outcome: Result<Value, RpcError>) {
        match id {
            IdKey::Int(i) => {
                if let Some(slot) = st.pending.remove(i) {
                    let _ = slot.tx.send(Ok(outcome));
                } else if st.cancelled.contains(&i) {
                    // A late answer to a request we gave up on: allowed, ignored.
                } else if i >= 1 && i < st.next_id {
                    self.record_violation(st, &ErrorKind::DuplicateResponse { id: i }, true);
                } else {
                    self.record_violation(
                        st,
                        &ErrorKind::UnknownResponseId { id: i.to_string() },
                        true,
                    );
                }
            }
            IdKey::Str(s) => self.record_violation(
                st,
                &ErrorKind::UnknownResponseId {
                    id: format!("{s:?}"),
                },
                true,
            ),
            IdKey::Invalid(s) => {
                self.record_violation(st, &ErrorKind::UnknownResponseId { id: s }, true)
            }
        }
    }

    #[inline(never)]
    pub(super) fn on_notification(
        &self,
        st: &mut State,
        method: String,
        params: Value,
        size: usize,
    ) {
        let modern = self.envelope.lock().map(|e| e.is_some()).unwrap_or(false);
        if modern {
            let log_requested = st.pending.slots().any(|p| p.log_level);
            if let Some(reason) = era::misplaced_notification(&method, &params, log_requested) {
                let kind = ErrorKind::Conformance {
                    what: method.clone(),
                    reason: reason.into(),
                };
                self.record_violation(st, &kind, false);
            }
        }
        if method == "notifications/progress" {
            self.on_progress(st, &params);
        }
        st.inbox.push_back(Notification {
            method,
            params,
            at_ms: self.elapsed_ms(),
            size,
        });
        st.inbox_bytes += size;
        if st.inbox_bytes > self.max_buffered_bytes {
            // Everything a session keeps has a bound in bytes too: a server that sends large
            // notifications nobody takes must not take the runner's memory with it.
            let kind = ErrorKind::BufferBudget {
                limit: self.max_buffered_bytes,
                what: "notifications waiting to be taken",
            };
            self.record_violation(st, &kind, true);
            while st.inbox_bytes > self.max_buffered_bytes / 2 {
                let Some(old) = st.inbox.pop_front() else {
                    break;
                };
                st.inbox_bytes -= old.size;
            }
        }
        if st.inbox.len() > self.max_inbox {
            if self.strict {
                self.record_violation(
                    st,
                    &ErrorKind::NotificationFlood {
                        limit: self.max_inbox,
                    },
                    true,
                );
            }
            if let Some(old) = st.inbox.pop_front() {
                st.inbox_bytes -= old.size;
            }
        }
        self.inbox_changed.notify_waiters();
    }

    /// Handles a line or an oversize report, from the reader task or a foreground wait;
    /// hands back any other frame (the end of the stream), which only the task handles.
    pub(super) fn on_frame(self: &Arc<Self>, frame: Frame) -> Option<Frame> {
        match frame {
            Frame::Line(bytes) => self.on_frame_line(bytes),
            Frame::TooLarge { seen } => self.on_too_large(seen),
            end => return Some(end),
        }
        None
    }

    /// A message over the value limit: discarded unparsed (and kept out of the transcript,
    /// as an oversized one is), and the session stops.
    #[cold]
    #[inline(never)]
    fn on_too_many_values(&self, limit: usize, count: usize) {
        let mut st = self.state.lock().expect("state lock");
        self.record_violation(&mut st, &ErrorKind::TooManyValues { limit, count }, true);
    }

    pub(super) fn on_too_large(&self, seen: usize) {
        let limit = self.max_message_bytes;
        let mut st = self.state.lock().expect("state lock");
        self.record_violation(&mut st, &ErrorKind::MessageTooLarge { limit, seen }, true);
    }

    pub(super) fn on_eof(&self, partial: Option<Vec<u8>>) {
        let mut st = self.state.lock().expect("state lock");
        if let Some(bytes) = partial {
            let line = String::from_utf8_lossy(&bytes);
            let why = "stdout closed before the line ended".to_string();
            self.on_bad_line(&mut st, &line, why, false);
        }
        st.eof = true;
        let status = self
            .handle
            .as_ref()
            .and_then(ProcessHandle::exit_description);
        if st.fatal.is_none() {
            st.fatal = Some(ErrorKind::ServerExited {
                during: None,
                status: status.clone(),
            });
        }
        for slot in st.pending.take_all() {
            let _ = slot.tx.send(Err(ErrorKind::ServerExited {
                during: Some(slot.method.into_owned()),
                status: status.clone(),
            }));
        }
        self.inbox_changed.notify_waiters();
    }
}

/// How long stdout may stay open after the server exited before it counts as ended: a
/// descendant that outlived the server may hold the pipe open forever.
const ORPHANED_PIPE_GRACE: Duration = Duration::from_millis(500);

/// The next frame of the server's stdout; once the server has exited, the end of the stream
/// at the latest [`ORPHANED_PIPE_GRACE`] later.
async fn next_frame(
    reader: &mut LineReader,
    handle: Option<&ProcessHandle>,
    exited_at: &mut Option<tokio::time::Instant>,
) -> Frame {
    let Some(handle) = handle else {
        return reader.next().await;
    };
    loop {
        match *exited_at {
            None => tokio::select! {
                frame = reader.next() => return frame,
                () = handle.exited() => *exited_at = Some(tokio::time::Instant::now()),
            },
            Some(at) => tokio::select! {
                frame = reader.next() => return frame,
                () = tokio::time::sleep_until(at + ORPHANED_PIPE_GRACE) => return Frame::Eof,
            },
        }
    }
}

pub(super) async fn read_loop(inner: Arc<Inner>, mut reader: LineReader) {
    let mut exited_at = None;
    loop {
        match next_frame(&mut reader, inner.handle.as_ref(), &mut exited_at).await {
            Frame::PartialAtEof(bytes) => {
                if let Some(h) = &inner.handle {
                    h.wait_exit(Duration::from_secs(1)).await;
                    h.wait_stderr_closed(Duration::from_millis(500)).await;
                }
                inner.on_eof(Some(bytes));
                return;
            }
            Frame::Eof | Frame::Failed(_) => {
                if let Some(h) = &inner.handle {
                    h.wait_exit(Duration::from_secs(1)).await;
                    // A dead server's failure quotes its stderr: let the drain finish.
                    h.wait_stderr_closed(Duration::from_millis(500)).await;
                }
                inner.on_eof(None);
                return;
            }
            // Lines and oversize reports; `on_frame` hands back only the ends above.
            frame => {
                let _ = inner.on_frame(frame);
            }
        }
    }
}
