//! Parity: the same suite against every compare target, and whether they behave alike.
//!
//! The first declared target is the baseline. Each target runs the whole suite in fresh
//! sessions. Per test id (the union over the targets; a test one target did not report
//! counts as `blocked` there) a target agrees with the baseline when its status is the same
//! and its normalised record is equal. Normalising keeps the id, the status, and per step
//! the name, method, status, response and error, plus the outputs; it removes volatile
//! members (`durationMs`, `elapsedMs`, `timestamp`, `sessionId`, `_meta`, compared without
//! case) at every depth and writes `<ms>` for durations inside messages. Two targets failing
//! the same way agree: parity is about sameness, not success.

use crate::codes::RunCode;
use std::sync::Arc;

use mcpr_compiler::ir::Suite;
use serde::Serialize;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::exec::{Outcome, TestResult};
use crate::schedule::{Event, PlanError, RunOptions, RunResult, run_suite};

/// Diff lines shown per target at most.
pub const MAX_DIFF_LINES: usize = 20;

/// Member names removed before comparing (compared without case).
const VOLATILE: &[&str] = &["durationms", "elapsedms", "timestamp", "sessionid", "_meta"];

/// The outcome of a parity run.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ParityReport {
    /// Suite name.
    pub suite_name: String,
    /// Target names, baseline first.
    pub targets: Vec<String>,
    /// One row per test id, in the baseline's report order, then ids only others reported.
    pub rows: Vec<ParityRow>,
    /// `sha256:` of each target's normalised test list, in `targets` order.
    pub fingerprints: Vec<String>,
    /// Whether every row agrees.
    pub equivalent: bool,
    /// The full run of each target, in `targets` order.
    #[serde(skip)]
    pub runs: Vec<RunResult>,
}

/// One test across the targets.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ParityRow {
    /// Test id.
    pub id: String,
    /// Display name (from the first target that reported it).
    pub name: String,
    /// Status per target, in `targets` order.
    pub statuses: Vec<String>,
    /// Whether every target agrees with the baseline.
    pub equivalent: bool,
    /// Per non-baseline target that differs: its name and the first diff lines.
    pub differences: Vec<TargetDiff>,
}

/// How one target differs from the baseline on one test.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetDiff {
    /// Target name.
    pub target: String,
    /// `path: baseline → this target`, at most [`MAX_DIFF_LINES`].
    pub lines: Vec<String>,
    /// Differences left out after the first [`MAX_DIFF_LINES`].
    pub more: usize,
}

/// Runs `suite` once per compare target and compares the results, leaving out the values
/// at the `ignore` paths of every response (ids, timestamps). `on_event` sees every target's
/// events in turn; each `RunStarted` names its target.
pub async fn run_parity(
    suite: Arc<Suite>,
    opts: RunOptions,
    ignore: &[String],
    on_event: &mut (dyn FnMut(&Event) + Send),
) -> Result<ParityReport, PlanError> {
    let targets: Vec<(String, mcpr_compiler::ir::Target)> = suite
        .targets
        .iter()
        .flat_map(|t| t.iter())
        .map(|(n, t)| (n.to_string(), t.clone()))
        .collect();
    if targets.len() < 2 {
        return Err(PlanError {
            code: RunCode::ParityTargets,
            message: format!(
                "parity needs at least two compare targets, the suite declares {}",
                targets.len()
            ),
        });
    }
    let mut runs = Vec::new();
    for (name, target) in &targets {
        let mut o = opts.clone();
        o.target = Some(target.clone());
        o.transcript = true;
        let mut forward = |e: &Event| match e {
            Event::RunStarted {
                suite,
                tests,
                withheld_env,
                ..
            } => on_event(&Event::RunStarted {
                suite: suite.clone(),
                tests: *tests,
                target: Some(name.clone()),
                withheld_env: withheld_env.clone(),
            }),
            other => on_event(other),
        };
        runs.push(run_suite(Arc::clone(&suite), o, &mut forward).await?);
    }
    let names: Vec<String> = targets.into_iter().map(|(n, _)| n).collect();
    Ok(compare_ignoring(names, runs, ignore))
}

/// Compares finished runs, the first being the baseline.
pub fn compare(targets: Vec<String>, runs: Vec<RunResult>) -> ParityReport {
    compare_ignoring(targets, runs, &[])
}

