//! The pieces statements are made of: keywords and phrases, quoted names, the rest of a
//! line, numbers, durations, types, and comma-separated lists.

use super::super::token::Tok;
use super::super::tree::*;
use super::{Extra, In, Lab, P};
use crate::source::Span;
use chumsky::label::LabelError;
use chumsky::prelude::*;

pub(super) fn span(s: SimpleSpan) -> Span {
    Span::new(s.start, s.end)
}

/// A keyword, matched case-insensitively on a word token.
pub(super) fn kw<'a, 's: 'a, E: Extra<'a, 's>>(
    k: &'static str,
) -> impl Parser<'a, In<'a, 's>, (), E> + Clone + 'a {
    select! { Tok::Word(w) if w.eq_ignore_ascii_case(k) => () }.lab::<E>(k)
}

/// A phrase of keywords separated by spaces, e.g. `"call tool"`.
pub(super) fn phrase<'a, 's: 'a, E: Extra<'a, 's>>(words: &'static str) -> P<'a, 's, (), E> {
    let mut it = words.split(' ');
    let mut p = kw(it.next().unwrap_or_default()).boxed();
    for w in it {
        p = p.then_ignore(kw(w)).boxed();
    }
    p
}

/// One of several alternative phrases.
pub(super) fn phrases<'a, 's: 'a, E: Extra<'a, 's>>(alts: &[&'static str]) -> P<'a, 's, (), E> {
    choice(alts.iter().map(|a| phrase(a)).collect::<Vec<_>>()).boxed()
}

pub(super) fn colon<'a, 's: 'a, E: Extra<'a, 's>>()
-> impl Parser<'a, In<'a, 's>, (), E> + Clone + 'a {
    just(Tok::Colon).ignored().lab::<E>("`:`")
}

pub(super) fn comma<'a, 's: 'a, E: Extra<'a, 's>>()
-> impl Parser<'a, In<'a, 's>, (), E> + Clone + 'a {
    just(Tok::Comma).ignored().lab::<E>("`,`")
}

/// Strips one pair of quotes from a quoted token.
pub(super) fn quoted_text(s: &str, sp: SimpleSpan) -> Text {
    Text {
        value: s[1..s.len() - 1].to_string(),
        span: Span::new(sp.start + 1, sp.end - 1),
        quoted: true,
    }
}

/// A quoted name: `"…"` or `'…'`.
pub(super) fn quoted<'a, 's: 'a, E: Extra<'a, 's>>()
-> impl Parser<'a, In<'a, 's>, Text, E> + Clone + 'a {
    select! {
        Tok::DoubleQuoted(s) = e => quoted_text(s, e.span()),
        Tok::SingleQuoted(s) = e => quoted_text(s, e.span()),
    }
    .lab::<E>("a quoted name")
}

/// A single word.
pub(super) fn word<'a, 's: 'a, E: Extra<'a, 's>>()
-> impl Parser<'a, In<'a, 's>, Text, E> + Clone + 'a {
    select! { Tok::Word(w) = e => Text::raw(w, span(e.span())) }.lab::<E>("a word")
}

/// Removes one outer pair of matching quotes, keeping the inner span.
pub fn unquote(text: &str, sp: Span) -> Text {
    let b = text.as_bytes();
    if b.len() >= 2 && (b[0] == b'"' || b[0] == b'\'') && b[b.len() - 1] == b[0] {
        Text {
            value: text[1..text.len() - 1].to_string(),
            span: Span::new(sp.start as usize + 1, sp.end as usize - 1),
            quoted: true,
        }
    } else {
        Text::raw(text, sp)
    }
}

/// The rest of the line, verbatim (at least one token).
pub(super) fn rest<'a, 's: 'a, E: Extra<'a, 's>>(
    src: &'s str,
) -> impl Parser<'a, In<'a, 's>, Text, E> + Clone + 'a {
    any()
        .repeated()
        .at_least(1)
        .to_span()
        .map(move |sp: SimpleSpan| Text::raw(&src[sp.start..sp.end], span(sp)))
        .lab::<E>("a value")
}

/// The rest of the line with one outer pair of quotes removed.
pub(super) fn unquoted_rest<'a, 's: 'a, E: Extra<'a, 's>>(
    src: &'s str,
) -> impl Parser<'a, In<'a, 's>, Text, E> + Clone + 'a {
    any()
        .repeated()
        .at_least(1)
        .to_span()
        .map(move |sp: SimpleSpan| unquote(&src[sp.start..sp.end], span(sp)))
        .lab::<E>("a value")
}

