//! The one entry point to YAML: every YAML text in the compiler (blocks in
//! `.mcpr` files, values after `equals`, YAML suites) goes through here so the
//! options are the same everywhere: YAML 1.2 booleans only, duplicate keys
//! rejected, input budgets on.

use serde_json::Value;

/// A YAML error with a 1-based line and a 1-based column counted in
/// characters, relative to the YAML text that was parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    /// 1-based line in the YAML text (0 when unknown).
    pub line: u32,
    /// 1-based column in characters (0 when unknown).
    pub column: u32,
    /// The parser's message, without position or snippet.
    pub message: String,
}

fn options() -> serde_saphyr::Options {
    let mut o = serde_saphyr::Options::default();
    o.strict_booleans = true;
    o.duplicate_keys = serde_saphyr::DuplicateKeyPolicy::Error;
    o
}

/// Parses one YAML document into a JSON value. An empty document is `null`.
pub fn parse(text: &str) -> Result<Value, YamlError> {
    if text.trim().is_empty() {
        return Ok(Value::Null);
    }
    serde_saphyr::from_str_with_options::<Value>(text, options()).map_err(|e| {
        let (line, column) = e
            .location()
            .map(|l| (l.line() as u32, l.column() as u32))
            .unwrap_or((0, 0));
        YamlError {
            line,
            column,
            message: clean_message(&e.to_string()),
        }
    })
}

/// Parses a one-line value the way the language types values after
/// `equals`, `contains` and `is`: YAML when it parses, otherwise the text.
pub fn scalar_or_text(text: &str) -> Value {
    match parse(text) {
        Ok(v) => v,
        Err(_) => Value::String(text.to_string()),
    }
}

/// Keeps the first line of the parser's message and drops any position it
/// appends (positions are reported through the diagnostic itself).
fn clean_message(raw: &str) -> String {
    let mut first = raw.lines().next().unwrap_or(raw).trim();
    first = first.strip_prefix("error:").unwrap_or(first).trim_start();
    if first.starts_with("line ")
        && let Some(i) = first.find(": ")
    {
        first = &first[i + 2..];
    }
    let cut = [" at line ", " at position ", ", at line "]
        .iter()
        .filter_map(|pat| first.find(pat))
        .min()
        .unwrap_or(first.len());
    let msg = first[..cut].trim_end_matches([':', ',', '.', ' ']);
    if msg.is_empty() {
        "invalid YAML".to_string()
    } else {
        msg.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_one_one_booleans_stay_text() {
        let v = parse("a: yes\nb: true\nc: 007\nd: \"007\"").unwrap();
        assert_eq!(v["a"], Value::String("yes".into()));
        assert_eq!(v["b"], Value::Bool(true));
        assert_eq!(v["d"], Value::String("007".into()));
    }

    #[test]
    fn duplicate_keys_are_errors_with_positions() {
        let e = parse("a: 1\nb: 2\na: 3\n").unwrap_err();
        assert_eq!(e.line, 3);
        assert!(
            e.message.to_lowercase().contains("duplicate"),
            "{}",
            e.message
        );
    }

    #[test]
    fn scalar_fallback() {
        assert_eq!(scalar_or_text("2"), serde_json::json!(2));
        assert_eq!(scalar_or_text("[1, 2]"), serde_json::json!([1, 2]));
        assert_eq!(scalar_or_text("a: b: c"), Value::String("a: b: c".into()));
    }
}
