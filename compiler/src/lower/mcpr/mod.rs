//! `.mcpr` → Suite IR: document settings, targets, tests and their steps.
//!
//! The located tree is walked once per block. Flows are expanded where they are used
//! (`flows.rs`), data declarations become `dataSources` and `forEach` (`data.rs`), and the
//! dependency graph is checked once every test is known (`deps.rs`).

use super::Lower;
use super::data;
use super::deps::{self, BuiltTest};
use super::flows::{self, Flows, Scope};
use super::validate::Judged;
use crate::diagnostics::Problem;
use crate::diagnostics::{Collected, Diagnostic};
use crate::ir::{
    self, Assert, Assertion, ErrorExpectation, Export, HttpTarget, InheritEnv, JsonAssertions,
    JsonType, NativeAction, NativeStep, OrderedMap, Phase, RequestStep, SetStep, SnapshotAssertion,
    SourceLocation, Status, Step, StepKind, Suite, Target, Test, ToolStep,
};
use crate::names::closest;
use crate::source::SourceFile;
use crate::source::Span;
use crate::syntax::{
    Body, Compare, Document, ListKind, LongBodies, Node, Outline, OutlinedTest, Stmt, Text,
    ValueType, YamlBudget,
};
use crate::values::{self, normalise_path};
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, BTreeSet};

mod attach;
mod body;
mod long;
mod oauth;
mod settings;
mod test;

pub use attach::step_refs;
use attach::*;
pub use body::body;
use oauth::oauth;
use settings::*;
pub use test::TestBuilder;
use test::*;

/// The utility functions every runtime provides (§3.8).
pub const BUILT_IN_FUNCTIONS: &[&str] = &[
    "lowercase",
    "uppercase",
    "trim",
    "join",
    "replace",
    "length",
    "number",
    "text",
    "json",
    "round",
    "urlEncode",
    "base64",
    "hash",
];

/// Namespaces every body may read: the environment, data rows, dependency outputs, state.
pub const NAMESPACES: &[&str] = &["env", "row", "deps", "state"];

/// Where a target came from, so `Server options:` also reach the named entry it copies.
#[derive(Clone)]
enum Link {
    None,
    Server(String),
    Compare(String),
}

/// Document-level state collected in source order.
struct Settings {
    name: Option<String>,
    target: Option<(Target, Link)>,
    /// `Server from the command line` is in force (no later `Server:` or `MCP URL:`): the
    /// suite names no default server.
    target_from_command_line: bool,
    servers: OrderedMap<Target>,
    servers_at: Vec<(usize, Span)>,
    targets: OrderedMap<Target>,
    targets_at: Vec<(usize, Span)>,
    defaults: Option<ir::Defaults>,
    minimum_coverage: Option<f64>,
    budgets: Vec<ir::Budget>,
    budget_names: Vec<(String, Span)>,
    redact: Option<Vec<String>>,
    snapshots: Option<ir::Snapshots>,
    client: Option<ir::ClientBehavior>,
    functions: Option<Vec<String>>,
    /// `Extensions:` settings other than the functions (kept in `functions`).
    extensions: Option<ir::Extensions>,
}

/// Lowers the entry document (with the imported files' flows) to a suite. The test blocks
/// are taken out of `doc`, lowered one by one and put back in their places.
pub fn lower(
    l: &mut Lower<'_>,
    doc: &mut Document,
    imported: &[(usize, &Document)],
    threads: usize,
) -> Option<Suite> {
    let (at, blocks) = take_tests(doc);
    let mut kept = Vec::new();
    let blocks = Tests::Parsed(blocks);
    let suite = lower_blocks(
        l,
        (doc, &[]),
        blocks,
        (Some(&mut kept), None),
        imported,
        threads,
    );
    put_back(doc, &at, kept);
    suite
}

