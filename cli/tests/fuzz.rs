//! `mcpr fuzz` against the hostile server's `fuzz-target` mode (a planted crash and an
//! outputSchema violation) and the reference server (nothing to find).

mod common;

use common::{mcpr_in, output_text, reference_server, scratch};
use std::path::PathBuf;

fn hostile_server() -> String {
    PathBuf::from(reference_server())
        .with_file_name("mcpr-hostile-server")
        .display()
        .to_string()
}

fn fuzz(dir: &std::path::Path, extra: &[&str]) -> std::process::Output {
    mcpr_in(dir)
        .arg("fuzz")
        .args(extra)
        .args(["--timeout", "10", "--", &hostile_server(), "fuzz-target"])
        .output()
        .unwrap()
}

#[test]
fn the_planted_crash_is_found_minimised_and_written_as_a_test_that_compiles() {
    let dir = scratch(&[]);
    let out = fuzz(dir.path(), &["--seed", "42", "-o", "found"]);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(1), "{}", output_text(&out));
    assert!(
        text.starts_with("mcpr fuzz: seed 42 (reproduce with --seed 42)\n"),
        "{text}"
    );
    assert!(text.contains("finding: divide case"), "{text}");
    assert!(text.contains("MCP-EXIT-001"), "{text}");
    assert!(text.contains("  minimal: {\"b\":0}\n"), "{text}");
    assert!(text.contains("finding: score case"), "{text}");
    assert!(text.contains("MCP-PROTOCOL-008"), "{text}");
    assert!(text.contains("echo: 100 cases"), "{text}");
    let files: Vec<PathBuf> = std::fs::read_dir(dir.path().join("found"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 2, "{files:?}");
    let check = mcpr_in(dir.path())
        .args(["check", "found"])
        .output()
        .unwrap();
    assert_eq!(check.status.code(), Some(0), "{}", output_text(&check));
    let divide = files
        .iter()
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("divide-42-")
        })
        .unwrap();
    let suite = std::fs::read_to_string(divide).unwrap();
    assert!(
        suite.contains("Call tool \"divide\" with:\n    b: 0\n"),
        "{suite}"
    );
    assert!(suite.contains("Expect an error"), "{suite}");
    // The regression test fails while the server still crashes.
    let run = mcpr_in(dir.path())
        .args(["run", "--no-progress"])
        .arg(divide)
        .output()
        .unwrap();
    assert_ne!(run.status.code(), Some(0), "{}", output_text(&run));
    assert!(
        output_text(&run).contains("MCP-EXIT-001"),
        "{}",
        output_text(&run)
    );
}

#[test]
fn the_same_seed_gives_the_same_session_and_another_seed_other_inputs() {
    let dir = scratch(&[]);
    let args = ["--tool", "divide", "--cases", "40", "-o", "out"];
    let a = fuzz(dir.path(), &[&args[..], &["--seed", "7"]].concat());
    let b = fuzz(dir.path(), &[&args[..], &["--seed", "7"]].concat());
    assert_eq!(a.status.code(), Some(1), "{}", output_text(&a));
    assert_eq!(
        String::from_utf8_lossy(&a.stdout),
        String::from_utf8_lossy(&b.stdout)
    );
    let c = fuzz(dir.path(), &[&args[..], &["--seed", "8"]].concat());
    assert!(String::from_utf8_lossy(&c.stdout).contains("seed 8"));
    assert_ne!(
        String::from_utf8_lossy(&a.stdout).replace("seed 7", ""),
        String::from_utf8_lossy(&c.stdout).replace("seed 8", ""),
    );
}

#[test]
fn a_server_that_answers_everything_has_no_findings() {
    let dir = scratch(&[]);
    let out = mcpr_in(dir.path())
        .args([
            "fuzz", "--tool", "echo", "--cases", "30", "--seed", "1", "--",
        ])
        .arg(reference_server())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", output_text(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("echo: 30 cases"));
    assert!(!dir.path().join("mcpr-fuzz").exists());
    let unknown = mcpr_in(dir.path())
        .args(["fuzz", "--tool", "nope", "--"])
        .arg(reference_server())
        .output()
        .unwrap();
    common::assert_exit_with(&unknown, 2, "the server has no tool \"nope\"");
}
