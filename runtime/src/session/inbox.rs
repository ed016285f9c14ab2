//! The notification inbox: what arrived, and waits that take the oldest match.

use std::collections::VecDeque;
use std::time::Duration;

use serde_json::{Map, Value};

use super::Session;
use crate::error::{Error, ErrorKind};

/// A notification in the inbox.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Notification {
    /// Its method.
    pub method: String,
    /// Its params (`null` when absent).
    pub params: Value,
    /// Milliseconds since the session started.
    pub at_ms: u64,
    /// Bytes of the message as it arrived (what the session's byte budget counts).
    #[serde(skip)]
    pub size: usize,
}

/// A scalar match at a path of a notification's params.
#[derive(Debug, Clone, PartialEq)]
pub struct Match {
    /// Path segments (object keys, or array indices as decimal text).
    pub path: Vec<String>,
    /// The expected value (numbers compare numerically, types otherwise strictly).
    pub value: Value,
}

impl Match {
    /// A match at a dot path (`data.status`).
    pub fn dotted(path: &str, value: Value) -> Match {
        Match {
            path: path.split('.').map(str::to_string).collect(),
            value,
        }
    }

    /// True when `params` holds the value at the path.
    pub fn matches(&self, params: &Value) -> bool {
        let mut cur = params;
        for seg in &self.path {
            cur = match cur {
                Value::Object(o) => match o.get(seg) {
                    Some(v) => v,
                    None => return false,
                },
                Value::Array(a) => match seg.parse::<usize>().ok().and_then(|i| a.get(i)) {
                    Some(v) => v,
                    None => return false,
                },
                _ => return false,
            };
        }
        values_equal(cur, &self.value)
    }
}

/// Type-sensitive equality where numbers compare by value (`1` equals `1.0`).
pub fn values_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(i), Some(j)) => i == j,
            _ => x.as_f64() == y.as_f64(),
        },
        _ => a == b,
    }
}

pub(super) fn filter_text(filter: &[Match]) -> Option<String> {
    if filter.is_empty() {
        return None;
    }
    let mut o = Map::new();
    for m in filter {
        o.insert(m.path.join("."), m.value.clone());
    }
    Some(Value::Object(o).to_string())
}

impl Session {
    /// Waits for the oldest notification of `method` whose params match every `filter`
    /// entry, and takes it out of the inbox. Notifications are kept from the start of the
    /// session, so waiting after the call that caused one works.
    pub async fn wait_notification(
        &self,
        method: &str,
        filter: &[Match],
        timeout: Duration,
    ) -> Result<Notification, Error> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let notified = self.inner.inbox_changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let mut st = self.inner.state.lock().expect("state lock");
                if let Some(i) = st
                    .inbox
                    .iter()
                    .position(|n| n.method == method && filter.iter().all(|m| m.matches(&n.params)))
                {
                    let taken = st.inbox.remove(i).expect("index found above");
                    st.inbox_bytes -= taken.size;
                    return Ok(taken);
                }
                let dead = st.eof
                    || matches!(
                        st.fatal,
                        Some(ErrorKind::NotificationFlood { .. } | ErrorKind::BufferBudget { .. })
                    );
                if dead && let Some(fatal) = st.fatal.clone() {
                    drop(st);
                    return Err(self.inner.error(fatal));
                }
            }
            tokio::select! {
                _ = &mut notified => {}
                _ = tokio::time::sleep_until(deadline) => {
                    let st = self.inner.state.lock().expect("state lock");
                    let shown = crate::error::ARRIVED_SHOWN;
                    let waiting: Vec<(String, Value)> = st
                        .inbox
                        .iter()
                        .take(shown)
                        .map(|n| (n.method.clone(), n.params.clone()))
                        .collect();
                    let more = st.inbox.len().saturating_sub(shown);
                    drop(st);
                    return Err(self.inner.error(ErrorKind::WaitTimeout {
                        method: method.into(),
                        filter: filter_text(filter),
                        after: timeout,
                        waiting,
                        more,
                    }));
                }
            }
        }
    }

    /// The notifications waiting in the inbox (not taken).
    pub fn inbox(&self) -> Vec<Notification> {
        self.inner
            .state
            .lock()
            .map(|st| st.inbox.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// Takes every waiting notification of `method` out of the inbox.
    pub fn take_notifications(&self, method: &str) -> Vec<Notification> {
        let mut st = self.inner.state.lock().expect("state lock");
        let (taken, kept): (VecDeque<_>, VecDeque<_>) =
            st.inbox.drain(..).partition(|n| n.method == method);
        st.inbox = kept;
        st.inbox_bytes = st.inbox.iter().map(|n| n.size).sum();
        taken.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    pub(super) fn match_paths_and_numbers() {
        let p = json!({"data": {"status": "done", "n": 1, "list": [{"x": true}]}});
        assert!(Match::dotted("data.status", json!("done")).matches(&p));
        assert!(Match::dotted("data.n", json!(1.0)).matches(&p));
        assert!(!Match::dotted("data.n", json!("1")).matches(&p));
        assert!(Match::dotted("data.list.0.x", json!(true)).matches(&p));
        assert!(!Match::dotted("data.missing", json!(null)).matches(&p));
        let m = Match {
            path: vec![
                "_meta".into(),
                "io.modelcontextprotocol/subscriptionId".into(),
            ],
            value: json!(3),
        };
        assert!(m.matches(&json!({"_meta": {"io.modelcontextprotocol/subscriptionId": 3}})));
    }
}
