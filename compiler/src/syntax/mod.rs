//! Syntax: text → located tree + diagnostics. The layout pass splits the file
//! into lines and blocks (column-0 headers, indented bodies, YAML blocks,
//! inline tables); each statement line is lexed by logos and parsed by the
//! chumsky grammar (only those: the lines of YAML blocks and tables reach the YAML
//! parser and the table reader as text). Parsing never aborts: a bad line becomes an
//! error node.

pub mod grammar;
pub mod statements;
pub mod token;
pub mod tree;
pub mod vocab;

mod blocks;
mod check;
pub(crate) mod forms;
mod outline;
mod recognise;
mod scan;

use crate::diagnostics::{Collected, Diagnostic};
use crate::source::{SourceFile, Span};
use chumsky::span::SimpleSpan;
use grammar::Grammar;
pub use outline::{Body, LongBodies, Outline, OutlinedTest, YamlBudget, outline, parse_tests};
use std::ops::Range;
use token::Tok;
pub use tree::*;

/// What kind of line a physical line is, decided before statements are parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineKind {
    Blank,
    Comment,
    Text,
}

/// Facts about one physical line. A body's table holds one for each of its lines while the
/// body is parsed (a block of half a million lines included), so only what cannot be read
/// back cheaply from the text is kept: 16 bytes a line.
#[derive(Debug, Clone)]
struct Line {
    /// Byte range without the line break.
    span: Span,
    /// First non-space byte to the end of the trimmed text.
    trimmed: Span,
}

impl Line {
    /// Blank, a comment or text: read from the trimmed text of `src`, the file's text.
    fn kind(&self, src: &str) -> LineKind {
        if self.trimmed.is_empty() {
            LineKind::Blank
        } else if src.as_bytes()[self.trimmed.start as usize] == b'#' {
            LineKind::Comment
        } else {
            LineKind::Text
        }
    }

    /// Whether the line holds nothing but white space.
    fn is_blank(&self) -> bool {
        self.trimmed.is_empty()
    }

    /// Bytes of leading spaces and tabs (after the BOM that may open the file), read from
    /// `src`, the file's text.
    fn lead(&self, src: &str) -> u32 {
        self.leading(src)
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count() as u32
    }

    /// Its indentation: leading spaces, a tab counting as two (after the BOM that may open
    /// the file), read from `src`, the file's text. Asked for several times a line, so one
    /// plain loop over a few bytes.
    fn indent(&self, src: &str) -> u32 {
        let mut n = 0;
        for &b in self.leading(src) {
            match b {
                b' ' => n += 1,
                b'\t' => n += 2,
                _ => break,
            }
        }
        n
    }

    /// The white space before the trimmed text (spaces and tabs first), after the BOM that
    /// may open the file.
    fn leading<'s>(&self, src: &'s str) -> &'s [u8] {
        let before = &src.as_bytes()[self.span.start as usize..self.trimmed.start as usize];
        if self.span.start == 0 {
            before.strip_prefix("\u{feff}".as_bytes()).unwrap_or(before)
        } else {
            before
        }
    }
}

/// Where a statement line stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Context {
    Document,
    Test,
    Flow,
    DataSource,
}

impl Context {
    fn describe(self) -> &'static str {
        match self {
            Context::Document => "the document level",
            Context::Test => "a test",
            Context::Flow => "a flow",
            Context::DataSource => "a data source",
        }
    }

    fn inside(self) -> &'static str {
        match self {
            Context::Document => "outside any test",
            Context::Test => "inside a test",
            Context::Flow => "inside a flow",
            Context::DataSource => "inside a data source",
        }
    }
}

/// The result of parsing one file.
#[derive(Debug, Clone)]
pub struct Parsed {
    /// The located tree.
    pub document: Document,
    /// Every problem found, sorted by position.
    pub diagnostics: Vec<Diagnostic>,
}

