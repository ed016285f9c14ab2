//! The one entry point to YAML: every YAML text in the compiler (blocks in
//! `.mcpr` files, values after `equals`, YAML suites) goes through here so the
//! options are the same everywhere: YAML 1.2 booleans only, duplicate keys
//! rejected, input budgets on.

use serde_json::Value;

/// A YAML error with a 1-based line and a 1-based column counted in
/// characters, relative to the YAML text that was parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    /// 1-based line in the YAML text (0 when unknown).
    pub line: u32,
    /// 1-based column in characters (0 when unknown).
    pub column: u32,
    /// The parser's message, without position or snippet.
    pub message: String,
    /// The text holds more values than it may ([`parse_within`]); `message` says so too.
    pub too_many_values: bool,
    /// The text holds an anchor or an alias, refused where it stands (never expanded);
    /// [`anchors`] locates every one.
    pub anchors: bool,
}

/// The options with a budget of `nodes` YAML values for one text.
pub(crate) fn options_with_nodes(nodes: usize) -> serde_saphyr::Options {
    let mut o = serde_saphyr::Options::default();
    o.strict_booleans = true;
    o.duplicate_keys = serde_saphyr::DuplicateKeyPolicy::Error;
    // Comments carry no value; gathering them costs a quarter of the parse.
    o.emit_comments = false;
    let mut budget = serde_saphyr::budget::Budget::default();
    budget.max_nodes = nodes;
    // A value is one to three events (a collection opens and closes); never the binding limit.
    budget.max_events = budget.max_events.max(nodes.saturating_mul(4));
    // Anchors and aliases are refused as the parser meets the first one, before an alias is
    // replayed (a few kilobytes of nested aliases would otherwise become gigabytes); the
    // caller locates them with [`anchors`] ([`refused_anchor`] tells the error apart).
    budget.max_aliases = 0;
    budget.max_anchors = 0;
    o.budget = Some(budget);
    o
}

/// Whether a parse of [`options_with_nodes`] stopped at an anchor or an alias (an alias
/// of an anchor never defined stops it too, before the budget sees it).
pub(crate) fn refused_anchor(e: &serde_saphyr::Error) -> bool {
    let raw = e.to_string();
    raw.contains("budget breached: Aliases")
        || raw.contains("budget breached: Anchors")
        || raw.contains("alias references unknown anchor")
}

/// The most values (mappings, lists and scalars) one YAML text may hold: one block of a
/// `.mcpr` file or one value after `equals`.
pub const MAX_TEXT_NODES: usize = 250_000;

/// The most values all YAML of one file may hold together (the blocks of a `.mcpr` file, or
/// the one document of a YAML or JSON suite): one per [`BYTES_PER_VALUE`] bytes of the file
/// size limit (1,048,576 at the default 16 MiB). Without aliases (refused) a value takes at
/// least two bytes of text, so this keeps the memory of reading a hostile file that packs
/// tiny values (`[0,0,0,…]`) a fraction of what the size limit alone allows, while written
/// suites (and what `mcpr convert` writes) spend far more than sixteen bytes per value.
pub fn file_node_budget(max_file_bytes: usize) -> usize {
    (max_file_bytes / BYTES_PER_VALUE).max(1)
}

/// Bytes of the size limit per YAML value a file may hold ([`file_node_budget`]).
pub const BYTES_PER_VALUE: usize = 16;

/// How many values `v` holds, itself included, counted as the YAML parser counts its nodes:
/// every mapping, list and scalar, mapping keys included.
pub fn node_count(v: &Value) -> usize {
    // Only lists and mappings wait on the stack: a mapping of half a million scalars
    // counts them without holding a reference to each.
    let mut count = 1;
    let mut stack = vec![v];
    let nested = |v: &&Value| matches!(v, Value::Array(_) | Value::Object(_));
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(items) => {
                count += items.len();
                stack.extend(items.iter().filter(nested));
            }
            Value::Object(members) => {
                count += 2 * members.len();
                stack.extend(members.values().filter(nested));
            }
            _ => {}
        }
    }
    count
}

