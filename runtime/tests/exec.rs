//! Step execution against the reference server over real pipes: one test at a time, built
//! as Suite IR JSON, checking statuses, failures, variables and locations.

mod common;

use std::time::Duration;

use mcpr_compiler::ir::Suite;
use mcpr_runtime::exec::{Outcome, StepStatus, TestInput, TestResult, run_test};
use serde_json::{Value, json};

fn suite(tests: Value) -> Suite {
    let server = common::server_bin("mcpr-reference-server")
        .display()
        .to_string();
    serde_json::from_value(json!({
        "version": 1,
        "target": {"transport": "stdio", "command": server},
        "defaults": {"timeoutMs": 5000},
        "tests": tests,
    }))
    .expect("valid IR")
}

async fn run_one(tests: Value) -> TestResult {
    let s = suite(tests);
    let input = TestInput {
        target: s.target.clone().expect("a target"),
        deps: serde_json::Map::new(),
        state: json!({}),
        connect_timeout: Some(Duration::from_secs(20)),
        protocol: None,
        snapshots: None,
        record: false,
        max_buffered_bytes: 64 << 20,
        max_message_values: 1_000_000,
        tolerate_stray_lines: false,
        record_failed: false,
        timeout: None,
        shutdown_grace: None,
        context: mcpr_runtime::context::RunContext::of_process(false),
        functions: None,
    };
    run_test(&s, &s.tests[0], input).await
}

fn step(v: Value) -> Value {
    v
}

#[tokio::test]
async fn variables_flow_between_steps_and_keep_types() {
    let r = run_one(json!([{
        "name": "vars",
        "variables": {"x": 4, "flow0.b": 1},
        "steps": [
            step(json!({"tool": {"name": "add", "arguments": {"a": "${x}", "b": "${flow0.b}"}},
                        "assert": {"status": "success", "json": [{"path": "$.structuredContent.sum", "equals": 5}]},
                        "capture": {"total": "$.structuredContent.sum"}})),
            step(json!({"set": {"variable": "t", "function": "text", "arguments": {"value": "${total}"}}})),
            step(json!({"tool": {"name": "echo", "arguments": {"text": "sum=${t}"}},
                        "assert": {"json": [{"path": "$.content[0].text", "equals": "sum=5"}]},
                        "export": {"said": {"path": "$.content[0].text"}}})),
        ]
    }]))
    .await;
    assert_eq!(r.status, Outcome::Passed, "{r:#?}");
    assert_eq!(r.outputs["said"], json!("sum=5"));
    assert_eq!(r.steps.len(), 3);
}

#[tokio::test]
async fn failure_names_location_expected_actual_and_last_message() {
    let r = run_one(json!([{
        "name": "wrong sum",
        "steps": [
            {"name": "add", "tool": {"name": "add", "arguments": {"a": 1, "b": 1}},
             "assert": {"json": [{"path": "$.structuredContent.sum", "equals": "2"}]},
             "source": {"file": "suite.mcpr", "line": 7, "column": 3}},
            {"name": "not reached", "tool": {"name": "echo", "arguments": {"text": "x"}}},
            {"name": "tidy", "phase": "cleanup", "tool": {"name": "echo", "arguments": {"text": "y"}}},
        ]
    }]))
    .await;
    assert_eq!(r.status, Outcome::Failed);
    let f = r.failure.as_ref().expect("failure");
    assert_eq!(f.code, "MCP-ASSERT-001");
    assert_eq!(f.expected.as_deref(), Some("\"2\""));
    assert_eq!(f.actual.as_deref(), Some("2"));
    assert_eq!(f.location.as_ref().map(|l| l.line), Some(7));
    assert!(
        f.last_message
            .as_ref()
            .is_some_and(|m| m.text.contains("\"sum\":2")),
        "{f:?}"
    );
    let names: Vec<&str> = r.steps.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["add", "tidy"], "cleanup runs, the rest is skipped");
    assert_eq!(r.steps[1].status, StepStatus::Passed);
}

