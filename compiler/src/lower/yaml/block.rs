//! The located tree of an ordinary block-style YAML suite, read line by line.
//!
//! Programs that write large suites write YAML the plain way: block mappings and sequences
//! indented with spaces, one-line scalars (plain, single- or double-quoted) and one-line
//! flow collections. The YAML parser reads such a document correctly, but most of its time
//! goes into the rules such a document never uses, so YAML suites checked at a quarter of
//! the speed of `.mcpr` files. This reader takes that plain form line by line and hands
//! each value to the same tree builder as the parser's events ([`super::events::Builder`]),
//! with the spans that parser gives them, so the tree, its spans and every budget are the
//! same. It answers `None` for anything whose reading it does not know to be the same, and
//! the document is then read by the parser as before: a tab, a carriage return, a byte
//! order mark or a character YAML does not print anywhere in the text; a directive, a
//! document marker, an anchor, an alias or a tag; a block scalar (`|`, `>`), a scalar or a
//! flow collection continued on the next line; an explicit key (`?`); a `-` with nothing
//! after it on its line; an escape JSON does not have; a key too long for YAML to see as a
//! key; and what the builder refuses (a repeated key, a budget passed). A test reads every
//! YAML text of the repository, awkward forms and random documents both ways and compares
//! the trees, spans included.

use super::events::{Builder, max_events};
use super::tree::Node;
use crate::source::Span;
use serde_saphyr::granit_parser::ScalarStyle;

/// The tree of the block-style YAML `text` holding at most `nodes` values, or `None` (see
/// the module).
pub(super) fn read(text: &str, nodes: usize) -> Option<Node> {
    if !plain_characters(text) {
        return None;
    }
    let budget = serde_saphyr::budget::Budget::default();
    let mut reader = Reader {
        text,
        bytes: text.as_bytes(),
        builder: Builder::new(nodes),
        // The stream and document starts are the parser's first two events.
        events: 2,
        max_events: max_events(nodes),
        max_flow_depth: budget.flow_nesting_limit,
        max_key: budget.simple_key_max_lookahead,
        open: Vec::new(),
        pending: None,
        rooted: false,
    };
    let mut start = 0;
    while start < text.len() {
        let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        reader.line(start, end)?;
        start = end + 1;
    }
    reader.finish()
}

/// Whether every character is one this reader takes as it stands: no tab, carriage return
/// or other control character but the line feed, and nothing YAML does not print.
fn plain_characters(text: &str) -> bool {
    text.bytes().all(|b| b >= 0x20 && b != 0x7f || b == b'\n')
        && (text.is_ascii() || text.chars().all(super::json::printable))
}

/// A block collection being read: the column of its keys or dashes, whether it is a
/// mapping, and whether it is a sequence at its mapping's own column (`key:` then `- …`).
struct Block {
    column: usize,
    map: bool,
    indentless: bool,
}

/// A key read without a value on its line: the column of its mapping and where its `:` is.
struct Pending {
    column: usize,
    colon: usize,
}

/// What a scalar's text ended at.
enum After {
    /// The end of its line (or a comment).
    End,
    /// A `:` that makes it a key; the value starts after it.
    Colon(usize),
}

struct Reader<'t> {
    text: &'t str,
    bytes: &'t [u8],
    builder: Builder,
    events: usize,
    max_events: usize,
    max_flow_depth: usize,
    /// The most bytes from a key's start to its `:` that YAML still reads as a key.
    max_key: usize,
    open: Vec<Block>,
    pending: Option<Pending>,
    /// Whether the document's top collection has been opened.
    rooted: bool,
}

