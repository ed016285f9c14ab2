//! The located tree of an ordinary YAML suite, read straight from the parser's events.
//!
//! [`super::tree::read`] reads a document through serde-saphyr, which types every scalar,
//! enforces the input budgets and words every error. Most of its time goes into the serde
//! machinery around the events rather than into parsing them, so a document that uses only
//! the ordinary part of YAML — plain, quoted and block scalars, block and flow collections,
//! text keys — is built here from the events directly. Anything else answers `None` and the
//! document is read by serde-saphyr as before: a syntax error, a tag, an anchor or alias, a
//! merge key, a repeated key, a key that is neither text nor a whole number, a second
//! document or a directive, a plain scalar whose YAML type is not plainly null, a boolean,
//! a number written as JSON writes one, or text (hex, `1_000`, `.inf`, `1.`, dates …), and a
//! document past the depth, value, event or scalar-byte budget. A test reads every YAML and
//! JSON text of the repository, awkward forms and random documents both ways and compares
//! the trees, spans included.

use super::tree::{Entry, Kind, Node};
use crate::source::Span;
use serde_saphyr::granit_parser::{Event, Parser, ScalarStyle};
use std::collections::HashSet;

/// The tree of `text`, when it uses only what this reader types exactly as serde-saphyr
/// does and holds at most `nodes` values; `None` sends it to serde-saphyr.
pub(super) fn read(text: &str, nodes: usize) -> Option<Node> {
    let budget = serde_saphyr::budget::Budget::default();
    let mut options = serde_saphyr::granit_parser::Options::default();
    // Comments carry no value (the serde path does not ask for them either).
    options.emit_comments = false;
    // The parser limits serde-saphyr sets from the same budget, so what fails there fails here.
    options.simple_key_max_lookahead = budget.simple_key_max_lookahead;
    options.flow_nesting_limit = budget.flow_nesting_limit;
    options.block_nesting_limit = options
        .block_nesting_limit
        .max(budget.max_depth.saturating_add(1));
    let max_events = max_events(nodes);
    let mut builder = Builder::new(nodes);
    let mut documents = 0;
    for (events, item) in Parser::new_from_str_with_options(text, options).enumerate() {
        if events >= max_events {
            return None;
        }
        let (event, span) = item.ok()?;
        let at = span_of(text, &span)?;
        let map = matches!(event, Event::MappingStart(..));
        match event {
            Event::StreamStart | Event::DocumentEnd => {}
            Event::StreamEnd => break,
            Event::DocumentStart(_, version) => {
                documents += 1;
                if documents > 1 || version.is_some() {
                    return None;
                }
            }
            Event::Scalar(value, style, anchor, tag) => {
                if anchor != 0 || tag.is_some() {
                    return None;
                }
                builder.scalar(value.as_ref(), style, at)?;
            }
            Event::SequenceStart(_, anchor, tag) | Event::MappingStart(_, anchor, tag) => {
                if anchor != 0 || tag.is_some() {
                    return None;
                }
                builder.open(map, at)?;
            }
            Event::SequenceEnd | Event::MappingEnd => builder.close()?,
            _ => return None,
        }
    }
    builder.done
}

/// The byte span of a parser span (string input always has byte offsets).
fn span_of(text: &str, span: &serde_saphyr::granit_parser::Span) -> Option<Span> {
    let start = span.start.byte_offset()?;
    let end = span.end.byte_offset()?.max(start);
    (end <= text.len()).then(|| Span::new(start, end))
}

/// A collection being read, with the key waiting for its value when it is a mapping. Its
/// items or entries wait in the builder's pending lists from `start` until it closes.
struct Open {
    /// Its span and kind; its list stays empty until it closes.
    node: Node,
    start: usize,
    key: Option<(String, Span)>,
    /// The keys of a mapping past [`SCAN_KEYS`] entries, so a repeat is found by a lookup.
    keys: HashSet<String>,
}

/// Mappings up to this many entries look for a repeated key by scanning them.
const SCAN_KEYS: usize = 16;

