//! `mcpr lint`: rules for what a server shows a model — tool names, descriptions and
//! schemas (MCP001–MCP015, the rules, levels and conditions of mcptest), and resources,
//! resource templates and prompts (MCP016–MCP030, mcpr's own). Each rule has a page in
//! `docs/lint/` ([`explain`]).
//!
//! [`lint`] is a pure function of a [`Surface`]; [`render`] prints its [`Report`] as
//! mcptest does (`human`), as JSON or as GitHub annotations.

mod docs;
mod others;
pub mod render;
mod text;
mod tools;
pub mod uri;

use serde::Serialize;
use serde_json::Value;

use crate::surface::Surface;

pub use docs::{INDEX, explain};
pub use mcpr_compiler::lint_rules::{Level, LintRule, RULES, Rule, rule_of};
pub use text::{POISON_PATTERNS, invisible_chars, poison_phrases};

/// What a finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Kind {
    /// The server as a whole (MCP010).
    Server,
    /// A tool.
    Tool,
    /// A resource.
    Resource,
    /// A resource template.
    ResourceTemplate,
    /// A prompt.
    Prompt,
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The rule's level.
    pub level: Level,
    /// The rule's code.
    pub code: &'static str,
    /// What it is about.
    pub kind: Kind,
    /// Its name: the tool or prompt name, the resource URI, the template, the server name.
    pub name: String,
    /// What is wrong.
    pub message: String,
}

impl Finding {
    /// The name as the human output shows it: tools (and the server) bare, others with
    /// their kind (`resource fixture://status`, `template fixture://items/{id}`, `prompt greet`).
    pub fn subject(&self) -> String {
        match self.kind {
            Kind::Server | Kind::Tool => self.name.clone(),
            Kind::Resource => format!("resource {}", self.name),
            Kind::ResourceTemplate => format!("template {}", self.name),
            Kind::Prompt => format!("prompt {}", self.name),
        }
    }
}

/// Which rules to apply.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Codes to skip (`--ignore MCP005,MCP015`).
    pub ignore: Vec<String>,
}

/// What [`lint`] found.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// `serverInfo.name`.
    pub server: String,
    /// How many tools the server lists.
    pub tools: usize,
    /// How many resources.
    pub resources: usize,
    /// How many resource templates.
    pub resource_templates: usize,
    /// How many prompts.
    pub prompts: usize,
    /// Characters of all tool definitions (compact JSON), what a client sends the model.
    pub definition_chars: usize,
    /// `definition_chars / 4`, rounded: the token estimate.
    pub tokens: usize,
    /// Findings: errors first, then warnings, then info; within a level by kind, name, code.
    pub findings: Vec<Finding>,
}

impl Report {
    /// How many findings of a level.
    pub fn count(&self, level: Level) -> usize {
        self.findings.iter().filter(|f| f.level == level).count()
    }

    /// True when a finding is at `fail_on` or worse.
    pub fn fails(&self, fail_on: Level) -> bool {
        self.findings.iter().any(|f| f.level >= fail_on)
    }
}

/// Characters of the tool definitions as a client sends them to the model: each
/// definition as compact JSON, counted in Unicode scalar values.
pub fn definition_chars(tools: &[Value]) -> usize {
    tools.iter().map(|t| t.to_string().chars().count()).sum()
}

/// The token estimate of mcptest: four characters a token, rounded to the nearest.
pub fn estimate_tokens(chars: usize) -> usize {
    (chars + 2) / 4
}

/// Applies every rule (less the ignored ones) to a surface.
pub fn lint(surface: &Surface, options: &Options) -> Report {
    let chars = definition_chars(&surface.tools);
    let mut findings = Vec::new();
    tools::check(surface, chars, &mut findings);
    others::check(surface, &mut findings);
    findings.retain(|f| {
        !options
            .ignore
            .iter()
            .any(|c| c.eq_ignore_ascii_case(f.code))
    });
    // Stable: findings of one rule on one subject keep the order the rule found them in.
    findings.sort_by(|a, b| {
        b.level
            .cmp(&a.level)
            .then(a.kind.cmp(&b.kind))
            .then_with(|| a.name.cmp(&b.name))
            .then(a.code.cmp(b.code))
    });
    Report {
        server: surface.server.clone(),
        tools: surface.tools.len(),
        resources: surface.resources.len(),
        resource_templates: surface.resource_templates.len(),
        prompts: surface.prompts.len(),
        definition_chars: chars,
        tokens: estimate_tokens(chars),
        findings,
    }
}

/// Builds a finding with the rule's level.
fn finding(rule: LintRule, kind: Kind, name: &str, message: String) -> Finding {
    Finding {
        level: rule.level(),
        code: rule.code(),
        kind,
        name: name.to_string(),
        message,
    }
}

/// A value as text for a message: strings bare, anything else as JSON.
fn shown(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// True when `name` is 1–128 characters of `A-Z a-z 0-9 _ - .`.
pub fn valid_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// A description's length class: `None` when it is fine, else the message of MCP004,
/// MCP005 or MCP006 (which the resource and prompt rules reuse).
fn description_problem(description: Option<&Value>) -> Option<(LintRule, String)> {
    let text = match description {
        None | Some(Value::Null) => return Some((LintRule::Mcp004, "has no description".into())),
        Some(Value::String(s)) => s.trim(),
        Some(other) => {
            return Some((
                LintRule::Mcp004,
                format!(
                    "description is not text: {}",
                    crate::error::shorten(&other.to_string(), 60)
                ),
            ));
        }
    };
    let n = text.chars().count();
    if n == 0 {
        Some((LintRule::Mcp004, "has no description".into()))
    } else if n < 20 {
        Some((
            LintRule::Mcp005,
            format!(
                "description is only {}: '{text}'",
                mcpr_compiler::names::count(n, "character")
            ),
        ))
    } else if n > 1024 {
        Some((
            LintRule::Mcp006,
            format!("description is {n} characters, over 1,024"),
        ))
    } else {
        None
    }
}

/// True when `description` says nothing but `name` (case, separators, punctuation and a
/// leading article aside): `path` / "The path.", `file_name` / "File name".
fn repeats_name(name: &str, description: &str) -> bool {
    let norm = |s: &str| -> String {
        s.chars()
            .filter(char::is_ascii_alphanumeric)
            .flat_map(|c| c.to_lowercase())
            .collect()
    };
    let mut d = description.trim();
    for article in ["the ", "a ", "an "] {
        if let Some(head) = d.get(..article.len())
            && head.eq_ignore_ascii_case(article)
            && d.len() > article.len()
        {
            d = &d[article.len()..];
            break;
        }
    }
    let n = norm(name);
    !n.is_empty() && norm(d) == n
}

#[cfg(test)]
mod tests;
