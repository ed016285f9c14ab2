//! The one-shot functions behind `mcpr tools`, `mcpr call` and `mcpr ping`.

mod common;

use std::time::Duration;

use common::server_bin;
use mcpr_runtime::adhoc::{self, AdhocOptions};
use serde_json::json;

fn reference_opts(protocol: Option<&str>) -> AdhocOptions {
    let mut o = AdhocOptions::new(
        server_bin("mcpr-reference-server").display().to_string(),
        Vec::<String>::new(),
    );
    o.protocol = protocol.map(str::to_string);
    o.timeout = Duration::from_secs(10);
    o
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_call_and_ping() {
    for protocol in [None, Some("2025-06-18"), Some("2026-07-28")] {
        let opts = reference_opts(protocol);
        let tools = adhoc::list_tools(&opts).await.unwrap();
        assert_eq!(tools["tools"].as_array().unwrap().len(), 15);
        let add = adhoc::call_tool(&opts, "add", json!({"a": 40, "b": 2}))
            .await
            .unwrap();
        assert_eq!(add["structuredContent"]["sum"], 42);
        let fail = adhoc::call_tool(&opts, "fail", json!({})).await.unwrap();
        assert_eq!(fail["isError"], true);
        let ping = adhoc::ping(&opts).await.unwrap();
        assert_eq!(ping.protocol_version, protocol.unwrap_or("2026-07-28"));
        assert_eq!(ping.server_info["name"], "mcpr-reference-server");
        assert!(ping.round_trip_ms < 1000.0);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failures_are_named() {
    let opts = reference_opts(None);
    let e = adhoc::call_tool(&opts, "add", json!([1, 2]))
        .await
        .unwrap_err();
    assert_eq!(e.code(), "MCP-USAGE-001");
    let e = adhoc::call_tool(&opts, "missing", json!({}))
        .await
        .unwrap_err();
    assert_eq!(e.code(), "MCP-RPC-001");
    let mut bad = reference_opts(Some("2030-01-01"));
    bad.timeout = Duration::from_secs(2);
    assert_eq!(adhoc::ping(&bad).await.unwrap_err().code(), "MCP-USAGE-001");
    let mut hostile = AdhocOptions::new(
        server_bin("mcpr-hostile-server").display().to_string(),
        ["exit-1"],
    );
    hostile.timeout = Duration::from_secs(2);
    let e = adhoc::list_tools(&hostile).await.unwrap_err();
    assert_eq!(e.code(), "MCP-EXIT-001");
    assert!(e.to_string().contains("refusing to start"), "{e}");
}
