//! `mcpr convert`: every direction between `.mcpr`, YAML and JSON, through the binary, with
//! the converted suites checked and run against the reference server.

mod common;
use common::{reference_server, scratch};

use insta_cmd::assert_cmd_snapshot;
use std::path::Path;
use std::process::{Command, Output};

fn mcpr() -> Command {
    let mut cmd = common::mcpr_bin();
    cmd.current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."));
    cmd.env("NO_COLOR", "1");
    // Runs from the repository must not add to its own run history (.mcpr/history.jsonl).
    cmd.env("MCPR_NO_HISTORY", "1");
    cmd
}

fn text(out: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

const SUITE: &str = r#"MCP Test 1
Suite: "Shop"
Server: node server.js --port 0
Redact: "s3cret"

Test: "Create customer"
  Id: create
  Call tool "create_customer" with:
    name: Ada
    vip: true
  Expect it succeeds
  Expect "structuredContent.id" matches ^C-[0-9]+$
  Export "structuredContent.id" as "customerId"

Test: "Read customer"
  Depends on: create
  Cleanup:
  Call tool "get_customer" with:
    id: "${deps.create.customerId}"
  Expect error code -32602
"#;

#[test]
fn mcpr_to_yaml_is_the_default_and_canonical() {
    let dir = scratch(&[("shop.mcpr", SUITE)]);
    assert_cmd_snapshot!(
        mcpr()
            .current_dir(dir.path())
            .args(["convert", "shop.mcpr"])
    );
}

#[test]
fn yaml_and_json_convert_back_to_the_same_mcpr_which_checks_clean() {
    let dir = scratch(&[("shop.mcpr", SUITE)]);
    let run = |args: &[&str]| {
        let out = mcpr().current_dir(dir.path()).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        out
    };
    run(&["convert", "shop.mcpr", "--to", "yaml", "-o", "shop.yaml"]);
    run(&[
        "convert",
        "shop.mcpr",
        "--to",
        "json",
        "--output",
        "shop.json",
    ]);
    let from_yaml = run(&["convert", "shop.yaml"]).stdout;
    let from_json = run(&["convert", "shop.json", "--to", "mcpr"]).stdout;
    assert_eq!(from_yaml, from_json);
    std::fs::write(dir.path().join("again.mcpr"), &from_yaml).unwrap();
    run(&["check", "again.mcpr"]);
    // Canonical .mcpr is a fixed point, and its YAML is the YAML of the original.
    assert_eq!(
        run(&["convert", "again.mcpr", "--to", "mcpr"]).stdout,
        from_yaml
    );
    assert_eq!(
        run(&["convert", "again.mcpr"]).stdout,
        std::fs::read(dir.path().join("shop.yaml")).unwrap()
    );
    // The IR is the same whichever way the suite came.
    let ir = |file: &str| run(&["compile", file, "--emit", "ir"]).stdout;
    let strip = |bytes: Vec<u8>| {
        let mut v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        for t in v["tests"].as_array_mut().unwrap() {
            for s in t["steps"].as_array_mut().unwrap() {
                s.as_object_mut().unwrap().remove("source");
                // The expectations and each assertion name their own `Expect` lines too.
                if let Some(a) = s["assert"].as_object_mut() {
                    a.remove("source");
                }
                for a in s["assert"]["json"].as_array_mut().into_iter().flatten() {
                    a.as_object_mut().unwrap().remove("source");
                }
            }
        }
        v
    };
    assert_eq!(strip(ir("shop.mcpr")), strip(ir("again.mcpr")));
}

#[test]
fn a_file_with_errors_is_not_converted() {
    let bad = "Server: node server.js\n\nTest: \"Typo\"\n  Cal tool \"add\"\n";
    let dir = scratch(&[("bad.mcpr", bad)]);
    let out = mcpr()
        .current_dir(dir.path())
        .args(["convert", "bad.mcpr", "-o", "out.yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(out.stdout.is_empty(), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("MCPLANG204") && err.contains("bad.mcpr:4:3"),
        "{err}"
    );
    assert!(err.contains("nothing was converted"), "{err}");
    assert!(!dir.path().join("out.yaml").exists());
}

#[test]
fn unreadable_inputs_are_usage_errors() {
    let flows = "Flow: \"Ping\"\n  Send \"ping\"\n";
    let dir = scratch(&[
        ("broken.json", "{\"version\": 1, \"tests\": ["),
        (
            "wrong.yaml",
            "version: 1\ntarget:\n  transport: stdio\n  command: x\ntests: yes\n",
        ),
        ("flows.mcpr", flows),
        ("notes.txt", "hello"),
        ("script.mcp", "echo \"unterminated\n"),
    ]);
    // YAML/JSON and .mcp input is compiled: its problems are located diagnostics.
    for (file, needle) in [
        ("broken.json", "MCPLANG601 broken.json:1:25"),
        ("wrong.yaml", "MCPLANG603 wrong.yaml:5:8"),
        ("flows.mcpr", "no tests to convert"),
        ("notes.txt", "cannot tell the format"),
        ("script.mcp", "MCPLANG701 script.mcp:1:"),
        ("missing.mcpr", "cannot read missing.mcpr"),
    ] {
        let out = mcpr()
            .current_dir(dir.path())
            .args(["convert", file])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{file}: {}", text(&out));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(needle),
            "{file}: {}",
            text(&out)
        );
    }
}

#[test]
fn a_converted_suite_runs_like_the_original() {
    let server = reference_server();
    let tmp = tempfile::tempdir().unwrap();
    let json = tmp.path().join("customers.json");
    let out = mcpr()
        .args(["convert", "examples/customers.mcpr", "--to", "json", "-o"])
        .arg(&json)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let printed = tmp.path().join("customers.mcpr");
    let out = mcpr()
        .arg("convert")
        .arg(&json)
        .arg("-o")
        .arg(&printed)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    for file in [&json, &printed] {
        let out = mcpr()
            .arg("run")
            .arg(file)
            .args(["--server", &server])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        assert!(
            String::from_utf8_lossy(&out.stdout)
                .contains("8 passed, 0 failed, 0 skipped, 0 blocked"),
            "{}",
            text(&out)
        );
    }
}

/// Commands that a phrase does exactly become that phrase below a comment with their script
/// line; the converted suite runs green against the reference server as the script does, and
/// a step's failure is still reported (the phrases are real steps, not comments).
#[test]
fn a_legacy_script_converts_to_phrases_that_run_the_same() {
    let server = reference_server();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let tmp = tempfile::tempdir().unwrap();
    for name in ["02_errors", "04_notifications", "05_tasks"] {
        let script = root.join(format!("conformance-tests/legacy/valid/{name}.mcp"));
        let out_path = tmp.path().join(format!("{name}.mcpr"));
        let out = mcpr()
            .arg("convert")
            .arg(&script)
            .arg("-o")
            .arg(&out_path)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{name}: {}", text(&out));
        let printed = std::fs::read_to_string(&out_path).unwrap();
        let out = mcpr()
            .arg("run")
            .arg(&out_path)
            .args(["--server", &server])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{name}: {}\n{printed}",
            text(&out)
        );
        if name == "04_notifications" {
            for line in [
                "  # subscribe fixture://status\n  Subscribe to resource \"fixture://status\"\n",
                "  # wait_notification tools/list_changed\n  Wait for notification \"notifications/tools/list_changed\" within 5 seconds\n",
            ] {
                assert!(printed.contains(line), "{line}\n---\n{printed}");
            }
            // The phrase is the step: a wait that nothing answers fails the run.
            let broken = printed.replace(
                "Wait for notification \"notifications/tools/list_changed\" within 5 seconds",
                "Wait for notification \"notifications/never/sent\" within 200 ms",
            );
            std::fs::write(&out_path, broken).unwrap();
            let out = mcpr()
                .arg("run")
                .arg(&out_path)
                .args(["--server", &server])
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(1), "{}", text(&out));
        }
    }
}

