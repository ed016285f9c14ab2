//! The statement forms as an editor offers them, all from the compiler's statement table:
//! which form a line is (for hover), its row in the language reference, where each form may
//! stand (learnt by parsing its usage in each kind of block), and its snippet.

use std::sync::OnceLock;

use mcpr_compiler::source::SourceFile;
use mcpr_compiler::syntax::statements::{STATEMENTS, Statement, VERSION_HEADER, Vocabulary};
use mcpr_compiler::syntax::{self, Stmt};

/// The language reference, searched for the row that documents a form.
const LANGUAGE: &str = include_str!("../embedded/language.md");

/// Where a statement stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// Column 0, outside any block.
    Document,
    /// In a `Test:` body.
    Test,
    /// In a `Flow:` body.
    Flow,
    /// In a `Data source:` body.
    DataSource,
}

/// One form as completion offers it: an opening phrase's usage, where it may stand.
#[derive(Debug, Clone)]
pub struct Offer {
    /// The usage shown (`Call tool "NAME" with:`).
    pub usage: &'static str,
    /// The form's general usage (from the table row).
    pub row: &'static Statement,
    /// Where it may stand.
    pub places: Vec<Place>,
    /// Its documentation (as hover shows it).
    pub doc: Option<String>,
}

/// Every form's offers, computed once.
pub fn offers() -> &'static [Offer] {
    static OFFERS: OnceLock<Vec<Offer>> = OnceLock::new();
    OFFERS.get_or_init(|| {
        let mut out: Vec<Offer> = Vec::new();
        for row in STATEMENTS {
            for (_, usage) in row.openings {
                if out.iter().any(|o| o.usage == *usage) {
                    continue;
                }
                let mut places: Vec<Place> =
                    [Place::Document, Place::Test, Place::Flow, Place::DataSource]
                        .into_iter()
                        .filter(|p| parses_in(usage, *p))
                        .collect();
                if places.is_empty() {
                    places = match row.vocabulary {
                        Vocabulary::DataPhrases => vec![Place::DataSource],
                        Vocabulary::Statements => vec![Place::Test, Place::Flow],
                    };
                }
                out.push(Offer {
                    usage,
                    row,
                    places,
                    doc: statement_doc(usage),
                });
            }
        }
        out
    })
}

/// Whether a usage line parses without a problem on its line at a place.
fn parses_in(usage: &str, place: Place) -> bool {
    let (before, indent) = match place {
        Place::Document => ("MCP Test 1\n", ""),
        Place::Test => ("MCP Test 1\nTest: t\n  Call tool \"x\"\n", "  "),
        Place::Flow => ("MCP Test 1\nFlow: \"f\"\n  Call tool \"x\"\n", "  "),
        Place::DataSource => ("MCP Test 1\nData source: \"d\"\n", "  "),
    };
    let text = format!("{before}{indent}{usage}\n{indent}  x: 1\n");
    let line = before.lines().count();
    let file = SourceFile::new("probe.mcpr", text);
    let parsed = syntax::parse(&file, 0);
    let clean = !parsed
        .diagnostics
        .iter()
        .any(|d| file.line_index(d.span.start as usize) == line);
    let node = parsed
        .document
        .walk()
        .find(|n| file.line_index(n.span.start as usize) == line);
    clean && node.is_some_and(|n| !matches!(n.stmt, Stmt::Error | Stmt::Comment))
}

/// The usage of the statement a line holds and its row of the language reference.
pub fn statement_doc(line: &str) -> Option<String> {
    let (row, usage) = form_of(line)?;
    let mut s = format!("```mcpr\n{}\n```", row.map_or(usage, |r| r.usage));
    if let Some((section, text)) = reference_row(usage) {
        s.push_str(&format!("\n\n{text}\n\n*Language reference: {section}*"));
    }
    Some(s)
}

/// The table row and the opening usage of the form a line starts with (longest opening
/// phrase first), with the version header as its own row.
pub fn form_of(line: &str) -> Option<(Option<&'static Statement>, &'static str)> {
    let lower = line.trim().to_lowercase();
    if lower == VERSION_HEADER.0 {
        return Some((None, VERSION_HEADER.1));
    }
    let mut best: Option<(usize, &'static Statement, &'static str)> = None;
    for row in STATEMENTS {
        for (phrase, usage) in row.openings {
            let starts = lower.starts_with(phrase)
                && lower[phrase.len()..]
                    .chars()
                    .next()
                    .is_none_or(|c| !c.is_alphanumeric());
            if starts && best.is_none_or(|(n, _, _)| phrase.len() > n) {
                best = Some((phrase.len(), row, usage));
            }
        }
    }
    best.map(|(_, row, usage)| (Some(row), usage))
}