impl Reader<'_> {
    /// Counts one parser event against the budget.
    fn event(&mut self) -> Option<()> {
        if self.events >= self.max_events {
            return None;
        }
        self.events += 1;
        Some(())
    }

    fn scalar(&mut self, value: &str, style: ScalarStyle, span: Span) -> Option<()> {
        self.event()?;
        self.builder.scalar(value, style, span)
    }

    fn open_collection(&mut self, map: bool, span: Span) -> Option<()> {
        self.event()?;
        self.builder.open(map, span)
    }

    fn close(&mut self) -> Option<()> {
        self.open.pop()?;
        self.event()?;
        self.builder.close()
    }

    /// The pending key's value is null (the parser places it at the key's `:`).
    fn null_for_pending(&mut self) -> Option<()> {
        match self.pending.take() {
            Some(p) => self.scalar("~", ScalarStyle::Plain, Span::at(p.colon)),
            None => Some(()),
        }
    }

    /// Whether the text from `at` on its line starts a sequence entry (`- …`).
    fn is_dash(&self, at: usize, end: usize) -> bool {
        self.bytes[at] == b'-' && (at + 1 == end || self.bytes[at + 1] == b' ')
    }

    /// One line, `start..end` without its line feed.
    fn line(&mut self, start: usize, end: usize) -> Option<()> {
        let at = start
            + self.bytes[start..end]
                .iter()
                .take_while(|b| **b == b' ')
                .count();
        if at == end || self.bytes[at] == b'#' {
            return Some(());
        }
        let column = at - start;
        if column == 0
            && (self.text[at..end].starts_with("---") || self.text[at..end].starts_with("..."))
        {
            return None;
        }
        let dash = self.is_dash(at, end);
        if let Some(p) = &self.pending {
            if column > p.column {
                self.pending = None;
                return self.node(at, end, column);
            }
            if column == p.column && dash {
                // A sequence at its key's column; the parser starts it at the first item.
                self.pending = None;
                let item = self.after_dash(at, end)?;
                self.open_collection(false, Span::at(item))?;
                self.open.push(Block {
                    column,
                    map: false,
                    indentless: true,
                });
                return self.item(at, end);
            }
            self.null_for_pending()?;
        }
        while let Some(top) = self.open.last() {
            if top.column > column || top.column == column && top.indentless && !dash {
                self.close()?;
            } else {
                break;
            }
        }
        let Some(top) = self.open.last() else {
            if self.rooted {
                return None;
            }
            self.rooted = true;
            return self.node(at, end, column);
        };
        match (top.column == column, top.map, dash) {
            (true, true, false) => self.entry(at, end),
            (true, false, true) => self.item(at, end),
            // A line deeper than its collection's entries continues a scalar.
            _ => None,
        }
    }

    /// A block collection whose first key or dash is at `at` (column `column`).
    fn node(&mut self, at: usize, end: usize, column: usize) -> Option<()> {
        let map = !self.is_dash(at, end);
        self.open_collection(map, Span::at(at))?;
        self.open.push(Block {
            column,
            map,
            indentless: false,
        });
        if map {
            self.entry(at, end)
        } else {
            self.item(at, end)
        }
    }

    /// Where a sequence entry's content starts: after its dash and the spaces that follow;
    /// an entry with nothing on its line is left to the parser.
    fn after_dash(&self, dash: usize, end: usize) -> Option<usize> {
        let at = dash
            + 1
            + self.bytes[dash + 1..end]
                .iter()
                .take_while(|b| **b == b' ')
                .count();
        (at < end && self.bytes[at] != b'#').then_some(at)
    }

    /// A sequence entry whose dash is at `dash`.
    fn item(&mut self, dash: usize, end: usize) -> Option<()> {
        let at = self.after_dash(dash, end)?;
        let column = at - self.line_start(at);
        if self.is_dash(at, end) || self.key_at(at, end)? {
            return self.node(at, end, column);
        }
        match self.value(at, end)? {
            After::End => Some(()),
            After::Colon(_) => None,
        }
    }

    fn line_start(&self, at: usize) -> usize {
        self.text[..at].rfind('\n').map_or(0, |i| i + 1)
    }

    /// Whether the content at `at` is a `key: …` entry.
    fn key_at(&self, at: usize, end: usize) -> Option<bool> {
        Some(match self.bytes[at] {
            b'"' | b'\'' => {
                let (_, _, next) = self.quoted(at, end)?;
                let next = self.skip_spaces(next, end);
                next < end && self.bytes[next] == b':'
            }
            b'[' | b'{' => false,
            _ => matches!(self.plain(at, end, false)?.1, After::Colon(_)),
        })
    }

    /// A key starting at `at` (quoted, or plain as it reads in a flow collection when
    /// `flow`): its text, style and span, and where its `:` is; `None` when no `:` follows.
    fn key(&self, at: usize, end: usize, flow: bool) -> Option<(String, ScalarStyle, Span, usize)> {
        if let b'"' | b'\'' = self.bytes[at] {
            let (key, span, next) = self.quoted(at, end)?;
            let colon = self.skip_spaces(next, end);
            if colon == end || self.bytes[colon] != b':' {
                return None;
            }
            return Some((key, style_of(self.bytes[at]), span, colon));
        }
        let (span, After::Colon(colon)) = self.plain(at, end, flow)? else {
            return None;
        };
        let key = self.text[span.start as usize..span.end as usize].to_string();
        Some((key, ScalarStyle::Plain, span, colon))
    }

    /// A `key: value` entry of the mapping whose keys are at the key's column.
    fn entry(&mut self, at: usize, end: usize) -> Option<()> {
        let (key, style, span, colon) = self.key(at, end, false)?;
        if colon - at > self.max_key || colon + 1 < end && self.bytes[colon + 1] != b' ' {
            return None;
        }
        self.scalar(&key, style, span)?;
        let value = self.skip_spaces(colon + 1, end);
        if value == end || self.bytes[value] == b'#' {
            let column = at - self.line_start(at);
            self.pending = Some(Pending { column, colon });
            return Some(());
        }
        match self.value(value, end)? {
            After::End => Some(()),
            After::Colon(_) => None,
        }
    }

    fn skip_spaces(&self, mut at: usize, end: usize) -> usize {
        while at < end && self.bytes[at] == b' ' {
            at += 1;
        }
        at
    }

    /// A value that fits its line: a quoted scalar, a flow collection or a plain scalar;
    /// what follows it must be the end of the line or a comment.
    fn value(&mut self, at: usize, end: usize) -> Option<After> {
        let next = match self.bytes[at] {
            b'"' | b'\'' => {
                let (value, span, next) = self.quoted(at, end)?;
                self.scalar(&value, style_of(self.bytes[at]), span)?;
                next
            }
            b'[' | b'{' => self.flow(at, end)?,
            _ => {
                let (span, after) = self.plain(at, end, false)?;
                if let After::Colon(_) = after {
                    return Some(after);
                }
                let value = &self.text[span.start as usize..span.end as usize];
                self.scalar(value, ScalarStyle::Plain, span)?;
                return Some(After::End);
            }
        };
        let rest = self.skip_spaces(next, end);
        (rest == end || rest > next && self.bytes[rest] == b'#').then_some(After::End)
    }

    /// A plain scalar starting at `at`: its span (trailing spaces left out) and what ended
    /// it. In a flow collection (`flow`) it also ends at `,`, `[`, `]`, `{` and `}`, and a
    /// `:` ends it before a space or one of those. `None` when a plain scalar cannot start
    /// here or the line ends in the middle of a flow collection.
    fn plain(&self, at: usize, end: usize, flow: bool) -> Option<(Span, After)> {
        let b = self.bytes;
        let next_is_gap =
            |i: usize| i + 1 == end || b[i + 1] == b' ' || flow && b",[]{}".contains(&b[i + 1]);
        if b"[]{},#&*!|>'\"%@`".contains(&b[at]) || b"-?:".contains(&b[at]) && next_is_gap(at) {
            return None;
        }
        let mut i = at;
        let after = loop {
            if i == end {
                break After::End;
            }
            match b[i] {
                b':' if next_is_gap(i) => break After::Colon(i),
                b'#' if b[i - 1] == b' ' => break After::End,
                b',' | b'[' | b']' | b'{' | b'}' if flow => break After::End,
                _ => i += 1,
            }
        };
        let mut stop = i;
        while stop > at && b[stop - 1] == b' ' {
            stop -= 1;
        }
        Some((Span::new(at, stop), after))
    }

    /// A quoted scalar on one line starting at `at`: its value, its span (quotes included)
    /// and the position after it. Double quotes take JSON's escapes only.
    fn quoted(&self, at: usize, end: usize) -> Option<(String, Span, usize)> {
        let quote = self.bytes[at];
        let mut out = String::new();
        let mut run = at + 1;
        let mut i = at + 1;
        loop {
            if i >= end {
                return None;
            }
            let b = self.bytes[i];
            if b == quote {
                out.push_str(&self.text[run..i]);
                if quote == b'\'' && self.bytes.get(i + 1) == Some(&b'\'') && i + 1 < end {
                    out.push('\'');
                    i += 2;
                    run = i;
                    continue;
                }
                return Some((out, Span::new(at, i + 1), i + 1));
            }
            if b == b'\\' && quote == b'"' {
                out.push_str(&self.text[run..i]);
                let (c, width) = super::json::escape(self.text, i, end)?;
                out.push(c);
                i += width;
                run = i;
                continue;
            }
            i += 1;
        }
    }

    /// A flow collection that opens at `at` and closes on the same line; the position
    /// after it. Collections are read without recursion: `open` holds, for each collection
    /// open around the next value, whether it is a mapping.
    fn flow(&mut self, at: usize, end: usize) -> Option<usize> {
        let mut open: Vec<bool> = Vec::new();
        let mut i = at;
        loop {
            i = self.skip_spaces(i, end);
            if i == end {
                return None;
            }
            let in_map = open.last() == Some(&true);
            if in_map {
                i = self.flow_key(i, end)?;
                i = self.skip_spaces(i, end);
                if i == end {
                    return None;
                }
            }
            match self.bytes[i] {
                bracket @ (b'[' | b'{') => {
                    if open.len() >= self.max_flow_depth {
                        return None;
                    }
                    let map = bracket == b'{';
                    self.open_collection(map, Span::new(i, i + 1))?;
                    open.push(map);
                    i = self.skip_spaces(i + 1, end);
                    if i < end && self.bytes[i] == if map { b'}' } else { b']' } {
                        i += 1;
                        open.pop();
                        self.event()?;
                        self.builder.close()?;
                    } else {
                        continue;
                    }
                }
                b'"' | b'\'' => {
                    let (value, span, next) = self.quoted(i, end)?;
                    self.scalar(&value, style_of(self.bytes[i]), span)?;
                    i = next;
                }
                _ => {
                    let (span, after) = self.plain(i, end, true)?;
                    if let After::Colon(_) = after {
                        // A single-pair mapping inside a sequence: left to the parser.
                        return None;
                    }
                    let value = &self.text[span.start as usize..span.end as usize];
                    if span.start == span.end {
                        return None;
                    }
                    self.scalar(value, ScalarStyle::Plain, span)?;
                    i = span.end as usize;
                }
            }
            i = self.after_flow_value(i, end, &mut open)?;
            if open.is_empty() {
                return Some(i);
            }
        }
    }

    /// A flow mapping's key and its `:`; the position after the `:`.
    fn flow_key(&mut self, at: usize, end: usize) -> Option<usize> {
        let (key, style, span, colon) = self.key(at, end, true)?;
        if colon - at > self.max_key {
            return None;
        }
        // After a plain key the `:` needs a space; after a quoted one it may touch the value.
        if style == ScalarStyle::Plain && colon + 1 < end && self.bytes[colon + 1] != b' ' {
            return None;
        }
        self.scalar(&key, style, span)?;
        Some(colon + 1)
    }

    /// After a value in a flow collection: a `,` and the next member (not the collection's
    /// end: a trailing comma is left to the parser), or the collection's end, which may end
    /// the collections around it in turn.
    fn after_flow_value(
        &mut self,
        mut at: usize,
        end: usize,
        open: &mut Vec<bool>,
    ) -> Option<usize> {
        loop {
            let Some(&map) = open.last() else {
                return Some(at);
            };
            at = self.skip_spaces(at, end);
            if at == end {
                return None;
            }
            match self.bytes[at] {
                b',' => {
                    let next = self.skip_spaces(at + 1, end);
                    if next == end || b"]},".contains(&self.bytes[next]) {
                        return None;
                    }
                    return Some(at + 1);
                }
                b']' if !map => {}
                b'}' if map => {}
                _ => return None,
            }
            at += 1;
            open.pop();
            self.event()?;
            self.builder.close()?;
        }
    }

    /// The document, once every line is read: a pending key's null, the collections
    /// closed, and the document and stream ends.
    fn finish(mut self) -> Option<Node> {
        self.null_for_pending()?;
        while !self.open.is_empty() {
            self.close()?;
        }
        self.event()?;
        self.event()?;
        self.builder.finish()
    }
}

