//! `mcpr fmt`: one canonical layout for `.mcpr` source, worked out on the located syntax tree
//! so that comments, flows and imports stay (the IR printer of [`super::print`] writes what a
//! compiled suite means and loses them).
//!
//! The layout (docs/fmt.md):
//!
//! - document statements at column 0, the bodies of tests, flows and data sources at two
//!   spaces, YAML blocks two spaces deeper than their opener, table rows likewise;
//! - keywords spelt as the statement table spells them (`call TOOL` → `Call tool`), one space
//!   between words, none before `:` and `,`; names, values and rest-of-line text as written,
//!   a single-quoted name in double quotes when it holds no quote;
//! - YAML blocks in block style through the printer's emitter ([`super::emit`]), unless they
//!   hold a comment or a block scalar (then re-indented as written);
//! - inline tables with padded columns and a separator row, as the printer writes them;
//! - one blank line before each `Test:`, `Flow:` and `Data source:` (and the comments right
//!   above it), runs of blank lines elsewhere made one, none at the start of a body or of the
//!   file, no trailing spaces, one newline at the end.
//!
//! [`format_source`] refuses a file with syntax errors, and proves its output: the formatted
//! text is parsed again and must give the same tree (positions and indentation aside) with
//! the same comments. A statement whose canonical spelling would not give it back is kept as
//! written.

use super::emit;
use crate::diagnostics::Diagnostic;
use crate::source::{SourceFile, Span};
use crate::syntax::token::{Tok, lex_line};
use crate::syntax::{self, DeclKind, Node, Stmt};
use serde_json::Value;
use std::collections::HashSet;

mod proof;

/// Why a file was not formatted.
#[derive(Debug, Clone)]
pub enum FormatError {
    /// The file has syntax errors (diagnostics of file 0, the text given); formatting
    /// would have to guess what the broken lines mean.
    Syntax(Vec<Diagnostic>),
    /// The file is not a `.mcpr` file (`.yaml`, `.yml`, `.json`, `.mcp`).
    NotMcpr(String),
    /// The layout could not be proven to keep the file's meaning (a formatter bug: the file
    /// is left as it is).
    Unproven(String),
}

impl std::fmt::Display for FormatError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FormatError::Syntax(d) => write!(
                f,
                "the file has {} syntax error{}; fix {} first (`mcpr check`)",
                d.len(),
                if d.len() == 1 { "" } else { "s" },
                if d.len() == 1 { "it" } else { "them" }
            ),
            FormatError::NotMcpr(path) => write!(
                f,
                "{path}: only MCP Test Language files (.mcpr) are formatted"
            ),
            FormatError::Unproven(why) => write!(
                f,
                "the formatted text would not mean the same ({why}); the file is left as it is"
            ),
        }
    }
}

impl std::error::Error for FormatError {}

/// The canonical layout of a `.mcpr` text. `path` names the file in diagnostics and picks
/// the format (a `.yaml`, `.yml`, `.json` or `.mcp` path is refused). Deterministic and
/// idempotent: `format_source(p, &format_source(p, t)?)` is the same text.
pub fn format_source(path: &str, text: &str) -> Result<String, FormatError> {
    let lower = path.to_ascii_lowercase();
    if [".yaml", ".yml", ".json", ".mcp"]
        .iter()
        .any(|e| lower.ends_with(e))
    {
        return Err(FormatError::NotMcpr(path.to_string()));
    }
    let file = SourceFile::new(path, text);
    let parsed = syntax::parse(&file, 0);
    let errors: Vec<Diagnostic> = parsed
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .cloned()
        .collect();
    if !errors.is_empty() {
        return Err(FormatError::Syntax(errors));
    }
    let want = proof::shape(&parsed.document, text);
    // Statements (by depth-first index) to keep as written: those whose canonical spelling
    // read back as something else.
    let mut verbatim: HashSet<usize> = HashSet::new();
    for _ in 0..4 {
        let out = Layout::new(&file, &verbatim).document(&parsed.document.nodes);
        let back = SourceFile::new(path, out.as_str());
        let again = syntax::parse(&back, 0);
        if let Some(d) = again.diagnostics.iter().find(|d| d.is_error()) {
            return Err(FormatError::Unproven(format!(
                "{} at byte {}",
                d.code.as_str(),
                d.span.start
            )));
        }
        let got = proof::shape(&again.document, &out);
        match proof::differing(&want, &got) {
            proof::Diff::Same => return Ok(out),
            proof::Diff::Statements(nodes) if !nodes.is_subset(&verbatim) => {
                verbatim.extend(nodes);
            }
            proof::Diff::Statements(_) => break,
            // A respelt line that changed the tree's shape: every statement as written.
            proof::Diff::Structure(_) if verbatim.len() < want.len() => {
                verbatim = (0..want.len()).collect();
            }
            proof::Diff::Structure(why) => return Err(FormatError::Unproven(why)),
        }
    }
    Err(FormatError::Unproven(
        "a statement reads back differently".into(),
    ))
}