/// [`lower`] for `check` of an [`Outline`]: each test's body is parsed as the test is lowered
/// ([`crate::syntax::parse_tests`]), and the test is judged on its own at once
/// ([`super::validate::test_alone`]) and reduced to what the suite-level checks read of it
/// ([`deps::Reduced`]), its block dropped: the tree of the whole file and the whole IR are
/// never held, and the suite returned holds only the tests not judged alone. `None` when the file's YAML passes its
/// budget: it must be cut where it passes first ([`Outline::cut_at_budget`]).
pub fn lower_outline(
    l: &mut Lower<'_>,
    outline: Outline,
    imported: &[(usize, &Document)],
    threads: usize,
    judged: &mut Judged,
) -> Option<Option<Suite>> {
    let Outline {
        document,
        tests: runs,
        budget,
        flow_statements_left_out: left_out,
        ..
    } = outline;
    if budget.passed() {
        return None;
    }
    let tests = Tests::Outlined {
        file: l.map.get(l.entry),
        runs,
        budget: &budget,
    };
    let doc = (&document, &left_out[..]);
    let suite = lower_blocks(l, doc, tests, (None, Some(judged)), imported, threads);
    (!budget.passed()).then_some(suite)
}

/// The `Test:` blocks of a document, in order, as they are lowered.
enum Tests<'f> {
    /// Parsed whole.
    Parsed(Vec<Node>),
    /// Tests whose bodies are parsed as they are lowered (see [`lower_outline`]), in runs
    /// ([`Outline::tests`]).
    Outlined {
        file: &'f SourceFile,
        runs: Vec<Vec<OutlinedTest>>,
        budget: &'f YamlBudget,
    },
}

impl Tests<'_> {
    fn len(&self) -> usize {
        match self {
            Tests::Parsed(nodes) => nodes.len(),
            Tests::Outlined { runs, .. } => runs.iter().map(Vec::len).sum(),
        }
    }

    /// Where the name of the first test is written.
    fn first_name(&self) -> Option<Span> {
        let name = match self {
            Tests::Parsed(nodes) => match &nodes.first()?.stmt {
                Stmt::TestHeader { name } => name,
                _ => return None,
            },
            Tests::Outlined { runs, .. } => runs.first()?.first()?.name()?,
        };
        Some(name.span)
    }

    /// Cuts the tests into runs of at most `per` neighbours.
    fn chunks(self, per: usize) -> Vec<Self> {
        fn cut<T>(mut rest: Vec<T>, per: usize) -> Vec<Vec<T>> {
            let mut chunks = Vec::new();
            while rest.len() > per {
                let tail = rest.split_off(per);
                chunks.push(rest);
                rest = tail;
            }
            chunks.push(rest);
            chunks
        }
        match self {
            Tests::Parsed(nodes) => cut(nodes, per).into_iter().map(Tests::Parsed).collect(),
            // Whole runs, so no list is copied.
            Tests::Outlined { file, runs, budget } => {
                let mut parts = Vec::new();
                let (mut part, mut tests) = (Vec::new(), 0);
                for run in runs {
                    tests += run.len();
                    part.push(run);
                    if tests >= per {
                        parts.push(std::mem::take(&mut part));
                        tests = 0;
                    }
                }
                if !part.is_empty() || parts.is_empty() {
                    parts.push(part);
                }
                parts
                    .into_iter()
                    .map(|runs| Tests::Outlined { file, runs, budget })
                    .collect()
            }
        }
    }

    /// Hands each block to `f` in order with the problems its parsing found: whole, or a
    /// long test's in parts ([`crate::syntax::parse_tests`], which also says what `f`
    /// answers).
    fn each(
        self,
        file_id: usize,
        long: LongBodies,
        mut f: impl FnMut(Body, Vec<Diagnostic>) -> bool,
    ) {
        match self {
            Tests::Parsed(nodes) => nodes.into_iter().for_each(|n| {
                f(Body::Whole(n), Vec::new());
            }),
            // Each run's list is let go as soon as its tests are parsed.
            Tests::Outlined { file, runs, budget } => {
                let tests = runs.into_iter().flatten();
                crate::syntax::parse_tests(file, file_id, tests, budget, long, f)
            }
        }
    }
}

/// The `Test:` blocks of `doc`, taken out of it, with the index each had.
fn take_tests(doc: &mut Document) -> (Vec<usize>, Vec<Node>) {
    let count = doc
        .nodes
        .iter()
        .filter(|n| matches!(n.stmt, Stmt::TestHeader { .. }))
        .count();
    let mut at = Vec::with_capacity(count);
    let mut tests = Vec::with_capacity(count);
    let mut rest = Vec::with_capacity(doc.nodes.len() - count);
    for (i, node) in std::mem::take(&mut doc.nodes).into_iter().enumerate() {
        if matches!(node.stmt, Stmt::TestHeader { .. }) {
            at.push(i);
            tests.push(node);
        } else {
            rest.push(node);
        }
    }
    doc.nodes = rest;
    (at, tests)
}

