//! The scheduler: which tests run, in which order, how many at once, and what their
//! dependencies hand them (mcp-test-language-1.md §4.6–§4.8).
//!
//! Tests are ordered depth-first by the dependency graph (dependencies first, otherwise
//! source order); that order is also the order of every report, whatever the parallelism.
//! Independent tests run at the same time, up to `jobs`, each in its own session. A test
//! whose dependency did not pass is `blocked` and never opens a session.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcpr_compiler::ir::{self, Skip, Suite, Test};
use petgraph::graph::{DiGraph, NodeIndex};
use serde::Serialize;
use serde_json::{Map, Value, json};
use tokio::task::JoinSet;

use crate::codes::RunCode;
use crate::data::{DataOptions, SuiteRows};
use crate::exec::secrets::Redactor;
use crate::exec::{self, Failure, Outcome, TestInput, TestResult, test_id};
use mcpr_compiler::names::slug;

/// How to run a suite.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Most tests running at once (at least 1).
    pub jobs: usize,
    /// Only tests whose name (glob, `*` wildcard, case-insensitive, whole name) or id match.
    pub filter: Option<String>,
    /// With `filter`: do not pull in the dependencies of the selected tests.
    pub no_deps: bool,
    /// Stop starting tests after the first one that did not pass.
    pub fail_fast: bool,
    /// Replaces the suite's default target (tests naming a `server` keep theirs).
    pub target: Option<ir::Target>,
    /// Deadline of each session's handshake.
    pub connect_timeout: Duration,
    /// The protocol version every session speaks (`--protocol`); probed when `None`.
    pub protocol: Option<String>,
    /// Loaded state for `${state.…}` (an object).
    pub state: Value,
    /// Run only shard `K` of `N` (1-based): whole dependency components, dealt round-robin
    /// in source order, so every machine of a split CI run gets a deterministic share.
    pub shard: Option<(usize, usize)>,
    /// The snapshot store of the run (save it afterwards with `SnapshotStore::save`).
    pub snapshots: Option<Arc<std::sync::Mutex<crate::snapshot::SnapshotStore>>>,
    /// Keep each step's response and each session's messages in the results.
    pub transcript: bool,
    /// Where data files are, what data sources may do, and `--max-rows`.
    pub data: DataOptions,
    /// Rows loaded beforehand with [`crate::data::load_suite`] (so the caller can render data
    /// errors itself); loaded by [`run_suite`] when absent.
    pub rows: Option<Arc<SuiteRows>>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            jobs: std::thread::available_parallelism().map_or(1, usize::from),
            filter: None,
            no_deps: false,
            fail_fast: false,
            target: None,
            connect_timeout: Duration::from_secs(30),
            protocol: None,
            state: json!({}),
            shard: None,
            snapshots: None,
            transcript: false,
            data: DataOptions::default(),
            rows: None,
        }
    }
}

/// A problem with the suite that stops it before any test runs.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct PlanError {
    /// `MCP-DEP-001` duplicate id, `MCP-DEP-002` cycle, `MCP-DEP-004` unknown dependency,
    /// `MCP-CONFIG-002` unknown named server or unusable data, `MCP-CONFIG-004` no server
    /// at all (a legacy script run without `--server`/`--url`/`--profile`).
    pub code: RunCode,
    /// What is wrong.
    pub message: String,
}

fn plan_error(code: RunCode, message: impl Into<String>) -> PlanError {
    PlanError {
        code,
        message: message.into(),
    }
}

/// What happens during a run, for reporters. `TestFinished` events arrive in report order.
#[derive(Debug, Clone)]
pub enum Event {
    /// The run begins: suite name and number of tests that will be reported.
    RunStarted {
        /// Suite name.
        suite: String,
        /// Tests in the report.
        tests: usize,
        /// In a parity run, the compare target the suite runs against.
        target: Option<String>,
    },
    /// A test ended (or was skipped or blocked), in report order.
    TestFinished(Box<TestResult>),
}

