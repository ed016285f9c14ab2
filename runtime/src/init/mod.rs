//! `mcpr init`: a starter `.mcpr` suite from a live server. Every tool is called with
//! arguments made from its `inputSchema` ([`example::arguments`]), each call in a session of
//! its own as `mcpr run` runs each test, twice: all tools in the file's order, then all of
//! them again in the reverse order with another client connected, so that what one tool's
//! call does to the server's state, and what other clients do, show up as values that
//! changed. Every resource is read and every prompt got (one
//! session, in the order of the file). Each test expects what the server did: success, a
//! tool error, or a JSON-RPC error and its code; a tool that succeeded both times is also
//! expected to answer the values that were the same both times ([`expect::derive`]). A call
//! that timed out or broke the session is written as a skipped test that says why.
//! [`write::suite`] prints the file.

pub mod example;
pub mod expect;
pub mod write;

use serde_json::{Value, json};

use crate::adhoc::AdhocOptions;
use crate::client::{CallOptions, Client, content_text};
use crate::error::{Error, ErrorKind};
use crate::session::{ClientBehaviour, SessionConfig};
use crate::surface::Surface;

/// Most resources read and prompts got (the rest are named in a comment).
pub const MAX_READS: usize = 25;

/// What one request did when init made it.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// A result (without `isError`).
    Succeeded,
    /// A tool result with `isError: true`, with its text.
    ToolError(String),
    /// A JSON-RPC error.
    RpcError {
        /// Its code.
        code: i64,
        /// Its message.
        message: String,
    },
    /// No outcome a test can expect again (a timeout, a broken session): the reason.
    Skipped(String),
}

/// What a test does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// `Call tool`.
    Tool,
    /// `Read resource`.
    Resource,
    /// `Get prompt`.
    Prompt,
}

/// One observed request: a test of the starter suite.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    /// What it does.
    pub action: Action,
    /// The tool or prompt name, or the resource URI.
    pub name: String,
    /// Arguments (tools, prompts): an object.
    pub arguments: Value,
    /// What happened (the first time).
    pub outcome: Outcome,
    /// The tool's results, one per call, when every call succeeded (for [`expect::derive`]).
    pub results: Vec<Value>,
}

/// Everything a starter suite is made from.
#[derive(Debug, Clone, PartialEq)]
pub struct Starter {
    /// `serverInfo.name`.
    pub server: String,
    /// The protocol version the sessions spoke.
    pub protocol: String,
    /// True when it was pinned (`--protocol`) rather than negotiated.
    pub pinned: bool,
    /// The tests, tools first (by name), then resources (by URI), then prompts (by name).
    pub checks: Vec<Check>,
    /// The resource templates (not read: their variables need real values).
    pub templates: Vec<String>,
    /// What was left out and why (one line each).
    pub left_out: Vec<String>,
}

/// The client's declarations in every session: those of `mcpr run` for a suite without a
/// `Client behavior:` block (some servers list tools by the client's capabilities, so the
/// surface is listed with them too: [`crate::surface::fetch_with`]).
pub fn behaviour() -> ClientBehaviour {
    crate::exec::client_behaviour(None)
}

fn config(opts: &AdhocOptions) -> SessionConfig {
    SessionConfig {
        behaviour: behaviour(),
        ..opts.session_config()
    }
}

/// A name the `.mcpr` file can quote (`"…"` or `'…'`, on one line).
pub fn quotable(s: &str) -> bool {
    let both_quotes = s.contains('"') && s.contains('\'');
    !(both_quotes || s.contains(['\n', '\r']) || s.contains("${"))
}

/// Calls, reads and gets everything of `s` (listed with [`behaviour`]) once.
pub async fn observe(opts: &AdhocOptions, s: Surface) -> Result<Starter, Error> {
    let mut left_out = Vec::new();
    let mut checks = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    let mut tools: Vec<&Value> = s.tools.iter().collect();
    tools.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    let mut protocol = String::new();
    let mut calls: Vec<(String, Value)> = Vec::new();
    for t in tools {
        let Some(name) = t["name"]
            .as_str()
            .filter(|n| quotable(n) && seen.insert(n.to_string()))
        else {
            left_out.push(format!(
                "tool {}: its name cannot be written in a test (or is listed twice)",
                t["name"]
            ));
            continue;
        };
        let arguments = example::arguments(t.get("inputSchema"));
        if crate::values::mentions_template(&arguments) {
            left_out.push(format!(
                "tool {name}: its example arguments hold `${{`, which a suite reads as a reference"
            ));
            continue;
        }
        calls.push((name.to_string(), arguments));
    }
    // The first round in the file's order; the second in the reverse order, so that a
    // value that depends on what the other tools did to the server's state changes.
    let mut first = Vec::with_capacity(calls.len());
    for (name, arguments) in &calls {
        let (outcome, result, version) = call_once(opts, name, arguments).await?;
        protocol = version;
        first.push((outcome, result));
    }
    // Another client stays connected through the second round, as other tests are under
    // `mcpr run --jobs N`: a value that counts the server's clients or streams (one HTTP
    // server serves every test) changes too.
    let mut second: Vec<Option<Value>> = vec![None; calls.len()];
    if first.iter().any(|(o, _)| *o == Outcome::Succeeded) {
        let neighbour = Client::connect_to(opts.target(), config(opts)).await?;
        let mut listen: crate::exec::Listen = None;
        crate::exec::open_at_start(&neighbour, &mut listen).await;
        for (i, (name, arguments)) in calls.iter().enumerate().rev() {
            if first[i].0 == Outcome::Succeeded {
                let (outcome, result, _) = call_once(opts, name, arguments).await?;
                second[i] = result.filter(|_| outcome == Outcome::Succeeded);
            }
        }
        neighbour.close().await;
    }
    for (((name, arguments), (outcome, result)), again) in calls.into_iter().zip(first).zip(second)
    {
        let results = match (result, again) {
            (Some(a), Some(b)) => vec![a, b],
            _ => Vec::new(),
        };
        checks.push(Check {
            action: Action::Tool,
            name,
            arguments,
            outcome,
            results,
        });
    }
    let mut uris: Vec<&str> = s
        .resources
        .iter()
        .filter_map(|r| r["uri"].as_str())
        .collect();
    uris.sort();
    uris.dedup();
    let mut prompts: Vec<&Value> = s.prompts.iter().filter(|p| p["name"].is_string()).collect();
    prompts.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    prompts.dedup_by(|a, b| a["name"] == b["name"]);
    if !uris.is_empty() || !prompts.is_empty() {
        let client = Client::connect_to(opts.target(), config(opts)).await?;
        protocol = client.session().protocol_version().to_string();
        read_all(&client, &uris, &prompts, opts, &mut checks, &mut left_out).await;
        client.close().await;
    }
    if protocol.is_empty() {
        let client = Client::connect_to(opts.target(), config(opts)).await?;
        protocol = client.session().protocol_version().to_string();
        client.close().await;
    }
    let mut templates: Vec<String> = s
        .resource_templates
        .iter()
        .filter_map(|t| t["uriTemplate"].as_str().map(str::to_string))
        .collect();
    templates.sort();
    Ok(Starter {
        server: s.server,
        protocol,
        pinned: opts.protocol.is_some(),
        checks,
        templates,
        left_out,
    })
}