/// Puts the blocks [`take_tests`] took back at their indexes `at`.
fn put_back(doc: &mut Document, at: &[usize], tests: Vec<Node>) {
    let rest = std::mem::take(&mut doc.nodes);
    let total = rest.len() + tests.len();
    let mut rest = rest.into_iter();
    let mut tests = tests.into_iter().zip(at.iter().copied()).peekable();
    let mut out = Vec::with_capacity(total);
    while out.len() < total {
        let test_here = tests.peek().is_some_and(|&(_, i)| i == out.len());
        let next = if test_here {
            tests.next().map(|(n, _)| n)
        } else {
            rest.next().or_else(|| tests.next().map(|(n, _)| n))
        };
        match next {
            Some(n) => out.push(n),
            None => break,
        }
    }
    doc.nodes = out;
}

/// [`lower`] of a document whose test blocks are `blocks` (in order); the blocks are handed
/// to `kept` once lowered, else dropped. With the document come the statements its flows
/// left out ([`Outline::flow_statements_left_out`]).
fn lower_blocks(
    l: &mut Lower<'_>,
    (doc, left_out): (&Document, &[(Span, usize)]),
    blocks: Tests<'_>,
    kept: (Option<&mut Vec<Node>>, Option<&mut Judged>),
    imported: &[(usize, &Document)],
    threads: usize,
) -> Option<Suite> {
    let entry = l.entry;
    let mut settings = Settings {
        name: None,
        target: None,
        target_from_command_line: false,
        servers: OrderedMap::new(),
        servers_at: Vec::new(),
        targets: OrderedMap::new(),
        targets_at: Vec::new(),
        defaults: None,
        minimum_coverage: None,
        budgets: Vec::new(),
        budget_names: Vec::new(),
        redact: None,
        snapshots: None,
        client: None,
        functions: None,
        extensions: None,
    };
    for node in &doc.nodes {
        document_setting(l, &mut settings, node);
    }
    // One named server beside a default server (`Server:`, `MCP URL:` or the command line's)
    // is a composition of two; alone, it is the only server.
    let named_is_default =
        !settings.target_from_command_line && matches!(settings.target, Some((_, Link::Server(_))));
    for (kind, at) in [
        ("named server", &settings.servers_at),
        ("compare target", &settings.targets_at),
    ] {
        if at.len() == 1 && (kind == "compare target" || named_is_default) {
            l.report(Problem::SingleTarget { kind }, at[0].0, at[0].1);
        }
    }

    let flows = Flows::collect(l, (doc, left_out), imported);
    let sources = data::sources(l, doc);

    let first_name = blocks.first_name();
    let tests = lower_tests(l, &settings, &flows, &sources, blocks, kept, threads);
    let has_flows = doc
        .nodes
        .iter()
        .any(|n| matches!(n.stmt, Stmt::FlowHeader { .. }));
    if !tests.is_empty() {
        flows.report_unused(l);
        data::report_unused(l, doc, tests.iter().filter_map(BuiltTest::source));
    }
    deps::check(l, &tests);
    for (name, span) in &settings.budget_names {
        let known = tests.iter().any(|t| {
            t.name() == *name || (t.iterates() && name.starts_with(&format!("{} [", t.name())))
        });
        if !known {
            let suggestion = closest(name, tests.iter().map(BuiltTest::name));
            l.report(
                Problem::UnknownBudgetTest {
                    name: name.clone(),
                    suggestion,
                    surface: l.surface,
                },
                entry,
                *span,
            );
        }
    }

    // A test header that did not parse (`Test:` without a name) has its own diagnostic.
    let text = l.map.get(entry).text();
    let broken_header = doc.nodes.iter().any(|n| {
        let head = text[n.span.range()].trim_start().to_ascii_lowercase();
        matches!(n.stmt, Stmt::Error) && (head.starts_with("test") || head.starts_with("scenario"))
    });
    if tests.is_empty() {
        if !has_flows && !broken_header {
            let span = doc.nodes.first().map_or(Span::at(0), |n| n.span);
            l.report(Problem::NoTests, entry, span);
        }
        return None;
    }
    // The tests `check` judged alone are left out: the suite-level judgement reads none of
    // them ([`super::validate::judged`]).
    let tests: Vec<Test> = tests.into_iter().filter_map(BuiltTest::into_test).collect();
    let mut suite = match settings.target.take() {
        // The server comes from `mcpr run --server/--url/--profile` (a named server declared
        // after the line is no default either).
        _ if settings.target_from_command_line => Suite::without_target(tests),
        Some((target, _)) => Suite::new(target, tests),
        None => {
            if let Some(span) = first_name {
                l.report(Problem::NoTarget, entry, span);
            }
            return None;
        }
    };
    suite.name = settings.name;
    suite.targets = (!settings.targets.is_empty()).then_some(settings.targets);
    suite.servers = (!settings.servers.is_empty()).then_some(settings.servers);
    suite.defaults = settings.defaults;
    suite.minimum_coverage = settings.minimum_coverage;
    suite.budgets = (!settings.budgets.is_empty()).then_some(settings.budgets);
    suite.redact = settings.redact;
    suite.snapshots = settings.snapshots;
    suite.client = settings.client;
    suite.extensions = match (settings.functions, settings.extensions) {
        (None, None) => None,
        (functions, other) => Some(ir::Extensions {
            functions,
            ..other.unwrap_or_default()
        }),
    };
    suite.data_sources = (!sources.is_empty()).then(|| {
        sources
            .iter()
            .map(|(k, s)| (k.to_string(), s.clone()))
            .collect()
    });
    Some(suite)
}

