//! The statement grammar: chumsky parsers over the tokens of one line, one
//! boxed function per rule, grouped by the statement's first word so a line
//! is tried only against the forms that can match it. Which rules exist, the
//! words they start with and their usage lines come from the statement table
//! ([`super::statements`]); the rules themselves live in the submodules.

pub(crate) mod actions;
mod atoms;
pub(crate) mod data;
pub(crate) mod document;

pub use atoms::{
    duration_ms, make_duration, make_number, split_list, split_values, unit_factor, unquote,
};

use super::statements::STATEMENTS;
use super::token::Tok;
use super::tree::*;
use crate::names::Closeness;
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

/// One statement rule with the usage line shown when a line starting like it
/// is malformed.
pub struct Rule<'a, 's> {
    /// How the statement is written.
    pub usage: &'static str,
    /// The form's opening phrases (lower case) with the usage each suggests.
    pub openings: &'static [(&'static str, &'static str)],
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

/// The rules of one first word: the word, and all its fast rules as one choice.
type Group<'a, 's> = (&'static str, P<'a, 's, Stmt, Fast>);

/// All rules, grouped by the lower-cased first word of the statement.
pub struct Grammar<'a, 's> {
    /// Open-addressing index: slot → position in `groups` + 1 (0 = empty).
    slots: [u8; SLOTS],
    groups: Vec<Group<'a, 's>>,
    /// The text the rules read.
    src: &'s str,
    /// Per group, the rules with rich errors that diagnose a line none of the fast rules
    /// accepted: built on the first such line, as most files have none.
    rich: std::cell::OnceCell<Vec<Vec<Rule<'a, 's>>>>,
}

impl<'a, 's: 'a> Grammar<'a, 's> {
    /// Builds the fast rules of the statement table for a file whose text is `src`. Within a
    /// group the rules keep the table's order: every rule ends by requiring the end of the
    /// line, so the order changes speed only (and which usage a tie between two equally long
    /// usages reports).
    pub fn new(src: &'s str) -> Self {
        let mut by_word: HashMap<&'static str, Vec<P<'a, 's, Stmt, Fast>>> = HashMap::new();
        for statement in STATEMENTS {
            let fast = statement.form.rule::<Fast>(src);
            for w in statement.first_words {
                by_word.entry(w).or_default().push(fast.clone());
            }
        }
        let mut groups = by_word
            .into_iter()
            .map(|(w, fast)| (w, choice(fast).boxed()))
            .collect::<Vec<_>>();
        groups.sort_by_key(|g| g.0);
        let mut slots = [0u8; SLOTS];
        for (i, g) in groups.iter().enumerate() {
            let mut at = slot_of(g.0.as_bytes());
            while slots[at] != 0 {
                at = (at + 1) % SLOTS;
            }
            slots[at] = u8::try_from(i + 1).expect("fewer than 255 first words");
        }
        Grammar {
            slots,
            groups,
            src,
            rich: std::cell::OnceCell::new(),
        }
    }

    /// The rules with rich errors of group `i`, in the table's order (see [`Grammar::rich`]).
    fn rich_rules(&self, i: usize) -> &[Rule<'a, 's>] {
        let all = self.rich.get_or_init(|| {
            let mut all: Vec<Vec<Rule<'a, 's>>> = self.groups.iter().map(|_| Vec::new()).collect();
            for statement in STATEMENTS {
                let rich = statement.form.rule::<Ex<'a, 's>>(self.src);
                for w in statement.first_words {
                    if let Ok(g) = self.groups.binary_search_by_key(w, |g| g.0) {
                        all[g].push(Rule {
                            usage: statement.usage,
                            openings: statement.openings,
                            parser: rich.clone(),
                        });
                    }
                }
            }
            all
        });
        all.get(i).map_or(&[], Vec::as_slice)
    }

    /// Parses one line's tokens. `line_end` is the byte offset of the end of
    /// the line (for errors at the end of input).
    pub fn parse(&self, tokens: &'a [(Tok<'s>, SimpleSpan)], line_end: usize) -> LineResult {
        let Some(group) = self.group(tokens) else {
            return LineResult::Unknown;
        };
        let all = &self.groups[group].1;
        let eoi = SimpleSpan::from(line_end..line_end);
        let input = tokens.split_token_span(eoi);
        if let Some(stmt) = all.parse(input).into_output() {
            return LineResult::Ok(stmt);
        }
        // Diagnose: find the rule that got furthest and report its usage.
        // Ties go to the rule that would have accepted the end of the line
        // there (the statement was complete), then to the form whose opening
        // phrase is closest to the line's words (`List tools` means `List all
        // tools`, not `List tasks`), then to the simpler form.
        let words = opening_words(tokens);
        type Key = (usize, bool, Closeness, std::cmp::Reverse<usize>);
        let mut best: Option<(Key, &'static str, Rich<'a, Tok<'s>>)> = None;
        for rule in self.rich_rules(group) {
            let errs = rule
                .parser
                .parse(tokens.split_token_span(eoi))
                .into_errors();
            if let Some(err) = errs.into_iter().next() {
                let wants_end = err
                    .expected()
                    .any(|p| matches!(p, chumsky::error::RichPattern::EndOfInput));
                let (closeness, shown) = closest_opening(&words, rule);
                let key = (
                    err.span().start,
                    wants_end,
                    closeness,
                    std::cmp::Reverse(rule.usage.len()),
                );
                if best.as_ref().is_none_or(|(b, _, _)| key > *b) {
                    best = Some((key, shown, err));
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

    /// The group of the line's first word (compared without case and
    /// without allocating).
    fn group(&self, tokens: &[(Tok<'s>, SimpleSpan)]) -> Option<usize> {
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
            let i = usize::from(self.slots[at]).checked_sub(1)?;
            if self.groups[i].0.as_bytes() == key {
                return Some(i);
            }
            at = (at + 1) % SLOTS;
        }
    }
}

/// The lower-cased words a line opens with, up to its first token that is not a word.
fn opening_words(tokens: &[(Tok<'_>, SimpleSpan)]) -> Vec<String> {
    tokens
        .iter()
        .map_while(|(t, _)| match t {
            Tok::Word(w) => Some(w.to_lowercase()),
            _ => None,
        })
        .take(8)
        .collect()
}

/// The rule's opening phrase closest to the line's words, and the usage to suggest: the
/// phrase's own (`List all tools`) when it shares more words with the line than the first and
/// more than any other phrase of the rule (`List all widgets` gets the whole usage), else the
/// rule's.
fn closest_opening(words: &[String], rule: &Rule<'_, '_>) -> (Closeness, &'static str) {
    let scored: Vec<(Closeness, &'static str)> = rule
        .openings
        .iter()
        .map(|(phrase, shown)| {
            let phrase: Vec<&str> = phrase.split(' ').collect();
            let line: Vec<&str> = words
                .iter()
                .take(phrase.len())
                .map(String::as_str)
                .collect();
            (crate::names::phrase_closeness(&line, &phrase), *shown)
        })
        .collect();
    let Some(&(best, shown)) = scored.iter().max_by(|a, b| a.0.cmp(&b.0)) else {
        return ((0, std::cmp::Reverse(usize::MAX)), rule.usage);
    };
    let unique = scored
        .iter()
        .filter(|(c, s)| *s != shown && c.0 >= best.0)
        .count()
        == 0;
    let distinct = scored.iter().any(|(_, s)| *s != shown);
    if distinct && unique && best.0 > 1 {
        (best, shown)
    } else {
        (best, rule.usage)
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