/// An optional trailing `with:`.
pub(super) fn with_opt<'a, 's: 'a, E: Extra<'a, 's>>()
-> impl Parser<'a, In<'a, 's>, bool, E> + Clone + 'a {
    kw("with").then(colon()).or_not().map(|o| o.is_some())
}

/// A whole number as written.
pub(super) fn number<'a, 's: 'a, E: Extra<'a, 's>>()
-> impl Parser<'a, In<'a, 's>, Number, E> + Clone + 'a {
    select! { Tok::Word(w) = e => make_number(w, span(e.span())) }.lab::<E>("a number")
}

/// Builds a `Number`, keeping the text when it is not an integer.
pub fn make_number(text: &str, sp: Span) -> Number {
    let digits = text.strip_prefix('+').unwrap_or(text);
    let valid = !digits.is_empty()
        && digits
            .strip_prefix('-')
            .unwrap_or(digits)
            .bytes()
            .all(|b| b.is_ascii_digit())
        && digits != "-";
    Number {
        text: text.to_string(),
        value: if valid { digits.parse().ok() } else { None },
        span: sp,
    }
}

/// Words that can follow a duration inside a statement and so are never taken
/// as its unit.
pub(super) const AFTER_DURATION: &[&str] = &["over", "with", "and"];

/// A duration: `5 seconds`, `500 ms` or `800ms`.
pub(super) fn duration<'a, 's: 'a, E: Extra<'a, 's>>()
-> impl Parser<'a, In<'a, 's>, Duration, E> + Clone + 'a {
    let first = select! { Tok::Word(w) = e => (w, e.span()) };
    let unit = select! {
        Tok::Word(w) if w.chars().all(char::is_alphabetic)
            && !AFTER_DURATION.iter().any(|k| w.eq_ignore_ascii_case(k)) => w
    };
    first
        .then(unit.or_not())
        .map_with(|((n, _), u), e| make_duration(n, u, span(e.span())))
        .lab::<E>("a duration")
}

/// Splits and converts a duration; invalid parts leave `ms` empty.
pub fn make_duration(first: &str, unit: Option<&str>, sp: Span) -> Duration {
    let (number, unit) = match unit {
        Some(u) => (first.to_string(), u.to_string()),
        None => {
            let cut = first
                .find(|c: char| c.is_alphabetic())
                .unwrap_or(first.len());
            (first[..cut].to_string(), first[cut..].to_string())
        }
    };
    let ms = duration_ms(&number, &unit);
    Duration {
        number,
        unit,
        ms,
        span: sp,
    }
}

/// Milliseconds of a number and unit, when both are valid.
pub fn duration_ms(number: &str, unit: &str) -> Option<u64> {
    if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u64 = number.parse().ok()?;
    let factor = unit_factor(unit)?;
    n.checked_mul(factor)
}

/// Milliseconds per unit, for the units the language knows.
pub fn unit_factor(unit: &str) -> Option<u64> {
    match unit.to_ascii_lowercase().as_str() {
        "ms" | "millisecond" | "milliseconds" => Some(1),
        "s" | "second" | "seconds" => Some(1000),
        _ => None,
    }
}

pub(super) fn value_type<'a, 's: 'a, E: Extra<'a, 's>>()
-> impl Parser<'a, In<'a, 's>, ValueType, E> + Clone + 'a {
    select! { Tok::Word(w) = e => (w, e.span()) }
        .try_map(|(w, sp): (&str, SimpleSpan), _| {
            let t = match w.to_ascii_lowercase().as_str() {
                "string" => ValueType::String,
                "number" => ValueType::Number,
                "boolean" => ValueType::Boolean,
                "object" => ValueType::Object,
                "array" => ValueType::Array,
                "null" => ValueType::Null,
                "date" => ValueType::Date,
                "json" => ValueType::Json,
                _ => {
                    return Err(LabelError::expected_found(
                        ["a type: string, number, boolean, object, array or null"],
                        None,
                        sp,
                    ));
                }
            };
            Ok(t)
        })
        .lab::<E>("a type")
}

/// `Keyword: a, b, c` lists (items split later).
pub(super) fn list_setting<'a, 's: 'a, E: Extra<'a, 's>>(
    src: &'s str,
    words: &'static [&'static str],
    make: fn(Vec<Text>) -> Stmt,
) -> P<'a, 's, Stmt, E> {
    phrases(words)
        .ignore_then(colon())
        .ignore_then(rest(src))
        .map(move |t| make(split_list(&t)))
        .boxed()
}

