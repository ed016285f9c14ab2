//! Expectations drawn from what a tool answered each time `mcpr init` called it: a value
//! that was the same every time is expected to be that value (`equals`, or `contains` for a
//! long text), a value that changed is expected to keep its kind (`is a string`), and a
//! list its length when that did not change. Only what a `.mcpr` file can write without
//! escapes is written; the rest is left to the shape checks.

use serde_json::Value;

use crate::protocol::jsonrpc::kind_of;

/// Most expectations written for one tool.
const MAX_PER_TOOL: usize = 8;

/// Most content items looked at.
const MAX_ITEMS: usize = 3;

/// Most `structuredContent` members looked at.
const MAX_MEMBERS: usize = 6;

/// The longest text written whole after `equals`; a longer stable text is expected to
/// contain its first line, cut to [`CONTAINS_CHARS`].
const EQUALS_CHARS: usize = 120;
const CONTAINS_CHARS: usize = 60;

/// One expectation on a path of the tool's result.
#[derive(Debug, Clone, PartialEq)]
pub enum Expectation {
    /// `Expect "PATH" equals VALUE`.
    Equals(String, Value),
    /// `Expect "PATH" contains "TEXT"`.
    Contains(String, String),
    /// `Expect "PATH" has N items`.
    Items(String, usize),
    /// `Expect "PATH" is a KIND`.
    Kind(String, &'static str),
}

impl Expectation {
    /// The statement, indented as a test's step.
    pub fn line(&self) -> String {
        match self {
            Expectation::Equals(path, v) => format!("  Expect \"{path}\" equals {}", literal(v)),
            Expectation::Contains(path, text) => {
                format!("  Expect \"{path}\" contains {}", quoted(text))
            }
            Expectation::Items(path, n) => {
                let noun = if *n == 1 { "item" } else { "items" };
                format!("  Expect \"{path}\" has {n} {noun}")
            }
            Expectation::Kind(path, kind) => {
                format!("  Expect \"{path}\" is a{} {kind}", article(kind))
            }
        }
    }

    /// True for an expectation on a value, not only on a shape.
    pub fn is_value(&self) -> bool {
        matches!(self, Expectation::Equals(..) | Expectation::Contains(..))
    }
}

fn article(kind: &str) -> &'static str {
    if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "n"
    } else {
        ""
    }
}

/// The expectations that every one of `results` (the tool's results, two or more, all of
/// them successes or all tool errors) meets.
pub fn derive(results: &[Value]) -> Vec<Expectation> {
    let mut out = Vec::new();
    if results.len() < 2 {
        return out;
    }
    let at = |key: &str| -> Vec<&Value> { results.iter().map(|r| &r[key]).collect() };
    let content = at("content");
    if content.iter().all(|c| c.is_array()) {
        let lens: Vec<usize> = content
            .iter()
            .map(|c| c.as_array().map_or(0, Vec::len))
            .collect();
        let shortest = lens.iter().copied().min().unwrap_or(0);
        if lens.iter().all(|n| *n == lens[0]) {
            out.push(Expectation::Items("content".into(), lens[0]));
        }
        for i in 0..shortest.min(MAX_ITEMS) {
            let items: Vec<&Value> = content.iter().map(|c| &c[i]).collect();
            item(&format!("content[{i}]"), &items, &mut out);
        }
    }
    let structured = at("structuredContent");
    if structured.iter().all(|s| s.is_object()) {
        let first = structured[0].as_object().expect("checked above");
        for key in first.keys().filter(|k| plain_key(k)).take(MAX_MEMBERS) {
            let values: Vec<&Value> = structured.iter().map(|s| &s[key.as_str()]).collect();
            value(&format!("structuredContent.{key}"), &values, &mut out);
        }
    }
    out.truncate(MAX_PER_TOOL);
    out
}

/// One content item: its type, and for text its text.
fn item(path: &str, items: &[&Value], out: &mut Vec<Expectation>) {
    let ty: Vec<&Value> = items.iter().map(|i| &i["type"]).collect();
    let Some(kind) = same(&ty).and_then(Value::as_str) else {
        return;
    };
    out.push(Expectation::Equals(
        format!("{path}.type"),
        Value::String(kind.into()),
    ));
    let field = match kind {
        "text" => "text",
        "image" | "audio" => "mimeType",
        _ => return,
    };
    let values: Vec<&Value> = items.iter().map(|i| &i[field]).collect();
    value(&format!("{path}.{field}"), &values, out);
}

