//! Syntax: text → located tree + diagnostics. The layout pass splits the file
//! into lines and blocks (column-0 headers, indented bodies, YAML blocks,
//! inline tables); each statement line is lexed by logos and parsed by the
//! chumsky grammar. Parsing never aborts: a bad line becomes an error node.

pub mod grammar;
pub mod statements;
pub mod token;
pub mod tree;
pub mod vocab;

use crate::diagnostics::problem::{DurationProblem, TableProblem};
use crate::diagnostics::{Diagnostic, Problem};
use crate::source::{SourceFile, Span};
use chumsky::span::SimpleSpan;
use grammar::{Grammar, LineResult};
use token::Tok;
pub use tree::*;

/// What kind of line a physical line is, decided before statements are parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineKind {
    Blank,
    Comment,
    Text,
}

/// Facts about one physical line.
#[derive(Debug, Clone)]
struct Line {
    /// Byte range without the line break.
    span: Span,
    /// Leading U+0020 spaces (a BOM at the start of the file is skipped).
    indent: u32,
    /// Bytes of leading spaces and tabs.
    lead: u32,
    /// First non-space byte to the end of the trimmed text.
    trimmed: Span,
    kind: LineKind,
    /// Token range in the shared token vector.
    tokens: std::ops::Range<usize>,
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
/// column-0 statement (where every block ends); each part is scanned, lexed and parsed on
/// its own thread, and the parts are joined in order: the tree and the diagnostics are the
/// same for every `threads`.
pub fn parse_with(file: &SourceFile, file_id: usize, threads: usize) -> Parsed {
    let cuts = cut_lines(file, threads.max(1));
    let mut bounds = Vec::with_capacity(cuts.len() + 2);
    bounds.push(0);
    bounds.extend(cuts);
    bounds.push(file.line_count());
    let part = |range: std::ops::Range<usize>| {
        let mut diags = Vec::new();
        let mut lines = scan_lines(file, file_id, range.clone(), &mut diags);
        let (nodes, more) = parse_part(file, file_id, &mut lines, range.start);
        diags.extend(more);
        (nodes, diags)
    };
    let parts: Vec<(Vec<Node>, Vec<Diagnostic>)> = if bounds.len() == 2 {
        vec![part(0..file.line_count())]
    } else {
        std::thread::scope(|scope| {
            let part = &part;
            let handles: Vec<_> = bounds[1..]
                .windows(2)
                .map(|w| {
                    let range = w[0]..w[1];
                    scope.spawn(move || part(range))
                })
                .collect();
            let mut parts = vec![part(bounds[0]..bounds[1])];
            for h in handles {
                parts.push(h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
            }
            parts
        })
    };
    let mut nodes = Vec::new();
    let mut diags = Vec::new();
    for (n, d) in parts {
        nodes.extend(n);
        diags.extend(d);
    }
    let document = Document { nodes };
    check::structure(&document, file_id, &mut diags);
    crate::diagnostics::sort(&mut diags);
    Parsed {
        document,
        diagnostics: diags,
    }
}

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

/// Lexes and parses the lines of one part (`base` is the index of its first line).
fn parse_part(
    file: &SourceFile,
    file_id: usize,
    lines: &mut [Line],
    base: usize,
) -> (Vec<Node>, Vec<Diagnostic>) {
    let src = file.text();
    let bytes = lines
        .last()
        .map_or(0, |l| l.span.end as usize)
        .saturating_sub(lines.first().map_or(0, |l| l.span.start as usize));
    // About one token per five bytes of text; sized once to avoid regrowth.
    let mut tokens: Vec<(Tok<'_>, SimpleSpan)> = Vec::with_capacity(bytes / 5 + 16);
    for l in lines.iter_mut() {
        if l.kind == LineKind::Text {
            let start = tokens.len();
            token::lex_line(
                &src[l.trimmed.range()],
                l.trimmed.start as usize,
                &mut tokens,
            );
            l.tokens = start..tokens.len();
        }
    }
    let grammar = Grammar::new(src);
    let mut p = Parser {
        file,
        file_id,
        lines,
        base,
        tokens: &tokens,
        grammar: &grammar,
        diags: Vec::new(),
        pos: 0,
        yaml_text: String::new(),
    };
    let nodes = p.document();
    (nodes, p.diags)
}

/// First pass: indentation, tabs, comments, references, version header.
fn scan_lines(
    file: &SourceFile,
    file_id: usize,
    range: std::ops::Range<usize>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Line> {
    let src = file.text();
    let mut out = Vec::with_capacity(range.len());
    for i in range {
        let span = file.line_span(i);
        let mut text = &src[span.range()];
        let mut start = span.start as usize;
        if i == 0 && text.starts_with('\u{feff}') {
            text = &text[3..];
            start += 3;
        }
        // Tabs are reported (MCPLANG101) but still count as indentation, so a
        // tab-indented line stays in its block instead of cascading errors.
        let lead = text
            .bytes()
            .take_while(|&b| b == b' ' || b == b'\t')
            .count();
        let tabs = text[..lead].bytes().filter(|&b| b == b'\t').count();
        let indent = lead + tabs;
        let body = &text[lead..];
        // Most lines start and end with an ASCII character that is not a space: no
        // Unicode-aware trimming needed then.
        let plain = |b: Option<&u8>| b.is_some_and(|&b| b < 0x80 && !(b as char).is_whitespace());
        let from = if plain(body.as_bytes().first()) {
            body
        } else {
            body.trim_start_matches(char::is_whitespace)
        };
        let content = if plain(from.as_bytes().last()) {
            from
        } else {
            from.trim_end_matches(char::is_whitespace)
        };
        let tstart = start + lead + (body.len() - from.len());
        let trimmed = Span::new(tstart, tstart + content.len());
        let kind = if trimmed.is_empty() {
            LineKind::Blank
        } else if src.as_bytes()[tstart] == b'#' {
            LineKind::Comment
        } else {
            LineKind::Text
        };
        // Tabs: one diagnostic per line, at the first tab.
        let tab = crate::bytes::find_byte(text.as_bytes(), b'\t');
        if let Some(t) = tab {
            diags.push(Diagnostic::new(
                Problem::Tab,
                file_id,
                Span::new(start + t, start + t + 1),
            ));
        }
        let tab_in_indent = tab.is_some_and(|t| text[..t].bytes().all(|b| b == b' '));
        if kind != LineKind::Blank && indent % 2 == 1 && !tab_in_indent {
            diags.push(Diagnostic::new(
                Problem::OddIndentation {
                    spaces: indent as u32,
                },
                file_id,
                Span::new(start, start + 1),
            ));
        }
        if kind == LineKind::Text {
            check_references(&src[trimmed.range()], tstart, file_id, diags);
        }
        out.push(Line {
            span,
            indent: indent as u32,
            lead: lead as u32,
            trimmed,
            kind,
            tokens: 0..0,
        });
    }
    out
}

/// Byte offset of the first `${` at or after `from`. A byte search for `$` (memchr) then a
/// look at the next byte: much cheaper than a substring search, which sets up a two-way
/// searcher on every call, on the short strings templates are.
pub fn find_open(s: &str, from: usize) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut i = from;
    while i < bytes.len() {
        let at = crate::bytes::find_from(s, i, b'$')?;
        if bytes.get(at + 1) == Some(&b'{') {
            return Some(at);
        }
        i = at + 1;
    }
    None
}

/// Whether a string holds a `${` (a template with at least one reference, or an unclosed one).
pub fn has_open(s: &str) -> bool {
    find_open(s, 0).is_some()
}

/// Reports `${` without `}` and empty `${}` on one line (first problem only).
fn check_references(text: &str, base: usize, file_id: usize, diags: &mut Vec<Diagnostic>) {
    let mut from = 0;
    while let Some(at) = find_open(text, from) {
        match crate::bytes::find_byte(&text.as_bytes()[at + 2..], b'}') {
            None => {
                diags.push(Diagnostic::new(
                    Problem::BadReference { unclosed: true },
                    file_id,
                    Span::new(base + at, base + text.len()),
                ));
                return;
            }
            Some(0) => {
                diags.push(Diagnostic::new(
                    Problem::BadReference { unclosed: false },
                    file_id,
                    Span::new(base + at, base + at + 3),
                ));
                return;
            }
            Some(close) => from = at + 2 + close + 1,
        }
    }
}

struct Parser<'p, 'a, 's> {
    file: &'p SourceFile,
    file_id: usize,
    lines: &'p [Line],
    /// Index in the file of `lines[0]` (the file may be parsed in parts).
    base: usize,
    tokens: &'a [(Tok<'s>, SimpleSpan)],
    grammar: &'p Grammar<'a, 's>,
    diags: Vec<Diagnostic>,
    pos: usize,
    /// The text of the YAML block being parsed (one buffer, reused).
    yaml_text: String,
}