/// The error of a text whose values pass `nodes` on its 0-based `line`, after `before`, the
/// start of that line.
fn too_many_values(line: usize, before: &str, nodes: usize) -> YamlError {
    YamlError {
        line: line as u32 + 1,
        column: before.chars().count() as u32 + 1,
        message: format!(
            "the YAML holds more than {nodes} values (keys, list items and scalars), the most it may hold"
        ),
        too_many_values: true,
        anchors: false,
    }
}

/// What the shortcut for flat blocks made of a text.
enum Flat<'t> {
    /// The value (the full parser gives the same).
    Value(Value),
    /// A flat block whose values pass the budget on its 0-based `line`, after `at`, the
    /// start of that line.
    OverBudget { line: usize, at: &'t str },
    /// Not a flat block: the full parser decides.
    Other,
}

/// Whether the values of a YAML text are worth counting on the parser's events against
/// `nodes` before it is read: it has more than one byte for every two values, and an upper
/// bound counted on its bytes (a few instructions a byte, where the events cost hundreds)
/// passes `nodes`. A value is a scalar (at least one byte of its own, or none when it is
/// empty), a list or a mapping; what starts one without a byte of its own is a `:`, `?` or
/// `-` (a mapping, its empty key and empty value; a list and its empty item) or a `,` (an
/// empty value in a flow mapping).
pub(crate) fn may_hold_more_than(text: &str, nodes: usize) -> bool {
    text.len().saturating_mul(2) > nodes && values_at_most(text) > nodes
}

/// [`may_hold_more_than`] for a text that is valid JSON, where every value has a byte of its
/// own: a list or an object opens with `[` or `{`, and the scalars of one are at most one
/// more than its `,` and `:` (key and value per member), besides the document's own.
pub(crate) fn json_may_hold_more_than(text: &str, nodes: usize) -> bool {
    text.len().saturating_mul(2) > nodes && json_values_at_most(text) > nodes
}

/// The upper bound of [`json_may_hold_more_than`].
fn json_values_at_most(text: &str) -> usize {
    1 + text
        .bytes()
        .map(|b| match b {
            b'[' | b'{' => 2,
            b',' | b':' => 1,
            _ => 0,
        })
        .sum::<usize>()
}

/// The upper bound of [`may_hold_more_than`].
fn values_at_most(text: &str) -> usize {
    text.bytes()
        .map(|b| match b {
            b' ' | b'\t' | b'\n' | b'\r' => 0,
            b':' | b'?' => 3,
            b'-' | b',' => 2,
            _ => 1,
        })
        .sum()
}

/// Where (1-based line, 1-based column, byte offset) the text's values pass `nodes`, counted on the raw
/// events (memory stays flat), or `None` when they do not (or the YAML breaks first: the full
/// parser reports that).
pub(crate) fn past_budget(text: &str, nodes: usize) -> Option<(u32, u32, usize)> {
    use serde_saphyr::granit_parser::{Event, Parser};
    let mut count = 0usize;
    for item in Parser::new_from_str(text) {
        let (event, span) = item.ok()?;
        if matches!(
            event,
            Event::Scalar(..) | Event::SequenceStart(..) | Event::MappingStart(..)
        ) {
            count += 1;
            if count > nodes {
                let at = span.start;
                let byte = at
                    .byte_offset()
                    .unwrap_or_else(|| char_to_byte(text, at.index()));
                return Some((at.line() as u32, at.col() as u32 + 1, byte.min(text.len())));
            }
        }
    }
    None
}

/// An anchor (`&name`) or an alias (`*name`) in a YAML text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnchorUse {
    /// True for `*name`, false for `&name`.
    pub alias: bool,
    /// The name after `&` or `*`.
    pub name: String,
    /// The token, in bytes of the text.
    pub span: crate::source::Span,
}

