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
    /// A whole number outside the range its setting allows.
    NumberOutOfRange {
        /// The text as written.
        text: String,
        /// What the number is for.
        what: &'static str,
        /// Smallest allowed value.
        min: i64,
        /// Largest allowed value.
        max: i64,
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
    /// The YAML block of `Run step with:` is not a step of the suite model.
    BadStepSettings {
        /// What is wrong.
        reason: String,
    },
    /// The YAML block of `Extensions:` does not fit the extensions settings.
    BadExtensions {
        /// What is wrong.
        reason: String,
    },
    /// A `Client behavior:` block that does not fit the client behaviour settings.
    BadClientBehavior {
        /// What is wrong.
        reason: String,
    },
    /// `${env}`, `${state.}`, `${row..x}`: a namespace without a name, or an empty segment.
    IncompleteReference {
        /// The reference as written inside `${…}`.
        reference: String,
    },
    /// Imports that lead back to a file already being imported.
    ImportCycle {
        /// The files of the cycle, as shown, first and last the same.
        chain: Vec<String>,
    },
    /// An imported file that cannot be read.
    ImportUnreadable {
        /// The path as resolved.
        path: String,
        /// Why reading failed.
        reason: String,
    },
    /// Imports nested eight or more levels deep.
    ImportTooDeep {
        /// The limit.
        limit: usize,
    },
    /// An import written as an absolute path.
    AbsoluteImport {
        /// The path as written.
        path: String,
    },
    /// An imported file larger than the limit.
    ImportTooLarge {
        /// The path as resolved.
        path: String,
        /// Its size in bytes.
        bytes: usize,
    },
    /// More distinct imported files than the limit.
    TooManyImports {
        /// The limit.
        limit: usize,
    },
    /// An import that resolves outside the entry file's folder.
    ImportOutsideFolder {
        /// The path as written.
        path: String,
    },
    /// `Import flows from "std:…"` naming no standard library.
    UnknownStdLibrary {
        /// The name after `std:`.
        name: String,
    },
    /// `Use flow` naming no declared or imported flow.
    UnknownFlow {
        /// The name used.
        name: String,
        /// The closest declared flow.
        suggestion: Option<String>,
    },
    /// Flows that call themselves, directly or through others.
    RecursiveFlow {
        /// The call chain, first and last the same.
        chain: Vec<String>,
    },
    /// Two tests with the same id.
    DuplicateTestId {
        /// The format the problem is worded for.
        surface: Surface,
        /// The id.
        id: String,
        /// Whether the id was written with `Id:` (else it is the slug of the name).
        explicit: bool,
    },
    /// `Depends on:` naming no test.
    UnknownDependency {
        /// The format the problem is worded for.
        surface: Surface,
        /// The id as written.
        id: String,
        /// The closest test id.
        suggestion: Option<String>,
    },
    /// Tests that depend on each other in a circle.
    DependencyCycle {
        /// The format the problem is worded for.
        surface: Surface,
        /// The ids of the cycle, first and last the same.
        chain: Vec<String>,
    },
    /// A dependency on a test that is always skipped.
    DependsOnSkipped {
        /// The format the problem is worded for.
        surface: Surface,
        /// The skipped test's id.
        id: String,
    },
    /// `${deps.ID.KEY}` where ID is not in `Depends on:`.
    DepsNotDeclared {
        /// The format the problem is worded for.
        surface: Surface,
        /// The id referred to.
        id: String,
        /// The test using the reference.
        test: String,
    },
    /// `On server` naming no `Named server`.
    UnknownServer {
        /// The format the problem is worded for.
        surface: Surface,
        /// The name used.
        name: String,
        /// The declared names.
        known: Vec<String>,
    },
    /// Exactly one `Compare target` or exactly one `Named server`.
    SingleTarget {
        /// "compare target" or "named server".
        kind: &'static str,
    },
    /// A required flow input with no value at a call.
    MissingFlowInput {
        /// The flow.
        flow: String,
        /// The inputs without value.
        inputs: Vec<String>,
    },
    /// A value for an input the flow does not declare.
    UnknownFlowInput {
        /// The flow.
        flow: String,
        /// The undeclared names.
        inputs: Vec<String>,
        /// The inputs the flow declares.
        declared: Vec<String>,
    },
    /// `Server options for` / `Target options for` an undeclared name.
    OptionsForUndeclared {
        /// "named server" or "compare target".
        kind: &'static str,
        /// The name used.
        name: String,
        /// The names declared so far.
        known: Vec<String>,
    },
    /// `Server options:` before any server is declared.
    OptionsBeforeTarget,
    /// `Set … using` naming no utility function.
    UnknownFunction {
        /// The format the problem is worded for.
        surface: Surface,
        /// The name used.
        name: String,
        /// The closest built-in.
        suggestion: Option<String>,
    },
    /// A result path that cannot be evaluated.
    BadResultPath {
        /// The path as normalised.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A file with tests but no server to run them against.
    NoTarget,
    /// A setting in a server options block that does not apply or has the wrong shape.
    BadServerOption {
        /// The setting.
        key: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A file with neither tests nor flows.
    NoTests,
    /// A `${NAME}` that no declaration of the test or flow provides.
    /// `${NAME}` read on a line before the only line of the test that saves `NAME`.
    VariableSavedLater {
        /// The variable.
        name: String,
        /// 1-based line of the statement that saves it.
        line: usize,
    },
    UnknownVariable {
        /// The format the problem is worded for.
        surface: Surface,
        /// The reference as written inside `${…}`.
        reference: String,
        /// The flow whose body holds it, when it is in a flow.
        flow: Option<String>,
        /// A close known name.
        suggestion: Option<String>,
    },
    /// `For each row from` naming no data source.
    UnknownDataSource {
        /// The format the problem is worded for.
        surface: Surface,
        /// The name used.
        name: String,
        /// The closest declared source.
        suggestion: Option<String>,
    },
    /// A data source that names nothing to load.
    DataSourceWithoutOrigin {
        /// The source's name.
        name: String,
    },
    /// YAML settings of a data source that do not fit the data source model.
    BadDataSourceSettings {
        /// What is wrong.
        reason: String,
    },
    /// `Keep rows where … is greater/less than` with a value that is not a number.
    NonNumericFilter {
        /// The value as written.
        value: String,
    },
    /// The text of a YAML or JSON suite cannot be read.
    SuiteSyntax {
        /// The parser's message.
        message: String,
        /// Whether the file is a `.json` file.
        json: bool,
    },
    /// A member the suite model does not have.
    UnknownField {
        /// The object it is in, as shown (`tests[0]`, "the suite").
        context: String,
        /// The member as written.
        field: String,
        /// The closest valid member.
        suggestion: Option<String>,
        /// Every valid member of that object.
        valid: Vec<String>,
    },
    /// A value of the wrong JSON type.
    WrongType {
        /// The value, as shown.
        context: String,
        /// What the model expects ("text", "a list or a mapping").
        expected: String,
        /// What was written ("a mapping").
        found: &'static str,
    },
    /// A required member is missing (or, with several names, one of them).
    MissingField {
        /// The object, as shown.
        context: String,
        /// The missing member, or the alternatives of which one is needed.
        fields: Vec<String>,
    },
    /// A value outside the fixed set of allowed values.
    InvalidValue {
        /// The value's place, as shown.
        context: String,
        /// The value as written.
        found: String,
        /// The allowed values.
        valid: Vec<String>,
    },
    /// A YAML anchor (`&a`), alias (`*a`) or merge key (`<<`).
    YamlAlias {
        /// Which of the three.
        what: AliasKind,
        /// The anchor's name (empty for a merge key).
        name: String,
    },
    /// A suite file larger than the limit.
    SuiteTooLarge {
        /// Its size in bytes.
        bytes: usize,
        /// The limit in bytes.
        limit: usize,
    },
    /// A rule of the suite schema without a problem of its own (ranges, lengths, patterns, …).
    SchemaViolation {
        /// The value, as shown.
        context: String,
        /// What the rule demands, as a predicate: "must be at most 600000 (it is 900000)".
        rule: String,
    },
    /// A quote in a `.mcp` line that is not closed on the line.
    LegacyUnterminatedQuote {
        /// `"` or `'`.
        quote: char,
    },
    /// A `.mcp` line whose first word is no command.
    LegacyUnknownCommand {
        /// The word as written.
        word: String,
        /// The closest command.
        suggestion: Option<&'static str>,
    },
    /// A `.mcp` command with too few or too many arguments.
    LegacyArgumentCount {
        /// The command.
        command: &'static str,
        /// Its usage line.
        usage: &'static str,
        /// How many arguments were given.
        given: usize,
    },
    /// `$name` read before any `set_var` or `input_var` of the script sets it.
    LegacyVariableNotSet {
        /// The name.
        name: String,
        /// A variable set earlier with a close name.
        suggestion: Option<String>,
    },
    /// A heredoc that has no marker, is not last on its line, or never ends.
    LegacyBadHeredoc {
        /// What is wrong.
        reason: HeredocProblem,
    },
    /// A `timeout` prefix or a duration argument that is not usable.
    LegacyBadTimeout {
        /// The text as written.
        text: String,
        /// What the value is for.
        what: &'static str,
    },
    /// An argument whose value the command cannot use.
    LegacyBadArgument {
        /// The command.
        command: &'static str,
        /// What is wrong with the argument.
        reason: String,
        /// How to write it instead.
        help: String,
    },
    /// `expect_error` or `timeout` before nothing, or before a command that sends nothing.
    LegacyMisplacedPrefix {
        /// The prefix.
        prefix: &'static str,
        /// The command after it, if any.
        command: Option<String>,
    },
    /// A script with no command at all.
    LegacyEmptyScript,
    /// `name:value` given twice in one call.
    LegacyDuplicateArgument {
        /// The argument name.
        name: String,
    },
    /// A flow declared in the file and used by no test.
    UnusedFlow {
        /// The flow.
        name: String,
    },
    /// A variable saved or set and never read afterwards.
    UnreadSavedVariable {
        /// The variable.
        name: String,
    },
    /// A `Variables:` entry never read.
    UnreadVariable {
        /// The variable.
        name: String,
    },
    /// `Budget for "T"` naming no test of the file.
    UnknownBudgetTest {
        /// The format the problem is worded for.
        surface: Surface,
        /// The name used.
        name: String,
        /// The closest test name.
        suggestion: Option<String>,
    },
    /// An export that no test reads through `${deps.…}`.
    UnusedExport {
        /// The export.
        name: String,
        /// The exporting test's id.
        test: String,
    },
}

/// What is wrong with a heredoc.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeredocProblem {
    /// `<<` without a usable marker.
    NoMarker,
    /// Words after `<<MARKER` on its line.
    NotLast,
    /// No line holding only the marker.
    Unterminated {
        /// The marker.
        marker: String,
    },
}

/// The surface format a problem was found in, so its wording names what the user wrote
/// (`Depends on:` in a `.mcpr` file, `dependsOn` in a YAML suite).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Surface {
    /// A `.mcpr` file.
    #[default]
    Mcpr,
    /// A YAML or JSON suite.
    Yaml,
}

