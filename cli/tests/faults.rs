//! Fault injection (fault phrases and `fault:` on a step, docs/faults.md) against the reference server over
//! stdio and Streamable HTTP: each fault is seen as a client would see it, and a dependent
//! test (a new session) checks that the server still works.

mod common;

use common::{HttpServer, mcpr_in, output_text, reference_server, scratch};
use serde_json::Value;

fn suite(server_line: &str) -> String {
    // The drop is written in the suite model (`fault:`), the others as phrases.
    let drop = "  Run step with:\n    tool:\n      name: echo\n      arguments:\n        text: hi\n    timeoutMs: 500\n    fault:\n      kind: drop\n";
    let step = |phrase: &str| {
        format!("  Call tool \"echo\" with:\n    text: hi\n  Wait up to 500 ms\n  {phrase}\n")
    };
    format!(
        "MCP Test 1\nSuite: \"Faults\"\n{server_line}\n\n\
Test: \"Drop\"\n{}  Call tool \"echo\" with:\n    text: \"after drop\"\n  Expect \"content[0].text\" equals \"after drop\"\n\n\
Test: \"Delay\"\n{}  Expect \"content[0].text\" equals \"hi\"\n\n\
Test: \"Duplicate\"\n{}\n\
Test: \"Corrupt\"\n{}\n\
Test: \"Disconnect\"\n{}\n\
Test: \"Recovers\"\n  Depends on: drop, delay, duplicate, corrupt, disconnect\n  Call tool \"echo\" with:\n    text: \"ok\"\n  Expect \"content[0].text\" equals \"ok\"\n",
        drop,
        step("Delay the response by 100 ms"),
        step("Duplicate the response"),
        step("Corrupt the response"),
        step("Disconnect after the request"),
    )
}

