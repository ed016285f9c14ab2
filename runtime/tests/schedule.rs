//! The scheduler against the reference server: dependency order, blocked consumers that
//! never open a session, outputs handed to consumers, parallelism up to `jobs`, report order
//! independent of finishing order, selection and fail-fast.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcpr_compiler::ir::Suite;
use mcpr_runtime::exec::Outcome;
use mcpr_runtime::schedule::{Event, RunOptions, RunResult, run_suite};
use serde_json::{Value, json};

fn suite(tests: Value) -> Arc<Suite> {
    let server = common::server_bin("mcpr-reference-server")
        .display()
        .to_string();
    Arc::new(
        serde_json::from_value(json!({
            "version": 1,
            "name": "schedule",
            "target": {"transport": "stdio", "command": server},
            "tests": tests,
        }))
        .expect("valid IR"),
    )
}

async fn run(s: Arc<Suite>, opts: RunOptions) -> (RunResult, Vec<String>) {
    let mut seen = Vec::new();
    let r = run_suite(s, opts, &mut |e: &Event| {
        if let Event::TestFinished(t) = e {
            seen.push(t.name.clone());
        }
    })
    .await
    .expect("plan");
    (r, seen)
}

fn statuses(r: &RunResult) -> Vec<(String, Outcome)> {
    r.tests.iter().map(|t| (t.id.clone(), t.status)).collect()
}

#[tokio::test]
async fn dependencies_outputs_blocked_and_order() {
    let s = suite(json!([
        {"name": "consumer", "id": "consumer", "dependsOn": ["producer"],
         "steps": [{"tool": {"name": "echo", "arguments": {"text": "${deps.producer.greeting}"}},
                    "assert": {"json": [{"path": "$.content[0].text", "equals": "hello"}]}}]},
        {"name": "producer", "id": "producer",
         "steps": [{"tool": {"name": "echo", "arguments": {"text": "hello"}},
                    "export": {"greeting": {"path": "$.content[0].text"}}}]},
        {"name": "broken", "id": "broken",
         "steps": [{"tool": {"name": "echo", "arguments": {"text": "x"}},
                    "assert": {"json": [{"path": "$.content[0].text", "equals": "y"}]}}]},
        {"name": "victim", "id": "victim", "dependsOn": ["broken"],
         "steps": [{"tool": {"name": "echo", "arguments": {"text": "x"}}}]},
        {"name": "skipped", "skip": "not today", "steps": [{"tool": {"name": "echo"}}]},
    ]));
    let (r, seen) = run(
        s,
        RunOptions {
            jobs: 4,
            ..RunOptions::default()
        },
    )
    .await;
    assert_eq!(
        statuses(&r),
        vec![
            ("producer".into(), Outcome::Passed),
            ("consumer".into(), Outcome::Passed),
            ("broken".into(), Outcome::Failed),
            ("victim".into(), Outcome::Blocked),
            ("skipped".into(), Outcome::Skipped),
        ]
    );
    assert_eq!(
        seen,
        ["producer", "consumer", "broken", "victim", "skipped"]
    );
    let victim = &r.tests[3];
    assert!(
        victim.steps.is_empty() && victim.protocol_version.is_none(),
        "no session"
    );
    assert_eq!(victim.failure.as_ref().unwrap().code, "MCP-DEP-003");
    assert_eq!(r.outputs["producer.greeting"], json!("hello"));
    assert_eq!(r.summary.blocked, 1);
    assert_eq!(r.status, mcpr_runtime::schedule::RunStatus::Failed);
}

#[tokio::test]
async fn independent_tests_run_in_parallel_and_report_in_source_order() {
    // The first test is the slowest, so finishing order differs from report order.
    let tests: Vec<Value> = [900u64, 600, 600, 600]
        .iter()
        .enumerate()
        .map(|(i, ms)| json!({"name": format!("t{i}"), "steps": [{"tool": {"name": "slow", "arguments": {"ms": ms}}}]}))
        .collect();
    let s = suite(Value::Array(tests));
    // Warm up (the first spawn of a binary is slower).
    let _ = run(
        Arc::clone(&s),
        RunOptions {
            jobs: 4,
            filter: Some("t1".into()),
            ..RunOptions::default()
        },
    )
    .await;
    let t = Instant::now();
    let (r, seen) = run(
        Arc::clone(&s),
        RunOptions {
            jobs: 4,
            ..RunOptions::default()
        },
    )
    .await;
    let parallel = t.elapsed();
    assert_eq!(r.summary.passed, 4, "{r:#?}");
    assert_eq!(seen, ["t0", "t1", "t2", "t3"]);
    let t = Instant::now();
    let (r, _) = run(
        s,
        RunOptions {
            jobs: 1,
            ..RunOptions::default()
        },
    )
    .await;
    let serial = t.elapsed();
    assert_eq!(r.summary.passed, 4);
    eprintln!("jobs 4: {parallel:?}, jobs 1: {serial:?}");
    assert!(serial >= Duration::from_millis(2700), "{serial:?}");
    assert!(
        parallel < serial - Duration::from_millis(900),
        "parallel {parallel:?} vs serial {serial:?}"
    );
}