/// Every anchor and alias of a YAML text, found with the raw event parser (linear: aliases
/// are reported, never expanded), up to the first syntax error. The language refuses both
/// (MCPLANG606) in YAML suites and in the YAML blocks of `.mcpr` files alike: an alias is
/// the one way a small text becomes a huge value (an "anchor bomb").
pub fn anchors(text: &str) -> Vec<AnchorUse> {
    use serde_saphyr::granit_parser::{self, Event};
    // Without `&` or `*` there is no anchor or alias to find: skip the parse.
    if !text.contains(['&', '*']) {
        return Vec::new();
    }
    let mut opts = granit_parser::Options::default();
    opts.emit_anchor_events = true;
    opts.emit_unresolved_aliases = true;
    let parser = granit_parser::Parser::new_from_str_with_options(text, opts);
    let mut found = Vec::new();
    for item in parser {
        let Ok((event, span)) = item else {
            break;
        };
        let alias = match event {
            Event::Alias(_) | Event::UnresolvedAlias(_) => true,
            Event::Anchor(_, _) => false,
            _ => continue,
        };
        let token = match (span.start.byte_offset(), span.end.byte_offset()) {
            (Some(a), Some(b)) if a <= b && b <= text.len() => crate::source::Span::new(a, b),
            _ => {
                let a = char_to_byte(text, span.start.index());
                let b = char_to_byte(text, span.end.index().max(span.start.index())).max(a);
                crate::source::Span::new(a, b)
            }
        };
        let name = text
            .get(token.range())
            .unwrap_or_default()
            .trim_start_matches(['&', '*'])
            .to_string();
        found.push(AnchorUse {
            alias,
            name,
            span: token,
        });
    }
    found
}

fn char_to_byte(text: &str, chars: usize) -> usize {
    text.char_indices()
        .nth(chars)
        .map_or(text.len(), |(b, _)| b)
}

/// Parses one YAML document into a JSON value. An empty document is `null`.
pub fn parse(text: &str) -> Result<Value, YamlError> {
    parse_within(text, MAX_TEXT_NODES)
}

/// [`parse`] for a text that may hold at most `nodes` values (mappings, lists, scalars and
/// keys, as [`node_count`] counts them).
pub fn parse_within(text: &str, nodes: usize) -> Result<Value, YamlError> {
    if text.trim().is_empty() {
        return Ok(Value::Null);
    }
    let lines = text.bytes().filter(|&b| b == b'\n').count() + 1;
    match flat_lines(text.split('\n'), lines, nodes) {
        Some(parsed) => parsed,
        None => parse_full_within(text, nodes),
    }
}

/// The value of a YAML text given as its `count` lines (without their line breaks) when it
/// is a flat block, the common case of `with:` blocks ([`Flat`]), or `None` when only the
/// full parser can tell ([`parse_full_within`]). A block of a `.mcpr` file is read here from
/// the file's own lines: the text of a flat block of half a million lines is never made.
pub(crate) fn flat_lines<'t>(
    lines: impl Iterator<Item = &'t str>,
    count: usize,
    nodes: usize,
) -> Option<Result<Value, YamlError>> {
    match flat_mapping(lines, count, nodes) {
        Flat::Value(v) => Some(Ok(v)),
        Flat::OverBudget { line, at } => Some(Err(too_many_values(line, at, nodes))),
        Flat::Other => None,
    }
}

/// Parses with serde-saphyr alone (no shortcut for flat blocks).
pub fn parse_full(text: &str) -> Result<Value, YamlError> {
    parse_full_within(text, MAX_TEXT_NODES)
}

