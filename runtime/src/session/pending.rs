//! Requests awaiting an answer: the table by id, and the handle a caller holds.

use std::borrow::Cow;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::oneshot;

use super::config::RequestOptions;
use crate::error::{Error, ErrorKind};
use crate::protocol::jsonrpc::RpcError;

pub(super) struct PendingSlot {
    pub(super) method: Method,
    pub(super) log_level: bool,
    pub(super) tx: oneshot::Sender<Result<Result<Value, RpcError>, ErrorKind>>,
}

/// A request's method: the methods this client sends are not copied per request.
pub type Method = Cow<'static, str>;

/// `method` as a [`Method`].
pub(super) fn method_name(method: &str) -> Method {
    const SENT: [&str; 22] = [
        "tools/call",
        "tools/list",
        "resources/read",
        "resources/list",
        "resources/templates/list",
        "resources/subscribe",
        "resources/unsubscribe",
        "prompts/get",
        "prompts/list",
        "completion/complete",
        "logging/setLevel",
        "ping",
        "initialize",
        "server/discover",
        "subscriptions/listen",
        "tasks/get",
        "tasks/result",
        "tasks/list",
        "tasks/cancel",
        "tasks/update",
        "skills/list",
        "skills/get",
    ];
    match SENT.iter().find(|m| **m == method) {
        Some(m) => Cow::Borrowed(m),
        None => Cow::Owned(method.to_string()),
    }
}

/// The requests awaiting an answer, by id. Ids are handed out in increasing order and
/// added as they are, so the list stays sorted; a session rarely has more than a few in
/// flight, and a sorted list is less code and memory on every call than a tree.
#[derive(Default)]
pub(super) struct Pending(pub(super) Vec<(i64, PendingSlot)>);

impl Pending {
    pub(super) fn insert(&mut self, id: i64, slot: PendingSlot) {
        match self.0.last() {
            Some((last, _)) if *last >= id => {
                let at = self.0.partition_point(|(i, _)| *i < id);
                if self.0.get(at).is_some_and(|(i, _)| *i == id) {
                    self.0[at].1 = slot;
                } else {
                    self.0.insert(at, (id, slot));
                }
            }
            _ => self.0.push((id, slot)),
        }
    }

    pub(super) fn position(&self, id: i64) -> Option<usize> {
        // The newest request is the likeliest to be answered: look there first.
        match self.0.last() {
            Some((last, _)) if *last == id => Some(self.0.len() - 1),
            _ => self.0.binary_search_by_key(&id, |(i, _)| *i).ok(),
        }
    }

    pub(super) fn remove(&mut self, id: i64) -> Option<PendingSlot> {
        self.position(id).map(|at| self.0.remove(at).1)
    }

    pub(super) fn contains(&self, id: i64) -> bool {
        self.position(id).is_some()
    }

    pub(super) fn slots(&self) -> impl Iterator<Item = &PendingSlot> {
        self.0.iter().map(|(_, slot)| slot)
    }

    /// Empties the list, handing out every slot.
    pub(super) fn take_all(&mut self) -> impl Iterator<Item = PendingSlot> + use<> {
        std::mem::take(&mut self.0)
            .into_iter()
            .map(|(_, slot)| slot)
    }
}

/// A request that was sent and whose answer is awaited.
#[derive(Debug)]
pub struct PendingRequest {
    /// Its JSON-RPC id.
    pub id: i64,
    /// Its method.
    pub method: Method,
    pub(super) deadline: Duration,
    pub(super) sent_at: Instant,
    pub(super) progress_key: Option<String>,
    pub(super) max_total: Option<Duration>,
    pub(super) rx: oneshot::Receiver<Result<Result<Value, RpcError>, ErrorKind>>,
    /// What it takes to send the request again after the session is renewed (handshake
    /// era over HTTP, requests other than `initialize`).
    /// Boxed: HTTP only, and every wait's future holds this struct.
    pub(super) resend: Option<Box<(Option<Value>, RequestOptions)>>,
    /// Why the request could not be written to a server's stdin (see [`Session::wait`]);
    /// boxed, as it is rare and every wait's future holds this struct.
    pub(super) unsent: Option<Box<ErrorKind>>,
}

/// A request as [`Session::start_request`] leaves it.
pub enum Started {
    /// Its answer (or failure) was read at once.
    Answered(Result<Value, Error>),
    /// Its answer is awaited: [`Session::finish_request`].
    Waiting(PendingRequest),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    pub(super) fn pending_requests_are_found_by_id_in_any_order() {
        let mut pending = Pending::default();
        let mut receivers = Vec::new();
        let slot = |receivers: &mut Vec<_>, method: &str| {
            let (tx, rx) = oneshot::channel();
            receivers.push(rx);
            PendingSlot {
                method: method_name(method),
                log_level: false,
                tx,
            }
        };
        for id in [1, 2, 3, 7, 5] {
            pending.insert(id, slot(&mut receivers, &format!("m{id}")));
        }
        pending.insert(3, slot(&mut receivers, "again"));
        let ids: Vec<i64> = pending.0.iter().map(|(i, _)| *i).collect();
        assert_eq!(ids, [1, 2, 3, 5, 7]);
        assert!(pending.contains(7) && pending.contains(1) && !pending.contains(4));
        assert_eq!(
            pending.remove(3).map(|s| s.method).as_deref(),
            Some("again")
        );
        assert!(pending.remove(3).is_none());
        assert_eq!(pending.remove(7).map(|s| s.method).as_deref(), Some("m7"));
        assert_eq!(pending.remove(1).map(|s| s.method).as_deref(), Some("m1"));
        let rest: Vec<String> = pending.take_all().map(|s| s.method.into_owned()).collect();
        assert_eq!(rest, ["m2", "m5"]);
        assert!(!pending.contains(2) && pending.slots().next().is_none());
    }
}