/// The printer of one file.
struct Layout<'f> {
    file: &'f SourceFile,
    src: &'f str,
    out: String,
    /// Depth-first index of the node being printed.
    index: usize,
    verbatim: &'f HashSet<usize>,
}

impl<'f> Layout<'f> {
    fn new(file: &'f SourceFile, verbatim: &'f HashSet<usize>) -> Self {
        Layout {
            file,
            src: file.text(),
            out: String::with_capacity(file.text().len() + 64),
            index: 0,
            verbatim,
        }
    }

    /// The whole document: top-level nodes at column 0.
    fn document(mut self, nodes: &[Node]) -> String {
        // Whether each node is a comment of a run that stands right above a block header
        // (no blank line inside the run or before the header): it moves with the header.
        let mut attached = vec![false; nodes.len()];
        for i in (0..nodes.len().saturating_sub(1)).rev() {
            attached[i] = matches!(nodes[i].stmt, Stmt::Comment)
                && !self.blank_between(&nodes[i], &nodes[i + 1])
                && (opens_block(&nodes[i + 1]) || attached[i + 1]);
        }
        for (i, node) in nodes.iter().enumerate() {
            if i > 0 {
                let prev = &nodes[i - 1];
                let blank = if attached[i - 1] {
                    false
                } else if opens_block(node) || opens_block(prev) || attached[i] {
                    true
                } else {
                    self.blank_between(prev, node)
                };
                if blank {
                    self.out.push('\n');
                }
            }
            self.node(node, 0);
        }
        self.out
    }

    /// A body: its nodes at `indent`, blank lines where the source had some.
    fn body(&mut self, nodes: &[Node], indent: usize) {
        for (i, node) in nodes.iter().enumerate() {
            if i > 0 && self.blank_between(&nodes[i - 1], node) {
                self.out.push('\n');
            }
            self.node(node, indent);
        }
    }

    /// Whether the source has a blank line between two nodes of one sequence.
    fn blank_between(&self, prev: &Node, next: &Node) -> bool {
        let end = self
            .file
            .line_index(extent_end(prev).max(prev.span.start as usize));
        let start = self.file.line_index(next.span.start as usize);
        start > end + 1
    }

    fn node(&mut self, node: &Node, indent: usize) {
        let index = self.index;
        self.index += 1;
        let text = &self.src[node.span.range()];
        let line = match node.stmt {
            Stmt::Comment | Stmt::VersionHeader => text.to_string(),
            _ if self.verbatim.contains(&index) => text.to_string(),
            _ => canonical_line(text, node.span.start as usize, &node.stmt),
        };
        self.line(indent, &line);
        if let Some(yaml) = &node.yaml {
            self.yaml(node, yaml, indent);
        }
        if let Some(table) = &node.table {
            let header: Vec<String> = table.header.iter().map(|c| c.text.clone()).collect();
            let rows: Vec<Vec<String>> = table
                .rows
                .iter()
                .map(|r| r.iter().map(|c| c.text.clone()).collect())
                .collect();
            for l in super::print::table_lines(&header, &rows) {
                self.line(indent + 2, &l);
            }
        }
        if !node.children.is_empty() {
            self.body(&node.children, indent + 2);
        }
    }

    fn line(&mut self, indent: usize, text: &str) {
        self.out.extend(std::iter::repeat_n(' ', indent));
        self.out.push_str(text.trim_end());
        self.out.push('\n');
    }

