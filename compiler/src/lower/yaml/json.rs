//! The located tree of a JSON suite, read by a JSON scanner of its own.
//!
//! A JSON suite is a YAML document too, and the YAML parser reads it correctly but at a
//! third of the speed of the rest of `check`: most of its time goes into the YAML rules JSON
//! never uses. This scanner reads the JSON tokens and hands them to the same tree builder as
//! the YAML parser's events ([`super::events::Builder`]), with the spans that parser gives
//! them, so the tree, its spans and every budget are the same. It answers `None` for
//! anything whose reading it does not know to be the same, and the document is then read
//! as YAML as before: a byte order mark, a tab or a lone carriage return between tokens, a
//! `\u` escape of a surrogate, a character YAML does not allow in a document or reads as a
//! line break (U+0085, U+2028, U+2029), a key too long for YAML to see as a key, nesting
//! past the parser's limit, and what the builder refuses (a repeated key, a budget passed).
//! The caller has checked that the text is JSON; malformed text also answers `None`. A test
//! reads every JSON text of the repository, awkward forms and random documents both ways
//! and compares the trees, spans included.

use super::events::{Builder, max_events};
use super::tree::Node;
use crate::source::Span;
use serde_saphyr::granit_parser::ScalarStyle;

/// The tree of the JSON `text` holding at most `nodes` values, or `None` (see the module).
pub(super) fn read(text: &str, nodes: usize) -> Option<Node> {
    let budget = serde_saphyr::budget::Budget::default();
    let mut scan = Scanner {
        text,
        bytes: text.as_bytes(),
        at: 0,
        builder: Builder::new(nodes),
        // The stream and document starts are the parser's first two events.
        events: 2,
        max_events: max_events(nodes),
        max_depth: budget.flow_nesting_limit,
        max_key: budget.simple_key_max_lookahead,
    };
    scan.value()?;
    scan.space()?;
    if scan.at != scan.bytes.len() {
        return None;
    }
    // The document and stream ends.
    scan.event()?;
    scan.event()?;
    scan.builder.finish()
}

struct Scanner<'t> {
    text: &'t str,
    bytes: &'t [u8],
    at: usize,
    builder: Builder,
    events: usize,
    max_events: usize,
    /// The most collections the YAML parser allows one inside another.
    max_depth: usize,
    /// The most bytes from a key's start to its `:` that YAML still reads as a key.
    max_key: usize,
}

