//! A file parsed in two passes, for `check`, which needs the diagnostics and not the tree:
//! the outline (every top-level statement and block, each test without its body), then the
//! bodies of the tests one after another, each handed on to be lowered and dropped before the
//! next is parsed. The tree of the whole file is never held, and each line is parsed once; the
//! diagnostics are those of [`super::parse_within`].
//!
//! The one thing the outline cannot decide alone is the file's budget of YAML values
//! (MCPLANG609), which counts the blocks of tests and of everything else in file order: the
//! block where the count passes it, and every block after it, keep no value. [`YamlBudget`]
//! adds the values up as the bodies are parsed and stops them once the file has passed it.
//! Such a file (a hostile one, never a written one) is then outlined again, the block where
//! it passed is found in file order ([`Outline::cut_at_budget`]), and its tests are parsed
//! again with no value kept from there on.

use super::tree::{Document, Node, Stmt, Text};
use super::{Context, Parser, Pieces, check, scan};
use crate::diagnostics::{Collected, Diagnostic};
use crate::source::{SourceFile, Span};
use std::ops::Range;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

/// A file without the bodies of its tests.
#[derive(Debug)]
pub struct Outline {
    /// The document without its tests: settings, flows, data sources and the rest.
    pub document: Document,
    /// The tests, in file order, in runs (those of one piece of the file each): a run's list
    /// is let go once its tests are lowered.
    pub tests: Vec<Vec<OutlinedTest>>,
    /// The problems found so far: those of every line's layout, and those of the
    /// statements and blocks outside the bodies left out.
    pub diagnostics: Collected,
    /// The file's YAML values so far (the blocks outside the bodies left out).
    pub budget: YamlBudget,
    /// The flows too long ever to be expanded into a test, each by its header's span with
    /// the number of statements its body left out ([`Parser::long_flow`]): they count in
    /// its size only.
    pub flow_statements_left_out: Vec<(Span, usize)>,
}

/// A test of an [`Outline`]: its header line and where its body is, or (rarely) the test
/// parsed whole.
#[derive(Debug, Clone)]
pub enum OutlinedTest {
    /// A header whose body was left out (its node has no block, no table, no children): a
    /// few dozen bytes where a node takes hundreds, for files of 100,000s of tests.
    LeftOut {
        /// The test's name.
        name: Text,
        /// The header line (trimmed).
        span: Span,
        /// Its leading spaces.
        indent: u32,
        /// The lines of the body.
        body: Range<u32>,
    },
    /// A test whose body was parsed with the outline: it is followed by a column-0 line that
    /// opens with `|` (see [`Parser::skip_body`]).
    Parsed(Box<Node>),
}

impl OutlinedTest {
    /// The test of header `node`, whose body `lines` was left out.
    pub(super) fn left_out(node: Node, lines: Range<usize>) -> Self {
        let Stmt::TestHeader { name } = node.stmt else {
            return OutlinedTest::Parsed(Box::new(node));
        };
        let line = |i: usize| u32::try_from(i).unwrap_or(u32::MAX);
        OutlinedTest::LeftOut {
            name,
            span: node.span,
            indent: node.indent,
            body: line(lines.start)..line(lines.end),
        }
    }

    /// Where the test starts in the file.
    pub fn span(&self) -> Span {
        match self {
            OutlinedTest::LeftOut { span, .. } => *span,
            OutlinedTest::Parsed(node) => node.span,
        }
    }

    /// The test's name.
    pub fn name(&self) -> Option<&Text> {
        match self {
            OutlinedTest::LeftOut { name, .. } => Some(name),
            OutlinedTest::Parsed(node) => match &node.stmt {
                Stmt::TestHeader { name } => Some(name),
                _ => None,
            },
        }
    }

