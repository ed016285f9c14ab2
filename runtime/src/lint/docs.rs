//! The rule pages of `docs/lint/`, compiled in.

use std::sync::LazyLock;

macro_rules! pages {
    ($($code:literal),* $(,)?) => {
        /// `(code, page)` for every rule.
        const PAGES: &[(&str, &str)] = &[
            $(($code, include_str!(concat!("../../embedded/lint/", $code, ".md")))),*
        ];
    };
}

pages!(
    "MCP001", "MCP002", "MCP003", "MCP004", "MCP005", "MCP006", "MCP007", "MCP008", "MCP009",
    "MCP010", "MCP011", "MCP012", "MCP013", "MCP014", "MCP015", "MCP016", "MCP017", "MCP018",
    "MCP019", "MCP020", "MCP021", "MCP022", "MCP023", "MCP024", "MCP025", "MCP026", "MCP027",
    "MCP028", "MCP029", "MCP030",
);

/// The index page, `docs/lint/README.md`.
pub const INDEX: &str = include_str!("../../embedded/lint/README.md");

/// Where the MCP012 page takes the phrase list, which lives in the code alone.
const PHRASES_MARKER: &str = "<!-- phrase list: filled in from runtime/src/lint/text.rs -->";

static MCP012: LazyLock<String> = LazyLock::new(|| {
    let page = PAGES
        .iter()
        .find(|(c, _)| *c == "MCP012")
        .map_or("", |(_, p)| p);
    page.replace(PHRASES_MARKER, super::text::phrase_table().trim_end())
});

/// The documentation page of a lint rule (`MCP012`, `mcp012`), as `mcpr explain` prints
/// it; `None` for a code that is not a lint rule. (`MCP012`'s page carries the phrase list
/// of the heuristic, made from the code.)
pub fn explain(code: &str) -> Option<&'static str> {
    let code = code.trim();
    if code.eq_ignore_ascii_case("MCP012") {
        return Some(MCP012.as_str());
    }
    PAGES
        .iter()
        .find(|(c, _)| c.eq_ignore_ascii_case(code))
        .map(|(_, page)| *page)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_has_a_page_that_names_it() {
        assert_eq!(PAGES.len(), super::super::RULES.len());
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
        let raw = PAGES.iter().find(|(c, _)| *c == "MCP012").unwrap().1;
        assert!(
            raw.contains(PHRASES_MARKER),
            "the MCP012 page lost its marker"
        );
    }
}
