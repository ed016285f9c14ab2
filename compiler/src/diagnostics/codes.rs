//! The single registry of diagnostic codes. Every code is listed here once,
//! with its severity, a short title and the first implementation's code it
//! replaces. Codes are never reused; a retired code keeps its row.

use serde::Serialize;

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The file cannot be run until this is fixed.
    Error,
    /// The file runs, but probably not as intended.
    Warning,
}

impl Severity {
    /// Lower-case name used in machine output.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

macro_rules! registry {
    ($( $variant:ident = $num:literal, $sev:ident, $title:literal, $replaces:literal; )*) => {
        /// A registered diagnostic code.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code {
            $(
                #[doc = $title]
                $variant,
            )*
        }

        impl Code {
            /// Every registered code, in numeric order.
            pub const ALL: &'static [Code] = &[$(Code::$variant),*];

            /// The code as printed, e.g. `MCPLANG102`.
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => concat!("MCPLANG", stringify!($num)),)* }
            }

            /// The numeric part of the code.
            pub fn number(self) -> u16 {
                match self { $(Code::$variant => $num,)* }
            }

            /// Default severity.
            pub fn severity(self) -> Severity {
                match self { $(Code::$variant => Severity::$sev,)* }
            }

            /// One-line title.
            pub fn title(self) -> &'static str {
                match self { $(Code::$variant => $title,)* }
            }

            /// The first implementation's code for the same condition, if any.
            pub fn replaces(self) -> &'static str {
                match self { $(Code::$variant => $replaces,)* }
            }

            /// The documentation page (`docs/diagnostics/MCPLANG###.md`),
            /// compiled in so `mcpr explain` works anywhere.
            pub fn doc(self) -> &'static str {
                match self {
                    $(Code::$variant => include_str!(concat!(
                        env!("CARGO_MANIFEST_DIR"), "/embedded/diagnostics/MCPLANG", stringify!($num), ".md"
                    )),)*
                }
            }
        }
    };
}

