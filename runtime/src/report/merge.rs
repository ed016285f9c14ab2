//! `mcpr report merge`: the JSON reports of the shards of a split CI run (`--shard K/N`)
//! combined into the report the whole run would have written. Each shard's report names
//! its shard and the ids of the whole selection, so the merge checks that the shards
//! cover every suite exactly once: every shard from 1 to N once, each test in exactly one
//! of them. Tests come back in the whole run's report order, outputs and counts are
//! worked out again; times are each shard's own.

use std::collections::{HashMap, HashSet};

use crate::exec::TestResult;
use crate::schedule::{RunResult, RunStatus, suite_outputs};

/// One report to merge: the name it is known by (its path) and its suites.
#[derive(Debug, Clone)]
pub struct Part {
    /// The report as named to people (its file).
    pub name: String,
    /// Its suites.
    pub suites: Vec<RunResult>,
}

/// Reads a report file as a [`Part`].
pub fn read_part(path: &std::path::Path) -> Result<Part, String> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {name}: {e}"))?;
    let suites = super::json::read(&text).map_err(|e| format!("{name}: {e}"))?;
    Ok(Part { name, suites })
}

/// The key a suite is matched by across reports: its file, else its name.
fn key(r: &RunResult) -> String {
    r.file.clone().unwrap_or_else(|| r.suite_name.clone())
}

/// Merges the suites of several reports (see the module documentation). The error names
/// the suite and what is missing or twice.
pub fn merge(parts: Vec<Part>) -> Result<Vec<RunResult>, String> {
    if parts.is_empty() {
        return Err("no report to merge".into());
    }
    let mut order: Vec<String> = Vec::new();
    let mut groups: HashMap<String, Vec<(String, RunResult)>> = HashMap::new();
    for part in parts {
        for suite in part.suites {
            let k = key(&suite);
            if !groups.contains_key(&k) {
                order.push(k.clone());
            }
            groups
                .entry(k)
                .or_default()
                .push((part.name.clone(), suite));
        }
    }
    order
        .into_iter()
        .map(|k| {
            let group = groups.remove(&k).unwrap_or_default();
            merge_suite(&k, group)
        })
        .collect()
}