/// Lowers every test, on `threads` threads for a large file: the tests are cut into runs of
/// neighbours, each run lowered with its own diagnostics list, and the lists joined in
/// order, so the result is the same for every `threads`. Each block is dropped once its test
/// is lowered, or handed to `kept`.
fn lower_tests(
    l: &mut Lower<'_>,
    settings: &Settings,
    flows: &Flows<'_>,
    sources: &OrderedMap<ir::DataSource>,
    nodes: Tests<'_>,
    (kept, judged): (Option<&mut Vec<Node>>, Option<&mut Judged>),
    threads: usize,
) -> Vec<BuiltTest> {
    let keep = kept.is_some();
    let judge = judged.is_some();
    // `first`: the part holds the suite's first test, which is kept whole. Its list is made
    // with room for every test, so the other parts join it without a copy of it.
    let all = nodes.len();
    let run = |l: &mut Lower<'_>, part: Tests<'_>, first: bool| -> Part {
        let mut built: Vec<BuiltTest> = Vec::with_capacity(if first { all } else { part.len() });
        let mut back = Vec::new();
        let mut judged = Judged::new(l.options.keep_diagnostics);
        let context = (settings, flows, sources);
        let mut long: Option<long::LongTest<'_>> = None;
        part.each(l.entry, l.options.long_bodies, |body, parsing| {
            l.diags.extend(parsing);
            let lowered = match body {
                Body::Whole(mut node) => {
                    let lowered = match &node.stmt {
                        Stmt::TestHeader { name } => {
                            Some(test(l, context, (&mut node.children, !keep), name))
                        }
                        _ => None,
                    };
                    // The block is not needed to judge its test (a large one holds a copy of
                    // the values the test's steps and their JSON hold).
                    if keep {
                        back.push(node);
                    }
                    lowered.map(|t| (t, Collected::default()))
                }
                Body::Start(header) => {
                    long = long::LongTest::start(l, header);
                    None
                }
                Body::Part(mut nodes) => {
                    if let Some(test) = &mut long {
                        test.part(l, context, &mut nodes);
                    }
                    None
                }
                // Lowered again whole when it does not satisfy the schema.
                Body::End => match long.take().map(|test| test.end(l)) {
                    Some(Some(lowered)) => Some(lowered),
                    Some(None) => return true,
                    None => None,
                },
            };
            if let Some((mut t, let_go)) = lowered {
                judged.diags.append(let_go);
                let alone = (judge && !(first && built.is_empty())).then(|| {
                    t.test_mut()
                        .and_then(|test| super::validate::test_alone(l, test))
                });
                match alone {
                    Some(Some(diags)) => {
                        judged.diags.extend(diags);
                        t.reduce();
                        judged.hollow.push(true);
                    }
                    // Kept whole for its problems to be worded where they are written,
                    // unless an error was reported: the suite is then never judged.
                    Some(None) => {
                        judged.invalid = true;
                        let hollow = l.diags.has_error();
                        if hollow {
                            t.reduce();
                        }
                        judged.hollow.push(hollow);
                    }
                    None => judged.hollow.push(false),
                }
                built.push(t);
            }
            false
        });
        (built, back, judged, Collected::default())
    };
    let parts: Vec<Part> = if threads < 2 || nodes.len() < 2 {
        vec![run(l, nodes, true)]
    } else {
        let per = nodes.len().div_ceil(threads);
        let chunks = nodes.chunks(per);
        let (map, entry, options, surface) = (l.map, l.entry, l.options, l.surface);
        let import_failed = l.import_failed;
        let functions = l.functions;
        // Each run lowers into a context of its own: same file and settings, own
        // diagnostics.
        let own = move || Lower {
            map,
            entry,
            options,
            diags: Collected::new(options.keep_diagnostics),
            surface,
            import_failed,
            functions,
            paths: Default::default(),
        };
        std::thread::scope(|scope| {
            let mut chunks = chunks.into_iter();
            let first = chunks.next().unwrap_or(Tests::Parsed(Vec::new()));
            let run = &run;
            let handles: Vec<_> = chunks
                .map(|part| {
                    scope.spawn(move || {
                        let mut l = own();
                        let mut part = run(&mut l, part, false);
                        part.3 = l.diags;
                        part
                    })
                })
                .collect();
            let mut l = own();
            let mut part = run(&mut l, first, true);
            part.3 = l.diags;
            let mut parts = vec![part];
            for h in handles {
                parts.push(h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
            }
            parts
        })
    };
    join(l, parts, (kept, judged))
}

/// The runs' tests joined without regrowing, into the first part's list (made with room
/// for all): a large suite has many, and a list that doubles as it grows, or is copied into
/// a larger one, leaves its old copies to the allocator. Their blocks, diagnostics and
/// judging go where the caller keeps them.
fn join(
    l: &mut Lower<'_>,
    parts: Vec<Part>,
    (mut kept, mut judged): (Option<&mut Vec<Node>>, Option<&mut Judged>),
) -> Vec<BuiltTest> {
    let total: usize = parts.iter().map(|p| p.0.len()).sum();
    let mut tests: Vec<BuiltTest> = Vec::new();
    for (built, back, part, diags) in parts {
        if tests.is_empty() {
            tests = built;
            tests.reserve_exact(total - tests.len());
        } else {
            tests.extend(built);
        }
        l.diags.append(diags);
        if let Some(k) = kept.as_deref_mut() {
            k.extend(back);
        }
        if let Some(j) = judged.as_deref_mut() {
            j.diags.append(part.diags);
            j.hollow.extend(part.hollow);
            j.invalid |= part.invalid;
        }
    }
    tests
}

/// What lowering one run of tests gives: the tests, their blocks when kept, what was
/// judged of them, the run's own diagnostics.
type Part = (Vec<BuiltTest>, Vec<Node>, Judged, Collected);

fn push_unique(list: &mut Vec<String>, item: String) {
    if !list.contains(&item) {
        list.push(item);
    }
}

/// A target from a `Named server` / `Compare target` connection text: a URL, or a command
/// line.
fn connection(l: &mut Lower<'_>, file: usize, text: &Text) -> Target {
    let t = text.value.trim();
    let lower = t.to_ascii_lowercase();
    if lower.starts_with("http://")
        || lower.starts_with("https://")
        || lower.starts_with("\"http")
        || lower.starts_with("'http")
    {
        let words = command_words(l, file, text);
        Target::http(words.into_iter().next().unwrap_or_default())
    } else {
        command_target(l, file, text)
    }
}

/// A stdio target from a command line (`Server:`), split by the one word rule of
/// [`crate::command_line`].
fn command_target(l: &mut Lower<'_>, file: usize, text: &Text) -> Target {
    let mut words = command_words(l, file, text).into_iter();
    let command = words.next().unwrap_or_default();
    Target::stdio(command, words.collect())
}

/// The words of a command line; a quote that is never closed is `MCPLANG104` at the quote
/// (the words before it are kept, so the rest of the file is still checked).
fn command_words(l: &mut Lower<'_>, file: usize, text: &Text) -> Vec<String> {
    match crate::command_line::split(&text.value) {
        Ok(words) => words,
        Err(e) => {
            // The text is the line's own (unquoted) slice: the quote is at its offset.
            let source = &l.map.get(file).text()[text.span.range()];
            let span = if source == text.value {
                let at = text.span.start as usize + e.at;
                Span::new(at, at + e.quote.len_utf8())
            } else {
                text.span
            };
            l.report(Problem::UnclosedQuote { quote: e.quote }, file, span);
            let before = text.value[..e.at].to_string();
            crate::command_line::split(&before).unwrap_or_default()
        }
    }
}

/// The YAML block of a node when it is a mapping (anything else was reported by the parser).
pub fn block_map(node: &Node) -> Option<Map<String, Value>> {
    block_ref(node).cloned()
}

/// A statement's YAML block as the step made from it takes it: moved out of a statement
/// nothing reads again (a test's own body in `check`, lowered once and let go: a block of
/// half a million keys is then held once, not twice), copied from one read again (a flow's
/// body, which every use walks; a document kept whole).
pub struct Block<'n> {
    /// The block moved out of the statement, when it was.
    taken: Option<Value>,
    node: &'n Node,
}

