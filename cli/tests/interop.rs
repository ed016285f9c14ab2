//! Interop suites written in `.mcpr` (`conformance-tests/interop/suites/`) run by `mcpr run`
//! against public servers — server-everything, server-memory and a Python SDK server — with
//! the expected outcome of every test in its `# expect:` comment. Ignored by default: the
//! servers come from `conformance-tests/interop/install.sh`, which `.ci/run` runs first
//! (`cargo test --workspace --test interop -- --ignored`).

use std::path::{Path, PathBuf};

use serde_json::Value;

mod common;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn interop_dir() -> PathBuf {
    let dir = std::env::var("MCPR_INTEROP_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| std::env::temp_dir().join("mcpr-interop"));
    assert!(
        dir.join("node_modules").is_dir() && dir.join("venv").is_dir(),
        "the interop servers are not installed in {} (run conformance-tests/interop/install.sh)",
        dir.display()
    );
    dir
}

/// `(test name, status, code)` from the `# expect: STATUS [CODE]` line above each test.
fn expectations(source: &str) -> Vec<(String, String, Option<String>)> {
    let mut out = Vec::new();
    let mut pending = None;
    for line in source.lines() {
        if let Some(rest) = line.strip_prefix("# expect:") {
            let mut w = rest.split_whitespace();
            pending = Some((w.next().unwrap().to_string(), w.next().map(str::to_string)));
        } else if let Some(name) = line.strip_prefix("Test:") {
            let (status, code) = pending.take().expect("`# expect:` above every test");
            out.push((name.trim().trim_matches('"').to_string(), status, code));
        }
    }
    out
}

fn run_suite(name: &str) {
    let file = root().join("conformance-tests/interop/suites").join(name);
    let source = std::fs::read_to_string(&file).unwrap();
    let expected = expectations(&source);
    let scratch = tempfile::tempdir().unwrap();
    let report = scratch.path().join("report.json");
    let out = common::mcpr_bin()
        .current_dir(root())
        .env("MCPR_INTEROP_DIR", interop_dir())
        .env("MCPR_INTEROP_SCRATCH", scratch.path())
        .env("NO_COLOR", "1")
        .args(["run", "--no-history", "--jobs", "2", "--json"])
        .arg(&report)
        .arg(&file)
        .output()
        .unwrap();
    let shown = format!(
        "{name}:\nstdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let any_bad = expected
        .iter()
        .any(|(_, s, _)| s != "passed" && s != "skipped");
    assert_eq!(out.status.code(), Some(i32::from(any_bad)), "{shown}");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let tests = report["suites"][0]["tests"].as_array().unwrap();
    assert_eq!(tests.len(), expected.len(), "{shown}");
    for (test, status, code) in expected {
        let t = tests
            .iter()
            .find(|t| t["name"] == test.as_str())
            .unwrap_or_else(|| panic!("no result for {test:?}: {shown}"));
        assert_eq!(t["status"], status.as_str(), "{test}: {t:#}\n{shown}");
        if let Some(code) = code {
            assert_eq!(t["failure"]["code"], code.as_str(), "{test}: {t:#}");
        }
    }
}

#[test]
#[ignore = "needs the interop servers (conformance-tests/interop/install.sh)"]
fn server_everything_suite() {
    run_suite("everything.mcpr");
}

#[test]
#[ignore = "needs the interop servers (conformance-tests/interop/install.sh)"]
fn server_memory_suite() {
    run_suite("memory.mcpr");
}

#[test]
#[ignore = "needs the interop servers (conformance-tests/interop/install.sh)"]
fn python_sdk_suite() {
    run_suite("python-sdk.mcpr");
}
