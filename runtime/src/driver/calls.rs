//! The requests made of an open server: lists, tool calls, reads, notification waits,
//! lint, and tool snapshots with their diff. Each takes its typed params and answers
//! with the JSON docs/driver.md gives, or a [`Failure`].

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::servers::Open;
use super::wire::{self, Failure};
use crate::client::CallOptions;
use crate::lint::{self, Level};
use crate::session::Match;
use crate::surface::{self, Surface};
use crate::toolsnap::{self, diff, render};

/// Works on a request to `server`.
pub(crate) async fn call(server: &Open, method: &str, params: Value) -> Result<Value, Failure> {
    let client = &server.client;
    let fail = |e: crate::error::Error| server.failure(&e);
    match method {
        "listTools" | "listResources" | "listResourceTemplates" | "listPrompts" => {
            let p: Only = typed(method, params)?;
            let (rpc, key) = match method {
                "listTools" => ("tools/list", "tools"),
                "listResources" => ("resources/list", "resources"),
                "listResourceTemplates" => ("resources/templates/list", "resourceTemplates"),
                _ => ("prompts/list", "prompts"),
            };
            let items = client
                .list_all(rpc, key, None, p.timeout())
                .await
                .map_err(fail)?;
            Ok(json!({ key: items }))
        }
        "callTool" => {
            let p: CallTool = typed(method, params)?;
            // `isError` results come back here either way, so that a refused one can be
            // handed to the binding with the failure.
            let options = CallOptions {
                timeout: p.timeout_ms.map(Duration::from_millis),
                allow_error: true,
                // The level travels with the request only in 2026-07-28; before, `open`
                // set it once with `logging/setLevel`.
                log_level: server
                    .log_level
                    .clone()
                    .filter(|_| client.session().era() == crate::protocol::version::Era::Modern),
                ..CallOptions::default()
            };
            let call = client
                .call_tool(&p.name, p.arguments.unwrap_or_else(|| json!({})), &options)
                .await
                .map_err(fail)?;
            if call.is_error && !p.allow_error {
                let err = client.session().error(crate::error::ErrorKind::ToolError {
                    tool: p.name.clone(),
                    text: text_of(&call.result),
                });
                return Err(fail(err).with("result", call.result));
            }
            Ok(json!({"result": call.result}))
        }
        "readResource" => {
            let p: ReadResource = typed(method, params)?;
            let within = p.timeout_ms.map(Duration::from_millis);
            let result = client
                .read_resource_within(&p.uri, within)
                .await
                .map_err(fail)?;
            Ok(json!({ "result": result }))
        }
        "getPrompt" => {
            let p: GetPrompt = typed(method, params)?;
            let arguments = (!p.arguments.is_empty()).then(|| json!(p.arguments));
            let within = p.timeout_ms.map(Duration::from_millis);
            let result = client
                .get_prompt_within(&p.name, arguments, within)
                .await
                .map_err(fail)?;
            Ok(json!({ "result": result }))
        }
        "stderr" => {
            let _: ServerOnly = typed(method, params)?;
            let tail = client.session().stderr_tail();
            Ok(json!({"stderrTail": wire::tail_lines(&tail, &server.redactor)}))
        }
        "waitNotification" => {
            let p: WaitNotification = typed(method, params)?;
            let filter: Vec<Match> = p
                .r#match
                .into_iter()
                .map(|(path, value)| Match::dotted(&path, value))
                .collect();
            let timeout = p
                .timeout_ms
                .map(Duration::from_millis)
                .unwrap_or_else(|| client.session().request_timeout());
            let n = client
                .session()
                .wait_notification(&p.method, &filter, timeout)
                .await
                .map_err(fail)?;
            Ok(json!({"method": n.method, "params": n.params}))
        }
        "lint" => {
            let p: Lint = typed(method, params)?;
            if let Some(unknown) = p.ignore.iter().find(|c| lint::rule_of(c).is_none()) {
                return Err(Failure::invalid(format!(
                    "lint: {unknown:?} is not a lint rule (MCP001 to MCP{:03})",
                    lint::RULES.len()
                )));
            }
            let ignore: Vec<String> = p
                .ignore
                .iter()
                .map(|c| c.trim().to_ascii_uppercase())
                .collect();
            let surface = listed(server).await?;
            let report = lint::lint(
                &surface,
                &lint::Options {
                    ignore: ignore.clone(),
                },
            );
            let mut out = lint::render::json(&report, p.fail_on, &ignore);
            out["text"] = json!(lint::render::human(&report));
            out["stdoutNoise"] = json!(noise(server));
            Ok(out)
        }
        "snapshot" => {
            let _: ServerOnly = typed(method, params)?;
            let snapshot = toolsnap::from_surface(&listed(server).await?);
            let text = toolsnap::to_text(&snapshot);
            Ok(json!({"snapshot": snapshot, "text": text}))
        }
        "diff" => {
            let p: Diff = typed(method, params)?;
            let old = toolsnap::parse(&p.snapshot).map_err(|e| {
                Failure::new(
                    "failed",
                    format!("diff: the snapshot is not a snapshot: {e}"),
                )
            })?;
            let new = toolsnap::from_surface(&listed(server).await?);
            let changes = diff::diff(&old, &new);
            let policy = render::Policy {
                strict: p.strict,
                allow_breaking: p.allow_breaking,
            };
            let name = p.name.as_deref().unwrap_or("snapshot");
            let mut out = render::json(&changes, name, policy);
            if let Some(list) = out["changes"].as_array_mut() {
                for (item, change) in list.iter_mut().zip(&changes) {
                    item["line"] = json!(render::line(change));
                }
            }
            out["text"] = json!(render::human(&changes, name, policy));
            Ok(out)
        }
        _ => Err(Failure::invalid(format!(
            "unknown method {method:?} (the methods: {})",
            super::METHODS.join(", ")
        ))),
    }
}

