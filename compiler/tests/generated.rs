//! The files made from the code, and the one command that makes them again:
//!
//! ```text
//! MCPR_BLESS=1 cargo test --workspace --test generated
//! ```
//!
//! Without `MCPR_BLESS` the test fails when a file is stale and names that command.
//!
//! - the keyword pattern of the editor grammar (`grammar/mcpr.tmLanguage.json`, and its copy
//!   in `editors/vscode/syntaxes/`), from the statement table: every first word, every opening
//!   phrase and the version header;
//! - the closed sets of `docs/schema/suite.schema.json` (native actions, phases, providers, …),
//!   from the IR's enums and `ir::sets`; the rest of the schema is written by hand and held to
//!   the IR types by `ir_schema.rs` and `ir_schema_members.rs`; the file is kept in serde_json's
//!   pretty layout;
//! - `docs/stdlib.md`, from the comments of `stdlib-flows/*.mcpr`.

use mcpr_compiler::ir::{
    Aggregate, ColumnType, FaultKind, JoinKind, JsonType, NativeAction, OAuthGrant, Permission,
    Phase, Provider, SessionMode, Status, TaskMode, TokenEndpointAuth, sets,
};
use mcpr_compiler::lint_rules::Level;
use mcpr_compiler::stdlib;
use mcpr_compiler::syntax::statements::{STATEMENTS, VERSION_HEADER};
use serde::Serialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

const COMMAND: &str = "MCPR_BLESS=1 cargo test --workspace --test generated";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The phrases of the keyword pattern: lower case, longest first so that no phrase is cut
/// short by a shorter one it starts with.
fn keyword_phrases() -> Vec<String> {
    let mut phrases: Vec<String> = STATEMENTS
        .iter()
        .flat_map(|s| {
            let firsts = s.first_words.iter().map(|w| w.to_string());
            let openings = s
                .openings
                .iter()
                .map(|(phrase, _)| phrase.trim_end_matches([':', ',']).to_string());
            firsts.chain(openings)
        })
        .chain([VERSION_HEADER.0.to_string()])
        .collect();
    phrases.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    phrases.dedup();
    phrases
}

/// The keyword pattern: a statement's opening words at the start of a line, in any case,
/// followed by white space, `:`, `,` or the end of the line.
fn keyword_pattern() -> String {
    let alternatives: Vec<String> = keyword_phrases()
        .iter()
        .map(|phrase| {
            phrase
                .split_whitespace()
                .map(regex_escape)
                .collect::<Vec<_>>()
                .join("\\s+")
        })
        .collect();
    format!("^\\s*(?i:({}))(?=[\\s:,]|$)", alternatives.join("|"))
}