/// Parses a `.mcpr` file. `file_id` is the index stored in diagnostics.
pub fn parse(file: &SourceFile, file_id: usize) -> Parsed {
    parse_with(file, file_id, threads_for(file.text().len()))
}

/// The tests of a `.mcpr` file as written, before data rows are expanded: each `Test:`
/// header's name with its 1-based line, in file order (for `mcpr run FILE:LINE`).
pub fn test_headers(file: &SourceFile) -> Vec<(String, u32)> {
    parse(file, 0)
        .document
        .nodes
        .iter()
        .filter_map(|node| match &node.stmt {
            Stmt::TestHeader { name } => Some((
                name.value.clone(),
                file.position(node.span.start as usize).line,
            )),
            _ => None,
        })
        .collect()
}

/// Files below this size are parsed (and lowered) on the calling thread: starting threads
/// would cost more than it saves.
pub const PARALLEL_FROM_BYTES: usize = 256 * 1024;

/// How many threads work on a text of `len` bytes: one below [`PARALLEL_FROM_BYTES`],
/// otherwise one per core, at most 8.
pub fn threads_for(len: usize) -> usize {
    if len < PARALLEL_FROM_BYTES {
        return 1;
    }
    std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
}

/// [`parse`] with an explicit number of threads. The file is cut before lines that start a
/// column-0 statement (where every block ends) into pieces of about [`PIECE_BYTES`], each
/// thread scanning, lexing and parsing a run of neighbouring pieces one after the other, and
/// the pieces are joined in order: the tree and the diagnostics are the same for every
/// `threads` and every cut.
pub fn parse_with(file: &SourceFile, file_id: usize, threads: usize) -> Parsed {
    let budget = crate::yaml::file_node_budget(crate::size::DEFAULT_MAX_FILE_BYTES);
    parse_within(file, file_id, threads, budget)
}

/// [`parse_with`] where the YAML blocks of the file may hold `yaml_nodes` values together
/// (MCPLANG609 at the block that crosses it; [`crate::yaml::file_node_budget`]).
pub fn parse_within(
    file: &SourceFile,
    file_id: usize,
    threads: usize,
    yaml_nodes: usize,
) -> Parsed {
    let Pieces {
        nodes, mut diags, ..
    } = parse_pieces(file, file_id, threads, yaml_nodes, (None, 0));
    let mut document = Document { nodes };
    if let Some(d) = blocks::yaml_budget(&mut document, file.text(), file_id, yaml_nodes) {
        diags.push(d);
    }
    check::structure(&document, file_id, &mut diags);
    let mut diagnostics = diags.into_vec();
    crate::diagnostics::sort(&mut diagnostics);
    Parsed {
        document,
        diagnostics,
    }
}

/// The pieces of a file, parsed and joined in order.
struct Pieces {
    nodes: Vec<Node>,
    diags: Collected,
    /// With `defer_tests`: the tests, in file order, kept apart from `nodes`, in runs (one
    /// per piece that has tests).
    tests: Vec<Vec<OutlinedTest>>,
    /// Lines no statement matched, in order.
    unknown: Vec<vocab::Unknown>,
    /// See [`Parser::flows_left_out`].
    flows_left_out: Vec<(Span, usize)>,
}

impl Pieces {
    fn new(diags: Collected) -> Self {
        Pieces {
            nodes: Vec::new(),
            diags,
            tests: Vec::new(),
            unknown: Vec::new(),
            flows_left_out: Vec::new(),
        }
    }
}