impl<'n> Block<'n> {
    /// The block of a statement read in place.
    pub fn of(node: &'n Node) -> Self {
        Block { taken: None, node }
    }

    /// The block of a statement whose block was moved out of it into `taken`.
    pub fn taken(node: &'n Node, taken: Option<Value>) -> Self {
        Block { taken, node }
    }

    /// The statement.
    pub fn node(&self) -> &'n Node {
        self.node
    }

    /// The block when it is a mapping: the moved block, or a copy of the statement's.
    pub fn map(&mut self) -> Option<Map<String, Value>> {
        match self.taken.take() {
            Some(Value::Object(m)) => Some(m),
            Some(_) => None,
            None => block_map(self.node),
        }
    }
}

/// The node's YAML block when it is a mapping, borrowed.
pub fn block_ref(node: &Node) -> Option<&Map<String, Value>> {
    match node.yaml.as_ref()?.value.as_ref()? {
        Value::Object(m) => Some(m),
        _ => None,
    }
}

/// The span of the first line of a node's YAML block (the node's line when it has none).
pub fn block_first_line(l: &Lower<'_>, file: usize, node: &Node) -> Span {
    let Some(y) = &node.yaml else {
        return node.span;
    };
    let text = &l.map.get(file).text()[y.span.range()];
    let lead = text.len() - text.trim_start().len();
    let start = y.span.start as usize + lead;
    let first = text.trim_start();
    let end = start + first.find('\n').unwrap_or(first.trim_end().len());
    Span::new(start, end)
}