#[tokio::test]
async fn selection_pulls_dependencies_unless_told_not_to_and_fail_fast_stops() {
    let s = suite(json!([
        {"name": "base", "steps": [{"tool": {"name": "echo", "arguments": {"text": "a"}}}]},
        {"name": "other", "steps": [{"tool": {"name": "echo", "arguments": {"text": "a"}}}]},
        {"name": "Top Level", "dependsOn": ["base"], "steps": [{"tool": {"name": "echo", "arguments": {"text": "a"}}}]},
    ]));
    let (r, _) = run(
        Arc::clone(&s),
        RunOptions {
            filter: Some("top*".into()),
            ..RunOptions::default()
        },
    )
    .await;
    assert_eq!(
        statuses(&r),
        vec![
            ("base".into(), Outcome::Passed),
            ("top-level".into(), Outcome::Passed)
        ]
    );
    let (r, _) = run(
        Arc::clone(&s),
        RunOptions {
            filter: Some("top*".into()),
            no_deps: true,
            ..RunOptions::default()
        },
    )
    .await;
    assert_eq!(statuses(&r), vec![("top-level".into(), Outcome::Blocked)]);

    let s = suite(json!([
        {"name": "bad", "steps": [{"tool": {"name": "fail"}}]},
        {"name": "later", "steps": [{"tool": {"name": "echo", "arguments": {"text": "a"}}}]},
    ]));
    let (r, _) = run(
        s,
        RunOptions {
            jobs: 1,
            fail_fast: true,
            ..RunOptions::default()
        },
    )
    .await;
    assert_eq!(
        statuses(&r),
        vec![
            ("bad".into(), Outcome::Failed),
            ("later".into(), Outcome::Skipped)
        ]
    );
    assert_eq!(
        r.tests[1].failure.as_ref().unwrap().code,
        "MCP-FAILFAST-001"
    );
}

#[tokio::test]
async fn inline_rows_run_once_each_and_feed_consumers_lists() {
    let s = suite(json!([
        {"name": "rows", "forEach": {"rows": [{"t": "a"}, {"t": "b", "caseId": "second"}]},
         "steps": [{"tool": {"name": "echo", "arguments": {"text": "${row.t}"}},
                    "export": {"said": {"path": "$.content[0].text"}}}]},
        {"name": "after", "dependsOn": ["rows"],
         "steps": [{"tool": {"name": "echo", "arguments": {"text": "v=${deps.rows.said}"}},
                    "assert": {"json": [{"path": "$.content[0].text", "equals": "v=[\"a\",\"b\"]"}]}}]},
    ]));
    let (r, _) = run(s, RunOptions::default()).await;
    assert_eq!(
        statuses(&r),
        vec![
            ("rows.1".into(), Outcome::Passed),
            ("rows.second".into(), Outcome::Passed),
            ("after".into(), Outcome::Passed)
        ],
        "{r:#?}"
    );
}

#[tokio::test]
async fn shards_split_whole_components_and_cover_every_test() {
    let s = suite(json!([
        {"name": "a", "steps": [{"tool": {"name": "echo", "arguments": {"text": "a"}}}]},
        {"name": "b", "steps": [{"tool": {"name": "echo", "arguments": {"text": "b"}}}]},
        {"name": "c", "dependsOn": ["a"], "steps": [{"tool": {"name": "echo", "arguments": {"text": "c"}}}]},
        {"name": "d", "steps": [{"tool": {"name": "echo", "arguments": {"text": "d"}}}]},
    ]));
    let mut all = Vec::new();
    for k in 1..=2 {
        let (r, _) = run(
            Arc::clone(&s),
            RunOptions {
                shard: Some((k, 2)),
                ..RunOptions::default()
            },
        )
        .await;
        assert_eq!(r.summary.passed, r.tests.len(), "{r:#?}");
        all.push(r.tests.iter().map(|t| t.id.clone()).collect::<Vec<_>>());
    }
    assert_eq!(all, vec![vec!["a", "c", "d"], vec!["b"]]);
}
