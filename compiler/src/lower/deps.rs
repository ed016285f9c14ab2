//! Test ids and the dependency graph: duplicate ids, unknown dependencies, cycles (strongly
//! connected components), dependencies on skipped tests, `${deps.ID.…}` outside the test's
//! dependencies, and (pedantic) exports nobody reads.

use super::Lower;
use crate::diagnostics::Problem;
use crate::ir::{Skip, Test};
use crate::names::{closest, slug};
use crate::source::Span;
use foldhash::{HashMap, HashMapExt};
use petgraph::algo::tarjan_scc;
use petgraph::graph::{DiGraph, NodeIndex};
use std::borrow::Cow;
use std::collections::VecDeque;

/// A test as lowered from any surface format, with the places the dependency checks point at.
pub struct BuiltTest {
    /// The IR test, or what is kept of it once `check` has judged it alone.
    pub test: Lowered,
    /// Whether the id was written (`Id:`, `id:`), rather than made from the name.
    pub explicit_id: bool,
    /// Span of the id (or of the name when the id is its slug).
    pub id_span: Span,
    /// How it is linked to other tests, when it is (most tests are not).
    pub links: Option<Box<Links>>,
    /// Its `skip` setting: absent, or whether it skips the test (`skip: false` does not).
    skip: Option<bool>,
    /// Whether it runs once per data row.
    iterates: bool,
}

/// How a test is linked to others: what it depends on, reads of them and gives them.
#[derive(Debug, Default)]
pub struct Links {
    /// Each dependency with its span.
    pub depends: Vec<(String, Span)>,
    /// `${deps.…}` references: inner text, file, span.
    pub deps_refs: Vec<(String, usize, Span)>,
    /// Exports written in the entry file: name, span.
    pub exports: Vec<(String, Span)>,
}

impl Links {
    /// The links, `None` when there are none.
    pub fn of(links: Links) -> Option<Box<Links>> {
        let none =
            links.depends.is_empty() && links.deps_refs.is_empty() && links.exports.is_empty();
        (!none).then(|| Box::new(links))
    }
}

// A file of small tests holds one per test while its suite-level checks run.
const _: () = assert!(size_of::<BuiltTest>() <= 64);

/// A lowered test: whole, or reduced to what the checks of the whole suite read of it.
pub enum Lowered {
    /// The IR test (boxed: a reduced test is a fraction of its size).
    Whole(Box<Test>),
    /// A test `check` has judged alone ([`super::validate::test_alone`]) and let go: a suite
    /// of 200,000 small tests held each whole, steps dropped, at 424 bytes and more.
    Reduced(Reduced),
}

/// What the suite-level checks read of a test besides what its [`BuiltTest`] keeps: its name
/// and id (duplicates, dependencies, budgets) and the data source it iterates over. Kept
/// small: a file of small tests holds one per test.
pub struct Reduced {
    /// The test's name.
    pub name: Box<str>,
    /// Its id, `None` when the id is the name itself (`t1`, `login`: one string fewer a
    /// test).
    pub id: Option<Box<str>>,
    /// The data source its rows come from (`For each row from …`), behind one pointer as
    /// most tests have none.
    #[expect(
        clippy::box_collection,
        reason = "a thin pointer: 8 bytes a test where `Option<Box<str>>` takes 16"
    )]
    pub source: Option<Box<String>>,
}

impl Lowered {
    /// The whole IR test.
    pub fn whole(test: Test) -> Self {
        Lowered::Whole(Box::new(test))
    }
}

impl BuiltTest {
    /// A test lowered whole, with whether its id was written and where (`id_span`), and its
    /// links to others.
    pub fn new(
        test: Test,
        (explicit_id, id_span): (bool, Span),
        links: Option<Box<Links>>,
    ) -> Self {
        BuiltTest {
            skip: test.skip.as_ref().map(skips),
            iterates: test.for_each.is_some(),
            test: Lowered::whole(test),
            explicit_id,
            id_span,
            links,
        }
    }

