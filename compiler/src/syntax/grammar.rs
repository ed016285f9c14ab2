//! The statement grammar: chumsky parsers over the tokens of one line, one
//! boxed function per rule, grouped by the statement's first word so a line
//! is tried only against the forms that can match it.

use super::token::Tok;
use super::tree::*;
use crate::source::Span;
use chumsky::extra::ParserExtra;
use chumsky::input::{Input as _, MappedInput};
use chumsky::label::LabelError;
use chumsky::prelude::*;
use std::collections::HashMap;

/// Parser input: the tokens of one line with their byte spans.
pub type In<'a, 's> = MappedInput<'a, Tok<'s>, SimpleSpan, &'a [(Tok<'s>, SimpleSpan)]>;
/// Parser extra with rich errors, for diagnosing a line that failed.
pub type Ex<'a, 's> = extra::Err<Rich<'a, Tok<'s>>>;
/// Parser extra without error details, for the fast path over valid lines.
pub type Fast = extra::Default;
/// A boxed rule, generic over how much it records about failures.
pub type P<'a, 's, O, E> = Boxed<'a, 'a, In<'a, 's>, O, E>;

/// What every rule needs of its parser extra: labels as static or owned
/// text. Both `Fast` and `Ex` qualify, so each rule is written once and
/// instantiated twice.
pub trait Extra<'a, 's: 'a>:
    ParserExtra<'a, In<'a, 's>, Error = Self::Err, State = (), Context = ()> + Sized + 'a
{
    /// The error type of this extra.
    type Err: LabelError<'a, In<'a, 's>, &'static str>
        + LabelError<'a, In<'a, 's>, String>
        + chumsky::error::Error<'a, In<'a, 's>>;
    /// A parser whose failures carry a label.
    type Labelled<O, P: Parser<'a, In<'a, 's>, O, Self> + Clone + 'a>: Parser<'a, In<'a, 's>, O, Self>
        + Clone
        + 'a;
    /// Labels `p` where failures are described. The fast path never describes one (a
    /// failed line is parsed again with rich errors), so it skips the label's
    /// bookkeeping, which runs on every alternative tried.
    fn label<O, P: Parser<'a, In<'a, 's>, O, Self> + Clone + 'a>(
        p: P,
        label: &'static str,
    ) -> Self::Labelled<O, P>;
}

impl<'a, 's: 'a> Extra<'a, 's> for Fast {
    type Err = EmptyErr;
    type Labelled<O, P: Parser<'a, In<'a, 's>, O, Self> + Clone + 'a> = P;
    fn label<O, P: Parser<'a, In<'a, 's>, O, Self> + Clone + 'a>(p: P, _: &'static str) -> P {
        p
    }
}

impl<'a, 's: 'a> Extra<'a, 's> for Ex<'a, 's> {
    type Err = Rich<'a, Tok<'s>>;
    type Labelled<O, P: Parser<'a, In<'a, 's>, O, Self> + Clone + 'a> =
        chumsky::label::Labelled<P, &'static str>;
    fn label<O, P: Parser<'a, In<'a, 's>, O, Self> + Clone + 'a>(
        p: P,
        label: &'static str,
    ) -> Self::Labelled<O, P> {
        p.labelled(label)
    }
}

/// `.lab::<E>(label)`: [`Extra::label`] as a method, in place of chumsky's `.labelled`.
trait Lab<'a, 's: 'a, O>: Sized {
    fn lab<E: Extra<'a, 's>>(self, label: &'static str) -> E::Labelled<O, Self>
    where
        Self: Parser<'a, In<'a, 's>, O, E> + Clone + 'a,
    {
        E::label(self, label)
    }
}

impl<'a, 's: 'a, O, P> Lab<'a, 's, O> for P {}

fn span(s: SimpleSpan) -> Span {
    Span::new(s.start, s.end)
}

/// A keyword, matched case-insensitively on a word token.
fn kw<'a, 's: 'a, E: Extra<'a, 's>>(
    k: &'static str,
) -> impl Parser<'a, In<'a, 's>, (), E> + Clone + 'a {
    select! { Tok::Word(w) if w.eq_ignore_ascii_case(k) => () }.lab::<E>(k)
}

/// A phrase of keywords separated by spaces, e.g. `"call tool"`.
fn phrase<'a, 's: 'a, E: Extra<'a, 's>>(words: &'static str) -> P<'a, 's, (), E> {
    let mut it = words.split(' ');
    let mut p = kw(it.next().unwrap_or_default()).boxed();
    for w in it {
        p = p.then_ignore(kw(w)).boxed();
    }
    p
}

/// One of several alternative phrases.
fn phrases<'a, 's: 'a, E: Extra<'a, 's>>(alts: &[&'static str]) -> P<'a, 's, (), E> {
    choice(alts.iter().map(|a| phrase(a)).collect::<Vec<_>>()).boxed()
}

fn colon<'a, 's: 'a, E: Extra<'a, 's>>() -> impl Parser<'a, In<'a, 's>, (), E> + Clone + 'a {
    just(Tok::Colon).ignored().lab::<E>("`:`")
}

fn comma<'a, 's: 'a, E: Extra<'a, 's>>() -> impl Parser<'a, In<'a, 's>, (), E> + Clone + 'a {
    just(Tok::Comma).ignored().lab::<E>("`,`")
}

