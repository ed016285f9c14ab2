//! `mcpr fmt` properties over the whole corpus and over generated files: formatting never
//! changes what a file means — the Suite IR before and after is equal (positions aside,
//! [`fmt::comparable`]) and so are the diagnostics (codes and messages, in order) — and it is
//! idempotent, `fmt(fmt(x)) == fmt(x)`. Files with syntax errors are refused, never guessed.

use mcpr_compiler::SourceMap;
use mcpr_compiler::fmt::{self, FormatError, format_source};
use mcpr_compiler::lower::{self, Loader, MemoryLoader, Options};
use mcpr_compiler::source::SourceFile;
use proptest::prelude::*;
use std::path::{Path, PathBuf};

mod common;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// What a text compiles to: the comparable IR (if any) and every diagnostic's code and
/// message (positions aside).
fn meaning(name: &str, text: &str, loader: &dyn Loader) -> (Option<String>, Vec<String>) {
    let mut map = SourceMap::new();
    let id = map.add(SourceFile::new(name, text));
    let compiled = lower::compile(&mut map, id, loader, &Options::default());
    let ir = compiled
        .suite
        .map(|s| serde_json::to_string_pretty(&fmt::comparable(&s)).unwrap());
    let diags = compiled
        .diagnostics
        .iter()
        .map(|d| format!("{} {}", d.code.as_str(), d.message))
        .collect();
    (ir, diags)
}

/// Formats one text and checks the properties; `Ok(false)` when it was refused for its
/// syntax errors.
fn check_one(label: &str, name: &str, text: &str, loader: &dyn Loader) -> Result<bool, String> {
    let out = match format_source(name, text) {
        Ok(out) => out,
        Err(FormatError::Syntax(_)) => return Ok(false),
        Err(e) => return Err(format!("{label}: {e}\n--- text ---\n{text}")),
    };
    let again = format_source(name, &out).map_err(|e| format!("{label}: second pass: {e}"))?;
    if again != out {
        return Err(format!(
            "{label}: not idempotent\n--- first ---\n{out}\n--- second ---\n{again}"
        ));
    }
    let (before, before_d) = meaning(name, text, loader);
    let (after, after_d) = meaning(name, &out, loader);
    if before != after {
        return Err(format!(
            "{label}: the IR changed\n--- text ---\n{text}\n--- formatted ---\n{out}"
        ));
    }
    if before_d != after_d {
        return Err(format!(
            "{label}: the diagnostics changed: {before_d:?} → {after_d:?}\n--- formatted ---\n{out}"
        ));
    }
    if out.lines().any(|l| l.ends_with(' ')) || !(out.is_empty() || out.ends_with('\n')) {
        return Err(format!("{label}: trailing spaces or no final newline"));
    }
    Ok(true)
}

#[test]
fn every_corpus_file_formats_to_the_same_meaning_and_is_a_fixed_point() {
    let r = root();
    let files = common::mcpr_files(&r, &["conformance-tests", "examples"]);
    assert!(files.len() > 150, "corpus missing: {}", files.len());
    let mut failures = Vec::new();
    let mut formatted = 0;
    let mut valid_refused = Vec::new();
    for path in &files {
        let label = path.strip_prefix(&r).unwrap_or(path).display().to_string();
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let loader = common::DirLoader(path.parent().unwrap().to_path_buf());
        match check_one(&label, &name, &text, &loader) {
            Ok(true) => formatted += 1,
            Ok(false) if !label.contains("invalid") => valid_refused.push(label),
            Ok(false) => {}
            Err(e) => failures.push(e),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} files:\n\n{}",
        failures.len(),
        files.len(),
        failures.join("\n\n")
    );
    assert!(
        valid_refused.is_empty(),
        "valid files refused: {valid_refused:?}"
    );
    assert!(formatted > 150, "only {formatted} files formatted");
}