impl Scanner<'_> {
    /// Counts one parser event against the budget (`events` is the index of the next).
    fn event(&mut self) -> Option<()> {
        if self.events >= self.max_events {
            return None;
        }
        self.events += 1;
        Some(())
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    /// Skips the spaces and line ends between tokens; a tab or a lone carriage return,
    /// which YAML reads by rules of its own, answers `None`.
    fn space(&mut self) -> Option<()> {
        while let Some(b) = self.peek() {
            match b {
                b' ' | b'\n' => self.at += 1,
                b'\r' if self.bytes.get(self.at + 1) == Some(&b'\n') => self.at += 2,
                b'\t' | b'\r' => return None,
                _ => break,
            }
        }
        Some(())
    }

    /// One value and everything inside it. Collections are read without recursion: `open`
    /// holds, for each collection open around the next value, whether it is a mapping.
    fn value(&mut self) -> Option<()> {
        let mut open: Vec<bool> = Vec::new();
        loop {
            self.space()?;
            // A member: a mapping's key first.
            if open.last() == Some(&true) {
                self.key()?;
                self.space()?;
            }
            match self.peek()? {
                bracket @ (b'[' | b'{') => {
                    let map = bracket == b'{';
                    if open.len() >= self.max_depth {
                        return None;
                    }
                    self.event()?;
                    self.builder.open(map, Span::new(self.at, self.at + 1))?;
                    self.at += 1;
                    open.push(map);
                    self.space()?;
                    if self.peek()? != if map { b'}' } else { b']' } {
                        // Its first member comes.
                        continue;
                    }
                    self.at += 1;
                    self.close(&mut open)?;
                    self.after_value(&mut open)?;
                }
                b'"' => {
                    let (value, span) = self.string()?;
                    self.event()?;
                    self.builder
                        .scalar(&value, ScalarStyle::DoubleQuoted, span)?;
                    self.after_value(&mut open)?;
                }
                _ => {
                    let start = self.at;
                    while let Some(b) = self.peek() {
                        if matches!(b, b',' | b']' | b'}' | b' ' | b'\n' | b'\r' | b'\t' | b':') {
                            break;
                        }
                        self.at += 1;
                    }
                    let word = &self.text[start..self.at];
                    // JSON's words and numbers only; the builder types them as YAML does.
                    if word.is_empty()
                        || !word
                            .bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
                    {
                        return None;
                    }
                    self.event()?;
                    self.builder
                        .scalar(word, ScalarStyle::Plain, Span::new(start, self.at))?;
                    self.after_value(&mut open)?;
                }
            }
            if open.is_empty() {
                return Some(());
            }
        }
    }

    /// A mapping's key and its `:`.
    fn key(&mut self) -> Option<()> {
        if self.peek()? != b'"' {
            return None;
        }
        let start = self.at;
        let (key, span) = self.string()?;
        self.space()?;
        if self.peek()? != b':' || self.at - start > self.max_key {
            return None;
        }
        self.at += 1;
        self.event()?;
        self.builder.scalar(&key, ScalarStyle::DoubleQuoted, span)
    }

    /// Ends the innermost collection.
    fn close(&mut self, open: &mut Vec<bool>) -> Option<()> {
        open.pop()?;
        self.event()?;
        self.builder.close()
    }

    /// After a value: in a collection, a `,` (the next member comes) or the collection's
    /// end, which may end the collections around it in turn.
    fn after_value(&mut self, open: &mut Vec<bool>) -> Option<()> {
        loop {
            let Some(&map) = open.last() else {
                return Some(());
            };
            self.space()?;
            match self.peek()? {
                b',' => {
                    self.at += 1;
                    return Some(());
                }
                b']' if !map => {}
                b'}' if map => {}
                _ => return None,
            }
            self.at += 1;
            self.close(open)?;
        }
    }

    /// A string: its text and its span (quotes included).
    fn string(&mut self) -> Option<(String, Span)> {
        let start = self.at;
        self.at += 1;
        let mut out = String::new();
        let mut run = self.at;
        loop {
            let b = self.peek()?;
            match b {
                b'"' => {
                    out.push_str(&self.text[run..self.at]);
                    self.at += 1;
                    return Some((out, Span::new(start, self.at)));
                }
                b'\\' => {
                    out.push_str(&self.text[run..self.at]);
                    let (escaped, width) = escape(self.text, self.at, self.text.len())?;
                    out.push(escaped);
                    self.at += width;
                    run = self.at;
                }
                0..0x20 | 0x7f => return None,
                0x80.. => {
                    let c = self.text[self.at..].chars().next()?;
                    if !printable(c) {
                        return None;
                    }
                    self.at += c.len_utf8();
                }
                _ => self.at += 1,
            }
        }
    }
}

/// The character of the escape whose backslash is at `at` (ending by `end`) and its width
/// in bytes: JSON's escapes only, which YAML reads the same; a `\u` surrogate (half of a
/// pair) and every other escape answer `None`.
pub(super) fn escape(text: &str, at: usize, end: usize) -> Option<(char, usize)> {
    let letter = *text.as_bytes().get(at + 1).filter(|_| at + 1 < end)?;
    Some(match letter {
        b'"' => ('"', 2),
        b'\\' => ('\\', 2),
        b'/' => ('/', 2),
        b'b' => ('\u{8}', 2),
        b'f' => ('\u{c}', 2),
        b'n' => ('\n', 2),
        b'r' => ('\r', 2),
        b't' => ('\t', 2),
        b'u' => {
            let hex = text.get(at + 2..at + 6).filter(|_| at + 6 <= end)?;
            if !hex.bytes().all(|h| h.is_ascii_hexdigit()) {
                return None;
            }
            (char::from_u32(u32::from_str_radix(hex, 16).ok()?)?, 6)
        }
        _ => return None,
    })
}

/// Whether YAML allows `c` in a document as text (and does not read it as a line break):
/// U+0085, U+2028 and U+2029 are line breaks to some of its readers, the rest of the C1
/// controls, U+FEFF and U+FFFE/U+FFFF are not allowed.
pub(super) fn printable(c: char) -> bool {
    !matches!(
        c,
        '\u{80}'..='\u{9f}' | '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
    )
}

#[cfg(test)]
mod tests {
    use super::super::events;
    use super::super::tree::tests::{
        json_text, nodes, read_as_events, repository_texts, with_a_large_stack,
    };
    use super::*;
    use proptest::prelude::*;

    /// The scanner's tree, when it reads `text`, is the YAML parser's, spans included.
    fn same_as_events(name: &str, text: &str) -> bool {
        read_as_events(read, name, text)
    }

    #[test]
    fn the_json_scanner_builds_the_tree_the_yaml_parser_builds() {
        with_a_large_stack(compare_with_events);
    }

