//! The command line as a user sees it: exit codes, output formats, colour
//! rules. Snapshots keep the printed text stable.

mod common;
use common::{reference_server, scratch};

use insta_cmd::assert_cmd_snapshot;
use std::path::Path;
use std::process::Command;

fn mcpr() -> Command {
    let mut cmd = common::mcpr_bin();
    cmd.current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."));
    cmd.env_remove("NO_COLOR");
    // Runs from the repository must not add to its own run history (.mcpr/history.jsonl).
    cmd.env("MCPR_NO_HISTORY", "1");
    cmd
}

#[test]
fn check_clean_folder_exits_zero() {
    assert_cmd_snapshot!(mcpr().args(["check", "conformance-tests/compiler/valid"]));
}

const ODD: &str = "Server: node server.js\n\nTest: \"Create customer\"\n  Call tool \"create\"\n   Expect it succeeds\n";
const TYPOS: &str = "Server: node server.js\nDefault timeout: 10 minutes\n\nTest: \"Typos\"\n  Cal tool \"add\"\n  Call tool \"add\"\n  Wait up to 2.5 seconds\n";

#[test]
fn check_reports_errors_and_exits_two() {
    let dir = scratch(&[("suite.mcpr", ODD)]);
    assert_cmd_snapshot!(mcpr().current_dir(dir.path()).args(["check", "suite.mcpr"]));
}

#[test]
fn check_short_and_github_formats() {
    let dir = scratch(&[("a.mcpr", TYPOS), ("b.mcpr", ODD)]);
    assert_cmd_snapshot!(
        mcpr()
            .current_dir(dir.path())
            .args(["check", "--format", "short", "b.mcpr", "a.mcpr"])
    );
    assert_cmd_snapshot!(
        mcpr()
            .current_dir(dir.path())
            .args(["check", "--format", "github", "."])
    );
}

#[test]
fn check_json_is_machine_readable() {
    let out = mcpr()
        .args([
            "check",
            "--format",
            "json",
            "conformance-tests/compiler/invalid/209-malformed-table.mcpr",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["version"], 1);
    let tables: Vec<_> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "MCPLANG209")
        .collect();
    assert_eq!(tables.len(), 8);
    assert!(v["summary"]["errors"].as_u64().unwrap() >= 8);
    let first = tables[0];
    assert_eq!(first["code"], "MCPLANG209");
    assert_eq!(first["line"], 3);
    assert_eq!(first["range"]["start"]["line"], 2);
}

#[test]
fn colour_only_when_asked_or_on_a_terminal() {
    let dir = scratch(&[("suite.mcpr", ODD)]);
    let file = dir.path().join("suite.mcpr");
    // Piped output (not a terminal): no escape codes.
    let plain = mcpr().arg("check").arg(&file).output().unwrap();
    assert!(!String::from_utf8_lossy(&plain.stdout).contains('\u{1b}'));
    let forced = mcpr()
        .args(["check", "--color", "always"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&forced.stdout).contains('\u{1b}'));
    let never = mcpr()
        .arg("check")
        .arg(&file)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&never.stdout).contains('\u{1b}'));
}

#[test]
fn missing_path_is_a_usage_error() {
    assert_cmd_snapshot!(mcpr().args(["check", "no/such/file.mcpr"]));
}