    /// A YAML block under a line at `indent`: in block style when it holds no comment or
    /// block scalar and the emitted text reads back as the same value; otherwise its lines
    /// as written, moved as a whole to `indent + 2`.
    fn yaml(&mut self, node: &Node, yaml: &syntax::YamlBlock, indent: usize) {
        if yaml.span.is_empty() {
            return;
        }
        let first = self.file.line_index(yaml.span.start as usize);
        let last = self.file.line_index(yaml.span.end as usize);
        let lines: Vec<&str> = (first..=last).map(|i| self.file.line_text(i)).collect();
        let keep = lines.iter().any(|l| l.contains('#') || block_scalar(l));
        if !keep && let Some(value) = &yaml.value {
            let mut out = String::new();
            match value {
                Value::Object(m) => emit::mapping(&mut out, m, indent + 2),
                Value::Array(a) if matches!(node.stmt, Stmt::ForEachRow) => {
                    emit::sequence(&mut out, a, indent + 2)
                }
                _ => {}
            }
            if !out.is_empty() && reads_back(&out, indent + 2, value) {
                self.out.push_str(&out);
                return;
            }
        }
        let lead = |l: &str| l.len() - l.trim_start_matches(' ').len();
        let base = lines
            .iter()
            .filter(|l| !l.trim().is_empty())
            .map(|l| lead(l))
            .min()
            .unwrap_or(0);
        let moved = |trim: bool| {
            let mut out = String::new();
            for l in &lines {
                if l.trim().is_empty() {
                    out.push('\n');
                    continue;
                }
                out.extend(std::iter::repeat_n(' ', indent + 2 + lead(l) - base));
                let rest = &l[lead(l)..];
                out.push_str(if trim { rest.trim_end() } else { rest });
                out.push('\n');
            }
            out
        };
        let trimmed = moved(true);
        let out = match &yaml.value {
            Some(v) if !reads_back(&trimmed, indent + 2, v) => moved(false),
            _ => trimmed,
        };
        self.out.push_str(&out);
    }
}

/// Whether YAML lines indented by `indent` read back as `value`, as the parser reads them.
fn reads_back(text: &str, indent: usize, value: &Value) -> bool {
    let mut plain = String::with_capacity(text.len());
    for l in text.lines() {
        let cut = indent.min(l.len() - l.trim_start_matches(' ').len());
        plain.push_str(&l[cut..]);
        plain.push('\n');
    }
    crate::yaml::parse(&plain).is_ok_and(|v| v == *value)
}

/// Whether a YAML line opens a block scalar (`key: |`, `- >-`).
fn block_scalar(line: &str) -> bool {
    let t = line
        .trim_end()
        .trim_end_matches(|c: char| c == '-' || c == '+' || c.is_ascii_digit());
    (t.ends_with('|') || t.ends_with('>'))
        && (t.len() == 1 || t[..t.len() - 1].ends_with([' ', ':', '-']))
}

/// Whether a node is a `Test:`, `Flow:` or `Data source:` header.
fn opens_block(node: &Node) -> bool {
    node.decl_kind() == DeclKind::BlockHeader
}

/// The last byte of a node with everything below it.
fn extent_end(node: &Node) -> usize {
    let mut end = node.span.end as usize;
    if let Some(y) = &node.yaml {
        end = end.max(y.span.end as usize);
    }
    if let Some(t) = &node.table {
        end = end.max(t.span.end as usize);
    }
    if let Some(last) = node.children.last() {
        end = end.max(extent_end(last));
    }
    end
}

/// Words the statement table spells with capitals where they are not first.
const SPELLED: &[&str] = &[
    "MCP", "URL", "ID", "CSV", "REST", "JSON", "YAML", "Excel", "I",
];