/// [`parse_within`] without the shortcut for flat blocks: for a text [`flat_lines`] has
/// already turned down.
pub(crate) fn parse_full_within(text: &str, nodes: usize) -> Result<Value, YamlError> {
    // A text long enough to break the budget is counted on the parser's events first, so a
    // hostile one is refused before any of its values is built.
    if may_hold_more_than(text, nodes)
        && let Some((_, _, at)) = past_budget(text, nodes)
    {
        let before = &text[..at];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let line = before.matches('\n').count();
        return Err(too_many_values(line, &text[line_start..at], nodes));
    }
    if text.trim().is_empty() {
        return Ok(Value::Null);
    }
    serde_saphyr::from_str_with_options::<Value>(text, options_with_nodes(nodes)).map_err(|e| {
        if refused_anchor(&e)
            && let Some(a) = anchors(text).first()
        {
            let before = &text[..a.span.start as usize];
            let line_start = before.rfind('\n').map_or(0, |i| i + 1);
            return YamlError {
                line: before.matches('\n').count() as u32 + 1,
                column: before[line_start..].chars().count() as u32 + 1,
                message: "YAML anchors and aliases are not allowed".into(),
                too_many_values: false,
                anchors: true,
            };
        }
        let (line, column) = e
            .location()
            .map(|l| (l.line() as u32, l.column() as u32))
            .unwrap_or((0, 0));
        let raw = e.to_string();
        YamlError {
            line,
            column,
            too_many_values: raw.contains("budget breached: Nodes"),
            anchors: false,
            message: reword(&clean_message(&raw)),
        }
    })
}

/// The common case of `with:` blocks, decided without the full parser: one
/// `key: value` per line, all at column 0, plain keys, and values that are
/// quoted strings without escapes or plain scalars whose YAML type is
/// unambiguous (null, boolean, decimal integer, or text). Anything else —
/// nesting, flow collections, floats, escapes, anchors, tags, comments after
/// values, repeated keys — returns `None` and goes to serde-saphyr. A property
/// test checks that both give the same value wherever this answers. `lines` are the
/// text's `count` lines, without their line breaks.
fn flat_mapping<'t>(lines: impl Iterator<Item = &'t str>, count: usize, budget: usize) -> Flat<'t> {
    // Sized for one member per line: growing would hash every key again.
    let mut map = serde_json::Map::with_capacity(count.min(budget));
    let mut nodes = 1;
    for (n, line) in lines.enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let Some(colon) = crate::bytes::find_byte(line.as_bytes(), b':') else {
            return Flat::Other;
        };
        let (key, after) = (&line[..colon], &line[colon + 1..]);
        if key.is_empty()
            || !key
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
            || !key.as_bytes()[0].is_ascii_alphabetic()
            || !(after.is_empty() || after.starts_with(' '))
        {
            return Flat::Other;
        }
        let raw = after.trim();
        let value_at = colon + 1 + (after.len() - after.trim_start().len());
        // The key, and the value (a flow list is itself and its items): a list that passes
        // the budget is not built.
        if nodes + 2 > budget {
            let at = if nodes + 1 > budget { 0 } else { value_at };
            return Flat::OverBudget {
                line: n,
                at: &line[..at],
            };
        }
        if let Some(at) = list_past_budget(raw, budget - nodes - 2) {
            return Flat::OverBudget {
                line: n,
                at: &line[..value_at + at],
            };
        }
        let Some(value) = flat_scalar(raw) else {
            return Flat::Other;
        };
        nodes += 1 + value.as_array().map_or(1, |items| items.len() + 1);
        if map.insert(key.to_string(), value).is_some() {
            return Flat::Other;
        }
    }
    if map.is_empty() {
        Flat::Other
    } else {
        Flat::Value(Value::Object(map))
    }
}

