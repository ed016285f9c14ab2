//! Wording of the problems of codes 2xx: structure.

use super::*;

/// Words a problem of this family; [`Problem::describe`] hands it no other.
pub(super) fn describe(p: &Problem) -> Wording {
    use Problem::*;
    match p {
        NotAType { found } => not_a_type(found),
        EmptyName { what } => empty_name(what),
        DuplicateName { kind, name } => duplicate_name(kind, name),
        TestWithoutAction { name } => test_without_action(name),
        ExpectationBeforeAction { word } => expectation_before_action(word),
        UnknownStatement {
            context,
            suggestion,
        } => unknown_statement(context, suggestion),
        MisplacedStatement {
            what,
            found_in,
            belongs,
        } => misplaced_statement(what, found_in, belongs),
        MissingBlock { opener } => missing_block(opener),
        BlockNotMapping { found } => block_not_mapping(found),
        Yaml { message } => yaml(message),
        MalformedTable { problem } => malformed_table(problem),
        MalformedStatement { usage, expected } => malformed_statement(usage, expected),
        TrailingText { comment } => trailing_text(comment),
        BlockNotAllowed { action } => block_not_allowed(action),
        NothingToAttach { after } => nothing_to_attach(after),
        UnknownDataPhrase { suggestion } => unknown_data_phrase(suggestion),
        SecondIteration => second_iteration(),
        _ => unreachable!("not a problem of this family: {p:?}"),
    }
}

pub(super) fn duplicate_name(kind: &&'static str, name: &str) -> Wording {
    w(
        Code::DuplicateName,
        format!("second {kind} named \"{name}\""),
        format!(
            "Two {kind}s are named \"{name}\"; names must be unique so reports and dependencies can tell them apart."
        ),
        Some(format!("rename one of the {kind}s")),
    )
}

pub(super) fn test_without_action(name: &str) -> Wording {
    w(
        Code::TestWithoutAction,
        "this test has no action",
        format!("The test \"{name}\" never calls the server, so there is nothing to check."),
        Some("add an action such as `Call tool \"name\"`, `Read resource \"uri\"` or `Use flow \"name\"`".into()),
    )
}

pub(super) fn expectation_before_action(word: &str) -> Wording {
    w(
        Code::ExpectationBeforeAction,
        "no action before this line",
        format!(
            "`{word}` checks the result of the step before it, but the test has no action yet."
        ),
        Some("move this line below the action whose result it checks".into()),
    )
}

pub(super) fn unknown_statement(
    context: &&'static str,
    suggestion: &Option<&'static str>,
) -> Wording {
    w(
        Code::UnknownStatement,
        "unknown statement",
        format!(
            "This line is not a statement of MCP Test Language 1 (inside {context}). The vocabulary is closed: every line must be one of the documented forms."
        ),
        Some(match suggestion {
            Some(s) => format!("did you mean `{s}`?"),
            None => "see `mcpr explain MCPLANG204` for the list of statements".to_string(),
        }),
    )
}

pub(super) fn misplaced_statement(
    what: &&'static str,
    found_in: &&'static str,
    belongs: &&'static str,
) -> Wording {
    w(
        Code::MisplacedStatement,
        format!("{what} not allowed {found_in}"),
        format!(
            "{} cannot stand {found_in}; it belongs {belongs}.",
            capitalise(what)
        ),
        Some(format!("move the line {belongs}")),
    )
}

pub(super) fn missing_block(opener: &&'static str) -> Wording {
    w(
        Code::MissingBlock,
        "nothing indented below this line",
        "This line ends in a colon, so indented name/value lines must follow it.",
        Some(format!(
            "indent the settings under the line, e.g.\n    {opener}"
        )),
    )
}

pub(super) fn block_not_mapping(found: &&'static str) -> Wording {
    w(
        Code::BlockNotMapping,
        format!("this block is {found}"),
        "The indented block must hold name/value pairs (a YAML mapping).",
        Some("write one `name: value` per line".into()),
    )
}

pub(super) fn yaml(message: &str) -> Wording {
    w(
        Code::YamlError,
        "invalid YAML",
        format!("The indented block is not valid YAML: {message}."),
        Some("fix the YAML at the caret; quote values that contain `: ` or start with special characters".into()),
    )
}

