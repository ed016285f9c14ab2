//! Latency budgets and regressions over the run history, end to end: real runs of the
//! reference server appending to a history file, verdicts after enough samples, the exit
//! code of the latency gate.

mod common;
use common::{reference_server, scratch};

use std::path::Path;
use std::process::Output;

use serde_json::Value;

const SUITE: &str = r#"MCP Test 1
Suite: "Budgets"
Server: mcpr-reference-server
Budget for "Slow call": p50 40 ms
Budget for "Quick call": p95 30 seconds

Test: "Slow call"
  Call tool "slow" with:
    ms: 150
  Expect it succeeds

Test: "Quick call"
  Call tool "echo" with:
    text: "hi"
  Expect it succeeds
"#;

fn run(dir: &Path, extra: &[&str]) -> Output {
    common::mcpr_in(dir)
        .args(["run", "suite.mcpr", "--server", &reference_server()])
        .args(extra)
        .output()
        .unwrap()
}

fn text(out: &Output) -> String {
    common::output_text(out)
}

#[test]
fn budgets_wait_for_three_samples_then_gate_the_run() {
    let dir = scratch(&[("suite.mcpr", SUITE)]);
    for n in 1..=2 {
        let out = run(dir.path(), &["--history", "h.jsonl"]);
        assert_eq!(out.status.code(), Some(0), "run {n}: {}", text(&out));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains(&format!(
                "… p50 of Slow call: pending, {n} of 3 samples needed"
            )),
            "run {n}: {stdout}"
        );
    }
    let json = dir.path().join("r.json");
    let out = run(
        dir.path(),
        &["--history", "h.jsonl", "--json", json.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("✗ p50 of Slow call: "), "{stdout}");
    assert!(stdout.contains("> 40ms (3 samples)"), "{stdout}");
    assert!(stdout.contains("✓ p95 of Quick call: "), "{stdout}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("latency gate failed: 1 budget(s) exceeded"),
        "{}",
        text(&out)
    );
    let report: Value = serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    let budgets = report["suites"][0]["budgets"].as_array().unwrap();
    assert_eq!(budgets.len(), 2);
    assert_eq!(budgets[0]["verdict"], "exceeded");
    assert!(budgets[0]["measuredMs"].as_u64().unwrap() >= 150);
    assert_eq!(budgets[1]["verdict"], "within");
    let history = std::fs::read_to_string(dir.path().join("h.jsonl")).unwrap();
    assert_eq!(history.lines().count(), 3);
    assert!(!dir.path().join(".mcpr").exists());
}

