//! Retries, flaky tests, the quarantine file and unsteady tests in the run history, against
//! the reference server's flaky mode (`--flaky FILE`: the first tool call of a session is a
//! JSON-RPC error while fewer than `--flaky-sessions N` sessions, counted in FILE, failed).

mod common;

use std::path::Path;
use std::process::Output;

use common::{HttpServer, mcpr_in, output_text, reference_server, scratch};
use serde_json::Value;

/// A suite whose test `Echo` fails in the first `sessions` sessions of the server; `After`
/// depends on it and `Steady` is another test (which also fails while sessions fail).
fn suite(dir: &Path, sessions: u32, settings: &str, echo: &str) -> String {
    let count = dir.join("count");
    format!(
        r#"MCP Test 1
Suite: "Flaky"
Server: {server} --flaky {count} --flaky-sessions {sessions}
{settings}
Test: "Echo"
{echo}  Call tool "echo" with:
    text: "hi"
  Expect "content[0].text" equals "hi"

Test: "After"
  Depends on: echo
  Call tool "echo" with:
    text: "after"
"#,
        server = reference_server(),
        count = count.display(),
    )
}

fn run(dir: &Path, args: &[&str]) -> (Output, Value) {
    let out = mcpr_in(dir)
        .args(["run", "suite.mcpr", "--jobs", "1", "--json", "report.json"])
        .args(args)
        .output()
        .unwrap();
    let report = std::fs::read_to_string(dir.join("report.json"))
        .unwrap_or_else(|e| panic!("no report ({e}): {}", output_text(&out)));
    (out, serde_json::from_str(&report).unwrap())
}