impl<'p, 'a, 's: 'a> Parser<'p, 'a, 's> {
    fn report(&mut self, problem: Problem, span: Span) {
        self.diags
            .push(Diagnostic::new(problem, self.file_id, span));
    }

    fn text(&self, span: Span) -> &'p str {
        &self.file.text()[span.range()]
    }

    /// The whole document: top-level lines and blocks.
    fn document(&mut self) -> Vec<Node> {
        // At most one node per column-0 line (the rest belong to blocks).
        let top = self.lines[self.pos..]
            .iter()
            .filter(|l| l.indent == 0 && l.kind != LineKind::Blank)
            .count();
        let mut nodes = Vec::with_capacity(top);
        while self.pos < self.lines.len() {
            let line = self.lines[self.pos].clone();
            match line.kind {
                LineKind::Blank => self.pos += 1,
                LineKind::Comment => {
                    nodes.push(simple(Stmt::Comment, &line));
                    self.pos += 1;
                }
                LineKind::Text => {
                    let node = self.statement(&line, Context::Document);
                    nodes.push(node);
                }
            }
        }
        nodes
    }

    /// Parses the statement on `line` (the cursor is on it), then whatever
    /// belongs to it: a block body, a YAML block or a table.
    fn statement(&mut self, line: &Line, ctx: Context) -> Node {
        self.pos += 1;
        let mut node = self.recognise(line, ctx);
        let kind = node.decl_kind();
        if kind == DeclKind::BlockHeader {
            if line.indent > 0 || ctx != Context::Document {
                self.report(
                    Problem::MisplacedStatement {
                        what: "a block header",
                        found_in: "inside another block",
                        belongs: "at column 0, after the end of the current block",
                    },
                    node.span,
                );
                if ctx != Context::Document {
                    return node;
                }
            }
            match node.stmt {
                Stmt::TestHeader { .. } => node.children = self.body(Context::Test),
                Stmt::FlowHeader { .. } => node.children = self.body(Context::Flow),
                Stmt::DataSourceHeader { .. } => self.data_source_body(&mut node),
                _ => {}
            }
            return node;
        }
        if matches!(node.stmt, Stmt::Error) && ctx == Context::Document && line.indent == 0 {
            // A broken block header still opens its block, so the body is
            // parsed in the right context instead of cascading errors.
            let head = self.text(line.trimmed).to_ascii_lowercase();
            if head.starts_with("test") || head.starts_with("scenario") {
                node.children = self.body(Context::Test);
            } else if head.starts_with("flow") {
                node.children = self.body(Context::Flow);
            } else if head.starts_with("data source") {
                self.data_source_body(&mut node);
            }
            return node;
        }
        if !matches!(node.stmt, Stmt::Error) {
            self.check_placement(&node, line, ctx);
        }
        if node.stmt.opens_yaml_block() {
            node.yaml = self.yaml_block(line, &node).map(Box::new);
        } else if matches!(node.stmt, Stmt::ForEachRow) {
            if self.rows_in_yaml(line) {
                node.yaml = self.yaml_rows(line).map(Box::new);
            } else {
                node.table = self.table(line).map(Box::new);
            }
        }
        node
    }

    /// Recognises the statement on one line, reporting what is wrong with it.
    fn recognise(&mut self, line: &Line, ctx: Context) -> Node {
        let text = self.text(line.trimmed);
        // The version header is compared exactly; any other `MCP Test …`
        // line (other version, other case) is MCPLANG103.
        if text.len() > 8
            && text.is_char_boundary(8)
            && text[..8].eq_ignore_ascii_case("mcp test")
            && text[8..].starts_with(char::is_whitespace)
        {
            if text == "MCP Test 1" {
                return simple(Stmt::VersionHeader, line);
            }
            let at = line.trimmed.start as usize;
            self.report(
                Problem::VersionHeader {
                    found: text.to_string(),
                },
                Span::new(at, at + 1),
            );
            return simple(Stmt::Error, line);
        }
        if text.starts_with('|') {
            self.report(
                Problem::MalformedTable {
                    problem: TableProblem::Stray,
                },
                line.trimmed,
            );
            return simple(Stmt::Error, line);
        }
        let toks = &self.tokens[line.tokens.clone()];
        match self.grammar.parse(toks, line.trimmed.end as usize) {
            LineResult::Ok(stmt) => {
                let node = simple(stmt, line);
                self.check_values(&node.stmt);
                node
            }
            LineResult::Unknown => {
                if let Some(sp) = unclosed_quote(toks) {
                    let q = self.text(sp).chars().next().unwrap_or('"');
                    self.report(Problem::UnclosedQuote { quote: q }, sp);
                } else if ctx == Context::DataSource {
                    let suggestion = vocab::suggest(text, statements::Vocabulary::DataPhrases);
                    self.report(Problem::UnknownDataPhrase { suggestion }, line.trimmed);
                } else {
                    let suggestion = vocab::suggest(text, statements::Vocabulary::Statements);
                    self.report(
                        Problem::UnknownStatement {
                            context: ctx.describe(),
                            suggestion,
                        },
                        line.trimmed,
                    );
                }
                simple(Stmt::Error, line)
            }
            LineResult::Malformed {
                usage,
                expected,
                span,
                found_end,
            } => {
                if let Some(sp) = unclosed_quote(toks) {
                    let q = self.text(sp).chars().next().unwrap_or('"');
                    self.report(Problem::UnclosedQuote { quote: q }, sp);
                } else if expected.contains("the end of the line") && !found_end {
                    let tail = Span::new(span.start as usize, line.trimmed.end as usize);
                    let comment = self.text(tail).starts_with('#');
                    self.report(Problem::TrailingText { comment }, tail);
                } else {
                    let caret = if found_end {
                        Span::at(line.trimmed.end as usize)
                    } else {
                        span
                    };
                    self.report(Problem::MalformedStatement { usage, expected }, caret);
                }
                simple(Stmt::Error, line)
            }
        }
    }

    /// Reports durations and numbers that parsed as words but are invalid.
    fn check_values(&mut self, stmt: &Stmt) {
        let mut durations = Vec::new();
        let mut numbers: Vec<(&Number, &'static str)> = Vec::new();
        match stmt {
            Stmt::DefaultTimeout { duration }
            | Stmt::WaitUpTo { duration }
            | Stmt::ExpectFinishWithin { duration } => durations.push(duration),
            Stmt::WaitForNotification {
                within: Some(d), ..
            } => durations.push(d),
            Stmt::CallToolWithProgress {
                cancel_after: Some(d),
                ..
            } => durations.push(d),
            Stmt::Budget(b) => {
                durations.push(&b.max);
                numbers.push((&b.percentile, "percentile"));
                if let Some(w) = &b.window {
                    numbers.push((w, "window size"));
                }
            }
            Stmt::ExpectErrorCode { code } => numbers.push((code, "error code")),
            Stmt::ExpectLength { count, .. } => numbers.push((count, "item count")),
            Stmt::Sample { count, .. } => numbers.push((count, "row count")),
            Stmt::SampleSeeded { count, seed } => {
                numbers.push((count, "row count"));
                numbers.push((seed, "seed"));
            }
            _ => {}
        }
        for d in durations {
            if d.ms.is_some_and(|ms| (1..=600_000).contains(&ms)) {
                continue;
            }
            let reason = if d.number.is_empty() {
                DurationProblem::MissingNumber
            } else if !d.number.bytes().all(|b| b.is_ascii_digit()) {
                DurationProblem::NotWhole
            } else if d.unit.is_empty() {
                DurationProblem::MissingUnit
            } else if grammar::unit_factor(&d.unit).is_none() {
                DurationProblem::UnknownUnit(d.unit.clone())
            } else {
                DurationProblem::OutOfRange
            };
            let text = self.text(d.span).to_string();
            self.report(Problem::BadDuration { text, reason }, d.span);
        }
        for (n, what) in numbers {
            let ok = match (what, n.value) {
                ("error code", Some(_)) => true,
                (_, Some(v)) => v >= 0,
                _ => false,
            };
            if let (true, Some(v), Some((min, max))) = (ok, n.value, range_of(what))
                && !(min..=max).contains(&v)
            {
                self.report(
                    Problem::NumberOutOfRange {
                        text: n.text.clone(),
                        what,
                        min,
                        max,
                    },
                    n.span,
                );
                continue;
            }
            if !ok {
                self.report(
                    Problem::BadNumber {
                        text: n.text.clone(),
                        what,
                    },
                    n.span,
                );
            }
        }
    }

    /// Reports a statement that stands where it has no meaning.
    fn check_placement(&mut self, node: &Node, line: &Line, ctx: Context) {
        let kind = node.decl_kind();
        let ok = match ctx {
            Context::Document => matches!(
                kind,
                DeclKind::Header | DeclKind::Setting | DeclKind::Import | DeclKind::Comment
            ),
            Context::Test => matches!(
                kind,
                DeclKind::TestProperty
                    | DeclKind::Section
                    | DeclKind::Action
                    | DeclKind::Utility
                    | DeclKind::Iteration
                    | DeclKind::Expectation
                    | DeclKind::Modifier
                    | DeclKind::Comment
                    | DeclKind::Header
            ),
            Context::Flow => matches!(
                kind,
                DeclKind::FlowProperty
                    | DeclKind::Section
                    | DeclKind::Action
                    | DeclKind::Utility
                    | DeclKind::Expectation
                    | DeclKind::Modifier
                    | DeclKind::Comment
                    | DeclKind::Header
            ),
            Context::DataSource => kind == DeclKind::DataPhrase,
        };
        if ok {
            return;
        }
        let (what, belongs) = match kind {
            DeclKind::Setting => (
                "a document setting",
                "at column 0, outside any test or flow",
            ),
            DeclKind::Import => ("an import", "at column 0, outside any test or flow"),
            DeclKind::FlowProperty => ("a flow property", "in the body of a `Flow:` block"),
            DeclKind::TestProperty => ("a test property", "in the body of a `Test:` block"),
            DeclKind::Iteration => ("a data iteration", "in the body of a `Test:` block"),
            DeclKind::DataPhrase => (
                "a data source phrase",
                "in the body of a `Data source:` block",
            ),
            _ => (
                "a test statement",
                "indented in the body of a `Test:` or `Flow:` block",
            ),
        };
        let _ = line;
        self.report(
            Problem::MisplacedStatement {
                what,
                found_in: ctx.inside(),
                belongs,
            },
            node.span,
        );
    }

    /// Body of a test or flow: every following line that is blank or indented.
    fn body(&mut self, ctx: Context) -> Vec<Node> {
        // At most one node per line up to the next column-0 line: sized once, where
        // growing would move every node of the body several times.
        let lines = self.lines[self.pos..]
            .iter()
            .take_while(|l| l.kind == LineKind::Blank || l.indent > 0)
            .filter(|l| l.kind != LineKind::Blank)
            .count();
        let mut nodes = Vec::with_capacity(lines);
        while self.pos < self.lines.len() {
            let line = self.lines[self.pos].clone();
            match line.kind {
                LineKind::Blank => self.pos += 1,
                _ if line.indent == 0 => break,
                LineKind::Comment => {
                    nodes.push(simple(Stmt::Comment, &line));
                    self.pos += 1;
                }
                LineKind::Text => {
                    let node = self.statement(&line, ctx);
                    nodes.push(node);
                }
            }
        }
        nodes
    }

    /// Body of a `Data source:` block: phrases, or one YAML mapping.
    fn data_source_body(&mut self, header: &mut Node) {
        let start = self.pos;
        let mut end = start;
        while end < self.lines.len()
            && (self.lines[end].kind == LineKind::Blank || self.lines[end].indent > 0)
        {
            end += 1;
        }
        let phrase_mode = self.lines[start..end].iter().any(|l| {
            l.kind == LineKind::Text && {
                let t = self.text(l.trimmed).to_ascii_lowercase();
                // A phrase keyword followed by a space or the end of the line;
                // `cache: true` is a YAML key, not the phrase.
                [
                    "from", "column", "derive", "keep", "sample", "cache", "join",
                ]
                .iter()
                .any(|k| {
                    t.strip_prefix(k)
                        .is_some_and(|r| r.is_empty() || r.starts_with(' '))
                })
            }
        });
        if phrase_mode {
            let mut nodes = Vec::new();
            while self.pos < end {
                let line = self.lines[self.pos].clone();
                match line.kind {
                    LineKind::Blank => self.pos += 1,
                    LineKind::Comment => {
                        nodes.push(simple(Stmt::Comment, &line));
                        self.pos += 1;
                    }
                    LineKind::Text => {
                        let node = self.statement(&line, Context::DataSource);
                        nodes.push(node);
                    }
                }
            }
            header.children = nodes;
        } else {
            self.pos = end;
            // Trailing blank lines belong to no block.
            let mut end = end;
            while end > start && self.lines[end - 1].kind == LineKind::Blank {
                end -= 1;
            }
            let block = if start == end {
                None
            } else {
                self.parse_yaml_lines(start, end, 0, header.span)
            };
            match block {
                Some(b) => header.yaml = Some(Box::new(b)),
                None => self.report(
                    Problem::MissingBlock {
                        opener: "From CSV \"customers.csv\"",
                    },
                    header.span,
                ),
            }
        }
    }

    /// Takes the lines indented deeper than `opener` (trailing blank lines stay), returning
    /// their range of line indexes.
    fn take_block(&mut self, opener: &Line) -> (usize, usize) {
        let start = self.pos;
        let mut end = start;
        let mut last_text = start;
        while end < self.lines.len() {
            let l = &self.lines[end];
            if l.kind != LineKind::Blank {
                if l.indent <= opener.indent {
                    break;
                }
                last_text = end + 1;
            }
            end += 1;
        }
        let end = last_text.max(start);
        self.pos = end;
        (start, end)
    }

    /// Collects and parses the YAML block after an opener line.
    fn yaml_block(&mut self, opener: &Line, node: &Node) -> Option<YamlBlock> {
        let (start, end) = self.take_block(opener);
        if start == end {
            if node.stmt.allows_empty_block() {
                return Some(YamlBlock {
                    span: Span::at(opener.span.end as usize),
                    value: Some(serde_json::json!({})),
                });
            }
            let usage = opener_usage(&node.stmt);
            self.report(Problem::MissingBlock { opener: usage }, node.span);
            return None;
        }
        self.parse_yaml_lines(start, end, opener.indent + 2, node.span)
    }

    /// Parses lines `start..end` as one YAML mapping, removing `strip` leading
    /// spaces per line; maps YAML errors back to file positions.
    fn parse_yaml_lines(
        &mut self,
        start: usize,
        end: usize,
        strip: u32,
        owner: Span,
    ) -> Option<YamlBlock> {
        let src = self.file.text();
        let mut text = std::mem::take(&mut self.yaml_text);
        text.clear();
        let mut removed = Vec::with_capacity(end - start);
        for l in &self.lines[start..end] {
            let line = &src[l.span.range()];
            let cut = strip.min(l.lead) as usize;
            let cut = if l.kind == LineKind::Blank {
                line.len().min(cut)
            } else {
                cut
            };
            removed.push(cut);
            text.push_str(&line[cut..]);
            text.push('\n');
        }
        let first = self.lines[start].span.start as usize;
        let last = self.lines[end - 1].span.end as usize;
        let span = Span::new(first, last);
        let _ = owner;
        let parsed = crate::yaml::parse(&text);
        self.yaml_text = text;
        match parsed {
            Ok(value) => {
                if value.is_object() {
                    return Some(YamlBlock {
                        span,
                        value: Some(value),
                    });
                }
                let found = match &value {
                    serde_json::Value::Array(_) => "a list",
                    serde_json::Value::Null => "empty",
                    _ => "a single value",
                };
                let body = Span::new(self.lines[start].trimmed.start as usize, last);
                self.report(Problem::BlockNotMapping { found }, body);
                Some(YamlBlock { span, value: None })
            }
            Err(e) => {
                let at = self.yaml_position(start, end, &removed, e.line, e.column);
                // A line with odd indentation already has its diagnostic; the
                // YAML error it causes would report the same line twice.
                let culprit = self.file.line_index(at.start as usize);
                let odd = culprit
                    .checked_sub(self.base)
                    .and_then(|i| self.lines.get(i))
                    .is_some_and(|l| l.indent % 2 == 1);
                if !odd {
                    self.report(Problem::Yaml { message: e.message }, at);
                }
                Some(YamlBlock { span, value: None })
            }
        }
    }

    /// Maps a YAML (line, character column) inside a block to a file span.
    fn yaml_position(
        &self,
        start: usize,
        end: usize,
        removed: &[usize],
        line: u32,
        column: u32,
    ) -> Span {
        let idx = (line.max(1) as usize - 1).min(end - start - 1);
        let l = &self.lines[start + idx];
        let src = self.file.text();
        let line_text = &src[l.span.range()];
        let mut byte = l.span.start as usize + removed[idx];
        let chars_in = column.saturating_sub(1) as usize;
        for (n, (i, _)) in line_text[removed[idx]..].char_indices().enumerate() {
            byte = l.span.start as usize + removed[idx] + i;
            if n == chars_in {
                break;
            }
            byte = l.span.end as usize;
        }
        let byte = byte.min(l.span.end as usize);
        let next = src[byte..l.span.end as usize]
            .chars()
            .next()
            .map_or(0, char::len_utf8);
        Span::new(byte, byte + next)
    }

    /// Whether the rows after `For each row:` are a YAML list (`- column: value`) instead
    /// of a table: the next non-blank line is indented deeper and starts with `-`.
    fn rows_in_yaml(&self, opener: &Line) -> bool {
        self.lines[self.pos..]
            .iter()
            .find(|l| l.kind != LineKind::Blank)
            .is_some_and(|l| {
                let t = self.text(l.trimmed);
                l.kind == LineKind::Text
                    && l.indent > opener.indent
                    && (t == "-" || t.starts_with("- "))
            })
    }

    /// The YAML list of rows after `For each row:`: every item a non-empty mapping.
    fn yaml_rows(&mut self, opener: &Line) -> Option<YamlBlock> {
        let (start, end) = self.take_block(opener);
        let src = self.file.text();
        let mut text = std::mem::take(&mut self.yaml_text);
        text.clear();
        let mut removed = Vec::with_capacity(end - start);
        for l in &self.lines[start..end] {
            let line = &src[l.span.range()];
            let cut = ((opener.indent + 2).min(l.lead) as usize).min(line.len());
            removed.push(cut);
            text.push_str(&line[cut..]);
            text.push('\n');
        }
        let span = Span::new(
            self.lines[start].span.start as usize,
            self.lines[end - 1].span.end as usize,
        );
        match crate::yaml::parse(&text) {
            Ok(serde_json::Value::Array(rows))
                if !rows.is_empty()
                    && rows
                        .iter()
                        .all(|r| r.as_object().is_some_and(|m| !m.is_empty())) =>
            {
                Some(YamlBlock {
                    span,
                    value: Some(serde_json::Value::Array(rows)),
                })
            }
            Ok(_) => {
                let body = Span::new(self.lines[start].trimmed.start as usize, span.end as usize);
                self.report(
                    Problem::MalformedTable {
                        problem: TableProblem::RowsNotMappings,
                    },
                    body,
                );
                Some(YamlBlock { span, value: None })
            }
            Err(e) => {
                let at = self.yaml_position(start, end, &removed, e.line, e.column);
                self.report(Problem::Yaml { message: e.message }, at);
                Some(YamlBlock { span, value: None })
            }
        }
    }

    /// Collects the inline table after `For each row:`.
    fn table(&mut self, opener: &Line) -> Option<Table> {
        let mut rows: Vec<(Span, Vec<Cell>)> = Vec::new();
        let mut ok = true;
        while self.pos < self.lines.len() {
            let l = self.lines[self.pos].clone();
            if l.kind != LineKind::Text || !self.text(l.trimmed).starts_with('|') {
                break;
            }
            self.pos += 1;
            let text = self.text(l.trimmed);
            if text.len() < 2 || !text.ends_with('|') {
                self.report(
                    Problem::MalformedTable {
                        problem: TableProblem::NotDelimited,
                    },
                    l.trimmed,
                );
                ok = false;
                continue;
            }
            if is_separator(text) {
                continue;
            }
            let base = l.trimmed.start as usize + 1;
            let inner = &text[1..text.len() - 1];
            let mut cells = Vec::new();
            let mut from = 0;
            for piece in inner.split('|') {
                let lead = piece.len() - piece.trim_start().len();
                let t = piece.trim();
                let a = base + from + lead;
                cells.push(Cell {
                    text: t.to_string(),
                    span: Span::new(a, a + t.len()),
                });
                from += piece.len() + 1;
            }
            rows.push((l.trimmed, cells));
        }
        if rows.is_empty() {
            if ok {
                self.report(
                    Problem::MalformedTable {
                        problem: TableProblem::Missing,
                    },
                    opener.trimmed,
                );
            }
            return None;
        }
        let span = Span::new(
            rows[0].0.start as usize,
            rows[rows.len() - 1].0.end as usize,
        );
        let (hspan, header) = rows.remove(0);
        let _ = hspan;
        for (i, c) in header.iter().enumerate() {
            let dup = header[..i].iter().any(|p| p.text == c.text);
            if c.text.is_empty() || dup {
                let sp = if c.text.is_empty() {
                    Span::at(c.span.start as usize)
                } else {
                    c.span
                };
                self.report(
                    Problem::MalformedTable {
                        problem: TableProblem::BadColumnName {
                            name: c.text.clone(),
                        },
                    },
                    sp,
                );
            }
        }
        if rows.is_empty() && ok {
            self.report(
                Problem::MalformedTable {
                    problem: TableProblem::NoRows,
                },
                span,
            );
        }
        for (sp, cells) in &rows {
            if cells.len() != header.len() {
                self.report(
                    Problem::MalformedTable {
                        problem: TableProblem::Ragged {
                            expected: header.len(),
                            found: cells.len(),
                        },
                    },
                    *sp,
                );
            }
        }
        Some(Table {
            header,
            rows: rows.into_iter().map(|(_, c)| c).collect(),
            span,
        })
    }
}

