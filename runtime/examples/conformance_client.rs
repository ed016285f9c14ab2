//! A client for the official MCP conformance harness (`conformance client --command …`):
//! it connects to the server URL given as the last argument over Streamable HTTP and,
//! depending on `MCP_CONFORMANCE_SCENARIO`, lists and calls the scenario's tools with
//! arguments made from their input schemas. Exit status 0 when every step worked.

use std::time::Duration;

use mcpr_runtime::session::{
    ClientBehaviour, ElicitationAnswer, Root, SamplingAnswer, SessionConfig,
};
use mcpr_runtime::transport::http::HttpConfig;
use mcpr_runtime::{CallOptions, Client};
use serde_json::{Map, Value, json};

/// Arguments for a tool made from its input schema (numbers 2, 3, …; strings "mcpr").
fn arguments(tool: &Value) -> Value {
    let mut args = Map::new();
    let mut n = 2;
    if let Some(props) = tool
        .pointer("/inputSchema/properties")
        .and_then(Value::as_object)
    {
        for (name, schema) in props {
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

async fn run(url: String, scenario: String) -> Result<(), String> {
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
        behaviour,
        ..SessionConfig::default()
    };
    let client = Client::connect_http(HttpConfig::new(url), config)
        .await
        .map_err(|e| e.to_string())?;
    let outcome = async {
        if scenario != "initialize" {
            let tools = client.list_tools().await.map_err(|e| e.to_string())?;
            for tool in &tools {
                let name = tool["name"].as_str().unwrap_or_default();
                let opts = CallOptions {
                    allow_error: true,
                    ..Default::default()
                };
                let r = client
                    .call_tool(name, arguments(tool), &opts)
                    .await
                    .map_err(|e| e.to_string())?;
                eprintln!(
                    "conformance_client: {name} -> {}",
                    mcpr_runtime::client::content_text(&r.result)
                );
            }
        }
        Ok::<(), String>(())
    }
    .await;
    client.close().await;
    outcome
}

fn main() {
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: conformance_client SERVER_URL");
        std::process::exit(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    if let Err(e) = rt.block_on(run(url, scenario)) {
        eprintln!("conformance_client: {e}");
        std::process::exit(1);
    }
}
