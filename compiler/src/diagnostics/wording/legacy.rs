//! Wording of the problems of codes 7xx: legacy `.mcp` scripts.

use super::*;

/// Words a problem of this family; [`Problem::describe`] hands it no other.
pub(super) fn describe(p: &Problem) -> Wording {
    use Problem::*;
    match p {
        LegacyUnterminatedQuote { quote } => legacy_unterminated_quote(quote),
        LegacyUnknownCommand { word, suggestion } => legacy_unknown_command(word, suggestion),
        LegacyArgumentCount {
            command,
            usage,
            given,
        } => legacy_argument_count(command, usage, given),
        LegacyVariableNotSet { name, suggestion } => legacy_variable_not_set(name, suggestion),
        LegacyBadHeredoc { reason } => legacy_bad_heredoc(reason),
        LegacyBadTimeout {
            text,
            prefix,
            as_duration,
        } => legacy_bad_timeout(text, *prefix, *as_duration),
        LegacyBadArgument {
            command,
            reason,
            help,
        } => legacy_bad_argument(command, reason, help),
        LegacyMisplacedPrefix { prefix, command } => legacy_misplaced_prefix(prefix, command),
        LegacyEmptyScript => legacy_empty_script(),
        LegacyTestLanguage { line } => legacy_test_language(line),
        LegacyDuplicateArgument { name } => legacy_duplicate_argument(name),
        _ => unreachable!("not a problem of this family: {p:?}"),
    }
}

pub(super) fn legacy_unterminated_quote(quote: &char) -> Wording {
    w(
        Code::LegacyUnterminatedQuote,
        format!("this {quote} is never closed"),
        format!(
            "The quote {quote} opens text that does not end on this line, so the line cannot be split into arguments; mcp-tester fails such a line."
        ),
        Some(format!(
            "close the text with {quote} on the same line; for text over several lines use a heredoc (`<<EOF`)"
        )),
    )
}

pub(super) fn legacy_unknown_command(word: &str, suggestion: &Option<&'static str>) -> Wording {
    w(
        Code::LegacyUnknownCommand,
        "unknown command",
        format!(
            "`{word}` is not a command of mcp-tester scripts. Every line is one command such as `call_tool`, `set_var`, `assert_contains` or `echo`; text after `#` or `//` is a comment."
        ),
        Some(match suggestion {
            Some(s) => format!("did you mean `{s}`?"),
            None => "see docs/legacy-mcp.md for the command list".into(),
        }),
    )
}

pub(super) fn legacy_argument_count(
    command: &&'static str,
    usage: &&'static str,
    given: &usize,
) -> Wording {
    w(
        Code::LegacyArgumentCount,
        format!("{} given", count(*given, "argument")),
        format!(
            "`{command}` does not take {}. Its form is `{usage}`. A value with spaces needs quotes to stay one argument.",
            count(*given, "argument")
        ),
        Some(format!("write `{usage}`")),
    )
}

pub(super) fn legacy_variable_not_set(name: &str, suggestion: &Option<String>) -> Wording {
    w(
        Code::LegacyVariableNotSet,
        "not set yet",
        format!(
            "`${name}` is read here, but no `set_var {name} …` or `input_var {name}` comes before this line, so the script would stop here with an unknown variable."
        ),
        Some(match suggestion {
            Some(s) => format!("did you mean `${s}`?"),
            None => format!(
                "set it first, e.g. `set_var {name} $.{name}` after the call that returns it"
            ),
        }),
    )
}

pub(super) fn legacy_bad_heredoc(reason: &HeredocProblem) -> Wording {
    let (label, message, help) = match reason {
            HeredocProblem::NoMarker => ("no marker", "A heredoc starts with `<<` followed by its end marker, a word of letters, digits, `_` or `-`.".to_string(), "write `<<EOF` and end the text with a line holding only `EOF`".to_string()),
            HeredocProblem::NotLast => ("text after the heredoc marker", "The heredoc marker must be the last word of its line: the text of the heredoc becomes the last argument.".to_string(), "move the arguments before `<<EOF`".to_string()),
            HeredocProblem::Unterminated { marker } => ("never ends", format!("No line holding only `{marker}` follows, so the heredoc takes the rest of the file."), format!("end the heredoc with a line holding only `{marker}`")),
        };
    w(Code::LegacyBadHeredoc, label, message, Some(help))
}

pub(super) fn legacy_bad_timeout(text: &str, prefix: bool, as_duration: Option<u64>) -> Wording {
    if !prefix {
        return w(
            Code::LegacyBadTimeout,
            "not a usable duration",
            format!(
                "`{text}` is not a valid duration: write whole milliseconds (`500`) or a number with a unit (`500ms`, `2s`, `1.5s`, `1m`), between 1 ms and 10 minutes."
            ),
            Some("write e.g. `5000` or `5s`".into()),
        );
    }
    let help = match as_duration {
        Some(ms) => format!("write `timeout {ms}`"),
        None => "write e.g. `timeout 5000` for five seconds".into(),
    };
    w(
        Code::LegacyBadTimeout,
        "not a usable timeout",
        format!(
            "`{text}` is not a valid timeout: the `timeout` prefix takes whole milliseconds without a unit, from 1 to 600000 (10 minutes)."
        ),
        Some(help),
    )
}

pub(super) fn legacy_bad_argument(command: &&'static str, reason: &str, help: &str) -> Wording {
    w(
        Code::LegacyBadArgument,
        "invalid value",
        format!("`{command}`: {reason}."),
        Some(help.to_string()),
    )
}

pub(super) fn legacy_misplaced_prefix(prefix: &&'static str, command: &Option<String>) -> Wording {
    w(
        Code::LegacyMisplacedPrefix,
        match command {
            Some(_) => "cannot apply here",
            None => "no command after it",
        },
        match command {
            Some(c) => format!(
                "`{prefix}` applies to a command that talks to the server{}, and `{c}` is neither.",
                if *prefix == "expect_error" {
                    " or to an `assert_…` check"
                } else {
                    ""
                }
            ),
            None => format!("`{prefix}` must be followed by the command it applies to."),
        },
        Some(format!(
            "write `{prefix} {}call_tool …`",
            if *prefix == "timeout" { "<ms> " } else { "" }
        )),
    )
}

pub(super) fn legacy_empty_script() -> Wording {
    w(
        Code::LegacyEmptyScript,
        "nothing to run",
        "The script holds no command (only blank lines and comments), so it would test nothing.",
        Some("add a command, e.g. `ping` or `call_tool echo text:hello`".into()),
    )
}

pub(super) fn legacy_test_language(line: &str) -> Wording {
    w(
        Code::LegacyTestLanguage,
        "a line of the MCP Test Language",
        format!(
            "`{line}` is MCP Test Language, not an mcp-tester script: the file is read as a script because its name ends in `.mcp`."
        ),
        Some("rename the file to end in `.mcpr`".into()),
    )
}

pub(super) fn legacy_duplicate_argument(name: &str) -> Wording {
    w(
        Code::LegacyDuplicateArgument,
        "given twice",
        format!("The argument `{name}` is named twice in this call; only one value can be sent."),
        Some(format!("keep one `{name}:…`")),
    )
}
