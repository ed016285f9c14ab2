//! The actions of tool, request and set steps, as requests to the server.

use std::time::Duration;

use mcpr_compiler::ir::{Step, StepKind};
use serde_json::{Map, Value, json};

use crate::client::CallOptions;
use crate::error::Error;
use crate::session::RequestOptions;

use super::StepRunner;
use super::arguments::tool_arguments;
use super::native::NativeFail;
use super::tasks::call_tool;
use super::{Reply, StepFail, broke};
use crate::values::{self};

impl StepRunner {
    pub(super) async fn perform(
        &mut self,
        step: &Step,
        timeout: Duration,
    ) -> Result<Reply, StepFail> {
        match &step.kind {
            StepKind::Tool(t) => {
                let name = self.interp_str(&t.name)?;
                self.exercise("tools/call", Some(&json!({ "name": name })));
                let args = match &t.arguments {
                    Some(a) if values::mentions_template(a) => {
                        self.interp(&Value::Object(a.clone()))?
                    }
                    Some(a) => Value::Object(a.clone()),
                    None => json!({}),
                };
                let opts = CallOptions {
                    timeout: Some(timeout),
                    // mcp-tester sends a progress token with every call of a script.
                    progress: super::script_wording::is_script_step(step),
                    allow_error: true,
                    log_level: self.log_level.clone(),
                    fault: super::fault::session_fault(step),
                    ..CallOptions::default()
                };
                if t.positional.is_some() || t.coerce == Some(true) || t.task.is_some() {
                    let positional = match &t.positional {
                        Some(p) => match self.interp(&Value::Array(p.clone()))? {
                            Value::Array(a) => a,
                            _ => Vec::new(),
                        },
                        None => Vec::new(),
                    };
                    let named = match args {
                        Value::Object(o) => o,
                        _ => Map::new(),
                    };
                    let args = if t.positional.is_some() || t.coerce == Some(true) {
                        tool_arguments(
                            &self.client,
                            &name,
                            named,
                            positional,
                            t.coerce == Some(true),
                        )
                        .await?
                    } else {
                        Value::Object(named)
                    };
                    return call_tool(&self.client, t, &name, args, &opts, timeout, &mut self.task)
                        .await;
                }
                self.call(&name, args, &opts).await
            }
            StepKind::Request(r) => {
                let params = match &r.params {
                    Some(p) => Some(self.interp(p)?),
                    None => None,
                };
                if let Some((name, args)) = plain_tool_call(&r.method, params.as_ref()) {
                    // A well-formed `tools/call` is a tool call, with its checks
                    // (`outputSchema` ⇒ `structuredContent`, 2026 `x-mcp-header`).
                    self.exercise("tools/call", Some(&json!({ "name": name })));
                    let opts = CallOptions {
                        timeout: Some(timeout),
                        allow_error: true,
                        log_level: self.log_level.clone(),
                        ..CallOptions::default()
                    };
                    return self.call(&name, args, &opts).await;
                }
                if r.method == "ping"
                    && params.is_none()
                    && self.client.session().era() == crate::protocol::Era::Modern
                {
                    // 2026 has no ping; the same round trip is `server/discover`.
                    return match self.client.ping(Some(timeout)).await {
                        Ok(_) => Ok(Reply::Ok(json!({}))),
                        Err(e) => match e.rpc_error() {
                            Some(rpc) => Ok(Reply::Rpc(rpc.clone())),
                            None => Err(broke(e)),
                        },
                    };
                }
                self.request_faulted(&r.method, params, timeout, step)
                    .await
                    .map_err(broke)
            }
            StepKind::Native(n) => self.native(n, timeout).await.map_err(|e| match e {
                NativeFail::Session(e) => broke(e),
                NativeFail::Step(f) => f,
            }),
            StepKind::Set(_) => Ok(Reply::Ok(Value::Null)),
        }
    }

    /// One `tools/call` through the client, its answer as a reply.
    async fn call(&self, name: &str, args: Value, opts: &CallOptions) -> Result<Reply, StepFail> {
        match self.client.call_tool(name, args, opts).await {
            Ok(call) if call.is_error => Ok(Reply::ToolError(call.result)),
            Ok(call) => Ok(Reply::Ok(call.result)),
            Err(e) => match e.rpc_error() {
                Some(rpc) => Ok(Reply::Rpc(rpc.clone())),
                None => Err(broke(e)),
            },
        }
    }

    /// Records what a request exercises, for coverage.
    pub(super) fn exercise(&self, method: &str, params: Option<&Value>) {
        if let Ok(mut e) = self.exercised.lock() {
            e.record(method, params);
        }
    }

    pub(super) async fn request(
        &self,
        method: &str,
        params: Option<Value>,
        timeout: Duration,
    ) -> Result<Reply, Error> {
        self.request_with(method, params, timeout, None).await
    }

    /// [`StepRunner::request`] with the step's fault, if it has one.
    async fn request_faulted(
        &self,
        method: &str,
        params: Option<Value>,
        timeout: Duration,
        step: &Step,
    ) -> Result<Reply, Error> {
        let fault = super::fault::session_fault(step);
        self.request_with(method, params, timeout, fault).await
    }

    async fn request_with(
        &self,
        method: &str,
        params: Option<Value>,
        timeout: Duration,
        fault: Option<crate::session::Fault>,
    ) -> Result<Reply, Error> {
        self.exercise(method, params.as_ref());
        let opts = RequestOptions {
            timeout: Some(timeout),
            log_level: self.log_level.clone(),
            fault,
            ..RequestOptions::default()
        };
        match self
            .client
            .session()
            .request(method, params.as_ref(), &opts)
            .await
        {
            Ok(v) if method == "tools/call" && v.get("isError") == Some(&Value::Bool(true)) => {
                Ok(Reply::ToolError(v))
            }
            Ok(v) => Ok(Reply::Ok(v)),
            Err(e) => match e.rpc_error() {
                Some(rpc) => Ok(Reply::Rpc(rpc.clone())),
                None => Err(e),
            },
        }
    }
}

/// The name and arguments of a request that is a plain `tools/call`: params with a string
/// `name` and an object `arguments` (or none) and nothing else. Any other shape is sent as
/// written (a suite testing how a server answers malformed calls).
fn plain_tool_call(method: &str, params: Option<&Value>) -> Option<(String, Value)> {
    if method != "tools/call" {
        return None;
    }
    let p = params?.as_object()?;
    let name = p.get("name")?.as_str()?;
    if !p.keys().all(|k| k == "name" || k == "arguments") {
        return None;
    }
    let args = match p.get("arguments") {
        None => json!({}),
        Some(a) if a.is_object() => a.clone(),
        Some(_) => return None,
    };
    Some((name.to_string(), args))
}