/// Strips one pair of quotes from a quoted token.
fn quoted_text(s: &str, sp: SimpleSpan) -> Text {
    Text {
        value: s[1..s.len() - 1].to_string(),
        span: Span::new(sp.start + 1, sp.end - 1),
        quoted: true,
    }
}

/// A quoted name: `"…"` or `'…'`.
fn quoted<'a, 's: 'a, E: Extra<'a, 's>>() -> impl Parser<'a, In<'a, 's>, Text, E> + Clone + 'a {
    select! {
        Tok::DoubleQuoted(s) = e => quoted_text(s, e.span()),
        Tok::SingleQuoted(s) = e => quoted_text(s, e.span()),
    }
    .lab::<E>("a quoted name")
}

/// A single word.
fn word<'a, 's: 'a, E: Extra<'a, 's>>() -> impl Parser<'a, In<'a, 's>, Text, E> + Clone + 'a {
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
fn rest<'a, 's: 'a, E: Extra<'a, 's>>(
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
fn unquoted_rest<'a, 's: 'a, E: Extra<'a, 's>>(
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
fn with_opt<'a, 's: 'a, E: Extra<'a, 's>>() -> impl Parser<'a, In<'a, 's>, bool, E> + Clone + 'a {
    kw("with").then(colon()).or_not().map(|o| o.is_some())
}

/// A whole number as written.
fn number<'a, 's: 'a, E: Extra<'a, 's>>() -> impl Parser<'a, In<'a, 's>, Number, E> + Clone + 'a {
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
const AFTER_DURATION: &[&str] = &["over", "with", "and"];

/// A duration: `5 seconds`, `500 ms` or `800ms`.
fn duration<'a, 's: 'a, E: Extra<'a, 's>>() -> impl Parser<'a, In<'a, 's>, Duration, E> + Clone + 'a
{
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

fn value_type<'a, 's: 'a, E: Extra<'a, 's>>()
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

// ---------------------------------------------------------------- document

fn suite<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    kw("suite")
        .ignore_then(colon())
        .ignore_then(unquoted_rest(src))
        .map(|name| Stmt::Suite { name })
        .boxed()
}

fn server<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    kw("server")
        .ignore_then(colon())
        .ignore_then(rest(src))
        .map(|command| Stmt::Server { command })
        .boxed()
}

fn server_from_command_line<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("server from the command line")
        .then_ignore(end())
        .to(Stmt::ServerFromCommandLine)
        .boxed()
}

fn server_options<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("server options")
        .ignore_then(colon())
        .then_ignore(end())
        .to(Stmt::ServerOptions)
        .boxed()
}

fn server_options_for<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("server options for")
        .ignore_then(quoted())
        .then_ignore(colon())
        .then_ignore(end())
        .map(|name| Stmt::ServerOptionsFor { name })
        .boxed()
}

fn mcp_url<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    phrases(&["mcp url", "connect to"])
        .ignore_then(colon())
        .ignore_then(unquoted_rest(src))
        .map(|url| Stmt::McpUrl { url })
        .boxed()
}

fn named_server<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    phrase("named server")
        .ignore_then(quoted())
        .then_ignore(colon())
        .then(rest(src))
        .map(|(name, connection)| Stmt::NamedServer { name, connection })
        .boxed()
}

fn compare_target<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    phrases(&["compare target", "parity target"])
        .ignore_then(quoted())
        .then_ignore(colon())
        .then(rest(src))
        .map(|(name, connection)| Stmt::CompareTarget { name, connection })
        .boxed()
}

fn target_options_for<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("target options for")
        .ignore_then(quoted())
        .then_ignore(colon())
        .then_ignore(end())
        .map(|name| Stmt::TargetOptionsFor { name })
        .boxed()
}

fn default_timeout<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("default timeout")
        .ignore_then(colon())
        .ignore_then(duration())
        .then_ignore(end())
        .map(|duration| Stmt::DefaultTimeout { duration })
        .boxed()
}

fn budget<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    let percentile = select! { Tok::Word(w) = e => (w, e.span()) }
        .try_map(|(w, sp): (&str, SimpleSpan), _| {
            let body = w.strip_prefix('p').or_else(|| w.strip_prefix('P'));
            match body {
                Some(b) => Ok(make_number(b, Span::new(sp.start + 1, sp.end))),
                None => Err(LabelError::expected_found(
                    ["a percentile such as `p95`"],
                    None,
                    sp,
                )),
            }
        })
        .lab::<E>("a percentile such as `p95`");
    let window = kw("over").ignore_then(number()).then(word());
    kw("budget")
        .ignore_then(kw("for").ignore_then(quoted()).or_not())
        .then_ignore(colon())
        .then(percentile)
        .then(duration())
        .then(window.or_not())
        .then_ignore(end())
        .map(|(((test, percentile), max), window)| {
            let (window, window_unit) = match window {
                Some((n, u)) => (Some(n), Some(u)),
                None => (None, None),
            };
            Stmt::Budget(Box::new(Budget {
                test,
                percentile,
                max,
                window,
                window_unit,
            }))
        })
        .boxed()
}

/// `Keyword: a, b, c` lists (items split later).
fn list_setting<'a, 's: 'a, E: Extra<'a, 's>>(
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

fn redact<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    list_setting(src, &["redact"], |items| Stmt::Redact { items })
}

fn snapshots<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    kw("snapshots")
        .ignore_then(colon())
        .ignore_then(unquoted_rest(src))
        .map(|file| Stmt::Snapshots { file })
        .boxed()
}

