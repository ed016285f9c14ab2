//! `mcpr run` and `mcpr check` on legacy `.mcp` scripts: a script names no server, so it
//! runs with `--server`, `--url` or `--profile`; a failing command makes the run exit 1;
//! `input_var` is refused when nobody can answer; folders pick up `.mcp` files.

mod common;
use common::{reference_server, scratch};

use std::process::{Command, Output, Stdio};

fn mcpr(dir: &std::path::Path) -> Command {
    let mut c = common::mcpr_in(dir);
    c.stdin(Stdio::null());
    c
}

fn text(out: &Output) -> String {
    common::output_text(out)
}

const PASSING: &str =
    "echo \"--- adding ---\"\ncall_tool add 2 3\nset_var sum $.sum\nassert_equals $sum \"5\"\n";
const FAILING: &str =
    "call_tool add 2 3\nassert_equals \"6\"\necho \"after the failure\"\nassert_contains \"5\"\n";

#[test]
fn a_passing_script_exits_zero_and_prints_its_echo() {
    let dir = scratch(&[("ok.mcp", PASSING)]);
    let out = mcpr(dir.path())
        .args(["run", "ok.mcp", "--server", &reference_server()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("✓ ok passed"), "{}", text(&out));
    assert!(stdout.contains("--- adding ---"), "{}", text(&out));
}

#[test]
fn a_failing_command_makes_the_run_exit_one_after_running_the_rest() {
    let dir = scratch(&[("bad.mcp", FAILING)]);
    let report = dir.path().join("report.json");
    let out = mcpr(dir.path())
        .args(["run", "bad.mcp", "--server", &reference_server(), "--json"])
        .arg(&report)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("bad.mcp:2:1"), "{}", text(&out));
    assert!(stdout.contains("after the failure"), "{}", text(&out));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let steps = json["suites"][0]["tests"][0]["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 4, "every command ran: {json}");
    assert_eq!(steps[1]["status"], "failed");
    assert_eq!(steps[2]["output"], "after the failure");
    assert_eq!(steps[3]["status"], "passed");
}

#[test]
fn a_script_without_a_server_is_a_usage_error() {
    let dir = scratch(&[("ok.mcp", PASSING)]);
    let out = mcpr(dir.path()).args(["run", "ok.mcp"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("names no server") && stderr.contains("--profile"),
        "{}",
        text(&out)
    );
}

#[test]
fn profiles_of_mcp_tester_yml_name_the_server() {
    let profiles = format!(
        "profiles:\n  local:\n    command: {}\n  off:\n    command: x\n    disabled: true\n",
        reference_server()
    );
    let dir = scratch(&[("ok.mcp", PASSING), ("mcp-tester.yml", &profiles)]);
    let out = mcpr(dir.path())
        .args(["run", "ok.mcp", "--profile", "local"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));

    let out = mcpr(dir.path())
        .args(["run", "ok.mcp", "-p", "off"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("disabled"));

    let out = mcpr(dir.path())
        .args([
            "run",
            "ok.mcp",
            "-p",
            "nope",
            "--profile-file",
            "mcp-tester.yml",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("local, off"));
}

#[test]
fn input_var_is_refused_without_a_terminal() {
    let dir = scratch(&[(
        "ask.mcp",
        "input_var city \"Which city?\"\ncall_tool echo $city\n",
    )]);
    let out = mcpr(dir.path())
        .args(["run", "ask.mcp", "--server", &reference_server()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("MCP-INPUT-001") && stdout.contains("not interactive"),
        "{}",
        text(&out)
    );
}

#[test]
fn check_reads_scripts_in_folders_and_reports_their_problems() {
    let dir = scratch(&[
        ("suite/ok.mcp", PASSING),
        ("suite/typo.mcp", "call_tol add 2 3\n"),
    ]);
    let out = mcpr(dir.path())
        .args(["check", "--format", "short", "suite"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("suite/typo.mcp:1:1") && stdout.contains("MCPLANG702"),
        "{}",
        text(&out)
    );
    assert!(stdout.contains("2 files"), "{}", text(&out));
}

/// Runs `script` (saved as `s.mcp`) against the reference server with `extra` arguments.
fn run_script(script: &str, extra: &[&str]) -> (Output, tempfile::TempDir) {
    let dir = scratch(&[("s.mcp", script)]);
    let out = mcpr(dir.path())
        .args(["run", "s.mcp", "--server", &reference_server()])
        .args(extra)
        .output()
        .unwrap();
    (out, dir)
}

#[test]
fn assert_failures_read_as_mcp_tester_words_them_without_ir_paths() {
    let script = "expect_error assert_string_length \"hello\" 20 30\n\
        assert_contains \"assertion failed: string length 5 is not between 20 and 30\"\n\
        expect_error assert_gt 3 5\n\
        assert_equals \"assertion failed: 3.000000 is not greater than 5.000000\"\n\
        assert_equals \"a\" \"b\"\n";
    let (out, _dir) = run_script(script, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("assertion failed: \"a\" != \"b\""),
        "{}",
        text(&out)
    );
    assert!(!stdout.contains("$ "), "no IR path: {}", text(&out));
    assert!(stdout.contains("s.mcp:5:1"), "{}", text(&out));
    assert!(!stdout.contains("s.mcp:2:1"), "{}", text(&out));
    assert!(!stdout.contains("s.mcp:4:1"), "{}", text(&out));
}

#[test]
fn assert_contains_searches_the_result_as_indented_json() {
    let (out, _dir) = run_script("call_tool add 2 3\nassert_contains '\"sum\": '\n", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

#[test]
fn call_tool_sends_a_progress_token_so_progress_arrives() {
    let script = "call_tool progress steps:2\nwait_notification progress 2s\n";
    let (out, _dir) = run_script(script, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

#[test]
fn a_call_to_a_tool_the_server_does_not_list_is_sent() {
    let script = "expect_error call_tool nosuch 1\nassert_error_code -32602\n";
    let (out, _dir) = run_script(script, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

#[test]
fn wait_notification_keeps_its_duration_when_listen_is_refused() {
    let server = format!("{} --without subscriptions", reference_server());
    let dir = scratch(&[(
        "s.mcp",
        "expect_error wait_notification tools/list_changed 300ms\n",
    )]);
    let started = std::time::Instant::now();
    let out = mcpr(dir.path())
        .args([
            "run",
            "s.mcp",
            "--protocol",
            "2026-07-28",
            "--json",
            "r.json",
        ])
        .args(["--server", &server])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    let ms = report["suites"][0]["tests"][0]["steps"][0]["durationMs"]
        .as_u64()
        .unwrap();
    assert!(ms < 1000, "the wait took {ms} ms: {report}");
    assert!(started.elapsed().as_secs() < 30);
}

#[test]
fn format_json_prints_the_script_summary_and_lists_what_did_not_run() {
    let script = "call_tool add 2 3\nassert_equals \"6\"\ninput_var city\ncall_tool echo $city\necho \"never\"\n";
    let (out, _dir) = run_script(script, &["--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let summary: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
    assert_eq!(summary["executed"], 4, "{summary}");
    assert_eq!(summary["passed"], 1, "{summary}");
    assert_eq!(summary["failed"], 3, "{summary}");
    let failures = summary["failures"].as_array().unwrap();
    assert_eq!(failures[0]["line"], 2, "{summary}");
    assert!(
        failures[0]["error"]
            .as_str()
            .unwrap()
            .starts_with("assertion failed: expected exactly \"6\""),
        "{summary}"
    );
    assert_eq!(summary["notRun"][0]["line"], 5, "{summary}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("not run: "), "{}", text(&out));
}