/// Counts per outcome.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Passed tests.
    pub passed: usize,
    /// Failed tests.
    pub failed: usize,
    /// Errored tests (the server or the environment broke).
    pub errored: usize,
    /// Skipped tests.
    pub skipped: usize,
    /// Blocked tests.
    pub blocked: usize,
}

impl Summary {
    /// The counts of several runs together, and their milliseconds in all.
    pub fn of_runs(runs: &[RunResult]) -> (Summary, u64) {
        let mut total = Summary::default();
        let mut ms = 0;
        for r in runs {
            total.passed += r.summary.passed;
            total.failed += r.summary.failed;
            total.errored += r.summary.errored;
            total.skipped += r.summary.skipped;
            total.blocked += r.summary.blocked;
            ms += r.duration_ms;
        }
        (total, ms)
    }

    /// Whether no test failed, errored or was blocked.
    pub fn passed(&self) -> bool {
        self.failed + self.errored + self.blocked == 0
    }
}

/// How a whole run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// No test failed, errored or was blocked.
    Passed,
    /// Some test failed, errored or was blocked.
    Failed,
}

/// The result of a whole run.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunResult {
    /// Suite name.
    pub suite_name: String,
    /// Passed when no test failed, errored or was blocked.
    pub status: RunStatus,
    /// Milliseconds for the whole run.
    pub duration_ms: u64,
    /// Every test in report order.
    pub tests: Vec<TestResult>,
    /// Outputs of every test: `ID.KEY` → value.
    pub outputs: Map<String, Value>,
    /// Counts per outcome.
    pub summary: Summary,
    /// Latency budgets evaluated after the run (filled in by the caller that keeps history).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub budgets: Vec<crate::budget::BudgetResult>,
    /// Tests that took markedly longer than they used to (with `--fail-on-regression`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub regressions: Vec<crate::budget::Regression>,
}

impl RunResult {
    /// Counts per outcome of a list of results.
    pub fn summarise(tests: &[TestResult]) -> Summary {
        let mut s = Summary::default();
        for t in tests {
            match t.status {
                Outcome::Passed => s.passed += 1,
                Outcome::Failed => s.failed += 1,
                Outcome::Errored => s.errored += 1,
                Outcome::Skipped => s.skipped += 1,
                Outcome::Blocked => s.blocked += 1,
            }
        }
        s
    }
}

/// One runnable test after data rows are expanded.
#[derive(Debug, Clone)]
struct Planned {
    test: Test,
    id: String,
    logical: String,
    deps: Vec<String>,
}

