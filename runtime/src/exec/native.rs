//! The native actions the runner performs itself (notifications, subscriptions, logging,
//! lists, tasks, client behaviour, and the script actions of legacy `.mcp` files).

use std::time::Duration;

use mcpr_compiler::ir::{NativeAction, NativeStep};
use serde_json::{Value, json};

use crate::codes::RunCode;
use crate::error::{Error, ErrorKind};
use crate::session::{Match, RequestOptions};

use super::StepRunner;
use super::answers::{prompt, queue_answer};
use super::extensions::{apps_verify, skills_list, skills_verify};
use super::gates::{lint_clean, tools_snapshot};
use super::last_response::{check_subject, save_text};
use super::listen::{Change, listen, needs_listen};
use super::target::apply_client_settings;
use super::tasks::{TasksDeclared, task_wait};
use super::{Reply, StepFail, fail, from_result};

impl StepRunner {
    /// Performs one native action: each family (notifications, era-dependent requests,
    /// tasks, script actions, gates, client settings) has a method of its own.
    pub(super) async fn native(
        &mut self,
        n: &NativeStep,
        timeout: Duration,
    ) -> Result<Reply, NativeFail> {
        if n.action() == NativeAction::Reconnect {
            return self.reconnect(timeout).await;
        }
        let params = match n.params() {
            Some(p) => Some(self.interp(p).map_err(NativeFail::Step)?),
            None => None,
        };
        let reply = match n.action() {
            NativeAction::Request => {
                let method = self.need(n.method(), "method")?;
                if n.progress() == Some(true) || n.cancel_after_ms().is_some() {
                    return self.request_with_extras(n, &method, params, timeout).await;
                }
                self.request(&method, params, timeout).await?
            }
            NativeAction::AwaitNotification => {
                let method = self.need(n.method(), "method")?;
                self.await_notification(&method, params.as_ref(), timeout)
                    .await?
            }
            NativeAction::Subscribe | NativeAction::Unsubscribe | NativeAction::SetLogLevel => {
                self.era_dependent(n).await?
            }
            NativeAction::ListAll => {
                let method = self.need(n.method(), "method")?;
                let field = self.need(n.field(), "field")?;
                self.list_all(&method, &field, params, timeout).await?
            }
            NativeAction::TaskGet
            | NativeAction::TaskList
            | NativeAction::TaskCancel
            | NativeAction::TaskWait => self.task_action(n, timeout).await?,
            NativeAction::Echo
            | NativeAction::Prompt
            | NativeAction::QueueAnswer
            | NativeAction::Check
            | NativeAction::SaveText => self.script_action(n, params)?,
            NativeAction::SkillsList => skills_list(&self.client).await?,
            NativeAction::SkillsVerify => skills_verify(&self.client)
                .await
                .map_err(NativeFail::Step)?,
            NativeAction::AppsVerify => {
                apps_verify(&self.client).await.map_err(NativeFail::Step)?
            }
            // Handled first, above: reconnecting reads no params.
            NativeAction::Reconnect => return self.reconnect(timeout).await,
            NativeAction::LintClean | NativeAction::ToolsSnapshot => self.gate(n).await?,
            NativeAction::ConfigureClient => self.configure_client(n)?,
        };
        Ok(reply)
    }

    /// The member `member` of a native step, interpolated; a step without it fails.
    fn need(&self, what: Option<&str>, member: &str) -> Result<String, NativeFail> {
        match what {
            Some(s) => self.interp_str(s).map_err(NativeFail::Step),
            None => Err(NativeFail::Step(fail(
                RunCode::NativeStep,
                format!("this native step needs `{member}`"),
            ))),
        }
    }