fn regex_escape(word: &str) -> String {
    let mut out = String::new();
    for c in word.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The grammar with its keyword pattern made again; the rest of the file is kept as it is.
fn tm_grammar(current: &str) -> Result<String, String> {
    let doc: Value = serde_json::from_str(current).map_err(|e| format!("not JSON: {e}"))?;
    let old = doc["repository"]["keywords"]["match"]
        .as_str()
        .ok_or("it has no `repository.keywords.match` string")?;
    let old = serde_json::to_string(old).unwrap();
    if current.matches(&old).count() != 1 {
        return Err("its keyword pattern is not written once in the file".into());
    }
    let new = serde_json::to_string(&keyword_pattern()).unwrap();
    Ok(current.replacen(&old, &new, 1))
}

fn names<T: Serialize>(all: &[T]) -> Vec<Value> {
    all.iter()
        .map(|v| serde_json::to_value(v).unwrap())
        .collect()
}

/// Each closed set of the schema: where its `enum` is, and the values from their one source.
fn closed_sets() -> Vec<(&'static str, Vec<Value>)> {
    let strings = |all: &[&str]| all.iter().map(|s| Value::from(*s)).collect();
    vec![
        (
            "/properties/defaults/properties/session",
            names(&SessionMode::ALL),
        ),
        ("/$defs/permission", names(&Permission::ALL)),
        (
            "/$defs/httpTarget/properties/oauth/oneOf/1/properties/grant",
            names(&OAuthGrant::ALL),
        ),
        (
            "/$defs/httpTarget/properties/oauth/oneOf/1/properties/tokenEndpointAuth",
            names(&TokenEndpointAuth::ALL),
        ),
        (
            "/$defs/step/properties/tool/properties/task",
            names(&TaskMode::ALL),
        ),
        ("/$defs/step/properties/phase", names(&Phase::ALL)),
        (
            "/$defs/step/properties/export/additionalProperties/properties/aggregate",
            names(&Aggregate::ALL),
        ),
        (
            "/$defs/step/properties/fault/properties/kind",
            names(&FaultKind::ALL),
        ),
        ("/$defs/native/properties/action", names(&NativeAction::ALL)),
        (
            "/$defs/native/properties/status",
            strings(sets::TASK_STATUSES),
        ),
        ("/$defs/native/properties/failOn", names(&Level::ALL)),
        ("/$defs/assert/properties/status", names(&Status::ALL)),
        ("/$defs/assertion/properties/type", names(&JsonType::ALL)),
        (
            "/$defs/sourceFields/properties/provider",
            names(&Provider::ALL),
        ),
        (
            "/$defs/sourceFields/properties/columns/additionalProperties/properties/type",
            names(&ColumnType::ALL),
        ),
        ("/$defs/joinSource/properties/kind", names(&JoinKind::ALL)),
    ]
}

/// The schema with its closed sets made again, in serde_json's pretty layout.
fn suite_schema(current: &str) -> Result<String, String> {
    let mut doc: Value = serde_json::from_str(current).map_err(|e| format!("not JSON: {e}"))?;
    for (pointer, values) in closed_sets() {
        let set = doc
            .pointer_mut(pointer)
            .and_then(|node| node.get_mut("enum"))
            .ok_or_else(|| format!("it has no `enum` at {pointer}"))?;
        *set = Value::Array(values);
    }
    Ok(serde_json::to_string_pretty(&doc).unwrap() + "\n")
}

/// Every generated file: its path from the repository root and how it is made from what
/// the file holds now.
type Maker = fn(&str) -> Result<String, String>;

fn generated_files() -> Vec<(&'static str, Maker)> {
    vec![
        ("grammar/mcpr.tmLanguage.json", tm_grammar),
        // The extension's copy is the grammar itself.
        ("editors/vscode/syntaxes/mcpr.tmLanguage.json", |_| {
            let grammar = std::fs::read_to_string(root().join("grammar/mcpr.tmLanguage.json"))
                .map_err(|e| e.to_string())?;
            tm_grammar(&grammar)
        }),
        ("docs/schema/suite.schema.json", suite_schema),
        ("docs/stdlib.md", |_| stdlib::markdown()),
    ]
}

#[test]
fn every_generated_file_is_up_to_date() {
    let bless = std::env::var_os("MCPR_BLESS").is_some_and(|v| v == "1");
    let mut stale = Vec::new();
    for (path, make) in generated_files() {
        let file = root().join(path);
        let current = std::fs::read_to_string(&file).unwrap_or_default();
        let made = make(&current).unwrap_or_else(|e| panic!("{path}: {e}"));
        if made == current {
            continue;
        }
        if bless {
            std::fs::write(&file, &made).unwrap_or_else(|e| panic!("{path}: {e}"));
        } else {
            stale.push(path);
        }
    }
    assert!(
        stale.is_empty(),
        "generated files are stale: {}\nrun `{COMMAND}` to make them again",
        stale.join(", ")
    );
}

#[test]
fn the_keyword_pattern_puts_no_phrase_before_a_longer_one_it_starts() {
    let phrases = keyword_phrases();
    for (i, short) in phrases.iter().enumerate() {
        for long in &phrases[i + 1..] {
            assert!(
                !long.starts_with(short.as_str()),
                "`{short}` comes before `{long}`"
            );
        }
    }
}

#[test]
fn a_schema_that_lost_a_closed_set_is_refused_with_its_place() {
    let broken = r#"{"$defs": {"permission": {"type": "string"}}}"#;
    let err = suite_schema(broken).unwrap_err();
    assert!(
        err.contains("/properties/defaults/properties/session"),
        "{err}"
    );
    let err = tm_grammar(r#"{"repository": {}}"#).unwrap_err();
    assert!(err.contains("keywords"), "{err}");
}