fn style_of(quote: u8) -> ScalarStyle {
    if quote == b'"' {
        ScalarStyle::DoubleQuoted
    } else {
        ScalarStyle::SingleQuoted
    }
}

#[cfg(test)]
mod tests {
    use super::super::events;
    use super::super::tree::tests::{
        json_value, nodes, read_as_events, repository_texts, with_a_large_stack,
    };
    use super::*;
    use proptest::prelude::*;

    /// The reader's tree, when it reads `text`, is the parser's, spans included.
    fn same_as_events(name: &str, text: &str) -> bool {
        read_as_events(read, name, text)
    }

    #[test]
    fn the_block_reader_builds_the_tree_the_yaml_parser_builds() {
        with_a_large_stack(compare_with_events);
    }

    fn compare_with_events() {
        let files: Vec<(String, String)> = repository_texts()
            .into_iter()
            .filter(|(name, _)| name.ends_with(".yaml") || name.ends_with(".yml"))
            .collect();
        assert!(files.len() > 20, "{} YAML files", files.len());
        let read_here = files.iter().filter(|(n, t)| same_as_events(n, t)).count();
        // Most of the repository's YAML is plain block YAML.
        eprintln!("{read_here} of {} YAML files read here", files.len());
        assert!(
            read_here * 2 > files.len(),
            "{read_here} of {}",
            files.len()
        );
        let ordinary = [
            "version: 1\nname: Gen\ntarget:\n  transport: stdio\n  args: [a, \"b\", 'c']\ntests:\n  - name: x\n    steps:\n      - tool:\n          name: t\n        phase: test\n  - name: y\n",
            "a:\n- 1\n- 2\nb: {x: 1}\n",
            "- - a\n  - b\n- c: d\n  e: f\n",
            "a: \"q\"   \nb: 'x''y'  # c\n# full\nc:   plain words  \n",
            "a:\nb: 1\n",
            "a:\n  b:\n",
            "  a: 1\n  b: 2\n",
            "a:\n- b: 1\n  c: 2\n- - x\nd: 1\n",
            "a:   \nb: 1\n",
            "a: # c\nb: 1\n",
            "a:\n\n# x\nb: 1\n",
            "a:\n  # x\n  b: 1\n",
            "- \"k\": v\n  'j': w\n",
            "a: x, y [z]\nb: http://x/y#z\nc: -1\nd: {k: [1, 2], m: n}\ne: []\nf: {}\n",
            "k:\n  -   x\n  -   y: 1\n",
            "esc: \"\\/ \\\" \\\\ \\b \\f \\n \\r \\t \\u00e9\"\nuni: ünï € 😀\n",
            "n: [0, -0, 1.5, -2.25e-3, 1E+2, 18446744073709551615, -9223372036854775808]\n",
            "l: [10s, --quiet, -p, .env, +x, inf, nan, 3 items, 12h, x1.5]\n",
            "flow: {\"a\":1, 'b' :2, c : 3}\nkey with spaces: -x\n-k: :v\n",
            "1: one\n-3: three\n\"quoted key\": v\n'single': w\n",
            "a: b#c\nd: 'e' # f\ng: [h] # i\n",
            "deep:\n  - - - x\n      - y\n    - z\n  - w\n",
        ];
        for text in ordinary {
            assert!(same_as_events("ordinary", text), "not read here: {text}");
        }
        // Left to the parser, whether it reads them or refuses them.
        let left = [
            "\u{feff}a: 1\n",
            "a:\t1\n",
            "a: 1\r\nb: 2\r\n",
            "---\na: 1\n",
            "a: 1\n...\n",
            "%YAML 1.2\n---\na: 1\n",
            "a: &x 1\nb: *x\n",
            "a: !t v\n",
            "a: |\n  text\n",
            "a: >-\n  text\n",
            "a: multi\n  line\n",
            "a: \"multi\n  line\"\n",
            "a: [1,\n  2]\n",
            "? a\n: b\n",
            "-\n  a: 1\n",
            "a: \"\\x41\"\n",
            "a: \"\\ud83d\\ude00\"\n",
            "a: b: c\n",
            "a: - b\n",
            "a: [b: c]\n",
            "a: [1, 2,]\n",
            "a: {b}\n",
            "a: 1\na: 2\n",
            "<<: {a: 1}\n",
            "just text\n",
            "a: 1\n b: 2\n",
            "a:\n    b: 1\n  c: 2\n",
            "- a\nb: c\n",
            "\"a\":b\n",
            "a: 'unclosed\n",
            "a: [unclosed\n",
            "a: 0x1F\n",
            "a: @x\n",
            "a: 1\n# x\n- b\n",
            // A flow collection as the document is JSON's scanner's or the parser's.
            "{\"a\": 1}\n",
        ];
        for text in left {
            assert!(read(text, nodes()).is_none(), "read here: {text:?}");
        }
        let long_key = format!("{}: 1\n", "k".repeat(5000));
        assert!(read(&long_key, nodes()).is_none());
        // Nesting around the parser's limits, and budgets.
        for depth in 60..70 {
            let block: String = (0..depth)
                .map(|i| format!("{}k:\n", "  ".repeat(i)))
                .collect();
            same_as_events("deep block", &block);
            let flow = format!("a: {}{}\n", "[".repeat(depth), "]".repeat(depth));
            same_as_events("deep flow", &flow);
        }
        let many = format!("a: [{}]\n", vec!["1"; 100].join(", "));
        // The mapping, its key, the sequence and its 100 items.
        assert_eq!(read(&many, 102), None, "103 values in a budget of 102");
        assert!(read(&many, 103).is_some());
    }

