//! The language bindings against this build of `mcpr driver`: the npm package's `node --test`
//! suite (npm/mcpr/test) and the Python package's pytest suite (python/tests), each run
//! from the repository with `MCPR_BINARY` naming the binary under test. The installed
//! packages are tested by `conformance-tests/dist/{node,python}.sh` in `.ci/run`.
//!
//! Node.js is on every machine mcpr builds on; pytest is not: `MCPR_PYTEST_PYTHON` names a
//! Python that has it (`.ci/run` sets it). Without one the Python suite says it is skipped,
//! unless `MCPR_REQUIRE_BINDINGS=1` makes that a failure.

mod common;
use common::{output_text, reference_server, repo_root};

use std::process::Command;

fn required() -> bool {
    std::env::var("MCPR_REQUIRE_BINDINGS").is_ok_and(|v| v == "1")
}

/// A command of a binding's suite, with this build's binary and reference server.
fn suite(program: &str) -> Command {
    let mut c = Command::new(program);
    c.env("MCPR_BINARY", env!("CARGO_BIN_EXE_mcpr"))
        .env("MCPR_REFERENCE_SERVER", reference_server())
        .env("MCPR_NO_HISTORY", "1")
        .env_remove("MCPR_NODE_PACKAGE");
    c
}

#[test]
fn the_node_package_passes_its_suite_against_this_build() {
    let dir = repo_root().join("npm/mcpr");
    let tests: Vec<String> = std::fs::read_dir(dir.join("test"))
        .expect("npm/mcpr/test")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".test.mjs") || n.ends_with(".test.cjs"))
        .map(|n| format!("test/{n}"))
        .collect();
    assert!(tests.len() >= 5, "{tests:?}");
    let out = match suite("node")
        .arg("--test")
        .args(&tests)
        .current_dir(&dir)
        .output()
    {
        Ok(out) => out,
        Err(e) if !required() => {
            eprintln!("skipped: node cannot be started ({e})");
            return;
        }
        Err(e) => panic!("node: {e}"),
    };
    assert!(out.status.success(), "{}", output_text(&out));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("# fail 0"), "{report}");
}

#[test]
fn the_python_package_passes_its_suite_against_this_build() {
    let Ok(python) = std::env::var("MCPR_PYTEST_PYTHON") else {
        assert!(
            !required(),
            "MCPR_REQUIRE_BINDINGS=1 but MCPR_PYTEST_PYTHON names no Python with pytest"
        );
        eprintln!("skipped: set MCPR_PYTEST_PYTHON to a Python that has pytest");
        return;
    };
    let root = repo_root();
    let out = suite(&python)
        .args([
            "-m",
            "pytest",
            "-p",
            "mcpr.pytest_plugin",
            "-p",
            "no:cacheprovider",
            "-q",
        ])
        .arg(root.join("python/tests"))
        .env("PYTHONPATH", root.join("python"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .current_dir(&root)
        .output()
        .expect("the Python of MCPR_PYTEST_PYTHON runs");
    assert!(out.status.success(), "{}", output_text(&out));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains(" passed"), "{report}");
}
