//! Progress notifications: per-token state, the monotonic rule, and what a call collected.

use std::borrow::Cow;
use std::time::Instant;

use serde_json::Value;

use super::Session;
use super::send::edit;
use super::state::{Inner, State};
use crate::error::ErrorKind;
use crate::protocol::meta;

pub(super) struct ProgressState {
    pub(super) last: Option<f64>,
    pub(super) last_at: Option<Instant>,
    pub(super) events: Vec<Value>,
    pub(super) problems: Vec<String>,
}

impl Session {
    /// Starts following the progress of a request sent with `token`.
    #[inline(never)]
    pub(super) fn track_progress(&self, token: &Value, params: &mut Option<Cow<'_, Value>>) {
        self.inner
            .state
            .lock()
            .expect("state lock")
            .progress
            .insert(
                token.to_string(),
                ProgressState {
                    last: None,
                    last_at: None,
                    events: Vec::new(),
                    problems: Vec::new(),
                },
            );
        meta::insert_meta(edit(params), "progressToken", token.clone());
    }

    /// Progress notifications received for a token, and the rule breaks seen.
    pub fn progress_of(&self, token: &Value) -> (Vec<Value>, Vec<String>) {
        let st = self.inner.state.lock().expect("state lock");
        match st.progress.get(&token.to_string()) {
            Some(p) => (p.events.clone(), p.problems.clone()),
            None => (Vec::new(), Vec::new()),
        }
    }

    /// Stops accepting progress for a token (its request ended).
    pub fn retire_progress_token(&self, token: &Value) {
        let mut st = self.inner.state.lock().expect("state lock");
        st.progress.remove(&token.to_string());
    }
}

impl Inner {
    /// Follows a `notifications/progress`: for a token in use, the value must increase;
    /// a token this client never sent (or whose request ended) is a violation.
    pub(super) fn on_progress(&self, st: &mut State, params: &Value) {
        let token = params
            .get("progressToken")
            .map(Value::to_string)
            .unwrap_or_else(|| "(none)".into());
        let progress = params.get("progress").and_then(Value::as_f64);
        match st.progress.get_mut(&token) {
            Some(p) => {
                match progress {
                    None => p
                        .problems
                        .push("a notification without a numeric `progress`".into()),
                    Some(v) => {
                        if let Some(last) = p.last
                            && v <= last
                        {
                            p.problems.push(format!(
                                "progress went from {last} to {v}; it must increase"
                            ));
                        }
                        p.last = Some(v);
                    }
                }
                p.last_at = Some(Instant::now());
                p.events.push(params.clone());
            }
            None => {
                let kind = ErrorKind::Progress { token, reason: "notification for a token this client never sent (or whose request has ended)".into() };
                self.record_violation(st, &kind, false);
            }
        }
    }
}
