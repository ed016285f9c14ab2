//! mcp-tester scripts against `mcpr-tester-server`, which answers as mcp-tester's own test
//! server does: the scripts of `conformance-tests/legacy/tester-server/` (assert commands,
//! error codes, progress, notifications) pass, each `call_tool` carries a progress token
//! (the progress notifications are in the transcript), and a wrong assertion fails with
//! mcp-tester's wording.

mod common;
use common::{scratch, tester_server};

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

fn scripts() -> Vec<PathBuf> {
    let dir = common::repo_root().join("conformance-tests/legacy/tester-server");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mcp"))
        .collect();
    files.sort();
    files
}

fn run(dir: &Path, script: &Path, report: &Path) -> Output {
    common::mcpr_in(dir)
        .env("MCPR_NO_HISTORY", "1")
        .arg("run")
        .arg(script)
        .args(["--server", &tester_server(), "--transcript", "--json"])
        .arg(report)
        .output()
        .unwrap()
}

/// The messages the server sent during the report's only test with `method`.
fn received(report: &Path, method: &str) -> Vec<Value> {
    let v: Value = serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
    let test = v["tests"]
        .get(0)
        .or_else(|| v["suites"][0]["tests"].get(0))
        .cloned()
        .expect("one test");
    test["transcript"]["entries"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["direction"] == "received" && e["method"] == method)
        .map(|e| serde_json::from_str(e["text"].as_str().unwrap()).unwrap())
        .collect()
}

#[test]
fn the_scripts_for_the_tester_server_pass_against_it() {
    let files = scripts();
    assert!(files.len() >= 4, "the tester-server scripts are missing");
    let tmp = tempfile::tempdir().unwrap();
    for script in files {
        let name = script.file_name().unwrap().to_string_lossy().to_string();
        let report = tmp.path().join(format!("{name}.json"));
        let out = run(tmp.path(), &script, &report);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{name}:\n{}",
            common::output_text(&out)
        );
        if name.contains("progress") {
            // `progressTest 3`, then `progressTest count:1`: a token on every call, so
            // 3 + 1 progress notifications, numbered from 1 up to their total.
            let progress: Vec<(i64, i64)> = received(&report, "notifications/progress")
                .iter()
                .map(|m| {
                    (
                        m["params"]["progress"].as_i64().unwrap(),
                        m["params"]["total"].as_i64().unwrap(),
                    )
                })
                .collect();
            assert_eq!(progress, [(1, 3), (2, 3), (3, 3), (1, 1)], "{name}");
        }
        if name.contains("notifications") {
            assert_eq!(
                received(&report, "notifications/tools/list_changed").len(),
                1,
                "{name}"
            );
            let updated = received(&report, "notifications/resources/updated");
            assert_eq!(updated.len(), 1, "{name}");
            assert_eq!(updated[0]["params"]["uri"], "mcp://time");
        }
    }
}

#[test]
fn a_wrong_assertion_fails_with_mcp_testers_wording() {
    let script = "call_tool add 10 20\n\
                  assert_equals \"Result: 31\"\n\
                  call_tool echo \"Small\"\n\
                  set_var s content.0.text\n\
                  assert_string_length \"$s\" 20 30\n\
                  expect_error call_tool nope\n\
                  assert_error_code -32601\n";
    let dir = scratch(&[("wrong.mcp", script)]);
    let report = dir.path().join("report.json");
    let out = run(dir.path(), Path::new("wrong.mcp"), &report);
    let all = common::output_text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    for needle in [
        "assertion failed: expected exactly \"Result: 31\", but got \"Result: 30\"",
        "assertion failed: string length 11 is not between 20 and 30",
        "assertion failed: expected error code -32601, got -32602",
    ] {
        assert!(all.contains(needle), "{needle:?} missing:\n{all}");
    }
    // No IR paths in a script's messages.
    assert!(!all.contains("$.content"), "{all}");
}
