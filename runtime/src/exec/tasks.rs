//! Tool calls as tasks, `task-wait` polling, and the tasks capability declared for the
//! task actions.

use std::time::{Duration, Instant};

use mcpr_compiler::ir::NativeStep;
use serde_json::Value;

use crate::client::{CallOptions, Client};
use crate::codes::RunCode;
use crate::error::{Error, ErrorKind};
use crate::protocol::{Era, RpcError};

use super::{Reply, StepFail, fail};
use crate::session::Session;
use crate::values::as_text;
use mcpr_compiler::ir::{TaskMode, ToolStep};

/// Runs a tool step that has legacy settings; `task` is the last task seen, updated by task
/// calls.
pub(super) async fn call_tool(
    client: &Client,
    t: &ToolStep,
    name: &str,
    arguments: Value,
    opts: &CallOptions,
    timeout: Duration,
    task: &mut Option<Value>,
) -> Result<Reply, StepFail> {
    let Some(mode) = t.task else {
        return match client.call_tool(name, arguments, opts).await {
            Ok(call) if call.is_error => Ok(Reply::ToolError(call.result)),
            Ok(call) => Ok(Reply::Ok(call.result)),
            Err(e) => match e.rpc_error() {
                Some(rpc) => Ok(Reply::Rpc(rpc.clone())),
                None => Err(super::broke(e)),
            },
        };
    };
    // The tasks extension is declared for task commands only.
    let _tasks = TasksDeclared::new(client.session());
    let mut copts = opts.clone();
    copts.task_ttl = Some(None);
    let started = client.call_tool(name, arguments, &copts).await;
    let call = match started {
        Ok(c) => c,
        Err(e) => {
            return match e.rpc_error() {
                Some(rpc) => Ok(Reply::Rpc(rpc.clone())),
                None => Err(super::broke(e)),
            };
        }
    };
    if !call.is_task {
        return Err(fail(
            RunCode::NoTaskHandle,
            format!(
                "tool {name:?} answered directly instead of with a task handle (does the server support the tasks extension for this tool?)"
            ),
        ));
    }
    let handle = call.result.get("task").unwrap_or(&call.result).clone();
    *task = Some(handle.clone());
    let Some(id) = handle
        .get("taskId")
        .and_then(Value::as_str)
        .map(str::to_string)
    else {
        return Err(fail(RunCode::NoTaskHandle, "the task handle has no taskId"));
    };
    match mode {
        TaskMode::Start => Ok(Reply::Ok(started_value(&call.result, &handle))),
        TaskMode::Run => {
            let end = client
                .task_run_to_end(&id, timeout)
                .await
                .map_err(task_error)?;
            let end_task = end.get("task").unwrap_or(&end).clone();
            *task = Some(end_task.clone());
            outcome(client, &id, &end_task, timeout).await
        }
    }
}

/// Declares the tasks extension (2026: with every request) while it lives, as mcp-tester
/// does for its task commands only; plain tool calls stay synchronous.
pub(super) struct TasksDeclared<'a> {
    session: &'a Session,
    before: bool,
}

impl<'a> TasksDeclared<'a> {
    /// Turns the declaration on.
    pub fn new(session: &'a Session) -> TasksDeclared<'a> {
        let mut b = session.behaviour();
        let before = b.tasks;
        if !before {
            b.tasks = true;
            session.set_behaviour(b);
        }
        TasksDeclared { session, before }
    }
}

impl Drop for TasksDeclared<'_> {
    fn drop(&mut self) {
        if !self.before {
            let mut b = self.session.behaviour();
            b.tasks = false;
            self.session.set_behaviour(b);
        }
    }
}

/// What a task that has ended came to, as the request it stands for would have answered
/// ("result as with call_tool"): in the handshake era the outcome is fetched with
/// `tasks/result` (the tool's result, or the JSON-RPC error); the 2026 revision carries it
/// in the final task, and so may a server without `tasks/result` ([`task_reply`]).
pub(super) async fn outcome(
    client: &Client,
    id: &str,
    task: &Value,
    timeout: Duration,
) -> Result<Reply, StepFail> {
    let ended = matches!(
        task.get("status").and_then(Value::as_str),
        Some("completed" | "failed")
    );
    if !ended || client.session().era() != Era::Legacy {
        return Ok(task_reply(task));
    }
    match client.task_result(id, Some(timeout)).await {
        Ok(result) if result.get("isError") == Some(&Value::Bool(true)) => {
            Ok(Reply::ToolError(result))
        }
        Ok(result) => Ok(Reply::Ok(result)),
        Err(e) if crate::client::is_method_not_found(&e) => Ok(task_reply(task)),
        Err(e) => match e.rpc_error() {
            Some(rpc) => Ok(Reply::Rpc(rpc.clone())),
            None => Err(task_error(e)),
        },
    }
}

