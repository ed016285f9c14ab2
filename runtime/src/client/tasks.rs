//! Tasks: the 2025-11-25 task methods and the 2026 tasks extension (polling, input).

use std::collections::HashSet;
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use super::Client;
use super::opts;
use crate::error::{Error, ErrorKind};
use crate::protocol::meta::EXT_TASKS;
use crate::session::RequestOptions;

impl Client {
    /// `tasks/get`: legacy returns the task fields flat; 2026 returns the detailed task.
    pub async fn task_get(&self, task_id: &str) -> Result<Value, Error> {
        let r = self
            .session
            .request(
                "tasks/get",
                Some(&json!({"taskId": task_id})),
                &RequestOptions::default(),
            )
            .await?;
        let task = r.get("task").unwrap_or(&r);
        if task.get("status").and_then(Value::as_str).is_none() {
            return Err(self.invalid("tasks/get", "no string `status`"));
        }
        Ok(r)
    }

    /// `tasks/result` (2025-11-25): blocks until the task ends and returns what the original
    /// request would have returned. Server requests that arrive meanwhile are answered.
    pub async fn task_result(
        &self,
        task_id: &str,
        timeout: Option<Duration>,
    ) -> Result<Value, Error> {
        self.require_legacy("tasks/result")?;
        self.session
            .request(
                "tasks/result",
                Some(&json!({"taskId": task_id})),
                &opts(timeout),
            )
            .await
    }

    /// `tasks/list` (2025-11-25), following cursors.
    pub async fn task_list(&self) -> Result<Vec<Value>, Error> {
        self.require_legacy("tasks/list")?;
        self.list_all("tasks/list", "tasks", None, None).await
    }

    /// `tasks/cancel`.
    pub async fn task_cancel(&self, task_id: &str) -> Result<Value, Error> {
        self.session
            .request(
                "tasks/cancel",
                Some(&json!({"taskId": task_id})),
                &RequestOptions::default(),
            )
            .await
    }

    /// `tasks/update` (2026 extension): answers a task's input requests.
    pub async fn task_update(&self, task_id: &str, input_responses: Value) -> Result<Value, Error> {
        self.session
            .request(
                "tasks/update",
                Some(&json!({"taskId": task_id, "inputResponses": input_responses})),
                &RequestOptions::default(),
            )
            .await
    }

    /// Polls a 2026 task until it is terminal, answering its input requests (each key once)
    /// with `tasks/update`. Returns the final `tasks/get` result.
    pub async fn task_run_to_end(&self, task_id: &str, timeout: Duration) -> Result<Value, Error> {
        let deadline = Instant::now() + timeout;
        let mut answered: HashSet<String> = HashSet::new();
        loop {
            let r = self.task_get(task_id).await?;
            let task = r.get("task").unwrap_or(&r).clone();
            let status = task
                .get("status")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            match status.as_str() {
                "completed" | "failed" | "cancelled" => return Ok(r),
                "input_required" => {
                    let requests = r
                        .get("inputRequests")
                        .or_else(|| task.get("inputRequests"))
                        .and_then(Value::as_object)
                        .cloned()
                        .unwrap_or_default();
                    let mut responses = Map::new();
                    for (key, req) in requests {
                        if answered.contains(&key) {
                            continue;
                        }
                        let m = req
                            .get("method")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string();
                        let p = req.get("params").cloned().unwrap_or(Value::Null);
                        let answer = self.session.answer_input_request(&m, &p).map_err(|e| {
                            self.input_error("tasks/get", format!("cannot answer {m}: {e}"))
                        })?;
                        responses.insert(key.clone(), answer);
                        answered.insert(key);
                    }
                    if !responses.is_empty() {
                        self.task_update(task_id, Value::Object(responses)).await?;
                    }
                }
                "working" => {}
                other => {
                    return Err(self.invalid("tasks/get", format!("unknown task status {other:?}")));
                }
            }
            if Instant::now() >= deadline {
                return Err(self.session.error(ErrorKind::Timeout {
                    method: "tasks/get (polling)".into(),
                    id: 0,
                    after: timeout,
                    why: String::new(),
                }));
            }
            let poll = task
                .get("pollIntervalMs")
                .or_else(|| task.get("pollInterval"))
                .and_then(Value::as_u64)
                .unwrap_or(100)
                .clamp(10, 1000);
            tokio::time::sleep(Duration::from_millis(poll)).await;
        }
    }

    /// True when the 2026 tasks extension is in play on both sides.
    pub fn tasks_extension(&self) -> bool {
        self.server_has_extension(EXT_TASKS) && self.session.behaviour().tasks
    }
}
