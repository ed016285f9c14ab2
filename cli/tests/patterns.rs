//! Catastrophic patterns: `Expect … matches "^(a+)+$"` against a text that almost matches
//! ends within the step's deadline with `MCP-ASSERT-002` (the backtracking engine alone would
//! take years at 52 characters), a schema `pattern` of the same shape ends too, the healthy
//! neighbour test passes, and SIGTERM still stops a run that is matching. Real binaries, a
//! real reference server over real pipes.

mod common;
use common::{mcpr_in, reference_server, scratch};

use std::process::Stdio;
use std::time::{Duration, Instant};

/// Fifty-one `a` and a `!`: `^(a+)+$` tries every way to split the `a`s before it fails.
fn almost() -> String {
    format!("{}!", "a".repeat(51))
}

fn suite(default_timeout: &str, wait: &str) -> String {
    let text = almost();
    format!(
        "MCP Test 1\nSuite: \"Patterns\"\nServer: {server}\nDefault timeout: {default_timeout}\n\n\
         Test: \"Bomb\"\n  Call tool \"echo\" with:\n    text: \"{text}\"\n{wait}  Expect \"content[0].text\" matches \"^(a+)+$\"\n\n\
         Test: \"Schema bomb\"\n  Call tool \"echo\" with:\n    text: \"{text}\"\n{wait}  Expect \"content[0].text\" matches schema:\n    type: string\n    pattern: \"^(a+)+$\"\n\n\
         Test: \"Neighbour\"\n  Call tool \"echo\" with:\n    text: \"C-12\"\n  Expect \"content[0].text\" matches \"^C-[0-9]+$\"\n",
        server = reference_server()
    )
}

fn test<'r>(report: &'r serde_json::Value, name: &str) -> &'r serde_json::Value {
    report["suites"][0]["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no test {name}: {report:#}"))
}

#[test]
fn a_catastrophic_pattern_fails_within_the_step_deadline_with_a_named_code() {
    let dir = scratch(&[("p.mcpr", &suite("30 seconds", "  Wait up to 2 seconds\n"))]);
    let started = Instant::now();
    let out = mcpr_in(dir.path())
        .args([
            "run",
            "p.mcpr",
            "--jobs",
            "1",
            "--no-history",
            "--json",
            "r.json",
        ])
        .output()
        .expect("mcpr runs");
    let took = started.elapsed();
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    let bomb = test(&report, "Bomb");
    assert_eq!(bomb["status"], "failed", "{bomb:#}");
    assert_eq!(bomb["failure"]["code"], "MCP-ASSERT-002", "{bomb:#}");
    let message = bomb["failure"]["message"].as_str().unwrap();
    assert!(
        message.contains("step's deadline of 2 s") && message.contains("52 bytes"),
        "{message}"
    );
    // The schema's pattern is matched by another engine, which gives up on its own.
    let schema = test(&report, "Schema bomb");
    assert_ne!(schema["status"], "passed", "{schema:#}");
    assert_eq!(test(&report, "Neighbour")["status"], "passed", "{report:#}");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(took < Duration::from_secs(15), "the run took {took:?}");
    eprintln!("catastrophic patterns: the run took {took:?}");
}

#[test]
fn sigterm_stops_a_run_that_is_matching() {
    let dir = scratch(&[("p.mcpr", &suite("60 seconds", ""))]);
    let mut child = mcpr_in(dir.path())
        .args([
            "run",
            "p.mcpr",
            "--jobs",
            "1",
            "--no-history",
            "--json",
            "r.json",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("mcpr starts");
    // The first test's answer comes back within a second or two; then it matches.
    std::thread::sleep(Duration::from_secs(3));
    let sent = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > Duration::from_secs(8) {
            let _ = child.kill();
            panic!("mcpr did not stop within 8 s of SIGTERM while matching");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(143));
    eprintln!("stopped {:?} after SIGTERM", start.elapsed());
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    assert_eq!(report["status"], "interrupted", "{report:#}");
    assert_eq!(test(&report, "Bomb")["status"], "interrupted", "{report:#}");
}
