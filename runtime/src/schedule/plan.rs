//! Planning a suite's run: each test and data row as a planned test, ids and dependencies
//! checked, the report order (depth-first by the dependency graph, otherwise source order),
//! the selection (`--test`, `--shard`), and what a test's dependencies hand it.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use mcpr_compiler::ir::{Skip, Suite, Test};
use mcpr_compiler::names::slug;
use petgraph::graph::{DiGraph, NodeIndex};
use serde_json::{Map, Value};

use super::{PlanError, RunOptions, Selection, plan_error};
use crate::codes::RunCode;
use crate::data::{RowSet, SuiteRows};
use crate::exec::{TestData, TestResult, test_id};

/// A suite's run as planned: its tests, their order, who produces for whom, and which run.
pub(super) struct Plan {
    /// Every planned test (data rows expanded), in source order.
    pub(super) tests: Vec<Planned>,
    /// The report order of the selected tests (indexes into `tests`).
    pub(super) order: Vec<usize>,
    /// The report order of the selection before `--shard` split it.
    pub(super) whole: Vec<usize>,
    /// Each test's producers (indexes into `tests`).
    pub(super) edges: Vec<Vec<usize>>,
    /// Whether each test was selected.
    pub(super) selected: Vec<bool>,
}

impl Plan {
    /// Plans `suite` with its loaded rows: a problem that stops the run before any test
    /// (a duplicate id, a cycle, an unknown dependency, a bad shard, an undeclared server,
    /// no server at all) is a [`PlanError`].
    pub(super) fn make(
        suite: &Arc<Suite>,
        rows: &SuiteRows,
        opts: &RunOptions,
    ) -> Result<Plan, PlanError> {
        let tests = expand(suite, rows)?;
        let (order, edges) = plan(&tests)?;
        let mut selected = select(&tests, &edges, opts);
        let whole = order.iter().copied().filter(|i| selected[*i]).collect();
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
                        t.name
                    ),
                ));
            }
        }
        let needs_default = order
            .iter()
            .any(|i| selected[*i] && tests[*i].test.server.is_none());
        if needs_default && suite.target.is_none() && opts.target.is_none() {
            return Err(plan_error(
                RunCode::NoServer,
                "the suite names no server (a legacy .mcp script never does, nor a suite that says `Server from the command line`); give one with --server CMD, --url URL or --profile NAME",
            ));
        }
        let order = first(order, &edges, &tests, &opts.selection)
            .into_iter()
            .filter(|i| selected[*i])
            .collect();
        Ok(Plan {
            tests,
            order,
            whole,
            edges,
            selected,
        })
    }
}

/// One runnable test after data rows are expanded. Every row of a data-driven test shares
/// the test as written; the row's own copy (its name, id and `${row.…}`) is made
/// only when it runs ([`Planned::runnable`]), so a hundred thousand rows cost their names
/// and ids, not a hundred thousand copies of the test.
#[derive(Debug, Clone)]
pub(super) struct Planned {
    /// The test as written (shared by the rows of a data-driven test).
    pub(super) test: Written,
    /// The data row this planned test runs, for a data-driven test.
    pub(super) row: Option<PlannedRow>,
    /// Its name (`NAME [ROW]` for a row).
    pub(super) name: String,
    /// Its id (`ID.ROW` for a row).
    pub(super) id: String,
    /// The logical test a row belongs to (its name otherwise).
    pub(super) logical: String,
    /// The dependency names it lists (shared by the rows).
    pub(super) deps: Arc<[String]>,
}

/// A test as written, read from its suite: the suite is shared, not the test copied (a
/// suite of 100,000 tests would otherwise be held twice during its run).
#[derive(Debug, Clone)]
pub(super) struct Written {
    suite: Arc<Suite>,
    index: usize,
}

impl std::ops::Deref for Written {
    type Target = Test;

    fn deref(&self) -> &Test {
        &self.suite.tests[self.index]
    }
}

/// A data row of a planned test: which row of which set, and the row's id.
#[derive(Debug, Clone)]
pub(super) struct PlannedRow {
    set: Arc<RowSet>,
    index: usize,
    id: String,
}

