//! Tool calls: the result shape, `isError`, progress, the `outputSchema` ⇒
//! `structuredContent` check, task answers, and the 2026 `x-mcp-header` parameters.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use super::Client;
use super::input::needs_input;
use super::{content_text, field};
use crate::BoxFuture;
use crate::error::{Error, ErrorKind};
use crate::protocol::jsonrpc::codes;
use crate::protocol::version::Era;
use crate::session::{PendingRequest, RequestOptions, Started};

/// Options of a tool call.
#[derive(Debug, Clone, Default)]
pub struct CallOptions {
    /// Deadline (the session's default when `None`).
    pub timeout: Option<Duration>,
    /// Ask for progress (a fresh `progressToken`), and check it.
    pub progress: bool,
    /// Hand back `isError` results instead of failing with `MCP-TOOL-001`.
    pub allow_error: bool,
    /// 2026: request-scoped log level.
    pub log_level: Option<String>,
    /// Call as a task: in 2025-11-25 the call is task-augmented with this `ttl` (ms;
    /// `Some(None)` sends `task: {}`); in 2026-07-28 the server decides, nothing is sent.
    pub task_ttl: Option<Option<u64>>,
    /// Skip the `outputSchema` check.
    pub skip_schema_check: bool,
    /// Each progress notification restarts the deadline (implies `progress`), up to
    /// `max_total` (10× the deadline when `None`).
    pub reset_timeout_on_progress: bool,
    /// Hard maximum with `reset_timeout_on_progress`.
    pub max_total: Option<Duration>,
    /// A fault to inject on the call's answer (docs/faults.md).
    pub fault: Option<crate::session::Fault>,
}

/// The outcome of a tool call.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ToolCall {
    /// The final result (a `CallToolResult`, or a task handle for task-augmented calls).
    pub result: Value,
    /// `true` when `isError` was set.
    pub is_error: bool,
    /// `true` when the server answered with a task instead of a result.
    pub is_task: bool,
    /// Progress notifications received for the call's token.
    pub progress: Vec<Value>,
    /// Multi round-trip rounds (2026) it took; 1 when none.
    pub rounds: usize,
    /// Round-trip time of the last round.
    #[serde(serialize_with = "ser_us")]
    pub elapsed: Duration,
}

pub(super) fn ser_us<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(d.as_micros() as u64)
}

impl Client {
    /// Checks `structuredContent` against the tool's `outputSchema`.
    pub(super) fn check_structured(
        &self,
        name: &str,
        tool: Option<&Value>,
        result: &Value,
    ) -> Result<(), Error> {
        let Some(tool) = tool else {
            return Ok(());
        };
        let Some(schema) = field(tool, "outputSchema") else {
            return Ok(());
        };
        let Some(structured) = result.get("structuredContent") else {
            return Err(self.session.error(ErrorKind::StructuredContent {
                tool: name.into(),
                reason: "the tool declares an outputSchema but the result has no structuredContent"
                    .into(),
            }));
        };
        let validator = {
            let cached = self
                .validators
                .lock()
                .expect("validators lock")
                .get(name)
                .cloned();
            match cached {
                Some(v) => v,
                None => {
                    let v = jsonschema::validator_for(schema).map_err(|e| {
                        self.session.error(ErrorKind::StructuredContent {
                            tool: name.into(),
                            reason: format!("its outputSchema is not a valid JSON Schema: {e}"),
                        })
                    })?;
                    let v = Arc::new(v);
                    self.validators
                        .lock()
                        .expect("validators lock")
                        .insert(name.to_string(), v.clone());
                    v
                }
            }
        };
        let problems: Vec<String> = validator
            .iter_errors(structured)
            .take(5)
            .map(|e| {
                let path = e.instance_path().to_string();
                if path.is_empty() {
                    e.to_string()
                } else {
                    format!("at {path}: {e}")
                }
            })
            .collect();
        if !problems.is_empty() {
            return Err(self.session.error(ErrorKind::StructuredContent {
                tool: name.into(),
                reason: format!(
                    "structuredContent does not match the outputSchema: {}",
                    problems.join("; ")
                ),
            }));
        }
        Ok(())
    }