#[tokio::test]
async fn bare_expect_error_fails_on_success_and_is_error_counts() {
    let r = run_one(json!([{
        "name": "e",
        "steps": [{"tool": {"name": "echo", "arguments": {"text": "fine"}}, "assert": {"status": "error"}}]
    }]))
    .await;
    assert_eq!(r.status, Outcome::Failed);
    assert!(r.failure.unwrap().message.contains("expected an MCP error"));

    let r = run_one(json!([{
        "name": "e",
        "steps": [
            {"tool": {"name": "fail", "arguments": {"message": "boom here"}},
             "assert": {"status": "error", "error": {"matches": "boom"}}},
            {"tool": {"name": "nope"}, "assert": {"status": "error", "error": {"code": -32602}}},
        ]
    }]))
    .await;
    assert_eq!(r.status, Outcome::Passed, "{r:#?}");

    let r = run_one(json!([{
        "name": "e",
        "steps": [{"tool": {"name": "fail", "arguments": {"message": "boom"}}}]
    }]))
    .await;
    assert_eq!(r.status, Outcome::Failed);
    assert_eq!(r.failure.unwrap().code, "MCP-TOOL-001");
}

#[tokio::test]
async fn step_timeout_names_the_step() {
    let r = run_one(json!([{
        "name": "slow",
        "steps": [{"name": "sleepy", "tool": {"name": "slow", "arguments": {"ms": 3000}}, "timeoutMs": 200}]
    }]))
    .await;
    assert_eq!(r.status, Outcome::Failed, "{r:#?}");
    let f = r.failure.unwrap();
    assert_eq!(f.code, "MCP-TIMEOUT-001");
    assert_eq!(f.step.as_deref(), Some("sleepy"));
    assert!(
        f.message.starts_with("step “sleepy” timed out") && f.message.contains("200ms"),
        "{}",
        f.message
    );
}

#[tokio::test]
async fn native_steps_list_subscribe_notify_and_log_level() {
    let r = run_one(json!([{
        "name": "native",
        "steps": [
            {"native": {"action": "list-all", "method": "tools/list", "field": "tools"},
             "assert": {"json": [{"path": "$.items", "contains": {"name": "add"}}, {"path": "$.pages", "type": "number"}]}},
            {"native": {"action": "set-log-level", "level": "debug"}},
            {"tool": {"name": "log", "arguments": {"level": "info", "message": "hello log"}}},
            {"native": {"action": "await-notification", "method": "notifications/message", "timeoutMs": 3000},
             "assert": {"json": [{"path": "$.params.data.message", "equals": "hello log"}]}},
            {"request": {"method": "resources/read", "params": {"uri": "fixture://status"}},
             "assert": {"json": [{"path": "$.contents[0].text", "matches": "ready"}]}},
        ]
    }]))
    .await;
    assert_eq!(r.status, Outcome::Passed, "{r:#?}");
}

#[tokio::test]
async fn unmet_requirement_skips_and_dead_server_errors() {
    let r = run_one(json!([{
        "name": "req",
        "requires": {"capabilities": ["nonexistent.capability"]},
        "steps": [{"tool": {"name": "echo", "arguments": {"text": "x"}}}]
    }]))
    .await;
    assert_eq!(r.status, Outcome::Skipped);
    assert_eq!(r.failure.unwrap().code, "MCP-REQ-001");

    let mut s = suite(json!([{"name": "x", "steps": [{"tool": {"name": "echo"}}]}]));
    s.target = Some(
        serde_json::from_value(json!({"transport": "stdio", "command": "/nonexistent/mcp-server"}))
            .unwrap(),
    );
    let input = TestInput {
        target: s.target.clone().expect("a target"),
        deps: serde_json::Map::new(),
        state: json!({}),
        connect_timeout: Some(Duration::from_secs(5)),
        protocol: None,
        snapshots: None,
        record: false,
        max_buffered_bytes: 64 << 20,
        max_message_values: 1_000_000,
        tolerate_stray_lines: false,
        record_failed: false,
        timeout: None,
        shutdown_grace: None,
        context: mcpr_runtime::context::RunContext::of_process(false),
        functions: None,
    };
    let r = run_test(&s, &s.tests[0], input).await;
    assert_eq!(r.status, Outcome::Errored);
    assert_eq!(r.failure.unwrap().code, "MCP-SPAWN-001");
}

fn hostile_suite(mode: &str, tests: Value) -> Suite {
    let server = common::server_bin("mcpr-hostile-server")
        .display()
        .to_string();
    serde_json::from_value(json!({
        "version": 1,
        "target": {"transport": "stdio", "command": server, "args": [mode]},
        "tests": tests,
    }))
    .expect("valid IR")
}

