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
    // One diagnostic per error: the flow the unreadable file would have defined is not
    // reported again as unknown (MCPLANG401).
    assert!(!err.contains("MCPLANG401"), "{err}");
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

/// One size limit for every command that reads suites: `--max-file-size` first, then
/// `MCPR_MAX_FILE_SIZE`, then the default (docs/language.md, "The size limit").
#[test]
fn the_size_limit_is_set_by_flag_or_environment_for_every_command() {
    let dir = scratch(&[("suite.mcpr", SUITE), ("lib/flows.mcpr", FLOWS)]);
    let flagged: [&[&str]; 4] = [
        &["check", "suite.mcpr"],
        &["compile", "suite.mcpr", "--emit", "ir"],
        &["convert", "suite.mcpr", "--to", "yaml"],
        &["run", "suite.mcpr"],
    ];
    for args in flagged {
        let out = mcpr(dir.path())
            .args(args)
            .args(["--max-file-size", "64B"])
            .output()
            .unwrap();
        // `check` reports on stdout, the other commands on stderr.
        let err = common::output_text(&out);
        assert_ne!(out.status.code(), Some(0), "{args:?}: {err}");
        assert!(err.contains("MCPLANG607"), "{args:?}: {err}");
        assert!(err.contains("at most 64 bytes"), "{args:?}: {err}");
    }
    // An import over the limit the environment sets: MCPLANG305.
    let padded = format!(
        "{FLOWS}{}",
        "# a comment line to make the file larger\n".repeat(10)
    );
    let dir = scratch(&[("suite.mcpr", SUITE), ("lib/flows.mcpr", &padded)]);
    let out = mcpr(dir.path())
        .args(["check", "suite.mcpr"])
        .env("MCPR_MAX_FILE_SIZE", "300")
        .output()
        .unwrap();
    // (`check` exits 2 on errors.)
    assert_eq!(out.status.code(), Some(2), "{}", common::output_text(&out));
    let text = common::output_text(&out);
    assert!(text.contains("MCPLANG305"), "{text}");
    // The flow of the file that could not be read is not reported again as unknown.
    assert!(!text.contains("MCPLANG401"), "{text}");
    // The flag wins over the environment.
    let out = mcpr(dir.path())
        .args(["check", "suite.mcpr", "--max-file-size", "1MiB"])
        .env("MCPR_MAX_FILE_SIZE", "300")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", common::output_text(&out));
    // A value that is not a size is a usage error that names where it came from.
    let out = mcpr(dir.path())
        .args(["check", "suite.mcpr"])
        .env("MCPR_MAX_FILE_SIZE", "lots")
        .output()
        .unwrap();
    common::assert_exit_with(&out, 2, "MCPR_MAX_FILE_SIZE");
    let out = mcpr(dir.path())
        .args(["check", "suite.mcpr", "--max-file-size", "12 parsecs"])
        .output()
        .unwrap();
    common::assert_exit_with(&out, 2, "not a size");
}