    /// The id the test is known by: its id, else the slug of its name.
    pub fn id(&self) -> Cow<'_, str> {
        match self.stored_id() {
            Some(id) => Cow::Borrowed(id),
            None => Cow::Owned(slug(self.name())),
        }
    }

    /// The id when the test keeps it as a string (every test reduced does), `None` when it
    /// is made from the name.
    fn stored_id(&self) -> Option<&str> {
        match &self.test {
            Lowered::Whole(t) => t.id.as_deref(),
            Lowered::Reduced(r) => Some(r.id.as_deref().unwrap_or(&r.name)),
        }
    }

    /// Each dependency with its span.
    pub fn depends(&self) -> &[(String, Span)] {
        self.links.as_ref().map_or(&[], |l| &l.depends)
    }

    /// `${deps.…}` references: inner text, file, span.
    pub fn deps_refs(&self) -> &[(String, usize, Span)] {
        self.links.as_ref().map_or(&[], |l| &l.deps_refs)
    }

    /// Exports written in the entry file: name, span.
    pub fn exports(&self) -> &[(String, Span)] {
        self.links.as_ref().map_or(&[], |l| &l.exports)
    }

    /// The test's name.
    pub fn name(&self) -> &str {
        match &self.test {
            Lowered::Whole(t) => &t.name,
            Lowered::Reduced(r) => &r.name,
        }
    }

    /// The test's `skip` setting: absent, or whether it skips the test (`skip: false` does
    /// not).
    pub fn skip(&self) -> Option<bool> {
        self.skip
    }

    /// Whether the test runs once per data row.
    pub fn iterates(&self) -> bool {
        self.iterates
    }

    /// The data source the test's rows come from.
    pub fn source(&self) -> Option<&str> {
        match &self.test {
            Lowered::Whole(t) => match &t.for_each {
                Some(crate::ir::ForEach::Source(s)) => Some(&s.source),
                _ => None,
            },
            Lowered::Reduced(r) => r.source.as_deref().map(String::as_str),
        }
    }

    /// The whole IR test, for a test judged alone already.
    pub fn test_mut(&mut self) -> Option<&mut Test> {
        match &mut self.test {
            Lowered::Whole(t) => Some(t),
            Lowered::Reduced(_) => None,
        }
    }

    /// Lets the IR test go, keeping what the suite-level checks read of it.
    pub fn reduce(&mut self) {
        let Lowered::Whole(t) = &mut self.test else {
            return;
        };
        let test = std::mem::replace(&mut **t, Test::new(String::new(), Vec::new()));
        let source = match &test.for_each {
            Some(crate::ir::ForEach::Source(s)) => Some(Box::new(s.source.clone())),
            _ => None,
        };
        let id = test.id.unwrap_or_else(|| slug(&test.name));
        self.test = Lowered::Reduced(Reduced {
            source,
            id: (id != test.name).then(|| id.into_boxed_str()),
            name: test.name.into_boxed_str(),
        });
    }

    /// The whole IR test, `None` when it was reduced.
    pub fn into_test(self) -> Option<Test> {
        match self.test {
            Lowered::Whole(t) => Some(*t),
            Lowered::Reduced(_) => None,
        }
    }
}

/// Whether a `skip` setting skips its test.
fn skips(skip: &Skip) -> bool {
    matches!(skip, Skip::Flag(true) | Skip::Reason(_))
}

/// Runs every dependency check over the tests of the entry file.
pub fn check(l: &mut Lower<'_>, tests: &[BuiltTest]) {
    let by_id = ids(l, tests);
    // Without a dependency there is no graph to walk (a graph of a large suite's tests, and
    // its components, are larger than the tests kept).
    if tests.iter().any(|t| !t.depends().is_empty()) {
        let graph = dependency_graph(l, tests, &by_id);
        report_cycles(l, tests, &graph);
    }
    undeclared_deps_refs(l, tests);
    if l.options.pedantic {
        unused_exports(l, tests);
    }
}

/// The tests' dependencies as a graph of test indexes.
struct Dependencies {
    graph: DiGraph<usize, ()>,
    nodes: Vec<NodeIndex>,
    /// edge (from, to) → span of the `Depends on:` item.
    edge_at: HashMap<(usize, usize), Span>,
}

/// The tests' ids, each with the first test that has it: the indexes of those tests sorted
/// by id, looked up by binary search. Four bytes a test, where a hash map of ids took over
/// forty (a file of 200,000 small tests held 8.7 MB more while its dependencies were checked).
struct Ids<'t> {
    tests: &'t [BuiltTest],
    /// The ids of the tests that do not keep theirs as a string, made once.
    made: HashMap<u32, String>,
    /// The first test of each id, in the order of the ids.
    sorted: Vec<u32>,
}