/// The canonical spelling of one statement line (`text`, starting at byte `base` of the
/// file): keywords as the table spells them, single spaces, names and values as written.
fn canonical_line(text: &str, base: usize, stmt: &Stmt) -> String {
    let mut toks = Vec::new();
    lex_line(text, base, &mut toks);
    // What the statement holds (names, values, rest-of-line text, numbers, durations),
    // widened to whole tokens: written as is.
    let mut spans = Vec::new();
    if let Ok(v) = serde_json::to_value(stmt) {
        collect_spans(&v, &mut spans);
    }
    let mut regions: Vec<(usize, usize)> = Vec::new();
    for s in spans {
        let (a, b) = (s.start as usize, s.end as usize);
        let covered: Vec<_> = toks
            .iter()
            .filter(|(_, sp)| {
                if a == b {
                    sp.start <= a && a < sp.end
                } else {
                    sp.start < b && a < sp.end
                }
            })
            .collect();
        if let (Some(f), Some(l)) = (covered.first(), covered.last()) {
            regions.push((f.1.start.min(a), l.1.end.max(b)));
        }
    }
    regions.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for r in regions {
        match merged.last_mut() {
            Some(last) if r.0 < last.1 => last.1 = last.1.max(r.1),
            _ => merged.push(r),
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut prev: Option<Piece> = None;
    let mut first_word = true;
    let mut i = 0;
    while i < toks.len() {
        let (tok, sp) = toks[i];
        let (piece, written) =
            if let Some(&(a, b)) = merged.iter().find(|(a, b)| *a <= sp.start && sp.start < *b) {
                while i + 1 < toks.len() && toks[i + 1].1.start < b {
                    i += 1;
                }
                let raw = &text[a - base..b - base];
                first_word = false;
                (Piece::Value, requote(raw, &tok))
            } else {
                match tok {
                    Tok::Colon => (Piece::Colon, ":".to_string()),
                    Tok::Comma => (Piece::Comma, ",".to_string()),
                    Tok::Equals => (Piece::Equals, "=".to_string()),
                    Tok::Word(w) => {
                        let w = spell(w, first_word);
                        first_word = false;
                        (Piece::Word, w)
                    }
                    Tok::Pipe | Tok::DoubleQuoted(_) | Tok::SingleQuoted(_) | Tok::Error(_) => {
                        first_word = false;
                        (
                            Piece::Word,
                            text[sp.start - base..sp.end - base].to_string(),
                        )
                    }
                }
            };
        let space = match (prev, piece) {
            (None, _) => false,
            (_, Piece::Colon | Piece::Comma | Piece::Equals) => false,
            (Some(Piece::Equals), _) => false,
            _ => true,
        };
        if space {
            out.push(' ');
        }
        out.push_str(&written);
        prev = Some(piece);
        i += 1;
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Piece {
    Word,
    Value,
    Colon,
    Comma,
    Equals,
}

/// A keyword as the statement table spells it: the first word of the line capitalised,
/// the others in lower case, except [`SPELLED`] (of which only `MCP` comes first); a word with anything but letters stays as
/// written.
fn spell(word: &str, first: bool) -> String {
    if !word.chars().all(char::is_alphabetic) {
        return word.to_string();
    }
    // `MCP URL:` is the only form whose first word is not capitalised; `Id:` opens a form
    // while `ID` is spelt in capitals after `Test`.
    let spelled = if first { &SPELLED[..1] } else { SPELLED };
    if let Some(s) = spelled.iter().find(|s| s.eq_ignore_ascii_case(word)) {
        return s.to_string();
    }
    let lower = word.to_lowercase();
    if first {
        let mut c = lower.chars();
        c.next()
            .map(|f| f.to_uppercase().chain(c).collect())
            .unwrap_or_default()
    } else {
        lower
    }
}

/// A value region as written, except a single-quoted name that holds no quote, which is
/// written in double quotes.
fn requote(raw: &str, tok: &Tok<'_>) -> String {
    if let Tok::SingleQuoted(q) = tok
        && *q == raw
        && raw.len() >= 2
        && !raw[1..raw.len() - 1].contains(['"', '\''])
    {
        return format!("\"{}\"", &raw[1..raw.len() - 1]);
    }
    raw.to_string()
}

/// Every `{start, end}` byte span in a serialised statement.
fn collect_spans(v: &Value, out: &mut Vec<Span>) {
    match v {
        Value::Object(m) => {
            if m.len() == 2
                && let (Some(s), Some(e)) = (
                    m.get("start").and_then(Value::as_u64),
                    m.get("end").and_then(Value::as_u64),
                )
            {
                out.push(Span::new(s as usize, e.max(s) as usize));
                return;
            }
            m.values().for_each(|x| collect_spans(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| collect_spans(x, out)),
        _ => {}
    }
}