/// The row of the language reference that documents a usage: its section and its text.
pub fn reference_row(usage: &str) -> Option<(String, String)> {
    let key = keywords(usage);
    if key.is_empty() {
        return None;
    }
    let mut section = String::new();
    for line in LANGUAGE.lines() {
        if let Some(h) = line.strip_prefix("## ") {
            section = h.to_string();
            continue;
        }
        if !line.starts_with('|') || line.starts_with("|---") {
            continue;
        }
        let documented =
            line.split('`').skip(1).step_by(2).any(|code| {
                keywords(code) == key || keywords(code).starts_with(&format!("{key} "))
            });
        if documented {
            let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
            return Some((section, cells.join(" — ")));
        }
    }
    None
}

/// The keyword words of a usage or an example, lower case, up to the first quote or
/// placeholder: `Call tool "NAME" with:` → `call tool`.
fn keywords(usage: &str) -> String {
    let mut words = Vec::new();
    for w in usage.split_whitespace() {
        if w.starts_with(['"', '\'', '$', '|', '[', '-']) || w.chars().any(|c| c.is_ascii_digit()) {
            break;
        }
        let placeholder = w.len() > 1
            && w.chars()
                .all(|c| c.is_ascii_uppercase() || "-…,:".contains(c));
        if placeholder {
            break;
        }
        words.push(w.to_lowercase());
    }
    words.join(" ")
}

/// A usage as an LSP snippet: each quoted or capitalised placeholder a tab stop.
pub fn snippet(usage: &str) -> String {
    let mut out = String::new();
    let mut stop = 1;
    let mut rest = usage;
    // Optional parts (`[including warnings]`) and alternatives are left out.
    let cut = rest.find(" [").unwrap_or(rest.len());
    rest = &rest[..cut];
    let cut = rest.find('|').unwrap_or(rest.len());
    rest = rest[..cut].trim_end();
    for (i, word) in rest.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let (lead, core, tail) = split_word(word);
        let placeholder = core.len() > 1
            && core
                .chars()
                .all(|c| c.is_ascii_uppercase() || c == '-' || c == '…' || c == '.' || c == '$')
            && core.chars().any(|c| c.is_ascii_uppercase());
        out.push_str(&escape(lead));
        if placeholder {
            out.push_str(&format!("${{{stop}:{}}}", escape(core)));
            stop += 1;
        } else {
            out.push_str(&escape(core));
        }
        out.push_str(&escape(tail));
    }
    out
}

/// A word as (opening quote, core, closing punctuation).
fn split_word(word: &str) -> (&str, &str, &str) {
    let lead = if word.starts_with('"') { 1 } else { 0 };
    let body = &word[lead..];
    let core_len = body
        .char_indices()
        .rev()
        .find(|(_, c)| !matches!(c, '"' | ':' | ','))
        .map_or(0, |(i, c)| i + c.len_utf8());
    (&word[..lead], &body[..core_len], &body[core_len..])
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('$', "\\$")
        .replace('}', "\\}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_has_a_place_and_common_forms_stand_where_they_belong() {
        let offers = offers();
        let find = |u: &str| {
            offers
                .iter()
                .find(|o| o.usage == u)
                .map(|o| o.places.clone())
        };
        assert_eq!(find("Suite: NAME"), Some(vec![Place::Document]));
        let call = find("Call tool \"NAME\" with:").unwrap_or_default();
        assert!(
            call.contains(&Place::Test) && call.contains(&Place::Flow),
            "{call:?}"
        );
        assert!(!call.contains(&Place::Document));
        assert_eq!(find("Id: ID"), Some(vec![Place::Test]));
        let from = find("From CSV \"FILE\"").unwrap_or_default();
        assert_eq!(from, vec![Place::DataSource]);
    }

    #[test]
    fn lines_find_their_form_and_reference_row() {
        let (row, usage) = form_of("  call TOOL \"add\" with:").expect("a form");
        assert_eq!(row.map(|r| r.usage), Some("Call tool \"NAME\" with:"));
        assert!(usage.starts_with("Call tool"));
        let (section, text) = reference_row(usage).expect("documented");
        assert_eq!(section, "Actions");
        assert!(text.contains("call a tool"), "{text}");
    }

    #[test]
    fn snippets_have_tab_stops_for_placeholders() {
        assert_eq!(
            snippet("Call tool \"NAME\" with:"),
            "Call tool \"${1:NAME}\" with:"
        );
        assert_eq!(
            snippet("Depends on: ID, ID"),
            "Depends on: ${1:ID}, ${2:ID}"
        );
        assert_eq!(
            snippet("Expect the server is lint clean [including warnings]"),
            "Expect the server is lint clean"
        );
    }
}
