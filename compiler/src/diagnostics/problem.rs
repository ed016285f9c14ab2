//! The data of every compile-time problem, and the one function that words
//! it. Parsers and checks build `Problem`s; nothing else writes messages.

use super::Code;

/// What went wrong, with the facts needed to explain it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// A TAB character.
    Tab,
    /// Leading spaces not a multiple of two.
    OddIndentation {
        /// How many spaces the line has.
        spaces: u32,
    },
    /// A `MCP Test …` line that is not exactly `MCP Test 1`.
    VersionHeader {
        /// The line as written.
        found: String,
    },
    /// A quote that is never closed on its line.
    UnclosedQuote {
        /// The quote character.
        quote: char,
    },
    /// `${` without `}` or an empty `${}`.
    BadReference {
        /// True when the closing brace is missing, false when the name is empty.
        unclosed: bool,
    },
    /// A duration that is not a whole number with a known unit.
    BadDuration {
        /// The duration as written.
        text: String,
        /// Why it is rejected.
        reason: DurationProblem,
    },
    /// A number where a whole number is required.
    BadNumber {
        /// The text as written.
        text: String,
        /// What the number is for.
        what: &'static str,
    },
    /// Two tests, flows or data sources share a name.
    DuplicateName {
        /// "test", "flow" or "data source".
        kind: &'static str,
        /// The name.
        name: String,
    },
    /// A test without any action.
    TestWithoutAction {
        /// The test's name.
        name: String,
    },
    /// An expectation or modifier before the test's first action.
    ExpectationBeforeAction {
        /// The leading word (Expect, Save, …).
        word: String,
    },
    /// A line that matches no statement.
    UnknownStatement {
        /// Where the line stands ("test", "flow", "document", "data source").
        context: &'static str,
        /// A close statement from the vocabulary, if any.
        suggestion: Option<&'static str>,
    },
    /// A known statement in a place where it has no meaning.
    MisplacedStatement {
        /// What the statement is.
        what: &'static str,
        /// Where it was found.
        found_in: &'static str,
        /// Where it belongs.
        belongs: &'static str,
    },
    /// A block opener with no indented lines after it.
    MissingBlock {
        /// Usage of the opener.
        opener: &'static str,
    },
    /// A block that is not a mapping.
    BlockNotMapping {
        /// "a list", "a single value", …
        found: &'static str,
    },
    /// YAML rejected the block.
    Yaml {
        /// The YAML parser's message.
        message: String,
    },
    /// A malformed inline table.
    MalformedTable {
        /// What is wrong.
        problem: TableProblem,
    },
    /// A statement whose opening words are known but whose rest is not.
    MalformedStatement {
        /// Usage of the statement.
        usage: &'static str,
        /// What the parser expected at the caret.
        expected: String,
    },
    /// Text after a complete statement.
    TrailingText {
        /// Whether the extra text looks like a `#` comment.
        comment: bool,
    },
    /// `with:` on an answer that carries no content.
    BlockNotAllowed {
        /// The action that cannot take a block.
        action: String,
    },
    /// An expectation with no current step.
    NothingToAttach {
        /// What cleared the current step.
        after: &'static str,
    },
    /// A line in a phrase-mode data source that is no data phrase.
    UnknownDataPhrase {
        /// A close phrase, if any.
        suggestion: Option<&'static str>,
    },
    /// A second `For each row` in one test.
    SecondIteration,
}

/// Why a duration is rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DurationProblem {
    /// No number.
    MissingNumber,
    /// Decimals or a sign.
    NotWhole,
    /// No unit.
    MissingUnit,
    /// A unit the language does not know.
    UnknownUnit(String),
    /// Zero or too large.
    OutOfRange,
}

/// What is wrong with an inline table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableProblem {
    /// No table lines follow `For each row:`.
    Missing,
    /// A header but no data row.
    NoRows,
    /// A line that does not start and end with `|`.
    NotDelimited,
    /// A row with a different number of cells than the header.
    Ragged {
        /// Cells in the header.
        expected: usize,
        /// Cells in this row.
        found: usize,
    },
    /// An empty or repeated column name.
    BadColumnName {
        /// The name (empty when missing).
        name: String,
    },
    /// A table row outside `For each row:`.
    Stray,
}

/// The words of a diagnostic.
pub struct Wording {
    /// The code.
    pub code: Code,
    /// Short text at the caret.
    pub label: String,
    /// The explanation.
    pub message: String,
    /// The `Try:` fix.
    pub help: Option<String>,
}

fn w(
    code: Code,
    label: impl Into<String>,
    message: impl Into<String>,
    help: Option<String>,
) -> Wording {
    Wording {
        code,
        label: label.into(),
        message: message.into(),
        help,
    }
}

