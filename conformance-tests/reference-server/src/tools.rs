//! The reference server's tools: their list (`tools/list`) and what calling each does,
//! including `notify`, which broadcasts list changes and resource updates.

use std::time::Duration;

use rmcp::ErrorData;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock,
    CreateMessageRequestParams, ElicitRequestParams, ErrorCode, LoggingLevel,
    LoggingMessageNotificationParam, ProgressNotificationParam,
};
use rmcp::service::{RequestContext, RoleServer, SubscriptionSink};
use serde_json::{Map, Value, json};

use super::{APP_URI, Reference, conv, input_required, is_modern, text_result};

/// Every tool (`conflict`: the drifted twin's two).
pub(crate) fn tools(conflict: bool) -> Vec<Value> {
    if conflict {
        let obj = |props: Value, required: &[&str]| json!({"type": "object", "properties": props, "required": required});
        return vec![
            json!({"name": "echo", "description": "Returns `text` unchanged.", "inputSchema": obj(json!({"text": {"type": "string"}}), &["text"])}),
            json!({"name": "add", "description": "Adds `a` and `b`; the sum is a string in structuredContent.sum.",
                   "inputSchema": obj(json!({"a": {"type": "number"}, "b": {"type": "number"}}), &["a", "b"]),
                   "outputSchema": obj(json!({"sum": {"type": "string"}}), &["sum"])}),
        ];
    }
    let obj = |props: Value, required: &[&str]| json!({"type": "object", "properties": props, "required": required});
    vec![
        json!({"name": "echo", "description": "Returns `text` unchanged.", "inputSchema": obj(json!({"text": {"type": "string"}}), &["text"]),
               "annotations": {"readOnlyHint": true}}),
        json!({"name": "add", "description": "Adds `a` and `b`; the sum is in structuredContent.sum.",
               "inputSchema": obj(json!({"a": {"type": "number"}, "b": {"type": "number"}}), &["a", "b"]),
               "outputSchema": obj(json!({"sum": {"type": "number"}}), &["sum"])}),
        json!({"name": "fail", "description": "Always fails with isError.", "inputSchema": obj(json!({"message": {"type": "string"}}), &[])}),
        json!({"name": "progress", "description": "Reports progress over `steps` steps (with a progressToken).",
               "inputSchema": obj(json!({"steps": {"type": "integer", "minimum": 0}, "delayMs": {"type": "integer", "minimum": 0}}), &["steps"])}),
        json!({"name": "sample", "description": "Asks the client to sample a message.", "inputSchema": obj(json!({"prompt": {"type": "string"}}), &[])}),
        json!({"name": "elicit", "description": "Asks the client for a name (form elicitation).", "inputSchema": obj(json!({"message": {"type": "string"}}), &[])}),
        json!({"name": "roots", "description": "Asks the client for its roots.", "inputSchema": obj(json!({"force": {"type": "boolean", "description": "Ask even a client that did not declare roots."}}), &[])}),
        json!({"name": "notify", "description": "Emits a notification on demand: kind tools | prompts | resources | updated (with uri).",
               "inputSchema": obj(json!({"kind": {"type": "string", "enum": ["tools", "prompts", "resources", "updated"]}, "uri": {"type": "string"}}), &["kind"])}),
        json!({"name": "log", "description": "Emits a log message at `level`.",
               "inputSchema": obj(json!({"level": {"type": "string"}, "message": {"type": "string"}}), &["message"])}),
        json!({"name": "slow", "description": "Sleeps `ms` milliseconds (cancellable).", "inputSchema": obj(json!({"ms": {"type": "integer", "minimum": 0}}), &["ms"])}),
        json!({"name": "long_task", "description": "Runs `ms` milliseconds; becomes a task when the client declares the tasks extension.",
               "inputSchema": obj(json!({"ms": {"type": "integer", "minimum": 0}}), &[]), "execution": {"taskSupport": "optional"}}),
        json!({"name": "ask_task", "description": "A task that needs the client's input (tasks extension only).", "inputSchema": obj(json!({}), &[]),
               "execution": {"taskSupport": "required"}}),
        json!({"name": "environment", "description": "Reports the working directory and the value of environment variable `name`.",
               "inputSchema": obj(json!({"name": {"type": "string"}}), &["name"])}),
        json!({"name": "regional", "description": "Echoes `text` with `region`, which travels in the Mcp-Param-Region header over 2026 HTTP.",
               "inputSchema": obj(json!({"region": {"type": "string", "x-mcp-header": "Region"}, "text": {"type": "string"}}), &["region", "text"])}),
        json!({"name": "app", "description": "Shows the reference MCP App.", "inputSchema": obj(json!({}), &[]),
               "_meta": {"ui": {"resourceUri": APP_URI, "visibility": ["model", "app"]}}}),
    ]
}

