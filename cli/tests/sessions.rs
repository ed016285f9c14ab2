//! Shared sessions (`Session: shared`, `--reuse-server`) against the reference server: the
//! tests of a server run in one session per job, each starting clean (no notification,
//! scripted answer or client behaviour of the test before), while data rows and
//! `Isolated session` tests keep sessions of their own; the JSON report names each test's
//! session.

mod common;

use std::path::Path;

use common::{mcpr_in, output_text, reference_server, scratch};
use serde_json::Value;

fn suite(setting: &str) -> String {
    format!(
        r#"MCP Test 1
Suite: "Shared sessions"
Server: {server}
{setting}
Test: "Leaves an answer and a notification behind"
  When the server asks for input, respond "accept" with:
    name: "Ada"
  Call tool "elicit" with:
    message: "Your name?"
  Expect "content[0].text" equals "elicitation accept: Ada"
  Call tool "notify" with:
    kind: tools

Test: "Starts with the suite's own answers"
  Call tool "elicit" with:
    message: "Your name?"
  Expect "content[0].text" equals "elicitation decline: "

Test: "Sees no notification of an earlier test"
  Wait for notification "notifications/tools/list_changed" within 300 ms

Test: "Alone"
  Isolated session
  Call tool "echo" with:
    text: "alone"

Test: "Rows"
  For each row:
    | word |
    |------|
    | one  |
    | two  |
  Call tool "echo" with:
    text: "${{row.word}}"
  Expect "content[0].text" equals "${{row.word}}"

Test: "Last"
  Call tool "echo" with:
    text: "last"
"#,
        server = reference_server()
    )
}

fn run(dir: &Path, extra: &[&str]) -> (Value, String) {
    let out = mcpr_in(dir)
        .args(["run", "suite.mcpr", "--no-history", "--transcript"])
        .args(["--json", "report.json"])
        .args(extra)
        .output()
        .unwrap();
    let text = output_text(&out);
    // The notification test fails (nothing arrives): exit 1, every other test passes.
    assert_eq!(out.status.code(), Some(1), "{text}");
    let report = std::fs::read_to_string(dir.join("report.json")).unwrap();
    (serde_json::from_str(&report).unwrap(), text)
}

fn tests(report: &Value) -> Vec<Value> {
    report["suites"][0]["tests"].as_array().unwrap().clone()
}

fn by_name<'a>(tests: &'a [Value], name: &str) -> &'a Value {
    tests
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no test {name} in {tests:#?}"))
}

/// Handshakes in a test's transcript: `initialize`, or the 2026 `server/discover`.
fn initializes(t: &Value) -> usize {
    t["transcript"]["entries"].as_array().map_or(0, |e| {
        e.iter()
            .filter(|e| e["method"] == "initialize" || e["method"] == "server/discover")
            .count()
    })
}

fn assert_shared(tests: &[Value], text: &str) {
    for name in [
        "Leaves an answer and a notification behind",
        "Starts with the suite's own answers",
    ] {
        let t = by_name(tests, name);
        assert_eq!(t["status"], "passed", "{t:#}\n{text}");
        assert_eq!(t["session"], 1, "{name} runs in the first session: {t:#}");
    }
    let waited = by_name(tests, "Sees no notification of an earlier test");
    assert_eq!(waited["status"], "failed", "{waited:#}");
    assert_eq!(waited["session"], 1);
    // The session is opened once: only the first test's transcript has the handshake.
    assert_eq!(
        initializes(by_name(tests, "Leaves an answer and a notification behind")),
        1
    );
    assert_eq!(
        initializes(by_name(tests, "Starts with the suite's own answers")),
        0
    );
    // With one job, the isolated test needs the job's only server: the shared session is
    // closed for it, and the rows open the run's second one, which the last test shares.
    let alone = by_name(tests, "Alone");
    assert_eq!(alone["status"], "passed", "{alone:#}");
    assert!(
        alone.get("session").is_none(),
        "a session of its own: {alone:#}"
    );
    assert_eq!(initializes(alone), 1, "{alone:#}");
    let rows: Vec<&Value> = tests
        .iter()
        .filter(|t| t["logicalName"] == "Rows")
        .collect();
    assert_eq!(rows.len(), 2, "{tests:#?}");
    for (k, t) in rows.iter().enumerate() {
        assert_eq!(t["status"], "passed", "{t:#}");
        assert_eq!(
            t["session"], 2,
            "a row shares the session like any test: {t:#}"
        );
        assert_eq!(initializes(t), usize::from(k == 0), "{t:#}");
    }
    let last = by_name(tests, "Last");
    assert_eq!(last["status"], "passed", "{last:#}");
    assert_eq!(last["session"], 2, "{last:#}");
    assert_eq!(initializes(last), 0, "{last:#}");
    assert_eq!(tests.len(), 7, "{tests:#?}");
}

