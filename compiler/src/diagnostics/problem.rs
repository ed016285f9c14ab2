//! The data of every compile-time problem. Parsers and checks build `Problem`s; the one
//! function that words them is `Problem::describe` (in `diagnostics/wording`), and nothing
//! else writes messages.

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
    /// A regular expression that does not compile (ECMAScript, [`crate::regexp`]).
    BadPattern {
        /// The engine's reason.
        reason: String,
    },
    /// `""` where a statement needs a name, a URI, a method or a path.
    EmptyName {
        /// What belongs between the quotes.
        what: &'static str,
    },
    /// `Expect "x" is a WORD` where the word is no JSON type.
    NotAType {
        /// The word as written.
        found: String,
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
        /// The limit in bytes.
        limit: usize,
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
        /// The libraries this version ships (`std:protocol`, …).
        known: Vec<String>,
    },
    /// `Use flow` naming no declared or imported flow.
    UnknownFlow {
        /// The name used.
        name: String,
        /// The closest declared flow.
        suggestion: Option<String>,
        /// The standard library (`std:tools`) whose flow has this check id, when the name is
        /// one and the library is not imported.
        library: Option<String>,
    },
    /// Flows that call themselves, directly or through others.
    RecursiveFlow {
        /// The call chain, first and last the same.
        chain: Vec<String>,
    },
    /// A `Use flow` whose expansion would pass the flow budget: calls nested too deeply, or
    /// more statements than one test may take in through flows.
    FlowTooLarge {
        /// The flow called.
        flow: String,
        /// Which limit it passes.
        over: FlowExcess,
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
        /// The closest built-in or declared name.
        suggestion: Option<String>,
        /// The function modules the suite declares, whose names are all known (empty: the
        /// suite declares none).
        modules: Vec<String>,
    },
    /// `Expect the server is lint clean ignoring …` (or a `lint-clean` step's `ignore`)
    /// naming a code that is no lint rule.
    UnknownLintRule {
        /// The code as written.
        code: String,
        /// The closest rule code.
        suggestion: Option<String>,
    },
    /// A fault phrase below a step that sends no request of its own (`step` says what
    /// it is), or below a step that already has a fault (`step` is `None`).
    MisplacedFault {
        /// The phrase as the statement table writes it.
        phrase: String,
        /// What the step is, when it sends no request.
        step: Option<String>,
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
    /// The YAML of one file (the blocks of a `.mcpr` file, or a YAML suite) holds more values
    /// than the file's budget ([`crate::yaml::file_node_budget`]).
    YamlTooLarge {
        /// The most values the file may hold.
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
        /// Whether the value is the `timeout` prefix, which takes whole milliseconds only
        /// (otherwise a duration argument, which also takes units).
        prefix: bool,
        /// The milliseconds the text means as a duration with a unit (`2s` → 2000), when it
        /// does: a `timeout` prefix written that way.
        as_duration: Option<u64>,
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
    /// A `.mcp` file written in the MCP Test Language (`MCP Test 1`, `Suite:`, `Test:`).
    LegacyTestLanguage {
        /// The line that gave it away, as written (`MCP Test 1`, `Suite: …`).
        line: String,
    },
    /// `name:value` given twice in one call.
    LegacyDuplicateArgument {
        /// The argument name.
        name: String,
    },
    /// A data source declared in the file that no test takes its rows from (it is not
    /// loaded).
    UnusedDataSource {
        /// The data source.
        name: String,
    },
    /// A `matches` pattern with a group that repeats without bound what itself repeats
    /// without bound (catastrophic backtracking).
    SlowPattern {
        /// The group, as written.
        group: String,
    },
    /// A `Functions:` module (`extensions.functions`) that cannot be read.
    FunctionModuleUnreadable {
        /// The module, as written.
        path: String,
        /// Why it cannot be read.
        reason: String,
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

/// The limit of the flow budget a `Use flow` passes ([`Problem::FlowTooLarge`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FlowExcess {
    /// The calls below the line go `depth` flows deep; at most `limit` may nest.
    Depth {
        /// Flows nested by this call, itself included.
        depth: usize,
        /// The most that may nest.
        limit: usize,
    },
    /// The test would hold `total` statements taken in through flows; at most `limit`.
    Statements {
        /// The statements the test would take in with this call.
        total: usize,
        /// The most a test may take in.
        limit: usize,
    },
    /// The tests of the suite together would take in more than `limit` statements through
    /// flows.
    Suite {
        /// The most the tests of a suite may take in together.
        limit: usize,
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

impl Problem {
    /// The misspelt word and the word to write instead, when the problem's `Try:` suggestion
    /// is a mechanical rename (a flow, test id, function, lint rule, data source, variable,
    /// YAML key or budget test closest to what was written), and whether the rename is safe:
    /// a word of the language is, a name the user declared is not. The diagnostic's fix
    /// replaces the word where it stands in the diagnostic's span.
    pub fn rename(&self) -> Option<(&str, &str, super::fix::Applicability)> {
        use super::fix::Applicability::{Safe, Unsafe};
        use Problem::*;
        let (written, suggested, applicability) = match self {
            // Names the user declared: the closest one is a guess.
            UnknownFlow {
                name, suggestion, ..
            }
            | UnknownDataSource {
                name, suggestion, ..
            }
            | UnknownBudgetTest {
                name, suggestion, ..
            } => (name.as_str(), suggestion.as_deref()?, Unsafe),
            UnknownDependency { id, suggestion, .. } => {
                (id.as_str(), suggestion.as_deref()?, Unsafe)
            }
            UnknownVariable {
                reference,
                suggestion,
                ..
            } => (
                reference.split('.').next().unwrap_or(reference),
                suggestion.as_deref()?,
                Unsafe,
            ),
            // Words of the language: a built-in function, a lint code, a YAML key.
            UnknownFunction {
                name, suggestion, ..
            } => (name.as_str(), suggestion.as_deref()?, Safe),
            UnknownLintRule { code, suggestion } => (code.as_str(), suggestion.as_deref()?, Safe),
            UnknownField {
                field, suggestion, ..
            } => (field.as_str(), suggestion.as_deref()?, Safe),
            _ => return None,
        };
        (written != suggested && !written.is_empty()).then_some((written, suggested, applicability))
    }
}