fn merge_suite(key: &str, mut group: Vec<(String, RunResult)>) -> Result<RunResult, String> {
    let unsharded: Vec<&str> = group
        .iter()
        .filter(|(_, r)| r.shard.is_none())
        .map(|(n, _)| n.as_str())
        .collect();
    if !unsharded.is_empty() {
        if group.len() == 1 {
            return Ok(group.remove(0).1);
        }
        return Err(format!(
            "{key}: in {} reports, but {} not run with --shard",
            group.len(),
            unsharded.join(", ")
        ));
    }
    group.sort_by_key(|(_, r)| r.shard.as_ref().map_or(0, |s| s.index));
    let Some(first) = group[0].1.shard.clone() else {
        return Err(format!("{key}: not run with --shard"));
    };
    for (name, r) in &group {
        let s = r.shard.as_ref().unwrap_or(&first);
        if s.count != first.count || s.tests != first.tests {
            return Err(format!(
                "{key}: {name} is shard {}/{} of another selection than shard {}/{} (other --shard N, --test or suite version)",
                s.index, s.count, first.index, first.count
            ));
        }
    }
    let indexes: Vec<usize> = group
        .iter()
        .filter_map(|(_, r)| r.shard.as_ref().map(|s| s.index))
        .collect();
    let twice: Vec<String> = (1..=first.count)
        .filter(|k| indexes.iter().filter(|i| *i == k).count() > 1)
        .map(|k| format!("{k}/{}", first.count))
        .collect();
    let missing: Vec<String> = (1..=first.count)
        .filter(|k| !indexes.contains(k))
        .map(|k| format!("{k}/{}", first.count))
        .collect();
    if !twice.is_empty() {
        return Err(format!("{key}: shard {} given twice", twice.join(", ")));
    }
    if !missing.is_empty() {
        return Err(format!("{key}: shard {} missing", missing.join(", ")));
    }
    let wanted: HashSet<&str> = first.tests.iter().map(String::as_str).collect();
    let mut by_id: HashMap<String, (String, TestResult)> = HashMap::new();
    for (name, r) in &group {
        for t in &r.tests {
            if !wanted.contains(t.id.as_str()) {
                return Err(format!(
                    "{key}: {name} has test {:?}, which the selection does not",
                    t.id
                ));
            }
            if let Some((other, _)) = by_id.insert(t.id.clone(), (name.clone(), t.clone())) {
                return Err(format!("{key}: test {:?} is in {other} and {name}", t.id));
            }
        }
    }
    let absent: Vec<&str> = first
        .tests
        .iter()
        .filter(|id| !by_id.contains_key(id.as_str()))
        .map(String::as_str)
        .collect();
    if !absent.is_empty() {
        return Err(format!("{key}: no shard reports {}", absent.join(", ")));
    }
    let tests: Vec<TestResult> = first
        .tests
        .iter()
        .filter_map(|id| by_id.remove(id).map(|(_, t)| t))
        .collect();
    let summary = RunResult::summarise(&tests);
    let (_, head) = &group[0];
    // A shard stopped by a signal leaves the merged run stopped too.
    let interrupted = group.iter().find_map(|(_, r)| r.interrupted.clone());
    Ok(RunResult {
        suite_name: head.suite_name.clone(),
        file: head.file.clone(),
        started_at: group.iter().filter_map(|(_, r)| r.started_at.clone()).min(),
        hostname: head.hostname.clone(),
        jobs: group.iter().map(|(_, r)| r.jobs).max().unwrap_or(1),
        shard: None,
        status: RunStatus::of(&summary, interrupted.is_some()),
        duration_ms: group.iter().map(|(_, r)| r.duration_ms).max().unwrap_or(0),
        outputs: suite_outputs(
            tests
                .iter()
                .map(|t| (t.logical_name.as_deref(), t.id.as_str(), &t.outputs)),
        ),
        tests,
        summary,
        budgets: group.iter().flat_map(|(_, r)| r.budgets.clone()).collect(),
        regressions: group
            .iter()
            .flat_map(|(_, r)| r.regressions.clone())
            .collect(),
        flips: group.iter().flat_map(|(_, r)| r.flips.clone()).collect(),
        interrupted,
        withheld_env: {
            let mut names: Vec<String> = group
                .iter()
                .flat_map(|(_, r)| r.withheld_env.clone())
                .collect();
            names.sort();
            names.dedup();
            names
        },
        // A report keeps no secret values: the merged run writes no state file.
        state_outputs: Default::default(),
        sensitive_outputs: Vec::new(),
        coverage: crate::coverage::merge(group.iter().filter_map(|(_, r)| r.coverage.as_ref())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::{Failure, Outcome};
    use crate::schedule::Shard;

    fn suite(index: usize, ids: &[&str]) -> RunResult {
        let tests: Vec<TestResult> = ids
            .iter()
            .map(|id| {
                TestResult::not_run(
                    id,
                    id,
                    Outcome::Skipped,
                    Failure::new(crate::codes::RunCode::Skip, "x"),
                )
            })
            .collect();
        RunResult {
            suite_name: "s".into(),
            file: Some("s.mcpr".into()),
            started_at: None,
            hostname: None,
            jobs: 1,
            shard: Some(Shard {
                index,
                count: 3,
                tests: ["a", "b", "c", "d"].map(String::from).to_vec(),
            }),
            status: RunStatus::Passed,
            duration_ms: 1,
            summary: RunResult::summarise(&tests),
            tests,
            outputs: Default::default(),
            interrupted: None,
            withheld_env: Vec::new(),
            state_outputs: Default::default(),
            sensitive_outputs: Vec::new(),
            coverage: None,
            budgets: Vec::new(),
            regressions: Vec::new(),
            flips: Vec::new(),
        }
    }

    fn part(name: &str, s: RunResult) -> Part {
        Part {
            name: name.into(),
            suites: vec![s],
        }
    }

    #[test]
    fn shards_must_cover_the_suite_exactly_once() {
        let ok = merge(vec![
            part("3.json", suite(3, &["c"])),
            part("1.json", suite(1, &["a", "d"])),
            part("2.json", suite(2, &["b"])),
        ])
        .unwrap();
        let ids: Vec<&str> = ok[0].tests.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(ids, ["a", "b", "c", "d"]);
        assert_eq!(ok[0].summary.skipped, 4);
        assert!(ok[0].shard.is_none());

        let e = merge(vec![
            part("1.json", suite(1, &["a", "d"])),
            part("2.json", suite(2, &["b"])),
        ])
        .unwrap_err();
        assert_eq!(e, "s.mcpr: shard 3/3 missing");
        let e = merge(vec![
            part("1.json", suite(1, &["a", "d"])),
            part("1b.json", suite(1, &["a", "d"])),
            part("2.json", suite(2, &["b", "c"])),
        ])
        .unwrap_err();
        assert_eq!(e, "s.mcpr: shard 1/3 given twice");
        let e = merge(vec![
            part("1.json", suite(1, &["a", "d"])),
            part("2.json", suite(2, &["b", "d"])),
            part("3.json", suite(3, &["c"])),
        ])
        .unwrap_err();
        assert_eq!(e, "s.mcpr: test \"d\" is in 1.json and 2.json");
        let e = merge(vec![
            part("1.json", suite(1, &["a"])),
            part("2.json", suite(2, &["b"])),
            part("3.json", suite(3, &["c"])),
        ])
        .unwrap_err();
        assert_eq!(e, "s.mcpr: no shard reports d");
    }
}