async fn read_all(
    client: &Client,
    uris: &[&str],
    prompts: &[&Value],
    opts: &AdhocOptions,
    checks: &mut Vec<Check>,
    left_out: &mut Vec<String>,
) {
    for uri in uris.iter().take(MAX_READS) {
        if !quotable(uri) {
            left_out.push(format!(
                "resource {uri}: its URI cannot be written in a test"
            ));
            continue;
        }
        let outcome = match client.read_resource(uri).await {
            Ok(_) => Outcome::Succeeded,
            Err(e) => failed(&e, opts),
        };
        checks.push(Check {
            action: Action::Resource,
            name: uri.to_string(),
            arguments: json!({}),
            outcome,
            results: Vec::new(),
        });
    }
    if uris.len() > MAX_READS {
        left_out.push(format!(
            "{} more resources (only the first {MAX_READS} are read)",
            uris.len() - MAX_READS
        ));
    }
    for p in prompts.iter().take(MAX_READS) {
        let name = p["name"].as_str().unwrap_or_default();
        if !quotable(name) {
            left_out.push(format!(
                "prompt {name}: its name cannot be written in a test"
            ));
            continue;
        }
        let mut arguments = serde_json::Map::new();
        for a in p["arguments"].as_array().into_iter().flatten() {
            if a["required"] == json!(true)
                && let Some(n) = a["name"].as_str()
            {
                arguments.insert(n.to_string(), json!("example"));
            }
        }
        let arguments = Value::Object(arguments);
        let given = (!arguments.as_object().is_some_and(serde_json::Map::is_empty))
            .then(|| arguments.clone());
        let outcome = match client.get_prompt(name, given).await {
            Ok(_) => Outcome::Succeeded,
            Err(e) => failed(&e, opts),
        };
        checks.push(Check {
            action: Action::Prompt,
            name: name.to_string(),
            arguments,
            outcome,
            results: Vec::new(),
        });
    }
    if prompts.len() > MAX_READS {
        left_out.push(format!(
            "{} more prompts (only the first {MAX_READS} are got)",
            prompts.len() - MAX_READS
        ));
    }
}

/// One call of a tool in a session of its own: what happened, the result when there was
/// one, and the protocol version the session spoke.
async fn call_once(
    opts: &AdhocOptions,
    name: &str,
    arguments: &Value,
) -> Result<(Outcome, Option<Value>, String), Error> {
    let client = Client::connect_to(opts.target(), config(opts)).await?;
    let protocol = client.session().protocol_version().to_string();
    // As a test's session starts under `mcpr run` (a 2026 session listens for the list
    // changes the server announces), so that the server answers as it will then.
    let mut listen: crate::exec::Listen = None;
    crate::exec::open_at_start(&client, &mut listen).await;
    let copts = CallOptions {
        timeout: Some(opts.timeout),
        allow_error: true,
        ..CallOptions::default()
    };
    let (outcome, result) = match client.call_tool(name, arguments.clone(), &copts).await {
        Ok(call) if call.is_error => (Outcome::ToolError(content_text(&call.result)), None),
        Ok(call) => (Outcome::Succeeded, Some(call.result)),
        Err(e) => (failed(&e, opts), None),
    };
    client.close().await;
    Ok((outcome, result, protocol))
}

/// What a failed request becomes: a JSON-RPC error to expect, or a reason to skip.
fn failed(e: &Error, opts: &AdhocOptions) -> Outcome {
    if let Some(rpc) = e.rpc_error() {
        return Outcome::RpcError {
            code: rpc.code,
            message: rpc.message.clone(),
        };
    }
    match &e.kind {
        ErrorKind::Timeout { .. } => Outcome::Skipped(format!(
            "no answer within {} when mcpr init called it",
            crate::error::fmt_duration(opts.timeout)
        )),
        kind => Outcome::Skipped(format!("{} when mcpr init called it: {kind}", e.code())),
    }
}