registry! {
    // 1xx: lexical
    Tab = 101, Error, "Tab character", "MCPLANG101";
    OddIndentation = 102, Error, "Indentation is not a multiple of two spaces", "MCPLANG102";
    VersionHeader = 103, Error, "Unknown language version header", "MCPLANG103";
    UnclosedQuote = 104, Error, "Unclosed quote", "QA-LANG-001";
    BadReference = 105, Error, "Malformed ${...} reference", "";
    BadDuration = 106, Error, "Invalid duration", "QA-LANG-001";
    BadNumber = 107, Error, "Invalid number", "QA-LANG-001";
    BadPattern = 108, Error, "Invalid regular expression", "";
    // 2xx: structure
    DuplicateName = 201, Error, "Duplicate test, flow or data source name", "MCPLANG201";
    TestWithoutAction = 202, Error, "Test has no action", "MCPLANG202";
    ExpectationBeforeAction = 203, Error, "Expectation before any action", "MCPLANG203";
    UnknownStatement = 204, Error, "Unknown statement", "QA-LANG-001";
    MisplacedStatement = 205, Error, "Statement not allowed here", "QA-LANG-001";
    MissingBlock = 206, Error, "Missing indented block", "QA-LANG-001";
    BlockNotMapping = 207, Error, "Block does not hold name/value pairs", "QA-LANG-001";
    YamlError = 208, Error, "Invalid YAML in a block", "MCP-INTERNAL-000";
    MalformedTable = 209, Error, "Malformed inline table", "QA-DATA-002";
    MalformedStatement = 210, Error, "Incomplete or malformed statement", "QA-LANG-001";
    TrailingText = 211, Error, "Unexpected text after a statement", "QA-LANG-001";
    BlockNotAllowed = 212, Error, "A with: block is not allowed here", "QA-LANG-001";
    NothingToAttach = 213, Error, "Expectation has no step to attach to", "QA-LANG-001";
    UnknownDataPhrase = 214, Error, "Unknown data source phrase", "QA-DATA-004";
    SecondIteration = 215, Error, "More than one data iteration in a test", "QA-LANG-001";
    // 3xx: imports
    ImportCycle = 301, Error, "Import cycle", "MCPLANG301";
    ImportUnreadable = 302, Error, "Imported file cannot be read", "MCPLANG302";
    ImportTooDeep = 303, Error, "Imports nested too deeply", "MCPLANG303";
    AbsoluteImport = 304, Error, "Absolute import path", "MCPLANG304";
    ImportTooLarge = 305, Error, "Imported file larger than the size limit", "MCPLANG305";
    TooManyImports = 306, Error, "More than 64 imported files", "MCPLANG306";
    ImportOutsideFolder = 307, Error, "Import outside the entry file's folder", "MCPLANG307";
    UnknownStdLibrary = 308, Error, "Unknown standard flow library", "";
    // 4xx: names, flows, dependencies
    UnknownFlow = 401, Error, "Unknown flow", "QA-FLOW-001";
    RecursiveFlow = 402, Error, "Recursive flow", "QA-FLOW-002";
    DuplicateTestId = 403, Error, "Duplicate test id", "MCP-DEP-001";
    UnknownDependency = 404, Error, "Unknown dependency", "MCP-DEP-004";
    DependencyCycle = 405, Error, "Dependency cycle", "MCP-DEP-002";
    DependsOnSkipped = 406, Warning, "Dependency on a skipped test", "";
    DepsNotDeclared = 407, Error, "Dependency output of a test that is not a dependency", "";
    UnknownServer = 408, Error, "Unknown named server", "QA-LANG-001";
    SingleTarget = 409, Error, "Only one compare target or named server", "QA-LANG-001";
    MissingFlowInput = 410, Error, "Missing required flow input", "MCPLANG410";
    UnknownFlowInput = 411, Error, "Unknown flow input", "MCPLANG411";
    OptionsForUndeclared = 412, Error, "Options for an undeclared server or target", "QA-LANG-001";
    OptionsBeforeTarget = 413, Error, "Server options before any server", "QA-LANG-001";
    UnknownFunction = 414, Error, "Unknown utility function", "MCP-EXT-002";
    BadResultPath = 415, Error, "Malformed result path", "";
    NoTarget = 416, Error, "No server to test", "QA-LANG-001";
    BadServerOption = 417, Error, "Invalid server option", "QA-LANG-001";
    NoTests = 418, Error, "No tests", "QA-LANG-001";
    UnknownVariable = 419, Error, "Unknown variable", "";
    BadStepSettings = 420, Error, "Invalid step in a Run step block", "";
    BadExtensions = 421, Error, "Invalid Extensions settings", "";
    IncompleteReference = 422, Error, "Reference without a name", "";
    BadClientBehavior = 423, Error, "Invalid Client behavior settings", "";
    UnknownLintRule = 424, Error, "Unknown lint rule code", "";
    MisplacedFault = 425, Error, "Fault on a step that cannot take it", "";
    FlowTooLarge = 426, Error, "Flow use past its budget", "";
    // 5xx: data sources
    UnknownDataSource = 501, Error, "Unknown data source", "QA-DATA-001";
    DataSourceWithoutOrigin = 502, Error, "Data source without rows to load", "MCP-DATA-001";
    BadDataSourceSettings = 503, Error, "Invalid data source settings", "QA-DATA-003";
    NonNumericFilter = 504, Error, "Row filter needs a number", "";
    // 6xx: YAML and JSON suites
    SuiteSyntax = 601, Error, "Invalid YAML or JSON", "MCP-CONFIG-001";
    UnknownField = 602, Error, "Unknown field", "MCP-CONFIG-003";
    WrongType = 603, Error, "Value of the wrong type", "MCP-CONFIG-003";
    MissingField = 604, Error, "Missing required field", "MCP-CONFIG-003";
    InvalidValue = 605, Error, "Value not among the allowed ones", "MCP-CONFIG-003";
    YamlAlias = 606, Error, "YAML anchor, alias or merge key", "MCP-CONFIG-001";
    SuiteTooLarge = 607, Error, "Suite file larger than the size limit", "MCP-CONFIG-002";
    SchemaViolation = 608, Error, "Value breaks the suite schema", "MCP-CONFIG-003";
    YamlTooLarge = 609, Error, "More YAML values than a file may hold", "";
    // 7xx: legacy .mcp scripts
    LegacyUnterminatedQuote = 701, Error, "Unterminated quote in a script line", "";
    LegacyUnknownCommand = 702, Error, "Unknown script command", "";
    LegacyArgumentCount = 703, Error, "Wrong number of arguments", "";
    LegacyVariableNotSet = 704, Error, "Variable used before it is set", "";
    LegacyBadHeredoc = 705, Error, "Malformed heredoc", "";
    LegacyBadTimeout = 706, Error, "Invalid timeout or duration", "";
    LegacyBadArgument = 707, Error, "Invalid argument value", "";
    LegacyMisplacedPrefix = 708, Error, "Prefix before a command it cannot apply to", "";
    LegacyEmptyScript = 709, Error, "Script without commands", "";
    LegacyDuplicateArgument = 710, Error, "Named argument given twice", "";
    LegacyTestLanguage = 711, Error, "Test Language file saved as a script", "";
    // 9xx: warnings
    UnusedFlow = 901, Warning, "Flow never used", "";
    UnreadSavedVariable = 902, Warning, "Saved variable never read", "";
    UnreadVariable = 903, Warning, "Variables entry never read", "";
    UnusedExport = 904, Warning, "Export nobody depends on", "";
    UnknownBudgetTest = 905, Warning, "Budget for a test that does not exist", "";
    UnusedDataSource = 906, Warning, "Data source never used", "";
    SlowPattern = 907, Warning, "Pattern that can take exponential time", "";
    FunctionModuleUnreadable = 908, Warning, "Function module cannot be read", "";
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Code {
    type Err = ();

    /// Parses `MCPLANG102`, `mcplang102` or `102`.
    fn from_str(s: &str) -> Result<Self, ()> {
        let digits = s
            .strip_prefix("MCPLANG")
            .or_else(|| s.strip_prefix("mcplang"))
            .unwrap_or(s);
        let n: u16 = digits.parse().map_err(|_| ())?;
        Code::ALL
            .iter()
            .copied()
            .find(|c| c.number() == n)
            .ok_or(())
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_unique_and_sorted() {
        let nums: Vec<u16> = Code::ALL.iter().map(|c| c.number()).collect();
        let mut sorted = nums.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(nums, sorted);
    }

    #[test]
    fn parses_codes() {
        assert_eq!("MCPLANG102".parse::<Code>(), Ok(Code::OddIndentation));
        assert_eq!("204".parse::<Code>(), Ok(Code::UnknownStatement));
        assert!("MCPLANG999".parse::<Code>().is_err());
    }
}