/// [`compare`], leaving out the values at the `ignore` paths (`structuredContent.id`,
/// `$.items[*].createdAt`: `.`-separated members, `[N]` or `.N` items, `*` any) of every
/// step's response and error.
pub fn compare_ignoring(
    targets: Vec<String>,
    runs: Vec<RunResult>,
    ignore: &[String],
) -> ParityReport {
    let mut ids: Vec<(String, String)> = Vec::new();
    for r in &runs {
        for t in &r.tests {
            if !ids.iter().any(|(id, _)| *id == t.id) {
                ids.push((t.id.clone(), t.name.clone()));
            }
        }
    }
    let normalised: Vec<Vec<Value>> = runs
        .iter()
        .map(|r| {
            r.tests
                .iter()
                .map(|t| {
                    let mut rec = normalise(t);
                    for step in rec["steps"].as_array_mut().into_iter().flatten() {
                        for key in ["response", "error"] {
                            if let Some(v) = step.get_mut(key) {
                                for p in ignore {
                                    remove_path(v, &path_segments(p));
                                }
                            }
                        }
                    }
                    rec
                })
                .collect()
        })
        .collect();
    let record = |k: usize, id: &str| -> Value {
        runs[k].tests.iter().position(|t| t.id == id).map_or_else(
            || json!({"id": id, "status": "blocked"}),
            |i| normalised[k][i].clone(),
        )
    };
    let mut rows = Vec::new();
    for (id, name) in ids {
        let base = record(0, &id);
        let mut statuses = Vec::new();
        let mut differences = Vec::new();
        for (k, target) in targets.iter().enumerate().take(runs.len()) {
            let rec = record(k, &id);
            statuses.push(rec["status"].as_str().unwrap_or("blocked").to_string());
            if k > 0 && rec != base {
                let mut lines = Vec::new();
                diff("", &base, &rec, &mut lines);
                let more = lines.len().saturating_sub(MAX_DIFF_LINES);
                lines.truncate(MAX_DIFF_LINES);
                differences.push(TargetDiff {
                    target: target.clone(),
                    lines,
                    more,
                });
            }
        }
        rows.push(ParityRow {
            id,
            name,
            statuses,
            equivalent: differences.is_empty(),
            differences,
        });
    }
    let fingerprints = normalised
        .iter()
        .map(|tests| {
            let text = serde_json::to_string(&Value::Array(tests.clone())).unwrap_or_default();
            let digest = Sha256::digest(text.as_bytes());
            let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
            format!("sha256:{hex}")
        })
        .collect();
    ParityReport {
        suite_name: runs
            .first()
            .map(|r| r.suite_name.clone())
            .unwrap_or_default(),
        equivalent: rows.iter().all(|r| r.equivalent),
        targets,
        rows,
        fingerprints,
        runs,
    }
}

/// The comparable record of a test (see the module docs), keys sorted at every depth.
pub fn normalise(t: &TestResult) -> Value {
    let steps: Vec<Value> = t
        .steps
        .iter()
        .map(|s| {
            let mut step = Map::new();
            step.insert("name".into(), json!(s.name));
            step.insert("method".into(), json!(s.method));
            step.insert("status".into(), json!(s.status));
            if let Some(r) = &s.response {
                step.insert("response".into(), r.clone());
            }
            if let Some(e) = &s.error {
                step.insert("error".into(), e.clone());
            }
            Value::Object(step)
        })
        .collect();
    let mut rec = json!({
        "id": t.id,
        "status": t.status.as_str(),
        "steps": steps,
        "outputs": t.outputs,
    });
    if matches!(t.status, Outcome::Skipped | Outcome::Blocked)
        && let Some(f) = &t.failure
    {
        rec["reason"] = json!(f.code);
    }
    clean(&mut rec);
    rec
}

/// The segments of an ignore path: `$.a.b[0]`, `a.b.0`, `a[*].b` → `a`, `b`, `0` / `*`.
fn path_segments(path: &str) -> Vec<String> {
    let p = path.trim();
    let p = p.strip_prefix('$').unwrap_or(p);
    p.replace('[', ".")
        .replace(']', "")
        .split('.')
        .filter(|s| !s.is_empty())
        .map(|s| s.trim_matches(['"', '\'']).to_string())
        .collect()
}

