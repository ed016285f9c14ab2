//! `mcpr parity` and `mcpr run --compare` against two real reference-server processes, and
//! `mcpr run --transcript`.

mod common;
use common::{reference_server, scratch};

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn mcpr(dir: &Path) -> Command {
    common::mcpr_in(dir)
}

fn text(out: &Output) -> String {
    common::output_text(out)
}

fn suite(second_mode: &str) -> String {
    let server = reference_server();
    format!(
        r#"Suite: "Parity"
Compare target "one": {server}
Compare target "two": {server}
Target options for "one":
  env:
    MODE: a
Target options for "two":
  env:
    MODE: {second_mode}

Test: "Addition"
  Call tool "add" with:
    a: 2
    b: 3
  Expect "structuredContent.sum" equals 5

Test: "Mode"
  Call tool "environment" with:
    name: MODE
  Expect it succeeds
"#
    )
}

#[test]
fn identical_servers_have_parity() {
    let dir = scratch(&[("p.mcpr", &suite("a"))]);
    let out = mcpr(dir.path())
        .args(["parity", "p.mcpr", "--json", "p.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("mcpr parity — Parity on one (2 tests)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("mcpr parity — Parity on two (2 tests)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("parity: 2 of 2 test(s) behave alike"),
        "{stdout}"
    );
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("p.json")).unwrap()).unwrap();
    let s = &report["suites"][0];
    assert_eq!(s["targets"], serde_json::json!(["one", "two"]));
    assert_eq!(s["equivalent"], true);
    assert_eq!(s["fingerprints"][0], s["fingerprints"][1]);
    assert!(
        s["fingerprints"][0]
            .as_str()
            .unwrap()
            .starts_with("sha256:")
    );
}

#[test]
fn a_different_answer_is_shown_with_its_path_and_fails_parity() {
    let dir = scratch(&[("p.mcpr", &suite("b"))]);
    let out = mcpr(dir.path())
        .args(["parity", "p.mcpr", "--markdown", "p.md"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("= Addition"), "{stdout}");
    assert!(stdout.contains("≠ Mode"), "{stdout}");
    assert!(
        stdout.contains("two: steps[0].response.content[0].text: "),
        "{stdout}"
    );
    assert!(stdout.contains("no parity: 1 of 2 test(s)"), "{stdout}");
    let md = std::fs::read_to_string(dir.path().join("p.md")).unwrap();
    assert!(md.contains("| ≠ | Mode | passed | passed |"), "{md}");
    assert!(md.contains("Mode on two: steps[0].response"), "{md}");

    // `run --compare` is the same comparison.
    let out = mcpr(dir.path())
        .args(["run", "p.mcpr", "--compare"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("≠ Mode"));
}

#[test]
fn parity_needs_two_compare_targets() {
    let server = reference_server();
    let one = format!("Server: {server}\n\nTest: \"A\"\n  Call tool \"echo\" with:\n    text: x\n");
    let dir = scratch(&[("one.mcpr", &one)]);
    let out = mcpr(dir.path())
        .args(["parity", "one.mcpr"])
        .output()
        .unwrap();
    common::assert_exit_with(&out, 2, "MCP-PARITY-001");
}

#[test]
fn transcripts_keep_responses_and_messages_in_the_json_report() {
    let server = reference_server();
    let s = format!(
        "Server: {server}\nRedact: \"hush-hush-42\"\n\nTest: \"A\"\n  Call tool \"echo\" with:\n    text: \"say hush-hush-42\"\n  Call tool \"fail\"\n  Expect an error\n"
    );
    let dir = scratch(&[("t.mcpr", &s)]);
    let out = mcpr(dir.path())
        .args(["run", "t.mcpr", "--transcript", "--json", "r.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let raw = std::fs::read_to_string(dir.path().join("r.json")).unwrap();
    assert!(
        !raw.contains("hush-hush-42"),
        "secret in the transcript: {raw}"
    );
    let report: Value = serde_json::from_str(&raw).unwrap();
    let t = &report["suites"][0]["tests"][0];
    let echo = &t["steps"][0]["response"];
    assert_eq!(echo["content"][0]["text"], "say [REDACTED]", "{t:#}");
    assert!(
        t["steps"][1]["response"]["isError"] == true || t["steps"][1]["error"].is_object(),
        "{t:#}"
    );
    let entries = t["transcript"]["entries"].as_array().unwrap();
    assert!(entries.len() >= 4, "{entries:?}");
    assert_eq!(entries[0]["direction"], "sent");
    assert!(entries.iter().any(|e| e["method"] == "tools/call"));

    // Without --transcript the report stays lean.
    let out = mcpr(dir.path())
        .args(["run", "t.mcpr", "--json", "lean.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let lean = std::fs::read_to_string(dir.path().join("lean.json")).unwrap();
    assert!(!lean.contains("\"response\"") && !lean.contains("\"transcript\""));
}

#[test]
fn ignored_paths_and_a_pinned_protocol() {
    let dir = scratch(&[("p.mcpr", &suite("b"))]);
    let out = mcpr(dir.path())
        .args(["parity", "p.mcpr", "--protocol", "2025-11-25"])
        .args(["--ignore", "content[0].text"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let out = mcpr(dir.path())
        .args(["parity", "p.mcpr", "--protocol", "1999-01-01"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("1999-01-01"), "{}", text(&out));
}
