//! A small YAML emitter for JSON values: block mappings and sequences with two-space
//! indents, scalars plain where every YAML reader takes them as the same string, double-quoted
//! (JSON escapes, which YAML shares) everywhere else.
//!
//! It writes only what it can prove: a string is left plain only when the compiler's own
//! YAML reader gives the string back and the text cannot be mistaken for a YAML 1.1 boolean,
//! null or number by older readers. Everything else is quoted. Output is deterministic: keys
//! in the order of the value.

use serde_json::{Map, Value};

/// The whole value as a YAML document (ending with a newline).
pub fn document(value: &Value) -> String {
    let mut out = String::new();
    match value {
        Value::Object(m) if !m.is_empty() => mapping(&mut out, m, 0),
        Value::Array(a) if !a.is_empty() => sequence(&mut out, a, 0),
        other => {
            out.push_str(&inline(other));
            out.push('\n');
        }
    }
    out
}

/// A mapping as block lines, every line indented by `indent` spaces.
pub fn mapping(out: &mut String, map: &Map<String, Value>, indent: usize) {
    for (k, v) in map {
        pad(out, indent);
        out.push_str(&key(k));
        out.push(':');
        member(out, v, indent);
    }
}

/// What follows `key:` (or `-`): a scalar or empty collection on the same line, otherwise a
/// nested block on the next lines.
fn member(out: &mut String, v: &Value, indent: usize) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            out.push('\n');
            mapping(out, m, indent + 2);
        }
        Value::Array(a) if !a.is_empty() => {
            out.push('\n');
            sequence(out, a, indent + 2);
        }
        other => {
            out.push(' ');
            out.push_str(&inline(other));
            out.push('\n');
        }
    }
}

/// A sequence as block lines (`- item`), every line indented by `indent` spaces.
pub fn sequence(out: &mut String, items: &[Value], indent: usize) {
    for item in items {
        pad(out, indent);
        out.push('-');
        match item {
            Value::Object(m) if !m.is_empty() => {
                // First member on the dash line, the others aligned under it.
                let mut first = true;
                for (k, v) in m {
                    if first {
                        out.push(' ');
                        first = false;
                    } else {
                        pad(out, indent + 2);
                    }
                    out.push_str(&key(k));
                    out.push(':');
                    member(out, v, indent + 2);
                }
            }
            other => member(out, other, indent),
        }
    }
}

fn pad(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

/// A mapping key: plain when safe, else double-quoted.
pub fn key(k: &str) -> String {
    if plain_ok(k) { k.to_string() } else { quote(k) }
}

/// A value on one line: scalars as in a block, collections in JSON flow style
/// (`{"a": 1}`, `[1, 2]`), which every YAML reader accepts.
pub fn inline(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => {
            if plain_ok(s) {
                s.clone()
            } else {
                quote(s)
            }
        }
        Value::Array(a) => {
            let items: Vec<String> = a.iter().map(flow).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(m) => {
            let items: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{}: {}", quote(k), flow(v)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
    }
}

/// A value inside a flow collection: strings always quoted (plain scalars in flow context
/// may not hold `,[]{}`).
fn flow(v: &Value) -> String {
    match v {
        Value::String(s) => quote(s),
        other => inline(other),
    }
}

/// A double-quoted scalar with JSON escapes (a subset of YAML's).
pub fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{s}\""))
}

/// Words that YAML 1.1 readers take as booleans or null, quoted for their sake even though
/// the compiler's YAML 1.2 reader keeps them as text.
const YAML11_WORDS: &[&str] = &[
    "y", "n", "yes", "no", "on", "off", "true", "false", "null", "~",
];

/// Whether `s` can be written as a plain scalar and read back as the same string.
pub fn plain_ok(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    if YAML11_WORDS.iter().any(|w| s.eq_ignore_ascii_case(w)) {
        return false;
    }
    // Conservative: start with a letter, `_`, `/` or `$`, or with `-`/`.` followed by a
    // letter, `-`, `.` or `/` (`--port`, `./server`); no characters that need care. (A digit
    // after a sign or dot could be a number to some reader.)
    let second = s.chars().nth(1);
    let starts_well = first.is_alphabetic()
        || matches!(first, '_' | '/' | '$')
        || (matches!(first, '-' | '.')
            && second.is_some_and(|c| c.is_alphabetic() || matches!(c, '-' | '.' | '/')));
    let risky = s.chars().any(|c| {
        c.is_control()
            || matches!(
                c,
                '#' | '\'' | '"' | '`' | '|' | '>' | '&' | '*' | '!' | '%' | '@' | '\\'
            )
            || (c.is_whitespace() && c != ' ')
    });
    if !starts_well
        || risky
        || s.contains(": ")
        || s.ends_with(':')
        || s.ends_with(' ')
        || s.contains("  ")
    {
        return false;
    }
    // Prove it with the reader every `.mcpr` block and YAML suite goes through.
    let probe = format!("k: {s}\n");
    match crate::yaml::parse_full(&probe) {
        Ok(Value::Object(m)) => m.get("k") == Some(&Value::String(s.to_string())),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn back(v: &Value) -> Value {
        crate::yaml::parse_full(&document(v)).unwrap()
    }

    #[test]
    fn documents_read_back_as_the_same_value() {
        for v in [
            json!({"a": 1, "b": "two words", "c": [1, "x", null, true], "d": {}, "e": []}),
            json!({"yes": "no", "on": "off", "n": "007", "f": 1.5, "g": -3, "h": "1.5"}),
            json!({"m": "line one\nline two\ttab", "q": "it's \"quoted\"", "e": ""}),
            json!({"k": [{"a": 1, "b": [1, [2, 3]]}, [], {}, [[1], {"x": {"y": "z"}}]]}),
            json!({"key: with colon": "# not a comment", "$ref": "${row.id}", "u": "ünï"}),
            json!([1, 2]),
            json!("scalar"),
            json!({"big": 18446744073709551615u64, "neg": -9223372036854775808i64, "f": 1e100}),
        ] {
            assert_eq!(back(&v), v, "{}", document(&v));
        }
    }

    #[test]
    fn plain_only_when_unambiguous() {
        for s in ["hello", "two words", "/path/x", "${row.id}", "a.b-c_d"] {
            assert!(plain_ok(s), "{s}");
        }
        for s in ["--port", "-p", "./server", "../up", ".hidden"] {
            assert!(plain_ok(s), "{s}");
        }
        for s in [
            "yes", "No", "007", "1.5", "", " x", "x ", "a: b", "a #b", "- x", "-", "[x]", "y",
            ".inf", "-.inf", ".5", "-0x1", "-1",
        ] {
            assert!(!plain_ok(s), "{s}");
        }
    }

    #[test]
    fn inline_collections_read_back() {
        for v in [
            json!({"a": [1, "b, c"], "d": {"e": null}}),
            json!([]),
            json!({}),
        ] {
            assert_eq!(crate::yaml::parse_full(&inline(&v)).unwrap(), v);
        }
    }
}
