//! A located YAML tree: every node of a YAML (or JSON) suite with the byte span it was read
//! from, so a problem found later — by the schema or by a semantic check — can point at the
//! exact key or value the user wrote.
//!
//! An ordinary document is built straight from the YAML parser's events (`events.rs`);
//! any other is read through serde-saphyr (`Spanned` gives every node its position) with the
//! same options as every other YAML text of the compiler: YAML 1.2 booleans only, duplicate
//! keys rejected, merge keys refused, input budgets on. The parse stops at the first anchor
//! or alias; a scan of the parser's events then refuses each at its `&name` / `*name` token.

use crate::source::Span;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use serde_saphyr::Spanned;
use std::fmt;

/// One node of the tree.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Where the node starts; scalars cover their whole text (quotes included), collections
    /// start at their first key, item or bracket.
    pub span: Span,
    /// What the node holds.
    pub kind: Kind,
}

/// The content of a node.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// `null`, `~` or nothing.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A number (integer or float).
    Number(Number),
    /// Text.
    String(String),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, in document order.
    Map(Vec<Entry>),
}

/// One `key: value` pair of a mapping.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The key as text.
    pub key: String,
    /// Where the key is written.
    pub key_span: Span,
    /// The value.
    pub value: Node,
}

/// Why a text could not be read into a tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// The YAML is malformed (or breaks a parser budget); `span` is where the parser stopped.
    Syntax {
        /// The parser's message, without position.
        message: String,
        /// Where.
        span: Span,
    },
    /// An anchor (`&name`) or alias (`*name`).
    Alias {
        /// True for `*name`, false for `&name`.
        alias: bool,
        /// The name after `&` or `*`.
        name: String,
        /// The token.
        span: Span,
    },
    /// More values than the document may hold (the file's budget).
    TooManyValues {
        /// The most values it may hold.
        limit: usize,
        /// Where the parser stopped.
        span: Span,
    },
    /// A `<<` merge key.
    MergeKey {
        /// The key.
        span: Span,
    },
}

impl Node {
    /// The node as a JSON value (the document the schema and the IR types read).
    pub fn to_json(&self) -> Value {
        match &self.kind {
            Kind::Null => Value::Null,
            Kind::Bool(b) => Value::Bool(*b),
            Kind::Number(n) => Value::Number(n.clone()),
            Kind::String(s) => Value::String(s.clone()),
            Kind::Seq(items) => Value::Array(items.iter().map(Node::to_json).collect()),
            Kind::Map(entries) => {
                let mut m = Map::with_capacity(entries.len());
                for e in entries {
                    m.insert(e.key.clone(), e.value.to_json());
                }
                Value::Object(m)
            }
        }
    }

    /// The entries when the node is a mapping.
    pub fn entries(&self) -> &[Entry] {
        match &self.kind {
            Kind::Map(e) => e,
            _ => &[],
        }
    }

    /// The items when the node is a sequence.
    pub fn items(&self) -> &[Node] {
        match &self.kind {
            Kind::Seq(i) => i,
            _ => &[],
        }
    }

    /// The entry of a mapping with this key.
    pub fn get(&self, key: &str) -> Option<&Entry> {
        self.entries().iter().find(|e| e.key == key)
    }

    /// A short description of what the node is, for messages: "a mapping", "text", ….
    pub fn describe(&self) -> &'static str {
        match &self.kind {
            Kind::Null => "null",
            Kind::Bool(_) => "a boolean",
            Kind::Number(n) if n.is_f64() => "a decimal number",
            Kind::Number(_) => "a whole number",
            Kind::String(_) => "text",
            Kind::Seq(_) => "a list",
            Kind::Map(_) => "a mapping",
        }
    }
}

/// Parser options shared with every other YAML text of the compiler, plus the ones a suite
/// needs: merge keys are refused (they only make sense with aliases), and the document may
/// hold `nodes` values (the file's budget, [`crate::yaml::file_node_budget`]).
fn options(nodes: usize) -> serde_saphyr::Options {
    let mut o = crate::yaml::options_with_nodes(nodes);
    o.merge_keys = serde_saphyr::MergeKeyPolicy::Error;
    o
}

