//! JSON and YAML files: a document holding an array of row objects, optionally under a dot
//! `path` (`data.items`). YAML uses the 1.2 core schema (`yes`/`no` stay text), unique keys,
//! at most 20 aliases, nesting depth 50 and 100,000 nodes; keys that would reach a
//! JavaScript prototype (`__proto__`, `prototype`, `constructor`) are refused.

use crate::codes::RunCode;
use std::io::Read;
use std::path::Path;

use serde_json::Value;

use super::csv::{MAX_FILE_BYTES, open_checked};
use super::error::{DataError, DataErrors, DataLocation};
use super::locate::{Document, How, Locator};
use super::{Item, follow_path, items_of};

/// Most YAML aliases (`MCP-DATA-029`).
pub const MAX_ALIASES: usize = 20;
/// Deepest YAML nesting (`MCP-DATA-029`).
pub const MAX_DEPTH: usize = 50;
/// Most YAML nodes (`MCP-DATA-030`).
pub const MAX_NODES: usize = 100_000;

/// Reads the rows of a JSON (`yaml: false`) or YAML file, and how to find them in its text.
pub fn load(
    path: &Path,
    shown: &str,
    yaml: bool,
    at: Option<&str>,
) -> Result<(Vec<Result<Item, DataError>>, Locator), DataErrors> {
    let (mut file, len) = open_checked(path, shown, MAX_FILE_BYTES)?;
    let mut bytes = Vec::with_capacity(len as usize);
    file.read_to_end(&mut bytes).map_err(|e| {
        DataError::new(
            RunCode::DataUnreadable,
            format!("Cannot read the data file: {e}."),
        )
        .in_file(shown)
    })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        DataError::new(
            RunCode::DataSyntax,
            format!(
                "The file is not UTF-8 text (invalid byte at offset {}).",
                e.utf8_error().valid_up_to()
            ),
        )
        .in_file(shown)
        .help("save the file as UTF-8")
    })?;
    let (text, skipped) = match text.strip_prefix('\u{feff}') {
        Some(rest) => (rest.to_string(), 3),
        None => (text, 0),
    };
    let doc = if yaml {
        parse_yaml(&text, shown)?
    } else {
        parse_json(&text, shown)?
    };
    let doc = follow_path(doc, at, shown)?;
    let located = std::sync::Arc::new(Document::new(text, skipped, at));
    let rows = items_of(doc, shown, "The data", &|i| {
        Some(located.locate_item(shown, i, "not an object"))
    })?;
    let locator = Locator {
        file: shown.to_string(),
        how: How::Document(located),
    };
    Ok((rows, locator))
}

fn located(shown: &str, line: usize, column: usize) -> DataLocation {
    DataLocation {
        file: shown.to_string(),
        line: (line > 0).then_some(line as u64),
        column: (column > 0).then_some(column as u64),
        ..DataLocation::default()
    }
}

/// Parses JSON text; syntax errors are located (`MCP-DATA-033`).
pub fn parse_json(text: &str, shown: &str) -> Result<Value, DataError> {
    serde_json::from_str(text).map_err(|e| {
        let msg = e.to_string();
        let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
        DataError::new(
            RunCode::DataSyntax,
            format!("The file is not valid JSON: {msg}."),
        )
        .at(located(shown, e.line(), e.column()))
    })
}

fn parse_yaml(text: &str, shown: &str) -> Result<Value, DataError> {
    let mut options = serde_saphyr::Options::default();
    options.strict_booleans = true;
    options.duplicate_keys = serde_saphyr::DuplicateKeyPolicy::Error;
    let mut budget = serde_saphyr::Budget::default();
    budget.max_aliases = MAX_ALIASES;
    budget.max_depth = MAX_DEPTH;
    budget.max_nodes = MAX_NODES;
    options.budget = Some(budget);
    let value: Value = serde_saphyr::from_str_with_options(text, options).map_err(|e| {
        let (line, column) = e
            .location()
            .map_or((0, 0), |l| (l.line() as usize, l.column() as usize));
        let at = located(shown, line, column);
        let mut inner = &e;
        while let serde_saphyr::Error::WithSnippet { error, .. }
        | serde_saphyr::Error::AliasError { error, .. } = inner
        {
            inner = error;
        }
        if let serde_saphyr::Error::Budget { breach, .. } = inner {
            use serde_saphyr::budget::BudgetBreach;
            let (code, what) = match breach {
                BudgetBreach::Aliases { .. } => (
                    RunCode::YamlAliases,
                    format!("more than {MAX_ALIASES} aliases"),
                ),
                BudgetBreach::Depth { .. } => (
                    RunCode::YamlAliases,
                    format!("nesting deeper than {MAX_DEPTH} levels"),
                ),
                BudgetBreach::Nodes { .. } => (
                    RunCode::YamlTooLarge,
                    format!("more than {MAX_NODES} nodes"),
                ),
                other => (
                    RunCode::YamlTooLarge,
                    format!("too much content ({other:?})"),
                ),
            };
            return DataError::new(code, format!("The YAML document has {what}."))
                .at(at)
                .help("simplify the document, or use CSV or JSON for large tables");
        }
        let msg = inner.to_string();
        let mut first = msg.lines().next().unwrap_or(&msg).trim();
        first = first.strip_prefix("error: ").unwrap_or(first);
        if first.starts_with("line ")
            && let Some((_, rest)) = first.split_once(": ")
        {
            first = rest;
        }
        let first = first.trim_end_matches('.').to_string();
        DataError::new(
            RunCode::DataSyntax,
            format!("The file is not valid YAML: {first}."),
        )
        .at(at)
    })?;
    check_keys(&value, shown)?;
    Ok(value)
}

/// Refuses keys that reach a JavaScript prototype (`MCP-DATA-031`).
fn check_keys(v: &Value, shown: &str) -> Result<(), DataError> {
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                if matches!(k.as_str(), "__proto__" | "prototype" | "constructor") {
                    return Err(DataError::new(
                        RunCode::UnsafeYamlKey,
                        format!(
                            "The YAML document uses the key \"{k}\", which is refused for safety."
                        ),
                    )
                    .in_file(shown)
                    .help("rename the key"));
                }
                check_keys(child, shown)?;
            }
            Ok(())
        }
        Value::Array(items) => items.iter().try_for_each(|i| check_keys(i, shown)),
        _ => Ok(()),
    }
}
