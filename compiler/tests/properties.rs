//! Property tests: arbitrary text never panics the frontend, every span lies
//! inside the source on character boundaries, and byte ↔ UTF-16 ↔ line/column
//! conversions round-trip, including non-ASCII and astral-plane characters.

use mcpr_compiler::source::{SourceFile, Span};
use mcpr_compiler::{SourceMap, syntax};
use proptest::prelude::*;

mod common;

/// Pieces that make generated text look like (broken) test files.
fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("Test: \"t\"\n".to_string()),
        Just("  Call tool \"add\" with:\n".to_string()),
        Just("    a: 1\n".to_string()),
        Just("  Expect \"x\" equals 2\n".to_string()),
        Just("  For each row:\n".to_string()),
        Just("    | a | b |\n".to_string()),
        Just("Flow: \"f\"\n".to_string()),
        Just("Data source: \"d\"\n".to_string()),
        Just("  From CSV \"x.csv\"\n".to_string()),
        Just("\t".to_string()),
        Just(" ".to_string()),
        Just("\r\n".to_string()),
        Just("\"".to_string()),
        Just("${".to_string()),
        Just("é".to_string()),
        Just("𝄞".to_string()),
        Just("名前".to_string()),
        Just("\u{feff}".to_string()),
        "[ -~]{0,12}",
        "\\PC{0,6}",
    ]
}

fn document() -> impl Strategy<Value = String> {
    prop::collection::vec(fragment(), 0..40).prop_map(|v| v.concat())
}

fn check_span(file: &SourceFile, span: Span, what: &str) {
    let text = file.text();
    assert!(span.start <= span.end, "{what}: inverted span {span:?}");
    assert!(
        (span.end as usize) <= text.len(),
        "{what}: span {span:?} past the end ({})",
        text.len()
    );
    assert!(
        text.is_char_boundary(span.start as usize),
        "{what}: start {span:?} not on a char boundary"
    );
    assert!(
        text.is_char_boundary(span.end as usize),
        "{what}: end {span:?} not on a char boundary"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, .. ProptestConfig::default() })]
    /// The byte scan for `${` finds exactly what a substring search finds, from any start.
    #[test]
    fn reference_scan_matches_substring_search(text in "[a-z${}é\\n ]{0,40}", from in 0usize..48) {
        let from = (0..=from.min(text.len())).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(0);
        let expected = text[from..].find("${").map(|i| i + from);
        prop_assert_eq!(mcpr_compiler::values::find_open(&text, from), expected);
    }


    #[test]
    fn parsing_in_parts_gives_the_same_tree_and_diagnostics(text in document(), threads in 2usize..6) {
        let file = SourceFile::new("p.mcpr", text.clone());
        let whole = syntax::parse_with(&file, 0, 1);
        let parts = syntax::parse_with(&file, 0, threads);
        prop_assert_eq!(&whole.document, &parts.document, "{}", text);
        prop_assert_eq!(&whole.diagnostics, &parts.diagnostics, "{}", text);
    }

    #[test]
    fn parser_never_panics_and_spans_are_sound(text in document()) {
        let mut map = SourceMap::new();
        let id = map.add(SourceFile::new("p.mcpr", text));
        let parsed = syntax::parse(map.get(id), id);
        let file = map.get(id);
        for d in &parsed.diagnostics {
            check_span(file, d.span, "diagnostic");
            for l in &d.secondary {
                check_span(file, l.span, "label");
            }
        }
        for node in parsed.document.walk() {
            check_span(file, node.span, "node");
            if let Some(t) = node.stmt.semantic() {
                check_span(file, t.span, "semantic span");
            }
        }
        // Every renderer copes with whatever was produced.
        let _ = mcpr_compiler::diagnostics::render::human(&parsed.diagnostics, &map, false);
        let _ = mcpr_compiler::diagnostics::render::json(&parsed.diagnostics, &map, 1);
        let _ = syntax::ast_json(&parsed.document, file);
    }

    #[test]
    fn positions_round_trip(text in "\\PC{0,40}(\n\\PC{0,20}){0,4}") {
        let file = SourceFile::new("p.mcpr", text.clone());
        for (byte, _) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
            let p = file.position(byte);
            prop_assert_eq!(file.byte_of_utf16(p.offset), byte);
            prop_assert_eq!(file.byte_of_line_column(p.line, p.column), Some(byte));
            let expected16: usize = text[..byte].encode_utf16().count();
            prop_assert_eq!(p.offset as usize, expected16);
        }
    }
}

/// Values a `with:` block line may carry, tricky ones included.
fn yaml_value() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just("007".to_string()),
        Just("0".to_string()),
        Just("-12".to_string()),
        Just("+3".to_string()),
        Just("1e3".to_string()),
        Just("4.5".to_string()),
        Just(".inf".to_string()),
        Just("0x1F".to_string()),
        Just("yes".to_string()),
        Just("No".to_string()),
        Just("true".to_string()),
        Just("TRUE".to_string()),
        Just("tRue".to_string()),
        Just("~".to_string()),
        Just("NULL".to_string()),
        Just("\"${row.id}\"".to_string()),
        Just("'it''s'".to_string()),
        Just("\"a\\\"b\"".to_string()),
        Just("a #b".to_string()),
        Just("a: b".to_string()),
        Just("[1, 2]".to_string()),
        Just("[]".to_string()),
        Just("[ a , b ]".to_string()),
        Just("[a, 007, true, ~]".to_string()),
        Just("[1,]".to_string()),
        Just("[a b, c]".to_string()),
        Just("[x: 1]".to_string()),
        Just("{a: 1}".to_string()),
        Just("-".to_string()),
        Just("- x".to_string()),
        Just("é 𝄞".to_string()),
        "[a-zA-Z][a-zA-Z0-9 _./@-]{0,10}",
        "[0-9]{1,20}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, .. ProptestConfig::default() })]

    /// The shortcut for flat `key: value` blocks gives exactly what
    /// serde-saphyr gives (or an error in the same cases).
    #[test]
    fn flat_yaml_shortcut_agrees_with_the_full_parser(
        lines in prop::collection::vec(("[a-z][a-z_0-9-]{0,6}", yaml_value()), 1..6)
    ) {
        let text: String = lines.iter().map(|(k, v)| format!("{k}: {v}\n")).collect();
        let fast = mcpr_compiler::yaml::parse(&text);
        let full = mcpr_compiler::yaml::parse_full(&text);
        prop_assert_eq!(fast.is_ok(), full.is_ok(), "{}", text);
        if let (Ok(a), Ok(b)) = (fast, full) {
            prop_assert_eq!(a, b, "{}", text);
        }
    }
}

/// Every `.mcpr` file of the corpora and examples parses to the same tree and diagnostics
/// whole and cut into parts (at every number of parts its column-0 lines allow).
#[test]
fn corpus_files_parse_the_same_in_parts() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let files = common::mcpr_files(&root, &["conformance-tests", "examples"]);
    assert!(files.len() > 50, "found only {} files", files.len());
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let file = SourceFile::new("p.mcpr", text);
        let whole = syntax::parse_with(&file, 0, 1);
        for threads in [2, 3, 8] {
            let parts = syntax::parse_with(&file, 0, threads);
            assert_eq!(whole.document, parts.document, "{}", path.display());
            assert_eq!(whole.diagnostics, parts.diagnostics, "{}", path.display());
        }
    }
}