    /// The header's node, without its body when it was left out, and the lines of the body
    /// to parse (`None`: parsed already).
    fn into_node(self) -> (Node, Option<Range<usize>>) {
        match self {
            OutlinedTest::LeftOut {
                name,
                span,
                indent,
                body,
            } => {
                let node = Node {
                    stmt: Stmt::TestHeader { name },
                    span,
                    indent,
                    yaml: None,
                    table: None,
                    children: Vec::new(),
                };
                (node, Some(body.start as usize..body.end as usize))
            }
            OutlinedTest::Parsed(node) => (*node, None),
        }
    }
}

impl Outline {
    /// For a file whose YAML passed its budget while its tests were parsed: finds the block
    /// where it passes, in file order, as [`super::parse_within`] does (the bodies are parsed
    /// up to there, and dropped), reports MCPLANG609 there, and takes the values of that block
    /// and of every later one, in the outline and in the bodies still to be parsed.
    pub fn cut_at_budget(&mut self, file: &SourceFile, file_id: usize) {
        let budget = YamlBudget::new(self.budget.limit);
        let mut tests = self.tests.iter().flatten().peekable();
        // Each run of neighbouring tests is parsed as `check` parses them (and dropped).
        for node in &self.document.nodes {
            let mut run = Vec::new();
            while let Some(t) = tests.next_if(|t| t.span().start < node.span.start) {
                run.push(t.clone());
            }
            parse_tests(
                file,
                file_id,
                run,
                &budget,
                LongBodies::default(),
                |_, _| false,
            );
            if !budget.passed() {
                budget.add(node);
            }
            if budget.passed() {
                break;
            }
        }
        if !budget.passed() {
            parse_tests(
                file,
                file_id,
                tests.cloned(),
                &budget,
                LongBodies::default(),
                |_, _| false,
            );
        }
        let Some(&at) = budget.crossed.get() else {
            return;
        };
        fn drop_from(nodes: &mut [Node], at: usize) {
            for node in nodes {
                if let Some(block) = node.yaml.as_deref_mut()
                    && block.span.start as usize >= at
                {
                    block.value = None;
                }
                drop_from(&mut node.children, at);
            }
        }
        drop_from(&mut self.document.nodes, at.start as usize);
        for test in self.tests.iter_mut().flatten() {
            if let OutlinedTest::Parsed(node) = test {
                drop_from(std::slice::from_mut(&mut **node), at.start as usize);
            }
        }
        let limit = budget.limit;
        let passed = super::blocks::too_many_values(file.text(), file_id, at, limit);
        self.diagnostics.push(passed);
        self.budget = YamlBudget::new(limit);
        self.budget.drop_from = Some(at.start as usize);
    }
}

/// Parses `file` without the bodies of its tests, in pieces on `threads` threads as
/// [`super::parse_within`] does; the YAML of the whole file may hold `yaml_nodes` values.
/// A long flow body ([`LongBodies`]) is parsed in parts, and when it has more than
/// `flow_limit` statements (so that no test may take it in) it keeps only what the checks
/// of flows read ([`Parser::long_flow`]). At most `keep` diagnostics of the file are kept
/// worded ([`Collected`]; 0: all).
pub fn outline(
    file: &SourceFile,
    file_id: usize,
    threads: usize,
    yaml_nodes: usize,
    ((long, flow_limit), keep): ((LongBodies, usize), usize),
) -> Outline {
    let deferred = Some((long, flow_limit));
    let Pieces {
        nodes,
        mut diags,
        tests,
        flows_left_out,
        ..
    } = super::parse_pieces(file, file_id, threads, yaml_nodes, (deferred, keep));
    let document = Document { nodes };
    // Names are compared within their kind: the tests' among themselves.
    check::names(
        document.nodes.iter().filter_map(check::declared),
        file_id,
        &mut diags,
    );
    let names = tests
        .iter()
        .flatten()
        .filter_map(|t| Some(("test", t.name()?)));
    check::names(names, file_id, &mut diags);
    let budget = YamlBudget::new(yaml_nodes);
    for node in &document.nodes {
        // A test is checked and counted with its body ([`parse_tests`]), a flow that left
        // statements out as it was parsed.
        if !flows_left_out.iter().any(|(at, _)| *at == node.span) {
            check::block(node, file_id, &mut diags);
        }
        budget.add(node);
    }
    Outline {
        document,
        tests,
        diagnostics: diags,
        budget,
        flow_statements_left_out: flows_left_out,
    }
}