/// Whole-name, case-insensitive glob match with `*` as the only wildcard.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.to_lowercase().chars().collect();
    let t: Vec<char> = text.to_lowercase().chars().collect();
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if pi < p.len() && p[pi] == t[ti] {
            pi += 1;
            ti += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

/// One planned test per test, and per data row of a data-driven test: id `ID.ROW` and name
/// `NAME [ROW]`, where ROW is the row's `caseId`, else its `id`, else its 1-based number;
/// `${row.…}` reads the row, and `data` records where it came from.
fn expand(suite: &Suite, rows: &SuiteRows) -> Result<Vec<Planned>, PlanError> {
    let mut out = Vec::new();
    for (index, test) in suite.tests.iter().enumerate() {
        let id = test_id(test);
        let logical = test
            .logical_name
            .clone()
            .unwrap_or_else(|| test.name.clone());
        let deps = test.depends_on.clone().unwrap_or_default();
        if test.for_each.is_none() {
            out.push(Planned {
                test: test.clone(),
                id,
                logical,
                deps,
            });
            continue;
        }
        let Some(set) = rows.by_test.get(index).cloned().flatten() else {
            return Err(plan_error(
                RunCode::UnknownServerOrRows,
                format!("test {:?}: its data rows were not loaded", test.name),
            ));
        };
        for (i, row) in set.rows.iter().enumerate() {
            let row_id = ["caseId", "id"]
                .iter()
                .find_map(|k| match row.get(*k) {
                    Some(Value::Null) | None => None,
                    Some(v) => Some(crate::data::coerce::as_text(v)),
                })
                .unwrap_or_else(|| (i + 1).to_string());
            let mut t = test.clone();
            t.for_each = None;
            t.name = format!("{} [{row_id}]", test.name);
            t.id = Some(format!("{id}.{row_id}"));
            t.logical_name = Some(logical.clone());
            let mut vars = t.variables.take().unwrap_or_default();
            vars.insert("row".into(), Value::Object(row.clone()));
            t.variables = Some(vars);
            let mut data = Map::new();
            data.insert("source".into(), Value::String(set.source.clone()));
            data.insert("row".into(), json!(i + 1));
            data.insert("id".into(), Value::String(row_id.clone()));
            data.insert("fingerprint".into(), Value::String(set.fingerprint.clone()));
            t.data = Some(data);
            out.push(Planned {
                id: format!("{id}.{row_id}"),
                test: t,
                logical: logical.clone(),
                deps: deps.clone(),
            });
        }
    }
    Ok(out)
}

/// Indexes of the tests a dependency name refers to: equal id, or rows of a logical test.
fn producers(tests: &[Planned], dep: &str) -> Vec<usize> {
    tests
        .iter()
        .enumerate()
        .filter(|(_, t)| {
            t.id == dep
                || slug(&t.logical) == dep
                || t.id.strip_prefix(dep).is_some_and(|r| r.starts_with('.'))
        })
        .map(|(i, _)| i)
        .collect()
}

/// Checks ids and dependencies and returns the report order (indexes into `tests`) and
/// each test's producers.
fn plan(tests: &[Planned]) -> Result<(Vec<usize>, Vec<Vec<usize>>), PlanError> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, t) in tests.iter().enumerate() {
        if let Some(j) = seen.insert(&t.id, i) {
            return Err(plan_error(
                RunCode::DuplicateId,
                format!(
                    "tests {:?} and {:?} have the same id {:?}",
                    tests[j].test.name, t.test.name, t.id
                ),
            ));
        }
    }
    let mut edges: Vec<Vec<usize>> = Vec::with_capacity(tests.len());
    let mut graph: DiGraph<usize, ()> = DiGraph::new();
    let nodes: Vec<NodeIndex> = (0..tests.len()).map(|i| graph.add_node(i)).collect();
    for (i, t) in tests.iter().enumerate() {
        let mut mine = Vec::new();
        for dep in &t.deps {
            let found = producers(tests, dep);
            if found.is_empty() {
                return Err(plan_error(
                    RunCode::UnknownDependency,
                    format!(
                        "test {:?} depends on {dep:?}, which no test has as its id",
                        t.test.name
                    ),
                ));
            }
            for p in found {
                if !mine.contains(&p) {
                    mine.push(p);
                    graph.add_edge(nodes[p], nodes[i], ());
                }
            }
        }
        edges.push(mine);
    }
    if petgraph::algo::toposort(&graph, None).is_err() {
        let cycle: Vec<String> = petgraph::algo::tarjan_scc(&graph)
            .into_iter()
            .find(|scc| scc.len() > 1 || graph.contains_edge(scc[0], scc[0]))
            .map(|scc| {
                let mut ids: Vec<usize> = scc.iter().map(|n| graph[*n]).collect();
                ids.sort_unstable();
                ids.into_iter().map(|i| tests[i].id.clone()).collect()
            })
            .unwrap_or_default();
        return Err(plan_error(
            RunCode::DependencyCycle,
            format!("the dependencies form a cycle: {}", cycle.join(" → ")),
        ));
    }
    // Depth-first: dependencies before dependants, otherwise source order.
    let mut order = Vec::with_capacity(tests.len());
    let mut placed = vec![false; tests.len()];
    fn visit(i: usize, edges: &[Vec<usize>], placed: &mut [bool], order: &mut Vec<usize>) {
        if placed[i] {
            return;
        }
        placed[i] = true;
        for &p in &edges[i] {
            visit(p, edges, placed, order);
        }
        order.push(i);
    }
    for i in 0..tests.len() {
        visit(i, &edges, &mut placed, &mut order);
    }
    Ok((order, edges))
}