/// Removes the values at `segs` (`*`: every member or item) from `v`.
fn remove_path(v: &mut Value, segs: &[String]) {
    let Some((first, rest)) = segs.split_first() else {
        return;
    };
    match v {
        Value::Object(map) => {
            if rest.is_empty() {
                if first == "*" {
                    map.clear();
                } else {
                    map.remove(first);
                }
            } else if first == "*" {
                map.values_mut().for_each(|c| remove_path(c, rest));
            } else if let Some(c) = map.get_mut(first) {
                remove_path(c, rest);
            }
        }
        Value::Array(items) => {
            if first == "*" {
                if rest.is_empty() {
                    items.iter_mut().for_each(|c| *c = Value::Null);
                } else {
                    items.iter_mut().for_each(|c| remove_path(c, rest));
                }
            } else if let Some(c) = first.parse::<usize>().ok().and_then(|i| items.get_mut(i)) {
                if rest.is_empty() {
                    *c = Value::Null;
                } else {
                    remove_path(c, rest);
                }
            }
        }
        _ => {}
    }
}

/// Removes volatile members, masks durations in text and sorts keys, recursively.
fn clean(v: &mut Value) {
    match v {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = std::mem::take(map)
                .into_iter()
                .filter(|(k, _)| !VOLATILE.contains(&k.to_ascii_lowercase().as_str()))
                .collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            for (k, mut item) in entries {
                clean(&mut item);
                map.insert(k, item);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(clean),
        Value::String(s) => *s = mask_durations(s),
        _ => {}
    }
}

/// `took 42ms` → `took <ms>`; other digits stay.
fn mask_durations(s: &str) -> String {
    if !s.contains("ms") {
        return s.to_string();
    }
    let bytes = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            if s[i..].starts_with("ms") {
                out.push_str("<ms>");
                i += 2;
            } else {
                out.push_str(&s[start..i]);
            }
        } else {
            let c = s[i..].chars().next().unwrap_or(' ');
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// Appends `path: a → b` lines for every difference of two values (objects over the union
/// of their keys in order, arrays by index).
fn diff(path: &str, a: &Value, b: &Value, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let p = format!("{path}.{k}");
                match (x.get(k), y.get(k)) {
                    (Some(u), Some(v)) => diff(&p, u, v, out),
                    (Some(u), None) => out.push(format!("{}: {} → (absent)", trim(&p), short(u))),
                    (None, Some(v)) => out.push(format!("{}: (absent) → {}", trim(&p), short(v))),
                    (None, None) => {}
                }
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            for i in 0..x.len().max(y.len()) {
                let p = format!("{path}[{i}]");
                match (x.get(i), y.get(i)) {
                    (Some(u), Some(v)) => diff(&p, u, v, out),
                    (Some(u), None) => out.push(format!("{}: {} → (absent)", trim(&p), short(u))),
                    (None, Some(v)) => out.push(format!("{}: (absent) → {}", trim(&p), short(v))),
                    (None, None) => {}
                }
            }
        }
        _ if a != b => out.push(format!("{}: {} → {}", trim(path), short(a), short(b))),
        _ => {}
    }
}

fn trim(path: &str) -> &str {
    path.strip_prefix('.').unwrap_or(path)
}