/// What kind of YAML reuse was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AliasKind {
    /// `&name`.
    Anchor,
    /// `*name`.
    Alias,
    /// `<<`.
    MergeKey,
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
    /// Rows written as a YAML list whose items are not `column: value` mappings.
    RowsNotMappings,
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
            NumberOutOfRange { text, what, min, max } => w(
                Code::BadNumber,
                format!("must be {min} to {max}"),
                format!("The {what} must be between {min} and {max}, but it is {text}."),
                Some(format!("write a {what} from {min} to {max}")),
            ),
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
            BadStepSettings { reason } => w(
                Code::BadStepSettings,
                "not a step",
                format!("The block of `Run step with:` must be one step of the suite model: {reason}."),
                Some("write exactly one of `tool`, `request`, `set` or `native`, plus `assert`, `capture`, `export`, … as in a YAML suite (see `docs/ir.md`, Step)".into()),
            ),
            IncompleteReference { reference } => {
                let head = reference.split('.').next().unwrap_or(reference);
                w(
                    Code::IncompleteReference,
                    "incomplete reference",
                    format!("`${{{reference}}}` names no value: `{head}.` must be followed by a name, and every `.` by another one."),
                    Some(match head {
                        "env" => "name the variable: `${env.API_TOKEN}`".to_string(),
                        "row" => "name the column: `${row.email}`".to_string(),
                        "deps" => "name the test and its export: `${deps.create-customer.id}`".to_string(),
                        _ => "name the test and the value: `${state.create-customer.customerId}`".to_string(),
                    }),
                )
            }
            BadExtensions { reason } => w(
                Code::BadExtensions,
                "invalid extensions settings",
                format!("The `Extensions:` block does not fit the extensions settings: {reason}."),
                Some("use `functions`, `permissions` (environment, filesystem-read, network), `allowlist` and `unsafeLegacy`".into()),
            ),
            BadClientBehavior { reason } => w(
                Code::BadClientBehavior,
                "invalid client behavior settings",
                format!("The `Client behavior:` block does not fit the client behaviour settings: {reason}."),
                Some("use `roots` (URIs, or `uri` and `name`), `sampling` (`model`, `text`), `elicitation` (`action`, `content`), `extensions` and `preparedAnswersOnly`".into()),
            ),
            SecondIteration => w(
                Code::SecondIteration,
                "second data iteration",
                "A test iterates over one data set; a second `For each row` would be ignored.",
                Some("remove one of them, or join the data in a `Data source:` block".into()),
            ),
            ImportCycle { chain } => w(
                Code::ImportCycle,
                "this import closes a cycle",
                format!("These imports form a cycle: {}.", chain.join(" → ")),
                Some("move the shared flows into a file that imports neither of the others".into()),
            ),
            ImportUnreadable { path, reason } => w(
                Code::ImportUnreadable,
                "cannot read this file",
                format!("The imported file `{path}` cannot be read: {reason}."),
                Some("check the path; it is relative to the folder of the importing file".into()),
            ),
            ImportTooDeep { limit } => w(
                Code::ImportTooDeep,
                format!("import nested {limit} levels deep"),
                format!("Imports may be nested at most {} levels deep; this import is number {limit} in a chain.", limit - 1),
                Some("import the flows you need directly instead of through a chain of files".into()),
            ),
            AbsoluteImport { path } => w(
                Code::AbsoluteImport,
                "absolute path",
                format!("`{path}` is an absolute path; imports are relative to the importing file so a suite can move as a whole."),
                Some("write the path relative to this file, e.g. `./shared/flows.mcpr`".into()),
            ),
            ImportTooLarge { path, bytes } => w(
                Code::ImportTooLarge,
                "file larger than 1 MiB",
                format!("The imported file `{path}` has {bytes} bytes; an imported file may have at most 1 MiB (1048576 bytes)."),
                Some("split the flows into several smaller files".into()),
            ),
            TooManyImports { limit } => w(
                Code::TooManyImports,
                format!("import number {}", limit + 1),
                format!("A suite may import at most {limit} different files."),
                Some("gather related flows into fewer files".into()),
            ),
            ImportOutsideFolder { path } => w(
                Code::ImportOutsideFolder,
                "outside the suite's folder",
                format!("`{path}` resolves outside the folder of the file being checked; imports must stay inside it (symbolic links are followed before comparing)."),
                Some("move the imported file into the suite's folder or a subfolder".into()),
            ),
            UnknownStdLibrary { name } => w(
                Code::UnknownStdLibrary,
                "unknown standard library",
                format!("`std:{name}` is not a standard flow library of this version of mcpr; `std:` names are reserved for libraries shipped with mcpr."),
                Some("import a file by its relative path instead, e.g. `./flows.mcpr`".into()),
            ),
            UnknownFlow { name, suggestion } => w(
                Code::UnknownFlow,
                "no flow with this name",
                format!("No flow named \"{name}\" is declared in this file or in the files it imports."),
                Some(match suggestion {
                    Some(s) => format!("did you mean \"{s}\"?"),
                    None => "declare it with `Flow: \"name\"` or import the file that declares it".into(),
                }),
            ),
            RecursiveFlow { chain } => w(
                Code::RecursiveFlow,
                "this call makes the flow recursive",
                format!("Flows may not call themselves, directly or through other flows: {}.", chain.join(" → ")),
                Some("remove the call that leads back, or move the shared steps into a third flow".into()),
            ),
            DuplicateTestId { id, explicit, surface } => w(
                Code::DuplicateTestId,
                format!("second test with id `{id}`"),
                if *explicit {
                    format!("Two tests have the id `{id}`; ids must be unique so dependencies, outputs and snapshots can tell them apart.")
                } else {
                    format!("Two tests get the id `{id}` (made from their names); ids must be unique so dependencies, outputs and snapshots can tell them apart.")
                },
                Some(match surface {
                    Surface::Mcpr => "give one of the tests its own `Id:`".into(),
                    Surface::Yaml => "give one of the tests its own `id:`".into(),
                }),
            ),
            UnknownDependency { id, suggestion, surface } => w(
                Code::UnknownDependency,
                "no test with this id",
                match surface {
                    Surface::Mcpr => format!("No test has the id `{id}`. A test's id is its `Id:`, or its name in lower case with every run of other characters turned into `-`."),
                    Surface::Yaml => format!("No test has the id `{id}`. A test's id is its `id`, or its `name` in lower case with every run of other characters turned into `-`."),
                },
                Some(match suggestion {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => "name the id of a test of this file".into(),
                }),
            ),
            DependencyCycle { chain, surface } => w(
                Code::DependencyCycle,
                "dependency cycle",
                format!("These tests depend on each other in a circle, so none of them can run first: {}.", chain.join(" → ")),
                Some(match surface {
                    Surface::Mcpr => "remove one of the `Depends on:` entries of the cycle".into(),
                    Surface::Yaml => "remove one of the `dependsOn` entries of the cycle".into(),
                }),
            ),
            DependsOnSkipped { id, surface } => w(
                Code::DependsOnSkipped,
                "this test is skipped",
                match surface {
                    Surface::Mcpr => format!("The test `{id}` is marked `Skip`, so it never passes and this test is always blocked."),
                    Surface::Yaml => format!("The test `{id}` has `skip` set, so it never passes and this test is always blocked."),
                },
                Some(match surface {
                    Surface::Mcpr => format!("remove `Skip` from `{id}`, or skip this test too"),
                    Surface::Yaml => format!("remove `skip` from `{id}`, or skip this test too"),
                }),
            ),
            DepsNotDeclared { id, test, surface } => w(
                Code::DepsNotDeclared,
                "not a dependency of this test",
                format!("`${{deps.{id}.…}}` reads an output of `{id}`, but the test \"{test}\" does not depend on it, so the value is never there."),
                Some(match surface {
                    Surface::Mcpr => format!("add `Depends on: {id}` to the test"),
                    Surface::Yaml => format!("add `{id}` to the test's `dependsOn`"),
                }),
            ),
            UnknownServer { name, known, surface } => match surface {
                Surface::Mcpr => w(
                    Code::UnknownServer,
                    "no named server with this name",
                    format!("No `Named server \"{name}\"` is declared{}.", known_list(known)),
                    Some(format!("declare it at the top of the file: `Named server \"{name}\": node server.js`")),
                ),
                Surface::Yaml => w(
                    Code::UnknownServer,
                    "no named server with this name",
                    format!("`servers` has no entry `{name}`{}.", known_list(known)),
                    Some(format!("add `{name}` to the suite's `servers`, or correct the name")),
                ),
            },
            SingleTarget { kind } => w(
                Code::SingleTarget,
                format!("the only {kind}"),
                if *kind == "compare target" {
                    "A parity run compares at least two servers, but the file declares one compare target.".to_string()
                } else {
                    "A composition routes tests to at least two servers, but the file declares one named server.".to_string()
                },
                Some(if *kind == "compare target" {
                    "declare a second `Compare target`, or use `Server:` for a single server".into()
                } else {
                    "declare a second `Named server`, or use `Server:` for a single server".into()
                }),
            ),
            MissingFlowInput { flow, inputs } => w(
                Code::MissingFlowInput,
                format!("missing {}", quoted_list(inputs)),
                format!("The flow \"{flow}\" requires {} but this call gives {}.", quoted_list(inputs), if inputs.len() == 1 { "no value for it" } else { "no values for them" }),
                Some(format!("add `{}: …` under `Use flow \"{flow}\" with:`", inputs[0])),
            ),
            UnknownFlowInput { flow, inputs, declared } => w(
                Code::UnknownFlowInput,
                format!("unknown {}", quoted_list(inputs)),
                format!("The flow \"{flow}\" declares no input {}{}.", quoted_list(inputs), if declared.is_empty() { "; it takes no inputs".to_string() } else { format!("; its inputs are {}", quoted_list(declared)) }),
                Some("remove the value, or add the input to the flow's `Inputs:` line".into()),
            ),
            OptionsForUndeclared { kind, name, known } => w(
                Code::OptionsForUndeclared,
                format!("no {kind} with this name"),
                format!("These options are for the {kind} \"{name}\", which is not declared before this line{}.", known_list(known)),
                Some(format!("declare the {kind} above the options, or correct the name")),
            ),
            OptionsBeforeTarget => w(
                Code::OptionsBeforeTarget,
                "no server declared yet",
                "`Server options:` apply to the server declared before them, and none is declared yet.",
                Some("put `Server: command` or `MCP URL: https://…` above the options".into()),
            ),
            UnknownFunction { name, suggestion, surface } => w(
                Code::UnknownFunction,
                "unknown function",
                match surface {
                    Surface::Mcpr => format!("`{name}` is not a built-in utility function, and the file declares no `Functions:` module that could provide it."),
                    Surface::Yaml => format!("`{name}` is not a built-in utility function, and the suite names no `extensions.functions` module that could provide it."),
                },
                Some(match suggestion {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => "use one of lowercase, uppercase, trim, join, replace, length, number, text, json, round, urlEncode, base64, hash".into(),
                }),
            ),
            BadResultPath { path, reason } => w(
                Code::BadResultPath,
                "malformed path",
                format!("The result path `{path}` cannot be evaluated: {reason}."),
                Some("write member names separated by dots and list indexes in brackets, e.g. `content[0].text`".into()),
            ),
            NoTarget => w(
                Code::NoTarget,
                "no server declared",
                "The file has tests but declares no server to run them against.",
                Some("add `Server: node server.js` or `MCP URL: https://…` at the top of the file".into()),
            ),
            BadServerOption { key, reason } => w(
                Code::BadServerOption,
                format!("`{key}` {reason}"),
                format!("In a server options block, `{key}` {reason}."),
                Some("stdio servers take `cwd` and `env`; HTTP servers take `headers`, `Token from` and `OAuth`".into()),
            ),
            NoTests => w(
                Code::NoTests,
                "nothing to run",
                "The file declares no test and no flow.",
                Some("add a test: `Test: \"name\"` followed by an indented action".into()),
            ),
            VariableSavedLater { name, line } => w(
                Code::UnknownVariable,
                "read before it is saved",
                format!("`{name}` gets its value from the statement on line {line}, which has not finished when this reference is read, so `${{{name}}}` has no value here."),
                Some(format!("move the line that saves `{name}` above this one, or give it a starting value under `Variables:`")),
            ),
            UnknownVariable { reference, flow, suggestion, surface: Surface::Yaml } => {
                let head = reference.split('.').next().unwrap_or(reference);
                let _ = flow;
                w(
                    Code::UnknownVariable,
                    "unknown variable",
                    if head == "row" {
                        "`${row.…}` reads the current data row, but this test has no `forEach` and no `row` variable.".to_string()
                    } else {
                        format!("No variable `{head}` is declared in this test: it is not in `variables`, and no step captures it or sets it.")
                    },
                    Some(match suggestion {
                        Some(s) => format!("did you mean `${{{s}}}`?"),
                        None if head == "row" => "add `forEach` (rows, a data source or a file) to the test".to_string(),
                        None => format!("add `{head}` to the test's `variables`, or capture it in an earlier step (`capture: {{{head}: $.…}}`)"),
                    }),
                )
            }
            UnknownVariable { reference, flow, suggestion, surface: Surface::Mcpr } => {
                let head = reference.split('.').next().unwrap_or(reference);
                let message = match flow {
                    Some(f) => format!("The flow \"{f}\" reads `${{{reference}}}`, but `{head}` is not one of its inputs and the flow does not save it; a flow sees only its inputs, what it saves, and `env.`, `row.`, `deps.` and `state.` values."),
                    None if head == "row" => "`${row.…}` reads the current data row, but this test does not iterate over data.".to_string(),
                    None => format!("No variable `{head}` is declared in this test: it is not in `Variables:`, and no step saves or sets it."),
                };
                w(
                    Code::UnknownVariable,
                    "unknown variable",
                    message,
                    Some(match (suggestion, flow) {
                        (Some(s), _) => format!("did you mean `${{{s}}}`?"),
                        (None, Some(_)) => format!("add `{head}` to the flow's `Inputs:` and pass it with `Use flow … with:`"),
                        (None, None) if head == "row" => "add `For each row:` with a table, `For each row in \"file.csv\"` or `For each row from \"source\"` to the test".to_string(),
                        (None, None) => format!("declare it under `Variables:`, or save it with `Save \"path\" as \"{head}\"` before this line"),
                    }),
                )
            }
            UnknownDataSource { name, suggestion, surface } => w(
                Code::UnknownDataSource,
                "no data source with this name",
                match surface {
                    Surface::Mcpr => format!("No `Data source: \"{name}\"` is declared in this file."),
                    Surface::Yaml => format!("`dataSources` has no entry `{name}`."),
                },
                Some(match (suggestion, surface) {
                    (Some(s), _) => format!("did you mean \"{s}\"?"),
                    (None, Surface::Mcpr) => "declare it with a `Data source:` block, or read a file with `For each row in \"file.csv\"`".into(),
                    (None, Surface::Yaml) => "declare it under `dataSources`, or read a file with `forEach: {file: data.csv}`".into(),
                }),
            ),
            DataSourceWithoutOrigin { name } => w(
                Code::DataSourceWithoutOrigin,
                "nothing to load",
                format!("The data source \"{name}\" says how to shape rows but not where they come from."),
                Some("add a `From CSV \"file.csv\"` (or JSON, YAML, Excel, REST) line, or `file:`/`url:`/`rows:` settings".into()),
            ),
            BadDataSourceSettings { reason } => w(
                Code::BadDataSourceSettings,
                "invalid data source settings",
                format!("The data source settings do not fit the data source model: {reason}."),
                Some("see `docs/ir.md` (Data source) for the settings and their shapes".into()),
            ),
            NonNumericFilter { value } => w(
                Code::NonNumericFilter,
                "not a number",
                format!("`is greater than` and `is less than` compare numbers, but `{value}` is not a number."),
                Some("write a number, e.g. `Keep rows where \"spend\" is greater than 100`".into()),
            ),
            LegacyUnterminatedQuote { quote } => w(
                Code::LegacyUnterminatedQuote,
                format!("this {quote} is never closed"),
                format!("The quote {quote} opens text that does not end on this line, so the line cannot be split into arguments; mcp-tester fails such a line."),
                Some(format!("close the text with {quote} on the same line; for text over several lines use a heredoc (`<<EOF`)")),
            ),
            LegacyUnknownCommand { word, suggestion } => w(
                Code::LegacyUnknownCommand,
                "unknown command",
                format!("`{word}` is not a command of mcp-tester scripts. Every line is one command such as `call_tool`, `set_var`, `assert_contains` or `echo`; text after `#` or `//` is a comment."),
                Some(match suggestion {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => "see docs/legacy-mcp.md for the command list".into(),
                }),
            ),
            LegacyArgumentCount { command, usage, given } => w(
                Code::LegacyArgumentCount,
                format!("{} given", count(*given, "argument")),
                format!("`{command}` does not take {}. Its form is `{usage}`. A value with spaces needs quotes to stay one argument.", count(*given, "argument")),
                Some(format!("write `{usage}`")),
            ),
            LegacyVariableNotSet { name, suggestion } => w(
                Code::LegacyVariableNotSet,
                "not set yet",
                format!("`${name}` is read here, but no `set_var {name} …` or `input_var {name}` comes before this line, so the script would stop here with an unknown variable."),
                Some(match suggestion {
                    Some(s) => format!("did you mean `${s}`?"),
                    None => format!("set it first, e.g. `set_var {name} $.{name}` after the call that returns it"),
                }),
            ),
            LegacyBadHeredoc { reason } => {
                let (label, message, help) = match reason {
                    HeredocProblem::NoMarker => ("no marker", "A heredoc starts with `<<` followed by its end marker, a word of letters, digits, `_` or `-`.".to_string(), "write `<<EOF` and end the text with a line holding only `EOF`".to_string()),
                    HeredocProblem::NotLast => ("text after the heredoc marker", "The heredoc marker must be the last word of its line: the text of the heredoc becomes the last argument.".to_string(), "move the arguments before `<<EOF`".to_string()),
                    HeredocProblem::Unterminated { marker } => ("never ends", format!("No line holding only `{marker}` follows, so the heredoc takes the rest of the file."), format!("end the heredoc with a line holding only `{marker}`")),
                };
                w(Code::LegacyBadHeredoc, label, message, Some(help))
            }
            LegacyBadTimeout { text, what } => w(
                Code::LegacyBadTimeout,
                "not a usable duration",
                format!("`{text}` is not a valid {what}: write whole milliseconds (`500`) or a number with a unit (`500ms`, `2s`, `1.5s`, `1m`), between 1 ms and 10 minutes."),
                Some("write e.g. `5000` or `5s`".into()),
            ),
            LegacyBadArgument { command, reason, help } => w(
                Code::LegacyBadArgument,
                "invalid value",
                format!("`{command}`: {reason}."),
                Some(help.clone()),
            ),
            LegacyMisplacedPrefix { prefix, command } => w(
                Code::LegacyMisplacedPrefix,
                match command {
                    Some(_) => "cannot apply here",
                    None => "no command after it",
                },
                match command {
                    Some(c) => format!("`{prefix}` applies to a command that talks to the server{}, and `{c}` is neither.", if *prefix == "expect_error" { " or to an `assert_…` check" } else { "" }),
                    None => format!("`{prefix}` must be followed by the command it applies to."),
                },
                Some(format!("write `{prefix} {}call_tool …`", if *prefix == "timeout" { "<ms> " } else { "" })),
            ),
            LegacyEmptyScript => w(
                Code::LegacyEmptyScript,
                "nothing to run",
                "The script holds no command (only blank lines and comments), so it would test nothing.",
                Some("add a command, e.g. `ping` or `call_tool echo text:hello`".into()),
            ),
            LegacyDuplicateArgument { name } => w(
                Code::LegacyDuplicateArgument,
                "given twice",
                format!("The argument `{name}` is named twice in this call; only one value can be sent."),
                Some(format!("keep one `{name}:…`")),
            ),
            SuiteSyntax { message, json } => {
                let what = if *json { "JSON" } else { "YAML" };
                w(
                    Code::SuiteSyntax,
                    format!("invalid {what}"),
                    format!("The suite file is not valid {what}: {message}."),
                    Some(if *json {
                        "fix the JSON at the caret: strings in double quotes, members separated by commas, no trailing comma".into()
                    } else {
                        "fix the YAML at the caret; quote values that contain `: ` or ` #` or start with a special character".into()
                    }),
                )
            }
            UnknownField { context, field, suggestion, valid } => w(
                Code::UnknownField,
                format!("unknown field `{field}`"),
                if valid.is_empty() {
                    format!("{} has no field `{field}`.", capitalise(context))
                } else {
                    format!("{} has no field `{field}`; its fields are {}.", capitalise(context), quoted_list(valid))
                },
                Some(match suggestion {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => "remove the field; `mcpr schema` prints the whole suite model".into(),
                }),
            ),
            WrongType { context, expected, found } => w(
                Code::WrongType,
                format!("expected {expected}, found {found}"),
                format!("{} must be {expected}, but it is {found}.", capitalise(context)),
                Some(if context == "the suite" {
                    "a suite is a mapping that starts with `version: 1`, then `target:` and `tests:`".into()
                } else if expected.starts_with("text") && found.starts_with('a') && !found.contains("list") && !found.contains("mapping") {
                    "put the value in quotes to make it text".into()
                } else {
                    format!("write {expected} here")
                }),
            ),
            MissingField { context, fields } => {
                if fields.len() == 1 {
                    w(
                        Code::MissingField,
                        format!("missing `{}`", fields[0]),
                        format!("{} must have the field `{}`.", capitalise(context), fields[0]),
                        Some(format!("add `{}:` here", fields[0])),
                    )
                } else {
                    w(
                        Code::MissingField,
                        format!("needs one of {}", or_quoted(fields)),
                        format!("{} must have exactly one of the fields {}.", capitalise(context), or_quoted(fields)),
                        Some(format!("add one of {}", or_quoted(fields))),
                    )
                }
            }
            InvalidValue { context, found, valid } => {
                let suggestion = if valid.len() > 1 {
                    crate::names::closest(found, valid.iter().map(String::as_str))
                } else {
                    None
                };
                w(
                    Code::InvalidValue,
                    if valid.len() == 1 { format!("expected `{}`", valid[0]) } else { "not an allowed value".to_string() },
                    if valid.len() == 1 {
                        format!("{} is `{found}`, but the only allowed value is `{}`.", capitalise(context), valid[0])
                    } else {
                        format!("{} is `{found}`, which is not one of {}.", capitalise(context), or_quoted(valid))
                    },
                    Some(match suggestion {
                        Some(s) => format!("did you mean `{s}`?"),
                        None => format!("write {}", or_quoted(valid)),
                    }),
                )
            }
            YamlAlias { what, name } => {
                let (label, message) = match what {
                    AliasKind::Anchor => (
                        format!("anchor `&{name}`"),
                        "Suite files may not use YAML anchors: every value is written where it is used, so the file reads the same to people, to generators and to JSON tools.".to_string(),
                    ),
                    AliasKind::Alias => (
                        format!("alias `*{name}`"),
                        "Suite files may not use YAML aliases: every value is written where it is used, so the file reads the same to people, to generators and to JSON tools.".to_string(),
                    ),
                    AliasKind::MergeKey => (
                        "merge key `<<`".to_string(),
                        "Suite files may not use YAML merge keys (`<<`): every member is written in the mapping it belongs to.".to_string(),
                    ),
                };
                w(
                    Code::YamlAlias,
                    label,
                    message,
                    Some("write the value out in full at each place it is used".into()),
                )
            }
            SuiteTooLarge { bytes, limit } => w(
                Code::SuiteTooLarge,
                "the limit is crossed here",
                format!("The suite file has {bytes} bytes; a suite file may have at most {limit} bytes (1 MiB)."),
                Some("split the tests into several suite files, or load large data with `dataSources` files".into()),
            ),
            SchemaViolation { context, rule } => w(
                Code::SchemaViolation,
                rule.split(" (it is").next().unwrap_or(rule).to_string(),
                format!("{} {rule}.", capitalise(context)),
                Some("see `mcpr schema` (docs/schema/suite.schema.json) for the rules of the suite model".into()),
            ),
            UnusedFlow { name } => w(
                Code::UnusedFlow,
                "never used",
                format!("No test of this file uses the flow \"{name}\", directly or through another flow."),
                Some("use it with `Use flow`, remove it, or move it into a file that other suites import".into()),
            ),
            UnreadSavedVariable { name } => w(
                Code::UnreadSavedVariable,
                "never read",
                format!("`{name}` is saved here but no later line of the test reads `${{{name}}}`."),
                Some("use the variable, or remove the line".into()),
            ),
            UnreadVariable { name } => w(
                Code::UnreadVariable,
                "never read",
                format!("The variable `{name}` is declared but no line of the test reads `${{{name}}}`."),
                Some("use the variable, or remove the entry".into()),
            ),
            UnknownBudgetTest { name, suggestion, surface } => w(
                Code::UnknownBudgetTest,
                "no test with this name",
                format!("No test of this file is named \"{name}\", so this latency budget never measures anything."),
                Some(match suggestion {
                    Some(s) => format!("did you mean \"{s}\"?"),
                    None if *surface == Surface::Yaml => "name a test exactly as its `name` does, or write `test: \"*\"` for every test".into(),
                    None => "name a test exactly as its `Test:` line does, or write `Budget:` for every test".into(),
                }),
            ),
            UnusedExport { name, test } => w(
                Code::UnusedExport,
                "no test reads this output",
                format!("No test reads `${{deps.{test}.{name}}}`, so this export only reaches state files."),
                Some("remove the export, or read it from a test that depends on this one".into()),
            ),
        }
    }
}

/// `a`, `a` and `b`, `a`, `b` and `c` — names in backticks.
fn quoted_list(items: &[String]) -> String {
    let q: Vec<String> = items.iter().map(|i| format!("`{i}`")).collect();
    match q.len() {
        0 => String::new(),
        1 => q[0].clone(),
        n => format!("{} and {}", q[..n - 1].join(", "), q[n - 1]),
    }
}

/// `a`, `a` or `b`, `a`, `b` or `c` — names in backticks.
fn or_quoted(items: &[String]) -> String {
    let q: Vec<String> = items.iter().map(|i| format!("`{i}`")).collect();
    match q.len() {
        0 => String::new(),
        1 => q[0].clone(),
        n => format!("{} or {}", q[..n - 1].join(", "), q[n - 1]),
    }
}

/// `; declared: a, b` or `; none is declared`.
fn known_list(known: &[String]) -> String {
    if known.is_empty() {
        " (none is declared)".to_string()
    } else {
        format!(" (declared: {})", quoted_list(known))
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