impl Parser<'_, '_, '_> {
    /// The long body of flow `header` ([`LongBodies`]), parsed in parts, each with a grammar
    /// and tokens of its own. A flow of more than `limit` statements can never be expanded
    /// into a test (MCPLANG426), so from there on its body keeps only the statements the
    /// checks of flows read — its inputs and outputs, calls, saves, `Run step` blocks, any
    /// statement with a block or a table or a `${…}` — and counts the others
    /// ([`Outline::flow_statements_left_out`]); its structural checks are made as it is
    /// parsed. A shorter flow keeps its whole body.
    pub(super) fn long_flow(&mut self, header: &mut Node, long: LongBodies, limit: usize) {
        let (src, file_id) = (self.src, self.file_id);
        let counts = |n: &Node| {
            !matches!(
                n.stmt,
                Stmt::Comment | Stmt::Error | Stmt::Inputs { .. } | Stmt::Outputs { .. }
            )
        };
        let read = |n: &Node| {
            matches!(
                n.stmt,
                Stmt::Inputs { .. }
                    | Stmt::Outputs { .. }
                    | Stmt::UseFlow { .. }
                    | Stmt::Save { .. }
                    | Stmt::SetUsing { .. }
                    | Stmt::RunStep
            ) || n.yaml.is_some()
                || n.table.is_some()
                || crate::values::has_open(&src[n.span.range()])
        };
        let mut check = check::BodyCheck::new(false);
        let mut checked = Vec::new();
        let (mut kept, mut statements, mut left_out) = (Vec::new(), 0usize, None);
        let (mut diags, mut unknown) = (self.diags.empty_like(), Vec::new());
        self.body_in_parts(Context::Flow, long.part, |nodes, d, mut u| {
            diags.append(d);
            unknown.append(&mut u);
            for node in nodes {
                check.statement(&node, file_id, &mut checked);
                statements += usize::from(counts(&node));
                if left_out.is_none() && statements > limit {
                    let dropped = kept.iter().filter(|n| counts(n) && !read(n)).count();
                    kept.retain(|n| read(n));
                    left_out = Some(dropped);
                }
                match &mut left_out {
                    Some(n) if !read(&node) => *n += usize::from(counts(&node)),
                    _ => kept.push(node),
                }
            }
            true
        });
        self.diags.append(diags);
        self.unknown.append(&mut unknown);
        header.children = kept;
        if let Some(n) = left_out {
            check.end(header.span, None, file_id, &mut checked);
            self.diags.extend(checked);
            self.flows_left_out.push((header.span, n));
        }
    }
    /// Parses the body from here in parts of at most `part` statements, each by a parser
    /// of its own (its own grammar and tokens, so that no part's are held past it) that
    /// counts YAML values as this one does. `each` gets each part's statements, the problems
    /// found in them and the lines no statement matched, and answers whether to go on.
    pub(super) fn body_in_parts(
        &mut self,
        ctx: Context,
        part: usize,
        mut each: impl FnMut(Vec<Node>, Collected, Vec<super::vocab::Unknown>) -> bool,
    ) {
        let end = self.pos + self.body_lines();
        let mut tokens = bumpalo::Bump::new();
        while self.pos < end {
            tokens.reset();
            let grammar = super::Grammar::new(self.src);
            let lines = (&self.lines[self.pos..end], self.base + self.pos);
            let mut p = Parser::new(self.file, self.file_id, lines, &tokens, &grammar);
            p.yaml_budget = self.yaml_budget;
            p.yaml_nodes = self.yaml_nodes;
            p.shared_budget = self.shared_budget;
            p.drop_from = self.drop_from;
            let nodes = p.body_part(ctx, part.max(1));
            debug_assert!(p.pos > 0, "a part of a body takes a line at least");
            self.pos += p.pos.max(1);
            self.yaml_nodes = p.yaml_nodes;
            if !each(nodes, p.diags, p.unknown) {
                return;
            }
        }
    }
}