/// A node for one line with no block or table.
fn simple(stmt: Stmt, line: &Line) -> Node {
    Node {
        stmt,
        span: line.trimmed,
        indent: line.indent,
        yaml: None,
        table: None,
        children: Vec::new(),
    }
}

/// The span of a quote the lexer could not close, if any.
fn unclosed_quote(toks: &[(Tok<'_>, SimpleSpan)]) -> Option<Span> {
    toks.iter().find_map(|(t, sp)| match t {
        Tok::Error(s) if s.starts_with('"') || s.starts_with('\'') => {
            Some(Span::new(sp.start, sp.end))
        }
        _ => None,
    })
}

/// A Markdown separator row such as `|---|:--:|`.
fn is_separator(text: &str) -> bool {
    let inner = text.trim_matches('|');
    !inner.is_empty()
        && inner.split('|').all(|c| {
            let c = c.trim();
            !c.is_empty() && c.trim_matches(':').chars().all(|ch| ch == '-') && c.contains('-')
        })
}

/// Usage shown when a block opener has no block.
fn opener_usage(stmt: &Stmt) -> &'static str {
    match stmt {
        Stmt::CallTool { .. } | Stmt::CallToolWithProgress { .. } => {
            "Call tool \"search\" with:\n      query: \"red shoes\""
        }
        Stmt::GetPrompt { .. } => "Get prompt \"review\" with:\n      topic: release",
        Stmt::Send { .. } => "Send \"tools/list\" with:\n      cursor: abc",
        Stmt::SetUsing { .. } => {
            "Set \"normalized\" using \"lowercase\" with:\n      value: \"${row.Email}\""
        }
        Stmt::RespondToElicitation { .. } => {
            "When the server asks for input, respond \"accept\" with:\n      approved: true"
        }
        Stmt::ExpectMatchesSchema { .. } => {
            "Expect \"structuredContent\" matches schema:\n      type: object"
        }
        Stmt::Variables => "Variables:\n      tenant: acme",
        Stmt::DataRow => "Data row:\n      source: customers\n      row: 0",
        Stmt::ClientBehavior => "Client behavior:\n  sampling:\n    text: deterministic response",
        Stmt::Extensions => {
            "Extensions:\n  functions: [./functions.js]\n  permissions: [environment]"
        }
        Stmt::RunStep => "Run step with:\n      tool:\n        name: add",
        _ => "Server options:\n  cwd: ./server",
    }
}

mod check;

/// The allowed range of a number that has one (the suite model's limits).
fn range_of(what: &str) -> Option<(i64, i64)> {
    match what {
        "percentile" => Some((1, 100)),
        "window size" => Some((1, 1000)),
        _ => None,
    }
}