/// A final task as a reply: `completed` gives the tool result, `failed` a JSON-RPC error,
/// anything else the task itself.
pub(super) fn task_reply(task: &Value) -> Reply {
    match task.get("status").and_then(Value::as_str) {
        Some("completed") => {
            let result = task.get("result").cloned().unwrap_or_else(|| task.clone());
            if result.get("isError") == Some(&Value::Bool(true)) {
                Reply::ToolError(result)
            } else {
                Reply::Ok(result)
            }
        }
        Some("failed") => {
            let e = task.get("error");
            Reply::Rpc(RpcError {
                code: e
                    .and_then(|e| e.get("code"))
                    .and_then(Value::as_i64)
                    .unwrap_or(-32603),
                message: e
                    .and_then(|e| e.get("message"))
                    .and_then(Value::as_str)
                    .unwrap_or("the task failed")
                    .to_string(),
                data: e.and_then(|e| e.get("data")).cloned(),
            })
        }
        _ => Reply::Ok(task.clone()),
    }
}

pub(super) fn task_error(e: Error) -> StepFail {
    match &e.kind {
        ErrorKind::Timeout { .. } => fail(RunCode::Timeout, e.kind.to_string()),
        _ => super::broke(e),
    }
}

/// `task-wait`: polls `tasks/get` until the task reaches `status` (or, without it, a final
/// status), answering its input requests with the queued answers.
pub(super) async fn task_wait(
    client: &Client,
    n: &NativeStep,
    id: &str,
    timeout: Duration,
    task: &mut Option<Value>,
) -> Result<Reply, StepFail> {
    let _tasks = TasksDeclared::new(client.session());
    let deadline = Instant::now() + timeout;
    let want = n.status();
    loop {
        let r = match client.task_get(id).await {
            Ok(r) => r,
            Err(e) => {
                return match e.rpc_error() {
                    Some(rpc) => Ok(Reply::Rpc(rpc.clone())),
                    None => Err(super::broke(e)),
                };
            }
        };
        let t = r.get("task").unwrap_or(&r).clone();
        *task = Some(t.clone());
        let status = t
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let last = matches!(status.as_str(), "completed" | "failed" | "cancelled");
        match want {
            Some(w) if w == status => return Ok(Reply::Ok(t)),
            None if last => return outcome(client, id, &t, timeout).await,
            Some(w) if last => {
                return Err(fail(
                    RunCode::TaskStatus,
                    format!("task {id} ended with status {status}, never reaching {w}"),
                ));
            }
            _ => {}
        }
        if status == "input_required" && want != Some("input_required") {
            // Let the client answer through tasks/update, then keep polling.
            let rest = deadline.saturating_duration_since(Instant::now());
            let end = client.task_run_to_end(id, rest).await.map_err(task_error)?;
            let t = end.get("task").unwrap_or(&end).clone();
            *task = Some(t.clone());
            return match want {
                None => outcome(client, id, &t, rest).await,
                Some(w) if t.get("status").and_then(Value::as_str) == Some(w) => Ok(Reply::Ok(t)),
                Some(w) => Err(fail(
                    RunCode::TaskStatus,
                    format!(
                        "task {id} ended with status {}, never reaching {w}",
                        t.get("status").map(as_text).unwrap_or_default()
                    ),
                )),
            };
        }
        if Instant::now() >= deadline {
            return Err(fail(
                RunCode::Timeout,
                format!(
                    "task {id} is still {status} after {}",
                    crate::error::fmt_duration(timeout)
                ),
            ));
        }
        let poll = t
            .get("pollInterval")
            .or_else(|| t.get("pollIntervalMs"))
            .and_then(Value::as_u64)
            .unwrap_or(100)
            .clamp(10, 1000);
        tokio::time::sleep(Duration::from_millis(poll)).await;
    }
}

/// What `task: start` yields: the handle's members at the top (`taskId`, `status`, as
/// mcp-tester's `start_task` reads them) and the handle under `task` too, as the server's
/// result holds it (`task.taskId`), whichever way the server wrote it.
fn started_value(result: &Value, handle: &Value) -> Value {
    let mut out = match handle {
        Value::Object(h) => h.clone(),
        _ => serde_json::Map::new(),
    };
    if let Value::Object(r) = result {
        for (k, v) in r {
            out.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    out.entry("task".to_string())
        .or_insert_with(|| handle.clone());
    Value::Object(out)
}