/// Parses a file in pieces on `threads` threads (see [`parse_with`]); with `defer_tests`, the
/// bodies of the tests are left out ([`outline`]). `keep` bounds the diagnostics kept
/// worded ([`Collected`]; 0: all).
fn parse_pieces(
    file: &SourceFile,
    file_id: usize,
    threads: usize,
    yaml_nodes: usize,
    (defer_tests, keep): (Option<(LongBodies, usize)>, usize),
) -> Pieces {
    let threads = threads.max(1);
    // Each thread parses its share in pieces of about PIECE_BYTES, one after the other: the
    // lines and tokens of one piece are all that is held besides the tree.
    let per_thread = file
        .text()
        .len()
        .div_ceil(threads)
        .div_ceil(PIECE_BYTES)
        .max(1);
    let cuts = cut_lines(file, threads * per_thread);
    let mut bounds = Vec::with_capacity(cuts.len() + 2);
    bounds.push(0);
    bounds.extend(cuts);
    bounds.push(file.line_count());
    // `values`: the YAML values of the thread's pieces so far, carried from piece to piece so
    // that a part past the budget keeps no more of them.
    // `diags`: the problems of the thread's pieces so far, one bounded collection.
    // `tokens`: the thread's arena of tokens, emptied for each piece.
    let piece = |range: Range<usize>,
                 into: &mut Pieces,
                 (values, diags): (&mut usize, &mut Collected),
                 tokens: &mut bumpalo::Bump| {
        let lines = scan::scan_lines(file, file_id, range.clone(), diags);
        tokens.reset();
        let tokens = &*tokens;
        let grammar = Grammar::new(file.text());
        let mut p = Parser::new(file, file_id, (&lines, range.start), tokens, &grammar);
        p.diags = Collected::new(keep);
        p.yaml_budget = yaml_nodes;
        p.yaml_nodes = *values;
        p.defer_tests = defer_tests.is_some();
        p.long_flows = defer_tests;
        into.nodes.extend(p.document());
        into.flows_left_out.append(&mut p.flows_left_out);
        *values = p.yaml_nodes;
        diags.append(p.diags);
        if !p.tests.is_empty() {
            // Held until the tests are lowered: at their count, not a list's doubling.
            p.tests.shrink_to_fit();
            into.tests.push(p.tests);
        }
        into.unknown.extend(p.unknown);
    };
    // The pieces in order, `per_thread` consecutive ones for each thread.
    let ranges: Vec<Range<usize>> = bounds.windows(2).map(|w| w[0]..w[1]).collect();
    let per = ranges.len().div_ceil(threads).max(1);
    let part = |group: &[Range<usize>]| {
        let mut values = 0;
        let mut diags = Collected::new(keep);
        let mut tokens = bumpalo::Bump::new();
        let pieces = group
            .iter()
            .map(|range| {
                let mut piece_of = Pieces::new(Collected::default());
                let counts = (&mut values, &mut diags);
                piece(range.clone(), &mut piece_of, counts, &mut tokens);
                piece_of
            })
            .collect::<Vec<_>>();
        (pieces, diags)
    };
    let parts: Vec<(Vec<Pieces>, Collected)> = if ranges.len() <= per {
        vec![part(&ranges)]
    } else {
        std::thread::scope(|scope| {
            let part = &part;
            let mut groups = ranges.chunks(per);
            let first = groups.next().unwrap_or_default();
            let handles: Vec<_> = groups
                .map(|group| scope.spawn(move || part(group)))
                .collect();
            let mut parts = vec![part(first)];
            for h in handles {
                parts.push(h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
            }
            parts
        })
    };
    // Joined without regrowing (a list that doubles as it grows leaves its old copies to the
    // allocator).
    let mut diags = Collected::new(keep);
    let mut pieces: Vec<Pieces> = Vec::new();
    for (part, part_diags) in parts {
        pieces.extend(part);
        diags.append(part_diags);
    }
    let mut all = Pieces {
        nodes: Vec::with_capacity(pieces.iter().map(|p| p.nodes.len()).sum()),
        tests: Vec::with_capacity(pieces.iter().map(|p| p.tests.len()).sum()),
        ..Pieces::new(diags)
    };
    let mut unknown = Vec::new();
    for p in pieces {
        all.nodes.extend(p.nodes);
        all.tests.extend(p.tests);
        all.flows_left_out.extend(p.flows_left_out);
        unknown.extend(p.unknown);
    }
    // In file order, whatever the cut: the same suggestions for every `threads`.
    vocab::Suggestions::new().settle(file, file_id, unknown, &mut all.diags);
    all
}

/// The size of the pieces a file is parsed in: each piece's lines and tokens (about nine
/// times its text) are dropped before the next piece is parsed.
const PIECE_BYTES: usize = 128 * 1024;

/// Line indexes where to cut a file into about `parts` parts of similar size. Each cut is a
/// line that starts with an ASCII letter or digit: a column-0 statement. Every block before it
/// ends there, and it is parsed the same whether or not a part begins with it.
fn cut_lines(file: &SourceFile, parts: usize) -> Vec<usize> {
    let mut cuts: Vec<usize> = Vec::new();
    if parts < 2 {
        return cuts;
    }
    let text = file.text().as_bytes();
    let per = text.len() / parts;
    for k in 1..parts {
        let mut line = file.line_index(per * k) + 1;
        if let Some(&last) = cuts.last() {
            line = line.max(last + 1);
        }
        while line < file.line_count() {
            let start = file.line_span(line).start as usize;
            if text.get(start).is_some_and(u8::is_ascii_alphanumeric) {
                cuts.push(line);
                break;
            }
            line += 1;
        }
    }
    cuts
}

struct Parser<'p, 'a, 's> {
    file: &'p SourceFile,
    /// The file's text.
    src: &'s str,
    file_id: usize,
    lines: &'p [Line],
    /// Index in the file of `lines[0]` (the file may be parsed in parts).
    base: usize,
    /// Where the tokens of statement lines are kept while the grammar reads them: only the
    /// lines recognised as statements are lexed (never those of YAML blocks and tables).
    tokens: &'a bumpalo::Bump,
    /// The tokens of the line being lexed (one buffer, reused).
    lexed: Vec<(Tok<'s>, SimpleSpan)>,
    grammar: &'p Grammar<'a, 's>,
    /// The problems found (all of them, but in the pieces of `check`'s outline).
    diags: Collected,
    pos: usize,
    /// The text of the YAML block being parsed (one buffer, reused).
    yaml_text: String,
    /// Values held by the YAML blocks of this part so far.
    yaml_nodes: usize,
    /// The file's budget of YAML values ([`blocks::yaml_budget`] checks it in file order).
    yaml_budget: usize,
    /// The file's budget of YAML values, shared by the threads parsing test bodies for
    /// `check` ([`parse_tests`]).
    shared_budget: Option<&'p YamlBudget>,
    /// Blocks that start at or after this byte keep no value (the file's YAML passed its
    /// budget there: [`Outline::cut_at_budget`]).
    drop_from: Option<usize>,
    /// Leave the bodies of tests out and the tests apart in `tests` ([`outline`]).
    defer_tests: bool,
    /// The lines of the body of the test header just read, when it was left out.
    deferred: Option<Range<usize>>,
    /// With `defer_tests`, the tests, in file order.
    tests: Vec<OutlinedTest>,
    /// With `defer_tests`: which flow bodies are long, and the most statements a flow may
    /// have and still be expanded into a test ([`Parser::long_flow`]).
    long_flows: Option<(LongBodies, usize)>,
    /// The flows whose bodies keep only what the checks of flows read, with the number of
    /// statements each left out ([`Outline::flow_statements_left_out`]).
    flows_left_out: Vec<(Span, usize)>,
    /// Lines no statement matched, in order, their diagnostics to be made
    /// ([`vocab::Suggestions::settle`]).
    unknown: Vec<vocab::Unknown>,
}

impl<'p, 'a, 's> Parser<'p, 'a, 's> {
    /// A parser of `lines`, the first of which is line `base` of the file, with the file's
    /// default budget of YAML values.
    fn new(
        file: &'s SourceFile,
        file_id: usize,
        (lines, base): (&'p [Line], usize),
        tokens: &'a bumpalo::Bump,
        grammar: &'p Grammar<'a, 's>,
    ) -> Self
    where
        's: 'p,
    {
        Parser {
            file,
            src: file.text(),
            file_id,
            lines,
            base,
            tokens,
            lexed: Vec::new(),
            grammar,
            diags: Collected::default(),
            pos: 0,
            yaml_text: String::new(),
            yaml_nodes: 0,
            yaml_budget: crate::yaml::file_node_budget(crate::size::DEFAULT_MAX_FILE_BYTES),
            shared_budget: None,
            drop_from: None,
            defer_tests: false,
            deferred: None,
            tests: Vec::new(),
            long_flows: None,
            flows_left_out: Vec::new(),
            unknown: Vec::new(),
        }
    }

    /// Counts the YAML values of the blocks it parses against the file's `budget` as well,
    /// `yaml_nodes` of them held by the blocks parsed before it.
    fn shared(&mut self, budget: &'p YamlBudget, yaml_nodes: usize) {
        self.yaml_budget = budget.limit;
        self.yaml_nodes = yaml_nodes;
        self.shared_budget = Some(budget);
        self.drop_from = budget.drop_from;
    }

    /// Lexes a statement line, keeping its tokens for as long as the grammar may read them.
    fn lex(&mut self, line: &Line) -> &'a [(Tok<'s>, SimpleSpan)] {
        self.lexed.clear();
        let text = &self.src[line.trimmed.range()];
        token::lex_line(text, line.trimmed.start as usize, &mut self.lexed);
        self.tokens.alloc_slice_copy(&self.lexed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tree and diagnostics of `file` parsed as one piece, as no cut ever parses it.
    fn uncut(file: &SourceFile) -> Parsed {
        let mut diags = Vec::new();
        let lines = scan::scan_lines(file, 0, 0..file.line_count(), &mut diags);
        let tokens = bumpalo::Bump::new();
        let grammar = Grammar::new(file.text());
        let mut p = Parser::new(file, 0, (&lines, 0), &tokens, &grammar);
        let nodes = p.document();
        diags.extend(p.diags.into_vec());
        vocab::Suggestions::new().settle(file, 0, p.unknown, &mut diags);
        let document = Document { nodes };
        check::structure(&document, 0, &mut diags);
        crate::diagnostics::sort(&mut diags);
        Parsed {
            document,
            diagnostics: diags,
        }
    }

    /// A file larger than several pieces, of every corpus form (and their mistakes),
    /// parses to the same tree and diagnostics in pieces as in one, on one thread or more.
    #[test]
    fn pieces_parse_as_the_whole() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../conformance-tests/compiler");
        let mut cases = String::new();
        for dir in ["valid", "invalid"] {
            let mut paths: Vec<_> = std::fs::read_dir(format!("{root}/{dir}"))
                .expect("the corpus")
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "mcpr"))
                .collect();
            paths.sort();
            for p in paths {
                let text = std::fs::read_to_string(&p).expect("a corpus case");
                // Without its version header, which is only allowed on the first line.
                for line in text.lines().filter(|l| !l.starts_with("MCP Test")) {
                    cases.push_str(line);
                    cases.push('\n');
                }
                cases.push('\n');
            }
        }
        let mut text = String::from("MCP Test 1\n");
        while text.len() < 3 * PIECE_BYTES {
            text.push_str(&cases);
        }
        let file = SourceFile::new("pieces.mcpr", text);
        let whole = uncut(&file);
        for threads in [1, 2, 3] {
            let pieces = parse_with(&file, 0, threads);
            assert!(
                pieces.document == whole.document,
                "tree on {threads} thread(s)"
            );
            assert_eq!(
                format!("{:?}", pieces.diagnostics),
                format!("{:?}", whole.diagnostics),
                "diagnostics on {threads} thread(s)"
            );
        }
    }
}
