//! Interop suites written in `.mcpr` (`conformance-tests/interop/suites/`) run by `mcpr run`
//! against public servers — server-everything, server-memory and a Python SDK server — with
//! the expected outcome of every test in its `# expect:` comment; and the runtime suite
//! `conformance-tests/runtime/both-eras.mcpr` in both eras against the Python SDK server
//! `conformance-tests/interop/both_eras_server.py`. Ignored by default: the
//! servers come from `conformance-tests/interop/install.sh`, which `.ci/run` runs first
//! (`cargo test --workspace --test interop -- --ignored`).

use std::path::{Path, PathBuf};

use serde_json::Value;

mod common;

fn root() -> PathBuf {
    common::repo_root()
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
    run_file(name, &file, &[], &expected);
}

/// Runs one suite file with `extra` arguments and checks every test's `(name, status, code)`;
/// returns the report's tests.
fn run_file(
    what: &str,
    file: &Path,
    extra: &[&str],
    expected: &[(String, String, Option<String>)],
) -> Vec<Value> {
    let scratch = tempfile::tempdir().unwrap();
    let report = scratch.path().join("report.json");
    let out = common::mcpr_bin()
        .current_dir(root())
        .env("MCPR_INTEROP_DIR", common::interop_dir())
        .env("MCPR_INTEROP_SCRATCH", scratch.path())
        .env("NO_COLOR", "1")
        .args(["run", "--no-history", "--jobs", "2", "--json"])
        .arg(&report)
        .arg(file)
        .args(extra)
        .output()
        .unwrap();
    let shown = format!(
        "{what}:\nstdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap())
        .unwrap_or_else(|e| panic!("no JSON report ({e}): {shown}"));
    let tests = report["suites"][0]["tests"].as_array().unwrap().clone();
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
    // Checked after the outcomes, so that a surprise shows the test's failure first.
    let any_bad = expected
        .iter()
        .any(|(_, s, _)| s != "passed" && s != "skipped");
    assert_eq!(out.status.code(), Some(i32::from(any_bad)), "{shown}");
    tests
}

/// What the Python SDK (mcp 2.3) cannot do that `both-eras.mcpr` asks for: `(test, era,
/// status, code, why)`. Every other test has the outcome its `# expect:` line gives, as
/// against the reference server.
const PYTHON_SDK_DIFFERENCES: &[(&str, &str, &str, &str, &str)] = &[
    (
        "A tool run as a task yields the tool's result",
        "2025-11-25",
        "failed",
        "MCP-TASK-001",
        "mcp 2.3 defines the 2025-11-25 task types only and never dispatches tasks/*; a server \
         without the tasks capability answers a task-augmented call directly, as the spec says",
    ),
    (
        "A tool run as a task yields the tool's result",
        "2026-07-28",
        "failed",
        "MCP-TASK-001",
        "mcp 2.3 ships no io.modelcontextprotocol/tasks extension, so the server answers \
         tools/call with a complete result, which a 2026 server may always do",
    ),
    (
        "A task started keeps its handle under task, and its members at the top",
        "2025-11-25",
        "failed",
        "MCP-TASK-001",
        "the same: no task handle comes back to keep",
    ),
    (
        "A task started keeps its handle under task, and its members at the top",
        "2026-07-28",
        "failed",
        "MCP-TASK-001",
        "the same: no task handle comes back to keep",
    ),
];

/// `conformance-tests/runtime/both-eras.mcpr` (written for the reference server) against
/// the Python SDK server `both_eras_server.py`, pinned to each era in turn: every test has
/// the outcome of its `# expect:` line, except the documented SDK differences above.
#[test]
#[ignore = "needs the interop servers (conformance-tests/interop/install.sh)"]
fn both_eras_suite_on_the_python_sdk() {
    let file = root().join("conformance-tests/runtime/both-eras.mcpr");
    let source = std::fs::read_to_string(&file).unwrap();
    let python = common::interop_dir().join("venv/bin/python");
    let server = format!(
        "{} conformance-tests/interop/both_eras_server.py",
        python.display()
    );
    let eras: Vec<&str> = source
        .lines()
        .find_map(|l| l.strip_prefix("# eras:"))
        .expect("both-eras.mcpr names its eras")
        .split_whitespace()
        .collect();
    assert_eq!(eras, ["2025-11-25", "2026-07-28"]);
    for (test, era, ..) in PYTHON_SDK_DIFFERENCES {
        assert!(
            source.contains(&format!("Test: \"{test}\"")) && eras.contains(era),
            "a difference names no test of the suite: {test:?} in {era}"
        );
    }
    for era in eras {
        let expected: Vec<_> = expectations(&source)
            .into_iter()
            .map(|(test, status, code)| {
                match PYTHON_SDK_DIFFERENCES
                    .iter()
                    .find(|(t, e, ..)| *t == test && *e == era)
                {
                    Some((_, _, s, c, _)) => (test, s.to_string(), Some(c.to_string())),
                    None => (test, status, code),
                }
            })
            .collect();
        let differences: Vec<String> = PYTHON_SDK_DIFFERENCES
            .iter()
            .filter(|(_, e, ..)| *e == era)
            .map(|(t, _, s, c, why)| format!("{t:?} expected {s} {c}: {why}"))
            .collect();
        let what = format!(
            "both-eras.mcpr on the Python SDK at {era} (SDK differences: {})",
            differences.join("; ")
        );
        let tests = run_file(
            &what,
            &file,
            &["--server", &server, "--protocol", era],
            &expected,
        );
        for t in &tests {
            assert_eq!(t["protocolVersion"], era, "{what}: {t:#}");
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

/// The Python SDK and server-memory suites with `--reuse-server`: every test has the outcome
/// of its `# expect:` line, as with a session per test, and the report names the shared
/// sessions (at most one per job). server-everything's suite is not among them: its tests
/// wait for the tool-list change the server sends once after each handshake.
#[test]
#[ignore = "needs the interop servers (conformance-tests/interop/install.sh)"]
fn suites_keep_their_outcomes_in_shared_sessions() {
    for name in ["python-sdk.mcpr", "memory.mcpr"] {
        let file = root().join("conformance-tests/interop/suites").join(name);
        let source = std::fs::read_to_string(&file).unwrap();
        let tests = run_file(name, &file, &["--reuse-server"], &expectations(&source));
        let sessions: std::collections::BTreeSet<u64> =
            tests.iter().filter_map(|t| t["session"].as_u64()).collect();
        assert!(!sessions.is_empty(), "{name}: {tests:#?}");
        assert!(
            tests.len() > sessions.len(),
            "{name}: some tests share a session: {tests:#?}"
        );
    }
}
