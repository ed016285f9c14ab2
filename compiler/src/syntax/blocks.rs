//! What follows a statement line: YAML blocks, YAML row lists and inline tables.

use super::recognise::opener_usage;
use super::tree::*;
use super::{Line, LineKind, Parser};
use crate::diagnostics::Problem;
use crate::diagnostics::problem::{AliasKind, TableProblem};
use crate::source::Span;

impl<'p, 'a, 's: 'a> Parser<'p, 'a, 's> {
    /// Counts the values of a parsed block against the file's budget. Once this part's blocks
    /// have passed it, later values are not kept (the memory of a hostile file stays bounded);
    /// the block that passes it is kept so [`yaml_budget`] finds the crossing in file order.
    /// A block at or after [`Parser::drop_from`] keeps no value and is not counted.
    fn within_budget(&mut self, value: serde_json::Value, span: Span) -> Option<serde_json::Value> {
        if self.yaml_nodes > self.yaml_budget || self.dropped(span) {
            return None;
        }
        let values = crate::yaml::node_count(&value);
        self.yaml_nodes += values;
        self.share(values, false, span);
        Some(value)
    }

    /// A block that alone holds more values than the file may.
    fn over_budget(&mut self, span: Span) -> YamlBlock {
        if self.dropped(span) {
            return YamlBlock::new(span, None);
        }
        self.share(0, true, span);
        YamlBlock {
            span,
            value: None,
            over_budget: true,
        }
    }

    /// Whether the block at `span` lies past the place where the file's YAML passed its
    /// budget ([`super::Outline::cut_at_budget`]).
    fn dropped(&self, span: Span) -> bool {
        self.drop_from.is_some_and(|at| span.start as usize >= at)
    }

    /// Counts a block's values in the file's shared budget, when test bodies are parsed one
    /// at a time ([`super::parse_tests`]), and stops parsing once the file has passed it.
    fn share(&mut self, values: usize, over: bool, span: Span) {
        if let Some(budget) = self.shared_budget {
            budget.count(values, over, span);
            if budget.passed() {
                self.pos = self.lines.len();
            }
        }
    }

    /// Takes the lines indented deeper than `opener` (trailing blank lines stay), returning
    /// their range of line indexes.
    pub(super) fn take_block(&mut self, opener: &Line) -> (usize, usize) {
        let start = self.pos;
        let mut end = start;
        let mut last_text = start;
        while end < self.lines.len() {
            let l = &self.lines[end];
            if !l.is_blank() {
                if l.indent(self.src) <= opener.indent(self.src) {
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
    pub(super) fn yaml_block(&mut self, opener: &Line, node: &Node) -> Option<YamlBlock> {
        let (start, end) = self.take_block(opener);
        if start == end {
            if node.stmt.allows_empty_block() {
                return Some(YamlBlock::new(
                    Span::at(opener.span.end as usize),
                    Some(serde_json::json!({})),
                ));
            }
            let usage = opener_usage(&node.stmt);
            self.report(Problem::MissingBlock { opener: usage }, node.span);
            return None;
        }
        self.parse_yaml_lines(start, end, opener.indent(self.src) + 2, node.span)
    }

    /// Parses lines `start..end` as one YAML mapping, removing `strip` leading
    /// spaces per line; maps YAML errors back to file positions.
    pub(super) fn parse_yaml_lines(
        &mut self,
        start: usize,
        end: usize,
        strip: u32,
        owner: Span,
    ) -> Option<YamlBlock> {
        let first = self.lines[start].span.start as usize;
        let last = self.lines[end - 1].span.end as usize;
        let span = Span::new(first, last);
        let _ = owner;
        // A flat block is read from the file's lines; the others from their text.
        let src = self.src;
        let lines = self.lines[start..end]
            .iter()
            .map(|l| &src[l.span.start as usize + cut(l, strip, src)..l.span.end as usize]);
        let parsed = match crate::yaml::flat_lines(lines, end - start, self.yaml_budget) {
            Some(parsed) => parsed,
            None => match self.parse_text((start, end, strip), crate::yaml::parse_full_within) {
                Some(parsed) => parsed,
                None => return Some(YamlBlock::new(span, None)),
            },
        };
        match parsed {
            Ok(value) => {
                if value.is_object() {
                    return Some(YamlBlock::new(span, self.within_budget(value, span)));
                }
                let found = match &value {
                    serde_json::Value::Array(_) => "a list",
                    serde_json::Value::Null => "empty",
                    _ => "a single value",
                };
                let body = Span::new(self.lines[start].trimmed.start as usize, last);
                self.report(Problem::BlockNotMapping { found }, body);
                Some(YamlBlock::new(span, None))
            }
            Err(e) if e.too_many_values => Some(self.over_budget(span)),
            Err(e) => {
                let at = self.yaml_position(start, end, strip, e.line, e.column);
                // A line with odd indentation already has its diagnostic; the
                // YAML error it causes would report the same line twice.
                let culprit = self.file.line_index(at.start as usize);
                let odd = culprit
                    .checked_sub(self.base)
                    .and_then(|i| self.lines.get(i))
                    .is_some_and(|l| l.indent(self.src) % 2 == 1);
                if !odd {
                    self.report(Problem::Yaml { message: e.message }, at);
                }
                Some(YamlBlock::new(span, None))
            }
        }
    }

    /// Parses the text of lines `start..end` (each without its first `strip` spaces) with
    /// `parse`; `None` when it holds anchors or aliases, each reported where it stands.
    fn parse_text(
        &mut self,
        (start, end, strip): (usize, usize, u32),
        parse: fn(&str, usize) -> Result<serde_json::Value, crate::yaml::YamlError>,
    ) -> Option<Result<serde_json::Value, crate::yaml::YamlError>> {
        let text = self.block_text(start, end, strip);
        let parsed = parse(&text, self.yaml_budget);
        if parsed.as_ref().is_err_and(|e| e.anchors) {
            self.refuse_anchors(start, end, strip, &text);
            self.give_back(text);
            return None;
        }
        self.give_back(text);
        Some(parsed)
    }

    /// Reports every anchor and alias of a block's YAML (MCPLANG606, as in YAML suites),
    /// whose parse stopped at the first one (it never expands an alias).
    fn refuse_anchors(&mut self, start: usize, end: usize, strip: u32, text: &str) {
        let found = crate::yaml::anchors(text);
        for a in &found {
            let at = |byte: usize| {
                let before = &text[..byte];
                let line = before.matches('\n').count() as u32 + 1;
                let from = before.rfind('\n').map_or(0, |i| i + 1);
                let column = before[from..].chars().count() as u32 + 1;
                (line, column)
            };
            let (l0, c0) = at(a.span.start as usize);
            let first = self.yaml_position(start, end, strip, l0, c0);
            let chars = text[a.span.range()].chars().count() as u32;
            let last = self.yaml_position(start, end, strip, l0, c0 + chars.max(1) - 1);
            let what = if a.alias {
                AliasKind::Alias
            } else {
                AliasKind::Anchor
            };
            self.report(
                Problem::YamlAlias {
                    what,
                    name: a.name.clone(),
                },
                Span::new(first.start as usize, last.end.max(first.end) as usize),
            );
        }
    }

    /// The YAML text of lines `start..end`, each without its first `strip` spaces (see
    /// [`cut`]), in the parser's reused buffer (made at its length: a block of half a
    /// million lines is held while its values are made).
    fn block_text(&mut self, start: usize, end: usize, strip: u32) -> String {
        let src = self.file.text();
        let lines = &self.lines[start..end];
        let mut text = std::mem::take(&mut self.yaml_text);
        text.clear();
        text.reserve(
            lines
                .iter()
                .map(|l| l.span.len() - cut(l, strip, src) + 1)
                .sum(),
        );
        for l in lines {
            text.push_str(&src[l.span.start as usize + cut(l, strip, src)..l.span.end as usize]);
            text.push('\n');
        }
        text
    }

    /// Keeps a block's text buffer for the next block, unless it grew large.
    fn give_back(&mut self, text: String) {
        if text.capacity() <= 64 << 10 {
            self.yaml_text = text;
        }
    }

    /// Maps a YAML (line, character column) inside a block whose lines lost their first
    /// `strip` spaces to a file span.
    pub(super) fn yaml_position(
        &self,
        start: usize,
        end: usize,
        strip: u32,
        line: u32,
        column: u32,
    ) -> Span {
        let idx = (line.max(1) as usize - 1).min(end - start - 1);
        let l = &self.lines[start + idx];
        let src = self.file.text();
        let line_text = &src[l.span.range()];
        let removed = cut(l, strip, src);
        let mut byte = l.span.start as usize + removed;
        let chars_in = column.saturating_sub(1) as usize;
        for (n, (i, _)) in line_text[removed..].char_indices().enumerate() {
            byte = l.span.start as usize + removed + i;
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
    pub(super) fn rows_in_yaml(&self, opener: &Line) -> bool {
        self.lines[self.pos..]
            .iter()
            .find(|l| !l.is_blank())
            .is_some_and(|l| {
                let t = self.text(l.trimmed);
                l.kind(self.src) == LineKind::Text
                    && l.indent(self.src) > opener.indent(self.src)
                    && (t == "-" || t.starts_with("- "))
            })
    }

    /// The YAML list of rows after `For each row:`: every item a non-empty mapping.
    pub(super) fn yaml_rows(&mut self, opener: &Line) -> Option<YamlBlock> {
        let (start, end) = self.take_block(opener);
        let strip = opener.indent(self.src) + 2;
        let span = Span::new(
            self.lines[start].span.start as usize,
            self.lines[end - 1].span.end as usize,
        );
        let Some(parsed) = self.parse_text((start, end, strip), crate::yaml::parse_within) else {
            return Some(YamlBlock::new(span, None));
        };
        match parsed {
            Ok(serde_json::Value::Array(rows))
                if !rows.is_empty()
                    && rows
                        .iter()
                        .all(|r| r.as_object().is_some_and(|m| !m.is_empty())) =>
            {
                Some(YamlBlock::new(
                    span,
                    self.within_budget(serde_json::Value::Array(rows), span),
                ))
            }
            Ok(_) => {
                let body = Span::new(self.lines[start].trimmed.start as usize, span.end as usize);
                self.report(
                    Problem::MalformedTable {
                        problem: TableProblem::RowsNotMappings,
                    },
                    body,
                );
                Some(YamlBlock::new(span, None))
            }
            Err(e) if e.too_many_values => Some(self.over_budget(span)),
            Err(e) => {
                let at = self.yaml_position(start, end, strip, e.line, e.column);
                self.report(Problem::Yaml { message: e.message }, at);
                Some(YamlBlock::new(span, None))
            }
        }
    }

    /// Collects the inline table after `For each row:`.
    pub(super) fn table(&mut self, opener: &Line) -> Option<Table> {
        let mut rows: Vec<(Span, Vec<Cell>)> = Vec::new();
        let mut ok = true;
        while self.pos < self.lines.len() {
            let l = self.lines[self.pos].clone();
            if l.kind(self.src) != LineKind::Text || !self.text(l.trimmed).starts_with('|') {
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

/// A Markdown separator row such as `|---|:--:|`.
fn is_separator(text: &str) -> bool {
    let inner = text.trim_matches('|');
    !inner.is_empty()
        && inner.split('|').all(|c| {
            let c = c.trim();
            !c.is_empty() && c.trim_matches(':').chars().all(|ch| ch == '-') && c.contains('-')
        })
}

/// Checks the YAML blocks of a whole file against its budget of `limit` values, in file
/// order (so the result does not depend on how the file was cut for parsing): the block
/// where the count passes the limit gets MCPLANG609, and it and every later block lose their
/// values (as an invalid block does; lowering says nothing more about them).
pub(super) fn yaml_budget(
    doc: &mut Document,
    text: &str,
    file_id: usize,
    limit: usize,
) -> Option<crate::diagnostics::Diagnostic> {
    fn walk(nodes: &mut [Node], count: &mut usize, limit: usize, crossed: &mut Option<Span>) {
        for node in nodes {
            if let Some(block) = node.yaml.as_deref_mut() {
                if crossed.is_some() {
                    block.value = None;
                } else if block.over_budget {
                    *crossed = Some(block.span);
                } else if let Some(v) = &block.value {
                    *count += crate::yaml::node_count(v);
                    if *count > limit {
                        *crossed = Some(block.span);
                        block.value = None;
                    }
                }
            }
            walk(&mut node.children, count, limit, crossed);
        }
    }
    let mut count = 0;
    let mut crossed = None;
    walk(&mut doc.nodes, &mut count, limit, &mut crossed);
    crossed.map(|span| too_many_values(text, file_id, span, limit))
}

/// MCPLANG609 at the block at `span`, where the file's YAML passes its budget of `limit`
/// values: at the block's first key (or its first line), without the indentation.
pub(super) fn too_many_values(
    text: &str,
    file_id: usize,
    span: Span,
    limit: usize,
) -> crate::diagnostics::Diagnostic {
    let start = span.start as usize;
    let line = &text[start..span.end as usize];
    let line = &line[..line.find('\n').unwrap_or(line.len())];
    let lead = line.len() - line.trim_start().len();
    let end = line.find(": ").map_or(line.trim_end().len(), |i| i + 1);
    let at = Span::new(start + lead, start + end.max(lead));
    crate::diagnostics::Diagnostic::new(Problem::YamlTooLarge { limit }, file_id, at)
}

/// How many leading spaces of block line `l` its YAML text leaves out: `strip`, or all of
/// them when it has fewer (a blank line may have fewer than its block's indent, or none).
fn cut(l: &Line, strip: u32, src: &str) -> usize {
    (strip.min(l.lead(src)) as usize).min(l.span.len())
}