impl<'t> Ids<'t> {
    /// The id of test `i`.
    fn of(&self, i: u32) -> &str {
        match self.tests[i as usize].stored_id() {
            Some(id) => id,
            None => self.made.get(&i).map_or("", String::as_str),
        }
    }

    /// The first test with id `id`.
    fn find(&self, id: &str) -> Option<usize> {
        let at = self.sorted.binary_search_by(|&i| self.of(i).cmp(id)).ok()?;
        Some(self.sorted[at] as usize)
    }

    /// The ids in the order of their tests.
    fn in_order(&self) -> Vec<String> {
        let mut first = self.sorted.clone();
        first.sort_unstable();
        first.into_iter().map(|i| self.of(i).to_string()).collect()
    }
}

/// Each id and the first test that has it; a second test with the same id is reported.
fn ids<'t>(l: &mut Lower<'_>, tests: &'t [BuiltTest]) -> Ids<'t> {
    let made = tests
        .iter()
        .enumerate()
        .filter(|(_, t)| t.stored_id().is_none())
        .map(|(i, t)| (i as u32, t.id().into_owned()))
        .collect();
    let mut ids = Ids {
        tests,
        made,
        sorted: Vec::new(),
    };
    // By id, and in file order among the tests of one id.
    let mut order: Vec<u32> = (0..tests.len() as u32).collect();
    order.sort_by(|&a, &b| ids.of(a).cmp(ids.of(b)).then(a.cmp(&b)));
    let mut again: Vec<(u32, u32)> = Vec::new();
    let mut first = 0;
    for (at, &i) in order.iter().enumerate() {
        if at > 0 && ids.of(i) == ids.of(order[at - 1]) {
            again.push((i, order[first]));
        } else {
            first = at;
        }
    }
    order.dedup_by(|i, prev| ids.of(*i) == ids.of(*prev));
    order.shrink_to_fit();
    // Reported in file order.
    again.sort_unstable();
    for (i, first) in again {
        let (t, first) = (&tests[i as usize], &tests[first as usize]);
        if !t.explicit_id && !first.explicit_id && first.name() == t.name() {
            // Two tests of the same name: MCPLANG201 already says so.
            continue;
        }
        let d = crate::diagnostics::Diagnostic::new(
            Problem::DuplicateTestId {
                id: ids.of(i).to_string(),
                explicit: t.explicit_id,
                surface: l.surface,
            },
            l.entry,
            t.id_span,
        )
        .with_secondary(first.id_span, "first test with this id");
        l.diags.push(d);
    }
    ids.sorted = order;
    ids
}

/// The graph of the dependencies that name a test; a dependency that names none, or names a
/// skipped test from one that is not skipped, is reported.
fn dependency_graph(l: &mut Lower<'_>, tests: &[BuiltTest], by_id: &Ids<'_>) -> Dependencies {
    let file = l.entry;
    // A dependency may also name a data-driven test by the slug of its name (only worked
    // out when some dependency is not an id).
    let mut by_name: Option<HashMap<String, usize>> = None;
    let mut resolve = |id: &str| {
        by_id.find(id).or_else(|| {
            by_name
                .get_or_insert_with(|| {
                    let mut m = HashMap::new();
                    for (i, t) in tests.iter().enumerate() {
                        m.entry(slug(t.name())).or_insert(i);
                    }
                    m
                })
                .get(id)
                .copied()
        })
    };
    let mut graph: DiGraph<usize, ()> = DiGraph::new();
    let nodes: Vec<NodeIndex> = (0..tests.len()).map(|i| graph.add_node(i)).collect();
    let mut edge_at = HashMap::new();
    // Sorted once, when some dependency is unknown.
    let mut ordered: Option<Vec<String>> = None;
    for (i, t) in tests.iter().enumerate() {
        for (dep, span) in t.depends() {
            match resolve(dep) {
                Some(j) => {
                    graph.add_edge(nodes[i], nodes[j], ());
                    edge_at.entry((i, j)).or_insert(*span);
                    if tests[j].skip() == Some(true) && tests[i].skip().is_none() {
                        l.report(
                            Problem::DependsOnSkipped {
                                id: dep.clone(),
                                surface: l.surface,
                            },
                            file,
                            *span,
                        );
                    }
                }
                None => l.report(
                    Problem::UnknownDependency {
                        id: dep.clone(),
                        // The ids in document order, so a tie always goes to the same one
                        // (the map's order changes from run to run).
                        suggestion: closest(
                            dep,
                            ordered
                                .get_or_insert_with(|| by_id.in_order())
                                .iter()
                                .map(String::as_str),
                        ),
                        surface: l.surface,
                    },
                    file,
                    *span,
                ),
            }
        }
    }
    Dependencies {
        graph,
        nodes,
        edge_at,
    }
}

