//! Checks of statements that parsed but would mean something other than what they say:
//! `is a json` (a column type, not a JSON type), `required` after `one of`, a budget window
//! counted in something other than calls, a `# comment` a typed value would drop, and
//! regular expressions that do not compile. Each is a located error, never a silent
//! reinterpretation.

use super::Parser;
use super::token::Tok;
use super::tree::*;
use crate::diagnostics::Problem;
use crate::source::Span;
use chumsky::span::SimpleSpan;

/// The usage shown for a malformed typed value.
const EQUALS: &str = "Expect \"PATH\" equals VALUE";

/// The usage shown for a malformed `is between`.
const BETWEEN: &str = "Expect \"PATH\" is between 1 and 10";

/// Units a budget window may be counted in.
const WINDOW_UNITS: &[&str] = &["call", "calls", "run", "runs", "sample", "samples"];

impl<'p, 'a, 's: 'a> Parser<'p, 'a, 's> {
    /// Reports what a parsed statement says but would not mean (see the module docs).
    pub(super) fn check_meaning(&mut self, stmt: &Stmt, toks: &[(Tok<'_>, SimpleSpan)]) {
        for (text, what) in quoted_names(stmt) {
            if text.quoted && text.value.is_empty() {
                self.report(Problem::EmptyName { what }, text.span);
            }
        }
        match stmt {
            Stmt::ExpectType {
                kind: ValueType::Date | ValueType::Json,
                ..
            } => {
                if let Some((_, sp)) = toks.last() {
                    let at = Span::new(sp.start, sp.end);
                    let found = self.text(at).to_string();
                    self.report(Problem::NotAType { found }, at);
                }
            }
            Stmt::ExpectValue {
                path,
                compare,
                value,
            } => match compare {
                Compare::Matches => self.check_pattern(value),
                Compare::Equals if self.written_between(path, value) == "is" => {
                    if let Some(found) = article_word(&value.value) {
                        self.report(Problem::NotAType { found }, value.span);
                        return;
                    }
                    if let Some(word) = comparison_word(&value.value) {
                        let expected = format!(
                            "a comparison (`is greater than 5`, `is at least 5`, `is between 1 \
                             and 9`, `is not empty`, `does not exist`, …) or a value; `{word}` starts neither \
                             (quote text that reads like a comparison: `is \"{}\"`)",
                            value.value
                        );
                        self.malformed_expect(
                            "Expect \"PATH\" is greater than 5",
                            value.span,
                            &expected,
                        );
                        return;
                    }
                    self.check_typed_value(EQUALS, value);
                }
                Compare::NotEquals
                    if self.written_between(path, value) == "is not"
                        && article_word(&value.value).is_some() =>
                {
                    self.malformed_expect(
                        "Expect \"PATH\" does not equal VALUE",
                        value.span,
                        "a value after `is not`: a type cannot be negated; expect the type the \
                         value has (`is a string`)",
                    );
                }
                Compare::GreaterThan | Compare::LessThan | Compare::AtLeast | Compare::AtMost => {
                    self.check_bound(value);
                }
                Compare::Between => self.check_between(value),
                Compare::OneOf => self.malformed_expect(
                    "Expect \"PATH\" equals VALUE",
                    value.span,
                    "a single value: an expectation has no `is one of` (write `matches ^(a|b)$` \
                     for texts, or one `Expect` per value that must hold)",
                ),
                Compare::Empty | Compare::NotEmpty => {}
                Compare::Equals | Compare::NotEquals | Compare::Contains | Compare::NotContains => {
                    self.check_typed_value(EQUALS, value)
                }
            },
            Stmt::ExpectErrorMessage {
                compare: Compare::Matches,
                value,
            } => self.check_pattern(value),
            Stmt::KeepRowsWhere { compare, value, .. } => match compare {
                // The filter's pattern loses one pair of outer quotes (lower/data.rs).
                Compare::Matches => {
                    self.check_pattern(&crate::syntax::grammar::unquote(&value.value, value.span))
                }
                _ => self.check_typed_value("Keep rows where \"COLUMN\" equals VALUE", value),
            },
            Stmt::Column { one_of, .. } => {
                if let Some(last) = one_of.last()
                    && !last.value.starts_with(['"', '\''])
                {
                    let v = &last.value;
                    let word = v.rsplit(char::is_whitespace).next().unwrap_or_default();
                    if v.len() > word.len() && word.eq_ignore_ascii_case("required") {
                        let end = last.span.end as usize;
                        self.report(
                            Problem::MalformedStatement {
                                usage: "Column \"NAME\" is string required one of a, b",
                                expected: "`required` before `one of` (after it, `required` \
                                           would be part of the last value)"
                                    .into(),
                            },
                            Span::new(end - word.len(), end),
                        );
                    }
                }
            }
            Stmt::CallToolWithValues { values, .. } => {
                match crate::syntax::grammar::split_values(values) {
                    Err((span, expected)) => self.report(
                        Problem::MalformedStatement {
                            usage: "Call tool \"NAME\" with values 2, 3, b=10",
                            expected: format!("expected {expected}"),
                        },
                        span,
                    ),
                    Ok(items) => {
                        for item in items.iter().filter(|v| !v.value.quoted) {
                            self.check_typed_comment(&item.value);
                        }
                    }
                }
            }
            Stmt::WaitForNotification { filter, .. } => {
                for (_, value) in filter {
                    if !value.quoted {
                        self.check_typed_comment(value);
                    }
                }
            }
            Stmt::Budget(b) => {
                if let Some(unit) = &b.window_unit
                    && !WINDOW_UNITS
                        .iter()
                        .any(|u| unit.value.eq_ignore_ascii_case(u))
                {
                    self.report(
                        Problem::MalformedStatement {
                            usage: "Budget for \"TEST\": p95 500 ms over 20 calls",
                            expected: format!(
                                "expected `calls`, `runs` or `samples`, found `{}`",
                                unit.value
                            ),
                        },
                        unit.span,
                    );
                }
            }
            _ => {}
        }
    }

    /// The words of `Expect "p" … value` between the path and the value, lower-cased (`is`,
    /// `is not`, `equals`, …).
    fn written_between(&self, path: &Text, value: &Text) -> String {
        // The path's span is inside its quotes: skip the closing quote.
        let from = path.span.end as usize + 1;
        let to = value.span.start as usize;
        if from > to {
            return String::new();
        }
        let words: Vec<&str> = self.file.text()[from..to].split_whitespace().collect();
        words.join(" ").to_ascii_lowercase()
    }

    /// `Expect "PATH" …` written against its form: `expected` says what was expected.
    fn malformed_expect(&mut self, usage: &'static str, at: Span, expected: &str) {
        self.report(
            Problem::MalformedStatement {
                usage,
                expected: format!("expected {expected}"),
            },
            at,
        );
    }

    /// A numeric bound (`is greater than 5`) is a number or one `${…}` reference; says
    /// whether it is.
    fn check_bound(&mut self, value: &Text) -> bool {
        if comment_start(&value.value).is_some() {
            self.check_typed_comment(value);
            return false;
        }
        let text = value.value.trim();
        let reference =
            text.starts_with("${") && text.ends_with('}') && crate::values::refs(text).count() == 1;
        if reference || crate::values::typed(text).is_number() {
            return true;
        }
        self.malformed_expect(
            "Expect \"PATH\" is greater than 5",
            value.span,
            &format!("a number or a `${{…}}` reference, found `{text}`"),
        );
        false
    }

    /// `is between LOW and HIGH`: two bounds, each a number or a reference, the smaller first.
    fn check_between(&mut self, value: &Text) {
        let Some((low, high)) = between(&value.value) else {
            self.malformed_expect(BETWEEN, value.span, "two bounds");
            return;
        };
        // Each bound located inside the value's text.
        let at = value.span.start as usize;
        let bound = |text: &str| {
            let from = at + (text.as_ptr() as usize - value.value.as_ptr() as usize);
            Text::raw(text, Span::new(from, from + text.len()))
        };
        let (low, high) = (bound(low), bound(high));
        if !(self.check_bound(&low) && self.check_bound(&high)) {
            return;
        }
        let number = |t: &Text| crate::values::typed(&t.value).as_f64();
        if let (Some(a), Some(b)) = (number(&low), number(&high))
            && a > b
        {
            self.malformed_expect(BETWEEN, value.span, "the smaller bound first");
        }
    }

    /// A regular expression written in a statement must compile (ECMAScript).
    fn check_pattern(&mut self, value: &Text) {
        if let Some(inner) = slashed_pattern(&value.value) {
            let reason = format!(
                "it is written between slashes as in JavaScript; the pattern is the text alone \
                 (`matches {inner}`), and flags have no place in it"
            );
            self.report(Problem::BadPattern { reason }, value.span);
            return;
        }
        if let Err(e) = crate::regexp::check_template(&value.value) {
            self.report(Problem::BadPattern { reason: e.reason }, value.span);
        } else if let Some(group) = crate::regexp::nested_unbounded_quantifier(&value.value) {
            let group = group.to_string();
            self.report(Problem::SlowPattern { group }, value.span);
        }
    }

    /// A typed value (`equals V`, `contains V`, …) must be one YAML value: text that opens a
    /// quote, list or mapping YAML cannot read (`"a" and "b"`, `"abc`, `[1, 2`) would be
    /// compared as the text itself, quotes and all.
    fn check_typed_value(&mut self, usage: &'static str, value: &Text) {
        if comment_start(&value.value).is_some() {
            self.check_typed_comment(value);
            return;
        }
        let text = value.value.trim();
        let Some(open) = text.chars().next().filter(|c| "\"'[{".contains(*c)) else {
            return;
        };
        if crate::values::typed(text) != serde_json::Value::String(text.to_string()) {
            return;
        }
        let expected = match open {
            '"' | '\'' => match text[1..].find(open) {
                Some(close) if close + 2 < text.len() => format!(
                    "one value: text after the closing quote (`{}`) is not part of it; quote \
                     the whole value, or write one expectation per value",
                    text[close + 2..].trim()
                ),
                _ => format!("a closing {open} (the value reads as one quoted text)"),
            },
            _ => "a complete list (`[1, 2]`) or mapping (`{a: 1}`), or text in quotes".into(),
        };
        self.malformed_expect(usage, value.span, &expected);
    }

    /// A typed value is read as YAML, where ` #` starts a comment that would be dropped
    /// silently; the language has no end-of-line comments, so it is an error there too.
    fn check_typed_comment(&mut self, value: &Text) {
        if let Some(at) = comment_start(&value.value) {
            let start = value.span.start as usize + at;
            self.report(
                Problem::TrailingText { comment: true },
                Span::new(start, value.span.end as usize),
            );
        }
    }
}

/// The quoted names of a statement that must not be empty, with what each one is.
fn quoted_names(stmt: &Stmt) -> Vec<(&Text, &'static str)> {
    match stmt {
        Stmt::CallTool { name, .. }
        | Stmt::CallToolWithProgress { name, .. }
        | Stmt::CallToolWithValues { name, .. } => vec![(name, "tool name")],
        Stmt::GetPrompt { name, .. } => vec![(name, "prompt name")],
        Stmt::UseFlow { name, .. } => vec![(name, "flow name")],
        Stmt::Send { method, .. } => vec![(method, "method")],
        Stmt::WaitForNotification { method, filter, .. } => {
            let mut v = vec![(method, "method")];
            v.extend(filter.iter().map(|(path, _)| (path, "params path")));
            v
        }
        Stmt::ReadResource { uri } | Stmt::Subscribe { uri } | Stmt::Unsubscribe { uri } => {
            vec![(uri, "resource URI")]
        }
        Stmt::GetTask { task } | Stmt::CancelTask { task } => vec![(task, "task id")],
        Stmt::SetUsing {
            variable, function, ..
        } => vec![(variable, "variable name"), (function, "function name")],
        // An empty result path is the whole result (`$`); an empty variable is nothing.
        Stmt::Save { variable, .. } => vec![(variable, "variable name")],
        Stmt::Export { name, .. } => vec![(name, "export name")],
        Stmt::OnServer { name } => vec![(name, "server name")],
        Stmt::FlowHeader { name } => vec![(name, "flow name")],
        Stmt::TestHeader { name } => vec![(name, "test name")],
        Stmt::DataSourceHeader { name } => vec![(name, "data source name")],
        Stmt::ForEachRowIn { file, .. } => vec![(file, "file name")],
        Stmt::ForEachRowFrom { source } => vec![(source, "data source name")],
        Stmt::ImportFlows { path } => vec![(path, "file path")],
        _ => Vec::new(),
    }
}

/// `a json` / `an integer`: the single word after an article, when that is all the text.
fn article_word(text: &str) -> Option<String> {
    let mut words = text.split_whitespace();
    let article = words.next()?;
    let word = words.next()?;
    let only = words.next().is_none();
    let is_article = article.eq_ignore_ascii_case("a") || article.eq_ignore_ascii_case("an");
    (is_article && only && word.chars().all(|c| c.is_alphanumeric() || c == '_'))
        .then(|| word.to_string())
}

/// The first word of an unquoted `is …` value when it opens a comparison the grammar did not
/// take (`is greater then 5`, `is bigger than 5`, `is at leest 5`): such a line would
/// otherwise compare the value with that text.
fn comparison_word(text: &str) -> Option<&str> {
    const WORDS: &[&str] = &[
        "greater",
        "more",
        "less",
        "fewer",
        "smaller",
        "larger",
        "bigger",
        "higher",
        "lower",
        "above",
        "below",
        "over",
        "under",
        "at",
        "between",
        "equal",
        "one",
        "not",
        "empty",
        "missing",
        "absent",
        "present",
        "undefined",
    ];
    // One word that asks about presence rather than being the value.
    const ALONE: &[&str] = &["empty", "missing", "absent", "present", "undefined"];
    let first = text.split_whitespace().next()?;
    let several = text.split_whitespace().nth(1).is_some();
    (several || ALONE.iter().any(|w| first.eq_ignore_ascii_case(w)))
        .then_some(first)
        .filter(|w| WORDS.iter().any(|c| w.eq_ignore_ascii_case(c)))
}

/// The pattern of what can only be a JavaScript regular expression literal: `/abc/i` (flags
/// after the slash) or `/^abc$/` (anchors inside the slashes). `/api/v1/` stays a pattern that
/// matches those slashes.
fn slashed_pattern(text: &str) -> Option<&str> {
    let rest = text.trim().strip_prefix('/')?;
    let close = rest.rfind('/')?;
    let (inner, flags) = (&rest[..close], &rest[close + 1..]);
    let literal = (!flags.is_empty() && flags.chars().all(|c| "dgimsuvy".contains(c)))
        || (flags.is_empty() && (inner.starts_with('^') || inner.ends_with('$')));
    (close > 0 && literal).then_some(inner)
}

/// The two bounds of `is between LOW and HIGH`.
pub(crate) fn between(text: &str) -> Option<(&str, &str)> {
    let lower = text.to_ascii_lowercase();
    let at = lower.find(" and ")?;
    let (low, high) = (text[..at].trim(), text[at + 5..].trim());
    (!low.is_empty() && !high.is_empty()).then_some((low, high))
}

/// Byte offset of a `#` that YAML would read as the start of a comment: after a space or
/// tab, outside quotes.
pub(crate) fn comment_start(text: &str) -> Option<usize> {
    let mut quote: Option<char> = None;
    let mut prev = ' ';
    for (i, c) in text.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == '#' && (i == 0 || prev == ' ' || prev == '\t') => return Some(i),
            None => {}
        }
        prev = c;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_are_found_outside_quotes_only() {
        assert_eq!(comment_start("5 # five"), Some(2));
        assert_eq!(comment_start("\"a # b\""), None);
        assert_eq!(comment_start("#fff"), Some(0));
        assert_eq!(comment_start("a#b"), None);
        assert_eq!(comment_start("[1, 'x #y'] # z"), Some(12));
    }

    #[test]
    fn article_words() {
        assert_eq!(article_word("a json").as_deref(), Some("json"));
        assert_eq!(article_word("An integer").as_deref(), Some("integer"));
        assert_eq!(article_word("a valid string"), None);
        assert_eq!(article_word("done"), None);
    }
}