/// Every `${…}` written on a node's line or in its block: the inside and its exact span.
pub fn node_refs<'m>(map: &'m crate::SourceMap, node: &Node, file: usize) -> Vec<(&'m str, Span)> {
    let mut span = node.span;
    if let Some(y) = &node.yaml {
        span = span.cover(y.span);
    }
    let text = &map.get(file).text()[span.range()];
    if !values::has_open(text) {
        return Vec::new();
    }
    // A `Run step with:` block's `name` is display text, not a template: only references
    // in the step's other members count.
    let mut templates: Option<BTreeSet<String>> = None;
    if node.stmt == Stmt::RunStep
        && let Some(Value::Object(block)) = node.yaml.as_ref().and_then(|y| y.value.as_ref())
    {
        let mut rest = block.clone();
        rest.shift_remove("name");
        let mut set = BTreeSet::new();
        values::each_ref(&Value::Object(rest), &mut |r| {
            set.insert(r.to_string());
        });
        templates = Some(set);
    }
    values::refs(text)
        .filter(|(_, inner)| !inner.trim().is_empty())
        .filter(|(_, inner)| templates.as_ref().is_none_or(|t| t.contains(*inner)))
        .map(|(at, inner)| {
            let start = span.start as usize + at;
            (inner, Span::new(start, start + inner.len() + 3))
        })
        .collect()
}

