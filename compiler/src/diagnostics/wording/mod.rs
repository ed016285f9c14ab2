//! The wording of every problem: [`Problem::describe`] is the only place messages are
//! written. It hands each problem's data to one function per problem, kept by code family
//! in the files of this module.

mod data;
mod imports;
mod legacy;
mod lexical;
mod names;
mod structure;
mod suites;
mod warnings;

use super::Code;
use super::problem::{
    AliasKind, DurationProblem, FlowExcess, HeredocProblem, Problem, Surface, TableProblem,
};

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

pub(super) fn w(
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
            Tab => lexical::tab(),
            OddIndentation { spaces } => lexical::odd_indentation(spaces),
            VersionHeader { found } => lexical::version_header(found),
            UnclosedQuote { quote } => lexical::unclosed_quote(quote),
            BadReference { unclosed } => lexical::bad_reference(unclosed),
            BadDuration { text, reason } => lexical::bad_duration(text, reason),
            NumberOutOfRange {
                text,
                what,
                min,
                max,
            } => lexical::number_out_of_range(text, what, min, max),
            BadNumber { text, what } => lexical::bad_number(text, what),
            BadPattern { reason } => lexical::bad_pattern(reason),
            NotAType { found } => structure::not_a_type(found),
            EmptyName { what } => structure::empty_name(what),
            DuplicateName { kind, name } => structure::duplicate_name(kind, name),
            TestWithoutAction { name } => structure::test_without_action(name),
            ExpectationBeforeAction { word } => structure::expectation_before_action(word),
            UnknownStatement {
                context,
                suggestion,
            } => structure::unknown_statement(context, suggestion),
            MisplacedStatement {
                what,
                found_in,
                belongs,
            } => structure::misplaced_statement(what, found_in, belongs),
            MissingBlock { opener } => structure::missing_block(opener),
            BlockNotMapping { found } => structure::block_not_mapping(found),
            Yaml { message } => structure::yaml(message),
            MalformedTable { problem } => structure::malformed_table(problem),
            MalformedStatement { usage, expected } => {
                structure::malformed_statement(usage, expected)
            }
            TrailingText { comment } => structure::trailing_text(comment),
            BlockNotAllowed { action } => structure::block_not_allowed(action),
            NothingToAttach { after } => structure::nothing_to_attach(after),
            UnknownDataPhrase { suggestion } => structure::unknown_data_phrase(suggestion),
            BadStepSettings { reason } => names::bad_step_settings(reason),
            IncompleteReference { reference } => names::incomplete_reference(reference),
            BadExtensions { reason } => names::bad_extensions(reason),
            BadClientBehavior { reason } => names::bad_client_behavior(reason),
            SecondIteration => structure::second_iteration(),
            ImportCycle { chain } => imports::import_cycle(chain),
            ImportUnreadable { path, reason } => imports::import_unreadable(path, reason),
            ImportTooDeep { limit } => imports::import_too_deep(limit),
            AbsoluteImport { path } => imports::absolute_import(path),
            ImportTooLarge { path, bytes, limit } => imports::import_too_large(path, bytes, limit),
            TooManyImports { limit } => imports::too_many_imports(limit),
            ImportOutsideFolder { path } => imports::import_outside_folder(path),
            UnknownStdLibrary { name, known } => imports::unknown_std_library(name, known),
            UnknownFlow {
                name,
                suggestion,
                library,
            } => names::unknown_flow(name, suggestion, library),
            RecursiveFlow { chain } => names::recursive_flow(chain),
            FlowTooLarge { flow, over } => names::flow_too_large(flow, over),
            DuplicateTestId {
                id,
                explicit,
                surface,
            } => names::duplicate_test_id(id, explicit, surface),
            UnknownDependency {
                id,
                suggestion,
                surface,
            } => names::unknown_dependency(id, suggestion, surface),
            DependencyCycle { chain, surface } => names::dependency_cycle(chain, surface),
            DependsOnSkipped { id, surface } => names::depends_on_skipped(id, surface),
            DepsNotDeclared { id, test, surface } => names::deps_not_declared(id, test, surface),
            UnknownServer {
                name,
                known,
                surface,
            } => names::unknown_server(name, known, surface),
            SingleTarget { kind } => names::single_target(kind),
            MissingFlowInput { flow, inputs } => names::missing_flow_input(flow, inputs),
            UnknownFlowInput {
                flow,
                inputs,
                declared,
            } => names::unknown_flow_input(flow, inputs, declared),
            OptionsForUndeclared { kind, name, known } => {
                names::options_for_undeclared(kind, name, known)
            }
            OptionsBeforeTarget => names::options_before_target(),
            UnknownFunction {
                name,
                suggestion,
                surface,
                modules,
            } => names::unknown_function(name, suggestion, surface, modules),
            UnknownLintRule { code, suggestion } => names::unknown_lint_rule(code, suggestion),
            MisplacedFault { phrase, step } => names::misplaced_fault(phrase, step),
            BadResultPath { path, reason } => names::bad_result_path(path, reason),
            NoTarget => names::no_target(),
            BadServerOption { key, reason } => names::bad_server_option(key, reason),
            NoTests => names::no_tests(),
            VariableSavedLater { name, line } => names::variable_saved_later(name, line),
            UnknownDataSource {
                name,
                suggestion,
                surface,
            } => data::unknown_data_source(name, suggestion, surface),
            DataSourceWithoutOrigin { name } => data::data_source_without_origin(name),
            BadDataSourceSettings { reason } => data::bad_data_source_settings(reason),
            NonNumericFilter { value } => data::non_numeric_filter(value),
            LegacyUnterminatedQuote { quote } => legacy::legacy_unterminated_quote(quote),
            LegacyUnknownCommand { word, suggestion } => {
                legacy::legacy_unknown_command(word, suggestion)
            }
            LegacyArgumentCount {
                command,
                usage,
                given,
            } => legacy::legacy_argument_count(command, usage, given),
            LegacyVariableNotSet { name, suggestion } => {
                legacy::legacy_variable_not_set(name, suggestion)
            }
            LegacyBadHeredoc { reason } => legacy::legacy_bad_heredoc(reason),
            LegacyBadTimeout {
                text,
                prefix,
                as_duration,
            } => legacy::legacy_bad_timeout(text, *prefix, *as_duration),
            LegacyBadArgument {
                command,
                reason,
                help,
            } => legacy::legacy_bad_argument(command, reason, help),
            LegacyMisplacedPrefix { prefix, command } => {
                legacy::legacy_misplaced_prefix(prefix, command)
            }
            LegacyEmptyScript => legacy::legacy_empty_script(),
            LegacyTestLanguage { line } => legacy::legacy_test_language(line),
            LegacyDuplicateArgument { name } => legacy::legacy_duplicate_argument(name),
            SuiteSyntax { message, json } => suites::suite_syntax(message, json),
            UnknownField {
                context,
                field,
                suggestion,
                valid,
            } => suites::unknown_field(context, field, suggestion, valid),
            WrongType {
                context,
                expected,
                found,
            } => suites::wrong_type(context, expected, found),
            MissingField { context, fields } => suites::missing_field(context, fields),
            InvalidValue {
                context,
                found,
                valid,
            } => suites::invalid_value(context, found, valid),
            YamlAlias { what, name } => suites::yaml_alias(what, name),
            SuiteTooLarge { bytes, limit } => suites::suite_too_large(bytes, limit),
            YamlTooLarge { limit } => suites::yaml_too_large(*limit),
            SchemaViolation { context, rule } => suites::schema_violation(context, rule),
            UnusedFlow { name } => warnings::unused_flow(name),
            UnusedDataSource { name } => warnings::unused_data_source(name),
            SlowPattern { group } => warnings::slow_pattern(group),
            FunctionModuleUnreadable { path, reason } => {
                warnings::function_module_unreadable(path, reason)
            }
            UnreadSavedVariable { name } => warnings::unread_saved_variable(name),
            UnreadVariable { name } => warnings::unread_variable(name),
            UnknownBudgetTest {
                name,
                suggestion,
                surface,
            } => warnings::unknown_budget_test(name, suggestion, surface),
            UnusedExport { name, test } => warnings::unused_export(name, test),
            UnknownVariable {
                reference,
                flow,
                suggestion,
                surface,
            } => names::unknown_variable(reference, flow, suggestion, surface),
        }
    }
}

/// `a`, `a` and `b`, `a`, `b` and `c` — names in backticks.
pub(super) fn quoted_list(items: &[String]) -> String {
    let q: Vec<String> = items.iter().map(|i| format!("`{i}`")).collect();
    match q.len() {
        0 => String::new(),
        1 => q[0].clone(),
        n => format!("{} and {}", q[..n - 1].join(", "), q[n - 1]),
    }
}

/// `a`, `a` or `b`, `a`, `b` or `c` — names in backticks.
pub(super) fn or_quoted(items: &[String]) -> String {
    let q: Vec<String> = items.iter().map(|i| format!("`{i}`")).collect();
    match q.len() {
        0 => String::new(),
        1 => q[0].clone(),
        n => format!("{} or {}", q[..n - 1].join(", "), q[n - 1]),
    }
}

/// `; declared: a, b` or `; none is declared`.
pub(super) fn known_list(known: &[String]) -> String {
    if known.is_empty() {
        " (none is declared)".to_string()
    } else {
        format!(" (declared: {})", quoted_list(known))
    }
}

pub(super) fn count(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

pub(super) fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}