    /// Waits for a notification of `method` whose params hold what `params` gives at each
    /// dotted path; on the 2026 protocol the listen stream it needs is opened first, within
    /// the same time.
    async fn await_notification(
        &mut self,
        method: &str,
        params: Option<&Value>,
        timeout: Duration,
    ) -> Result<Reply, NativeFail> {
        let c = &self.client;
        let started = std::time::Instant::now();
        if c.session().era() == crate::protocol::Era::Modern
            && self.listen.is_none()
            && needs_listen(method)
        {
            // The stream is opened within the wait's own duration. A server that refuses or
            // never acknowledges it sends nothing, which is what the wait then reports (and
            // what `expect_error` expects).
            let change = Change::Method(method.to_string());
            let _ = listen(c, &mut self.listen, change, Some(timeout)).await;
        }
        let timeout = timeout.saturating_sub(started.elapsed());
        let filter: Vec<Match> = match params {
            Some(Value::Object(o)) => o.iter().map(|(k, v)| Match::dotted(k, v.clone())).collect(),
            _ => Vec::new(),
        };
        let note = c
            .session()
            .wait_notification(method, &filter, timeout)
            .await?;
        self.sequence += 1;
        Ok(Reply::Ok(
            json!({"method": note.method, "params": note.params, "sequence": self.sequence}),
        ))
    }

    /// Subscribe, unsubscribe and set the log level: requests before 2026, a change of the
    /// listen stream or of what later requests carry on the 2026 protocol.
    async fn era_dependent(&mut self, n: &NativeStep) -> Result<Reply, NativeFail> {
        let c = &self.client;
        let modern = c.session().era() == crate::protocol::Era::Modern;
        let reply = match n.action() {
            NativeAction::Subscribe => {
                let uri = self.need(n.uri(), "uri")?;
                if modern {
                    // 2026 removed resources/subscribe: the listen stream carries the URI.
                    from_result(listen(c, &mut self.listen, Change::Subscribe(uri), None).await)?
                } else {
                    from_result(c.subscribe(&uri).await.map(|()| json!({})))?
                }
            }
            NativeAction::Unsubscribe => {
                let uri = self.need(n.uri(), "uri")?;
                if modern {
                    // 2026: the listen stream is opened again without the URI.
                    let change = Change::Unsubscribe(uri);
                    from_result(listen(c, &mut self.listen, change, None).await)?
                } else {
                    from_result(c.unsubscribe(&uri).await.map(|()| json!({})))?
                }
            }
            _ => {
                let level = self.need(n.level(), "level")?;
                if modern {
                    // 2026 has no setLevel: the level travels with every later request.
                    self.log_level = Some(level);
                    Reply::Ok(json!({}))
                } else {
                    from_result(c.set_log_level(&level).await.map(|()| json!({})))?
                }
            }
        };
        Ok(reply)
    }

    /// Get, list, cancel and wait for tasks; the task got, cancelled or waited for is the
    /// subject of later checks.
    async fn task_action(
        &mut self,
        n: &NativeStep,
        timeout: Duration,
    ) -> Result<Reply, NativeFail> {
        let c = &self.client;
        let reply = match n.action() {
            NativeAction::TaskGet => {
                let id = self.need(n.task_id(), "taskId")?;
                let _tasks = TasksDeclared::new(c.session());
                let r = from_result(c.task_get(&id).await)?;
                if let Reply::Ok(v) = &r {
                    self.task = Some(v.get("task").unwrap_or(v).clone());
                }
                r
            }
            NativeAction::TaskList => {
                from_result(c.task_list().await.map(|tasks| json!({"tasks": tasks})))?
            }
            NativeAction::TaskCancel => {
                let id = self.need(n.task_id(), "taskId")?;
                let _tasks = TasksDeclared::new(c.session());
                let r = from_result(c.task_cancel(&id).await)?;
                if let Reply::Ok(v) = &r
                    && v.get("status").is_some()
                {
                    self.task = Some(v.get("task").unwrap_or(v).clone());
                }
                r
            }
            _ => {
                let id = self.need(n.task_id(), "taskId")?;
                task_wait(c, n, &id, timeout, &mut self.task)
                    .await
                    .map_err(NativeFail::Step)?
            }
        };
        Ok(reply)
    }

