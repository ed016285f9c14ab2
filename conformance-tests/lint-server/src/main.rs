//! `mcpr-lint-server MODE`: a small MCP stdio server (2025-11-25 handshake, `server/discover`
//! refused) that only lists definitions, for the tests of `mcpr lint`, `mcpr snapshot` and
//! `mcpr diff`.
//!
//! Modes:
//! - `defects`: one definition per lint rule MCP001–MCP030 that breaks that rule alone;
//! - `clean`: tools, resources, a template and prompts with no finding at all;
//! - `v1`, `v2`: one server in two versions; v2 makes a known list of breaking and
//!   compatible changes (tools are listed two per page);
//! - `pollute`: `clean`, after a banner on stdout that is not JSON-RPC (and a line on stderr);
//! - `crash`: writes `fatal: database not configured` on stderr and exits with status 3.

mod defs;

use std::io::{BufRead, Write};

use serde_json::{Value, json};

const MODES: &[&str] = &["defects", "clean", "v1", "v2", "pollute", "crash"];

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_default();
    if !MODES.contains(&mode.as_str()) {
        eprintln!(
            "usage: mcpr-lint-server MODE   (modes: {})",
            MODES.join(", ")
        );
        std::process::exit(2);
    }
    match mode.as_str() {
        "crash" => {
            eprintln!("lint-server: connecting to the database");
            eprintln!("fatal: database not configured");
            std::process::exit(3);
        }
        "pollute" => {
            eprintln!("lint-server: debug output goes to stdout by mistake");
            println!("lint-server v0.1 starting (this banner is not JSON-RPC)");
        }
        _ => {}
    }
    let listing = defs::listing(&mode);
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let Some(id) = msg.get("id").cloned() else {
            continue; // a notification
        };
        let method = msg["method"].as_str().unwrap_or_default();
        let reply = match answer(&listing, method, &msg["params"]) {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err((code, message)) => {
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
            }
        };
        if writeln!(out, "{reply}").and_then(|()| out.flush()).is_err() {
            break;
        }
    }
}

/// The result of one request, or a JSON-RPC error.
fn answer(listing: &defs::Listing, method: &str, params: &Value) -> Result<Value, (i64, String)> {
    match method {
        "initialize" => {
            let asked = params["protocolVersion"].as_str().unwrap_or_default();
            let version =
                if ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"].contains(&asked) {
                    asked
                } else {
                    "2025-11-25"
                };
            Ok(json!({
                "protocolVersion": version,
                "capabilities": {"tools": {}, "resources": {}, "prompts": {}},
                "serverInfo": {"name": listing.name, "version": "0.1.0"},
            }))
        }
        "ping" => Ok(json!({})),
        "tools/list" => Ok(page(&listing.tools, "tools", listing.page_size, params)),
        "resources/list" => Ok(json!({"resources": listing.resources})),
        "resources/templates/list" => Ok(json!({"resourceTemplates": listing.templates})),
        "prompts/list" => Ok(json!({"prompts": listing.prompts})),
        other => Err((-32601, format!("method not found: {other}"))),
    }
}

/// One page of a list: `size` items from the cursor on (everything when `size` is 0).
fn page(items: &[Value], key: &str, size: usize, params: &Value) -> Value {
    if size == 0 {
        return json!({ key: items });
    }
    let start: usize = params["cursor"]
        .as_str()
        .and_then(|c| c.strip_prefix("from-"))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
        .min(items.len());
    let end = (start + size).min(items.len());
    let mut result = json!({ key: items[start..end] });
    if end < items.len() {
        result["nextCursor"] = json!(format!("from-{end}"));
    }
    result
}