/// Which tests a filter selects, with their dependencies unless `no_deps`.
fn select(tests: &[Planned], edges: &[Vec<usize>], opts: &RunOptions) -> Vec<bool> {
    let Some(pattern) = &opts.filter else {
        return vec![true; tests.len()];
    };
    let mut selected: Vec<bool> = tests
        .iter()
        .map(|t| {
            glob_match(pattern, &t.test.name)
                || glob_match(pattern, &t.logical)
                || glob_match(pattern, &t.id)
        })
        .collect();
    if !opts.no_deps {
        let mut stack: Vec<usize> = (0..tests.len()).filter(|i| selected[*i]).collect();
        while let Some(i) = stack.pop() {
            for &p in &edges[i] {
                if !selected[p] {
                    selected[p] = true;
                    stack.push(p);
                }
            }
        }
    }
    selected
}

/// For each test, the index of its dependency component (components numbered in order of
/// their first test).
fn components(edges: &[Vec<usize>]) -> Vec<usize> {
    let n = edges.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    for (i, ps) in edges.iter().enumerate() {
        for &p in ps {
            let (a, b) = (find(&mut parent, i), find(&mut parent, p));
            if a != b {
                parent[a.max(b)] = a.min(b);
            }
        }
    }
    let mut number: HashMap<usize, usize> = HashMap::new();
    (0..n)
        .map(|i| {
            let root = find(&mut parent, i);
            let next = number.len();
            *number.entry(root).or_insert(next)
        })
        .collect()
}

/// `deps` variable of a test: for each dependency name, its producer's outputs, or for
/// several producers (rows) each key as a list in row order.
fn deps_value(
    tests: &[Planned],
    results: &[Option<TestResult>],
    t: &Planned,
) -> Map<String, Value> {
    let mut deps = Map::new();
    for dep in &t.deps {
        let found: Vec<&TestResult> = producers(tests, dep)
            .into_iter()
            .filter_map(|p| results[p].as_ref())
            .collect();
        let value = if found.len() == 1 {
            Value::Object(found[0].outputs.clone())
        } else {
            let mut keys: BTreeMap<String, Vec<Value>> = BTreeMap::new();
            for r in &found {
                for (k, v) in &r.outputs {
                    keys.entry(k.clone()).or_default().push(v.clone());
                }
            }
            Value::Object(
                keys.into_iter()
                    .map(|(k, v)| (k, Value::Array(v)))
                    .collect(),
            )
        };
        deps.insert(dep.clone(), value);
    }
    deps
}