/// The text items of a tool result's content, joined by new lines.
fn text_of(result: &Value) -> String {
    result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|item| item["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Everything the server offers, for lint and snapshots.
async fn listed(server: &Open) -> Result<Surface, Failure> {
    surface::list(&server.client)
        .await
        .map_err(|e| server.failure(&e))
}

/// What the server printed on stdout that is not protocol, masked.
fn noise(server: &Open) -> Vec<String> {
    surface::stdout_noise(&server.client)
        .iter()
        .take(wire::NOISE_LINES)
        .map(|l| server.redactor.text(l))
        .collect()
}

fn typed<T: DeserializeOwned>(method: &str, params: Value) -> Result<T, Failure> {
    wire::params(method, params)
}

/// Params of the requests that take only the server and a deadline.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Only {
    #[allow(dead_code)]
    server: String,
    timeout_ms: Option<u64>,
}

impl Only {
    fn timeout(&self) -> Option<Duration> {
        self.timeout_ms.map(Duration::from_millis)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CallTool {
    #[allow(dead_code)]
    server: String,
    name: String,
    arguments: Option<Value>,
    #[serde(default)]
    allow_error: bool,
    timeout_ms: Option<u64>,
}

/// Params of the requests that take only the server (they make several requests, each
/// with the server's deadline).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ServerOnly {
    #[allow(dead_code)]
    server: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ReadResource {
    #[allow(dead_code)]
    server: String,
    uri: String,
    timeout_ms: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct GetPrompt {
    #[allow(dead_code)]
    server: String,
    name: String,
    #[serde(default)]
    arguments: BTreeMap<String, Value>,
    timeout_ms: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct WaitNotification {
    #[allow(dead_code)]
    server: String,
    method: String,
    #[serde(default)]
    r#match: BTreeMap<String, Value>,
    timeout_ms: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Lint {
    #[allow(dead_code)]
    server: String,
    #[serde(default)]
    ignore: Vec<String>,
    #[serde(default = "error_level")]
    fail_on: Level,
}

fn error_level() -> Level {
    Level::Error
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Diff {
    #[allow(dead_code)]
    server: String,
    snapshot: String,
    name: Option<String>,
    #[serde(default)]
    strict: bool,
    #[serde(default)]
    allow_breaking: bool,
}