impl Lower<'_> {
    /// The location of a byte offset, for a step's `source`.
    pub fn location(&self, file: usize, span: Span) -> SourceLocation {
        let p = self.map.get(file).position(span.start as usize);
        SourceLocation::new(self.paths.of(self.map, file), p.line, p.column)
    }

    /// Normalises and checks an author's path; reports MCPLANG415 when it is malformed.
    pub fn path(&mut self, file: usize, text: &Text) -> Option<String> {
        self.path_in(file, text, false)
    }

    /// [`Lower::path`] of a path into a step's value; `nested` when that value holds the
    /// response under a `result` member (`Call tool … with progress` yields `{result,
    /// progress}`), so a leading `result` is a member there and is kept.
    pub fn path_in(&mut self, file: usize, text: &Text, nested: bool) -> Option<String> {
        let t = text.value.trim();
        let member = t
            .strip_prefix("result")
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']));
        let p = if nested && member {
            format!("$.{t}")
        } else {
            normalise_path(&text.value)
        };
        match values::check_path(&p) {
            Ok(()) => Some(p),
            Err(reason) => {
                self.report(Problem::BadResultPath { path: p, reason }, file, text.span);
                None
            }
        }
    }

    /// The `key:` lines of a node's YAML block, to find the spans of its keys.
    pub fn key_lines<'t>(&'t self, file: usize, node: &Node) -> KeyLines<'t> {
        KeyLines::new(self.map.get(file).text(), node)
    }
}

/// The lines of a node's YAML block that can hold one of its own keys: those at the least
/// indentation seen so far, comments and blank lines aside. A lookup starts where the one
/// before it matched, so looking up a block's keys in their order reads the block once (a
/// block of 50,000 variables was read once per variable: 28 s).
pub struct KeyLines<'t> {
    text: &'t str,
    /// Where the block starts in the file, and the node's own span.
    base: usize,
    fallback: Span,
    /// Each candidate line: where its text starts in the block and its indentation.
    lines: Vec<(usize, usize)>,
    next: usize,
}

impl<'t> KeyLines<'t> {
    fn new(file: &'t str, node: &Node) -> Self {
        let Some(y) = &node.yaml else {
            return KeyLines {
                text: "",
                base: 0,
                fallback: node.span,
                lines: Vec::new(),
                next: 0,
            };
        };
        let text = &file[y.span.range()];
        let mut lines = Vec::new();
        let (mut offset, mut indent) = (0, usize::MAX);
        for line in text.split_inclusive('\n') {
            let trimmed = line.trim_start_matches(' ');
            let lead = line.len() - trimmed.len();
            if !trimmed.trim().is_empty() && !trimmed.starts_with('#') {
                indent = indent.min(lead);
                if lead == indent {
                    lines.push((offset, lead));
                }
            }
            offset += line.len();
        }
        KeyLines {
            text,
            base: y.span.start as usize,
            fallback: node.span,
            lines,
            next: 0,
        }
    }

    /// The span of `key:` (bare or quoted), or the node's when no line writes it.
    pub fn find(&mut self, key: &str) -> Span {
        let n = self.lines.len();
        for i in (self.next..n).chain(0..self.next) {
            let (offset, lead) = self.lines[i];
            let trimmed = self.text[offset..]
                .split_inclusive('\n')
                .next()
                .unwrap_or("");
            let trimmed = &trimmed[lead..];
            let quoted = |q: char| {
                trimmed
                    .strip_prefix(q)
                    .and_then(|t| t.strip_prefix(key))
                    .and_then(|t| t.strip_prefix(q))
            };
            let rest = trimmed
                .strip_prefix(key)
                .or_else(|| quoted('"'))
                .or_else(|| quoted('\''));
            if rest.is_some_and(|r| r.starts_with(':')) {
                self.next = i + 1;
                let start = self.base + offset + lead;
                let len = trimmed.find(':').unwrap_or(key.len());
                return Span::new(start, start + len);
            }
        }
        self.fallback
    }
}