impl Planned {
    /// A test without rows, planned as written.
    fn whole(test: Written) -> Planned {
        let id = test_id(&test);
        let logical = test
            .logical_name
            .clone()
            .unwrap_or_else(|| test.name.clone());
        let deps = test.depends_on.clone().unwrap_or_default().into();
        Planned {
            name: test.name.clone(),
            test,
            row: None,
            id,
            logical,
            deps,
        }
    }

    /// The `data` of the test's result: where a row came from (`source`, `row` number, `id`,
    /// `fingerprint`, the row set's texts shared), else the data it was written with.
    pub(super) fn result_data(&self) -> Option<TestData> {
        let Some(row) = self.row.as_ref() else {
            return self
                .test
                .data
                .clone()
                .map(|d| TestData::Json(Value::Object(d)));
        };
        Some(TestData::Row {
            source: Arc::clone(&row.set.source),
            row: row.index + 1,
            id: row.id.clone(),
            fingerprint: Arc::clone(&row.set.fingerprint),
        })
    }

    /// The test to run: as written, or a row's own copy that names the row and reads it as
    /// `${row.…}` (its result gets where the row came from: [`Planned::result_data`]).
    pub(super) fn runnable(&self) -> Cow<'_, Test> {
        let Some(row) = &self.row else {
            return Cow::Borrowed(&self.test);
        };
        let mut t = (*self.test).clone();
        t.for_each = None;
        t.name = self.name.clone();
        t.id = Some(self.id.clone());
        t.logical_name = Some(self.logical.clone());
        let mut vars = t.variables.take().unwrap_or_default();
        vars.insert("row".into(), Value::Object(row.set.rows[row.index].clone()));
        t.variables = Some(vars);
        t.data = None;
        Cow::Owned(t)
    }
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
pub(super) fn expand(suite: &Arc<Suite>, rows: &SuiteRows) -> Result<Vec<Planned>, PlanError> {
    let mut out = Vec::new();
    for (index, test) in suite.tests.iter().enumerate() {
        let whole = Planned::whole(Written {
            suite: Arc::clone(suite),
            index,
        });
        if test.for_each.is_none() {
            out.push(whole);
            continue;
        }
        let Some(set) = rows.by_test.get(index).cloned().flatten() else {
            return Err(plan_error(
                RunCode::UnknownServerOrRows,
                format!("test {:?}: its data rows were not loaded", test.name),
            ));
        };
        out.reserve(set.rows.len());
        for (i, row) in set.rows.iter().enumerate() {
            let row_id = ["caseId", "id"]
                .iter()
                .find_map(|k| match row.get(*k) {
                    Some(Value::Null) | None => None,
                    Some(v) => Some(crate::data::coerce::as_text(v)),
                })
                .unwrap_or_else(|| (i + 1).to_string());
            out.push(Planned {
                name: format!("{} [{row_id}]", test.name),
                id: format!("{}.{row_id}", whole.id),
                row: Some(PlannedRow {
                    set: Arc::clone(&set),
                    index: i,
                    id: row_id,
                }),
                ..whole.clone()
            });
        }
    }
    Ok(out)
}

/// Whether dependency name `dep` refers to test `t`: its id, its logical test's slug, or an
/// id prefix that ends where a row number begins (`lookup` for `lookup.1`, `lookup.2`).
fn produces(t: &Planned, dep: &str) -> bool {
    t.id == dep
        || slug(&t.logical) == dep
        || t.id.strip_prefix(dep).is_some_and(|r| r.starts_with('.'))
}

/// Every name a dependency may use for each test, indexed once: lookups cost the same at
/// 100 tests and at 100,000.
struct Producers(HashMap<String, Vec<usize>>);