/// Each cycle of dependencies (a test that depends on itself included), reported once at
/// the first edge of a shortest way round from its first test.
fn report_cycles(l: &mut Lower<'_>, tests: &[BuiltTest], deps: &Dependencies) {
    let Dependencies {
        graph,
        nodes,
        edge_at,
    } = deps;
    for scc in tarjan_scc(graph) {
        let members: Vec<usize> = {
            let mut m: Vec<usize> = scc.iter().map(|n| graph[*n]).collect();
            m.sort_unstable();
            m
        };
        let looped = members.len() == 1 && edge_at.contains_key(&(members[0], members[0]));
        if members.len() < 2 && !looped {
            continue;
        }
        let start = members[0];
        let path = cycle_from(graph, nodes, start, &members);
        let chain: Vec<String> = path.iter().map(|&i| tests[i].id().into_owned()).collect();
        let next = path.get(1).copied().unwrap_or(start);
        let span = edge_at
            .get(&(start, next))
            .copied()
            .unwrap_or(tests[start].id_span);
        l.report(
            Problem::DependencyCycle {
                chain,
                surface: l.surface,
            },
            l.entry,
            span,
        );
    }
}

/// `${deps.ID.…}` must name a dependency of the test.
fn undeclared_deps_refs(l: &mut Lower<'_>, tests: &[BuiltTest]) {
    for t in tests.iter() {
        let deps: Vec<&str> = t.depends().iter().map(|(d, _)| d.as_str()).collect();
        for (inner, f, span) in t.deps_refs() {
            let rest = &inner["deps.".len()..];
            let ok = deps
                .iter()
                .any(|d| rest == *d || rest.starts_with(&format!("{d}.")));
            if !ok {
                let id = rest.split('.').next().unwrap_or(rest).to_string();
                l.report(
                    Problem::DepsNotDeclared {
                        id,
                        test: t.name().to_string(),
                        surface: l.surface,
                    },
                    *f,
                    *span,
                );
            }
        }
    }
}

/// Exports no test reads through `${deps.ID.NAME}` (pedantic).
fn unused_exports(l: &mut Lower<'_>, tests: &[BuiltTest]) {
    // What every reference reads: itself and each of its prefixes before a `.`.
    let mut read: foldhash::HashSet<&str> = foldhash::HashSet::default();
    for (r, _, _) in tests.iter().flat_map(BuiltTest::deps_refs) {
        read.extend(r.match_indices('.').map(|(at, _)| &r[..at]));
        read.insert(r);
    }
    for t in tests.iter() {
        let id = t.id();
        for (name, span) in t.exports() {
            let wanted = format!("deps.{id}.{name}");
            if !read.contains(wanted.as_str()) {
                l.report(
                    Problem::UnusedExport {
                        name: name.clone(),
                        test: id.to_string(),
                    },
                    l.entry,
                    *span,
                );
            }
        }
    }
}

/// A shortest cycle through `start` inside one strongly connected component, as test
/// indexes with `start` first and last.
fn cycle_from(
    graph: &DiGraph<usize, ()>,
    nodes: &[NodeIndex],
    start: usize,
    members: &[usize],
) -> Vec<usize> {
    let mut parent: HashMap<usize, usize> = HashMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(at) = queue.pop_front() {
        let mut next: Vec<usize> = graph.neighbors(nodes[at]).map(|n| graph[n]).collect();
        next.sort_unstable();
        for n in next {
            if n == start {
                let mut path = vec![start];
                let mut cur = at;
                while cur != start {
                    path.push(cur);
                    cur = parent[&cur];
                }
                path.push(start);
                // Built backwards from the end; the first element is `start` already.
                let mut out = vec![start];
                out.extend(path[1..path.len() - 1].iter().rev());
                out.push(start);
                return out;
            }
            if members.contains(&n) && !parent.contains_key(&n) && n != start {
                parent.insert(n, at);
                queue.push_back(n);
            }
        }
    }
    vec![start, start]
}
