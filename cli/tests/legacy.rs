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
