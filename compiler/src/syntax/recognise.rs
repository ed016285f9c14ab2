//! Statements: recognising the statement on each line, checking its values and where it
//! stands, and walking the bodies of tests, flows and data sources.

use super::grammar::{self, LineResult};
use super::outline::OutlinedTest;
use super::token::Tok;
use super::tree::*;
use super::{Context, Line, LineKind, Parser};
use super::{statements, vocab};
use crate::diagnostics::problem::{DurationProblem, TableProblem};
use crate::diagnostics::{Diagnostic, Problem};
use crate::source::Span;
use chumsky::span::SimpleSpan;

impl<'p, 'a, 's: 'a> Parser<'p, 'a, 's> {
    pub(super) fn report(&mut self, problem: Problem, span: Span) {
        self.diags
            .push(Diagnostic::new(problem, self.file_id, span));
    }

    pub(super) fn text(&self, span: Span) -> &'p str {
        &self.file.text()[span.range()]
    }

    /// The whole document: top-level lines and blocks.
    pub(super) fn document(&mut self) -> Vec<Node> {
        // An outline keeps no comment but one that would be its first node (the first
        // node of a document is where a file without tests is reported): nothing `check`
        // does reads them, and a file of comments would otherwise hold a node for each.
        let kept = |l: &Line| match l.kind(self.src) {
            LineKind::Blank => false,
            LineKind::Comment => !self.defer_tests && l.indent(self.src) == 0,
            LineKind::Text => l.indent(self.src) == 0,
        };
        // At most one node per column-0 line (the rest belong to blocks), and an outline's
        // first comment. An outline keeps its tests apart: their list is made at that size,
        // and the nodes (its settings and flows, a few) grow as they come.
        let top = self.lines[self.pos..].iter().filter(|l| kept(l)).count();
        let mut nodes = if self.defer_tests {
            self.tests.reserve_exact(top);
            Vec::new()
        } else {
            Vec::with_capacity(top)
        };
        while self.pos < self.lines.len() {
            let line = self.lines[self.pos].clone();
            match line.kind(self.src) {
                LineKind::Blank => self.pos += 1,
                LineKind::Comment => {
                    if !self.defer_tests || nodes.is_empty() {
                        nodes.push(simple(Stmt::Comment, &line, self.src));
                    }
                    self.pos += 1;
                }
                LineKind::Text => {
                    let node = self.statement(&line, Context::Document);
                    // An outline keeps its tests apart, in a few bytes when the body was
                    // left out.
                    if self.defer_tests && matches!(node.stmt, Stmt::TestHeader { .. }) {
                        let test = match self.deferred.take() {
                            Some(body) => OutlinedTest::left_out(node, body),
                            None => OutlinedTest::Parsed(Box::new(node)),
                        };
                        self.tests.push(test);
                    } else if !(self.defer_tests && !nodes.is_empty() && self.left_out(&node)) {
                        nodes.push(node);
                    }
                }
            }
        }
        if self.defer_tests {
            nodes.shrink_to_fit();
        }
        nodes
    }

    /// Whether an outline may leave out `node`, a column-0 statement: a broken line that
    /// owns nothing (no block, table or body) and is no broken test header. Its problem is
    /// reported as it is parsed, and nothing `check` does later reads it (a file of broken
    /// lines would otherwise hold a node for each).
    fn left_out(&self, node: &Node) -> bool {
        if !broken_alone(node) {
            return false;
        }
        let head = self.src[node.span.range()]
            .trim_start()
            .to_ascii_lowercase();
        !(head.starts_with("test") || head.starts_with("scenario"))
    }

    /// Parses the statement on `line` (the cursor is on it), then whatever
    /// belongs to it: a block body, a YAML block or a table.
    pub(super) fn statement(&mut self, line: &Line, ctx: Context) -> Node {
        self.pos += 1;
        let mut node = self.recognise(line, ctx);
        let kind = node.decl_kind();
        if kind == DeclKind::BlockHeader {
            if line.indent(self.src) > 0 || ctx != Context::Document {
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
                Stmt::TestHeader { .. } if self.defer_tests => match self.skip_body() {
                    Some(lines) => self.deferred = Some(lines),
                    None => node.children = self.body(Context::Test),
                },
                Stmt::TestHeader { .. } => node.children = self.body(Context::Test),
                Stmt::FlowHeader { .. } => match self.long_flows {
                    Some((long, limit)) if self.body_lines() >= long.from_lines => {
                        self.long_flow(&mut node, long, limit)
                    }
                    _ => node.children = self.body(Context::Flow),
                },
                Stmt::DataSourceHeader { .. } => self.data_source_body(&mut node),
                _ => {}
            }
            return node;
        }
        if matches!(node.stmt, Stmt::Error)
            && ctx == Context::Document
            && line.indent(self.src) == 0
        {
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
        } else if matches!(node.stmt, Stmt::Error) && opens_block(self.text(line.trimmed)) {
            // A broken line that ends in `with:` still owns its block: its lines are not
            // statements, and one mistake is reported once.
            self.take_block(line);
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
    pub(super) fn recognise(&mut self, line: &Line, ctx: Context) -> Node {
        let text = self.text(line.trimmed);
        // The version header is compared exactly; any other `MCP Test …`
        // line (other version, other case) is MCPLANG103.
        if text.len() > 8
            && text.is_char_boundary(8)
            && text[..8].eq_ignore_ascii_case("mcp test")
            && text[8..].starts_with(char::is_whitespace)
        {
            if text == "MCP Test 1" {
                return simple(Stmt::VersionHeader, line, self.src);
            }
            let at = line.trimmed.start as usize;
            self.report(
                Problem::VersionHeader {
                    found: text.to_string(),
                },
                Span::new(at, at + 1),
            );
            return simple(Stmt::Error, line, self.src);
        }
        if text.starts_with('|') {
            self.report(
                Problem::MalformedTable {
                    problem: TableProblem::Stray,
                },
                line.trimmed,
            );
            return simple(Stmt::Error, line, self.src);
        }
        let toks = self.lex(line);
        match self.grammar.parse(toks, line.trimmed.end as usize) {
            LineResult::Ok(stmt) => {
                let node = simple(stmt, line, self.src);
                self.check_values(&node.stmt);
                self.check_meaning(&node.stmt, toks);
                node
            }
            LineResult::Unknown => {
                if let Some(sp) = unclosed_quote(toks) {
                    let q = self.text(sp).chars().next().unwrap_or('"');
                    self.report(Problem::UnclosedQuote { quote: q }, sp);
                } else {
                    // Its diagnostic, with a suggestion, is made when the file's unknown
                    // lines are settled in file order (`vocab::Suggestions::settle`).
                    self.unknown.push(vocab::Unknown {
                        span: line.trimmed,
                        vocabulary: if ctx == Context::DataSource {
                            statements::Vocabulary::DataPhrases
                        } else {
                            statements::Vocabulary::Statements
                        },
                        context: ctx.describe(),
                    });
                }
                simple(Stmt::Error, line, self.src)
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
                    // `Expect it fails` is closest to `Expect it succeeds` but means the
                    // opposite: point at the form that says it.
                    let failing = ["fails", "fail", "failed", "errors"]
                        .iter()
                        .any(|w| self.text(span).eq_ignore_ascii_case(w));
                    let (usage, expected) = if usage == "Expect it succeeds" && failing {
                        let word = self.text(span);
                        let said = format!("`{word}`: a failing call is expected with `an error`");
                        ("Expect an error", said)
                    } else {
                        (usage, expected)
                    };
                    self.report(Problem::MalformedStatement { usage, expected }, caret);
                }
                simple(Stmt::Error, line, self.src)
            }
        }
    }

    /// Reports durations and numbers that parsed as words but are invalid.
    pub(super) fn check_values(&mut self, stmt: &Stmt) {
        let mut durations = Vec::new();
        let mut numbers: Vec<(&Number, &'static str)> = Vec::new();
        match stmt {
            Stmt::DefaultTimeout { duration }
            | Stmt::ShutdownGrace { duration }
            | Stmt::WaitUpTo { duration }
            | Stmt::Fault {
                fault: FaultPhrase::Delay(duration),
            }
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
            Stmt::Retries { count } | Stmt::DefaultRetries { count } => {
                numbers.push((count, "retry count"))
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
    pub(super) fn check_placement(&mut self, node: &Node, line: &Line, ctx: Context) {
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
    pub(super) fn body(&mut self, ctx: Context) -> Vec<Node> {
        self.body_part(ctx, usize::MAX)
    }

    /// The next `most` statements (and comments) of a body at most; the rest of the body is
    /// read from where the part ends ([`Parser::pos`]), by this parser or another.
    pub(super) fn body_part(&mut self, ctx: Context, most: usize) -> Vec<Node> {
        // At most one node per line up to the next column-0 line: sized once, where
        // growing would move every node of the body several times.
        let lines = self.lines[self.pos..]
            .iter()
            .take_while(|l| l.is_blank() || l.indent(self.src) > 0)
            .filter(|l| !l.is_blank())
            .take(most)
            .count();
        let mut nodes = Vec::with_capacity(lines);
        while self.pos < self.lines.len() && nodes.len() < most {
            let line = self.lines[self.pos].clone();
            match line.kind(self.src) {
                LineKind::Blank => self.pos += 1,
                _ if line.indent(self.src) == 0 => break,
                LineKind::Comment => {
                    nodes.push(simple(Stmt::Comment, &line, self.src));
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

    /// How many lines the body from here takes (blank or indented).
    pub(super) fn body_lines(&self) -> usize {
        self.lines[self.pos..]
            .iter()
            .take_while(|l| l.is_blank() || l.indent(self.src) > 0)
            .count()
    }

    /// Moves past the lines [`Parser::body`] would take, without parsing them, and returns
    /// them (as lines of the file); `None`, without moving, when the body is followed by a
    /// column-0 line that opens with `|`: a table row the body may take (after `For each
    /// row:`) or leave, which only parsing the body tells.
    pub(super) fn skip_body(&mut self) -> Option<std::ops::Range<usize>> {
        let start = self.pos;
        let mut end = start;
        while self
            .lines
            .get(end)
            .is_some_and(|l| l.is_blank() || l.indent(self.src) > 0)
        {
            end += 1;
        }
        if self
            .lines
            .get(end)
            .is_some_and(|l| self.text(l.trimmed).starts_with('|'))
        {
            return None;
        }
        self.pos = end;
        Some(self.base + start..self.base + end)
    }

    /// Body of a `Data source:` block: phrases, or one YAML mapping.
    pub(super) fn data_source_body(&mut self, header: &mut Node) {
        let start = self.pos;
        let mut end = start;
        while end < self.lines.len()
            && (self.lines[end].is_blank() || self.lines[end].indent(self.src) > 0)
        {
            end += 1;
        }
        let phrase_mode = self.lines[start..end].iter().any(|l| {
            l.kind(self.src) == LineKind::Text && {
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
        if phrase_mode
            && let Some((long, _)) = self
                .long_flows
                .filter(|(long, _)| end - start >= long.from_lines)
        {
            // An outline parses a long body in parts, each lexed into tokens of its own, and
            // keeps no broken line that owns nothing (reported as it is parsed).
            let (mut kept, mut diags, mut unknown) =
                (Vec::new(), self.diags.empty_like(), Vec::new());
            self.body_in_parts(Context::DataSource, long.part, |nodes, d, mut u| {
                diags.append(d);
                unknown.append(&mut u);
                kept.extend(nodes.into_iter().filter(|n| !broken_alone(n)));
                true
            });
            self.diags.append(diags);
            self.unknown.append(&mut unknown);
            header.children = kept;
        } else if phrase_mode {
            let mut nodes = Vec::new();
            while self.pos < end {
                let line = self.lines[self.pos].clone();
                match line.kind(self.src) {
                    LineKind::Blank => self.pos += 1,
                    LineKind::Comment => {
                        nodes.push(simple(Stmt::Comment, &line, self.src));
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
            while end > start && self.lines[end - 1].is_blank() {
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
}

/// Whether a line's text ends in `with:` (any case, spaces before the colon allowed).
fn opens_block(text: &str) -> bool {
    let Some(head) = text.strip_suffix(':') else {
        return false;
    };
    let head = head.trim_end();
    head.len() >= 4
        && head.is_char_boundary(head.len() - 4)
        && head[head.len() - 4..].eq_ignore_ascii_case("with")
        && head[..head.len() - 4].ends_with(char::is_whitespace)
}

/// A node for one line with no block or table.
pub(super) fn simple(stmt: Stmt, line: &Line, src: &str) -> Node {
    Node {
        stmt,
        span: line.trimmed,
        indent: line.indent(src),
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

/// Usage shown when a block opener has no block.
pub(super) fn opener_usage(stmt: &Stmt) -> &'static str {
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

/// The allowed range of a number that has one (the suite model's limits).
fn range_of(what: &str) -> Option<(i64, i64)> {
    match what {
        "percentile" => Some((1, 100)),
        "window size" => Some((1, 1000)),
        "row count" => Some((1, i64::MAX)),
        "retry count" => Some((0, 100)),
        _ => None,
    }
}

/// A broken line that owns nothing: no block, table or body.
fn broken_alone(node: &Node) -> bool {
    matches!(node.stmt, Stmt::Error)
        && node.children.is_empty()
        && node.yaml.is_none()
        && node.table.is_none()
}