    /// Calls a tool. Checks the result shape, `isError` (unless allowed), the
    /// `outputSchema` ⇒ `structuredContent` rule and, when asked, progress.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
        copts: &CallOptions,
    ) -> Result<ToolCall, Error> {
        // Sized for every member it may get: growing a map hashes its keys again.
        let mut params = Map::with_capacity(3);
        params.insert("name".into(), Value::String(name.to_string()));
        params.insert("arguments".into(), arguments);
        let mut params = Value::Object(params);
        if let Some(ttl) = copts.task_ttl
            && crate::protocol::era::task_in_params(self.session.era())
        {
            params["task"] = match ttl {
                Some(ms) => json!({"ttl": ms}),
                None => json!({}),
            };
        }
        let token =
            (copts.progress || copts.reset_timeout_on_progress).then(|| self.next_progress_token());
        let modern_http = self.session.is_http() && self.session.era() == Era::Modern;
        // Learn the tool's definition (outputSchema, x-mcp-header) before the call, so
        // that the call's answer stays the last message of the exchange. A tools/list
        // that the server refuses does not stop the call; it only skips those checks.
        let definition = if copts.skip_schema_check && !modern_http {
            None
        } else {
            match self.cached_definition(name) {
                Some(known) => known,
                None => {
                    // Boxed behind `dyn`: listing the tools happens once per session.
                    let listing: BoxFuture<'_, _> = Box::pin(self.definition_for_call(name));
                    listing.await?
                }
            }
        };
        let http_headers = match (&definition, modern_http) {
            (Some(tool), true) => param_headers(tool, &params["arguments"]),
            _ => Vec::new(),
        };
        let ropts = RequestOptions {
            timeout: copts.timeout,
            log_level: copts.log_level.clone(),
            progress_token: token.clone(),
            reset_on_progress: copts.reset_timeout_on_progress,
            max_total: copts.max_total,
            http_headers,
            fault: copts.fault,
            ..Default::default()
        };
        let start = Instant::now();
        // The params are kept only where the call may be sent again.
        let retry_params = modern_http.then(|| params.clone());
        // The common case, an answer read at once, runs without entering a future.
        let first = match self
            .session
            .start_request("tools/call", Some(&params), &ropts)
        {
            Ok(Started::Answered(first)) => first,
            Ok(Started::Waiting(pending)) => self.session.finish_request(pending).await,
            Err(e) => Err(e),
        };
        let mut outcome = match first {
            Ok(first) if needs_input(&first) => {
                self.input_rounds("tools/call", params, &ropts, first).await
            }
            other => other.map(|result| (result, 1)),
        };
        if let Some(params) = retry_params
            && let Err(e) = &outcome
            && e.rpc_error()
                .is_some_and(|r| r.code == codes::HEADER_MISMATCH)
        {
            // 2026-07-28: the server's idea of the tool's `x-mcp-header` parameters may have
            // changed since the list was read; read it again and send the call once more.
            // (Boxed: the rare path keeps its code out of every call's future.)
            outcome = Box::pin(self.call_again_with_new_headers(name, params, ropts)).await;
        }
        let elapsed = start.elapsed();
        let (progress, problems) = match &token {
            Some(t) => {
                let p = self.session.progress_of(t);
                self.session.retire_progress_token(t);
                p
            }
            None => (Vec::new(), Vec::new()),
        };
        let (result, rounds) = outcome?;
        let is_task = field(&result, "resultType").and_then(Value::as_str) == Some("task")
            || (copts.task_ttl.is_some() && field(&result, "task").is_some());
        if is_task {
            return self.task_call(result, progress, rounds, elapsed);
        }
        if !field(&result, "content").is_some_and(Value::is_array) {
            return Err(self.invalid(
                "tools/call",
                format!("tool {name}: `content` is missing or not an array"),
            ));
        }
        if let Some(t) = &token
            && !problems.is_empty()
        {
            return Err(self.session.error(ErrorKind::Progress {
                token: t.to_string(),
                reason: problems.join("; "),
            }));
        }
        let is_error = field(&result, "isError")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        if is_error {
            if !copts.allow_error {
                return Err(self.session.error(ErrorKind::ToolError {
                    tool: name.into(),
                    text: content_text(&result),
                }));
            }
        } else if !copts.skip_schema_check {
            self.check_structured(name, definition.as_deref(), &result)?;
        }
        Ok(ToolCall {
            result,
            is_error,
            is_task: false,
            progress,
            rounds,
            elapsed,
        })
    }

    /// A tool call answered with a task.
    #[inline(never)]
    pub(super) fn task_call(
        &self,
        result: Value,
        progress: Vec<Value>,
        rounds: usize,
        elapsed: Duration,
    ) -> Result<ToolCall, Error> {
        let task = result.get("task").unwrap_or(&result);
        if task.get("taskId").and_then(Value::as_str).is_none()
            || task.get("status").and_then(Value::as_str).is_none()
        {
            return Err(self.invalid(
                "tools/call",
                "a task result without string taskId and status",
            ));
        }
        Ok(ToolCall {
            result,
            is_error: false,
            is_task: true,
            progress,
            rounds,
            elapsed,
        })
    }

    /// A `tools/call` sent again with the `x-mcp-header` parameters of a fresh tool list.
    pub(super) async fn call_again_with_new_headers(
        &self,
        name: &str,
        params: Value,
        ropts: RequestOptions,
    ) -> Result<(Value, usize), Error> {
        *self.tools.lock().expect("tools lock") = None;
        let definition = self.tool_definition(name).await?;
        let ropts = RequestOptions {
            http_headers: definition
                .as_ref()
                .map(|tool| param_headers(tool, &params["arguments"]))
                .unwrap_or_default(),
            ..ropts
        };
        self.request_with_input("tools/call", params, &ropts).await
    }

    /// Starts a tool call without waiting (for cancellation tests); finish it with
    /// [`Session::wait`] or stop it with [`Session::cancel`].
    pub fn start_tool_call(
        &self,
        name: &str,
        arguments: Value,
        progress: bool,
    ) -> Result<(PendingRequest, Option<Value>), Error> {
        let token = progress.then(|| self.next_progress_token());
        let ropts = RequestOptions {
            progress_token: token.clone(),
            ..Default::default()
        };
        let p = self.session.send(
            "tools/call",
            Some(&json!({"name": name, "arguments": arguments})),
            &ropts,
        )?;
        Ok((p, token))
    }
}