/// For a flat flow list (`[a, b, 3]`) with more than `room` items whose items up to there are
/// flat scalars: the byte (in `raw`) of the first item past `room`.
fn list_past_budget(raw: &str, room: usize) -> Option<usize> {
    let inner = raw.strip_prefix('[')?.strip_suffix(']')?;
    if inner.bytes().filter(|&b| b == b',').count() < room {
        return None;
    }
    let mut at = 1;
    for (i, item) in inner.split(',').enumerate() {
        let trimmed = item.trim();
        if trimmed.is_empty() || trimmed.contains(['[', ']', '{', '}', '"', '\'', '#', ':']) {
            return None;
        }
        flat_scalar(trimmed)?;
        if i == room {
            return Some(at + (item.len() - item.trim_start().len()));
        }
        at += item.len() + 1;
    }
    None
}

/// A scalar whose YAML 1.2 core typing is unambiguous, or `None`.
fn flat_scalar(v: &str) -> Option<Value> {
    if v.is_empty() {
        return Some(Value::Null);
    }
    // A flow list of such scalars: `[a, b, 3]`.
    if let Some(inner) = v.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        if inner.trim().is_empty() {
            return Some(Value::Array(Vec::new()));
        }
        let mut commas = 0;
        for b in inner.bytes() {
            match b {
                b'[' | b']' | b'{' | b'}' | b'"' | b'\'' | b'#' | b':' => return None,
                b',' => commas += 1,
                _ => {}
            }
        }
        let mut items = Vec::with_capacity(commas + 1);
        for item in inner.split(',') {
            let item = item.trim();
            if item.is_empty() {
                return None;
            }
            items.push(flat_scalar(item)?);
        }
        return Some(Value::Array(items));
    }
    let b = v.as_bytes();
    if b[0] == b'"' {
        let inner = v.strip_prefix('"')?.strip_suffix('"')?;
        return (!inner.contains(['"', '\\'])).then(|| Value::String(inner.to_string()));
    }
    if b[0] == b'\'' {
        let inner = v.strip_prefix('\'')?.strip_suffix('\'')?;
        return (!inner.contains('\'')).then(|| Value::String(inner.to_string()));
    }
    match v {
        "~" | "null" | "Null" | "NULL" => return Some(Value::Null),
        "true" | "True" | "TRUE" => return Some(Value::Bool(true)),
        "false" | "False" | "FALSE" => return Some(Value::Bool(false)),
        _ => {}
    }
    // Decimal integers without sign `+` or leading zeros (`007` is not an
    // integer to every YAML reader; leave it to the full parser).
    let digits = v.strip_prefix('-').unwrap_or(v);
    if !digits.is_empty()
        && digits.bytes().all(|c| c.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'))
    {
        return v.parse::<i64>().ok().map(Value::from);
    }
    // Leave to the full parser: indicators, numbers in other forms (floats,
    // hex, octal, .inf), and text with `: ` or ` #` inside.
    let first_is_indicator = b"-?:,[]{}#&*!|>'\"%@`.+0123456789".contains(&b[0]);
    // One pass for `: `, ` #` and tabs (substring searches would each set up a searcher).
    let risky = b
        .windows(2)
        .any(|w| (w[0] == b':' && w[1] == b' ') || (w[0] == b' ' && w[1] == b'#') || w[0] == b'\t');
    if first_is_indicator || risky || b[b.len() - 1] == b':' || b[b.len() - 1] == b'\t' {
        return None;
    }
    Some(Value::String(v.to_string()))
}

/// Parses a one-line value the way the language types values after
/// `equals`, `contains` and `is`: YAML when it parses, otherwise the text.
pub fn scalar_or_text(text: &str) -> Value {
    match parse(text) {
        Ok(v) => v,
        Err(_) => Value::String(text.to_string()),
    }
}