impl Problem {
    /// Words the problem: the only place messages are written.
    pub fn describe(&self) -> Wording {
        use Problem::*;
        match self {
            Tab => w(
                Code::Tab,
                "tab character",
                "Tabs are not allowed anywhere in a test file; indentation uses spaces.",
                Some("replace the tab with spaces (two per indentation level)".into()),
            ),
            OddIndentation { spaces } => w(
                Code::OddIndentation,
                format!("{spaces} leading spaces"),
                "Indentation must use multiples of two spaces.",
                Some("use 0, 2, 4, or 6 leading spaces".into()),
            ),
            VersionHeader { found } => w(
                Code::VersionHeader,
                "unknown language version",
                format!("`{found}` is not a language version this compiler knows; the only version is `MCP Test 1`."),
                Some("write the header exactly as `MCP Test 1`, or remove it".into()),
            ),
            UnclosedQuote { quote } => w(
                Code::UnclosedQuote,
                "quote opened here is never closed",
                format!("The quote {quote} starts a quoted name but the line ends before the closing {quote}."),
                Some(format!("close the quote with {quote} before the end of the line")),
            ),
            BadReference { unclosed } => {
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
            BadDuration { text, reason } => {
                let why = match reason {
                    DurationProblem::MissingNumber => "it has no number".to_string(),
                    DurationProblem::NotWhole => "durations are whole numbers (no decimals, no sign)".to_string(),
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
            BadNumber { text, what } => w(
                Code::BadNumber,
                "not a whole number",
                format!("The {what} must be a whole number, but `{text}` is not."),
                Some("write digits only, e.g. `3` or `-32602`".into()),
            ),
            DuplicateName { kind, name } => w(
                Code::DuplicateName,
                format!("second {kind} named \"{name}\""),
                format!("Two {kind}s are named \"{name}\"; names must be unique so reports and dependencies can tell them apart."),
                Some(format!("rename one of the {kind}s")),
            ),
            TestWithoutAction { name } => w(
                Code::TestWithoutAction,
                "this test has no action",
                format!("The test \"{name}\" never calls the server, so there is nothing to check."),
                Some("add an action such as `Call tool \"name\"`, `Read resource \"uri\"` or `Use flow \"name\"`".into()),
            ),
            ExpectationBeforeAction { word } => w(
                Code::ExpectationBeforeAction,
                "no action before this line",
                format!("`{word}` checks the result of the step before it, but the test has no action yet."),
                Some("move this line below the action whose result it checks".into()),
            ),
            UnknownStatement { context, suggestion } => w(
                Code::UnknownStatement,
                "unknown statement",
                format!("This line is not a statement of MCP Test Language 1 (inside {context}). The vocabulary is closed: every line must be one of the documented forms."),
                Some(match suggestion {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => "see `mcpr explain MCPLANG204` for the list of statements".to_string(),
                }),
            ),
            MisplacedStatement { what, found_in, belongs } => w(
                Code::MisplacedStatement,
                format!("{what} not allowed {found_in}"),
                format!("{} cannot stand {found_in}; it belongs {belongs}.", capitalise(what)),
                Some(format!("move the line {belongs}")),
            ),
            MissingBlock { opener } => w(
                Code::MissingBlock,
                "nothing indented below this line",
                "This line ends in a colon, so indented name/value lines must follow it.",
                Some(format!("indent the settings under the line, e.g.\n    {opener}")),
            ),
            BlockNotMapping { found } => w(
                Code::BlockNotMapping,
                format!("this block is {found}"),
                "The indented block must hold name/value pairs (a YAML mapping).",
                Some("write one `name: value` per line".into()),
            ),
            Yaml { message } => w(
                Code::YamlError,
                "invalid YAML",
                format!("The indented block is not valid YAML: {message}."),
                Some("fix the YAML at the caret; quote values that contain `: ` or start with special characters".into()),
            ),
            MalformedTable { problem } => {
                let (label, message, help) = match problem {
                    TableProblem::Missing => (
                        "no table rows follow".to_string(),
                        "`For each row:` must be followed by a table: a header line and at least one row, each starting and ending with `|`.".to_string(),
                        "add lines like `| caseId | input |` and `| first | 2 |` below it".to_string(),
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
            MalformedStatement { usage, expected } => w(
                Code::MalformedStatement,
                expected.clone(),
                format!("This line starts like `{usage}` but does not follow its form."),
                Some(format!("write it as `{usage}`")),
            ),
            TrailingText { comment } => {
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
                        Some("remove the extra text or put it in quotes where the statement takes a value".into()),
                    )
                }
            }
            BlockNotAllowed { action } => w(
                Code::BlockNotAllowed,
                "`with:` not allowed here",
                format!("Answering \"{action}\" sends no content, so it takes no `with:` block."),
                Some("remove `with:` and the indented lines, or respond \"accept\" to send content".into()),
            ),
            NothingToAttach { after } => w(
                Code::NothingToAttach,
                "no step to attach to",
                format!("Expectations and modifiers attach to the step right before them, but {after} leaves no current step."),
                Some("place the line directly after the action it checks".into()),
            ),
            UnknownDataPhrase { suggestion } => w(
                Code::UnknownDataPhrase,
                "unknown data source phrase",
                "A data source written in phrases may only contain From, Column, Derive, Keep rows where, Sample and Cache lines.",
                Some(match suggestion {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => "write provider settings as YAML instead (then use no phrases in the block)".to_string(),
                }),
            ),
            SecondIteration => w(
                Code::SecondIteration,
                "second data iteration",
                "A test iterates over one data set; a second `For each row` would be ignored.",
                Some("remove one of them, or join the data in a `Data source:` block".into()),
            ),
        }
    }
}

fn count(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}
