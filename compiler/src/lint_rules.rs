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

/// A lint rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Rule {
    /// `MCP001` …
    pub code: &'static str,
    /// Its level.
    pub level: Level,
    /// What it catches, in one line.
    pub summary: &'static str,
}

/// Every rule, in code order.
pub const RULES: &[Rule] = &[
    rule(
        "MCP001",
        Level::Error,
        "Tool name is not 1-128 characters of A-Z a-z 0-9 _ - .",
    ),
    rule("MCP002", Level::Error, "Two tools share a name"),
    rule(
        "MCP003",
        Level::Error,
        "inputSchema missing or not \"type\": \"object\"",
    ),
    rule("MCP004", Level::Warning, "No description"),
    rule("MCP005", Level::Warning, "Description under 20 characters"),
    rule(
        "MCP006",
        Level::Warning,
        "Description over 1,024 characters",
    ),
    rule("MCP007", Level::Warning, "Parameter has no description"),
    rule(
        "MCP008",
        Level::Error,
        "required names a parameter that isn't defined",
    ),
    rule("MCP009", Level::Warning, "Parameter has no type"),
    rule(
        "MCP010",
        Level::Warning,
        "All definitions together exceed 32,000 characters (about 8k tokens per turn)",
    ),
    rule(
        "MCP011",
        Level::Warning,
        "Two names differ only by case or separators (get_file, Get-File)",
    ),
    rule(
        "MCP012",
        Level::Error,
        "Text that tries to instruct the model: \"ignore previous instructions\", \"do not tell the user\", <IMPORTANT> blocks, reading ~/.ssh",
    ),
    rule(
        "MCP013",
        Level::Error,
        "Invisible or bidirectional control characters",
    ),
    rule(
        "MCP014",
        Level::Error,
        "outputSchema is not \"type\": \"object\"",
    ),
    rule(
        "MCP015",
        Level::Info,
        "Parameter description just repeats its name",
    ),
    rule(
        "MCP016",
        Level::Error,
        "Resource uri missing or not an absolute URI",
    ),
    rule("MCP017", Level::Error, "Two resources share a URI"),
    rule(
        "MCP018",
        Level::Error,
        "Resource template uriTemplate missing or not a valid RFC 6570 URI template",
    ),
    rule(
        "MCP019",
        Level::Warning,
        "Resource template has no variables (it is a fixed URI)",
    ),
    rule(
        "MCP020",
        Level::Error,
        "Two resource templates share a uriTemplate",
    ),
    rule(
        "MCP021",
        Level::Error,
        "Resource, resource template or prompt has no name",
    ),
    rule(
        "MCP022",
        Level::Warning,
        "Resource, resource template or prompt has no description",
    ),
    rule(
        "MCP023",
        Level::Warning,
        "Resource, resource template or prompt description under 20 or over 1,024 characters",
    ),
    rule(
        "MCP024",
        Level::Warning,
        "Prompt name is not 1-128 characters of A-Z a-z 0-9 _ - .",
    ),
    rule("MCP025", Level::Error, "Two prompts share a name"),
    rule(
        "MCP026",
        Level::Error,
        "Prompt argument has no name, or two arguments of a prompt share one",
    ),
    rule(
        "MCP027",
        Level::Warning,
        "Prompt argument has no description",
    ),
    rule(
        "MCP028",
        Level::Info,
        "Prompt argument description just repeats its name",
    ),
    rule(
        "MCP029",
        Level::Error,
        "Text that tries to instruct the model, in a resource, resource template or prompt",
    ),
    rule(
        "MCP030",
        Level::Error,
        "Invisible or bidirectional control characters in a resource, resource template or prompt",
    ),
];

const fn rule(code: &'static str, level: Level, summary: &'static str) -> Rule {
    Rule {
        code,
        level,
        summary,
    }
}

/// The rule of a code (`MCP005`, any case).
pub fn rule_of(code: &str) -> Option<&'static Rule> {
    RULES
        .iter()
        .find(|r| r.code.eq_ignore_ascii_case(code.trim()))
}