#[test]
fn a_suite_that_shares_sessions_runs_its_tests_in_one_and_resets_between_them() {
    let dir = scratch(&[("suite.mcpr", &suite("Session: shared\n"))]);
    let (report, text) = run(dir.path(), &["--jobs", "1"]);
    assert_shared(&tests(&report), &text);
}

#[test]
fn reuse_server_shares_sessions_for_a_suite_that_does_not_ask() {
    let dir = scratch(&[("suite.mcpr", &suite(""))]);
    let (report, text) = run(dir.path(), &["--jobs", "1", "--reuse-server"]);
    assert_shared(&tests(&report), &text);
    // Without the flag every test has a session of its own, and the notification of the
    // first test cannot reach the third either.
    let (report, _) = run(dir.path(), &["--jobs", "1"]);
    for t in tests(&report) {
        assert!(t.get("session").is_none(), "{t:#}");
        assert_eq!(initializes(&t), 1, "{t:#}");
    }
}

#[test]
fn parallel_jobs_each_hold_one_shared_session() {
    let dir = scratch(&[("suite.mcpr", &suite("Session: shared\n"))]);
    let (report, text) = run(dir.path(), &["--jobs", "2"]);
    let tests = tests(&report);
    let mut lanes: std::collections::BTreeMap<u64, std::collections::BTreeSet<u64>> =
        Default::default();
    let mut handshakes: std::collections::BTreeMap<u64, usize> = Default::default();
    for t in &tests {
        let lane = t["timing"]["lane"].as_u64().unwrap();
        assert!(lane < 2, "two jobs, two lanes: {t:#}");
        if let Some(s) = t["session"].as_u64() {
            lanes.entry(s).or_default().insert(lane);
            *handshakes.entry(s).or_default() += initializes(t);
        }
    }
    assert!(
        lanes.len() >= 2,
        "the first two tests start at once\n{text}"
    );
    for (session, on) in &lanes {
        assert_eq!(on.len(), 1, "session {session} stays on one job\n{text}");
        assert_eq!(
            handshakes[session], 1,
            "session {session}: one handshake\n{text}"
        );
    }
}

#[test]
fn a_test_whose_request_timed_out_leaves_the_next_one_a_new_session() {
    let text = format!(
        "MCP Test 1\nSuite: \"Errors\"\nServer: {}\nSession: shared\n\n\
         Test: \"Times out\"\n  Call tool \"slow\" with:\n    ms: 3000\n  Wait up to 100 ms\n\n\
         Test: \"Next\"\n  Call tool \"echo\" with:\n    text: \"x\"\n",
        reference_server()
    );
    let dir = scratch(&[("suite.mcpr", &text)]);
    let out = mcpr_in(dir.path())
        .args(["run", "suite.mcpr", "--no-history", "--jobs", "1"])
        .args(["--json", "report.json"])
        .output()
        .unwrap();
    let shown = output_text(&out);
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    let tests = tests(&report);
    let first = by_name(&tests, "Times out");
    assert_eq!(first["status"], "failed", "{first:#}\n{shown}");
    assert_eq!(first["failure"]["code"], "MCP-TIMEOUT-001", "{first:#}");
    assert_eq!(first["session"], 1);
    let next = by_name(&tests, "Next");
    assert_eq!(next["status"], "passed", "{next:#}\n{shown}");
    assert_eq!(next["session"], 2, "{next:#}");
}
