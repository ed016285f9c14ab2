//! One step: its deadline, the action, then the checks of its outcome (expected error,
//! assertions, snapshots, duration), captures and exports.

use std::borrow::Cow;
use std::time::{Duration, Instant};

use mcpr_compiler::ir::{self, Assert, NativeAction, Phase, Status, Step, StepKind};
use serde_json::{Map, Value};

use crate::codes::RunCode;
use crate::snapshot::Written;

use super::StepRunner;
use super::assert::{check_assertion, check_error};
use super::last_response::LastResponse;
use super::result::{StepResult, StepStatus};
use super::script_wording;
use super::{Reply, StepFail, fail, step_method, step_name};
use crate::compare::{Mismatch, show};
use crate::values::{self};

impl StepRunner {
    pub(super) async fn run(&mut self, step: &Step) -> StepResult {
        let name = step_name(step);
        let started = Instant::now();
        self.reply = None;
        let outcome = self.run_inner(step, &name).await;
        let outcome = match &step.fault {
            Some(fault) => self.judge_fault(fault, outcome),
            None => outcome,
        };
        let (response, error) = self.reply.take().unwrap_or((None, None));
        let duration_ms = started.elapsed().as_millis() as u64;
        let (status, failure) = match outcome {
            Ok(()) => (StepStatus::Passed, None),
            Err(f) => {
                let mut failure = *f.failure;
                if matches!(failure.code, RunCode::Timeout | RunCode::NoNotification) {
                    failure.message = format!(
                        "step “{name}” timed out: {}{}",
                        failure.message,
                        self.deadline_setting(step, &failure.message)
                    );
                }
                failure.step = Some(name.clone());
                // An assertion's failure already names its `Expect` line.
                if failure.location.is_none() {
                    failure.location = step.source.clone();
                }
                failure.flow = step.flow.clone();
                if failure.last_message.is_none() {
                    failure.last_message = self.client.session().last_message();
                }
                if let Some(status) = self.client.session().exit_status() {
                    failure.exit_status.get_or_insert(status);
                    let tail = self.client.session().stderr_tail();
                    if failure.stderr_tail.is_none() && !tail.is_empty() {
                        failure.stderr_tail = Some(tail);
                    }
                }
                let broke = f.broke || self.client.session().exit_status().is_some();
                (
                    if broke {
                        StepStatus::Errored
                    } else {
                        StepStatus::Failed
                    },
                    Some(failure),
                )
            }
        };
        StepResult {
            name,
            method: step_method(step),
            phase: step.phase.unwrap_or(Phase::Test),
            status,
            duration_ms,
            start_us: started.saturating_duration_since(self.started).as_micros() as u64,
            source: step.source.clone(),
            failure: failure.map(Box::new),
            response,
            error,
            output: self.output.take(),
        }
    }