fn ignore_snapshot_paths<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    list_setting(src, &["ignore snapshot paths"], |paths| {
        Stmt::IgnoreSnapshotPaths { paths }
    })
}

fn client_behavior<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrases(&["client behavior", "client behaviour"])
        .ignore_then(colon())
        .then_ignore(end())
        .to(Stmt::ClientBehavior)
        .boxed()
}

fn extensions<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    kw("extensions")
        .ignore_then(colon())
        .then_ignore(end())
        .to(Stmt::Extensions)
        .boxed()
}

fn functions<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    list_setting(src, &["functions", "custom functions"], |paths| {
        Stmt::Functions { paths }
    })
}

fn import_flows<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("import flows from")
        .ignore_then(quoted())
        .then_ignore(end())
        .map(|path| Stmt::ImportFlows { path })
        .boxed()
}

fn flow_header<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    kw("flow")
        .ignore_then(colon())
        .ignore_then(quoted())
        .then_ignore(end())
        .map(|name| Stmt::FlowHeader { name })
        .boxed()
}

fn data_source_header<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("data source")
        .ignore_then(colon())
        .ignore_then(quoted())
        .then_ignore(end())
        .map(|name| Stmt::DataSourceHeader { name })
        .boxed()
}

fn test_header<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    phrases(&["test", "scenario"])
        .ignore_then(colon())
        .ignore_then(unquoted_rest(src))
        .map(|name| Stmt::TestHeader { name })
        .boxed()
}

// ---------------------------------------------------------------- properties

fn inputs<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    kw("inputs")
        .ignore_then(colon())
        .ignore_then(rest(src))
        .map(|t| {
            let inputs = split_list_raw(&t)
                .into_iter()
                .map(|item| match item.value.find('=') {
                    Some(eq) => {
                        let base = item.span.start as usize;
                        let name = item.value[..eq].trim_end();
                        let dflt = item.value[eq + 1..].trim_start();
                        let dstart = item.span.end as usize - dflt.len();
                        FlowInput {
                            name: Text::raw(name, Span::new(base, base + name.len())),
                            default: Some(Text::raw(
                                dflt,
                                Span::new(dstart, item.span.end as usize),
                            )),
                        }
                    }
                    None => FlowInput {
                        name: item,
                        default: None,
                    },
                })
                .collect();
            Stmt::Inputs { inputs }
        })
        .boxed()
}

/// Like `split_list`, without unquoting (flow defaults keep their quotes
/// for YAML typing).
fn split_list_raw(t: &Text) -> Vec<Text> {
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

fn outputs<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    kw("outputs")
        .ignore_then(colon())
        .ignore_then(rest(src).or_not())
        .map(|value| Stmt::Outputs { value })
        .boxed()
}

fn id<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    phrases(&["id", "test id"])
        .ignore_then(colon())
        .ignore_then(unquoted_rest(src))
        .map(|id| Stmt::Id { id })
        .boxed()
}

fn on_server<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("on server")
        .ignore_then(quoted())
        .then_ignore(end())
        .map(|name| Stmt::OnServer { name })
        .boxed()
}

fn skip<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    kw("skip")
        .ignore_then(colon().ignore_then(unquoted_rest(src).or_not()).or_not())
        .then_ignore(end())
        .map(|r| Stmt::Skip {
            reason: r.flatten(),
        })
        .boxed()
}

fn continue_on_failure<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("continue on failure")
        .then_ignore(end())
        .to(Stmt::ContinueOnFailure)
        .boxed()
}

fn logical_name<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    phrase("logical name")
        .ignore_then(colon())
        .ignore_then(unquoted_rest(src))
        .map(|name| Stmt::LogicalName { name })
        .boxed()
}

fn data_row<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("data row")
        .ignore_then(colon())
        .then_ignore(end())
        .to(Stmt::DataRow)
        .boxed()
}

fn variables<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    kw("variables")
        .ignore_then(colon())
        .then_ignore(end())
        .to(Stmt::Variables)
        .boxed()
}

fn require<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    phrases(&[
        "require",
        "given the server supports",
        "given server supports",
    ])
    .ignore_then(colon())
    .ignore_then(rest(src))
    .map(|t| Stmt::Require {
        capabilities: split_list(&t),
    })
    .boxed()
}

fn require_protocol<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    list_setting(src, &["require protocol"], |versions| {
        Stmt::RequireProtocol { versions }
    })
}

fn depends_on<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    list_setting(src, &["depends on", "after"], |ids| Stmt::DependsOn { ids })
}

fn section<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    choice((
        kw("setup").to(Stmt::Setup),
        choice((kw("steps"), kw("step"), kw("actions"), kw("action"))).to(Stmt::Steps),
        kw("cleanup").to(Stmt::Cleanup),
    ))
    .then_ignore(colon())
    .then_ignore(end())
    .boxed()
}

// ---------------------------------------------------------------- actions

fn call_tool_lead<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, (), E> {
    phrases(&[
        "call tool",
        "call the tool",
        "when i call the tool",
        "when i call tool",
    ])
}

fn call_tool_progress<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    call_tool_lead()
        .ignore_then(quoted())
        .then_ignore(phrase("with progress"))
        .then(phrase("and cancel after").ignore_then(duration()).or_not())
        .then(with_opt())
        .then_ignore(end())
        .map(|((name, cancel_after), with)| Stmt::CallToolWithProgress {
            name,
            cancel_after,
            with,
        })
        .boxed()
}

