//! The table of lint rules (`MCP001`…): code, level and summary of each. The rules
//! themselves run in the runtime (`mcpr_runtime::lint`); the table lives here so that the
//! compiler can check the codes a suite names (`Expect the server is lint clean ignoring
//! MCP005`) against the same list `mcpr lint --ignore` reads.

use serde::{Deserialize, Serialize};

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Worth a look.
    Info,
    /// Makes the server harder for a model to use well.
    Warning,
    /// Breaks clients or endangers users.
    Error,
}

impl Level {
    /// Every level, the most severe first.
    pub const ALL: [Level; 3] = [Level::Error, Level::Warning, Level::Info];

    /// `error`, `warning` or `info`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Info => "info",
        }
    }

    /// Parses `error`, `warning` or `info` (any case).
    pub fn parse(s: &str) -> Option<Level> {
        match s.trim().to_ascii_lowercase().as_str() {
            "error" => Some(Level::Error),
            "warning" => Some(Level::Warning),
            "info" => Some(Level::Info),
            _ => None,
        }
    }
}

/// A lint rule as the table lists it (the rule's entry in [`LintRule`], as data).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Rule {
    /// `MCP001` …
    pub code: &'static str,
    /// Its level.
    pub level: Level,
    /// What it catches, in one line.
    pub summary: &'static str,
}

/// The one registry of lint rules: each rule once, with its code, level, summary and page
/// (`docs/lint/CODE.md`, compiled in). Everything else — the checks that raise findings,
/// `mcpr explain`, `--ignore`, the table of `mcpr lint --list` — takes the rule from here,
/// so a code cannot be misspelt anywhere but in this list.
macro_rules! lint_rules {
    ($($rule:ident = $code:literal, $level:ident, $summary:literal;)*) => {
        /// A lint rule.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum LintRule {
            $(#[doc = $summary] $rule,)*
        }

        impl LintRule {
            /// Every rule, in code order.
            pub const ALL: &'static [LintRule] = &[$(LintRule::$rule),*];

            /// `MCP001` …
            pub const fn code(self) -> &'static str {
                match self { $(LintRule::$rule => $code,)* }
            }

            /// Its level.
            pub const fn level(self) -> Level {
                match self { $(LintRule::$rule => Level::$level,)* }
            }

            /// What it catches, in one line.
            pub const fn summary(self) -> &'static str {
                match self { $(LintRule::$rule => $summary,)* }
            }

            /// Its documentation page, `docs/lint/CODE.md`.
            pub const fn page(self) -> &'static str {
                match self {
                    $(LintRule::$rule => include_str!(concat!("../embedded/lint/", $code, ".md")),)*
                }
            }

            /// Its entry as data.
            pub const fn rule(self) -> Rule {
                Rule { code: self.code(), level: self.level(), summary: self.summary() }
            }

            /// The rule of a code (`MCP005`, any case, spaces around it allowed).
            pub fn parse(code: &str) -> Option<LintRule> {
                let code = code.trim();
                LintRule::ALL.iter().copied().find(|r| r.code().eq_ignore_ascii_case(code))
            }
        }

        /// Every rule as data, in code order.
        pub const RULES: &[Rule] = &[$(LintRule::$rule.rule()),*];
    };
}

lint_rules! {
    Mcp001 = "MCP001", Error, "Tool name is not 1-128 characters of A-Z a-z 0-9 _ - .";
    Mcp002 = "MCP002", Error, "Two tools share a name";
    Mcp003 = "MCP003", Error, "inputSchema missing or not \"type\": \"object\"";
    Mcp004 = "MCP004", Warning, "No description";
    Mcp005 = "MCP005", Warning, "Description under 20 characters";
    Mcp006 = "MCP006", Warning, "Description over 1,024 characters";
    Mcp007 = "MCP007", Warning, "Parameter has no description";
    Mcp008 = "MCP008", Error, "required names a parameter that isn't defined";
    Mcp009 = "MCP009", Warning, "Parameter has no type";
    Mcp010 = "MCP010", Warning, "All definitions together exceed 32,000 characters (about 8k tokens per turn)";
    Mcp011 = "MCP011", Warning, "Two names differ only by case or separators (get_file, Get-File)";
    Mcp012 = "MCP012", Error, "Text that tries to instruct the model: \"ignore previous instructions\", \"do not tell the user\", <IMPORTANT> blocks, reading ~/.ssh";
    Mcp013 = "MCP013", Error, "Invisible or bidirectional control characters";
    Mcp014 = "MCP014", Error, "outputSchema is not \"type\": \"object\"";
    Mcp015 = "MCP015", Info, "Parameter description just repeats its name";
    Mcp016 = "MCP016", Error, "Resource uri missing or not an absolute URI";
    Mcp017 = "MCP017", Error, "Two resources share a URI";
    Mcp018 = "MCP018", Error, "Resource template uriTemplate missing or not a valid RFC 6570 URI template";
    Mcp019 = "MCP019", Warning, "Resource template has no variables (it is a fixed URI)";
    Mcp020 = "MCP020", Error, "Two resource templates share a uriTemplate";
    Mcp021 = "MCP021", Error, "Resource, resource template or prompt has no name";
    Mcp022 = "MCP022", Warning, "Resource, resource template or prompt has no description";
    Mcp023 = "MCP023", Warning, "Resource, resource template or prompt description under 20 or over 1,024 characters";
    Mcp024 = "MCP024", Warning, "Prompt name is not 1-128 characters of A-Z a-z 0-9 _ - .";
    Mcp025 = "MCP025", Error, "Two prompts share a name";
    Mcp026 = "MCP026", Error, "Prompt argument has no name, or two arguments of a prompt share one";
    Mcp027 = "MCP027", Warning, "Prompt argument has no description";
    Mcp028 = "MCP028", Info, "Prompt argument description just repeats its name";
    Mcp029 = "MCP029", Error, "Text that tries to instruct the model, in a resource, resource template or prompt";
    Mcp030 = "MCP030", Error, "Invisible or bidirectional control characters in a resource, resource template or prompt";
}

impl Serialize for LintRule {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.code())
    }
}

/// The rule of a code (`MCP005`, any case).
pub fn rule_of(code: &str) -> Option<&'static Rule> {
    LintRule::parse(code).map(|r| &RULES[r as usize])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_registry_is_in_code_order_with_a_page_for_each_rule() {
        for (i, r) in LintRule::ALL.iter().enumerate() {
            assert_eq!(*r as usize, i, "{r:?}");
            assert_eq!(RULES[i], r.rule());
            assert_eq!(r.code(), format!("MCP{:03}", i + 1));
            assert!(r.page().starts_with(&format!("# {}: ", r.code())), "{r:?}");
        }
        assert_eq!(LintRule::parse(" mcp005 "), Some(LintRule::Mcp005));
        assert_eq!(rule_of("MCP030").map(|r| r.code), Some("MCP030"));
        assert_eq!(LintRule::parse("MCP031"), None);
        assert_eq!(
            serde_json::to_string(&LintRule::Mcp012).unwrap(),
            "\"MCP012\""
        );
    }
}