    /// What set the deadline a step ran out of, unless its message says it already.
    fn deadline_setting(&self, step: &Step, message: &str) -> &'static str {
        if message.contains("deadline") {
            ""
        } else if step.timeout_ms.is_some() {
            " (the step's deadline, set by its `Wait up to`)"
        } else if matches!(&step.kind, StepKind::Native(n) if n.timeout_ms().is_some()) {
            " (the step's deadline, set by its own timeout)"
        } else {
            " (the default step deadline, set by `Wait up to` below the step, `--timeout` or the suite's `Default timeout:`; 10 s unless set)"
        }
    }

    pub(super) fn timeout_of(&self, step: &Step) -> Duration {
        let native = match &step.kind {
            StepKind::Native(n) => n.timeout_ms(),
            _ => None,
        };
        step.timeout_ms
            .or(native)
            .map_or(self.default_timeout, Duration::from_millis)
    }

    /// Runs a step's action and checks what it got back.
    pub(super) async fn run_inner(&mut self, step: &Step, name: &str) -> Result<(), StepFail> {
        if let StepKind::Set(set) = &step.kind {
            return self.run_set(step, set).await;
        }
        let native = match &step.kind {
            StepKind::Native(n) => Some(n.action()),
            _ => None,
        };
        let started = Instant::now();
        let Some(reply) = self.act(step, name, native).await? else {
            return Ok(());
        };
        let elapsed = started.elapsed();
        if self.record {
            self.reply = Some(match &reply {
                Reply::Rpc(_) => (None, Some(reply.value())),
                _ => (Some(reply.value()), None),
            });
        }
        // A `matches` ends within what is left of the step's deadline (`MCP-ASSERT-002`).
        let limit = self.timeout_of(step);
        let matching = super::pattern::deadline_until(started + limit, limit);
        let checked = self.check_reply(step, native, &reply, elapsed);
        drop(matching);
        // Moved, not copied: a large answer is held once.
        self.keep_reply(step, native, reply);
        checked
    }

    /// The checks of what a step got back: an expected error, the assertions and their
    /// snapshots, the duration; then its captures and exports.
    fn check_reply(
        &mut self,
        step: &Step,
        native: Option<NativeAction>,
        reply: &Reply,
        elapsed: Duration,
    ) -> Result<(), StepFail> {
        let expects_error = step.assert.as_ref().and_then(|a| a.status) == Some(Status::Error);
        if native == Some(NativeAction::Check) && expects_error {
            return self.check_must_fail(step, reply);
        }
        let assert = match &step.assert {
            Some(a) => Some(self.interpolated_assert(a)?),
            None => None,
        };
        check_error_expectation(assert.as_deref(), reply)
            .map_err(|f| at_expect(f, assert.as_deref()))
            .map_err(|f| self.suggest_tool(step, f))?;
        let value = reply.value_ref();
        if let Some(a) = &assert {
            let mut checked = self.check_assertions(a, &value, elapsed);
            // A script's check fails with mcp-tester's wording, not the IR's paths.
            if native == Some(NativeAction::Check) && script_wording::is_script_step(step) {
                checked = checked.map_err(|mut f| {
                    let worded = a
                        .json
                        .iter()
                        .flat_map(|j| j.as_slice())
                        .find(|x| check_assertion(&value, x).is_err())
                        .and_then(|x| script_wording::failure(x, &value));
                    if let Some(m) = worded {
                        f.failure.message = m;
                    }
                    f
                });
            }
            checked?;
        }
        self.capture_and_export(step, &value)
    }

    /// A `set` step: a utility function's result into a variable. A function a module of
    /// the suite exports runs in the function host (it wins over a built-in of the same
    /// name, as in the first implementation); the others are built in.
    async fn run_set(&mut self, step: &Step, set: &ir::SetStep) -> Result<(), StepFail> {
        let args = match &set.arguments {
            Some(a) => self
                .vars
                .interpolate(&Value::Object(a.clone()))
                .map_err(|e| fail(RunCode::UnresolvedVariable, e))?,
            None => Value::Object(Map::new()),
        };
        let args = args.as_object().cloned().unwrap_or_default();
        let host = self.functions.clone().filter(|h| h.provides(&set.function));
        let v = match host {
            Some(host) => {
                let deadline = crate::functions::deadline(
                    step.timeout_ms,
                    self.default_timeout,
                    super::DEFAULT_TIMEOUT,
                );
                let name = set.function.clone();
                let args = Value::Object(args);
                let called =
                    tokio::task::spawn_blocking(move || host.call(&name, &args, deadline)).await;
                match called {
                    Ok(Ok(v)) => v,
                    Ok(Err(e)) => {
                        let mut f = fail(e.code, e.message);
                        // The host itself broke: the test errored, it did not fail.
                        f.broke = e.code.class() == crate::codes::RunClass::Environment;
                        return Err(f);
                    }
                    Err(e) => return Err(fail(RunCode::FunctionHost, e.to_string())),
                }
            }
            None => values::builtin(&set.function, &args).map_err(|e| {
                let code = if e.starts_with("unknown function") {
                    RunCode::UnknownFunction
                } else {
                    RunCode::FunctionFailed
                };
                let known = self
                    .functions
                    .as_ref()
                    .map(|h| h.names().collect::<Vec<_>>());
                let e = match known {
                    Some(names) if code == RunCode::UnknownFunction => {
                        let names = if names.is_empty() {
                            "none".to_string()
                        } else {
                            names.join(", ")
                        };
                        format!("{e}; the suite's function modules export: {names}")
                    }
                    _ => e,
                };
                fail(code, format!("{}: {e}", set.function))
            })?,
        };
        self.vars.set(set.variable.clone(), v);
        Ok(())
    }

    /// Performs the step's action within its deadline (plus a guard that names the step if
    /// anything else hangs). `None` when the outcome settled the step already: nothing
    /// arrived where nothing may, or a request ran out of time where an error is expected.
    async fn act(
        &mut self,
        step: &Step,
        name: &str,
        native: Option<NativeAction>,
    ) -> Result<Option<Reply>, StepFail> {
        let timeout = self.timeout_of(step);
        let expects_error = step.assert.as_ref().and_then(|a| a.status) == Some(Status::Error);
        let waits = native == Some(NativeAction::AwaitNotification);
        let guard = timeout + Duration::from_secs(2);
        match tokio::time::timeout(guard, self.perform(step, timeout)).await {
            // Waiting for a notification while expecting an error: nothing may arrive.
            Ok(Err(f))
                if waits
                    && expects_error
                    && matches!(f.failure.code, RunCode::Timeout | RunCode::NoNotification) =>
            {
                // A script reads mcp-tester's failure of the wait as its last response.
                if script_wording::is_script_step(step)
                    && let StepKind::Native(n) = &step.kind
                {
                    let uri = n
                        .params()
                        .and_then(|p| p.get("uri"))
                        .and_then(Value::as_str);
                    let message = script_wording::no_notification(
                        n.method().unwrap_or_default(),
                        uri,
                        timeout.as_millis() as u64,
                    );
                    self.last = Some(LastResponse::error(message));
                }
                Ok(None)
            }
            Ok(Ok(reply)) if waits && expects_error => Err(StepFail::from(
                Mismatch::new(
                    "expected no notification, but one arrived",
                    Some("no matching notification before the deadline".into()),
                    Some(show(&reply.value())),
                )
                .values(None, Some(&reply.value())),
            )),
            // A request that ran out of time while an error is expected: the expected
            // error, worded as mcp-tester's Go client words it.
            Ok(Err(f))
                if expects_error
                    && f.failure.code == RunCode::Timeout
                    && native != Some(NativeAction::Check) =>
            {
                let message = format!("context deadline exceeded ({})", f.failure.message);
                self.last = Some(LastResponse::error(message));
                Ok(None)
            }
            Ok(Ok(reply)) => Ok(Some(reply)),
            Ok(Err(f)) => Err(f),
            Err(_) => Err(fail(
                RunCode::StepTimeout,
                format!(
                    "step “{name}” did not finish within {}",
                    crate::error::fmt_duration(guard)
                ),
            )),
        }
    }

    /// Keeps what the step got back as the last response, unless the step only read or
    /// prepared things.
    fn keep_reply(&mut self, step: &Step, native: Option<NativeAction>, reply: Reply) {
        let reads_only = matches!(
            native,
            Some(
                NativeAction::Check
                    | NativeAction::SaveText
                    | NativeAction::Echo
                    | NativeAction::Prompt
                    | NativeAction::QueueAnswer
                    | NativeAction::ConfigureClient
            )
        );
        if !reads_only {
            self.last = Some(LastResponse::of(step_method(step), reply));
        }
    }

    /// A call refused with a JSON-RPC error for a tool that `tools/list` (read already) does
    /// not list: the failure names the closest listed tool.
    fn suggest_tool(&self, step: &Step, mut f: StepFail) -> StepFail {
        let StepKind::Tool(t) = &step.kind else {
            return f;
        };
        if f.failure.code != RunCode::RpcError {
            return f;
        }
        let Ok(name) = self.interp_str(&t.name) else {
            return f;
        };
        let Some(names) = self.client.listed_tool_names() else {
            return f;
        };
        if names.iter().any(|n| n == &name) {
            return f;
        }
        let guess = mcpr_compiler::names::closest(&name, names.iter().map(String::as_str));
        match guess {
            Some(g) => f.failure.message.push_str(&format!(
                " (the server lists no tool {name:?}; did you mean {g:?}?)"
            )),
            None => f.failure.message.push_str(&format!(
                " (the server lists no tool {name:?}; it lists {})",
                names.join(", ")
            )),
        }
        f
    }

    /// A `check` under `expect_error` must fail; its failure becomes the last response.
    fn check_must_fail(&mut self, step: &Step, reply: &Reply) -> Result<(), StepFail> {
        let mut inner = step.assert.clone().unwrap_or_default();
        inner.status = None;
        let a = self.interpolated_assert(&inner)?;
        let value = reply.value();
        let failed = a
            .json
            .iter()
            .flat_map(|j| j.as_slice())
            .find_map(|assertion| Some((assertion, check_assertion(&value, assertion).err()?)));
        match failed {
            Some((assertion, m)) => {
                let worded = script_wording::is_script_step(step)
                    .then(|| script_wording::failure(assertion, &value))
                    .flatten();
                let message = worded.unwrap_or_else(|| format!("assertion failed: {}", m.message));
                self.last = Some(LastResponse::error(message));
                Ok(())
            }
            None => Err(StepFail::from(
                Mismatch::new(
                    "expected the check to fail, but it held",
                    Some("a failing check".into()),
                    Some(show(&value)),
                )
                .values(None, Some(&value)),
            )),
        }
    }

    /// The JSON assertions (with their snapshots) and the duration limit. A snapshot recorded
    /// or updated is said in the step's output.
    fn check_assertions(
        &mut self,
        a: &Assert,
        value: &Value,
        elapsed: Duration,
    ) -> Result<(), StepFail> {
        let mut notes: Vec<String> = Vec::new();
        let result = self.check_json_assertions(a, value, &mut notes);
        if !notes.is_empty() {
            notes.splice(0..0, self.output.take());
            self.output = Some(notes.join("\n"));
        }
        result?;
        if let Some(max) = a.max_duration_ms
            && elapsed > Duration::from_millis(max)
        {
            let f = fail(
                RunCode::TooSlow,
                format!(
                    "step took {} ms, more than the allowed {max} ms",
                    elapsed.as_millis()
                ),
            );
            return Err(at_expect(f, Some(a)));
        }
        Ok(())
    }

    /// The JSON assertions and their snapshots, in order; `notes` gets what the snapshot
    /// store recorded or updated.
    fn check_json_assertions(
        &self,
        a: &Assert,
        value: &Value,
        notes: &mut Vec<String>,
    ) -> Result<(), StepFail> {
        for assertion in a.json.iter().flat_map(|j| j.as_slice()) {
            // A failed expectation is reported at its own `Expect` line when it has one.
            let here = |mut f: StepFail| {
                if f.failure.location.is_none() {
                    f.failure.location = assertion.source.clone();
                }
                f
            };
            check_assertion(value, assertion).map_err(|m| here(m.into()))?;
            if let Some(snap) = &assertion.snapshot {
                let note = self
                    .check_snapshot(value, assertion.path.as_deref(), snap)
                    .map_err(here)?;
                notes.extend(note);
            }
        }
        Ok(())
    }

    /// Saves `capture` paths into variables and `export` paths into the test's outputs.
    fn capture_and_export(&mut self, step: &Step, value: &Value) -> Result<(), StepFail> {
        for (var, path) in step.capture.iter().flat_map(|c| c.iter()) {
            match values::lookup(value, path).map_err(|e| fail(RunCode::Capture, e))? {
                Some(v) => self.vars.set(var.to_string(), v.clone()),
                None => {
                    return Err(fail(
                        RunCode::Capture,
                        format!("cannot save {path} as {var:?}: it is absent in the result"),
                    ));
                }
            }
        }
        for (key, export) in step.export.iter().flat_map(|e| e.iter()) {
            match values::lookup(value, &export.path).map_err(|e| fail(RunCode::Export, e))? {
                Some(v) => {
                    self.outputs.insert(key.to_string(), v.clone());
                }
                None => {
                    return Err(fail(
                        RunCode::Export,
                        format!(
                            "cannot export {} as {key:?}: it is absent in the result",
                            export.path
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Compares the value at `path` with its snapshot; a note when the store recorded a new
    /// snapshot or updated one.
    pub(super) fn check_snapshot(
        &self,
        value: &Value,
        path: Option<&str>,
        snap: &ir::SnapshotAssertion,
    ) -> Result<Option<String>, StepFail> {
        let path = path.unwrap_or("$");
        let at = values::lookup(value, path)
            .map_err(|e| fail(RunCode::Assertion, e))?
            .cloned()
            .ok_or_else(|| {
                fail(
                    RunCode::SnapshotMissing,
                    format!("snapshot {:?}: {path} is absent in the result", snap.name),
                )
            })?;
        let Some(store) = &self.snapshots else {
            return Err(fail(
                RunCode::SnapshotStore,
                format!("snapshot {:?}: no snapshot store in this run", snap.name),
            ));
        };
        let key = format!("{}.{}", self.test_id, snap.name);
        let ignore = snap.ignore.clone().unwrap_or_default();
        let mut store = store.lock().map_err(|_| {
            fail(
                RunCode::SnapshotStore,
                "the snapshot store is unusable after a panic",
            )
        })?;
        let written = store.check(&key, &at, &ignore).map_err(StepFail::from)?;
        let verb = match written {
            Written::Matched => return Ok(None),
            Written::Recorded => "recorded new",
            Written::Updated => "updated",
        };
        Ok(Some(format!(
            "{verb} snapshot {key} in {}",
            store.shown_path()
        )))
    }

    pub(super) fn interpolated_assert<'a>(
        &self,
        a: &'a Assert,
    ) -> Result<Cow<'a, Assert>, StepFail> {
        if !values::mentions_template(a) {
            // Nothing to fill in (the usual case): the expectation as written.
            return Ok(Cow::Borrowed(a));
        }
        let raw = serde_json::to_value(a).map_err(|e| fail(RunCode::Assertion, e.to_string()))?;
        let done = self
            .vars
            .interpolate(&raw)
            .map_err(|e| fail(RunCode::Assertion, format!("in an expectation: {e}")))?;
        serde_json::from_value(done).map(Cow::Owned).map_err(|e| {
            fail(
                RunCode::Assertion,
                format!("an expectation is invalid after interpolation: {e}"),
            )
        })
    }

    pub(super) fn interp(&self, v: &Value) -> Result<Value, StepFail> {
        self.vars
            .interpolate(v)
            .map_err(|e| fail(RunCode::UnresolvedVariable, e))
    }

    pub(super) fn interp_str(&self, s: &str) -> Result<String, StepFail> {
        self.vars
            .interpolate_text(s)
            .map_err(|e| fail(RunCode::UnresolvedVariable, e))
    }
}

/// Whether the reply is an error exactly when one is expected, and the one expected.
/// A failed status, error or duration expectation is reported at its `Expect` line, when
/// the suite says where that is.
fn at_expect(mut f: StepFail, assert: Option<&Assert>) -> StepFail {
    if f.failure.location.is_none() {
        f.failure.location = assert.and_then(|a| a.source.clone());
    }
    f
}

fn check_error_expectation(assert: Option<&Assert>, reply: &Reply) -> Result<(), StepFail> {
    let expect_error = assert.and_then(|a| a.status) == Some(Status::Error);
    match reply.as_error() {
        None if expect_error => Err(StepFail::from(
            Mismatch::new(
                "expected an MCP error, but the request succeeded",
                Some("an error (a JSON-RPC error or a result with isError)".into()),
                Some(show(&reply.value())),
            )
            .values(None, Some(&reply.value())),
        )),
        Some(err) if !expect_error => {
            let (code, what) = match reply {
                Reply::ToolError(_) => (RunCode::ToolError, "the tool reported an error (isError)"),
                _ => (
                    RunCode::RpcError,
                    "the server answered with a JSON-RPC error",
                ),
            };
            Err(fail(
                code,
                match err.code {
                    Some(c) => format!("{what}: {c} {}", err.message),
                    None => format!("{what}: {}", err.message),
                },
            ))
        }
        Some(err) => match assert.and_then(|a| a.error.as_ref()) {
            Some(want) => Ok(check_error(&err, want)?),
            None => Ok(()),
        },
        None => Ok(()),
    }
}