fn call_tool<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    call_tool_lead()
        .ignore_then(quoted())
        .then(with_opt())
        .then_ignore(end())
        .map(|(name, with)| Stmt::CallTool { name, with })
        .boxed()
}

fn read_resource<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrases(&[
        "read resource",
        "read the resource",
        "when i read the resource",
        "when i read resource",
    ])
    .ignore_then(quoted())
    .then_ignore(end())
    .map(|uri| Stmt::ReadResource { uri })
    .boxed()
}

fn get_prompt<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrases(&[
        "get prompt",
        "get the prompt",
        "when i get the prompt",
        "when i get prompt",
    ])
    .ignore_then(quoted())
    .then(with_opt())
    .then_ignore(end())
    .map(|(name, with)| Stmt::GetPrompt { name, with })
    .boxed()
}

fn send<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrases(&["send", "when i send"])
        .ignore_then(quoted())
        .then(with_opt())
        .then_ignore(end())
        .map(|(method, with)| Stmt::Send { method, with })
        .boxed()
}

fn subscribe<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("subscribe to resource")
        .ignore_then(quoted())
        .then_ignore(end())
        .map(|uri| Stmt::Subscribe { uri })
        .boxed()
}

fn unsubscribe<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("unsubscribe from resource")
        .ignore_then(quoted())
        .then_ignore(end())
        .map(|uri| Stmt::Unsubscribe { uri })
        .boxed()
}

fn wait_for_notification<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("wait for notification")
        .ignore_then(quoted())
        .then(kw("within").ignore_then(duration()).or_not())
        .then_ignore(end())
        .map(|(method, within)| Stmt::WaitForNotification { method, within })
        .boxed()
}

fn wait_up_to<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("wait up to")
        .ignore_then(duration())
        .then_ignore(end())
        .map(|duration| Stmt::WaitUpTo { duration })
        .boxed()
}

fn set_log_level<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    phrase("set log level to")
        .ignore_then(unquoted_rest(src))
        .map(|level| Stmt::SetLogLevel { level })
        .boxed()
}

fn set_using<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    kw("set")
        .ignore_then(quoted())
        .then_ignore(kw("using"))
        .then(quoted())
        .then(with_opt())
        .then_ignore(end())
        .map(|((variable, function), with)| Stmt::SetUsing {
            variable,
            function,
            with,
        })
        .boxed()
}

fn list_all<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("list all")
        .ignore_then(choice((
            phrase("resource templates").to(ListKind::ResourceTemplates),
            kw("tools").to(ListKind::Tools),
            kw("resources").to(ListKind::Resources),
            kw("prompts").to(ListKind::Prompts),
        )))
        .then_ignore(end())
        .map(|what| Stmt::ListAll { what })
        .boxed()
}

fn list_tasks<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("list tasks")
        .then_ignore(end())
        .to(Stmt::ListTasks)
        .boxed()
}

fn get_task<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("get task")
        .ignore_then(quoted())
        .then_ignore(end())
        .map(|task| Stmt::GetTask { task })
        .boxed()
}

fn cancel_task<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("cancel task")
        .ignore_then(quoted())
        .then_ignore(end())
        .map(|task| Stmt::CancelTask { task })
        .boxed()
}

fn respond_elicitation<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("when the server asks for input")
        .ignore_then(comma())
        .ignore_then(kw("respond"))
        .ignore_then(quoted())
        .then(with_opt())
        .then_ignore(end())
        .map(|(action, with)| Stmt::RespondToElicitation { action, with })
        .boxed()
}

fn respond_sampling<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("when the server requests sampling")
        .ignore_then(comma())
        .ignore_then(kw("respond"))
        .ignore_then(quoted())
        .then_ignore(end())
        .map(|text| Stmt::RespondToSampling { text })
        .boxed()
}

fn use_flow<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("use flow")
        .ignore_then(quoted())
        .then(with_opt())
        .then_ignore(end())
        .map(|(name, with)| Stmt::UseFlow { name, with })
        .boxed()
}

fn run_step<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("run step with")
        .ignore_then(colon())
        .then_ignore(end())
        .to(Stmt::RunStep)
        .boxed()
}

fn for_each_row<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    let inline = colon().then_ignore(end()).to(Stmt::ForEachRow);
    let file = kw("in")
        .ignore_then(quoted())
        .then(phrase("from sheet").ignore_then(quoted()).or_not())
        .then_ignore(end())
        .map(|(file, sheet)| Stmt::ForEachRowIn { file, sheet });
    let source = kw("from")
        .ignore_then(quoted())
        .then_ignore(end())
        .map(|source| Stmt::ForEachRowFrom { source });
    phrase("for each row")
        .ignore_then(choice((inline, file, source)))
        .boxed()
}

// ---------------------------------------------------------------- expectations

fn expect_lead<'a, 's: 'a, E: Extra<'a, 's>>() -> impl Parser<'a, In<'a, 's>, (), E> + Clone + 'a {
    choice((kw("expect"), kw("then"))).then_ignore(kw("the").or_not())
}

fn expect_success<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    expect_lead()
        .ignore_then(kw("it").or_not())
        .ignore_then(choice((kw("succeeds"), kw("succeed"))))
        .then_ignore(end())
        .to(Stmt::ExpectSuccess)
        .boxed()
}

fn expect_error<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    expect_lead()
        .ignore_then(choice((kw("an"), kw("a"))).or_not())
        .ignore_then(kw("error"))
        .then_ignore(end())
        .to(Stmt::ExpectError)
        .boxed()
}