#[test]
fn a_messy_file_gets_the_canonical_layout() {
    let messy = "\u{feff}MCP Test 1\nsuite:   \"Shop\"\nServer:  node  server.js\n\n\n\
# about the test\ntest:   'Adds numbers'\n\n    call TOOL 'add'   with:\n        a:   2\n        b: \"three words\"\n    # a note\n    EXPECT  \"structuredContent.sum\"  equals 5\n    save \"x\"  as \"y\"\n    id: x\n    test id: y\n\n\n\n    expect it SUCCEEDS\nTest: \"Rows\"\n  For each row:\n    |a|bb|\n    |---|---|\n    | 1 |2|\n  Call tool \"t\" with:\n    v: \"${row.a}\"\n    # keep me\n    w: [1, 2]\n";
    let want = "MCP Test 1\nSuite: \"Shop\"\nServer: node  server.js\n\n\
# about the test\nTest: \"Adds numbers\"\n  Call tool \"add\" with:\n    a: 2\n    b: three words\n  # a note\n  Expect \"structuredContent.sum\" equals 5\n  Save \"x\" as \"y\"\n  Id: x\n  Test ID: y\n\n  Expect it succeeds\n\nTest: \"Rows\"\n  For each row:\n    | a | bb |\n    |---|----|\n    | 1 | 2  |\n  Call tool \"t\" with:\n    v: \"${row.a}\"\n    # keep me\n    w: [1, 2]\n";
    let out = format_source("messy.mcpr", messy).unwrap();
    assert_eq!(out, want, "\n{out}");
    assert!(check_one("messy", "messy.mcpr", messy, &MemoryLoader::default()).unwrap());
}

#[test]
fn files_with_syntax_errors_are_refused() {
    let err = format_source("x.mcpr", "Test: x\n  Cal tool \"a\"\n").unwrap_err();
    assert!(matches!(&err, FormatError::Syntax(d) if d[0].code.as_str() == "MCPLANG204"));
    assert!(matches!(
        format_source("x.yaml", "version: 1\n"),
        Err(FormatError::NotMcpr(_))
    ));
}

/// Lines of a test file in many spellings: keyword case, spacing, quotes, blank lines and
/// comments vary; the statements stay valid.
fn line() -> impl Strategy<Value = String> {
    let spaces = prop::sample::select(vec![" ", "  ", "   "]);
    // `{i}` is the indentation of the test's body, chosen once per test.
    let indent = Just("{i}");
    prop_oneof![
        (indent.clone(), spaces.clone(), prop::bool::ANY).prop_map(|(i, s, up)| format!(
            "{i}{}{s}tool{s}\"add\"{s}with:\n{i}  a:{s}1\n{i}  b: [1,{s}2]\n",
            if up { "CALL" } else { "call" }
        )),
        (indent.clone(), spaces.clone())
            .prop_map(|(i, s)| format!("{i}expect{s}\"structuredContent.sum\"{s}equals{s}3\n")),
        (indent.clone(), spaces.clone()).prop_map(|(i, s)| format!("{i}Expect{s}it{s}succeeds\n")),
        (indent.clone(), spaces.clone())
            .prop_map(|(i, s)| format!("{i}save \"structuredContent.sum\"{s}as{s}'total'\n")),
        indent.clone().prop_map(|i| format!("{i}# a comment  \n")),
        Just("\n".to_string()),
        (indent.clone(), spaces.clone())
            .prop_map(|(i, s)| format!("{i}Wait{s}up to 2{s}seconds\n")),
        indent.prop_map(|i| format!("{i}Send \"ping\"\n")),
    ]
}

fn test_block() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["Test:", "test:", "TEST:  "]),
        "[A-Za-z]{1,8}",
        prop::collection::vec(line(), 1..8),
        prop::sample::select(vec!["  ", "    "]),
    )
        .prop_map(|(h, name, lines, i)| {
            format!("{h} \"{name}\"\n{i}call tool \"first\"\n{}", lines.concat()).replace("{i}", i)
        })
}

fn generated() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["", "MCP Test 1\n", "# head\n\n"]),
        prop::collection::vec(test_block(), 1..4),
        prop::sample::select(vec!["", "\n", "\n\n"]),
    )
        .prop_map(|(head, tests, gap)| {
            let mut out = format!("{head}Server: node s.js\n");
            for (i, t) in tests.iter().enumerate() {
                // Test names are unique, so the file compiles to a suite.
                out.push_str(gap);
                out.push_str(&t.replacen('"', &format!("\"{i}"), 1));
            }
            out
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn generated_files_keep_their_meaning_and_format_once(text in generated()) {
        let formatted = check_one("generated", "gen.mcpr", &text, &MemoryLoader::default());
        prop_assert!(formatted.is_ok(), "{}", formatted.unwrap_err());
        prop_assert!(formatted.unwrap(), "refused:\n{}", text);
    }
}