/// Reads one YAML (or JSON) document into a located tree. An empty document is a `Null`
/// node at the start. The document may hold as many values as a file of the default size
/// limit ([`read_within`] for another budget).
pub fn read(text: &str) -> Result<Node, Vec<ReadError>> {
    read_within(
        text,
        crate::yaml::file_node_budget(crate::size::DEFAULT_MAX_FILE_BYTES),
    )
}

/// [`read`] with a budget of `nodes` values for the document.
pub fn read_within(text: &str, nodes: usize) -> Result<Node, Vec<ReadError>> {
    read_counted(text, nodes, false)
}

/// [`read_within`] for a text the caller has found to be valid JSON: it has no anchor or
/// alias, and its values are bounded more tightly on its bytes, so a large one is not
/// counted on the parser's events first.
pub fn read_json_within(text: &str, nodes: usize) -> Result<Node, Vec<ReadError>> {
    read_counted(text, nodes, true)
}

fn read_counted(text: &str, nodes: usize, json: bool) -> Result<Node, Vec<ReadError>> {
    if text.trim().is_empty() || only_comments(text) {
        return Ok(Node {
            span: Span::at(0),
            kind: Kind::Null,
        });
    }
    // JSON by a JSON scanner, plain block YAML line by line: both count the values as they
    // go and give up at the budget, so a hostile suite costs them no more than the budget.
    let fast = if json {
        super::json::read(text, nodes)
    } else {
        super::block::read(text, nodes)
    };
    if let Some(node) = fast {
        return Ok(node);
    }
    // Counted on the raw events first: a hostile suite is refused before its tree is built.
    let may_pass = if json {
        crate::yaml::json_may_hold_more_than(text, nodes)
    } else {
        crate::yaml::may_hold_more_than(text, nodes)
    };
    if may_pass && let Some((_, _, at)) = crate::yaml::past_budget(text, nodes) {
        return Err(vec![ReadError::TooManyValues {
            limit: nodes,
            span: Span::at(at),
        }]);
    }
    // The ordinary document, straight from the parser's events; the rest through serde.
    let fast = super::events::read(text, nodes);
    match fast {
        Some(node) => Ok(node),
        None => read_through_serde(text, nodes),
    }
}

/// [`read_counted`] by serde-saphyr alone.
fn read_through_serde(text: &str, nodes: usize) -> Result<Node, Vec<ReadError>> {
    match serde_saphyr::from_str_with_options::<Node>(text, options(nodes)) {
        Ok(node) => Ok(node),
        Err(e) if e.to_string().contains("budget breached: Nodes") => {
            let at = e
                .location()
                .map_or(Span::at(0), |l| location_span(text, &l));
            Err(vec![ReadError::TooManyValues {
                limit: nodes,
                span: Span::at((at.start as usize).min(text.len())),
            }])
        }
        // The parse stops at the first anchor or alias; every one is reported.
        Err(e) if crate::yaml::refused_anchor(&e) => match scan_aliases(text) {
            found if !found.is_empty() => Err(found),
            _ => Err(vec![syntax_error(text, &e)]),
        },
        Err(e) => Err(vec![syntax_error(text, &e)]),
    }
}

/// Whether the text holds nothing but comments and blank lines.
fn only_comments(text: &str) -> bool {
    text.lines().all(|l| {
        let t = l.trim();
        t.is_empty() || t.starts_with('#')
    })
}

/// Every anchor and alias ([`crate::yaml::anchors`]), as read errors.
fn scan_aliases(text: &str) -> Vec<ReadError> {
    crate::yaml::anchors(text)
        .into_iter()
        .map(|a| ReadError::Alias {
            alias: a.alias,
            name: a.name,
            span: a.span,
        })
        .collect()
}

fn char_to_byte(text: &str, chars: usize) -> usize {
    text.char_indices()
        .nth(chars)
        .map_or(text.len(), |(b, _)| b)
}

