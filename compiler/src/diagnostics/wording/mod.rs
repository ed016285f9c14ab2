//! The wording of every problem: [`Problem::describe`] is the only place messages are
//! written. It hands each problem to the `describe` of its code family (one file of this
//! module each), which hands the problem's data to one function per problem.

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
    /// Words the problem: the only place messages are written. The match says which family
    /// each problem belongs to; a new problem is a compile error here until it has one.
    pub fn describe(&self) -> Wording {
        use Problem::*;
        match self {
            Tab
            | OddIndentation { .. }
            | VersionHeader { .. }
            | UnclosedQuote { .. }
            | BadReference { .. }
            | BadDuration { .. }
            | NumberOutOfRange { .. }
            | BadNumber { .. }
            | BadPattern { .. } => lexical::describe(self),
            NotAType { .. }
            | EmptyName { .. }
            | DuplicateName { .. }
            | TestWithoutAction { .. }
            | ExpectationBeforeAction { .. }
            | UnknownStatement { .. }
            | MisplacedStatement { .. }
            | MissingBlock { .. }
            | BlockNotMapping { .. }
            | Yaml { .. }
            | MalformedTable { .. }
            | MalformedStatement { .. }
            | TrailingText { .. }
            | BlockNotAllowed { .. }
            | NothingToAttach { .. }
            | UnknownDataPhrase { .. }
            | SecondIteration => structure::describe(self),
            BadStepSettings { .. }
            | IncompleteReference { .. }
            | BadExtensions { .. }
            | BadClientBehavior { .. }
            | UnknownFlow { .. }
            | RecursiveFlow { .. }
            | FlowTooLarge { .. }
            | DuplicateTestId { .. }
            | UnknownDependency { .. }
            | DependencyCycle { .. }
            | DependsOnSkipped { .. }
            | DepsNotDeclared { .. }
            | UnknownServer { .. }
            | SingleTarget { .. }
            | MissingFlowInput { .. }
            | UnknownFlowInput { .. }
            | OptionsForUndeclared { .. }
            | OptionsBeforeTarget
            | UnknownFunction { .. }
            | UnknownLintRule { .. }
            | MisplacedFault { .. }
            | BadResultPath { .. }
            | NoTarget
            | BadServerOption { .. }
            | NoTests
            | VariableSavedLater { .. }
            | UnknownVariable { .. } => names::describe(self),
            ImportCycle { .. }
            | ImportUnreadable { .. }
            | ImportTooDeep { .. }
            | AbsoluteImport { .. }
            | ImportTooLarge { .. }
            | TooManyImports { .. }
            | ImportOutsideFolder { .. }
            | UnknownStdLibrary { .. } => imports::describe(self),
            UnknownDataSource { .. }
            | DataSourceWithoutOrigin { .. }
            | BadDataSourceSettings { .. }
            | NonNumericFilter { .. } => data::describe(self),
            LegacyUnterminatedQuote { .. }
            | LegacyUnknownCommand { .. }
            | LegacyArgumentCount { .. }
            | LegacyVariableNotSet { .. }
            | LegacyBadHeredoc { .. }
            | LegacyBadTimeout { .. }
            | LegacyBadArgument { .. }
            | LegacyMisplacedPrefix { .. }
            | LegacyEmptyScript
            | LegacyTestLanguage { .. }
            | LegacyDuplicateArgument { .. } => legacy::describe(self),
            SuiteSyntax { .. }
            | UnknownField { .. }
            | WrongType { .. }
            | MissingField { .. }
            | InvalidValue { .. }
            | YamlAlias { .. }
            | SuiteTooLarge { .. }
            | YamlTooLarge { .. }
            | SchemaViolation { .. } => suites::describe(self),
            UnusedFlow { .. }
            | UnusedDataSource { .. }
            | SlowPattern { .. }
            | FunctionModuleUnreadable { .. }
            | UnreadSavedVariable { .. }
            | UnreadVariable { .. }
            | UnknownBudgetTest { .. }
            | UnusedExport { .. } => warnings::describe(self),
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