impl Reference {
    pub(super) async fn broadcast(
        &self,
        context: &RequestContext<RoleServer>,
        kind: &str,
        uri: Option<&str>,
    ) -> Result<String, ErrorData> {
        if is_modern(context) {
            // A subscription acknowledged a moment ago may not have its sink yet.
            for _ in 0..200 {
                if self.state.lock().expect("state lock").establishing == 0 {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            let sinks: Vec<SubscriptionSink> = self
                .state
                .lock()
                .expect("state lock")
                .listeners
                .iter()
                .map(|(_, sink)| sink.clone())
                .collect();
            let mut sent = 0;
            for sink in sinks {
                let r = match kind {
                    "tools" => sink.notify_tool_list_changed().await,
                    "prompts" => sink.notify_prompt_list_changed().await,
                    "resources" => sink.notify_resource_list_changed().await,
                    _ => {
                        sink.notify_resource_updated(uri.unwrap_or("fixture://status"))
                            .await
                    }
                };
                if r.is_ok() {
                    sent += 1;
                }
            }
            return Ok(format!("sent {kind} to {sent} subscription(s)"));
        }
        let peer = &context.peer;
        let r = match kind {
            "tools" => peer.notify_tool_list_changed().await,
            "prompts" => peer.notify_prompt_list_changed().await,
            "resources" => peer.notify_resource_list_changed().await,
            _ => {
                let uri = uri.unwrap_or("fixture://status").to_string();
                if !self
                    .session
                    .lock()
                    .expect("session lock")
                    .subscribed
                    .contains(&uri)
                {
                    return Ok(format!("{uri} has no subscriber; nothing sent"));
                }
                peer.notify_resource_updated(conv(json!({"uri": uri}))?)
                    .await
            }
        };
        r.map_err(|e| ErrorData::internal_error(format!("could not notify: {e}"), None))?;
        Ok(format!("sent {kind}"))
    }

    pub(super) async fn call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args: Map<String, Value> = request.arguments.clone().unwrap_or_default();
        let modern = is_modern(&context);
        let str_arg = |k: &str| args.get(k).and_then(Value::as_str).map(str::to_string);
        let u64_arg = |k: &str| args.get(k).and_then(Value::as_u64);
        let first =
            !std::mem::replace(&mut self.session.lock().expect("session lock").called, true);
        if first && self.flaky.as_ref().is_some_and(|f| f.take()) {
            return Err(ErrorData::internal_error(
                "flaky: the first tool call of this session fails",
                None,
            ));
        }
        if self.conflict && !matches!(request.name.as_ref(), "echo" | "add") {
            return Err(ErrorData::invalid_params(
                format!("Unknown tool: {}", request.name),
                None,
            ));
        }
        match request.name.as_ref() {
            "echo" => {
                let text = str_arg("text")
                    .ok_or_else(|| ErrorData::invalid_params("echo needs a string `text`", None))?;
                Ok(text_result(text).into())
            }
            "add" => {
                let (Some(a), Some(b)) = (
                    args.get("a").and_then(Value::as_f64),
                    args.get("b").and_then(Value::as_f64),
                ) else {
                    return Ok(CallToolResult::error(vec![ContentBlock::text(
                        "add needs numbers `a` and `b`",
                    )])
                    .into());
                };
                let sum = a + b;
                let sum_json = if sum.fract() == 0.0 && sum.abs() < 9.0e15 {
                    json!(sum as i64)
                } else {
                    json!(sum)
                };
                let structured = if self.conflict {
                    json!({"sum": sum_json.to_string()})
                } else {
                    json!({"sum": sum_json})
                };
                let mut r = CallToolResult::structured(structured.clone());
                r.content = vec![ContentBlock::text(structured.to_string())];
                Ok(r.into())
            }
            "fail" => {
                let msg = str_arg("message").unwrap_or_else(|| "the fail tool always fails".into());
                Ok(CallToolResult::error(vec![ContentBlock::text(msg)]).into())
            }
            "progress" => {
                let steps = u64_arg("steps").unwrap_or(3);
                let delay = u64_arg("delayMs").unwrap_or(5);
                if let Some(token) = context.meta.get_progress_token() {
                    let order: Vec<u64> = if self.breaks("progress") {
                        vec![1, 3, 2]
                    } else {
                        (1..=steps).collect()
                    };
                    for i in order {
                        tokio::time::sleep(Duration::from_millis(delay)).await;
                        let p: ProgressNotificationParam = conv(
                            json!({"progressToken": token, "progress": i, "total": steps, "message": format!("step {i} of {steps}")}),
                        )?;
                        context
                            .peer
                            .notify_progress(p)
                            .await
                            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                    }
                    if self.breaks("progress-late") {
                        // One more notification 20 ms after the result is sent.
                        let (peer, token) = (context.peer.clone(), token.clone());
                        tokio::spawn(async move {
                            tokio::time::sleep(Duration::from_millis(20)).await;
                            if let Ok(p) = conv::<ProgressNotificationParam>(
                                json!({"progressToken": token, "progress": steps + 1, "total": steps + 1}),
                            ) {
                                let _ = peer.notify_progress(p).await;
                            }
                        });
                    }
                }
                Ok(text_result(format!("done {steps} steps")).into())
            }
            "sample" => {
                let prompt = str_arg("prompt").unwrap_or_else(|| "Say hello".into());
                if modern {
                    if let Some(answer) = request
                        .input_responses
                        .as_ref()
                        .and_then(|r| r.get("sample"))
                    {
                        let text = answer
                            .get("content")
                            .and_then(|c| c.get("text"))
                            .and_then(Value::as_str)
                            .unwrap_or("");
                        return Ok(text_result(format!("sampled: {text}")).into());
                    }
                    return Ok(input_required(
                        "sample",
                        "sampling/createMessage",
                        sampling_params(&prompt),
                        "sample-1",
                    )?
                    .into());
                }
                let params: CreateMessageRequestParams = conv(sampling_params(&prompt))?;
                let result = context.peer.create_message(params).await.map_err(|e| {
                    ErrorData::internal_error(format!("sampling failed: {e}"), None)
                })?;
                let v = serde_json::to_value(&result).unwrap_or(Value::Null);
                let text = v
                    .get("content")
                    .and_then(|c| c.get("text"))
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                Ok(text_result(format!("sampled: {text}")).into())
            }
            "elicit" => {
                let message = str_arg("message").unwrap_or_else(|| "What is your name?".into());
                let answer = if modern {
                    match request
                        .input_responses
                        .as_ref()
                        .and_then(|r| r.get("elicit"))
                    {
                        Some(a) => a.clone(),
                        None => {
                            return Ok(input_required(
                                "elicit",
                                "elicitation/create",
                                elicitation_params(&message),
                                "elicit-1",
                            )?
                            .into());
                        }
                    }
                } else {
                    let params: ElicitRequestParams = conv(elicitation_params(&message))?;
                    let r = context.peer.create_elicitation(params).await.map_err(|e| {
                        ErrorData::internal_error(format!("elicitation failed: {e}"), None)
                    })?;
                    serde_json::to_value(&r).unwrap_or(Value::Null)
                };
                let action = answer.get("action").and_then(Value::as_str).unwrap_or("?");
                let name = answer
                    .get("content")
                    .and_then(|c| c.get("name"))
                    .and_then(Value::as_str)
                    .unwrap_or("");
                Ok(text_result(format!("elicitation {action}: {name}")).into())
            }
            "roots" => {
                let answer = if modern {
                    match request
                        .input_responses
                        .as_ref()
                        .and_then(|r| r.get("roots"))
                    {
                        Some(a) => a.clone(),
                        None => {
                            return Ok(input_required(
                                "roots",
                                "roots/list",
                                json!({}),
                                "roots-1",
                            )?
                            .into());
                        }
                    }
                } else {
                    // A server may ask only a client that declared roots (as the SDKs do);
                    // `force: true` asks anyway, to see the client refuse.
                    let declared = context
                        .client_capabilities()
                        .is_some_and(|c| c.roots.is_some());
                    if !declared && args.get("force") != Some(&json!(true)) {
                        return Err(ErrorData::new(
                            ErrorCode(-32021),
                            "the client did not declare the roots capability",
                            Some(json!({"requiredCapabilities": {"roots": {}}})),
                        ));
                    }
                    let r = context.peer.list_roots().await.map_err(|e| {
                        ErrorData::internal_error(format!("roots/list failed: {e}"), None)
                    })?;
                    serde_json::to_value(&r).unwrap_or(Value::Null)
                };
                let uris: Vec<String> = answer
                    .get("roots")
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(|r| {
                                r.get("uri").and_then(Value::as_str).map(str::to_string)
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                Ok(text_result(format!("roots: {}", uris.join(", "))).into())
            }
            "notify" => {
                let kind = str_arg("kind").unwrap_or_else(|| "tools".into());
                let uri = str_arg("uri");
                let text = self.broadcast(&context, &kind, uri.as_deref()).await?;
                Ok(text_result(text).into())
            }
            "log" => {
                let level = str_arg("level").unwrap_or_else(|| "info".into());
                let message = str_arg("message").unwrap_or_default();
                let threshold = if modern {
                    context.meta.log_level().map(|l| level_name(&l))
                } else {
                    Some(
                        self.session
                            .lock()
                            .expect("session lock")
                            .log_level
                            .as_ref()
                            .map(level_name)
                            .unwrap_or_else(|| "debug".into()),
                    )
                };
                let sent = match threshold {
                    Some(t) if level_rank(&level) >= level_rank(&t) => {
                        let p: LoggingMessageNotificationParam = conv(
                            json!({"level": level, "logger": "reference", "data": {"message": message}}),
                        )?;
                        context
                            .peer
                            .notify_logging_message(p)
                            .await
                            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                        true
                    }
                    _ => false,
                };
                Ok(text_result(if sent {
                    format!("logged at {level}")
                } else {
                    format!("not logged (level {level} below threshold or not requested)")
                })
                .into())
            }
            "slow" => {
                let ms = u64_arg("ms").unwrap_or(1000);
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_millis(ms)) => Ok(text_result(format!("slept {ms}ms")).into()),
                    _ = context.ct.cancelled() => Err(ErrorData::internal_error("cancelled", None)),
                }
            }
            "long_task" => {
                let ms = u64_arg("ms").unwrap_or(100);
                let wants_task = context
                    .client_capabilities()
                    .is_some_and(|c| c.supports_tasks());
                if !wants_task {
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                    return Ok(text_result(format!("finished after {ms}ms")).into());
                }
                let (id, entry) = self.new_task(None);
                let me = self.clone();
                let task_id = id.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                    let mut st = me.state.lock().expect("state lock");
                    if let Some(t) = st.tasks.get_mut(&task_id)
                        && t.status == "working"
                    {
                        t.status = "completed".into();
                        t.result = Some(
                            json!({"content": [{"type": "text", "text": format!("finished after {ms}ms")}], "isError": false}),
                        );
                    }
                });
                let mut v = self.task_value(&id, &entry);
                v["resultType"] = json!("task");
                Ok(CallToolResponse::Task(conv(v)?))
            }
            "ask_task" => {
                let wants_task = context
                    .client_capabilities()
                    .is_some_and(|c| c.supports_tasks());
                if !wants_task {
                    return Err(ErrorData::new(
                        ErrorCode(-32021),
                        "ask_task needs the tasks extension",
                        Some(
                            json!({"requiredCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}}),
                        ),
                    ));
                }
                let requests = json!({"name": {"method": "elicitation/create", "params": elicitation_params("Who is asking?")}});
                let (id, entry) = self.new_task(Some(requests));
                let mut v = self.task_value(&id, &entry);
                v["resultType"] = json!("task");
                Ok(CallToolResponse::Task(conv(v)?))
            }
            "regional" => {
                let region = str_arg("region").unwrap_or_default();
                let text = str_arg("text").unwrap_or_default();
                Ok(text_result(format!("{text}@{region}")).into())
            }
            "environment" => {
                let name = str_arg("name").unwrap_or_default();
                let cwd = std::env::current_dir()
                    .map(|d| d.display().to_string())
                    .unwrap_or_default();
                let value = std::env::var(&name).ok();
                Ok(
                    text_result(json!({"cwd": cwd, "name": name, "value": value}).to_string())
                        .into(),
                )
            }
            "app" => Ok(text_result(
                "The reference app is at ui://reference/app.html (text fallback).",
            )
            .into()),
            other if self.breaks("unknown-tool") => Err(ErrorData::internal_error(
                format!("Unknown tool: {other}"),
                None,
            )),
            other => Err(ErrorData::invalid_params(
                format!("Unknown tool: {other}"),
                None,
            )),
        }
    }
}

fn level_rank(level: &str) -> u8 {
    match level {
        "debug" => 0,
        "info" => 1,
        "notice" => 2,
        "warning" => 3,
        "error" => 4,
        "critical" => 5,
        "alert" => 6,
        "emergency" => 7,
        _ => 1,
    }
}

fn level_name(level: &LoggingLevel) -> String {
    serde_json::to_value(level)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| "info".into())
}

fn sampling_params(prompt: &str) -> Value {
    json!({"messages": [{"role": "user", "content": {"type": "text", "text": prompt}}], "maxTokens": 64})
}

fn elicitation_params(message: &str) -> Value {
    json!({"mode": "form", "message": message, "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}})
}
