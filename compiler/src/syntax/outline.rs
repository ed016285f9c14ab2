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

use super::tree::{Document, Node, Stmt};
use super::{Context, Parser, Pieces, check, scan};
use crate::diagnostics::Diagnostic;
use crate::source::{SourceFile, Span};
use std::ops::Range;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

/// A file without the bodies of its tests.
#[derive(Debug)]
pub struct Outline {
    /// The document; a test header has no children when its body was left out.
    pub document: Document,
    /// The problems found so far, sorted: those of every line's layout, and those of the
    /// statements and blocks outside the bodies left out.
    pub diagnostics: Vec<Diagnostic>,
    /// Per test header of `document`, in order: the lines of its body when it was left out
    /// (`None`: the body is parsed already, see [`Parser::skip_body`]).
    pub bodies: Vec<Option<Range<usize>>>,
    /// The file's YAML values so far (the blocks outside the bodies left out).
    pub budget: YamlBudget,
}

impl Outline {
    /// For a file whose YAML passed its budget while its tests were parsed: finds the block
    /// where it passes, in file order, as [`super::parse_within`] does (the bodies are parsed
    /// up to there, and dropped), reports MCPLANG609 there, and takes the values of that block
    /// and of every later one, in the outline and in the bodies still to be parsed.
    pub fn cut_at_budget(&mut self, file: &SourceFile, file_id: usize) {
        let budget = YamlBudget::new(self.budget.limit);
        let mut bodies = self.bodies.iter().cloned();
        // Each run of neighbouring tests is parsed as `check` parses them (and dropped).
        let mut run = Vec::new();
        for node in &self.document.nodes {
            if matches!(node.stmt, Stmt::TestHeader { .. }) {
                run.push((node.clone(), bodies.next().flatten()));
                continue;
            }
            parse_tests(file, file_id, std::mem::take(&mut run), &budget, |_, _| {});
            if !budget.passed() {
                budget.add(node);
            }
            if budget.passed() {
                break;
            }
        }
        parse_tests(file, file_id, run, &budget, |_, _| {});
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
        let limit = budget.limit;
        let passed = super::blocks::too_many_values(file.text(), file_id, at, limit);
        self.diagnostics.push(passed);
        crate::diagnostics::sort(&mut self.diagnostics);
        self.budget = YamlBudget::new(limit);
        self.budget.drop_from = Some(at.start as usize);
    }
}

/// Parses `file` without the bodies of its tests, in pieces on `threads` threads as
/// [`super::parse_within`] does; the YAML of the whole file may hold `yaml_nodes` values.
pub fn outline(file: &SourceFile, file_id: usize, threads: usize, yaml_nodes: usize) -> Outline {
    let Pieces {
        nodes,
        mut diags,
        deferred,
        ..
    } = super::parse_pieces(file, file_id, threads, yaml_nodes, true);
    let document = Document { nodes };
    check::names(&document, file_id, &mut diags);
    let budget = YamlBudget::new(yaml_nodes);
    for node in &document.nodes {
        // A test is checked and counted with its body ([`parse_tests`]).
        if !matches!(node.stmt, Stmt::TestHeader { .. }) {
            check::block(node, file_id, &mut diags);
            budget.add(node);
        }
    }
    crate::diagnostics::sort(&mut diags);
    Outline {
        document,
        diagnostics: diags,
        bodies: deferred,
        budget,
    }
}

/// Parses the bodies an [`outline`] left out, in order: `each` gets every test header of
/// `tests` with its body, and the problems found in them (as [`super::parse_within`] finds
/// them), before the next body is parsed. Stops once the file's YAML has passed `budget`.
pub fn parse_tests(
    file: &SourceFile,
    file_id: usize,
    tests: impl IntoIterator<Item = (Node, Option<Range<usize>>)>,
    budget: &YamlBudget,
    mut each: impl FnMut(Node, Vec<Diagnostic>),
) {
    let mut tests = tests.into_iter().peekable();
    // The unknown lines of every body, settled test by test in file order.
    let mut suggestions = super::vocab::Suggestions::new();
    // In pieces of about PIECE_BYTES, as a whole file is parsed: the grammar is built once
    // per piece, and the tokens of a piece are dropped with it.
    while tests.peek().is_some() {
        let tokens = bumpalo::Bump::new();
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
                let mut p = Parser::new(file, file_id, (&lines, range.start), &tokens, &grammar);
                p.yaml_budget = budget.limit;
                p.yaml_nodes = yaml_nodes;
                p.shared_budget = Some(budget);
                p.drop_from = budget.drop_from;
                node.children = p.body(Context::Test);
                debug_assert_eq!(p.pos, lines.len(), "a body ends where it was skipped");
                yaml_nodes = p.yaml_nodes;
                diags = p.diags;
                suggestions.settle(file, file_id, std::mem::take(&mut p.unknown), &mut diags);
                bytes += lines.last().map_or(0, |l| l.span.end as usize)
                    - lines.first().map_or(0, |l| l.span.start as usize);
            } else {
                // Parsed with the outline, and not counted there.
                budget.add(&node);
            }
            if budget.passed() {
                return;
            }
            check::block(&node, file_id, &mut diags);
            each(node, diags);
        }
    }
}

/// The values of a file's YAML blocks, counted as they are parsed (on several threads), against
/// the file's budget of [`crate::yaml::file_node_budget`].
#[derive(Debug)]
pub struct YamlBudget {
    limit: usize,
    used: AtomicUsize,
    /// A block held more than the whole budget alone.
    over: AtomicBool,
    /// The block at which the count first passed the budget (the block where the file passes
    /// it, when the blocks are counted in file order).
    crossed: OnceLock<Span>,
    /// Blocks from this byte on keep no value and are not counted ([`Outline::cut_at_budget`]).
    drop_from: Option<usize>,
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