impl Producers {
    fn of(tests: &[Planned]) -> Producers {
        let mut map: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, t) in tests.iter().enumerate() {
            let mut names = vec![t.id.clone(), slug(&t.logical)];
            names.extend(
                t.id.match_indices('.')
                    .map(|(at, _)| t.id[..at].to_string()),
            );
            names.sort_unstable();
            names.dedup();
            for name in names {
                map.entry(name).or_default().push(i);
            }
        }
        Producers(map)
    }

    /// Indexes of the tests `dep` refers to, in source order.
    fn of_dep(&self, dep: &str) -> &[usize] {
        self.0.get(dep).map_or(&[], Vec::as_slice)
    }
}

/// Checks ids and dependencies and returns the report order (indexes into `tests`) and
/// each test's producers.
pub(super) fn plan(tests: &[Planned]) -> Result<(Vec<usize>, Vec<Vec<usize>>), PlanError> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, t) in tests.iter().enumerate() {
        if let Some(j) = seen.insert(&t.id, i) {
            return Err(plan_error(
                RunCode::DuplicateId,
                format!(
                    "tests {:?} and {:?} have the same id {:?}",
                    tests[j].name, t.name, t.id
                ),
            ));
        }
    }
    let mut edges: Vec<Vec<usize>> = Vec::with_capacity(tests.len());
    let mut graph: DiGraph<usize, ()> = DiGraph::new();
    let nodes: Vec<NodeIndex> = (0..tests.len()).map(|i| graph.add_node(i)).collect();
    let index = Producers::of(tests);
    for (i, t) in tests.iter().enumerate() {
        let mut mine = Vec::new();
        for dep in t.deps.iter() {
            let found = index.of_dep(dep);
            if found.is_empty() {
                return Err(plan_error(
                    RunCode::UnknownDependency,
                    format!(
                        "test {:?} depends on {dep:?}, which no test has as its id",
                        t.name
                    ),
                ));
            }
            for &p in found {
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
    // Without recursion: a chain of 100,000 dependencies must not overflow the stack.
    fn visit(i: usize, edges: &[Vec<usize>], placed: &mut [bool], order: &mut Vec<usize>) {
        if placed[i] {
            return;
        }
        placed[i] = true;
        let mut stack = vec![(i, 0usize)];
        while let Some((n, next)) = stack.last_mut() {
            match edges[*n].get(*next) {
                Some(&p) => {
                    *next += 1;
                    if !placed[p] {
                        placed[p] = true;
                        stack.push((p, 0));
                    }
                }
                None => {
                    order.push(*n);
                    stack.pop();
                }
            }
        }
    }
    for i in 0..tests.len() {
        visit(i, &edges, &mut placed, &mut order);
    }
    Ok((order, edges))
}

/// The report order with the tests of `selection.first` (and their dependencies) moved to
/// the front, each group keeping its order.
fn first(
    order: Vec<usize>,
    edges: &[Vec<usize>],
    tests: &[Planned],
    selection: &Selection,
) -> Vec<usize> {
    if selection.first.is_empty() {
        return order;
    }
    let mut placed = vec![false; tests.len()];
    let mut out = Vec::with_capacity(order.len());
    // Producers come before their consumers in `order`, so walking a test's producers
    // (depth-first, without recursion) and then the test keeps every dependency first.
    let place = |i: usize, out: &mut Vec<usize>, placed: &mut [bool]| {
        let mut stack = vec![(i, false)];
        while let Some((j, expanded)) = stack.pop() {
            if placed[j] {
                continue;
            }
            if expanded {
                placed[j] = true;
                out.push(j);
            } else {
                stack.push((j, true));
                stack.extend(edges[j].iter().rev().map(|&p| (p, false)));
            }
        }
    };
    for &i in &order {
        let t = &tests[i];
        let names = [t.name.as_str(), t.logical.as_str(), t.id.as_str()];
        if Selection::has(&selection.first, &names) {
            place(i, &mut out, &mut placed);
        }
    }
    for &i in &order {
        place(i, &mut out, &mut placed);
    }
    out
}

/// Which tests the selection picks, with their dependencies unless `no_deps`.
pub(super) fn select(tests: &[Planned], edges: &[Vec<usize>], opts: &RunOptions) -> Vec<bool> {
    let s = &opts.selection;
    if opts.filter.is_none() && s.keyword.is_none() && s.names.is_none() {
        return vec![true; tests.len()];
    }
    let mut selected: Vec<bool> = tests
        .iter()
        .map(|t| {
            let names = [t.name.as_str(), t.logical.as_str(), t.id.as_str()];
            opts.filter
                .as_ref()
                .is_none_or(|p| names.iter().any(|n| glob_match(p, n)))
                && s.keyword.as_ref().is_none_or(|k| k.matches(&names))
                && s.names
                    .as_ref()
                    .is_none_or(|set| Selection::has(set, &names))
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
pub(super) fn components(edges: &[Vec<usize>]) -> Vec<usize> {
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

/// What the run keeps of a finished test once it is reported: what its consumers, the
/// tests it blocks and the run's outputs read. The whole result is kept only as reported.
#[derive(Debug, Clone)]
pub(super) struct Finished {
    pub(super) status: crate::exec::Outcome,
    pub(super) quarantined: bool,
    pub(super) outputs: Map<String, Value>,
}

impl Finished {
    pub(super) fn of(r: &TestResult) -> Finished {
        Finished {
            status: r.status,
            quarantined: r.quarantined,
            outputs: r.outputs.clone(),
        }
    }
}

/// `deps` variable of a test: for each dependency name, its producer's outputs, or for
/// several producers (rows) each key as a list in row order. `producers` are the test's
/// (its edges of the plan): only they are searched for each name.
pub(super) fn deps_value(
    tests: &[Planned],
    results: &[Option<Finished>],
    t: &Planned,
    producers: &[usize],
) -> Map<String, Value> {
    let mut deps = Map::new();
    for dep in t.deps.iter() {
        let mut of_dep: Vec<usize> = producers
            .iter()
            .copied()
            .filter(|&p| produces(&tests[p], dep))
            .collect();
        of_dep.sort_unstable();
        let found: Vec<&Finished> = of_dep
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

pub(super) fn skip_reason(test: &Test) -> Option<String> {
    match &test.skip {
        Some(Skip::Flag(true)) => Some("skipped".into()),
        Some(Skip::Reason(r)) => Some(r.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn t(name: &str, id: &str, deps: &[&str]) -> Planned {
        let test: Test = serde_json::from_value(json!({
            "name": name, "id": id, "dependsOn": deps,
            "steps": [{"tool": {"name": "echo"}}]
        }))
        .unwrap();
        let suite = Suite::new(mcpr_compiler::ir::Target::stdio("s", vec![]), vec![test]);
        Planned::whole(Written {
            suite: Arc::new(suite),
            index: 0,
        })
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

    #[test]
    fn a_dependency_names_an_id_a_logical_test_or_its_rows() {
        let tests = vec![
            t("Look up", "lookup.1", &[]),
            t("Look up", "lookup.2", &[]),
            t("Other", "look", &[]),
            t("Uses rows", "uses", &["lookup"]),
            t("Uses slug", "slugged", &["look-up"]),
            t("Uses one", "one", &["lookup.2", "look"]),
        ];
        let (_, edges) = plan(&tests).unwrap();
        assert_eq!(edges[3], vec![0, 1], "an id prefix up to a row number");
        assert_eq!(edges[4], vec![0, 1], "the logical test's slug");
        assert_eq!(edges[5], vec![1, 2], "a whole id only, not a prefix of one");
    }

    #[test]
    fn a_chain_of_a_hundred_thousand_dependencies_is_planned_without_recursion() {
        let n = 100_000;
        let ids: Vec<String> = (0..n).map(|i| format!("t{i}")).collect();
        let tests: Vec<Planned> = (0..n)
            .map(|i| {
                let deps: Vec<&str> = if i + 1 < n { vec![&ids[i + 1]] } else { vec![] };
                t(&ids[i], &ids[i], &deps)
            })
            .collect();
        let (order, edges) = plan(&tests).unwrap();
        assert_eq!(order.first(), Some(&(n - 1)));
        assert_eq!(order.last(), Some(&0));
        assert_eq!(edges[0], vec![1]);
    }
}