/// The `Mcp-Param-*` headers of a 2026 `tools/call` over HTTP: one per argument whose
/// `inputSchema` property carries `x-mcp-header` (strings as they are, made header-safe;
/// integers in decimal; booleans as `true`/`false`; absent or null arguments left out).
pub fn param_headers(tool: &Value, arguments: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Some(props) = tool
        .get("inputSchema")
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
    else {
        return out;
    };
    for (prop, schema) in props {
        let Some(header) = schema.get("x-mcp-header").and_then(Value::as_str) else {
            continue;
        };
        let value = match arguments.get(prop) {
            Some(Value::String(s)) => crate::transport::http::header_value(s),
            Some(Value::Number(n)) if n.is_i64() || n.is_u64() => n.to_string(),
            Some(Value::Bool(b)) => b.to_string(),
            _ => continue,
        };
        out.push((format!("Mcp-Param-{header}"), value));
    }
    out
}

/// Why a tool's `x-mcp-header` annotations are invalid (2026), if they are: not a header
/// token, duplicated (case-insensitively), on a property that is not a string, integer or
/// boolean, or anywhere but directly on a top-level property.
pub fn invalid_param_headers(tool: &Value) -> Option<String> {
    pub(super) fn count(v: &Value) -> usize {
        match v {
            Value::Object(o) => o
                .iter()
                .map(|(k, v)| usize::from(k == "x-mcp-header") + count(v))
                .sum(),
            Value::Array(a) => a.iter().map(count).sum(),
            _ => 0,
        }
    }
    let schema = tool.get("inputSchema")?;
    let mut seen = HashSet::new();
    let mut direct = 0;
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (prop, ps) in props {
            let Some(h) = ps.get("x-mcp-header") else {
                continue;
            };
            direct += 1;
            let Some(h) = h.as_str() else {
                return Some(format!("{prop}: x-mcp-header is not a string"));
            };
            let tchar = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
            if h.is_empty() || !h.bytes().all(tchar) {
                return Some(format!("{prop}: x-mcp-header {h:?} is not a header token"));
            }
            if !seen.insert(h.to_ascii_lowercase()) {
                return Some(format!("{prop}: x-mcp-header {h:?} is used twice"));
            }
            match ps.get("type").and_then(Value::as_str) {
                Some("string" | "integer" | "boolean") => {}
                other => {
                    return Some(format!(
                        "{prop}: x-mcp-header on a property of type {}",
                        other.unwrap_or("(none)")
                    ));
                }
            }
        }
    }
    if count(schema) > direct {
        return Some("x-mcp-header inside a nested schema (items, anyOf, $ref, …)".into());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    pub(super) fn x_mcp_header_rules() {
        let tool = |props: Value| json!({"name": "t", "inputSchema": {"type": "object", "properties": props}});
        let good = tool(
            json!({"region": {"type": "string", "x-mcp-header": "Region"}, "n": {"type": "integer", "x-mcp-header": "N"}, "q": {"type": "string"}}),
        );
        assert_eq!(invalid_param_headers(&good), None);
        let headers = param_headers(&good, &json!({"region": "eu west", "n": 3, "q": "x"}));
        assert_eq!(
            headers,
            vec![
                ("Mcp-Param-Region".to_string(), "eu west".to_string()),
                ("Mcp-Param-N".to_string(), "3".to_string())
            ]
        );
        assert_eq!(
            param_headers(&good, &json!({"region": "é"}))[0].1,
            "=?base64?w6k=?="
        );
        for bad in [
            json!({"a": {"type": "string", "x-mcp-header": ""}}),
            json!({"a": {"type": "string", "x-mcp-header": "Bad Name"}}),
            json!({"a": {"type": "number", "x-mcp-header": "A"}}),
            json!({"a": {"type": "string", "x-mcp-header": "A"}, "b": {"type": "string", "x-mcp-header": "a"}}),
            json!({"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}),
        ] {
            assert!(invalid_param_headers(&tool(bad.clone())).is_some(), "{bad}");
        }
    }
}
