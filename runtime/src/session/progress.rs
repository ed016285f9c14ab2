//! Progress notifications: per-token state, the monotonic rule, and what a call collected.

use std::borrow::Cow;
use std::time::Instant;

use serde_json::Value;

use super::Session;
use super::send::edit;
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