/// What [`parse_tests`] hands on, test by test in file order.
#[derive(Debug)]
pub enum Body {
    /// A test with its whole body.
    Whole(Node),
    /// The header of a long test (without children): its body follows in parts, so that
    /// neither its tree nor its tokens are ever held whole.
    Start(Node),
    /// The next statements of the long test's body.
    Part(Vec<Node>),
    /// The long test's body is over.
    End,
}

/// Which test bodies [`parse_tests`] hands on in parts: those of at least `from_lines`
/// lines, `part` statements at a time (and how the lowering lets go of their steps).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LongBodies {
    /// The fewest lines of a body handed on in parts.
    pub from_lines: usize,
    /// Statements per part.
    pub part: usize,
    /// The fewest steps lowered from the parts that are judged and let go at once (each
    /// group is judged as one document).
    pub let_go: usize,
}

impl Default for LongBodies {
    fn default() -> Self {
        LongBodies {
            from_lines: 16 * 1024,
            part: 4 * 1024,
            let_go: 1024,
        }
    }
}

/// Parses the bodies an [`outline`] left out, in order: `each` gets every test header of
/// `tests` with its body, and the problems found in them (as [`super::parse_within`] finds
/// them), before the next body is parsed; a long body ([`LongBodies`]) in parts, each
/// parsed with a grammar and tokens of its own. After the [`Body::End`] of a long test,
/// `each` may answer `true` to have the test again, [`Body::Whole`]. Stops once the file's
/// YAML has passed `budget`.
pub fn parse_tests(
    file: &SourceFile,
    file_id: usize,
    tests: impl IntoIterator<Item = OutlinedTest>,
    budget: &YamlBudget,
    long: LongBodies,
    mut each: impl FnMut(Body, Vec<Diagnostic>) -> bool,
) {
    let mut tests = tests.into_iter().map(OutlinedTest::into_node).peekable();
    // The unknown lines of every body, settled test by test in file order.
    let mut suggestions = super::vocab::Suggestions::new();
    // In pieces of about PIECE_BYTES, as a whole file is parsed: the grammar is built once
    // per piece, and the tokens of a piece are dropped with it (the arena is emptied and
    // used again: made afresh, its blocks of megabytes went back to the allocator and came
    // again for every piece).
    let mut tokens = bumpalo::Bump::new();
    while tests.peek().is_some() {
        tokens.reset();
        let grammar = super::Grammar::new(file.text());
        let mut bytes = 0;
        let mut yaml_nodes = 0;
        while bytes < super::PIECE_BYTES {
            let Some((mut node, body)) = tests.next() else {
                break;
            };
            let mut diags = Vec::new();
            if let Some(range) = body.filter(|r| !r.is_empty()) {
                let lines = scan::lines(file, range.clone());
                let lines = (&lines[..], range.start);
                bytes += text_bytes(lines.0);
                let mut again = false;
                if lines.0.len() >= long.from_lines {
                    let before = yaml_nodes;
                    let mut p = Parser::new(file, file_id, lines, &tokens, &grammar);
                    p.shared(budget, yaml_nodes);
                    let parts = (long.part, &mut suggestions);
                    again = in_parts(&mut p, node.clone(), budget, parts, &mut each);
                    yaml_nodes = p.yaml_nodes;
                    if budget.passed() {
                        return;
                    }
                    if !again {
                        continue;
                    }
                    yaml_nodes = before;
                }
                // Parsed again, against a budget of its own: its values were counted.
                let own = again.then(|| YamlBudget {
                    drop_from: budget.drop_from,
                    ..YamlBudget::new(budget.limit)
                });
                let mut p = Parser::new(file, file_id, lines, &tokens, &grammar);
                p.shared(own.as_ref().unwrap_or(budget), yaml_nodes);
                node.children = p.body(Context::Test);
                debug_assert_eq!(p.pos, lines.0.len(), "a body ends where it was skipped");
                yaml_nodes = p.yaml_nodes;
                diags = std::mem::take(&mut p.diags).into_vec();
                suggestions.settle(file, file_id, std::mem::take(&mut p.unknown), &mut diags);
            } else {
                // Parsed with the outline, and not counted there.
                budget.add(&node);
            }
            if budget.passed() {
                return;
            }
            check::block(&node, file_id, &mut diags);
            each(Body::Whole(node), diags);
        }
    }
}