fn test<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["suites"][0]["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == id)
        .unwrap_or_else(|| panic!("no test {id} in {report:#}"))
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_test_that_passes_on_a_retry_is_flaky_in_every_report() {
    let dir = scratch(&[]);
    std::fs::write(dir.path().join("suite.mcpr"), suite(dir.path(), 1, "", "")).unwrap();
    let (out, report) = run(
        dir.path(),
        &["--no-history", "--retries", "1", "--junit", "junit.xml"],
    );
    let text = output_text(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let echo = test(&report, "echo");
    assert_eq!(echo["status"], "flaky", "{echo:#}");
    assert_eq!(echo["attempts"], 2);
    let earlier = echo["previousAttempts"].as_array().unwrap();
    assert_eq!(earlier.len(), 1);
    assert_eq!(earlier[0]["status"], "failed");
    assert_eq!(earlier[0]["failure"]["code"], "MCP-RPC-001");
    assert!(
        earlier[0]["failure"]["message"]
            .as_str()
            .unwrap()
            .contains("first tool call of this session"),
        "{echo:#}"
    );
    // A flaky test passed: its dependent runs.
    assert_eq!(test(&report, "after")["status"], "passed");
    assert_eq!(report["suites"][0]["summary"]["flaky"], 1, "{report:#}");
    assert_eq!(report["suites"][0]["summary"]["passed"], 1);
    assert_eq!(report["status"], "passed");
    let shown = stdout(&out);
    assert!(
        shown.contains("~ Echo flaky, passed on attempt 2"),
        "{text}"
    );
    assert!(shown.contains("attempt 1 failed: MCP-RPC-001"), "{text}");
    assert!(
        shown.contains("1 passed, 0 failed, 0 skipped, 0 blocked, 1 flaky"),
        "{text}"
    );
    assert!(shown.contains("Flaky (passed on a retry):"), "{text}");
    let junit = std::fs::read_to_string(dir.path().join("junit.xml")).unwrap();
    assert!(
        junit.contains(r#"<property name="mcpr.status" value="flaky"/>"#),
        "{junit}"
    );
    assert!(
        junit.contains(r#"<property name="mcpr.attempts" value="2"/>"#),
        "{junit}"
    );
    assert!(junit.contains("<flakyFailure "), "{junit}");
    assert!(junit.contains(r#"failures="0""#), "{junit}");

    // GitHub: a warning, not an error.
    std::fs::remove_file(dir.path().join("count")).unwrap();
    let (out, _) = run(
        dir.path(),
        &["--no-history", "--retries", "1", "--format", "github"],
    );
    let shown = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{}", output_text(&out));
    assert!(
        shown.contains("::warning file=suite.mcpr,line=6,col=3,title=mcpr%3A Echo (flaky)::flaky: passed on attempt 2"),
        "{shown}"
    );
    assert!(!shown.contains("::error"), "{shown}");
}

#[test]
fn without_retries_the_flaky_test_fails_and_its_dependent_is_blocked() {
    let dir = scratch(&[]);
    std::fs::write(dir.path().join("suite.mcpr"), suite(dir.path(), 1, "", "")).unwrap();
    let (out, report) = run(dir.path(), &["--no-history"]);
    assert_eq!(out.status.code(), Some(1), "{}", output_text(&out));
    let echo = test(&report, "echo");
    assert_eq!(echo["status"], "failed");
    assert!(echo.get("attempts").is_none(), "{echo:#}");
    assert!(echo.get("previousAttempts").is_none(), "{echo:#}");
    assert_eq!(test(&report, "after")["status"], "blocked");
}

#[test]
fn a_test_out_of_retries_fails_with_every_attempt_kept() {
    let dir = scratch(&[]);
    // Five sessions fail: two retries are not enough.
    std::fs::write(dir.path().join("suite.mcpr"), suite(dir.path(), 5, "", "")).unwrap();
    let (out, report) = run(
        dir.path(),
        &["--no-history", "--retries", "2", "--junit", "junit.xml"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", output_text(&out));
    let echo = test(&report, "echo");
    assert_eq!(echo["status"], "failed");
    assert_eq!(echo["attempts"], 3);
    assert_eq!(echo["previousAttempts"].as_array().unwrap().len(), 2);
    assert!(
        stdout(&out).contains("✗ Echo failed (3 attempts)"),
        "{}",
        output_text(&out)
    );
    let junit = std::fs::read_to_string(dir.path().join("junit.xml")).unwrap();
    assert_eq!(junit.matches("<rerunFailure ").count(), 2, "{junit}");
    // Three sessions were used by the retried test; a blocked test opens none.
    let count = std::fs::read_to_string(dir.path().join("count")).unwrap();
    assert_eq!(count.trim(), "3");
}

#[test]
fn a_tests_own_retries_win_over_the_flag_which_wins_over_the_suite_default() {
    let dir = scratch(&[]);
    // The test says 1: `--retries 0` does not take it away.
    let text = suite(dir.path(), 1, "", "  Retries: 1\n");
    std::fs::write(dir.path().join("suite.mcpr"), text).unwrap();
    let (out, report) = run(dir.path(), &["--no-history", "--retries", "0"]);
    assert_eq!(out.status.code(), Some(0), "{}", output_text(&out));
    assert_eq!(test(&report, "echo")["status"], "flaky");

    // `Default retries: 1`, and `MCPR_RETRIES=0` over it: the test fails.
    std::fs::remove_file(dir.path().join("count")).unwrap();
    let text = suite(dir.path(), 1, "Default retries: 1\n", "");
    std::fs::write(dir.path().join("suite.mcpr"), text).unwrap();
    let out = mcpr_in(dir.path())
        .args(["run", "suite.mcpr", "--no-history", "--json", "report.json"])
        .env("MCPR_RETRIES", "0")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", output_text(&out));
    // Without the variable the suite's default applies.
    std::fs::remove_file(dir.path().join("count")).unwrap();
    let (out, report) = run(dir.path(), &["--no-history"]);
    assert_eq!(out.status.code(), Some(0), "{}", output_text(&out));
    assert_eq!(test(&report, "echo")["status"], "flaky");

    // Out of range: a located usage error.
    let out = mcpr_in(dir.path())
        .args(["run", "suite.mcpr", "--no-history"])
        .env("MCPR_RETRIES", "500")
        .output()
        .unwrap();
    common::assert_exit_with(&out, 2, "at most 100 (MCPR_RETRIES)");
}

#[test]
fn a_retry_in_a_shared_session_suite_opens_a_new_session() {
    let dir = scratch(&[]);
    let text = suite(dir.path(), 1, "Session: shared\n", "");
    std::fs::write(dir.path().join("suite.mcpr"), text).unwrap();
    let (out, report) = run(dir.path(), &["--no-history", "--retries", "1"]);
    assert_eq!(out.status.code(), Some(0), "{}", output_text(&out));
    let echo = test(&report, "echo");
    assert_eq!(echo["status"], "flaky", "{echo:#}");
    let failed_in = echo["previousAttempts"][0]["session"].as_u64().unwrap();
    let passed_in = echo["session"].as_u64().unwrap();
    assert_ne!(failed_in, passed_in, "{echo:#}");
    // The next test shares the session of the attempt that passed.
    assert_eq!(test(&report, "after")["session"].as_u64(), Some(passed_in));
}

#[test]
fn a_flaky_test_over_http_passes_on_a_retry_in_a_new_http_session() {
    let dir = scratch(&[]);
    let count = dir.path().join("count");
    let server = HttpServer::start(
        reference_server(),
        &["--http", "127.0.0.1:0", "--flaky", count.to_str().unwrap()],
    );
    std::fs::write(dir.path().join("suite.mcpr"), suite(dir.path(), 1, "", "")).unwrap();
    let (out, report) = run(
        dir.path(),
        &[
            "--no-history",
            "--retries",
            "1",
            "--url",
            &server.url,
            "--protocol",
            "2025-11-25",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", output_text(&out));
    assert_eq!(test(&report, "echo")["status"], "flaky");
    assert_eq!(test(&report, "after")["status"], "passed");
}

#[test]
fn quarantined_tests_run_are_reported_and_do_not_fail_the_run() {
    let dir = scratch(&[("quarantine.txt", "# known flaky\nech*  # upstream issue\n")]);
    std::fs::write(dir.path().join("suite.mcpr"), suite(dir.path(), 1, "", "")).unwrap();
    let (out, report) = run(
        dir.path(),
        &["--no-history", "--quarantine", "quarantine.txt"],
    );
    let text = output_text(&out);
    // Echo fails, After is blocked by it: both quarantined, the run passes.
    assert_eq!(out.status.code(), Some(0), "{text}");
    let echo = test(&report, "echo");
    assert_eq!(echo["status"], "failed");
    assert_eq!(echo["quarantined"], true);
    let after = test(&report, "after");
    assert_eq!(after["status"], "blocked");
    assert_eq!(after["quarantined"], true);
    let summary = &report["suites"][0]["summary"];
    assert_eq!(summary["quarantined"], 2, "{summary}");
    assert_eq!(summary["failed"], 0);
    assert_eq!(report["status"], "passed");
    assert!(
        stdout(&out).contains("✗ Echo failed, quarantined"),
        "{text}"
    );
    assert!(stdout(&out).contains("2 quarantined"), "{text}");

    // Now it passes: the report says the entry can go.
    let (out, report) = run(
        dir.path(),
        &[
            "--no-history",
            "--quarantine",
            "quarantine.txt",
            "--junit",
            "j.xml",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", output_text(&out));
    assert_eq!(test(&report, "echo")["status"], "passed");
    assert_eq!(test(&report, "echo")["quarantined"], true);
    assert!(
        stdout(&out).contains("passes now: remove it from the quarantine"),
        "{}",
        output_text(&out)
    );
    let junit = std::fs::read_to_string(dir.path().join("j.xml")).unwrap();
    assert!(junit.contains(r#"<property name="mcpr.quarantined" value="true"/>"#));

    // A test not in the quarantine still fails the run.
    std::fs::remove_file(dir.path().join("count")).unwrap();
    std::fs::write(dir.path().join("quarantine.txt"), "after\n").unwrap();
    let (out, _) = run(
        dir.path(),
        &["--no-history", "--quarantine", "quarantine.txt"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", output_text(&out));

    // The file comes from mcpr.toml too; a missing file is a usage error naming it.
    std::fs::write(
        dir.path().join("mcpr.toml"),
        "[run]\nquarantine = \"nope.txt\"\n",
    )
    .unwrap();
    let out = mcpr_in(dir.path())
        .args(["run", "suite.mcpr", "--no-history"])
        .output()
        .unwrap();
    common::assert_exit_with(&out, 2, "cannot read the quarantine file");
    common::assert_exit_with(&out, 2, "nope.txt");
}

#[test]
fn the_history_flags_a_test_whose_outcome_keeps_flipping() {
    let dir = scratch(&[]);
    std::fs::write(dir.path().join("suite.mcpr"), suite(dir.path(), 1, "", "")).unwrap();
    let history = ["--history", "history.jsonl"];
    // failed (a new count), passed (the count is spent), failed again.
    let (out, report) = run(dir.path(), &history);
    assert_eq!(out.status.code(), Some(1), "{}", output_text(&out));
    assert!(report["suites"][0].get("flips").is_none());
    let (out, report) = run(dir.path(), &history);
    assert_eq!(out.status.code(), Some(0), "{}", output_text(&out));
    assert!(
        report["suites"][0].get("flips").is_none(),
        "one change is no flip-flop"
    );
    std::fs::remove_file(dir.path().join("count")).unwrap();
    let (out, report) = run(dir.path(), &history);
    assert_eq!(out.status.code(), Some(1), "{}", output_text(&out));
    let flips = report["suites"][0]["flips"].as_array().unwrap();
    assert_eq!(flips.len(), 1, "{report:#}");
    assert_eq!(flips[0]["id"], "echo");
    assert_eq!(flips[0]["flips"], 2);
    assert_eq!(flips[0]["runs"], 3);
    assert!(
        stdout(&out).contains("Echo flipped 2 times in the last 3 runs"),
        "{}",
        output_text(&out)
    );
}