/// Runs a suite and calls `on_event` as it goes; `TestFinished` events come in report
/// order. Returns every result in that order.
pub async fn run_suite(
    suite: Arc<Suite>,
    opts: RunOptions,
    on_event: &mut (dyn FnMut(&Event) + Send),
) -> Result<RunResult, PlanError> {
    let started = Instant::now();
    let rows = match &opts.rows {
        Some(r) => Arc::clone(r),
        None => Arc::new(
            crate::data::load_suite(&suite, &opts.data)
                .await
                .map_err(|e| plan_error(e.run_code(), e.to_string()))?,
        ),
    };
    let tests = expand(&suite, &rows)?;
    let (order, edges) = plan(&tests)?;
    let mut selected = select(&tests, &edges, &opts);
    if let Some((k, n)) = opts.shard {
        if n == 0 || k == 0 || k > n {
            return Err(plan_error(
                RunCode::BadShard,
                format!("shard {k}/{n}: K must be between 1 and N"),
            ));
        }
        for (i, c) in components(&edges).into_iter().enumerate() {
            if c % n != k - 1 {
                selected[i] = false;
            }
        }
    }
    for t in &tests {
        if let Some(name) = &t.test.server
            && suite.servers.as_ref().is_none_or(|s| s.get(name).is_none())
        {
            return Err(plan_error(
                RunCode::UnknownServerOrRows,
                format!(
                    "test {:?} names server {name:?}, which the suite does not declare",
                    t.test.name
                ),
            ));
        }
    }
    if suite.target.is_none() && opts.target.is_none() {
        return Err(plan_error(
            RunCode::NoServer,
            "the suite names no server (a legacy .mcp script never does, nor a suite that says `Server from the command line`); give one with --server CMD, --url URL or --profile NAME",
        ));
    }
    let default_target = opts
        .target
        .clone()
        .or_else(|| suite.target.clone())
        .expect("checked above");
    let order: Vec<usize> = order.into_iter().filter(|i| selected[*i]).collect();
    let suite_name = suite
        .name
        .clone()
        .unwrap_or_else(|| "MCP test suite".into());
    on_event(&Event::RunStarted {
        suite: suite_name.clone(),
        tests: order.len(),
        target: None,
    });

    let mut redactor = Redactor::for_suite(&suite);
    let sensitive: Vec<Vec<String>> = tests
        .iter()
        .map(|t| {
            t.test
                .steps
                .iter()
                .flat_map(|s| s.export.iter().flat_map(|e| e.iter()))
                .filter(|(_, e)| e.sensitive == Some(true))
                .map(|(k, _)| k.to_string())
                .collect()
        })
        .collect();
    let mut shown: Vec<Option<TestResult>> = vec![None; tests.len()];
    // The threads of started tests: each closes its session after handing over its result.
    let mut closing: Vec<std::thread::JoinHandle<()>> = Vec::new();
    let jobs = opts.jobs.max(1);
    let mut results: Vec<Option<TestResult>> = vec![None; tests.len()];
    let mut started_set = vec![false; tests.len()];
    let mut running: JoinSet<(usize, TestResult)> = JoinSet::new();
    let mut emitted = 0usize;
    let mut stop = false;
    let shared: Arc<Vec<Planned>> = Arc::new(tests);
    let tests = &*shared;

    loop {
        // Decide every waiting test whose producers have all finished, in report order.
        let mut progressed = true;
        while progressed {
            progressed = false;
            for &i in &order {
                if started_set[i] {
                    continue;
                }
                let t = &tests[i];
                let producers_of = &edges[i];
                let unselected: Vec<&str> = producers_of
                    .iter()
                    .filter(|p| !selected[**p])
                    .map(|p| tests[*p].id.as_str())
                    .collect();
                if !producers_of
                    .iter()
                    .all(|p| !selected[*p] || results[*p].is_some())
                {
                    continue;
                }
                let not_passed: Vec<&str> = producers_of
                    .iter()
                    .filter(|p| {
                        !selected[**p]
                            || results[**p]
                                .as_ref()
                                .is_some_and(|r| r.status != Outcome::Passed)
                    })
                    .map(|p| tests[*p].id.as_str())
                    .collect();
                let immediate = if !not_passed.is_empty() {
                    let mut msg = format!("dependencies did not pass: {}", not_passed.join(", "));
                    if !unselected.is_empty() {
                        msg.push_str(&format!(" (not selected: {})", unselected.join(", ")));
                    }
                    Some(TestResult::not_run(
                        &t.id,
                        &t.test.name,
                        Outcome::Blocked,
                        Failure::new(RunCode::Blocked, msg),
                    ))
                } else if let Some(reason) = skip_reason(&t.test) {
                    Some(TestResult::not_run(
                        &t.id,
                        &t.test.name,
                        Outcome::Skipped,
                        Failure::new(RunCode::Skip, reason),
                    ))
                } else if stop {
                    Some(TestResult::not_run(
                        &t.id,
                        &t.test.name,
                        Outcome::Skipped,
                        Failure::new(
                            RunCode::FailFast,
                            "not run: --fail-fast stopped the run after a failure",
                        ),
                    ))
                } else {
                    None
                };
                if let Some(mut r) = immediate {
                    r.data = t.test.data.clone().map(Value::Object);
                    started_set[i] = true;
                    results[i] = Some(r);
                    progressed = true;
                    continue;
                }
                if running.len() >= jobs {
                    continue;
                }
                started_set[i] = true;
                let target = match &t.test.server {
                    Some(name) => suite
                        .servers
                        .as_ref()
                        .and_then(|s| s.get(name))
                        .cloned()
                        .unwrap_or_else(|| default_target.clone()),
                    None => default_target.clone(),
                };
                let input = TestInput {
                    target,
                    deps: deps_value(tests, &results, t),
                    state: opts.state.clone(),
                    connect_timeout: opts.connect_timeout,
                    protocol: opts.protocol.clone(),
                    snapshots: opts.snapshots.clone(),
                    record: opts.transcript,
                };
                let (id, name) = (t.id.clone(), t.test.name.clone());
                match spawn_test(Arc::clone(&suite), Arc::clone(&shared), i, input) {
                    Ok((thread, result)) => {
                        closing.push(thread);
                        running.spawn(async move {
                            let r = result.await.unwrap_or_else(|_| {
                                TestResult::not_run(
                                    &id,
                                    &name,
                                    Outcome::Errored,
                                    Failure::new(RunCode::Internal, "the test's thread ended without a result (a bug in mcpr: please report it)"),
                                )
                            });
                            (i, r)
                        });
                    }
                    Err(e) => {
                        results[i] = Some(TestResult::not_run(
                            &id,
                            &name,
                            Outcome::Errored,
                            Failure::new(
                                RunCode::Internal,
                                format!("cannot start a thread for the test: {e}"),
                            ),
                        ));
                    }
                }
                progressed = true;
            }
        }
        // Emit what is finished, in report order.
        while emitted < order.len() {
            let i = order[emitted];
            match &results[i] {
                Some(r) => {
                    for k in &sensitive[i] {
                        if let Some(v) = r.outputs.get(k) {
                            redactor.add(&exec::values::as_text(v));
                        }
                    }
                    let people = redactor.result(r, &sensitive[i]);
                    on_event(&Event::TestFinished(Box::new(people.clone())));
                    shown[i] = Some(people);
                    emitted += 1;
                }
                None => break,
            }
        }
        match running.join_next().await {
            Some(Ok((i, mut r))) => {
                r.id = tests[i].id.clone();
                r.data = tests[i].test.data.clone().map(Value::Object);
                if opts.fail_fast && matches!(r.status, Outcome::Failed | Outcome::Errored) {
                    stop = true;
                }
                results[i] = Some(r);
            }
            Some(Err(e)) => {
                return Err(plan_error(
                    RunCode::Internal,
                    format!("a test task ended abnormally: {e}"),
                ));
            }
            None => {
                if emitted >= order.len() {
                    break;
                }
            }
        }
    }

    // Every server is ended before the run returns, so none is orphaned.
    let _ = tokio::task::spawn_blocking(move || {
        for h in closing {
            let _ = h.join();
        }
    })
    .await;
    let tests_out: Vec<TestResult> = order.iter().filter_map(|i| shown[*i].clone()).collect();
    let mut outputs = Map::new();
    let mut by_logical: BTreeMap<String, Vec<&TestResult>> = BTreeMap::new();
    for (r, i) in tests_out
        .iter()
        .zip(order.iter().filter(|i| shown[**i].is_some()))
    {
        for (k, v) in &r.outputs {
            outputs.insert(format!("{}.{k}", r.id), v.clone());
        }
        if tests[*i].test.data.is_some() {
            by_logical
                .entry(slug(&tests[*i].logical))
                .or_default()
                .push(r);
        }
    }
    // A data-driven test's rows also publish each key as a list in row order.
    for (logical, rs) in by_logical {
        if rs.len() < 2 {
            continue;
        }
        let mut keys: Vec<&String> = Vec::new();
        for r in &rs {
            for k in r.outputs.keys() {
                if !keys.contains(&k) {
                    keys.push(k);
                }
            }
        }
        for k in keys {
            let list: Vec<Value> = rs
                .iter()
                .map(|r| r.outputs.get(k).cloned().unwrap_or(Value::Null))
                .collect();
            outputs.insert(format!("{logical}.{k}"), Value::Array(list));
        }
    }
    let summary = RunResult::summarise(&tests_out);
    Ok(RunResult {
        suite_name,
        status: if summary.passed() {
            RunStatus::Passed
        } else {
            RunStatus::Failed
        },
        duration_ms: started.elapsed().as_millis() as u64,
        tests: tests_out,
        outputs,
        summary,
        budgets: Vec::new(),
        regressions: Vec::new(),
    })
}

