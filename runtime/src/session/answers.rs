//! Answers to the server's requests (handshake era) and to 2026 input requests: queued
//! per-step answers first, then the client behaviour; every request is recorded.

use std::collections::VecDeque;
use std::sync::Arc;

use serde_json::{Value, json};

use super::Session;
use super::state::{Inner, State};
use crate::error::ErrorKind;
use crate::protocol::era;
use crate::protocol::jsonrpc::{self, RpcError};
use crate::transcript::MessageKind;

/// A request the server sent to the client, with the answer it got.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ServerRequest {
    /// The method.
    pub method: String,
    /// The params.
    pub params: Value,
    /// The result sent back, or the error as `{"error": …}`.
    pub answer: Value,
    /// Whether a queued per-step answer was used.
    pub queued: bool,
    /// Milliseconds since the session started.
    pub at_ms: u64,
}

impl Session {
    /// Queues the answer to the next server request (or 2026 input request) of `method`;
    /// queued answers are used before the client behaviour, oldest first.
    pub fn queue_answer(&self, method: &str, answer: Result<Value, RpcError>) {
        let mut st = self.inner.state.lock().expect("state lock");
        st.queued
            .entry(method.to_string())
            .or_default()
            .push_back(answer);
    }

    /// Answers an input request (2026 `inputRequests` entry) the way a server request
    /// would be answered: queued answer first, then the behaviour.
    pub fn answer_input_request(&self, method: &str, params: &Value) -> Result<Value, RpcError> {
        let mut st = self.inner.state.lock().expect("state lock");
        self.inner
            .answer(&mut st, method.to_string(), params.clone())
    }
}

impl Inner {
    /// Answers a request from the server (from the queued answers or the client
    /// behaviour) and records it.
    #[inline(never)]
    pub(super) fn on_server_request(
        self: &Arc<Self>,
        mut st: std::sync::MutexGuard<'_, State>,
        id: Value,
        method: String,
        params: Value,
    ) {
        let modern = self.envelope.lock().map(|e| e.is_some()).unwrap_or(false);
        if modern {
            let kind = ErrorKind::InvalidResult {
                method: method.clone(),
                reason: era::SERVER_REQUEST_IN_MODERN_ERA.into(),
            };
            self.record_violation(&mut st, &kind, false);
        }
        let answer = self.answer(&mut st, method, params);
        drop(st);
        let reply = jsonrpc::response(&id, answer);
        let _ = self.send_line(&reply, MessageKind::Response, None);
    }

    /// The answer to a server request or input request of `method` (the oldest queued
    /// answer, else the client behaviour's), recorded with the request.
    fn answer(&self, st: &mut State, method: String, params: Value) -> Result<Value, RpcError> {
        let queued = st.queued.get_mut(&method).and_then(VecDeque::pop_front);
        let used_queue = queued.is_some();
        let answer = match queued {
            Some(a) => a,
            None => self
                .behaviour
                .lock()
                .expect("behaviour lock")
                .answer(&method, &params),
        };
        let recorded = match &answer {
            Ok(v) => v.clone(),
            Err(e) => json!({"error": e.to_value()}),
        };
        let at_ms = self.elapsed_ms();
        st.server_requests.push(ServerRequest {
            method,
            params,
            answer: recorded,
            queued: used_queue,
            at_ms,
        });
        answer
    }
}
