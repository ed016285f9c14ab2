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
    if let Some((section, text)) = documenting_row(line) {
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
    opening_of(&lower).map(|(row, _, usage)| (Some(row), usage))
}

/// The row, opening phrase and usage of the longest opening phrase a lower-case line
/// starts with.
fn opening_of(lower: &str) -> Option<(&'static Statement, &'static str, &'static str)> {
    let mut best: Option<(&'static Statement, &'static str, &'static str)> = None;
    for row in STATEMENTS {
        for (phrase, usage) in row.openings {
            let starts = lower.starts_with(phrase)
                && lower[phrase.len()..]
                    .chars()
                    .next()
                    .is_none_or(|c| !c.is_alphanumeric());
            if starts && best.is_none_or(|(_, p, _)| phrase.len() > p.len()) {
                best = Some((row, phrase, usage));
            }
        }
    }
    best
}

/// The row of the language reference that documents the statement a line holds: the row
/// whose example reads most like the line itself (`Expect "x" contains "y"` is the
/// containment row, not the first row of another `Expect …` form), else the row of the
/// form's opening usage, else of its general usage (for aliases the reference names only in
/// passing). A row is taken only when its matching example is a line of the same form.
fn documenting_row(line: &str) -> Option<(String, String)> {
    let (row, usage) = form_of(line)?;
    let form = row.map(|r| r.form);
    let first = line.trim_start().lines().next().unwrap_or_default();
    [Some(first), Some(usage), row.map(|r| r.usage)]
        .into_iter()
        .flatten()
        .filter_map(best_row)
        .find(|(_, example)| form_of(example).map(|(r, _)| r.map(|r| r.form)) == Some(form))
        .map(|(r, _)| (r.section.to_string(), r.text.clone()))
}

/// A row of a table of the language reference.
struct ReferenceRow {
    /// The section it is in.
    section: &'static str,
    /// Its cells, joined by dashes.
    text: String,
    /// Its examples (code spans) with their signatures.
    examples: Vec<(&'static str, Signature)>,
}

/// The rows of the language reference's tables, read once.
fn reference_rows() -> &'static [ReferenceRow] {
    static ROWS: OnceLock<Vec<ReferenceRow>> = OnceLock::new();
    ROWS.get_or_init(|| {
        let mut rows = Vec::new();
        let mut section = "";
        for line in LANGUAGE.lines() {
            if let Some(h) = line.strip_prefix("## ") {
                section = h;
                continue;
            }
            if !line.starts_with('|') || line.starts_with("|---") {
                continue;
            }
            let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
            rows.push(ReferenceRow {
                section,
                text: cells.join(" — "),
                examples: line
                    .split('`')
                    .skip(1)
                    .step_by(2)
                    .map(|e| (e, Signature::of(e)))
                    .collect(),
            });
        }
        rows
    })
}

/// How many words two lists agree in, from the start.
fn agreement(a: &[String], b: &[String]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// The row whose example agrees longest with the text, word by word (see [`Signature`]),
/// and that example. An example must agree at least in the words of the form's opening
/// phrase. A fragment of a row (`is not "deleted"` beside `Expect "status" does not equal
/// "deleted"`) continues its row's example after the path. Among examples that agree as far,
/// one whose signature is the text's wins (`is 2` for `Expect "n" is 5`, over `is greater
/// than 2`), then a whole example over a fragment, then the first row.
fn best_row(text: &str) -> Option<(&'static ReferenceRow, &'static str)> {
    let wanted = Signature::of(text);
    let first = wanted.words.first()?;
    let path = wanted.words.iter().position(|w| w == QUOTED);
    // (words agreed, the example's signature is the text's, a whole example)
    type Score = (usize, bool, bool);
    let mut best: Option<(Score, &ReferenceRow, &str)> = None;
    for row in reference_rows() {
        let mut whole: Option<(Score, &str)> = None;
        for (example, sig) in &row.examples {
            let n = agreement(&sig.words, &wanted.words);
            let score = (n, sig.same_as(n, &wanted, 0), true);
            if n >= wanted.opening && whole.is_none_or(|(s, _)| score > s) {
                whole = Some((score, example));
            }
        }
        let Some((mut score, example)) = whole else {
            continue;
        };
        if let Some(p) = path.filter(|p| score.0 > *p) {
            let fragments = row
                .examples
                .iter()
                .map(|(_, sig)| sig)
                .filter(|sig| sig.words.first().is_some_and(|w| w != first));
            for sig in fragments {
                let n = agreement(&sig.words, &wanted.words[p + 1..]);
                score = score.max((p + 1 + n, sig.same_as(n, &wanted, p + 1), false));
            }
        }
        if best.is_none_or(|(s, _, _)| score > s) {
            best = Some((score, row, example));
        }
    }
    best.map(|(_, row, example)| (row, example))
}

/// A quoted string in a [`Signature`].
const QUOTED: &str = "\"…\"";

/// The words a statement is recognised by: lower case, each quoted string (and the
/// punctuation after it) as [`QUOTED`], up to the first value or placeholder after the
/// form's opening phrase (a number, a `${…}`, a list, a pattern, `NAME`).
/// `Expect "content[0].text" contains "done"` is `expect "…" contains "…"`, `From REST "URL"
/// at "PATH"` is `from rest "…" at "…"`. `Then` reads as `Expect`, and a `the` before the
/// path is dropped, as the language reads them.
struct Signature {
    words: Vec<String>,
    /// How many of the words are the form's opening phrase (at least 1).
    opening: usize,
    /// Whether a value or placeholder ended the words (`is 2`), not the end of the text (a
    /// form named bare, `MCP URL:`).
    valued: bool,
}

impl Signature {
    fn of(text: &str) -> Signature {
        let text = text.trim_start();
        let opening = opening_of(&text.to_lowercase()).map_or(1, |(_, p, _)| p.split(' ').count());
        let mut words: Vec<String> = Vec::new();
        let mut valued = false;
        let mut rest = text;
        while let Some(c) = rest.chars().next() {
            let end = if c == '"' || c == '\'' {
                let mut escaped = false;
                let close = rest[1..]
                    .char_indices()
                    .find(|&(_, ch)| {
                        let closes = !escaped && ch == c;
                        escaped = !escaped && ch == '\\';
                        closes
                    })
                    .map_or(rest.len(), |(i, _)| i + 2);
                let tail = rest[close..]
                    .find(char::is_whitespace)
                    .unwrap_or(rest.len() - close);
                words.push(QUOTED.to_string());
                close + tail
            } else {
                let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
                let w = &rest[..end];
                let placeholder = words.len() >= opening
                    && w.len() > 1
                    && w.chars()
                        .all(|c| c.is_ascii_uppercase() || "-…,:.".contains(c));
                if w.starts_with(['$', '|', '[', '-', '^', '{', '(', '#'])
                    || w.chars().any(|c| c.is_ascii_digit())
                    || placeholder
                {
                    valued = true;
                    break;
                }
                words.push(w.to_lowercase());
                end
            };
            rest = rest[end..].trim_start();
        }
        if words.first().is_some_and(|w| w == "then") {
            words[0] = "expect".into();
        }
        if words.first().is_some_and(|w| w == "expect")
            && words.get(1).is_some_and(|w| w == "the")
            && words.get(2).is_some_and(|w| w == QUOTED)
        {
            words.remove(1);
        }
        Signature {
            words,
            opening,
            valued,
        }
    }

    /// Whether this signature, agreeing with `wanted` in `n` words from `wanted`'s word
    /// `from`, is all of the rest of `wanted`, ended the same way.
    fn same_as(&self, n: usize, wanted: &Signature, from: usize) -> bool {
        n == self.words.len() && from + n == wanted.words.len() && self.valued == wanted.valued
    }
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
        let (section, text) = documenting_row(usage).expect("documented");
        assert_eq!(section, "Actions");
        assert!(text.contains("call a tool"), "{text}");
    }

    /// The first cell of the row that documents a line.
    fn row_name(line: &str) -> String {
        let (_, text) = documenting_row(line).unwrap_or_else(|| panic!("no row for {line:?}"));
        text.split(" — ").next().unwrap_or_default().to_string()
    }

    #[test]
    fn every_path_expectation_finds_the_row_of_its_operator() {
        for (line, row) in [
            (
                "Expect \"content[0].text\" contains \"done\"",
                "containment",
            ),
            ("  Then \"a\" contains \"b\"", "containment"),
            ("Expect \"n\" equals 5", "equality"),
            ("Expect the \"n\" equals \"five\"", "equality"),
            ("Expect \"n\" is 5", "equality"),
            ("Expect \"n\" is equal to ${x}", "equality"),
            ("Expect \"s\" does not equal \"x\"", "inequality"),
            ("Expect \"s\" is not \"x\"", "inequality"),
            ("Expect \"n\" is greater than 2", "comparison"),
            ("Expect \"n\" is at most 9", "comparison"),
            ("Expect \"n\" is between 1 and 3", "comparison"),
            ("Expect \"c\" is not empty", "emptiness"),
            ("Expect \"c\" is empty", "emptiness"),
            ("Expect \"t\" does not contain \"error\"", "absence"),
            ("Expect \"items\" exists", "presence"),
            ("Expect \"error\" does not exist", "presence"),
            ("Expect \"items\" has 3 items", "length"),
            ("Expect \"count\" is a string", "type"),
            ("Expect \"id\" matches ^C-[0-9]+$", "regular expression"),
            ("Expect \"sc\" matches schema:", "JSON Schema (block)"),
            ("Expect \"sc\" matches snapshot \"customer\"", "snapshot"),
            // The other forms that open with `Expect`.
            (
                "Expect the server is lint clean including warnings",
                "lint the server",
            ),
            (
                "Expect the tools match snapshot \"t.json\"",
                "compare with a tool snapshot",
            ),
            ("Expect error message contains bad", "error message"),
            ("Expect it succeeds", "success"),
        ] {
            assert_eq!(row_name(line), row, "{line}");
        }
    }

    #[test]
    fn forms_that_share_opening_words_find_their_own_rows() {
        for (line, row) in [
            (
                "Set \"email\" using \"lowercase\" with:",
                "compute a variable",
            ),
            ("Set log level to \"debug\"", "set the log level"),
            ("From REST \"https://x\" at \"items\"", "HTTP"),
            ("From CSV \"c.csv\"", "file"),
            ("MCP URL: https://example.com/mcp", "HTTP server"),
            ("Server: node s.js", "stdio server"),
            ("Server from the command line", "no default server"),
            ("Named server \"b\": node b.js", "named server"),
        ] {
            assert_eq!(row_name(line), row, "{line}");
        }
        // Every opening of every form is documented by a row whose example is a line of
        // that same form; `Test ID:` is named only in the prose of the aliases.
        for row in STATEMENTS {
            for (_, usage) in row.openings {
                let found = documenting_row(usage);
                assert_eq!(
                    found.is_none(),
                    *usage == "Test ID: ID",
                    "{usage}: {found:?}"
                );
            }
        }
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