/// The span of a serde-saphyr location: byte offsets when known, else from the character
/// offset, else from line and column.
fn location_span(text: &str, loc: &serde_saphyr::Location) -> Span {
    let s = loc.span();
    if let (Some(off), Some(len)) = (s.byte_offset(), s.byte_len()) {
        let start = (off as usize).min(text.len());
        let end = (start + len as usize).min(text.len());
        return Span::new(start, end);
    }
    if loc.line() == 0 {
        return Span::at(0);
    }
    let start = line_column_byte(text, loc.line() as usize, loc.column() as usize);
    Span::at(start)
}

/// Byte offset of a 1-based line and 1-based character column (clamped into the text).
fn line_column_byte(text: &str, line: usize, column: usize) -> usize {
    let mut at = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            let body = l.trim_end_matches(['\n', '\r']);
            return at + char_to_byte(body, column.saturating_sub(1));
        }
        at += l.len();
    }
    text.len()
}

fn syntax_error(text: &str, e: &serde_saphyr::Error) -> ReadError {
    let loc = e.location();
    let span = match loc {
        Some(l) => location_span(text, &l),
        None => Span::at(0),
    };
    let span = Span::at((span.start as usize).min(text.len()));
    let message = crate::yaml::clean_message(&e.to_string());
    if message.to_ascii_lowercase().contains("merge key") {
        let key = text[span.start as usize..]
            .find("<<")
            .map(|i| span.start as usize + i)
            .unwrap_or(span.start as usize);
        return ReadError::MergeKey {
            span: Span::new(key, (key + 2).min(text.len())),
        };
    }
    if let Some(rest) = message.strip_prefix("duplicate mapping key: ") {
        // Cover the repeated key.
        let key = rest
            .split(", set DuplicateKeyPolicy")
            .next()
            .unwrap_or(rest);
        let at = span.start as usize;
        let len = if text[at..].starts_with(key) {
            key.len()
        } else {
            0
        };
        return ReadError::Syntax {
            message,
            span: Span::new(at, at + len),
        };
    }
    if message.starts_with("multiple YAML documents") {
        // Point at the `---` that starts the second document.
        let marker = text[..span.start as usize]
            .rmatch_indices("---")
            .map(|(i, _)| i)
            .find(|&i| i == 0 || text.as_bytes()[i - 1] == b'\n');
        if let Some(i) = marker {
            return ReadError::Syntax {
                message,
                span: Span::new(i, i + 3),
            };
        }
    }
    ReadError::Syntax { message, span }
}

// The tree is built by serde: every node goes through `Spanned`, whose location the YAML
// deserializer fills in, and its content through `deserialize_any`, which types scalars
// exactly as the rest of the compiler's YAML.

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let spanned = Spanned::<Kind>::deserialize(d)?;
        Ok(Node {
            span: raw_span(&spanned.referenced),
            kind: spanned.value,
        })
    }
}

/// A location's byte span (string input always has byte offsets).
fn raw_span(loc: &serde_saphyr::Location) -> Span {
    let s = loc.span();
    match (s.byte_offset(), s.byte_len()) {
        (Some(off), Some(len)) => Span::new(off as usize, (off + len) as usize),
        _ => Span::at(s.offset() as usize),
    }
}

impl<'de> Deserialize<'de> for Kind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(KindVisitor)
    }
}

struct KindVisitor;