/// Runs one test on a thread of its own, with a single-threaded runtime: the session's
/// reader, writer and the steps then never wake each other across threads, which costs more
/// than the call itself against a fast server. The result arrives on the receiver as soon as
/// the test ends; the thread then closes the session and ends.
fn spawn_test(
    suite: Arc<Suite>,
    tests: Arc<Vec<Planned>>,
    i: usize,
    input: TestInput,
) -> std::io::Result<(
    std::thread::JoinHandle<()>,
    tokio::sync::oneshot::Receiver<TestResult>,
)> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let thread = std::thread::Builder::new()
        .name(format!("mcpr-test-{i}"))
        .spawn(move || {
            // The test runs as a task of the runtime, not as `block_on`'s own future: when
            // the session's reader wakes a task, the scheduler runs it at once, where waking
            // the `block_on` future would first turn the I/O driver (one more system call
            // for every message).
            let test = async move {
                let (r, client) = exec::run_test_open(&suite, &tests[i].test, input).await;
                let _ = tx.send(r);
                // Off the critical path: the next test need not wait for the shutdown.
                if let Some(c) = client {
                    c.close().await;
                }
            };
            // A panic in the test drops `tx`: the caller reports the missing result.
            let _ = rt.block_on(rt.spawn(test));
        })?;
    Ok((thread, rx))
}

