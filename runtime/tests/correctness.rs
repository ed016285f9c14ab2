//! Run-time correctness against real servers: what a step yields and when capabilities are
//! declared (issue: one suite, both eras; tasks; roots), each case a regression test.

mod common;

use std::time::Duration;

use mcpr_compiler::ir::Suite;
use mcpr_runtime::exec::{Outcome, TestInput, TestResult, run_test};
use serde_json::{Value, json};

fn suite(server: &str, args: &[&str], tests: Value) -> Suite {
    let command = common::server_bin(server).display().to_string();
    serde_json::from_value(json!({
        "version": 1,
        "target": {"transport": "stdio", "command": command, "args": args},
        "defaults": {"timeoutMs": 5000},
        "tests": tests,
    }))
    .expect("valid IR")
}

async fn run_first(s: &Suite, protocol: Option<&str>) -> TestResult {
    let input = TestInput {
        target: s.target.clone().expect("a target"),
        deps: serde_json::Map::new(),
        state: json!({}),
        connect_timeout: Some(Duration::from_secs(20)),
        protocol: protocol.map(str::to_string),
        snapshots: None,
        record: true,
        max_buffered_bytes: 64 << 20,
        max_message_values: 1_000_000,
        tolerate_stray_lines: false,
        record_failed: false,
        timeout: None,
        shutdown_grace: None,
        context: mcpr_runtime::context::RunContext::of_process(false),
        functions: None,
    };
    run_test(s, &s.tests[0], input).await
}

/// A task step's result is the tool's result, fetched with `tasks/result` in 2025-11-25
/// (where `tasks/get` gives the status only), not the task's status object.
#[tokio::test]
async fn a_task_run_yields_the_tool_result_through_tasks_result() {
    let s = suite(
        "mcpr-hostile-server",
        &["tasks-2025"],
        json!([{"name": "task", "steps": [
            {"tool": {"name": "echo", "arguments": {"text": "hi"}, "task": "run"},
             "assert": {"json": [{"path": "$.content[0].text", "equals": "done: hi"}]}}
        ]}]),
    );
    let r = run_first(&s, None).await;
    assert_eq!(r.status, Outcome::Passed, "{r:#?}");
    let sent: Vec<String> = r
        .transcript
        .as_ref()
        .expect("recorded")
        .entries
        .iter()
        .filter_map(|e| e.method.clone())
        .collect();
    assert!(sent.iter().any(|m| m == "tasks/result"), "{sent:?}");
}

/// Task steps make the handshake era declare the tasks capability in `initialize` (what
/// `initialize` declares stays declared), so the server answers with a task.
#[tokio::test]
async fn task_steps_declare_tasks_in_the_handshake() {
    let s = suite(
        "mcpr-reference-server",
        &[],
        json!([{"name": "task", "steps": [
            {"tool": {"name": "long_task", "arguments": {"ms": 20}, "task": "run"},
             "assert": {"json": [{"path": "$.content[0].text", "equals": "finished after 20ms"}]}}
        ]}]),
    );
    for protocol in ["2025-11-25", "2026-07-28"] {
        let r = run_first(&s, Some(protocol)).await;
        assert_eq!(r.status, Outcome::Passed, "{protocol}: {:#?}", r.failure);
    }
}

/// Roots given by a later step (legacy `add_root`: a configure-client step) are declared in
/// `initialize`, so the server may list them.
#[tokio::test]
async fn roots_configured_by_a_step_are_declared_in_the_handshake() {
    let s = suite(
        "mcpr-reference-server",
        &[],
        json!([{"name": "roots", "steps": [
            {"native": {"action": "configure-client", "behavior": {"roots": ["file:///tmp/added"]}}},
            {"tool": {"name": "roots"},
             "assert": {"json": [{"path": "$.content[0].text", "equals": "roots: file:///tmp/added"}]}}
        ]}]),
    );
    for protocol in ["2025-11-25", "2026-07-28"] {
        let r = run_first(&s, Some(protocol)).await;
        assert_eq!(r.status, Outcome::Passed, "{protocol}: {:#?}", r.failure);
    }
}
