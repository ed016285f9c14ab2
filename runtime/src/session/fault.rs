//! Faults injected between the client and the server on the answer to one request
//! (`RequestOptions::fault`, a step's `fault`): the session plays the broken network or
//! the broken server itself, at its boundary with the transport, so the test sees exactly
//! what a client would see (docs/faults.md):
//!
//! - `Drop`: the answer is recorded in the transcript but never delivered; the request
//!   times out at its deadline (`MCP-TIMEOUT-001`).
//! - `Delay(d)`: the answer is delivered `d` after it arrived (the request's deadline
//!   still counts from when it was sent).
//! - `Disconnect`: right after the request is written the client closes the connection:
//!   over stdio the server's stdin is closed (whatever it still writes is not read), over
//!   HTTP every exchange in flight is aborted; the request and the session end with `MCP-CLOSED-001`.
//! - `Duplicate`: the answer is delivered, then delivered again: the second copy answers an
//!   id no request waits for, a protocol violation (`MCP-PROTO-…` duplicate response) that
//!   ends the session.
//! - `Corrupt`: the answer's line is cut in the middle, so it is not JSON: a located
//!   violation (`not JSON`, with the line) that ends the request and the session.

use std::sync::Arc;
use std::time::Duration;

use super::state::Inner;
use crate::error::ErrorKind;
use crate::protocol::jsonrpc::{IdKey, Incoming};

/// A fault on the answer to one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The answer never reaches the client.
    Drop,
    /// The answer reaches the client this much later.
    Delay(Duration),
    /// The client closes the connection right after sending the request.
    Disconnect,
    /// The answer arrives twice.
    Duplicate,
    /// The answer arrives cut in half (not JSON).
    Corrupt,
}

/// The id a message answers, when it is an answer to one of our (integer) ids.
fn answer_id(incoming: &Incoming) -> Option<i64> {
    match incoming {
        Incoming::Result {
            id: IdKey::Int(i), ..
        }
        | Incoming::Error {
            id: Some(IdKey::Int(i)),
            ..
        } => Some(*i),
        _ => None,
    }
}

impl Inner {
    /// Applies the fault registered for the request `incoming` answers, if any: `None`
    /// when the message was taken care of here (dropped, delayed, corrupted), else the
    /// message to dispatch and whether to dispatch it a second time.
    pub(super) fn apply_fault(
        self: &Arc<Self>,
        incoming: Incoming,
        text: Option<&str>,
    ) -> Option<(Incoming, bool)> {
        let Some(id) = answer_id(&incoming) else {
            return Some((incoming, false));
        };
        let fault = {
            let mut st = self.state.lock().expect("state lock");
            if st.faults.is_empty() {
                return Some((incoming, false));
            }
            let fault = st.faults.remove(&id);
            if matches!(fault, Some(Fault::Drop | Fault::Delay(_))) {
                st.held.insert(id);
            }
            fault
        };
        match fault {
            None => Some((incoming, false)),
            Some(Fault::Duplicate) => Some((incoming, true)),
            Some(Fault::Drop) | Some(Fault::Disconnect) => {
                // Recorded as it arrived, so the transcript shows what was dropped.
                if let Some(text) = text {
                    let mut st = self.state.lock().expect("state lock");
                    self.push_transcript(
                        &mut st,
                        crate::transcript::Direction::Received,
                        crate::transcript::MessageKind::Response,
                        None,
                        text.as_bytes(),
                    );
                }
                None
            }
            Some(Fault::Delay(d)) => {
                let inner = Arc::clone(self);
                let text = text.map(str::to_string);
                match tokio::runtime::Handle::try_current() {
                    Ok(rt) => {
                        rt.spawn(async move {
                            tokio::time::sleep(d).await;
                            inner.on_incoming(incoming, text.as_deref(), false);
                        });
                    }
                    Err(_) => {
                        std::thread::sleep(d);
                        inner.on_incoming(incoming, text.as_deref(), false);
                    }
                }
                None
            }
            Some(Fault::Corrupt) => {
                let whole = text
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("{{\"jsonrpc\":\"2.0\",\"id\":{id}}}"));
                let mut cut = whole.len() / 2;
                while !whole.is_char_boundary(cut) {
                    cut -= 1;
                }
                let mut st = self.state.lock().expect("state lock");
                let why = "not JSON: the line ends in the middle of a value (corrupted by an injected fault)";
                self.on_bad_line(&mut st, &whole[..cut], why.into(), true);
                // A lenient session does not end on a bad line: the request still ends.
                if let Some(slot) = st.pending.remove(id) {
                    let _ = slot.tx.send(Err(ErrorKind::NotJsonRpc {
                        line: whole[..cut].to_string(),
                        why: why.into(),
                    }));
                }
                None
            }
        }
    }

    /// Registers `fault` for the answer to request `id`.
    pub(super) fn expect_fault(&self, id: i64, fault: Fault) {
        self.state
            .lock()
            .expect("state lock")
            .faults
            .insert(id, fault);
    }

    /// Closes the connection from the client's side (the `Disconnect` fault): every pending
    /// request and every later one ends with `Closed`.
    pub(super) fn disconnect(&self) {
        if let Some(writer) = &self.writer {
            writer.close();
        }
        if let Some(http) = &self.http {
            http.abort_all();
        }
        let mut st = self.state.lock().expect("state lock");
        if st.fatal.is_none() {
            st.fatal = Some(ErrorKind::Closed);
        }
        for slot in st.pending.take_all() {
            let _ = slot.tx.send(Err(ErrorKind::Closed));
        }
        self.inbox_changed.notify_waiters();
    }
}