impl Open {
    /// Whether `key` is already a key of this mapping, whose entries so far are those of
    /// `pending` from its start (it is remembered when it is not).
    fn repeats(&mut self, pending: &[Entry], key: &str) -> bool {
        let entries = pending.get(self.start..).unwrap_or_default();
        if entries.len() < SCAN_KEYS {
            return entries.iter().any(|e| e.key == key);
        }
        if self.keys.is_empty() {
            self.keys = entries.iter().map(|e| e.key.clone()).collect();
        }
        !self.keys.insert(key.to_string())
    }
}

/// The most parser events a document of `nodes` values may take (serde-saphyr's bound).
pub(super) fn max_events(nodes: usize) -> usize {
    serde_saphyr::budget::Budget::default()
        .max_events
        .max(nodes.saturating_mul(4))
}

/// Builds the tree from a document's events: scalars, and the starts and ends of
/// collections, each with its span. Every method answers `None` for what only serde-saphyr
/// types or words exactly (a repeated key, a key that is not text, a budget passed).
pub(super) struct Builder {
    stack: Vec<Open>,
    /// The items and entries of the open collections, innermost last. A collection's list
    /// is made when it closes, at its exact length: lists grown an item at a time would
    /// leave about a third of a large tree's memory unused.
    items: Vec<Node>,
    entries: Vec<Entry>,
    done: Option<Node>,
    nodes: usize,
    budget: usize,
    max_depth: usize,
    scalar_bytes: usize,
    max_scalar_bytes: usize,
}

impl Builder {
    /// A builder for a document of at most `nodes` values, within serde-saphyr's budget.
    pub(super) fn new(nodes: usize) -> Builder {
        let budget = serde_saphyr::budget::Budget::default();
        Builder {
            stack: Vec::new(),
            items: Vec::new(),
            entries: Vec::new(),
            done: None,
            nodes: 0,
            budget: nodes,
            max_depth: budget.max_depth,
            scalar_bytes: 0,
            max_scalar_bytes: budget.max_total_scalar_bytes,
        }
    }

    /// The document, once its last value is placed.
    pub(super) fn finish(self) -> Option<Node> {
        if self.stack.is_empty() {
            self.done
        } else {
            None
        }
    }

    /// Whether the next value is a key: the innermost collection is a mapping without one.
    fn wants_key(&self) -> bool {
        self.stack
            .last()
            .is_some_and(|o| o.key.is_none() && matches!(o.node.kind, Kind::Map(_)))
    }

    /// Counts one value against the budget.
    fn count(&mut self) -> Option<()> {
        self.nodes += 1;
        (self.nodes <= self.budget).then_some(())
    }

    pub(super) fn scalar(&mut self, value: &str, style: ScalarStyle, span: Span) -> Option<()> {
        self.count()?;
        self.scalar_bytes += value.len();
        if self.scalar_bytes > self.max_scalar_bytes {
            return None;
        }
        if self.wants_key() {
            let key = match style {
                ScalarStyle::Plain => match typed(value)? {
                    Kind::String(s) if s != "<<" => s,
                    // A whole number is its digits; a float key is written as serde
                    // writes the float, which serde-saphyr decides.
                    Kind::Number(n) if !n.is_f64() => n.to_string(),
                    _ => return None,
                },
                // `<<` is a merge key to some readers even quoted: serde-saphyr decides.
                _ if value == "<<" => return None,
                _ => value.to_string(),
            };
            let open = self.stack.last_mut()?;
            if open.repeats(&self.entries, &key) {
                return None;
            }
            open.key = Some((key, span));
            return Some(());
        }
        let kind = match style {
            ScalarStyle::Plain => typed(value)?,
            _ => Kind::String(value.to_string()),
        };
        self.place(Node { span, kind })
    }

    pub(super) fn open(&mut self, map: bool, span: Span) -> Option<()> {
        self.count()?;
        // A collection as a mapping key has no text form.
        if self.wants_key() {
            return None;
        }
        if self.stack.len() >= self.max_depth {
            return None;
        }
        let (kind, start) = if map {
            (Kind::Map(Vec::new()), self.entries.len())
        } else {
            (Kind::Seq(Vec::new()), self.items.len())
        };
        self.stack.push(Open {
            node: Node { span, kind },
            start,
            key: None,
            keys: HashSet::new(),
        });
        Some(())
    }

