//! `mcpr compile --emit ir` and the lowering side of `mcpr check`: exit codes, the IR on
//! stdout, diagnostics on stderr, imports read from the file system, `--pedantic`.

mod common;
use common::scratch;

use std::process::Command;

fn mcpr(dir: &std::path::Path) -> Command {
    common::mcpr_in(dir)
}

const SUITE: &str = "Server: node server.js\nImport flows from \"./lib/flows.mcpr\"\n\nTest: \"Create\"\n  Use flow \"Create\" with:\n    name: Ada\n  Export \"structuredContent.id\" as \"id\"\n";
const FLOWS: &str =
    "Flow: \"Create\"\n  Inputs: name\n  Call tool \"create\" with:\n    name: \"${name}\"\n";

#[test]
fn compile_emits_the_ir_of_a_suite_with_imports() {
    let dir = scratch(&[("suite.mcpr", SUITE), ("lib/flows.mcpr", FLOWS)]);
    let out = mcpr(dir.path())
        .args(["compile", "suite.mcpr", "--emit", "ir"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ir: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        ir["tests"][0]["steps"][0]["tool"]["arguments"]["name"],
        "${flow0.name}"
    );
    assert_eq!(ir["tests"][0]["variables"]["flow0.name"], "Ada");
    assert_eq!(
        ir["tests"][0]["steps"][0]["source"]["file"],
        "lib/flows.mcpr"
    );
}

#[test]
fn compile_with_errors_prints_diagnostics_and_exits_two() {
    let dir = scratch(&[("suite.mcpr", SUITE)]);
    let out = mcpr(dir.path())
        .args(["compile", "suite.mcpr", "--emit", "ir"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("suite.mcpr:2:20: error MCPLANG302"), "{err}");
    assert!(err.contains("MCPLANG401"), "{err}");
}

#[test]
fn check_pedantic_adds_the_unread_export_warning() {
    let dir = scratch(&[("suite.mcpr", SUITE), ("lib/flows.mcpr", FLOWS)]);
    let plain = mcpr(dir.path())
        .args(["check", "--format", "short", "suite.mcpr"])
        .output()
        .unwrap();
    assert_eq!(plain.status.code(), Some(0));
    assert!(!String::from_utf8_lossy(&plain.stdout).contains("MCPLANG904"));
    let pedantic = mcpr(dir.path())
        .args(["check", "--pedantic", "--format", "short", "suite.mcpr"])
        .output()
        .unwrap();
    assert_eq!(pedantic.status.code(), Some(0));
    let text = String::from_utf8_lossy(&pedantic.stdout);
    assert!(
        text.contains("suite.mcpr:7:37: warning MCPLANG904"),
        "{text}"
    );
}