/// The YAML parser's message, reworded where it speaks to programmers (never the name of a
/// parser option, nor a Rust value): the one wording of YAML suites and `.mcpr` blocks.
pub(crate) fn reword(message: &str) -> String {
    if let Some(rest) = message.strip_prefix("duplicate mapping key: ") {
        let key = rest
            .split(", set DuplicateKeyPolicy")
            .next()
            .unwrap_or(rest);
        return format!("the key `{key}` appears twice in the same mapping");
    }
    if let Some(rest) = message.strip_prefix("budget breached: ") {
        if let Some(depth) = rest
            .strip_prefix("Depth { depth: ")
            .and_then(|r| r.strip_suffix(" }"))
        {
            let limit = depth.parse::<u64>().map_or(64, |d| d.saturating_sub(1));
            return format!("values are nested more than {limit} levels deep here");
        }
        if let Some(nodes) = rest
            .strip_prefix("Nodes { nodes: ")
            .and_then(|r| r.strip_suffix(" }"))
            .and_then(|n| n.parse::<u64>().ok())
        {
            return format!(
                "the YAML holds more than {} values (keys, list items and scalars), the most it may hold",
                nodes.saturating_sub(1)
            );
        }
        return format!("the document exceeds a reading limit ({rest})");
    }
    message.to_string()
}