fn expect_error_code<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    expect_lead()
        .ignore_then(phrase("error code"))
        .ignore_then(number())
        .then_ignore(end())
        .map(|code| Stmt::ExpectErrorCode { code })
        .boxed()
}

fn expect_error_message<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    expect_lead()
        .ignore_then(phrase("error message"))
        .ignore_then(choice((
            kw("equals").to(Compare::Equals),
            kw("contains").to(Compare::Contains),
            kw("matches").to(Compare::Matches),
        )))
        .then(unquoted_rest(src))
        .map(|(compare, value)| Stmt::ExpectErrorMessage { compare, value })
        .boxed()
}

fn expect_finish<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    expect_lead()
        .ignore_then(phrase("call to finish within"))
        .ignore_then(duration())
        .then_ignore(end())
        .map(|duration| Stmt::ExpectFinishWithin { duration })
        .boxed()
}

fn expect_path<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    let not_equal = phrase("does not equal")
        .ignore_then(rest(src))
        .map(|v| (Compare::NotEquals, v));
    let equals = kw("equals")
        .ignore_then(rest(src))
        .map(|v| (Compare::Equals, v));
    let contains = kw("contains")
        .ignore_then(rest(src))
        .map(|v| (Compare::Contains, v));
    let is_value = kw("is")
        .ignore_then(rest(src))
        .map(|v| (Compare::Equals, v));
    let value = choice((not_equal, equals, contains, is_value));

    let is_type = kw("is")
        .ignore_then(choice((kw("an"), kw("a"))))
        .ignore_then(value_type())
        .then_ignore(end());
    let exists = kw("exists").then_ignore(end());
    let noun = select! {
        Tok::Word(w) if ["item", "items", "result", "results", "entry", "entries"]
            .iter().any(|k| w.eq_ignore_ascii_case(k)) => w
    }
    .map_with(|w, e| Text::raw(w, span(e.span())))
    .lab::<E>("`items`");
    let length = kw("has")
        .ignore_then(number())
        .then(noun)
        .then_ignore(end());
    let schema = phrase("matches schema")
        .then_ignore(colon())
        .then_ignore(end());
    let ignoring = kw("ignoring")
        .ignore_then(rest(src))
        .map(|t| split_list(&t));
    let snapshot = phrase("matches snapshot")
        .ignore_then(quoted())
        .then(ignoring.or_not())
        .then_ignore(end());
    let regex = kw("matches").ignore_then(unquoted_rest(src));

    expect_lead()
        .ignore_then(quoted())
        .then(choice((
            is_type.map(Tail::Type),
            exists.to(Tail::Exists),
            length.map(|(n, noun)| Tail::Length(n, noun)),
            schema.to(Tail::Schema),
            snapshot.map(|(name, ign)| Tail::Snapshot(name, ign.unwrap_or_default())),
            regex.map(|r| Tail::Value(Compare::Matches, r)),
            value.map(|(c, v)| Tail::Value(c, v)),
        )))
        .map(|(path, tail)| match tail {
            Tail::Type(kind) => Stmt::ExpectType { path, kind },
            Tail::Exists => Stmt::ExpectExists { path },
            Tail::Length(count, noun) => Stmt::ExpectLength { path, count, noun },
            Tail::Schema => Stmt::ExpectMatchesSchema { path },
            Tail::Snapshot(name, ignoring) => Stmt::ExpectSnapshot {
                path,
                name,
                ignoring,
            },
            Tail::Value(compare, value) => Stmt::ExpectValue {
                path,
                compare,
                value,
            },
        })
        .boxed()
}

/// What follows the path of an `Expect "path" …` line.
#[derive(Clone)]
enum Tail {
    Type(ValueType),
    Exists,
    Length(Number, Text),
    Schema,
    Snapshot(Text, Vec<Text>),
    Value(Compare, Text),
}

// ---------------------------------------------------------------- modifiers

fn save<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    choice((kw("save"), kw("remember")))
        .ignore_then(quoted())
        .then_ignore(kw("as"))
        .then(quoted())
        .then_ignore(end())
        .map(|(path, variable)| Stmt::Save { path, variable })
        .boxed()
}

fn export<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    let aggregate = kw("collecting").ignore_then(kw("a")).ignore_then(choice((
        kw("list").to(Aggregate::List),
        kw("map").to(Aggregate::Map),
    )));
    kw("export")
        .ignore_then(quoted())
        .then_ignore(kw("as"))
        .then(quoted())
        .then(aggregate.or_not())
        .then(kw("sensitive").or_not().map(|s| s.is_some()))
        .then_ignore(end())
        .map(|(((path, name), aggregate), sensitive)| Stmt::Export {
            path,
            name,
            aggregate,
            sensitive,
        })
        .boxed()
}

// ---------------------------------------------------------------- data phrases

fn from_file<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    let provider = select! {
        Tok::Word(w) if ["csv", "json", "yaml", "excel"].iter().any(|k| w.eq_ignore_ascii_case(k)) => w
    }
    .map_with(|w, e| Text::raw(&w.to_ascii_lowercase(), span(e.span())))
    .lab::<E>("CSV, JSON, YAML, Excel or REST");
    kw("from")
        .ignore_then(provider)
        .then(quoted())
        .then(kw("sheet").ignore_then(quoted()).or_not())
        .then_ignore(end())
        .map(|((provider, file), sheet)| Stmt::From {
            provider,
            file,
            sheet,
        })
        .boxed()
}