fn check(server_line: &str, extra: &[&str]) {
    let dir = scratch(&[("suite.mcpr", &suite(server_line))]);
    let out = mcpr_in(dir.path())
        .args(["run", "suite.mcpr", "--no-history", "--json", "report.json"])
        .args(extra)
        .output()
        .unwrap();
    let text = output_text(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    let tests = report["suites"][0]["tests"].as_array().unwrap();
    let step_output = |id: &str| {
        let t = tests.iter().find(|t| t["id"] == id).unwrap();
        assert_eq!(t["status"], "passed", "{t:#}");
        t["steps"][0]["output"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    assert!(step_output("drop").contains("timed out"), "{text}");
    assert!(
        step_output("duplicate").contains("protocol violation"),
        "{text}"
    );
    assert!(step_output("corrupt").contains("not JSON"), "{text}");
    assert!(
        step_output("disconnect").contains("session is closed"),
        "{text}"
    );
    let delay = tests.iter().find(|t| t["id"] == "delay").unwrap();
    assert!(
        delay["steps"][0]["durationMs"].as_u64().unwrap() >= 100,
        "{delay:#}"
    );
    // After a dropped answer the same session still answers the next call.
    let drop = tests.iter().find(|t| t["id"] == "drop").unwrap();
    assert_eq!(drop["steps"][1]["status"], "passed", "{drop:#}");
    let recovers = tests.iter().find(|t| t["id"] == "recovers").unwrap();
    assert_eq!(recovers["status"], "passed", "{recovers:#}");
}

#[test]
fn every_fault_over_stdio() {
    check(&format!("Server: {}", reference_server()), &[]);
}

#[test]
fn every_fault_over_http() {
    let server = HttpServer::start(reference_server(), &["--http", "127.0.0.1:0"]);
    check(
        &format!("MCP URL: {}", server.url),
        &["--protocol", "2025-11-25"],
    );
}

#[test]
fn every_fault_over_http_answered_with_json_bodies() {
    // 2026-07-28 is stateless: the server answers a plain call with a JSON body, not a
    // stream, and `Drop`/`Delay` hold that body's answer as they hold a stream's.
    let server = HttpServer::start(
        reference_server(),
        &["--http", "127.0.0.1:0", "--json-response"],
    );
    check(
        &format!("MCP URL: {}", server.url),
        &["--protocol", "2026-07-28"],
    );
}

#[test]
fn a_fault_on_a_step_without_an_answer_is_not_seen() {
    let text = format!(
        "MCP Test 1\nServer: {}\n\nTest: \"Local\"\n  Run step with:\n    set:\n      variable: x\n      function: lowercase\n      arguments:\n        value: A\n    fault:\n      kind: drop\n",
        reference_server()
    );
    let dir = scratch(&[("suite.mcpr", &text)]);
    let out = mcpr_in(dir.path())
        .args(["run", "suite.mcpr", "--no-history"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", output_text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("MCP-FAULT-001"),
        "{}",
        output_text(&out)
    );
}

/// `Disconnect after the request`, then `Reconnect`: the same test reaches the server again
/// in a new session (a new process over stdio, a new HTTP session over HTTP); a saved
/// variable survives, and the transcript holds both sessions' handshakes.
fn reconnect(server_line: &str, extra: &[&str]) {
    let text = format!(
        "MCP Test 1\n{server_line}\n\nTest: \"Recovers in the same test\"\n  \
Call tool \"echo\" with:\n    text: kept\n  Save \"content[0].text\" as \"word\"\n  \
Call tool \"echo\" with:\n    text: lost\n  Wait up to 2 seconds\n  Disconnect after the request\n  \
Reconnect\n  Call tool \"echo\" with:\n    text: \"${{word}} again\"\n  \
Expect \"content[0].text\" equals \"kept again\"\n"
    );
    let dir = scratch(&[("suite.mcpr", &text)]);
    let out = mcpr_in(dir.path())
        .args(["run", "suite.mcpr", "--no-history", "--transcript"])
        .args(["--json", "report.json"])
        .args(extra)
        .output()
        .unwrap();
    let shown = output_text(&out);
    assert_eq!(out.status.code(), Some(0), "{shown}");
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    let test = &report["suites"][0]["tests"][0];
    assert_eq!(test["status"], "passed", "{test:#}");
    let steps = test["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 4, "{test:#}");
    assert!(
        steps[1]["output"]
            .as_str()
            .unwrap_or_default()
            .contains("session is closed"),
        "{test:#}"
    );
    assert!(
        steps[2]["output"]
            .as_str()
            .unwrap_or_default()
            .contains("session 2 opened"),
        "{test:#}"
    );
    let entries = test["transcript"]["entries"].as_array().unwrap();
    // Each session's transcript starts from its own `seq` 0 with its handshake
    // (`initialize`, or `server/discover` in the 2026 era).
    let handshakes = entries
        .iter()
        .filter(|e| {
            e["kind"] == "request"
                && (e["method"] == "initialize" || e["method"] == "server/discover")
        })
        .count();
    let starts = entries.iter().filter(|e| e["seq"] == 0).count();
    assert_eq!(starts, 2, "{test:#}");
    assert_eq!(handshakes, 2, "one handshake per session: {test:#}");
}

#[test]
fn reconnect_after_a_disconnect_over_stdio() {
    reconnect(&format!("Server: {}", reference_server()), &[]);
}

#[test]
fn reconnect_after_a_disconnect_over_http() {
    let server = HttpServer::start(reference_server(), &["--http", "127.0.0.1:0"]);
    reconnect(
        &format!("MCP URL: {}", server.url),
        &["--protocol", "2025-11-25"],
    );
}

#[test]
fn reconnect_without_a_fault_opens_a_second_session() {
    // Allowed without a fault (a server restart); the test goes on in the new session,
    // where a failing call still fails.
    let text = format!(
        "MCP Test 1\nServer: {}\n\nTest: \"Restart\"\n  Reconnect\n  Call tool \"no_such_tool\"\n  Expect it succeeds\n",
        reference_server()
    );
    let dir = scratch(&[("suite.mcpr", &text)]);
    let out = mcpr_in(dir.path())
        .args(["run", "suite.mcpr", "--no-history", "--json", "report.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", output_text(&out));
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    let steps = &report["suites"][0]["tests"][0]["steps"];
    assert_eq!(steps[0]["status"], "passed", "{steps:#}");
    assert!(
        steps[0]["output"]
            .as_str()
            .unwrap_or_default()
            .contains("session 2 opened"),
        "{steps:#}"
    );
    assert_eq!(steps[1]["status"], "failed", "{steps:#}");
}