pub(super) fn malformed_table(problem: &TableProblem) -> Wording {
    let (label, message, help) = match problem {
            TableProblem::Missing => (
                "no table rows follow".to_string(),
                "`For each row:` must be followed by a table: a header line and at least one row, each starting and ending with `|`.".to_string(),
                "add lines like `| caseId | input |` and `| first | 2 |` below it".to_string(),
            ),
            TableProblem::RowsNotMappings => (
                "not a list of rows".to_string(),
                "Rows written in YAML under `For each row:` are a list of `column: value` mappings, one per row.".to_string(),
                "write each row as `- column: value` with its other columns indented below it".to_string(),
            ),
            TableProblem::NoRows => (
                "header without rows".to_string(),
                "The table has a header line but no data rows.".to_string(),
                "add at least one row below the header".to_string(),
            ),
            TableProblem::NotDelimited => (
                "row must start and end with `|`".to_string(),
                "Every table line must start and end with `|`.".to_string(),
                "close the row with `|`".to_string(),
            ),
            TableProblem::Ragged { expected, found } => (
                format!("{} here, the header has {expected}", count(*found, "cell")),
                format!("Every row must have as many cells as the header ({expected}), but this one has {found}."),
                "add or remove cells so the row matches the header".to_string(),
            ),
            TableProblem::BadColumnName { name } => {
                if name.is_empty() {
                    (
                        "empty column name".to_string(),
                        "Every header cell must name a column.".to_string(),
                        "write a name in the empty header cell".to_string(),
                    )
                } else {
                    (
                        format!("column `{name}` appears twice"),
                        format!("The header names the column `{name}` more than once."),
                        "give every column a different name".to_string(),
                    )
                }
            }
            TableProblem::Stray => (
                "table row without `For each row:`".to_string(),
                "A table line can only follow `For each row:` (or another table line).".to_string(),
                "put `For each row:` on the line above the table".to_string(),
            ),
        };
    w(Code::MalformedTable, label, message, Some(help))
}

pub(super) fn malformed_statement(usage: &&'static str, expected: &str) -> Wording {
    w(
        Code::MalformedStatement,
        expected,
        format!("This line starts like `{usage}` but does not follow its form."),
        Some(format!("write it as `{usage}`")),
    )
}

pub(super) fn trailing_text(comment: &bool) -> Wording {
    if *comment {
        w(
            Code::TrailingText,
            "comment after a statement",
            "Comments must stand on their own line; text after a statement is not ignored.",
            Some("move the comment to its own line above the statement".into()),
        )
    } else {
        w(
            Code::TrailingText,
            "unexpected text",
            "The statement is complete before this text, which would otherwise be silently ignored.",
            Some(
                "remove the extra text or put it in quotes where the statement takes a value"
                    .into(),
            ),
        )
    }
}

pub(super) fn block_not_allowed(action: &str) -> Wording {
    w(
        Code::BlockNotAllowed,
        "`with:` not allowed here",
        format!("Answering \"{action}\" sends no content, so it takes no `with:` block."),
        Some("remove `with:` and the indented lines, or respond \"accept\" to send content".into()),
    )
}

pub(super) fn nothing_to_attach(after: &&'static str) -> Wording {
    w(
        Code::NothingToAttach,
        "no step to attach to",
        format!(
            "Expectations and modifiers attach to the step right before them, but {after} leaves no current step."
        ),
        Some("place the line directly after the action it checks".into()),
    )
}

pub(super) fn unknown_data_phrase(suggestion: &Option<&'static str>) -> Wording {
    w(
        Code::UnknownDataPhrase,
        "unknown data source phrase",
        "A data source written in phrases may only contain From, Column, Derive, Keep rows where, Sample and Cache lines.",
        Some(match suggestion {
            Some(s) => format!("did you mean `{s}`?"),
            None => "write provider settings as YAML instead (then use no phrases in the block)"
                .to_string(),
        }),
    )
}

pub(super) fn second_iteration() -> Wording {
    w(
        Code::SecondIteration,
        "second data iteration",
        "A test iterates over one data set; a second `For each row` would be ignored.",
        Some("remove one of them, or join the data in a `Data source:` block".into()),
    )
}

pub(super) fn not_a_type(found: &str) -> Wording {
    w(
        Code::MalformedStatement,
        "not a JSON type",
        format!(
            "`is a …` checks the JSON type of a value, and `{found}` is not one: the types are \
             string, number, boolean, object, array and null (`date` and `json` are column types \
             of data sources)."
        ),
        Some(format!(
            "write a JSON type such as `is a string`, or compare text with `equals \"a {found}\"`"
        )),
    )
}

pub(super) fn empty_name(what: &str) -> Wording {
    let fix = format!("write the {what} between the quotes");
    w(
        Code::MalformedStatement,
        format!("empty {what}"),
        format!("The {what} between the quotes is empty; the statement needs one."),
        Some(fix),
    )
}
