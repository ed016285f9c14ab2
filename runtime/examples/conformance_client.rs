//! The adapter between the official MCP conformance harness and mcpr's client
//! (`conformance client --command …`, see `conformance-tests/official/`).
//!
//! The harness starts a scenario server, then runs this program with the server URL as the
//! last argument, the scenario name in `MCP_CONFORMANCE_SCENARIO`, the protocol version to
//! speak in `MCP_CONFORMANCE_PROTOCOL_VERSION` (a handshake-era version runs `initialize`,
//! `2026-07-28` the stateless lifecycle) and, for some scenarios, data in
//! `MCP_CONFORMANCE_CONTEXT`. It grades what the server saw; this program does what a user
//! of mcpr would ask for in that situation, through the same `Client` that `mcpr run` uses.
//!
//! For the `auth/*` scenarios the HTTP target gets the OAuth client of `mcpr run` (the
//! settings a user would give: see `oauth_settings`); the harness grades the OAuth flow
//! its authorization server and MCP server saw.
//!
//! Exit status: 0 when every step worked, 1 when one failed (the message on stderr), 2 for
//! a usage error.

use std::time::Duration;

use mcpr_compiler::ir::OAuthGrant;
use mcpr_runtime::auth::settings::IdpConfig;
use mcpr_runtime::auth::{Authorizer, OAuthConfig};
use mcpr_runtime::session::{
    ClientBehaviour, ElicitationAnswer, ProtocolChoice, Root, SamplingAnswer, SessionConfig,
};
use mcpr_runtime::transport::http::HttpConfig;
use mcpr_runtime::{CallOptions, Client};
use serde_json::{Map, Value, json};

/// What the adapter does for one scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Plan {
    /// Connect (the handshake or the first stateless request) and disconnect.
    Connect,
    /// List tools and nothing else (a client must not fetch a network `$ref`).
    ListTools,
    /// Call `json_schema_echo` with the focal tool's `inputSchema` exactly as received.
    EchoSchema,
    /// List skills without loading any (no file may be read ahead of need).
    ListSkills,
    /// List skills and load each one: every file read is verified (size, digest,
    /// frontmatter) before the next is read.
    LoadSkills,
    /// Use everything the server offers: call every tool (with the context's arguments
    /// when it names the tool), read every resource, get every prompt.
    Exercise,
}

fn plan(scenario: &str) -> Plan {
    match scenario {
        "initialize" => Plan::Connect,
        "json-schema-ref-no-deref" | "request-metadata" => Plan::ListTools,
        "json-schema-2020-12-preservation" => Plan::EchoSchema,
        "sep-2640-client-no-prefetch" => Plan::ListSkills,
        s if s.starts_with("sep-2640-client-verify-") => Plan::LoadSkills,
        _ => Plan::Exercise,
    }
}

/// The client's own Client ID Metadata Document URL (the harness accepts it without
/// fetching it): what a user of mcpr gives as `clientMetadataUrl`.
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// The OAuth settings a user of mcpr would give for an `auth/*` scenario: the client
/// metadata URL, the pre-registered client the context names, and the grant the
/// extension scenarios are about (client credentials, the enterprise identity assertion,
/// a workload identity JWT). `None` for the other scenarios.
fn oauth_settings(scenario: &str, context: &Value) -> Option<OAuthConfig> {
    if !scenario.starts_with("auth/") {
        return None;
    }
    let text = |k: &str| context.get(k).and_then(Value::as_str).map(str::to_string);
    let mut c = OAuthConfig {
        client_metadata_url: Some(CLIENT_METADATA_URL.into()),
        client_id: text("client_id"),
        client_secret: text("client_secret"),
        token_cache: false,
        timeout: Duration::from_secs(10),
        ..OAuthConfig::default()
    };
    match scenario {
        "auth/client-credentials-jwt" | "auth/client-credentials-basic" => {
            c.grant = OAuthGrant::ClientCredentials;
            c.private_key = text("private_key_pem");
        }
        "auth/enterprise-managed-authorization" => {
            c.grant = OAuthGrant::IdentityAssertion;
            c.idp = Some(IdpConfig {
                id_token: text("idp_id_token").unwrap_or_default(),
                token_endpoint: text("idp_token_endpoint"),
                issuer: text("idp_issuer"),
                client_id: text("idp_client_id"),
                client_secret: None,
            });
        }
        "auth/wif-jwt-bearer" => {
            c.grant = OAuthGrant::JwtBearer;
            c.assertion = text("valid_jwt");
        }
        _ => {}
    }
    Some(c)
}

