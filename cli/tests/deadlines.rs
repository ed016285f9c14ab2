//! Timeout messages name the deadline that ran out and the setting that changes it: a slow
//! handshake (version probing included) is reported against the whole handshake deadline, a
//! step against its `Wait up to` or the default, and `mcpr explain MCP-TIMEOUT-001` says what
//! the deadlines are. Real binaries over real pipes.

mod common;
use common::{hostile_server, mcpr_in, reference_server, scratch};

use std::time::{Duration, Instant};

fn failure_of(report: &serde_json::Value, name: &str) -> serde_json::Value {
    let t = report["suites"][0]["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no test {name}: {report:#}"));
    t["failure"].clone()
}

#[test]
fn a_slow_handshake_and_a_slow_step_name_their_deadlines() {
    let suite = format!(
        "MCP Test 1\nSuite: \"Deadlines\"\nServer: {reference}\nDefault timeout: 3 seconds\n\
         Named server \"late\": {hostile} slow-start 30\n\n\
         Test: \"Late server\"\n  On server \"late\"\n  Call tool \"echo\" with:\n    text: hi\n\n\
         Test: \"Slow step\"\n  Call tool \"slow\" with:\n    ms: 3000\n  Wait up to 500 ms\n\n\
         Test: \"Slow by default\"\n  Call tool \"slow\" with:\n    ms: 5000\n",
        reference = reference_server(),
        hostile = hostile_server()
    );
    let dir = scratch(&[("d.mcpr", &suite)]);
    let started = Instant::now();
    let out = mcpr_in(dir.path())
        .args(["run", "d.mcpr", "--no-history", "--json", "r.json"])
        .output()
        .expect("mcpr runs");
    assert!(started.elapsed() < Duration::from_secs(30), "{out:?}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();

    let late = failure_of(&report, "Late server");
    assert_eq!(late["code"], "MCP-TIMEOUT-001", "{late:#}");
    let message = late["message"].as_str().unwrap();
    assert!(
        message.contains("within 3s: the handshake's deadline, probing the protocol version"),
        "{message}"
    );
    assert!(message.contains("`Default timeout:`"), "{message}");

    let slow = failure_of(&report, "Slow step");
    let message = slow["message"].as_str().unwrap();
    assert!(
        message.contains("within 500ms (the step's deadline, set by its `Wait up to`)"),
        "{message}"
    );

    let default = failure_of(&report, "Slow by default");
    let message = default["message"].as_str().unwrap();
    assert!(
        message.contains("within 3s (the default step deadline, set by `Wait up to` below the step, `--timeout` or the suite's `Default timeout:`"),
        "{message}"
    );
}

#[test]
fn explain_states_the_deadlines_that_apply() {
    let dir = scratch(&[("empty.mcpr", "")]);
    let out = mcpr_in(dir.path())
        .args(["explain", "MCP-TIMEOUT-001"])
        .output()
        .expect("mcpr runs");
    let text = String::from_utf8_lossy(&out.stdout).replace('\n', " ");
    assert!(out.status.success(), "{text}");
    assert!(!text.contains("30 seconds"), "{text}");
    assert!(
        text.contains("handshake has the same default deadline"),
        "{text}"
    );
}