async fn run_suite_test(s: &Suite) -> TestResult {
    let input = TestInput {
        target: s.target.clone().expect("a target"),
        deps: serde_json::Map::new(),
        state: json!({}),
        connect_timeout: Some(Duration::from_secs(20)),
        protocol: None,
        snapshots: None,
        record: false,
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

#[tokio::test]
async fn a_server_dying_mid_call_errors_the_test_with_its_stderr() {
    let s = hostile_suite(
        "crash-mid-call",
        json!([{"name": "crash", "steps": [
            {"tool": {"name": "echo", "arguments": {"text": "x"}}},
            {"phase": "cleanup", "tool": {"name": "echo", "arguments": {"text": "y"}}},
        ]}]),
    );
    let r = run_suite_test(&s).await;
    assert_eq!(r.status, Outcome::Errored, "{r:#?}");
    let f = r.failure.unwrap();
    assert_eq!(f.code, "MCP-EXIT-001", "{f:?}");
    assert!(
        f.exit_status.as_deref().unwrap_or("").contains("70"),
        "{f:?}"
    );
    assert!(
        f.stderr_tail
            .as_deref()
            .unwrap_or("")
            .contains("hostile: panicked while handling tools/call"),
        "{f:?}"
    );
    assert_eq!(r.steps[0].status, StepStatus::Errored);
}

#[tokio::test]
async fn structured_content_must_match_the_output_schema() {
    let s = hostile_suite(
        "bad-structured",
        json!([{"name": "schema", "steps": [{"tool": {"name": "echo", "arguments": {"text": "x"}}}]}]),
    );
    let r = run_suite_test(&s).await;
    assert_eq!(r.status, Outcome::Failed, "{r:#?}");
    assert_eq!(r.failure.unwrap().code, "MCP-PROTOCOL-008");
}

#[tokio::test]
async fn runs_over_streamable_http() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let mut child = Command::new(common::server_bin("mcpr-reference-server"))
        .args(["--http", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the reference server");
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line.trim().rsplit(' ').next().unwrap().to_string();
    let s: Suite = serde_json::from_value(json!({
        "version": 1,
        "target": {"transport": "streamable-http", "url": url},
        "tests": [{"name": "http", "requires": {"capabilities": ["tools"]}, "steps": [
            {"tool": {"name": "add", "arguments": {"a": 1, "b": 2}},
             "assert": {"json": [{"path": "$.structuredContent.sum", "equals": 3}]}},
            {"tool": {"name": "regional", "arguments": {"region": "eu", "text": "hi"}},
             "assert": {"json": [{"path": "$.content[0].text", "contains": "eu"}]}},
        ]}],
    }))
    .unwrap();
    let r = run_suite_test(&s).await;
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(r.status, Outcome::Passed, "{r:#?}");
    assert!(r.protocol_version.is_some());
}

#[tokio::test]
async fn native_request_with_progress_and_cancel_after() {
    let r = run_one(json!([{
        "name": "progress",
        "steps": [
            {"native": {"action": "request", "method": "tools/call",
                        "params": {"name": "progress", "arguments": {"steps": 3, "delayMs": 5}},
                        "progress": true},
             "assert": {"json": [{"path": "$.progress", "length": 3},
                                 {"path": "$.result.content[0].text", "equals": "done 3 steps"}]}},
            {"native": {"action": "request", "method": "tools/call",
                        "params": {"name": "slow", "arguments": {"ms": 5000}},
                        "cancelAfterMs": 100},
             "assert": {"json": [{"path": "$.cancelled", "equals": true}], "maxDurationMs": 2000}},
            {"tool": {"name": "echo", "arguments": {"text": "still alive"}}},
        ]
    }]))
    .await;
    assert_eq!(r.status, Outcome::Passed, "{r:#?}");
}

#[tokio::test]
async fn the_client_answers_sampling_and_elicitation_as_the_suite_says() {
    // Defaults: a deterministic sampling answer, elicitation declined.
    let r = run_one(json!([{
        "name": "defaults",
        "steps": [
            {"tool": {"name": "sample", "arguments": {"prompt": "hi"}},
             "assert": {"json": [{"path": "$.content[0].text", "equals": "sampled: deterministic response"}]}},
            {"tool": {"name": "elicit", "arguments": {"message": "name?"}},
             "assert": {"json": [{"path": "$.content[0].text", "matches": "^elicitation decline"}]}},
        ]
    }]))
    .await;
    assert_eq!(r.status, Outcome::Passed, "{r:#?}");
    let mut s = suite(json!([{
        "name": "scripted",
        "steps": [
            {"tool": {"name": "sample", "arguments": {"prompt": "hi"}},
             "assert": {"json": [{"path": "$.content[0].text", "equals": "sampled: from the suite"}]}},
        ]
    }]));
    s.client =
        Some(serde_json::from_value(json!({"sampling": {"text": "from the suite"}})).unwrap());
    let input = TestInput {
        target: s.target.clone().expect("a target"),
        deps: serde_json::Map::new(),
        state: json!({}),
        connect_timeout: Some(Duration::from_secs(20)),
        protocol: None,
        snapshots: None,
        record: false,
        max_buffered_bytes: 64 << 20,
        max_message_values: 1_000_000,
        tolerate_stray_lines: false,
        record_failed: false,
        timeout: None,
        shutdown_grace: None,
        context: mcpr_runtime::context::RunContext::of_process(false),
        functions: None,
    };
    let r = run_test(&s, &s.tests[0], input).await;
    assert_eq!(r.status, Outcome::Passed, "{r:#?}");
}

/// A failed expectation is reported at its own `Expect` line, not at the action above it:
/// the `.mcpr` compiler gives each assertion its position, the step keeps the action's.
#[tokio::test]
async fn a_failed_expectation_is_reported_at_its_own_expect_line() {
    let r = run_one(json!([{
        "name": "wrong sum",
        "steps": [
            {"name": "add", "tool": {"name": "add", "arguments": {"a": 1, "b": 1}},
             "assert": {"json": [
                 {"path": "$.structuredContent.sum", "equals": 2,
                  "source": {"file": "suite.mcpr", "line": 8, "column": 3}},
                 {"path": "$.structuredContent.sum", "equals": 3,
                  "source": {"file": "suite.mcpr", "line": 9, "column": 3}},
             ]},
             "source": {"file": "suite.mcpr", "line": 7, "column": 3}},
        ]
    }]))
    .await;
    assert_eq!(r.status, Outcome::Failed);
    let f = r.failure.as_ref().expect("failure");
    assert_eq!(f.code, "MCP-ASSERT-001");
    let at = f.location.as_ref().expect("a location");
    assert_eq!((at.line, at.column), (9, 3), "{f:?}");
    // The step still names the action's line.
    assert_eq!(r.steps[0].source.as_ref().map(|s| s.line), Some(7));
}

/// The same through the compiler: the lowered assertion carries the `Expect` line.
#[tokio::test]
async fn compiled_expectations_carry_their_own_lines() {
    let text = "Server: node s.js\n\nTest: \"t\"\n  Call tool \"add\" with:\n    a: 1\n    b: 1\n  Expect \"structuredContent.sum\" equals 2\n  Expect \"structuredContent.sum\" equals 3\n";
    let mut map = mcpr_compiler::SourceMap::new();
    let id = map.add(mcpr_compiler::source::SourceFile::new(
        "suite.mcpr",
        text.to_string(),
    ));
    let out = mcpr_compiler::lower::compile(
        &mut map,
        id,
        &mcpr_compiler::lower::MemoryLoader::default(),
        &mcpr_compiler::lower::Options::default(),
    );
    let suite = out.suite.expect("compiles");
    let step = &suite.tests[0].steps[0];
    assert_eq!(step.source.as_ref().map(|s| s.line), Some(4));
    let lines: Vec<u32> = step
        .assert
        .as_ref()
        .and_then(|a| a.json.as_ref())
        .map(|j| {
            j.as_slice()
                .iter()
                .filter_map(|a| a.source.as_ref().map(|s| s.line))
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(lines, [7, 8]);
}

/// An error expectation that does not hold is reported at its own `Expect` line too, and a
/// duration limit at its own.
#[tokio::test]
async fn failed_error_and_duration_expectations_are_reported_at_their_expect_line() {
    let at = |line: u32| json!({"file": "suite.mcpr", "line": line, "column": 3});
    let r = run_one(json!([{
        "name": "wants an error",
        "steps": [
            {"name": "echo", "tool": {"name": "echo", "arguments": {"text": "fine"}},
             "assert": {"status": "error", "source": at(6)},
             "source": at(4)},
        ]
    }]))
    .await;
    assert_eq!(r.status, Outcome::Failed);
    let f = r.failure.as_ref().expect("failure");
    let loc = f.location.as_ref().expect("a location");
    assert_eq!((loc.line, loc.column), (6, 3), "{f:?}");
    assert_eq!(r.steps[0].source.as_ref().map(|s| s.line), Some(4));
}