/// A value seen each time: equal every time, or at least of one kind.
fn value(path: &str, values: &[&Value], out: &mut Vec<Expectation>) {
    match same(values) {
        Some(Value::String(s)) => text(path, s, out),
        Some(v @ (Value::Number(_) | Value::Bool(_) | Value::Null)) => {
            out.push(Expectation::Equals(path.into(), v.clone()));
        }
        Some(v) if writable(v) && v.to_string().chars().count() <= EQUALS_CHARS => {
            out.push(Expectation::Equals(path.into(), v.clone()));
        }
        Some(Value::Array(items)) => out.push(Expectation::Items(path.into(), items.len())),
        Some(Value::Object(_)) => out.push(Expectation::Kind(path.into(), "object")),
        None => {
            let kinds: Vec<&'static str> = values.iter().map(|v| kind_of(v)).collect();
            if kinds.iter().all(|k| *k == kinds[0]) && kinds[0] != "null" {
                out.push(Expectation::Kind(path.into(), kinds[0]));
            }
        }
    }
}

/// A text that was the same each time: whole when short, else its first line.
fn text(path: &str, s: &str, out: &mut Vec<Expectation>) {
    if s.chars().count() <= EQUALS_CHARS && safe_text(s) && !s.contains(['\n', '\r']) {
        out.push(Expectation::Equals(path.into(), Value::String(s.into())));
        return;
    }
    let first: String = s
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .chars()
        .take(CONTAINS_CHARS)
        .collect();
    let first = first.trim_end();
    if first.chars().count() >= 3 && safe_text(first) {
        out.push(Expectation::Contains(path.into(), first.into()));
    } else {
        out.push(Expectation::Kind(path.into(), "string"));
    }
}

/// The value when all are equal.
fn same<'a>(values: &[&'a Value]) -> Option<&'a Value> {
    let first = values.first()?;
    values.iter().all(|v| v == first).then_some(*first)
}

/// A member name a path can use as it is (`structuredContent.name`).
fn plain_key(k: &str) -> bool {
    k.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A text a quoted `.mcpr` value holds as it is: one kind of quote at most, no reference.
fn safe_text(s: &str) -> bool {
    let both_quotes = s.contains('"') && s.contains('\'');
    !(both_quotes || s.contains("${") || s.contains(['\n', '\r']))
}

/// A list or object whose texts are all safe to write (as a YAML flow value).
fn writable(v: &Value) -> bool {
    match v {
        Value::String(s) => !s.contains("${"),
        Value::Array(items) => items.iter().all(writable),
        Value::Object(o) => o.iter().all(|(k, v)| !k.contains("${") && writable(v)),
        _ => true,
    }
}

fn quoted(s: &str) -> String {
    if s.contains('"') {
        format!("'{s}'")
    } else {
        format!("\"{s}\"")
    }
}

/// A value after `equals`: texts quoted, lists and objects as JSON (a YAML flow value).
fn literal(v: &Value) -> String {
    match v {
        Value::String(s) => quoted(s),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn lines(results: &[Value]) -> Vec<String> {
        derive(results).iter().map(Expectation::line).collect()
    }

    #[test]
    fn stable_values_are_expected_and_changing_ones_keep_their_kind() {
        let a = json!({"content": [{"type": "text", "text": "sum is 5"}], "structuredContent": {"sum": 5, "at": "10:00:01", "tags": ["x"]}});
        let b = json!({"content": [{"type": "text", "text": "sum is 5"}], "structuredContent": {"sum": 5, "at": "10:00:02", "tags": ["x"]}});
        assert_eq!(
            lines(&[a, b]),
            [
                "  Expect \"content\" has 1 item",
                "  Expect \"content[0].type\" equals \"text\"",
                "  Expect \"content[0].text\" equals \"sum is 5\"",
                "  Expect \"structuredContent.sum\" equals 5",
                "  Expect \"structuredContent.at\" is a string",
                "  Expect \"structuredContent.tags\" equals [\"x\"]",
            ]
        );
    }

    #[test]
    fn long_texts_are_expected_to_contain_their_first_line_and_unsafe_ones_only_their_kind() {
        let long = format!("Report for today\n{}", "line\n".repeat(100));
        let r = json!({"content": [{"type": "text", "text": long}, {"type": "text", "text": "both \" and ' quotes"}]});
        let got = lines(&[r.clone(), r]);
        assert!(
            got.contains(&"  Expect \"content[0].text\" contains \"Report for today\"".to_string()),
            "{got:?}"
        );
        assert!(
            got.contains(&"  Expect \"content[1].text\" is a string".to_string()),
            "{got:?}"
        );
    }

    #[test]
    fn one_result_says_nothing_and_changing_lists_keep_no_length() {
        let a = json!({"content": [{"type": "text", "text": "a"}]});
        assert!(derive(std::slice::from_ref(&a)).is_empty());
        let b = json!({"content": [{"type": "text", "text": "b"}, {"type": "text", "text": "c"}]});
        assert_eq!(
            lines(&[a, b]),
            [
                "  Expect \"content[0].type\" equals \"text\"",
                "  Expect \"content[0].text\" is a string"
            ]
        );
    }
}