fn skip_reason(test: &Test) -> Option<String> {
    match &test.skip {
        Some(Skip::Flag(true)) => Some("skipped".into()),
        Some(Skip::Reason(r)) => Some(r.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(name: &str, id: &str, deps: &[&str]) -> Planned {
        let test: Test = serde_json::from_value(json!({
            "name": name, "id": id, "dependsOn": deps,
            "steps": [{"tool": {"name": "echo"}}]
        }))
        .unwrap();
        Planned {
            test,
            id: id.into(),
            logical: name.into(),
            deps: deps.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn order_is_depth_first_and_cycles_are_named() {
        let tests = vec![t("C", "c", &["b"]), t("A", "a", &[]), t("B", "b", &["a"])];
        let (order, _) = plan(&tests).unwrap();
        assert_eq!(order, vec![1, 2, 0]);
        let cyc = vec![t("A", "a", &["b"]), t("B", "b", &["a"]), t("D", "d", &[])];
        let e = plan(&cyc).unwrap_err();
        assert_eq!(e.code, RunCode::DependencyCycle);
        assert!(e.message.contains("a → b"), "{}", e.message);
        assert_eq!(
            plan(&[t("A", "a", &["zz"])]).unwrap_err().code,
            RunCode::UnknownDependency
        );
        assert_eq!(
            plan(&[t("A", "a", &[]), t("B", "a", &[])])
                .unwrap_err()
                .code,
            RunCode::DuplicateId
        );
    }

    #[test]
    fn shards_keep_components_whole() {
        let edges = vec![vec![], vec![], vec![0], vec![2], vec![1], vec![]];
        assert_eq!(components(&edges), vec![0, 1, 0, 0, 1, 2]);
    }

    #[test]
    fn globs() {
        assert!(glob_match("add*", "Addition"));
        assert!(glob_match("*tion", "Addition"));
        assert!(!glob_match("add", "Addition"));
        assert!(glob_match("a*d*n", "Addition"));
    }
}