impl<'de> Visitor<'de> for KindVisitor {
    type Value = Kind;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Kind, E> {
        Ok(Kind::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Kind, E> {
        Ok(Kind::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Kind, E> {
        Ok(Kind::Number(v.into()))
    }
    // Integers beyond 64 bits become floating point numbers, as JSON readers make them.
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Kind, E> {
        match (i64::try_from(v), u64::try_from(v)) {
            (Ok(n), _) => Ok(Kind::Number(n.into())),
            (_, Ok(n)) => Ok(Kind::Number(n.into())),
            _ => self.visit_f64(v as f64),
        }
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Kind, E> {
        match u64::try_from(v) {
            Ok(n) => Ok(Kind::Number(n.into())),
            Err(_) => self.visit_f64(v as f64),
        }
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Kind, E> {
        Number::from_f64(v)
            .map(Kind::Number)
            .ok_or_else(|| E::custom("infinite and NaN numbers are not JSON values"))
    }
    fn visit_str<E>(self, v: &str) -> Result<Kind, E> {
        Ok(Kind::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Kind, E> {
        Ok(Kind::String(v))
    }
    fn visit_char<E>(self, v: char) -> Result<Kind, E> {
        Ok(Kind::String(v.to_string()))
    }
    fn visit_unit<E>(self) -> Result<Kind, E> {
        Ok(Kind::Null)
    }
    fn visit_none<E>(self) -> Result<Kind, E> {
        Ok(Kind::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Kind, D::Error> {
        Kind::deserialize(d)
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Kind, D::Error> {
        Kind::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Kind, A::Error> {
        let mut items = Vec::new();
        while let Some(n) = seq.next_element::<Node>()? {
            items.push(n);
        }
        Ok(Kind::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Kind, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Spanned<KeyText>>()? {
            let value = map.next_value::<Node>()?;
            entries.push(Entry {
                key: key.value.0,
                key_span: raw_span(&key.referenced),
                value,
            });
        }
        Ok(Kind::Map(entries))
    }
}

/// A mapping key: any scalar, as text.
struct KeyText(String);

impl<'de> Deserialize<'de> for KeyText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = KeyText;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a plain key (text, number, boolean or null)")
            }
            fn visit_bool<E>(self, v: bool) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_i64<E>(self, v: i64) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_str<E>(self, v: &str) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_string<E>(self, v: String) -> Result<KeyText, E> {
                Ok(KeyText(v))
            }
            fn visit_unit<E>(self) -> Result<KeyText, E> {
                Ok(KeyText("null".into()))
            }
            fn visit_none<E>(self) -> Result<KeyText, E> {
                Ok(KeyText("null".into()))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A JSON text reads to the same value through the located tree as through serde_json.
    fn same_as_serde_json(text: &str) {
        let tree = read(text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
        let want: Value = serde_json::from_str(text).unwrap();
        assert_eq!(tree.to_json(), want, "{text}");
    }

    #[test]
    fn json_specifics_read_as_json() {
        for text in [
            r#"{"a":1,"b":[true,false,null],"c":{"d":"e"}}"#,
            "{\n\t\"tabs\": [\n\t\t1,\n\t\t2\n\t]\n}",
            r#"{"esc": "\/ \" \\ \b \f \n \r \t \u00e9 \ud83d\ude00"}"#,
            // (`-0` is the one difference: the integer 0 in YAML, the float -0.0 in serde_json.)
            r#"{"n": [0, 1.5, -2.25e-3, 1E+2, 18446744073709551615, -9223372036854775808]}"#,
            r#"{"big": 123456789012345678901234567890}"#,
            r#"{"key with: colon": "value # not a comment", "": "empty key"}"#,
            r#"[{"yes": "yes", "on": "on", "y": "n"}]"#,
            r#"{"a":{"b":{"c":{"d":[[[]]]}}},"e":{}}"#,
            "  {\"a\" : 1 ,\n\"b\"\n:\n2}  ",
        ] {
            same_as_serde_json(text);
        }
    }

    /// Every YAML and JSON text of the repository (suites, flows, corpus cases, examples) and
    /// a set of awkward forms read to the same tree, spans included, from the parser's events
    /// as through serde-saphyr; and the ordinary ones are read from the events.
    #[test]
    fn the_event_reader_builds_the_tree_serde_builds() {
        with_a_large_stack(compare_the_event_reader_with_serde);
    }

    /// Runs `f` on a thread with a large stack: the YAML parser's and serde's recursion
    /// through deep documents needs more than a test thread's stack in a debug build.
    pub(in crate::lower::yaml) fn with_a_large_stack(f: fn()) {
        std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(f)
            .unwrap()
            .join()
            .unwrap();
    }

    /// The value budget of a file at the default size limit.
    pub(in crate::lower::yaml) fn nodes() -> usize {
        crate::yaml::file_node_budget(crate::size::DEFAULT_MAX_FILE_BYTES)
    }

    /// Whether a fast reader `read` reads `text`; when it does, its tree must be the one the
    /// YAML parser's events build, spans included.
    pub(in crate::lower::yaml) fn read_as_events(
        read: fn(&str, usize) -> Option<Node>,
        name: &str,
        text: &str,
    ) -> bool {
        match read(text, nodes()) {
            Some(tree) => {
                assert_eq!(
                    Some(tree),
                    super::super::events::read(text, nodes()),
                    "{name}:\n{text}"
                );
                true
            }
            None => false,
        }
    }

    /// Every YAML and JSON text of the repository (below 2 MB), with its path.
    pub(in crate::lower::yaml) fn repository_texts() -> Vec<(String, String)> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut texts = Vec::new();
        let mut dirs = vec![root.clone()];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                let path = entry.path();
                let name = path.file_name().unwrap().to_string_lossy().to_string();
                if path.is_dir() {
                    if !name.starts_with('.')
                        && !["target", "node_modules", "fuzz"].contains(&name.as_str())
                    {
                        dirs.push(path);
                    }
                } else if [".yaml", ".yml", ".json"].iter().any(|e| name.ends_with(e))
                    && let Ok(text) = std::fs::read_to_string(&path)
                    && text.len() < 2_000_000
                {
                    texts.push((path.display().to_string(), text));
                }
            }
        }
        texts
    }

    fn compare_the_event_reader_with_serde() {
        let mut texts = repository_texts();
        assert!(texts.len() > 50, "{} texts", texts.len());
        let awkward = [
            "a: 1\nb: -2\nc: 0\nd: -0\ne: 007\nf: 1.5\ng: 1e3\nh: .inf\ni: 0x1F\nj: +3\nk: 1_000\n",
            "a: ~\nb: null\nc: Null\nd: NULL\ne:\nf: true\ng: True\nh: FALSE\ni: yes\nj: on\nk: -x\nl: -\n",
            "? a\n: b\n",
            "{a: 1, b: [x, y, {c: d}], e: {}}\n",
            "- a\n- - b\n  - c\n- {d: e}\n- \"q\\u00e9\"\n- 'it''s'\n",
            "text: |\n  line one\n  line two\nfolded: >-\n  one\n  two\n",
            "plain: multi\n  line\n  scalar\nurl: http://x/y#z\n",
            "1: one\n-3: three\n\"quoted key\": v\n'single': w\n",
            "1.0: a\n1e3: b\n-0: c\n0.5: d\n",
            "a: 1\na: 2\n",
            "a: &x 1\nb: *x\n",
            "a: !tag v\n",
            "<<: {a: 1}\n",
            "--- a\n--- b\n",
            "%YAML 1.2\n---\na: 1\n",
            "[a, b\n",
            "a: b: c\n",
            "key: value # comment\n# whole line\nother: [1, 2] # more\n",
            "\u{feff}a: 1\n",
            "a:\n  - b:\n      c: 1\n    d: 2\n",
            "[., +, -a, .e, -, 12abc, 1 2, 0x, 1e5x]\n",
            "[2024-01-01, -inf, 1.2.3, -.5, .5, 1., 0o17, 0b1, 1:30, .NaN, 12:00, 1e]\n",
            "[1, -1, 0, 9223372036854775807, 9223372036854775808, -9223372036854775809]",
        ];
        // Ordinary forms, each read from the events.
        let ordinary = [
            "[10s, --quiet, -p, .env, +x, inf, nan, 3 items, 12h, x1.5, -0, 4.5, -2.5e-3, 1E+2]\n",
            "{\"a\": [1, 2.0, \"x\"], \"b\": {\"c\": null}}",
            "key: value # comment\n# whole line\nother: [1, 2] # more\n",
            "a:\n  - b:\n      c: 1\n    d: 2\n",
            "empty:\nlist: []\nmap: {}\nquoted: '007'\n",
            "1: one\n-3: three\n-0: zero\n",
        ];
        for text in ordinary {
            let nodes = crate::yaml::file_node_budget(crate::size::DEFAULT_MAX_FILE_BYTES);
            let tree = super::super::events::read(text, nodes).unwrap_or_else(|| panic!("{text}"));
            assert_eq!(Ok(tree), read_through_serde(text, nodes), "{text}");
        }
        let files = texts.len();
        texts.extend(
            awkward
                .iter()
                .map(|t| ("awkward".to_string(), t.to_string())),
        );
        // Large mappings (repeats found by lookup), with and without a repeated key.
        let wide: String = (0..40).map(|i| format!("k{i}: {i}\n")).collect();
        texts.push(("wide".into(), wide.clone()));
        let nodes = crate::yaml::file_node_budget(crate::size::DEFAULT_MAX_FILE_BYTES);
        for repeated in [wide.clone() + "k3: again\n", wide.clone() + "k39: again\n"] {
            assert!(super::super::events::read(&repeated, nodes).is_none());
            assert!(read_through_serde(&repeated, nodes).is_err());
        }
        texts.push(("quoted merge key".into(), "\"<<\": 1\n".into()));
        // Nesting around the parser's depth budget, in flow and block style.
        for depth in 62..67 {
            texts.push(("deep".into(), "[".repeat(depth) + &"]".repeat(depth)));
            let block: String = (0..depth)
                .map(|i| format!("{}k:\n", "  ".repeat(i)))
                .collect();
            texts.push(("deep".into(), block));
        }
        let mut fast = 0;
        for (name, text) in &texts {
            let nodes = crate::yaml::file_node_budget(crate::size::DEFAULT_MAX_FILE_BYTES);
            let serde = read_through_serde(text, nodes);
            match super::super::events::read(text, nodes) {
                Some(tree) => {
                    fast += 1;
                    assert_eq!(Ok(tree), serde, "{name}:\n{text}");
                }
                None => {
                    if name != "awkward" && std::env::var("SHOW_SLOW").is_ok() {
                        eprintln!("not from events: {name} {:?}", serde.as_ref().err());
                    }
                }
            }
        }
        // The ordinary texts take the event reader (most of the repository's).
        eprintln!("{fast} of {} from events", texts.len());
        assert!(fast * 10 > files * 8, "{fast} of {files}");
    }

    pub(in crate::lower::yaml) fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            (-1.0e12f64..1.0e12).prop_map(Value::from),
            "\\PC{0,12}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                prop::collection::btree_map("\\PC{0,8}", inner, 0..5)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    /// A random JSON value and its text, compact or pretty-printed.
    pub(in crate::lower::yaml) fn json_text() -> impl Strategy<Value = (Value, String)> {
        (json_value(), any::<bool>()).prop_map(|(v, pretty)| {
            let text = if pretty {
                serde_json::to_string_pretty(&v)
            } else {
                serde_json::to_string(&v)
            };
            (v, text.unwrap())
        })
    }

    proptest! {
        /// Any JSON document, compact or pretty-printed, reads to the value serde_json
        /// reads, and every node span lies inside the text.
        #[test]
        fn any_json_reads_like_serde_json((v, text) in json_text()) {
            let tree = read(&text).map_err(|e| TestCaseError::fail(format!("{text}: {e:?}")))?;
            prop_assert_eq!(tree.to_json(), v);
            fn spans_inside(n: &Node, len: u32) -> bool {
                n.span.end <= len
                    && match &n.kind {
                        Kind::Seq(items) => items.iter().all(|i| spans_inside(i, len)),
                        Kind::Map(entries) => entries
                            .iter()
                            .all(|e| e.key_span.end <= len && spans_inside(&e.value, len)),
                        _ => true,
                    }
            }
            prop_assert!(spans_inside(&tree, text.len() as u32));
        }

        /// Any value written as YAML reads to the same tree from the parser's events (when
        /// they read it) as through serde-saphyr.
        #[test]
        fn any_yaml_reads_from_events_as_through_serde(v in json_value()) {
            let text = serde_saphyr::to_string(&v).unwrap();
            let nodes = crate::yaml::file_node_budget(crate::size::DEFAULT_MAX_FILE_BYTES);
            if let Some(tree) = super::super::events::read(&text, nodes) {
                prop_assert_eq!(Ok(tree), read_through_serde(&text, nodes), "{}", text);
            }
        }
    }
}
