//! Wording of the problems of codes 1xx: lexical.

use super::*;

/// Words a problem of this family; [`Problem::describe`] hands it no other.
pub(super) fn describe(p: &Problem) -> Wording {
    use Problem::*;
    match p {
        Tab => tab(),
        OddIndentation { spaces } => odd_indentation(spaces),
        VersionHeader { found } => version_header(found),
        UnclosedQuote { quote } => unclosed_quote(quote),
        BadReference { unclosed } => bad_reference(unclosed),
        BadDuration { text, reason } => bad_duration(text, reason),
        NumberOutOfRange {
            text,
            what,
            min,
            max,
        } => number_out_of_range(text, what, min, max),
        BadNumber { text, what } => bad_number(text, what),
        BadPattern { reason } => bad_pattern(reason),
        _ => unreachable!("not a problem of this family: {p:?}"),
    }
}

pub(super) fn tab() -> Wording {
    w(
        Code::Tab,
        "tab character",
        "Tabs are not allowed anywhere in a test file; indentation uses spaces.",
        Some("replace the tab with spaces (two per indentation level)".into()),
    )
}

pub(super) fn odd_indentation(spaces: &u32) -> Wording {
    w(
        Code::OddIndentation,
        format!("{spaces} leading spaces"),
        "Indentation must use multiples of two spaces.",
        Some("use 0, 2, 4, or 6 leading spaces".into()),
    )
}

pub(super) fn version_header(found: &str) -> Wording {
    w(
        Code::VersionHeader,
        "unknown language version",
        format!(
            "`{found}` is not a language version this compiler knows; the only version is `MCP Test 1`."
        ),
        Some("write the header exactly as `MCP Test 1`, or remove it".into()),
    )
}

pub(super) fn unclosed_quote(quote: &char) -> Wording {
    w(
        Code::UnclosedQuote,
        "quote opened here is never closed",
        format!(
            "The quote {quote} starts a quoted name but the line ends before the closing {quote}."
        ),
        Some(format!(
            "close the quote with {quote} before the end of the line"
        )),
    )
}

pub(super) fn bad_reference(unclosed: &bool) -> Wording {
    if *unclosed {
        w(
            Code::BadReference,
            "`${` without `}`",
            "A reference starts with `${` and must end with `}` on the same line.",
            Some("close the reference, e.g. `${customerId}`".into()),
        )
    } else {
        w(
            Code::BadReference,
            "empty reference",
            "`${}` names no variable.",
            Some("name a variable inside the braces, e.g. `${row.email}`".into()),
        )
    }
}

pub(super) fn bad_duration(text: &str, reason: &DurationProblem) -> Wording {
    let why = match reason {
        DurationProblem::MissingNumber => "it has no number".to_string(),
        DurationProblem::NotWhole => {
            "durations are whole numbers (no decimals, no sign)".to_string()
        }
        DurationProblem::MissingUnit => "it has no unit".to_string(),
        DurationProblem::UnknownUnit(u) => format!("`{u}` is not a unit of time"),
        DurationProblem::OutOfRange => "it must be between 1 ms and 600 seconds".to_string(),
    };
    w(
        Code::BadDuration,
        "invalid duration",
        format!("`{text}` is not a valid duration: {why}."),
        Some("write a whole number and a unit: `500 ms`, `800ms`, `5 seconds`".into()),
    )
}

pub(super) fn number_out_of_range(
    text: &str,
    what: &&'static str,
    min: &i64,
    max: &i64,
) -> Wording {
    if *max == i64::MAX {
        return w(
            Code::BadNumber,
            format!("must be at least {min}"),
            format!("The {what} must be at least {min}, but it is {text}."),
            Some(format!("write a {what} of {min} or more")),
        );
    }
    w(
        Code::BadNumber,
        format!("must be {min} to {max}"),
        format!("The {what} must be between {min} and {max}, but it is {text}."),
        Some(format!("write a {what} from {min} to {max}")),
    )
}

pub(super) fn bad_pattern(reason: &str) -> Wording {
    w(
        Code::BadPattern,
        "not a regular expression",
        format!(
            "This is not a regular expression mcpr can run: {reason}. Patterns are ECMAScript \
             regular expressions (as in JSON Schema `pattern` and JavaScript with the `u` flag)."
        ),
        Some(
            "escape characters that have a meaning in patterns with a backslash (`\\(`, `\\[`, `\\.`)"
                .into(),
        ),
    )
}

pub(super) fn bad_number(text: &str, what: &&'static str) -> Wording {
    w(
        Code::BadNumber,
        "not a whole number",
        format!("The {what} must be a whole number, but `{text}` is not."),
        Some("write digits only, e.g. `3` or `-32602`".into()),
    )
}
