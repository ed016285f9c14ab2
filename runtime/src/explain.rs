//! One lookup over every registry, for `mcpr explain`: compile diagnostics (`MCPLANG###`),
//! run-time codes (`MCP-…`, and the first implementation's retired codes) and the lint
//! rules of `mcpr lint` (`MCP001` …).

use mcpr_compiler::diagnostics::Code;

use crate::codes::{RunCode, UnknownCode};
use crate::lint::{self, Rule};

/// A code of any registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnyCode {
    /// A compile diagnostic.
    Lang(Code),
    /// A run-time code or a retired one.
    Run(RunCode),
    /// A lint rule.
    Lint(&'static Rule),
}

impl AnyCode {
    /// The code as printed.
    pub fn as_str(self) -> &'static str {
        match self {
            AnyCode::Lang(c) => c.as_str(),
            AnyCode::Run(c) => c.as_str(),
            AnyCode::Lint(r) => r.code,
        }
    }

    /// One-line title.
    pub fn title(self) -> &'static str {
        match self {
            AnyCode::Lang(c) => c.title(),
            AnyCode::Run(c) => c.title(),
            AnyCode::Lint(r) => r.summary,
        }
    }

    /// The kind of the code: a diagnostic's severity, a run-time code's class, or a lint
    /// rule's level.
    pub fn kind(self) -> &'static str {
        match self {
            AnyCode::Lang(c) => c.severity().as_str(),
            AnyCode::Run(c) => c.class().as_str(),
            AnyCode::Lint(r) => r.level.as_str(),
        }
    }

    /// The documentation page.
    pub fn doc(self) -> &'static str {
        match self {
            AnyCode::Lang(c) => c.doc(),
            AnyCode::Run(c) => c.doc(),
            AnyCode::Lint(r) => lint::explain(r.code).unwrap_or_default(),
        }
    }

    /// Every code of every registry: the `MCPLANG` codes in numeric order, the run-time
    /// codes in registry order, then the lint rules.
    pub fn all() -> Vec<AnyCode> {
        Code::ALL
            .iter()
            .map(|c| AnyCode::Lang(*c))
            .chain(RunCode::ALL.iter().map(|c| AnyCode::Run(*c)))
            .chain(lint::RULES.iter().map(AnyCode::Lint))
            .collect()
    }
}

/// Finds a code of either registry, in any case: `MCPLANG102`, `mcplang102` or `102`,
/// `MCP-EXIT-001`, `qa-lang-001`.
pub fn lookup(text: &str) -> Result<AnyCode, UnknownCode> {
    let t = text.trim();
    if let Ok(c) = t.to_ascii_uppercase().parse::<Code>() {
        return Ok(AnyCode::Lang(c));
    }
    if let Some(rule) = lint::rule_of(t) {
        return Ok(AnyCode::Lint(rule));
    }
    t.parse::<RunCode>()
        .map(AnyCode::Run)
        .map_err(|_| UnknownCode(text.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_codes_of_both_registries() {
        assert_eq!(
            lookup("mcplang204"),
            Ok(AnyCode::Lang(Code::UnknownStatement))
        );
        assert_eq!(lookup("102"), Ok(AnyCode::Lang(Code::OddIndentation)));
        assert_eq!(
            lookup("Mcp-Exit-001"),
            Ok(AnyCode::Run(RunCode::ServerExited))
        );
        assert_eq!(lookup("QA-LANG-001"), Ok(AnyCode::Run(RunCode::QaLang)));
        let rule = lookup("mcp012").expect("a lint rule");
        assert_eq!(rule.as_str(), "MCP012");
        assert!(rule.doc().contains("MCP012"));
    }

    #[test]
    fn unknown_codes_name_the_families() {
        let e = lookup(concat!("MCP-NOPE", "-001")).unwrap_err();
        assert!(e.to_string().contains("MCP-TIMEOUT-001") && e.to_string().contains("QA-LANG-001"));
        let e = lookup("MCPLANG999").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("`MCPLANG999` is not a known diagnostic code")
        );
        assert_eq!(
            AnyCode::all().len(),
            Code::ALL.len() + RunCode::ALL.len() + lint::RULES.len()
        );
    }
}