/// A legacy `.mcp` script converts to `.mcpr` (the default), YAML and JSON; each checks clean
/// and runs against the reference server with the script's outcome.
#[test]
fn a_legacy_script_converts_to_every_format_and_runs_the_same() {
    let server = reference_server();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let script = root.join("conformance-tests/legacy/valid/01_basics.mcp");
    let tmp = tempfile::tempdir().unwrap();
    let mut outputs = Vec::new();
    for (to, name) in [
        (None, "basics.mcpr"),
        (Some("yaml"), "basics.yaml"),
        (Some("json"), "basics.json"),
    ] {
        let out_path = tmp.path().join(name);
        let mut cmd = mcpr();
        cmd.arg("convert").arg(&script).arg("-o").arg(&out_path);
        if let Some(to) = to {
            cmd.args(["--to", to]);
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{name}: {}", text(&out));
        outputs.push(out_path);
    }
    let printed = std::fs::read_to_string(&outputs[0]).unwrap();
    assert!(
        printed.contains("\nServer from the command line\n")
            && printed.contains("\n  Continue on failure\n"),
        "{printed}"
    );
    for file in std::iter::once(&script).chain(&outputs) {
        let out = mcpr().arg("check").arg(file).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("no problems found"),
            "{}",
            text(&out)
        );
        // No server in the suite: run needs one from the command line.
        let out = mcpr().arg("run").arg(file).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        let out = mcpr()
            .arg("run")
            .arg(file)
            .args(["--server", &server])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}: {}",
            file.display(),
            text(&out)
        );
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("1 passed, 0 failed"),
            "{}",
            text(&out)
        );
    }
}