/// A value on one line, cut at 120 characters.
fn short(v: &Value) -> String {
    let text = v.to_string();
    match text.char_indices().nth(120) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::{StepResult, StepStatus};

    fn test(id: &str, status: Outcome, response: Value) -> TestResult {
        TestResult {
            id: id.into(),
            name: id.to_uppercase(),
            status,
            duration_ms: 5,
            steps: vec![StepResult {
                name: "Call tool “echo”".into(),
                method: "tools/call".into(),
                phase: mcpr_compiler::ir::Phase::Test,
                status: StepStatus::Passed,
                duration_ms: 3,
                start_us: 0,
                source: None,
                failure: None,
                response: Some(response),
                error: None,
                output: None,
            }],
            not_run: Vec::new(),
            outputs: Map::new(),
            failure: None,
            protocol_version: Some("2025-11-25".into()),
            transcript: None,
            data: None,
            logical_name: None,
            source: None,
            timing: None,
            stderr: None,
            session: None,
            attempts: 0,
            previous_attempts: Vec::new(),
            quarantined: false,
            exercised: Default::default(),
            warnings: Vec::new(),
        }
    }

    fn run(tests: Vec<TestResult>) -> RunResult {
        RunResult {
            suite_name: "S".into(),
            file: None,
            started_at: None,
            hostname: None,
            jobs: 1,
            shard: None,
            status: crate::schedule::RunStatus::Passed,
            duration_ms: 1,
            summary: RunResult::summarise(&tests),
            tests,
            outputs: Map::new(),
            budgets: Vec::new(),
            regressions: Vec::new(),
            flips: Vec::new(),
            interrupted: None,
            withheld_env: Vec::new(),
            state_outputs: Map::new(),
            sensitive_outputs: Vec::new(),
            coverage: None,
        }
    }

    #[test]
    fn ignored_paths_do_not_count() {
        let a = test(
            "a",
            Outcome::Passed,
            json!({"structuredContent": {"id": "u-1", "items": [{"at": 1, "n": 2}]}}),
        );
        let b = test(
            "a",
            Outcome::Passed,
            json!({"structuredContent": {"id": "u-2", "items": [{"at": 9, "n": 2}]}}),
        );
        let runs = || vec![run(vec![a.clone()]), run(vec![b.clone()])];
        let names = || vec!["x".to_string(), "y".to_string()];
        assert!(!compare(names(), runs()).equivalent);
        let ignore = [
            "$.structuredContent.id".to_string(),
            "structuredContent.items[*].at".into(),
        ];
        let r = compare_ignoring(names(), runs(), &ignore);
        assert!(r.equivalent, "{r:#?}");
        let r = compare_ignoring(names(), runs(), &ignore[..1]);
        assert!(!r.equivalent, "{r:#?}");
    }

    #[test]
    fn volatile_members_and_durations_do_not_count() {
        let a = test(
            "a",
            Outcome::Passed,
            json!({"content": [{"text": "took 12ms"}], "_meta": {"x": 1}, "Timestamp": 1}),
        );
        let b = test(
            "a",
            Outcome::Passed,
            json!({"Timestamp": 2, "content": [{"text": "took 907ms"}], "_META": 3}),
        );
        let r = compare(
            vec!["x".into(), "y".into()],
            vec![run(vec![a]), run(vec![b])],
        );
        assert!(r.equivalent, "{r:#?}");
        assert_eq!(r.fingerprints[0], r.fingerprints[1]);
        assert!(r.fingerprints[0].starts_with("sha256:"));
    }

    #[test]
    fn differences_are_listed_with_paths_and_missing_tests_count_as_blocked() {
        let a = vec![
            test("a", Outcome::Passed, json!({"content": [{"text": "1"}]})),
            test("b", Outcome::Passed, json!({})),
        ];
        let b = vec![test(
            "a",
            Outcome::Passed,
            json!({"content": [{"text": "2"}, {"text": "3"}]}),
        )];
        let r = compare(vec!["base".into(), "next".into()], vec![run(a), run(b)]);
        assert!(!r.equivalent);
        let row = &r.rows[0];
        assert_eq!(row.statuses, ["passed", "passed"]);
        assert_eq!(
            row.differences[0].lines,
            [
                r#"steps[0].response.content[0].text: "1" → "2""#,
                r#"steps[0].response.content[1]: (absent) → {"text":"3"}"#
            ]
        );
        assert_eq!(r.rows[1].statuses, ["passed", "blocked"]);
        assert!(!r.rows[1].equivalent);
        assert_ne!(r.fingerprints[0], r.fingerprints[1]);
    }

    #[test]
    fn failing_alike_is_parity() {
        let a = test("a", Outcome::Failed, json!({"isError": true}));
        let r = compare(
            vec!["x".into(), "y".into()],
            vec![run(vec![a.clone()]), run(vec![a])],
        );
        assert!(r.equivalent);
    }

    #[test]
    fn masks_only_millisecond_numbers() {
        assert_eq!(
            mask_durations("a 12ms b 7 items 3ms"),
            "a <ms> b 7 items <ms>"
        );
        assert_eq!(mask_durations("no time"), "no time");
        assert_eq!(mask_durations("é5ms"), "é<ms>");
    }
}