#[test]
fn the_default_history_lives_in_an_ignored_folder_and_no_history_skips_it() {
    let dir = scratch(&[("suite.mcpr", SUITE)]);
    let out = run(dir.path(), &["--no-history"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(!dir.path().join(".mcpr").exists());
    let out = run(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let history = std::fs::read_to_string(dir.path().join(".mcpr/history.jsonl")).unwrap();
    let record: Value = serde_json::from_str(history.lines().next().unwrap()).unwrap();
    assert_eq!(record["suite"], "suite.mcpr");
    assert_eq!(record["tests"][0]["name"], "Slow call");
    assert_eq!(record["tests"][0]["status"], "passed");
    let ignore = std::fs::read_to_string(dir.path().join(".mcpr/.gitignore")).unwrap();
    assert!(ignore.lines().any(|l| l == "*"), "{ignore}");
}

#[test]
fn a_test_far_slower_than_its_history_is_a_regression() {
    let past: String = (0..5)
        .map(|i| {
            format!(
                "{{\"version\":1,\"suite\":\"suite.mcpr\",\"finishedAt\":{i},\"tests\":[\
                 {{\"id\":\"slow-call\",\"name\":\"Slow call\",\"status\":\"passed\",\"durationMs\":10}}]}}\n"
            )
        })
        .collect();
    let dir = scratch(&[("suite.mcpr", SUITE), ("h.jsonl", &past)]);
    let out = run(dir.path(), &["--history", "h.jsonl"]);
    // The budget of 40 ms sees 150 ms and five times 10 ms: p50 is 10 ms, within; no
    // regression check without the flag. The second run also sees the first one.
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let out = run(
        dir.path(),
        &["--history", "h.jsonl", "--fail-on-regression"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("Regressions"), "{stdout}");
    assert!(
        stdout.contains("against a median of 10ms over 6 runs (threshold 60ms)"),
        "{stdout}"
    );
}

/// The history stays whole when a run is killed while it compacts it: a history past its
/// cap (10 MiB from 30,000 past runs of other suites) is written again by the next run, and
/// SIGKILL at any moment of that run leaves either the old file or the new one, every line
/// a whole record; the next run reads it, compacts it if it still must, and no temporary
/// file of a killed writer is left beside it.
#[test]
fn a_run_killed_while_it_compacts_the_history_leaves_it_whole() {
    let dir = scratch(&[("suite.mcpr", SUITE)]);
    let history = dir.path().join("h.jsonl");
    // One real record, as a template for the past runs of 30,000 other suites.
    let out = run(dir.path(), &["--history", "h.jsonl"]);
    assert!(out.status.code().is_some(), "{}", text(&out));
    let first = std::fs::read_to_string(&history).unwrap();
    let template: Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
    let mut past = String::new();
    for i in 0..30_000 {
        let mut r = template.clone();
        r["suite"] = Value::String(format!("suites/other-{i}.mcpr"));
        past.push_str(&serde_json::to_string(&r).unwrap());
        past.push('\n');
    }
    // Past the compaction threshold (the cap, 8 MiB, and a quarter).
    let padded = past.repeat((11 << 20) / past.len() + 1);
    let before = padded.lines().count();
    let whole_lines = |trial: &str| -> usize {
        let text = std::fs::read_to_string(&history).unwrap();
        for (n, line) in text.lines().enumerate() {
            serde_json::from_str::<Value>(line)
                .unwrap_or_else(|e| panic!("{trial}: line {} is torn: {e}", n + 1));
        }
        assert!(text.ends_with('\n'), "{trial}: the last line is torn");
        text.lines().count()
    };
    let start = |dir: &Path| {
        common::mcpr_in(dir)
            .args(["run", "suite.mcpr", "--server", &reference_server()])
            .args(["--history", "h.jsonl", "--no-progress"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    // A whole run compacts it, and shows how long a run takes.
    std::fs::write(&history, &padded).unwrap();
    let began = std::time::Instant::now();
    start(dir.path()).wait().unwrap();
    let whole = began.elapsed();
    let lines = whole_lines("the whole run");
    assert!(lines < before, "{lines} of {before} lines: not compacted");
    assert!(std::fs::metadata(&history).unwrap().len() <= (8 << 20) + 4096);
    // Killed at moments spread over such a run, most of them late, where it writes.
    for trial in 0..12u32 {
        std::fs::write(&history, &padded).unwrap();
        let mut child = start(dir.path());
        std::thread::sleep(whole.mul_f64(0.4 + 0.06 * f64::from(trial)));
        let _ = child.kill();
        let _ = child.wait();
        // The old file (perhaps with this run's line appended) or the compacted one.
        let lines = whole_lines(&format!("trial {trial}"));
        let bytes = std::fs::metadata(&history).unwrap().len();
        assert!(
            lines == before || lines == before + 1 || (lines < before && bytes <= (8 << 20) + 4096),
            "trial {trial}: {lines} lines, {bytes} bytes"
        );
    }
    // The next run reads what is there and leaves no temporary file of a killed writer.
    let out = run(dir.path(), &["--history", "h.jsonl"]);
    assert!(out.status.code().is_some(), "{}", text(&out));
    let leftovers: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let last = std::fs::read_to_string(&history).unwrap();
    assert!(
        last.len() <= (10 << 20),
        "{} bytes after a whole run",
        last.len()
    );
    assert!(last.contains("\"Budgets\"") || last.contains("suite.mcpr"));
}
