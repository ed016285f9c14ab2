//! Hostile Streamable HTTP servers: each fault ends in its named failure within the
//! deadline plus 2 s, and the session stays usable or fails cleanly.

mod common;

use std::time::{Duration, Instant};

use common::HttpServer;
use mcpr_runtime::session::{ClientBehaviour, ProtocolChoice, SessionConfig};
use mcpr_runtime::transport::http::HttpConfig;
use mcpr_runtime::{CallOptions, Client};
use serde_json::json;

const DEADLINE: Duration = Duration::from_secs(5);

fn start(mode: &str) -> HttpServer {
    HttpServer::start("mcpr-hostile-server", &[mode])
}

async fn expect(mode: &str, code: &str) -> mcpr_runtime::Error {
    let server = start(mode);
    let config = SessionConfig {
        request_timeout: DEADLINE,
        connect_timeout: DEADLINE,
        protocol: ProtocolChoice::Auto,
        behaviour: ClientBehaviour::default(),
        ..SessionConfig::default()
    };
    let c = match Client::connect_http(HttpConfig::new(server.url.clone()), config).await {
        Ok(c) => c,
        Err(e) => panic!("{mode}: connect failed: {e}"),
    };
    assert_eq!(c.session().protocol_version(), "2025-11-25");
    let start = Instant::now();
    let e = c
        .call_tool(
            "echo",
            json!({"text": "x"}),
            &CallOptions {
                skip_schema_check: true,
                ..Default::default()
            },
        )
        .await
        .unwrap_err();
    assert_eq!(e.code(), code, "{mode}: {e}");
    let took = start.elapsed();
    assert!(
        took <= DEADLINE + Duration::from_secs(2),
        "{mode} took {took:?}"
    );
    c.close().await;
    e
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_is_not_json() {
    let e = expect("http-garbage", "MCP-PROTOCOL-001").await;
    assert!(
        e.to_string().contains("<html>Internal proxy page</html>"),
        "{e}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_error_status() {
    let e = expect("http-status-500", "MCP-HTTP-001").await;
    assert!(
        e.to_string().contains("status 500: upstream exploded"),
        "{e}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_that_hangs() {
    expect("http-hang", "MCP-TIMEOUT-001").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fifty_megabyte_body() {
    expect("http-huge", "MCP-PROTOCOL-003").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_sse_flood() {
    expect("http-sse-flood", "MCP-PROTOCOL-009").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_response_with_the_wrong_id() {
    expect("http-wrong-id", "MCP-PROTOCOL-002").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_that_expires_again_after_reinitializing() {
    let e = expect("http-session-expired", "MCP-HTTP-002").await;
    let text = e.to_string();
    assert!(
        text.contains("no longer knows session hostile-1, and still answered 404 after the client initialized again (new session hostile-1)"),
        "{e}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_session_is_initialized_again_and_the_call_retried() {
    let server = start("http-session-expiry");
    let config = SessionConfig {
        request_timeout: DEADLINE,
        connect_timeout: DEADLINE,
        ..SessionConfig::default()
    };
    let c = Client::connect_http(HttpConfig::new(server.url.clone()), config)
        .await
        .unwrap();
    let opts = CallOptions {
        skip_schema_check: true,
        ..Default::default()
    };
    let r = c
        .call_tool("echo", json!({"text": "after expiry"}), &opts)
        .await
        .unwrap();
    assert_eq!(
        mcpr_runtime::client::content_text(&r.result),
        "after expiry"
    );
    // The new session keeps working without another initialize.
    c.call_tool("echo", json!({"text": "again"}), &opts)
        .await
        .unwrap();
    let (entries, _) = c.session().transcript();
    let note = entries
        .iter()
        .find(|e| e.kind.as_str() == "note")
        .expect("a transcript note about the renewal");
    assert!(
        note.text
            .contains("HTTP 404 for session hostile-1 during tools/call"),
        "{}",
        note.text
    );
    let inits = entries
        .iter()
        .filter(|e| e.method.as_deref() == Some("initialize"))
        .count();
    assert_eq!(inits, 2, "one handshake, one renewal");
    let calls: Vec<&str> = entries
        .iter()
        .filter(|e| e.method.as_deref() == Some("tools/call"))
        .map(|e| e.text.as_str())
        .collect();
    assert_eq!(calls.len(), 3, "{calls:?}");
    assert_ne!(
        serde_json::from_str::<serde_json::Value>(calls[0]).unwrap()["id"],
        serde_json::from_str::<serde_json::Value>(calls[1]).unwrap()["id"],
        "the retry has a new id"
    );
    assert_eq!(
        c.session().violations().len(),
        0,
        "{:?}",
        c.session().violations()
    );
    c.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamable_endpoint_is_not_an_sse_endpoint() {
    let server = start("http-garbage");
    let target = mcpr_runtime::Target::Sse(HttpConfig::new(server.url.clone()));
    let e = Client::connect_to(
        target,
        SessionConfig {
            connect_timeout: DEADLINE,
            ..SessionConfig::default()
        },
    )
    .await
    .unwrap_err();
    assert_eq!(e.code(), "MCP-HTTP-001", "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_header_mismatch_refetches_the_tool_and_retries_once() {
    let server = start("http-header-refetch");
    let config = SessionConfig {
        request_timeout: DEADLINE,
        connect_timeout: DEADLINE,
        protocol: ProtocolChoice::Pinned("2026-07-28".into()),
        ..SessionConfig::default()
    };
    let c = Client::connect_http(HttpConfig::new(server.url.clone()), config)
        .await
        .unwrap();
    let opts = CallOptions::default();
    let r = c
        .call_tool("echo", json!({"text": "hi", "region": "eu-west"}), &opts)
        .await
        .unwrap();
    assert_eq!(mcpr_runtime::client::content_text(&r.result), "hi");
    let methods = |c: &Client| -> Vec<String> {
        c.session()
            .transcript()
            .0
            .iter()
            .filter(|e| e.kind.as_str() == "request")
            .filter_map(|e| e.method.clone())
            .collect()
    };
    assert_eq!(
        methods(&c),
        [
            "server/discover",
            "tools/list",
            "tools/call",
            "tools/list",
            "tools/call"
        ]
    );
    // A server that keeps refusing: one retry, then the -32020 error.
    let e = c
        .call_tool("echo", json!({"text": "hi", "region": "reject"}), &opts)
        .await
        .unwrap_err();
    assert_eq!(e.code(), "MCP-RPC-001", "{e}");
    assert_eq!(e.rpc_error().unwrap().code, -32020, "{e}");
    assert_eq!(methods(&c).len(), 5 + 3, "{:?}", methods(&c));
    c.close().await;
}