#[test]
fn explain_prints_the_page() {
    let out = mcpr().args(["explain", "MCPLANG204"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("# MCPLANG204: Unknown statement"));
    let short = mcpr().args(["explain", "102"]).output().unwrap();
    assert!(String::from_utf8_lossy(&short.stdout).starts_with("# MCPLANG102:"));
    assert_cmd_snapshot!(mcpr().args(["explain", "MCPLANG999"]));
}

#[test]
fn compile_emits_the_located_tree() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.mcpr");
    std::fs::write(
        &file,
        "Test: \"ü𝄞\"\n  Call tool \"add\" with:\n    a: 1\nServer: node server.js\n",
    )
    .unwrap();
    let out = mcpr()
        .args(["compile", "--emit", "ast"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let test = &v["nodes"][0];
    assert_eq!(test["form"], "testHeader");
    assert_eq!(test["declKind"], "blockHeader");
    // The name's semantic span is inside the quotes: column 8, UTF-16 units.
    assert_eq!(test["semanticSpan"]["start"]["column"], 8);
    assert_eq!(test["semanticSpan"]["end"]["column"], 11);
    let call = &test["children"][0];
    assert_eq!(call["form"], "callTool");
    assert_eq!(call["indent"], 2);
    assert_eq!(call["span"]["start"]["line"], 2);
    assert_eq!(call["span"]["start"]["offset"], 14);
    assert_eq!(call["yaml"]["value"]["a"], 1);
}

#[test]
fn adhoc_commands_talk_to_a_real_server() {
    let server = reference_server();
    let out = mcpr()
        .args(["call", "add", r#"{"a": 2, "b": 3}"#, "--", &server])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["structuredContent"]["sum"], 5);

    let out = mcpr()
        .args(["tools", "--protocol", "2025-11-25", "--", &server])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "add")
    );

    let out = mcpr()
        .args(["ping", "--protocol", "2025-11-25", "--", &server])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["protocolVersion"], "2025-11-25");
    assert!(
        v["startupMs"].is_number() && v["roundTripMs"].is_number(),
        "{v}"
    );
    assert_eq!(v["era"], "legacy");

    // A missing server is a named failure with exit code 3.
    let out = mcpr()
        .args(["ping", "--", "/no/such/server"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("MCP-SPAWN-001"));
    // No server at all is a usage error.
    let out = mcpr().args(["tools"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = mcpr()
        .args(["call", "add", "not json", "--", &server])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

const YAML_TYPO: &str = "version: 1\ntarget:\n  transport: stdio\n  command: node\ntests:\n  - name: Adds\n    steps:\n      - tool:\n          name: add\n        asert:\n          status: success\n";

#[test]
fn check_reports_a_yaml_error_with_a_caret() {
    let dir = scratch(&[("suite.yaml", YAML_TYPO)]);
    assert_cmd_snapshot!(mcpr().current_dir(dir.path()).args(["check", "suite.yaml"]));
}

/// In a folder, `.yaml`/`.yml`/`.json` files are checked when they are suites (a top level
/// with `version` and `tests`), broken ones included; other YAML and JSON files are left alone.
#[test]
fn check_folders_pick_up_yaml_and_json_suites_only() {
    let good = "version: 1\ntarget: {transport: stdio, command: node}\ntests:\n  - name: a\n    steps:\n      - request: {method: ping}\n";
    let dir = scratch(&[
        ("suites/good.yaml", good),
        ("suites/typo.yml", YAML_TYPO),
        (
            "suites/ir.json",
            r#"{"version": 1, "target": {"transport": "stdio", "command": "node"}, "tests": [{"name": "j", "steps": [{"request": {"method": "ping"}}]}]}"#,
        ),
        (
            "suites/broken.yaml",
            "version: 1\ntests:\n  - name: [unclosed\n",
        ),
        (
            "suites/compose.yml",
            "version: \"3.8\"\nservices:\n  db:\n    image: postgres\n",
        ),
        ("suites/data.json", "[{\"id\": 1}, {\"id\": 2}]"),
        (".github/workflows/ci.yml", "on: push\njobs: {}\n"),
        ("suites/notes.yaml", "tests: [a, b]\n"),
    ]);
    let out = mcpr()
        .current_dir(dir.path())
        .args(["check", "--format", "short", "."])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{stdout}");
    assert!(
        stdout.contains("suites/typo.yml:10:9: error MCPLANG602"),
        "{stdout}"
    );
    assert!(stdout.contains("suites/broken.yaml:3:"), "{stdout}");
    assert!(stdout.contains("4 files"), "{stdout}");
    for other in ["compose", "data.json", "ci.yml", "notes"] {
        assert!(!stdout.contains(other), "{other} was checked: {stdout}");
    }
}

#[test]
fn compile_emits_the_ir_of_a_yaml_suite_and_no_tree() {
    let dir = scratch(&[("suite.yaml", YAML_TYPO.replace("asert", "assert").as_str())]);
    let ir = mcpr()
        .current_dir(dir.path())
        .args(["compile", "suite.yaml", "--emit", "ir"])
        .output()
        .unwrap();
    assert_eq!(ir.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&ir.stdout).unwrap();
    assert_eq!(v["tests"][0]["steps"][0]["assert"]["status"], "success");
    assert_eq!(
        v["tests"][0]["steps"][0]["source"],
        serde_json::json!({"file": "suite.yaml", "line": 8, "column": 9})
    );
    let ast = mcpr()
        .current_dir(dir.path())
        .args(["compile", "suite.yaml", "--emit", "ast"])
        .output()
        .unwrap();
    assert_eq!(ast.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&ast.stderr).contains("use --emit ir"));
}

#[test]
fn schema_prints_the_published_schema() {
    let out = mcpr().arg("schema").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let file = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/schema/suite.schema.json"),
    )
    .unwrap();
    assert_eq!(text.trim_end(), file.trim_end());
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["$id"], mcpr_compiler::ir::SCHEMA_ID);
    assert_eq!(v["$schema"], "https://json-schema.org/draft/2020-12/schema");
}

/// `mcpr … | head`: a reader that closes the pipe early ends the command quietly with 141
/// (128 + SIGPIPE), with no panic message, for printing commands and for the schema alike.
#[test]
fn a_closed_stdout_ends_quietly() {
    for args in [
        &["check", "conformance-tests/compiler/invalid"][..],
        &["explain", "MCPLANG101"][..],
        &["schema"][..],
    ] {
        // The read end is closed before the command starts: its first write meets EPIPE.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = mcpr()
            .args(args)
            .stdout(writer)
            .stderr(std::process::Stdio::piped())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(141), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}