    /// The script actions of legacy `.mcp` files: echo, prompt, queue an answer, check and
    /// save text.
    fn script_action(
        &mut self,
        n: &NativeStep,
        params: Option<Value>,
    ) -> Result<Reply, NativeFail> {
        let c = &self.client;
        let reply = match n.action() {
            NativeAction::Echo => {
                let text = match n.message() {
                    Some(m) => self.interp_str(m).map_err(NativeFail::Step)?,
                    None => String::new(),
                };
                self.output = Some(text.clone());
                Reply::Ok(json!({"output": text}))
            }
            NativeAction::Prompt => {
                let var = self.need(n.variable(), "variable")?;
                let message = match n.message() {
                    Some(m) => Some(self.interp_str(m).map_err(NativeFail::Step)?),
                    None => None,
                };
                let answer = prompt(&var, message.as_deref(), self.ci).map_err(NativeFail::Step)?;
                self.vars.set(var, json!(answer));
                Reply::Ok(json!({"value": answer}))
            }
            NativeAction::QueueAnswer => {
                let method = self.need(n.method(), "method")?;
                let answer = params.unwrap_or_else(|| json!({}));
                queue_answer(c.session(), &method, &answer).map_err(NativeFail::Step)?;
                Reply::Ok(json!({"queued": method}))
            }
            NativeAction::Check => match params {
                Some(v) => Reply::Ok(v),
                None => Reply::Ok(check_subject(
                    self.last.as_ref(),
                    self.task.as_ref(),
                    c.session(),
                )),
            },
            _ => {
                let var = self.need(n.variable(), "variable")?;
                let paths = params.unwrap_or(Value::Null);
                let text = save_text(self.last.as_ref(), &paths).map_err(NativeFail::Step)?;
                self.vars.set(var, json!(text));
                Reply::Ok(json!({"value": text}))
            }
        };
        Ok(reply)
    }

    /// The server quality gates: lint clean and the tools snapshot.
    async fn gate(&mut self, n: &NativeStep) -> Result<Reply, NativeFail> {
        let c = &self.client;
        let gate = match n {
            NativeStep::LintClean(a) => lint_clean(c, a).await,
            NativeStep::ToolsSnapshot(a) => tools_snapshot(c, a, self.snapshots.as_ref()).await,
            other => Err(fail(
                RunCode::Internal,
                format!("{:?} is not a gate", other.action()),
            )),
        }
        .map_err(NativeFail::Step)?;
        self.output = gate.output;
        Ok(gate.reply)
    }

    /// Changes how the client answers the server (elicitation, sampling, roots …) from here
    /// on.
    fn configure_client(&mut self, n: &NativeStep) -> Result<Reply, NativeFail> {
        let settings = match n.behavior() {
            // A behaviour is plain data: writing it as JSON cannot fail.
            Some(b) => self
                .interp(&serde_json::to_value(b).unwrap_or_default())
                .map_err(NativeFail::Step)?,
            None => {
                return Err(NativeFail::Step(fail(
                    RunCode::NativeStep,
                    "this native step needs `behavior`",
                )));
            }
        };
        let session = self.client.session();
        let mut behaviour = session.behaviour();
        if let Value::Object(map) = &settings {
            apply_client_settings(&mut behaviour, map);
        }
        session.set_behaviour(behaviour);
        Ok(Reply::Ok(json!({"configured": true})))
    }