    pub(super) fn close(&mut self) -> Option<()> {
        let mut open = self.stack.pop()?;
        if open.key.is_some() {
            return None;
        }
        match &mut open.node.kind {
            Kind::Map(list) => *list = self.entries.drain(open.start..).collect(),
            Kind::Seq(list) => *list = self.items.drain(open.start..).collect(),
            _ => {}
        }
        self.place(open.node)
    }

    /// Puts a finished value where it belongs: the pending key's value, the next item, or
    /// the document.
    fn place(&mut self, node: Node) -> Option<()> {
        let Builder {
            stack,
            items,
            entries,
            done,
            ..
        } = self;
        match stack.last_mut() {
            None => {
                if done.is_some() {
                    return None;
                }
                *done = Some(node);
            }
            Some(open) => match &open.node.kind {
                Kind::Seq(_) => items.push(node),
                Kind::Map(_) => {
                    let (key, key_span) = open.key.take()?;
                    entries.push(Entry {
                        key,
                        key_span,
                        value: node,
                    });
                }
                _ => return None,
            },
        }
        Some(())
    }
}

/// The YAML 1.2 type of a plain scalar, as serde-saphyr gives it with YAML 1.2 booleans:
/// null, a boolean, a number written as JSON writes it, or text; `None` for every other form
/// a number or a special value may take (serde-saphyr types those).
fn typed(value: &str) -> Option<Kind> {
    match value {
        "" | "~" | "null" | "Null" | "NULL" => return Some(Kind::Null),
        "true" | "True" | "TRUE" => return Some(Kind::Bool(true)),
        "false" | "False" | "FALSE" => return Some(Kind::Bool(false)),
        _ => {}
    }
    let b = value.as_bytes();
    let second = b.get(1).copied().unwrap_or(b' ');
    let maybe_number = match b[0] {
        // Digits first: a number in some form (`0x1F`, `1_000`, `1.2.3`, a date) unless a
        // character no number form uses shows it is text (`10s`, `3 items`).
        b'0'..=b'9' => b
            .iter()
            .all(|c| c.is_ascii_hexdigit() || b"xXoObB_.eE:+-".contains(c)),
        // A sign or a dot before a digit, a dot, `inf` or `nan` (`-1`, `+.5`, `.inf`);
        // `--quiet`, `-p` and `.env` are text.
        b'-' | b'+' | b'.' => second.is_ascii_digit() || b".iInN".contains(&second),
        _ => false,
    };
    if maybe_number {
        return number(value);
    }
    Some(Kind::String(value.to_string()))
}

/// A number written as JSON writes one (`-12`, `0`, `4.5`, `1.5e3`): an integer when it
/// fits 64 bits, else a floating point number; `None` for every other form.
fn number(value: &str) -> Option<Kind> {
    let b = value.as_bytes();
    let sign = usize::from(b.first() == Some(&b'-'));
    let mut i = digits(b, sign)?;
    if i - sign > 1 && b[sign] == b'0' {
        return None;
    }
    if i == b.len() {
        if let Ok(n) = value.parse::<i64>() {
            return Some(Kind::Number(n.into()));
        }
        return value.parse::<u64>().ok().map(|n| Kind::Number(n.into()));
    }
    if b[i] == b'.' {
        i = digits(b, i + 1)?;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let sign = usize::from(b.get(i + 1).is_some_and(|c| *c == b'-' || *c == b'+'));
        i = digits(b, i + 1 + sign)?;
    }
    if i != b.len() {
        return None;
    }
    let f = value.parse::<f64>().ok()?;
    serde_json::Number::from_f64(f).map(Kind::Number)
}

/// The end of the run of at least one digit starting at `from`, or `None` when there is none.
fn digits(b: &[u8], from: usize) -> Option<usize> {
    let end = from
        + b.get(from..)?
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
    (end > from).then_some(end)
}
