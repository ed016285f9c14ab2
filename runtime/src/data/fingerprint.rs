//! Row fingerprints: `sha256:` + SHA-256 of the canonical JSON of the transformed rows
//! (mcp-test-language-1.md §4.9): objects with their keys sorted recursively, no whitespace,
//! numbers and strings written as JavaScript's `JSON.stringify` writes them.
//!
//! The first implementation sorts keys with `localeCompare` (the root collation). For keys
//! made of ASCII characters [`collate`] follows that order: whitespace and punctuation first,
//! then symbols, currency, digits, and letters alphabetically with lower case before upper
//! case on ties; other characters follow ASCII in code-point order.

use std::cmp::Ordering;

use serde_json::Value;
use sha2::{Digest, Sha256};

/// `sha256:` and the hex digest of the canonical JSON of `rows`.
pub fn fingerprint<'a>(
    rows: impl IntoIterator<Item = &'a serde_json::Map<String, Value>>,
) -> String {
    let mut hasher = Sha256::new();
    let mut text = String::new();
    text.push('[');
    let mut first = true;
    for row in rows {
        if !first {
            text.push(',');
        }
        first = false;
        write_object(row, &mut text);
        // Hash as we go so a large source is never held as one string.
        if text.len() > 64 * 1024 {
            hasher.update(text.as_bytes());
            text.clear();
        }
    }
    text.push(']');
    hasher.update(text.as_bytes());
    let digest = hasher.finalize();
    let mut hex = String::with_capacity(71);
    hex.push_str("sha256:");
    for b in digest.iter() {
        hex.push_str(&format!("{b:02x}"));
    }
    hex
}

/// The canonical JSON text of one value.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_value(value, &mut out);
    out
}

fn write_value(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&js_number_text(n)),
        Value::String(s) => out.push_str(&serde_json::to_string(s).unwrap_or_default()),
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(v, out);
            }
            out.push(']');
        }
        Value::Object(map) => write_object(map, out),
    }
}

fn write_object(map: &serde_json::Map<String, Value>, out: &mut String) {
    let mut keys: Vec<&String> = map.keys().collect();
    keys.sort_by(|a, b| collate(a, b));
    out.push('{');
    for (i, k) in keys.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&serde_json::to_string(k).unwrap_or_default());
        out.push(':');
        write_value(&map[k.as_str()], out);
    }
    out.push('}');
}

/// A number as JavaScript prints it: integers without a fraction, the shortest digits that
/// read back to the same double, exponent form below 1e-6 and from 1e21 on (`1e+21`).
pub fn js_number_text(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    js_float_text(n.as_f64().unwrap_or(0.0))
}

/// JavaScript's `Number.prototype.toString()` for a finite double.
pub fn js_float_text(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    if !x.is_finite() {
        return "null".into();
    }
    let sign = if x < 0.0 { "-" } else { "" };
    // Rust's `{:e}` prints the shortest round-trip digits: "1.2345e-7".
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let k = digits.len() as i32;
    // x = 0.digits × 10^n
    let n = exp.parse::<i32>().unwrap_or(0) + 1;
    let body = if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        format!("{}.{}", &digits[..n as usize], &digits[n as usize..])
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat((-n) as usize))
    } else {
        let e = n - 1;
        let e_text = if e >= 0 {
            format!("+{e}")
        } else {
            e.to_string()
        };
        if k == 1 {
            format!("{digits}e{e_text}")
        } else {
            format!("{}.{}e{e_text}", &digits[..1], &digits[1..])
        }
    };
    format!("{sign}{body}")
}

/// Primary weight of an ASCII character in the root collation (letters case-folded).
fn primary(c: char) -> u32 {
    const ORDER: &str =
        "\t\n\u{b}\u{c}\r _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz";
    if c.is_ascii() {
        let lower = c.to_ascii_lowercase();
        if let Some(i) = ORDER.find(lower) {
            return i as u32;
        }
        // Remaining ASCII control characters are ignorable in the collation; keep them
        // ordered ahead of everything else.
        return 0;
    }
    ORDER.len() as u32 + c as u32
}

/// Key order of the first implementation's canonical JSON (`localeCompare`, root locale).
pub fn collate(a: &str, b: &str) -> Ordering {
    let pa = a.chars().map(primary);
    let pb = b.chars().map(primary);
    match pa.cmp(pb) {
        Ordering::Equal => {}
        other => return other,
    }
    // Tertiary level: lower case before upper case, first difference wins.
    for (x, y) in a.chars().zip(b.chars()) {
        if x != y {
            return match (x.is_ascii_lowercase(), y.is_ascii_lowercase()) {
                (true, false) => Ordering::Less,
                (false, true) => Ordering::Greater,
                _ => x.cmp(&y),
            };
        }
    }
    a.len().cmp(&b.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_follow_locale_compare() {
        let mut keys = vec![
            "banana", "Apple", "apple", "_id", "2nd", "Zed", "a-b", "ab", "$x",
        ];
        keys.sort_by(|a, b| collate(a, b));
        assert_eq!(
            keys,
            [
                "_id", "$x", "2nd", "a-b", "ab", "apple", "Apple", "banana", "Zed"
            ]
        );
    }

    #[test]
    fn numbers_print_as_javascript_does() {
        for (x, text) in [
            (1.0, "1"),
            (1.5, "1.5"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1e21, "1e+21"),
            (1.5e21, "1.5e+21"),
            (123456789012345680000.0, "123456789012345680000"),
            (0.000001, "0.000001"),
            (1.5e-7, "1.5e-7"),
            (-2.5, "-2.5"),
            (100.0, "100"),
        ] {
            assert_eq!(js_float_text(x), text, "{x}");
        }
    }

    #[test]
    fn canonical_json_sorts_nested_keys_without_spaces() {
        let v = json!({"b": 1, "a": {"d": [1, 2.5, "x\n"], "C": null, "c": true}});
        assert_eq!(
            canonical_json(&v),
            r#"{"a":{"c":true,"C":null,"d":[1,2.5,"x\n"]},"b":1}"#
        );
        let rows = [json!({"b": 2, "a": 1}).as_object().unwrap().clone()];
        // echo -n '[{"a":1,"b":2}]' | sha256sum
        assert_eq!(
            fingerprint(rows.iter()),
            "sha256:44c7deead2ed8313d29655e45c0d1469419213c93d9f44d66da7c7afe46e74e3"
        );
    }
}
