//! The editor grammar `grammar/mcpr.tmLanguage.json` (TextMate, used by VS Code and other
//! editors) kept in step with the statement table: it is valid JSON with the patterns the
//! editors need, the VS Code extension carries an identical copy, and its keyword pattern
//! matches the opening words of every statement form and every opening phrase.

use mcpr_compiler::syntax::statements::{STATEMENTS, VERSION_HEADER};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn grammar() -> Value {
    let text = std::fs::read_to_string(root().join("grammar/mcpr.tmLanguage.json")).unwrap();
    serde_json::from_str(&text).expect("grammar/mcpr.tmLanguage.json is JSON")
}

/// The keyword pattern as a `regex` (its trailing look-ahead, which `regex` lacks, as a
/// plain group).
fn keywords(g: &Value) -> regex::Regex {
    let m = g["repository"]["keywords"]["match"].as_str().unwrap();
    let m = m
        .strip_suffix("(?=[\\s:,]|$)")
        .map(|s| format!("{s}(?:[\\s:,]|$)"))
        .expect("the keyword pattern ends with its look-ahead");
    regex::Regex::new(&m).unwrap()
}

#[test]
fn the_grammar_is_valid_and_the_extension_has_the_same() {
    let g = grammar();
    assert_eq!(g["scopeName"], "source.mcpr");
    for key in [
        "comment",
        "version",
        "yaml-block",
        "table-row",
        "block-header",
        "keywords",
        "string-double",
        "string-single",
        "reference",
        "duration",
        "number",
    ] {
        assert!(g["repository"][key].is_object(), "repository.{key}");
    }
    // Every include names a rule of the repository (or the embedded YAML grammar).
    let text = serde_json::to_string(&g).unwrap();
    for inc in text.split("\"include\":\"").skip(1) {
        let name = &inc[..inc.find('"').unwrap()];
        if let Some(rule) = name.strip_prefix('#') {
            assert!(g["repository"][rule].is_object(), "#{rule} is not defined");
        } else {
            assert_eq!(name, "source.yaml");
        }
    }
    let copy = root().join("editors/vscode/syntaxes/mcpr.tmLanguage.json");
    assert_eq!(
        std::fs::read_to_string(&copy).unwrap(),
        std::fs::read_to_string(root().join("grammar/mcpr.tmLanguage.json")).unwrap(),
        "{} must be a copy of grammar/mcpr.tmLanguage.json",
        copy.display()
    );
}

#[test]
fn every_statement_opening_is_a_keyword_of_the_grammar() {
    let g = grammar();
    let re = keywords(&g);
    let mut missing = Vec::new();
    for s in STATEMENTS {
        for first in s.first_words {
            let line = format!("  {first} x");
            let hit = re
                .captures(&line)
                .and_then(|c| c.get(1))
                .is_some_and(|m| m.as_str().to_lowercase().starts_with(first));
            if !hit {
                missing.push(format!("{:?}: first word `{first}`", s.form));
            }
        }
        for (phrase, shown) in s.openings {
            let words = phrase.trim_end_matches([':', ',']);
            for line in [format!("  {phrase} x"), format!("  {shown}")] {
                let got = re.captures(&line).and_then(|c| c.get(1));
                if !got.is_some_and(|m| m.as_str().to_lowercase() == words) {
                    missing.push(format!(
                        "{:?}: `{line}` → {:?}",
                        s.form,
                        got.map(|m| m.as_str())
                    ));
                }
            }
        }
    }
    assert!(missing.is_empty(), "not matched:\n{}", missing.join("\n"));
    let version = g["repository"]["version"]["match"].as_str().unwrap();
    assert!(
        regex::Regex::new(version)
            .unwrap()
            .is_match(VERSION_HEADER.1)
    );
}