fn from_rest<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("from rest")
        .ignore_then(quoted())
        .then(kw("at").ignore_then(quoted()).or_not())
        .then_ignore(end())
        .map(|(url, at)| Stmt::FromRest { url, at })
        .boxed()
}

fn column<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    kw("column")
        .ignore_then(quoted())
        .then_ignore(kw("is"))
        .then(value_type())
        .then(kw("required").or_not().map(|r| r.is_some()))
        .then(phrase("one of").ignore_then(rest(src)).or_not())
        .then_ignore(end())
        .map(|(((name, kind), required), one_of)| Stmt::Column {
            name,
            kind,
            required,
            one_of: one_of.map(|t| split_list_raw(&t)).unwrap_or_default(),
        })
        .boxed()
}

fn derive<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    kw("derive")
        .ignore_then(quoted())
        .then_ignore(kw("as"))
        .then(unquoted_rest(src))
        .map(|(name, template)| Stmt::Derive { name, template })
        .boxed()
}

fn keep_rows<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    let compare = choice((
        kw("equals").to(Compare::Equals),
        phrase("does not equal").to(Compare::NotEquals),
        phrase("is one of").to(Compare::OneOf),
        kw("matches").to(Compare::Matches),
        phrase("is greater than").to(Compare::GreaterThan),
        phrase("is less than").to(Compare::LessThan),
    ));
    phrase("keep rows where")
        .ignore_then(quoted())
        .then(compare)
        .then(rest(src))
        .map(|((column, compare), value)| Stmt::KeepRowsWhere {
            column,
            compare,
            value,
        })
        .boxed()
}

fn sample<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    let rows = choice((kw("rows"), kw("row")));
    let mode = choice((
        kw("first").to(SampleMode::First),
        kw("last").to(SampleMode::Last),
        kw("every").to(SampleMode::Every),
    ));
    let by_mode = mode
        .then(number())
        .then_ignore(rows.clone())
        .then_ignore(end())
        .map(|(mode, count)| Stmt::Sample { mode, count });
    let seeded = number()
        .then_ignore(rows)
        .then_ignore(phrase("with seed"))
        .then(number())
        .then_ignore(end())
        .map(|(count, seed)| Stmt::SampleSeeded { count, seed });
    kw("sample").ignore_then(choice((by_mode, seeded))).boxed()
}

fn cache<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrases(&["cache this source", "cache source"])
        .then_ignore(end())
        .to(Stmt::Cache)
        .boxed()
}

// ---------------------------------------------------------------- the table

/// One statement rule with the usage line shown when a line starting like it
/// is malformed.
pub struct Rule<'a, 's> {
    /// How the statement is written.
    pub usage: &'static str,
    /// The parser.
    pub parser: P<'a, 's, Stmt, Ex<'a, 's>>,
}

/// Size of the first-word index (a power of two, well above the number of
/// first words so probes stay short).
const SLOTS: usize = 256;

