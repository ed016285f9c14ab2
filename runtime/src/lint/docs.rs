//! The rule pages of `docs/lint/` as `mcpr explain` shows them: each rule's page comes
//! with its entry in the registry ([`LintRule::page`]); MCP012's gets the phrase list.

use std::sync::LazyLock;

use super::LintRule;

/// The index page, `docs/lint/README.md`.
pub const INDEX: &str = include_str!("../../embedded/lint/README.md");

/// Where the MCP012 page takes the phrase list, which lives in the code alone.
const PHRASES_MARKER: &str = "<!-- phrase list: filled in from runtime/src/lint/text.rs -->";

static MCP012: LazyLock<String> = LazyLock::new(|| {
    LintRule::Mcp012
        .page()
        .replace(PHRASES_MARKER, super::text::phrase_table().trim_end())
});

/// The documentation page of a lint rule (`MCP012`, `mcp012`), as `mcpr explain` prints
/// it; `None` for a code that is not a lint rule. (`MCP012`'s page carries the phrase list
/// of the heuristic, made from the code.)
pub fn explain(code: &str) -> Option<&'static str> {
    match LintRule::parse(code)? {
        LintRule::Mcp012 => Some(MCP012.as_str()),
        rule => Some(rule.page()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_has_a_page_that_names_it() {
        for rule in super::super::RULES {
            let page = explain(rule.code).unwrap();
            assert!(
                page.starts_with(&format!("# {}: ", rule.code)),
                "{}: {}",
                rule.code,
                &page[..page.len().min(80)]
            );
            assert!(
                page.contains(&format!("Level: {}", rule.level.as_str())),
                "{} page gives another level",
                rule.code
            );
            assert!(
                INDEX.contains(&format!("[{}]({}.md)", rule.code, rule.code)),
                "docs/lint/README.md does not list {}",
                rule.code
            );
        }
        assert_eq!(explain("mcp005"), explain("MCP005"));
        assert_eq!(explain("MCP999"), None);
        assert_eq!(explain("MCPLANG101"), None);
    }

    #[test]
    fn the_poisoning_page_carries_the_phrase_list() {
        let page = explain("MCP012").unwrap();
        assert!(!page.contains(PHRASES_MARKER));
        for (pattern, _) in super::super::text::POISON_PATTERNS {
            assert!(page.contains(&pattern.replace('|', "\\|")), "{pattern}");
        }
        let raw = LintRule::Mcp012.page();
        assert!(
            raw.contains(PHRASES_MARKER),
            "the MCP012 page lost its marker"
        );
    }
}