/// Keeps the first line of the parser's message and drops any position it
/// appends (positions are reported through the diagnostic itself).
pub(crate) fn clean_message(raw: &str) -> String {
    let mut first = raw.lines().next().unwrap_or(raw).trim();
    first = first.strip_prefix("error:").unwrap_or(first).trim_start();
    if first.starts_with("line ")
        && let Some(i) = first.find(": ")
    {
        first = &first[i + 2..];
    }
    let cut = [" at line ", " at position ", ", at line "]
        .iter()
        .filter_map(|pat| first.find(pat))
        .min()
        .unwrap_or(first.len());
    let msg = first[..cut].trim_end_matches([':', ',', '.', ' ']);
    if msg.is_empty() {
        "invalid YAML".to_string()
    } else {
        msg.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_counted_as_the_parser_counts_its_nodes() {
        // The mapping, two keys, the list and `x`, the list's two items, `b` and 2.
        let v = serde_json::json!({"a": [1, {"b": 2}], "c": "x"});
        assert_eq!(node_count(&v), 9);
        assert_eq!(node_count(&serde_json::json!("x")), 1);
        assert_eq!(node_count(&serde_json::json!([[], {}])), 3);
        let text = "a:\n  - 1\n  - b: 2\nc: x\n";
        assert!(parse_within(text, 9).is_ok());
        assert!(parse_within(text, 8).is_err_and(|e| e.too_many_values));
    }

    /// The shortcut's reading of a whole text.
    fn flat_of(text: &str) -> Flat<'_> {
        flat_mapping(text.split('\n'), text.lines().count(), MAX_TEXT_NODES)
    }

    #[test]
    fn a_flat_block_past_its_budget_is_located() {
        // At the list item past the budget, and at the value that does not fit.
        let e = parse_within("a: 1\nb: [1, 2, 3]\n", 6).unwrap_err();
        assert!(e.too_many_values);
        assert_eq!((e.line, e.column), (2, 8));
        let e = parse_within("a: 1\r\nb: 2\r\n", 4).unwrap_err();
        assert_eq!((e.line, e.column), (2, 4));
        // The same block read from its lines, as a `.mcpr` block is.
        let lines = ["# first", "", "a: 1", "b: 2"];
        let Some(Err(e)) = flat_lines(lines.into_iter(), lines.len(), 4) else {
            panic!("a flat block past its budget")
        };
        assert_eq!((e.line, e.column), (4, 4));
    }

    #[test]
    fn flat_blocks_match_the_full_parser() {
        for text in [
            "a: 1\nb: \"x\"\nc: true\nd: ~\ne:\nf: hello world\ng: -7\nh: 0\n",
            "name: Customer 1\ntier: gold\n# comment\nid: '${row.id}'\n",
        ] {
            let Flat::Value(fast) = flat_of(text) else {
                panic!("flat: {text}")
            };
            let full = serde_saphyr::from_str_with_options::<Value>(
                text,
                options_with_nodes(MAX_TEXT_NODES),
            )
            .unwrap();
            assert_eq!(fast, full, "{text}");
        }
        for text in [
            "a: 007",
            "a: +1",
            "a: [1, [2]]",
            "a: [1,]",
            "a: 1.5",
            "a:\n  b: 1",
            "a: 1\na: 2",
            "a: b: c",
            "a: x # c",
            "- 1",
        ] {
            assert!(matches!(flat_of(text), Flat::Other), "{text}");
        }
    }

    /// The values the parser's events count, as [`past_budget`] counts them.
    fn values(text: &str) -> usize {
        use serde_saphyr::granit_parser::{Event, Parser};
        Parser::new_from_str(text)
            .map_while(Result::ok)
            .filter(|(e, _)| {
                matches!(
                    e,
                    Event::Scalar(..) | Event::SequenceStart(..) | Event::MappingStart(..)
                )
            })
            .count()
    }

    #[test]
    fn the_byte_bound_holds_every_value() {
        let mut texts: Vec<String> = [
            ":",
            ": \n:",
            "-",
            "- - -\n-",
            "?",
            "? \n? :",
            "{a, b}",
            "{:}",
            "[:]",
            "[a, b, c]",
            "{a: [b, {c}], d}",
            "a:\nb:\n",
            "[0,0,0,0]",
            "a: [1,2]\nb: {c: d}",
            "--- \n---\n",
            "- [a, {b: c}]\n- :\n- ? x\n",
            "x: |\n  text\n",
            "k: !!str",
            "[[[]]]",
            "{{}: {}}",
        ]
        .iter()
        .map(|t| t.to_string())
        .collect();
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../conformance-tests/yaml");
        for dir in ["valid", "invalid"] {
            for entry in std::fs::read_dir(format!("{root}/{dir}"))
                .into_iter()
                .flatten()
            {
                if let Ok(text) = std::fs::read_to_string(entry.expect("an entry").path()) {
                    texts.push(text);
                }
            }
        }
        assert!(texts.len() > 30);
        for text in &texts {
            assert!(values_at_most(text) >= values(text), "{text}");
        }
        let mut json: Vec<String> = [
            "{\"a\": [1, 2, {\"b\": null}], \"c\": {}}",
            "[]",
            "{}",
            "\"x\"",
            "[[], [[]], {\"k\": []}]",
            "{\"a\": {\"b\": {\"c\": [1, [2, [3]]]}}}",
        ]
        .iter()
        .map(|t| t.to_string())
        .collect();
        let root = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../conformance-tests/yaml/valid"
        );
        for entry in std::fs::read_dir(root).into_iter().flatten() {
            let path = entry.expect("an entry").path();
            if path.extension().is_some_and(|e| e == "json") {
                let text = std::fs::read_to_string(&path).expect("a JSON suite");
                json.push(text.trim_start_matches('\u{feff}').to_string());
            }
        }
        for text in &json {
            assert!(json_values_at_most(text) >= values(text), "{text}");
        }
    }

    #[test]
    fn yaml_one_one_booleans_stay_text() {
        let v = parse("a: yes\nb: true\nc: 007\nd: \"007\"").unwrap();
        assert_eq!(v["a"], Value::String("yes".into()));
        assert_eq!(v["b"], Value::Bool(true));
        assert_eq!(v["d"], Value::String("007".into()));
    }

    #[test]
    fn duplicate_keys_are_errors_with_positions() {
        let e = parse("a: 1\nb: 2\na: 3\n").unwrap_err();
        assert_eq!(e.line, 3);
        assert_eq!(e.message, "the key `a` appears twice in the same mapping");
    }

    #[test]
    fn scalar_fallback() {
        assert_eq!(scalar_or_text("2"), serde_json::json!(2));
        assert_eq!(scalar_or_text("[1, 2]"), serde_json::json!([1, 2]));
        assert_eq!(scalar_or_text("a: b: c"), Value::String("a: b: c".into()));
    }
}