    /// Pieces of YAML, ordinary and awkward, that random documents are made of.
    fn piece() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "a", "b", "key", "x y", ": ", ":", "- ", "-", "  ", " ", "\n", "\n  ", "\n- ", "#",
            " # c", "'", "''", "\"", "\\n", "\\", "[", "]", "{", "}", ", ", ",", "1", "-1", "1.5",
            "0x1", "~", "null", "true", "?", "&a", "*a", "!t", "|", ">", "---", "é", "<<", "%",
            "@", "\t",
        ])
    }

    proptest! {
        /// Whatever the text, when this reader reads it the parser reads the same tree.
        #[test]
        fn any_text_read_here_is_read_so_by_the_parser(
            pieces in prop::collection::vec(piece(), 0..40)
        ) {
            let text: String = pieces.concat();
            if let Some(tree) = read(&text, nodes()) {
                prop_assert_eq!(Some(tree), events::read(&text, nodes()), "{:?}", text);
            }
        }

        /// Any value written as block YAML is read here to the parser's tree.
        #[test]
        fn any_value_written_as_yaml_reads_here_as_the_parser_reads_it(v in json_value()) {
            let text = serde_saphyr::to_string(&v).unwrap();
            if let Some(tree) = read(&text, nodes()) {
                prop_assert_eq!(Some(tree), events::read(&text, nodes()), "{}", text);
            }
        }
    }
}