/// FNV-1a hash of a lower-cased first word, reduced to a slot.
fn slot_of(word: &[u8]) -> usize {
    let mut h: u32 = 0x811c_9dc5;
    for &b in word {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    (h as usize) % SLOTS
}

/// A rule in both instantiations, before grouping.
type Entry<'a, 's> = (Rule<'a, 's>, P<'a, 's, Stmt, Fast>);

/// The rules of one first word: the word, all fast rules as one choice, and
/// the rich rules for diagnosis.
type Group<'a, 's> = (&'static str, P<'a, 's, Stmt, Fast>, Vec<Rule<'a, 's>>);

/// All rules, grouped by the lower-cased first word of the statement.
pub struct Grammar<'a, 's> {
    /// Open-addressing index: slot → position in `groups` + 1 (0 = empty).
    slots: [u8; SLOTS],
    groups: Vec<Group<'a, 's>>,
}

impl<'a, 's: 'a> Grammar<'a, 's> {
    /// Builds every rule for a file whose text is `src`.
    pub fn new(src: &'s str) -> Self {
        let mut by_word: HashMap<&'static str, Vec<Entry<'a, 's>>> = HashMap::new();
        let mut push = |words: &[&'static str],
                        usage: &'static str,
                        fast: P<'a, 's, Stmt, Fast>,
                        rich: P<'a, 's, Stmt, Ex<'a, 's>>| {
            for w in words {
                let rule = Rule {
                    usage,
                    parser: rich.clone(),
                };
                by_word.entry(w).or_default().push((rule, fast.clone()));
            }
        };
        // Each rule is built twice: without error details for the fast path
        // and with rich errors to diagnose a line that failed.
        macro_rules! add {
            ($words:expr, $usage:expr, $rule:ident($($arg:expr)?)) => {
                push($words, $usage, $rule::<Fast>($($arg)?), $rule::<Ex<'a, 's>>($($arg)?))
            };
        }
        add!(&["suite"], "Suite: NAME", suite(src));
        add!(
            &["server"],
            "Server options for \"NAME\":",
            server_options_for()
        );
        add!(&["server"], "Server options:", server_options());
        add!(&["server"], "Server: COMMAND ARGS…", server(src));
        add!(
            &["server"],
            "Server from the command line",
            server_from_command_line()
        );
        add!(&["mcp", "connect"], "MCP URL: URL", mcp_url(src));
        add!(
            &["named"],
            "Named server \"NAME\": COMMAND OR URL",
            named_server(src)
        );
        add!(
            &["compare", "parity"],
            "Compare target \"NAME\": COMMAND OR URL",
            compare_target(src)
        );
        add!(
            &["target"],
            "Target options for \"NAME\":",
            target_options_for()
        );
        add!(
            &["default"],
            "Default timeout: 10 seconds",
            default_timeout()
        );
        add!(
            &["budget"],
            "Budget for \"TEST\": p95 500 ms over 20 calls",
            budget()
        );
        add!(&["redact"], "Redact: \"VALUE\", \"VALUE\"", redact(src));
        add!(&["snapshots"], "Snapshots: FILE", snapshots(src));
        add!(
            &["ignore"],
            "Ignore snapshot paths: \"$.PATH\", \"$.PATH\"",
            ignore_snapshot_paths(src)
        );
        add!(&["client"], "Client behavior:", client_behavior());
        add!(
            &["functions", "custom"],
            "Functions: PATH, PATH",
            functions(src)
        );
        add!(&["extensions"], "Extensions:", extensions());
        add!(&["import"], "Import flows from \"PATH\"", import_flows());
        add!(&["flow"], "Flow: \"NAME\"", flow_header());
        add!(&["data"], "Data source: \"NAME\"", data_source_header());
        add!(&["test"], "Test ID: ID", id(src));
        add!(&["test", "scenario"], "Test: NAME", test_header(src));
        add!(&["inputs"], "Inputs: a, b=1", inputs(src));
        add!(&["outputs"], "Outputs: VALUE", outputs(src));
        add!(&["id"], "Id: ID", id(src));
        add!(&["on"], "On server \"NAME\"", on_server());
        add!(&["skip"], "Skip: REASON", skip(src));
        add!(&["variables"], "Variables:", variables());
        add!(&["continue"], "Continue on failure", continue_on_failure());
        add!(&["logical"], "Logical name: NAME", logical_name(src));
        add!(&["data"], "Data row:", data_row());
        add!(
            &["require"],
            "Require protocol: \"2025-06-18\"",
            require_protocol(src)
        );
        add!(
            &["require", "given"],
            "Require: CAPABILITY, CAPABILITY",
            require(src)
        );
        add!(&["depends", "after"], "Depends on: ID, ID", depends_on(src));
        add!(
            &["setup", "steps", "step", "actions", "action", "cleanup"],
            "Setup: / Steps: / Cleanup:",
            section()
        );
        // Within a group the most common form comes first: every rule ends
        // by requiring the end of the line, so order changes speed only.
        add!(&["call", "when"], "Call tool \"NAME\" with:", call_tool());
        add!(
            &["call", "when"],
            "Call tool \"NAME\" with progress and cancel after 500 ms with:",
            call_tool_progress()
        );
        add!(&["read", "when"], "Read resource \"URI\"", read_resource());
        add!(&["get", "when"], "Get prompt \"NAME\" with:", get_prompt());
        add!(&["send", "when"], "Send \"METHOD\" with:", send());
        add!(&["subscribe"], "Subscribe to resource \"URI\"", subscribe());
        add!(
            &["unsubscribe"],
            "Unsubscribe from resource \"URI\"",
            unsubscribe()
        );
        add!(
            &["wait"],
            "Wait for notification \"METHOD\" within 5 seconds",
            wait_for_notification()
        );
        add!(&["wait"], "Wait up to 2 seconds", wait_up_to());
        add!(&["set"], "Set log level to \"LEVEL\"", set_log_level(src));
        add!(
            &["set"],
            "Set \"VARIABLE\" using \"FUNCTION\" with:",
            set_using()
        );
        add!(
            &["list"],
            "List all tools|resources|prompts|resource templates",
            list_all()
        );
        add!(&["list"], "List tasks", list_tasks());
        add!(&["get"], "Get task \"TASK-ID\"", get_task());
        add!(&["cancel"], "Cancel task \"TASK-ID\"", cancel_task());
        add!(
            &["when"],
            "When the server asks for input, respond \"accept\" with:",
            respond_elicitation()
        );
        add!(
            &["when"],
            "When the server requests sampling, respond \"TEXT\"",
            respond_sampling()
        );
        add!(&["use"], "Use flow \"NAME\" with:", use_flow());
        add!(&["run"], "Run step with:", run_step());
        add!(
            &["for"],
            "For each row: | For each row in \"FILE\" | For each row from \"SOURCE\"",
            for_each_row()
        );
        add!(
            &["expect", "then"],
            "Expect \"PATH\" equals VALUE",
            expect_path(src)
        );
        add!(&["expect", "then"], "Expect it succeeds", expect_success());
        add!(&["expect", "then"], "Expect an error", expect_error());
        add!(
            &["expect", "then"],
            "Expect error code -32602",
            expect_error_code()
        );
        add!(
            &["expect", "then"],
            "Expect error message contains TEXT",
            expect_error_message(src)
        );
        add!(
            &["expect", "then"],
            "Expect the call to finish within 800 ms",
            expect_finish()
        );
        add!(
            &["save", "remember"],
            "Save \"PATH\" as \"VARIABLE\"",
            save()
        );
        add!(&["export"], "Export \"PATH\" as \"NAME\"", export());
        add!(&["from"], "From REST \"URL\" at \"PATH\"", from_rest());
        add!(&["from"], "From CSV \"FILE\"", from_file());
        add!(
            &["column"],
            "Column \"NAME\" is string required",
            column(src)
        );
        add!(&["derive"], "Derive \"NAME\" as TEMPLATE", derive(src));
        add!(
            &["keep"],
            "Keep rows where \"COLUMN\" equals VALUE",
            keep_rows(src)
        );
        add!(&["sample"], "Sample 25 rows with seed 2025", sample());
        add!(&["cache"], "Cache this source", cache());
        let groups = by_word
            .into_iter()
            .map(|(w, entries)| {
                let (rules, fast): (Vec<_>, Vec<_>) = entries.into_iter().unzip();
                (w, choice(fast).boxed(), rules)
            })
            .collect::<Vec<_>>();
        let mut groups = groups;
        groups.sort_by_key(|g| g.0);
        let mut slots = [0u8; SLOTS];
        for (i, g) in groups.iter().enumerate() {
            let mut at = slot_of(g.0.as_bytes());
            while slots[at] != 0 {
                at = (at + 1) % SLOTS;
            }
            slots[at] = u8::try_from(i + 1).expect("fewer than 255 first words");
        }
        Grammar { slots, groups }
    }

    /// Parses one line's tokens. `line_end` is the byte offset of the end of
    /// the line (for errors at the end of input).
    pub fn parse(&self, tokens: &'a [(Tok<'s>, SimpleSpan)], line_end: usize) -> LineResult {
        let Some((all, rules)) = self.group(tokens) else {
            return LineResult::Unknown;
        };
        let eoi = SimpleSpan::from(line_end..line_end);
        let input = tokens.split_token_span(eoi);
        if let Some(stmt) = all.parse(input).into_output() {
            return LineResult::Ok(stmt);
        }
        // Diagnose: find the rule that got furthest and report its usage.
        // Ties go to the rule that would have accepted the end of the line
        // there (the statement was complete), then to the simpler form.
        type Key = (usize, bool, std::cmp::Reverse<usize>);
        let mut best: Option<(Key, &'static str, Rich<'a, Tok<'s>>)> = None;
        for rule in rules {
            let errs = rule
                .parser
                .parse(tokens.split_token_span(eoi))
                .into_errors();
            if let Some(err) = errs.into_iter().next() {
                let wants_end = err
                    .expected()
                    .any(|p| matches!(p, chumsky::error::RichPattern::EndOfInput));
                let key = (
                    err.span().start,
                    wants_end,
                    std::cmp::Reverse(rule.usage.len()),
                );
                if best.as_ref().is_none_or(|(b, _, _)| key > *b) {
                    best = Some((key, rule.usage, err));
                }
            }
        }
        match best {
            Some((_, usage, err)) => {
                let sp = *err.span();
                LineResult::Malformed {
                    usage,
                    expected: describe_error(&err),
                    span: Span::new(sp.start, sp.end.max(sp.start)),
                    found_end: err.found().is_none(),
                }
            }
            None => LineResult::Unknown,
        }
    }

    /// The rules for the line's first word (compared without case and
    /// without allocating).
    fn group(
        &self,
        tokens: &[(Tok<'s>, SimpleSpan)],
    ) -> Option<(&P<'a, 's, Stmt, Fast>, &[Rule<'a, 's>])> {
        let Some((Tok::Word(w), _)) = tokens.first() else {
            return None;
        };
        let mut buf = [0u8; 16];
        let key = buf.get_mut(..w.len())?;
        for (d, b) in key.iter_mut().zip(w.bytes()) {
            *d = b.to_ascii_lowercase();
        }
        let key: &[u8] = key;
        let mut at = slot_of(key);
        loop {
            let g = &self.groups[usize::from(self.slots[at]).checked_sub(1)?];
            if g.0.as_bytes() == key {
                return Some((&g.1, &g.2));
            }
            at = (at + 1) % SLOTS;
        }
    }
}

/// Outcome of parsing one line.
pub enum LineResult {
    /// A statement.
    Ok(Stmt),
    /// The first word starts no statement.
    Unknown,
    /// Known opening words, wrong rest.
    Malformed {
        /// Usage of the closest rule.
        usage: &'static str,
        /// What was expected at the caret.
        expected: String,
        /// Where the parse stopped.
        span: Span,
        /// Whether the line ended where more was expected.
        found_end: bool,
    },
}

/// Words a chumsky error as "expected X, Y or Z" (custom messages verbatim).
fn describe_error(err: &Rich<'_, Tok<'_>>) -> String {
    use chumsky::error::{RichPattern, RichReason};
    if let RichReason::Custom(msg) = err.reason() {
        return format!("expected {msg}");
    }
    let mut expected: Vec<String> = err
        .expected()
        .filter_map(|p| match p {
            // Keyword labels are bare words; show them as code.
            RichPattern::Label(l) if l.chars().all(|c| c.is_ascii_alphanumeric()) => {
                Some(format!("`{l}`"))
            }
            RichPattern::Label(l) => Some(l.to_string()),
            RichPattern::Token(t) => Some(t.to_string()),
            RichPattern::EndOfInput => Some("the end of the line".to_string()),
            _ => None,
        })
        .collect();
    expected.sort();
    expected.dedup();
    let list = match expected.len() {
        0 => "something else".to_string(),
        1 => expected.remove(0),
        _ => {
            let last = expected.pop().unwrap_or_default();
            format!("{} or {last}", expected.join(", "))
        }
    };
    match err.found() {
        Some(t) => format!("expected {list}, found {t}"),
        None => format!("expected {list} before the end of the line"),
    }
}