    fn compare_with_events() {
        let files: Vec<(String, String)> = repository_texts()
            .into_iter()
            .filter(|(name, text)| {
                name.ends_with(".json") && serde_json::from_str::<serde_json::Value>(text).is_ok()
            })
            .collect();
        assert!(files.len() > 20, "{} JSON files", files.len());
        let read_here = files.iter().filter(|(n, t)| same_as_events(n, t)).count();
        // The repository's JSON is read by the scanner (a few files use forms it leaves).
        assert!(
            read_here * 10 > files.len() * 9,
            "{read_here} of {}",
            files.len()
        );
        let ordinary = [
            r#"{"a":1,"b":[true,false,null],"c":{"d":"e"}}"#,
            "  {\"a\" : 1 ,\n\"b\"\n:\n2}  ",
            "{\r\n  \"crlf\": [1, 2]\r\n}\r\n",
            r#"{"esc": "\/ \" \\ \b \f \n \r \t \u00e9 \u0041 \u20ac", "é": "ünï € 😀"}"#,
            r#"{"n": [0, -0, 1.5, -2.25e-3, 1E+2, 18446744073709551615, -9223372036854775808]}"#,
            r#"{"f": 1e300, "g": -1.0E-300}"#,
            r#"{"key with: colon": "value # not a comment", "": "empty key", "<": "<<<"}"#,
            r#"{"a":{"b":{"c":{"d":[[[]]]}}},"e":{},"f":[{}],"g":[[],{}]}"#,
            r#"[{"yes": "yes", "on": "on", "y": "n", "~": "~", "null": "Null"}]"#,
            "\"just text\"",
            "42",
            "null",
            "[]",
        ];
        for text in ordinary {
            assert!(same_as_events("ordinary", text), "not read here: {text}");
        }
        // Left to the YAML parser (or refused by both: then it is the serde path's to word).
        let long_key = format!("{{\"{}\": 1}}", "k".repeat(5000));
        let wide: String = format!(
            "{{{}}}",
            (0..40)
                .map(|i| format!("\"k{i}\": {i}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let left = [
            "\u{feff}{\"a\": 1}".to_string(),
            "{\t\"a\": 1}".to_string(),
            "{\"a\":\r1}".to_string(),
            r#"{"pair": "\ud83d\ude00"}"#.to_string(),
            "{\"nel\": \"a\u{85}b\"}".to_string(),
            "{\"ls\": \"a\u{2028}b\"}".to_string(),
            "{\"c1\": \"a\u{9f}b\"}".to_string(),
            "{\"a\": 1, \"a\": 2}".to_string(),
            r#"{"<<": {"a": 1}}"#.to_string(),
            r#"{"":{"<<":null}}"#.to_string(),
            long_key,
            wide[..wide.len() - 1].to_string() + ", \"k7\": 0}",
            "[1, 2,]".to_string(),
            "{\"a\" 1}".to_string(),
            "[1] [2]".to_string(),
            // Past 64 bits: serde-saphyr's to type.
            r#"{"big": 123456789012345678901234567890}"#.to_string(),
        ];
        for text in &left {
            assert!(read(text, nodes()).is_none(), "read here: {text}");
        }
        assert!(same_as_events("wide", &wide));
        // Nesting around the parser's limit, and budgets.
        for depth in 60..70 {
            let deep = "[".repeat(depth) + &"]".repeat(depth);
            same_as_events("deep", &deep);
        }
        let many = format!("[{}]", vec!["1"; 100].join(","));
        assert_eq!(read(&many, 100), None, "101 values in a budget of 100");
        assert!(read(&many, 101).is_some());
    }

    /// Whether a `<<` key appears anywhere: a merge key to some YAML readers even quoted.
    fn has_merge_key(value: &serde_json::Value) -> bool {
        match value {
            serde_json::Value::Object(map) => map
                .iter()
                .any(|(key, value)| key == "<<" || has_merge_key(value)),
            serde_json::Value::Array(items) => items.iter().any(has_merge_key),
            _ => false,
        }
    }

    proptest! {
        /// Any JSON document, compact or pretty-printed, that the scanner reads is read to
        /// the YAML parser's tree, spans included; and it reads every one of them but those
        /// it leaves to the YAML parser on purpose (a `<<` key, text YAML does not print).
        #[test]
        fn any_json_reads_here_as_the_yaml_parser_reads_it((value, text) in json_text()) {
            let here = read(&text, nodes());
            prop_assert!(
                here.is_some() || !text.chars().all(printable) || has_merge_key(&value),
                "not read here: {}",
                text
            );
            if here.is_some() {
                prop_assert_eq!(here, events::read(&text, nodes()), "{}", text);
            }
        }
    }
}
