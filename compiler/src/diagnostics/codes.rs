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
                        env!("CARGO_MANIFEST_DIR"), "/../docs/diagnostics/MCPLANG", stringify!($num), ".md"
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
