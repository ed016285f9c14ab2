//! The live progress bar of `mcpr run`: drawn on a terminal (a pseudo-terminal from
//! `script`), absent from pipes and under CI.

mod common;
use common::reference_server;

use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

fn run_on_a_terminal(ci: Option<&str>) -> String {
    let line = format!(
        "{} run conformance-tests/runtime/lifecycle.mcpr --no-history --server {}",
        env!("CARGO_BIN_EXE_mcpr"),
        reference_server()
    );
    let mut cmd = Command::new("script");
    cmd.current_dir(root())
        .args(["-qec", &line, "/dev/null"])
        .env("NO_COLOR", "1");
    for v in common::AMBIENT.iter().filter(|v| **v != "NO_COLOR") {
        cmd.env_remove(v);
    }
    if let Some(v) = ci {
        cmd.env("CI", v);
    }
    let out = cmd.output().expect("`script` (util-linux) runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_terminal_gets_a_bar_that_counts_tests() {
    let out = run_on_a_terminal(None);
    assert!(out.contains(" tests "), "{out}");
    assert!(out.contains("1/"), "{out}");
    // The bar is hidden until a suite with tests starts: no full bar at `0/0 tests`.
    assert!(!out.contains("0/0"), "{out}");
    // Report lines are printed whole, with the bar cleared first.
    assert!(out.contains("passed ("), "{out}");
}

#[test]
fn ci_and_pipes_get_plain_lines() {
    let out = run_on_a_terminal(Some("true"));
    assert!(out.contains("passed ("), "{out}");
    assert!(!out.contains(" tests "), "{out}");
    let piped = common::mcpr_bin()
        .current_dir(root())
        .args([
            "run",
            "conformance-tests/runtime/lifecycle.mcpr",
            "--no-history",
            "--server",
            &reference_server(),
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&piped.stdout);
    assert!(!text.contains(" tests ") && !text.contains('\r'), "{text}");
}