/// Splits `a, "b", c` on commas; each item is trimmed and unquoted, empty
/// items are dropped. A quote that opens an item runs to its closing quote, so
/// a quoted item may hold commas (`"a, b"`); quotes inside an item are text.
pub fn split_list(t: &Text) -> Vec<Text> {
    let mut out = Vec::new();
    let base = t.span.start as usize;
    let mut start = 0usize;
    let s = t.value.as_str();
    let mut push = |from: usize, to: usize| {
        let piece = &s[from..to];
        let lead = piece.len() - piece.trim_start().len();
        let trimmed = piece.trim();
        if !trimmed.is_empty() {
            let a = base + from + lead;
            out.push(unquote(trimmed, Span::new(a, a + trimmed.len())));
        }
    };
    let mut quote: Option<char> = None;
    for (i, c) in s.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if (c == '"' || c == '\'') && s[start..i].trim().is_empty() => quote = Some(c),
            None if c == ',' => {
                push(start, i);
                start = i + 1;
            }
            None => {}
        }
    }
    push(start, s.len());
    out
}

/// Splits the values of `Call tool "NAME" with values …` on commas: each is `VALUE` or
/// `NAME=VALUE` (`NAME` as a legacy script names an argument: a letter or `_`, then letters,
/// digits, `_`, `-`, `.`), the value plain (trimmed, no comma) or quoted, `"…"` or `'…'`, which
/// keeps spaces and commas. An error is where the text breaks the form and what was expected
/// there.
pub fn split_values(t: &Text) -> Result<Vec<ToolValue>, (Span, String)> {
    let s = t.value.as_str();
    let base = t.span.start as usize;
    let span = |from: usize, to: usize| Span::new(base + from, base + to);
    let at = |from: usize, to: usize, quoted: bool| Text {
        value: s[from..to].to_string(),
        span: span(from, to),
        quoted,
    };
    if s.starts_with(':') {
        let why = "the values on this line, e.g. `with values 2, 3` (no block follows)";
        return Err((span(0, 1), why.into()));
    }
    let mut out: Vec<ToolValue> = Vec::new();
    let mut i = 0;
    loop {
        i += s[i..].len() - s[i..].trim_start().len();
        let ident = s[i..]
            .char_indices()
            .take_while(|&(k, c)| {
                c.is_ascii_alphabetic()
                    || c == '_'
                    || (k > 0 && (c.is_ascii_digit() || c == '-' || c == '.'))
            })
            .last()
            .map_or(0, |(k, c)| k + c.len_utf8());
        let name = (ident > 0 && s[i + ident..].starts_with('=')).then(|| at(i, i + ident, false));
        if name.is_some() {
            i += ident + 1;
        }
        let rest = &s[i..];
        let (value, next) = match rest.chars().next() {
            Some(q @ ('"' | '\'')) => {
                let Some(close) = rest[1..].find(q) else {
                    return Err((span(i, s.len()), format!("a closing {q}")));
                };
                let end = i + 1 + close;
                let after = s[end + 1..].trim_start();
                let gap = s.len() - (end + 1) - after.len();
                if !(after.is_empty() || after.starts_with(',')) {
                    let from = end + 1 + gap;
                    let to = from + after.find(',').unwrap_or(after.len());
                    let why = "`,` after a quoted value (it ends at its closing quote)";
                    return Err((span(from, s[..to].trim_end().len()), why.into()));
                }
                (at(i + 1, end, true), end + 1 + gap)
            }
            _ => {
                let len = rest.find(',').unwrap_or(rest.len());
                let trimmed = rest[..len].trim_end();
                if trimmed.is_empty() {
                    let why = "a value here (an empty text is written \"\")";
                    return Err((span(i, i + len.max(1).min(rest.len())), why.into()));
                }
                (at(i, i + trimmed.len(), false), i + len)
            }
        };
        if let Some(n) = &name
            && out
                .iter()
                .any(|v| v.name.as_ref().is_some_and(|o| o.value == n.value))
        {
            let why = format!("each argument once: `{}` is given twice", n.value);
            return Err((n.span, why));
        }
        out.push(ToolValue { name, value });
        i = next;
        if i >= s.len() {
            return Ok(out);
        }
        // `s[i]` is the comma.
        i += 1;
    }
}

/// Like `split_list`, without unquoting (flow defaults keep their quotes
/// for YAML typing).
pub(super) fn split_list_raw(t: &Text) -> Vec<Text> {
    split_list(t)
        .into_iter()
        .map(|item| {
            if item.quoted {
                let sp = Span::new(item.span.start as usize - 1, item.span.end as usize + 1);
                Text::raw(
                    &t.value[sp.start as usize - t.span.start as usize
                        ..sp.end as usize - t.span.start as usize],
                    sp,
                )
            } else {
                item
            }
        })
        .collect()
}