    pub(super) async fn list_all(
        &self,
        method: &str,
        field: &str,
        extra: Option<Value>,
        timeout: Duration,
    ) -> Result<Reply, Error> {
        let mut items = Vec::new();
        let mut pages = 0u64;
        let mut cursor: Option<Value> = None;
        let mut seen = std::collections::HashSet::new();
        loop {
            let mut params = match &extra {
                Some(Value::Object(o)) => Value::Object(o.clone()),
                _ => json!({}),
            };
            if let Some(c) = &cursor {
                params["cursor"] = c.clone();
            }
            let page = match self.request(method, Some(params), timeout).await? {
                Reply::Ok(v) => v,
                other => return Ok(other),
            };
            pages += 1;
            match page.get(field) {
                Some(Value::Array(a)) => items.extend(a.iter().cloned()),
                _ => {
                    return Err(self.client.session().error(ErrorKind::InvalidResult {
                        method: method.into(),
                        reason: format!("`{field}` is missing or not an array"),
                    }));
                }
            }
            match page.get("nextCursor") {
                Some(Value::String(next)) if seen.insert(next.clone()) && pages < 10_000 => {
                    cursor = Some(Value::String(next.clone()));
                }
                Some(Value::String(next)) => {
                    return Err(self.client.session().error(ErrorKind::RepeatedCursor {
                        method: method.into(),
                        cursor: next.clone(),
                    }));
                }
                _ => break,
            }
        }
        // `items` and `pages` as the first implementation wrote them, and the list under its
        // own name (`tools`, `resources`, …) as a single page has it.
        let mut result = serde_json::Map::new();
        result.insert(field.to_string(), Value::Array(items.clone()));
        result.insert("items".into(), Value::Array(items));
        result.insert("pages".into(), json!(pages));
        Ok(Reply::Ok(Value::Object(result)))
    }

    pub(super) async fn request_with_extras(
        &self,
        n: &NativeStep,
        method: &str,
        params: Option<Value>,
        timeout: Duration,
    ) -> Result<Reply, NativeFail> {
        self.exercise(method, params.as_ref());
        let session = self.client.session();
        let token = (n.progress() == Some(true)).then(|| self.client.next_progress_token());
        // A cancellation is a deadline at `cancelAfterMs`: when it passes, the session stops
        // waiting and sends `notifications/cancelled` itself (once; never for the handshake).
        let deadline = match n.cancel_after_ms() {
            Some(ms) => timeout.min(Duration::from_millis(ms)),
            None => timeout,
        };
        let opts = RequestOptions {
            timeout: Some(deadline),
            progress_token: token.clone(),
            log_level: self.log_level.clone(),
            ..RequestOptions::default()
        };
        let pending = session.send(method, params.as_ref(), &opts)?;
        let outcome = match session.wait(pending).await {
            Ok(result) => Some(Ok(result)),
            Err(e) if e.rpc_error().is_some() => e.rpc_error().cloned().map(Err),
            Err(e)
                if n.cancel_after_ms().is_some() && matches!(e.kind, ErrorKind::Timeout { .. }) =>
            {
                None
            }
            Err(e) => return Err(NativeFail::Session(e)),
        };
        let (progress, problems) = match &token {
            Some(t) => {
                let p = session.progress_of(t);
                session.retire_progress_token(t);
                p
            }
            None => (Vec::new(), Vec::new()),
        };
        // The progress rule (monotonic, the token echoed) holds for a completed request as
        // it does for `Call tool … with progress` through the client.
        if let (Some(t), Some(Ok(_)), false) = (&token, &outcome, problems.is_empty()) {
            return Err(NativeFail::Session(session.error(ErrorKind::Progress {
                token: t.to_string(),
                reason: problems.join("; "),
            })));
        }
        Ok(match outcome {
            None => Reply::Ok(json!({"cancelled": true, "progress": progress})),
            Some(Ok(result)) if token.is_some() => {
                Reply::Ok(json!({"result": result, "progress": progress}))
            }
            Some(Ok(result)) => Reply::Ok(result),
            Some(Err(rpc)) => Reply::Rpc(rpc),
        })
    }
}

pub(super) enum NativeFail {
    Session(Error),
    Step(StepFail),
}

impl From<Error> for NativeFail {
    fn from(e: Error) -> NativeFail {
        NativeFail::Session(e)
    }
}