/// The bytes from the first of `lines` to the end of the last.
fn text_bytes(lines: &[super::Line]) -> usize {
    lines.last().map_or(0, |l| l.span.end as usize)
        - lines.first().map_or(0, |l| l.span.start as usize)
}

/// Hands on the long body of test `header`, where parser `p` stands, in parts of `part`
/// statements (see [`parse_tests`]); whether `each` wants the test again, whole.
fn in_parts(
    p: &mut Parser<'_, '_, '_>,
    header: Node,
    budget: &YamlBudget,
    (part, suggestions): (usize, &mut super::vocab::Suggestions),
    each: &mut impl FnMut(Body, Vec<Diagnostic>) -> bool,
) -> bool {
    let Stmt::TestHeader { name } = &header.stmt else {
        return true;
    };
    let (name, span, file, file_id) = (name.clone(), header.span, p.file, p.file_id);
    let mut body = check::BodyCheck::new(true);
    each(Body::Start(header), Vec::new());
    let mut passed = false;
    p.body_in_parts(Context::Test, part, |nodes, diags, unknown| {
        let mut diags = diags.into_vec();
        suggestions.settle(file, file_id, unknown, &mut diags);
        passed = budget.passed();
        if passed {
            return false;
        }
        for node in &nodes {
            body.statement(node, file_id, &mut diags);
        }
        each(Body::Part(nodes), diags);
        true
    });
    if passed {
        return false;
    }
    let mut diags = Vec::new();
    body.end(span, Some(&name), file_id, &mut diags);
    each(Body::End, diags)
}

/// The values of a file's YAML blocks, counted as they are parsed (on several threads), against
/// the file's budget of [`crate::yaml::file_node_budget`].
#[derive(Debug)]
pub struct YamlBudget {
    pub(super) limit: usize,
    used: AtomicUsize,
    /// A block held more than the whole budget alone.
    over: AtomicBool,
    /// The block at which the count first passed the budget (the block where the file passes
    /// it, when the blocks are counted in file order).
    crossed: OnceLock<Span>,
    /// Blocks from this byte on keep no value and are not counted ([`Outline::cut_at_budget`]).
    pub(super) drop_from: Option<usize>,
}

impl YamlBudget {
    fn new(limit: usize) -> Self {
        YamlBudget {
            limit,
            used: AtomicUsize::new(0),
            over: AtomicBool::new(false),
            crossed: OnceLock::new(),
            drop_from: None,
        }
    }

    /// Counts the blocks of `node` and of everything it holds, in file order.
    fn add(&self, node: &Node) {
        for n in node.walk() {
            if let Some(block) = n.yaml.as_deref() {
                let values = block.value.as_ref().map_or(0, crate::yaml::node_count);
                self.count(values, block.over_budget, block.span);
            }
        }
    }

    /// Counts the values of the block at `span` (`over`: it alone held more than the budget).
    pub(super) fn count(&self, values: usize, over: bool, span: Span) {
        if over {
            self.over.store(true, Relaxed);
        }
        self.used.fetch_add(values, Relaxed);
        if self.passed() {
            let _ = self.crossed.set(span);
        }
    }

    /// Whether the blocks counted so far hold more values than the file may.
    pub fn passed(&self) -> bool {
        self.over.load(Relaxed) || self.used.load(Relaxed) > self.limit
    }
}