/// Arguments for a tool made from its input schema: numbers 2, 3, …; booleans `true`;
/// strings from `default`, the first `enum` value, or `"mcpr"`.
fn arguments(tool: &Value) -> Value {
    let mut args = Map::new();
    let mut n = 2;
    if let Some(props) = tool
        .pointer("/inputSchema/properties")
        .and_then(Value::as_object)
    {
        for (name, schema) in props {
            if let Some(d) = schema.get("default") {
                args.insert(name.clone(), d.clone());
                continue;
            }
            if let Some(first) = schema
                .get("enum")
                .and_then(Value::as_array)
                .and_then(|e| e.first())
            {
                args.insert(name.clone(), first.clone());
                continue;
            }
            let v = match schema.get("type").and_then(Value::as_str) {
                Some("number" | "integer") => {
                    n += 1;
                    json!(n - 1)
                }
                Some("boolean") => json!(true),
                Some("string") => json!("mcpr"),
                _ => continue,
            };
            args.insert(name.clone(), v);
        }
    }
    Value::Object(args)
}

/// The arguments the harness asks for, by tool name (`MCP_CONFORMANCE_CONTEXT.toolCalls`).
fn context_calls(context: &Value) -> Vec<(String, Value)> {
    context
        .get("toolCalls")
        .and_then(Value::as_array)
        .map(|calls| {
            calls
                .iter()
                .filter_map(|c| {
                    Some((
                        c.get("name")?.as_str()?.to_string(),
                        c.get("arguments").cloned().unwrap_or_else(|| json!({})),
                    ))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn say(what: impl AsRef<str>) {
    eprintln!("conformance_client: {}", what.as_ref());
}

async fn exercise(client: &Client, context: &Value) -> Result<(), String> {
    let tools = client.list_tools().await.map_err(|e| e.to_string())?;
    say(format!(
        "tools/list: {}",
        tools
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect::<Vec<_>>()
            .join(", ")
    ));
    let opts = CallOptions {
        allow_error: true,
        ..Default::default()
    };
    let asked = context_calls(context);
    let calls: Vec<(String, Value)> = if asked.is_empty() {
        tools
            .iter()
            .filter_map(|t| Some((t["name"].as_str()?.to_string(), arguments(t))))
            .collect()
    } else {
        asked
    };
    for (name, args) in calls {
        let r = client
            .call_tool(&name, args, &opts)
            .await
            .map_err(|e| e.to_string())?;
        say(format!(
            "tools/call {name} ({} round(s)) -> {}",
            r.rounds,
            mcpr_runtime::client::content_text(&r.result)
        ));
    }
    if client.server_has(&["resources"]) {
        for r in client.list_resources().await.map_err(|e| e.to_string())? {
            if let Some(uri) = r["uri"].as_str() {
                client.read_resource(uri).await.map_err(|e| e.to_string())?;
                say(format!("resources/read {uri}"));
            }
        }
    }
    if client.server_has(&["prompts"]) {
        for p in client.list_prompts().await.map_err(|e| e.to_string())? {
            if let Some(name) = p["name"].as_str() {
                let mut args = Map::new();
                for a in p["arguments"].as_array().into_iter().flatten() {
                    if let Some(an) = a["name"].as_str() {
                        args.insert(an.to_string(), json!("mcpr"));
                    }
                }
                client
                    .get_prompt(name, Some(Value::Object(args)))
                    .await
                    .map_err(|e| e.to_string())?;
                say(format!("prompts/get {name}"));
            }
        }
    }
    Ok(())
}

async fn run(url: String, scenario: &str, version: Option<String>) -> Result<(), String> {
    let plan = plan(scenario);
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or(Value::Null);
    let mut http = HttpConfig::new(url.clone());
    if let Some(oauth) = oauth_settings(scenario, &context) {
        let auth = Authorizer::new(&url, oauth, &Default::default()).map_err(|e| e.to_string())?;
        http.auth = Some(std::sync::Arc::new(auth));
    }
    let behaviour = ClientBehaviour {
        roots: Some(vec![Root {
            uri: "file:///tmp".into(),
            name: None,
        }]),
        sampling: Some(SamplingAnswer::default()),
        elicitation: Some(ElicitationAnswer {
            action: "accept".into(),
            content: Some(json!({})),
            url_mode: false,
        }),
        ..ClientBehaviour::default()
    };
    let config = SessionConfig {
        request_timeout: Duration::from_secs(20),
        connect_timeout: Duration::from_secs(20),
        protocol: version.map_or(ProtocolChoice::Auto, ProtocolChoice::Pinned),
        behaviour,
        ..SessionConfig::default()
    };
    let client = Client::connect_http(http, config)
        .await
        .map_err(|e| e.to_string())?;
    say(format!(
        "connected: protocol {} ({:?} era)",
        client.session().protocol_version(),
        client.session().era()
    ));
    let outcome = async {
        match plan {
            Plan::Connect => Ok(()),
            Plan::ListTools => {
                let tools = client.list_tools().await.map_err(|e| e.to_string())?;
                say(format!("tools/list: {} tool(s)", tools.len()));
                Ok(())
            }
            Plan::EchoSchema => {
                let tools = client.list_tools().await.map_err(|e| e.to_string())?;
                let focal = tools
                    .iter()
                    .find(|t| t["name"] == "json_schema_2020_12_tool")
                    .ok_or("the server lists no json_schema_2020_12_tool")?;
                let args = json!({"schema": focal["inputSchema"].clone()});
                let opts = CallOptions {
                    allow_error: true,
                    ..Default::default()
                };
                client
                    .call_tool("json_schema_echo", args, &opts)
                    .await
                    .map_err(|e| e.to_string())?;
                say("json_schema_echo called with the focal inputSchema as received");
                Ok(())
            }
            Plan::ListSkills => {
                let skills = client.skills_list().await.map_err(|e| e.to_string())?;
                say(format!(
                    "skills/list: {} skill(s), none loaded",
                    skills.len()
                ));
                Ok(())
            }
            Plan::LoadSkills => {
                let skills = client.skills_list().await.map_err(|e| e.to_string())?;
                let mut rejected = Vec::new();
                for s in &skills {
                    match client.verify_skill(s).await {
                        Ok(n) => say(format!("skill {} loaded: {n} file(s) verified", s["uri"])),
                        Err(e) => {
                            say(format!("skill {} rejected: {e}", s["uri"]));
                            rejected.push(e.to_string());
                        }
                    }
                }
                if rejected.is_empty() {
                    Ok(())
                } else {
                    Err(format!("{} skill(s) failed verification", rejected.len()))
                }
            }
            Plan::Exercise => exercise(&client, &context).await,
        }
    }
    .await;
    let violations = client.session().violations();
    for v in &violations {
        say(format!("noted {}: {}", v.code, v.message));
    }
    client.close().await;
    outcome
}

fn main() {
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: conformance_client SERVER_URL");
        std::process::exit(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let version = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION")
        .ok()
        .filter(|v| !v.is_empty());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    if let Err(e) = rt.block_on(run(url, &scenario, version)) {
        say(e);
        std::process::exit(1);
    }
}
