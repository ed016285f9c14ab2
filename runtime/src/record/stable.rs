//! Which parts of an observed result a draft test may expect again, and the assertions
//! that expect them. A value is left out (or only its JSON type is expected) when it looks
//! volatile: `_meta`, cursors, ids, timestamps and dates, random-looking tokens (UUIDs, long
//! hex or base64 runs), and text or numbers under keys that name such things. Everything
//! else is expected exactly, array lengths included.

use mcpr_compiler::ir::{Assertion, JsonType};
use serde_json::Value;

/// Most assertions written for one step; a larger result keeps its first ones.
pub const MAX_ASSERTIONS: usize = 40;

/// Longest text expected exactly; a longer one is expected to be a string.
const MAX_TEXT: usize = 2_000;

/// Most elements of one array looked into (its length is always expected).
const MAX_ITEMS: usize = 20;

/// Keys whose whole value is left out.
fn dropped_key(key: &str) -> bool {
    matches!(key, "_meta" | "nextCursor" | "cursor" | "progressToken")
}

/// Keys whose value is expected only by its type: ids, times, tokens, sessions.
pub fn volatile_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    let exact = [
        "id",
        "uuid",
        "guid",
        "etag",
        "nonce",
        "token",
        "session",
        "seed",
        "random",
        "salt",
        "signature",
        "hash",
        "digest",
        "pid",
        "port",
        "elapsed",
        "duration",
        "latency",
        "uptime",
        "now",
        "date",
        "time",
        "ts",
    ];
    if exact.contains(&k.as_str()) {
        return true;
    }
    let ends = [
        "id",
        "_id",
        "ids",
        "at",
        "time",
        "timestamp",
        "date",
        "token",
        "ms",
    ];
    let camel_or_snake_tail = ends.iter().any(|e| {
        k.len() > e.len() && k.ends_with(e) && {
            // `requestId`, `request_id`, `createdAt`, `startTime`, `elapsedMs`: the tail
            // starts a new word (an upper-case letter or after `_`) in the original key.
            let at = key.len() - e.len();
            let first = key[at..].chars().next().unwrap_or('a');
            first.is_ascii_uppercase() || key[..at].ends_with(['_', '-'])
        }
    });
    camel_or_snake_tail
        || [
            "timestamp",
            "created",
            "updated",
            "modified",
            "expires",
            "session",
            "nonce",
        ]
        .iter()
        .any(|w| k.contains(w))
}

/// Whether a text looks like it changes from run to run: it holds a UUID, a date or time of
/// day, a long hex run, or a long token mixing letters and digits.
pub fn volatile_text(s: &str) -> bool {
    let b = s.as_bytes();
    // A UUID: 8-4-4-4-12 hex digits.
    let hex = |c: u8| c.is_ascii_hexdigit();
    if b.len() >= 36 {
        for i in 0..=b.len() - 36 {
            let w = &b[i..i + 36];
            if [8, 13, 18, 23].iter().all(|&j| w[j] == b'-')
                && w.iter()
                    .enumerate()
                    .all(|(j, &c)| [8, 13, 18, 23].contains(&j) || hex(c))
            {
                return true;
            }
        }
    }
    // A date (2024-05-01) or a time of day (12:34:56).
    let digits = |w: &[u8], spots: &[usize]| spots.iter().all(|&j| w[j].is_ascii_digit());
    if b.len() >= 8 {
        for i in 0..=b.len() - 8 {
            let w = &b[i..i + 8];
            if w[2] == b':' && w[5] == b':' && digits(w, &[0, 1, 3, 4, 6, 7]) {
                return true;
            }
        }
    }
    if b.len() >= 10 {
        for i in 0..=b.len() - 10 {
            let w = &b[i..i + 10];
            if w[4] == b'-' && w[7] == b'-' && digits(w, &[0, 1, 2, 3, 5, 6, 8, 9]) {
                return true;
            }
        }
    }
    // Runs of word characters: long hex (16+), or long mixed tokens (20+).
    for run in s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-')) {
        let letters = run.chars().filter(char::is_ascii_alphabetic).count();
        let numerals = run.chars().filter(char::is_ascii_digit).count();
        if run.len() >= 16 && run.chars().all(|c| c.is_ascii_hexdigit()) && numerals > 0 {
            return true;
        }
        if run.len() >= 20 && letters > 0 && numerals >= 3 {
            let upper = run.chars().filter(char::is_ascii_uppercase).count();
            let lower = run.chars().filter(char::is_ascii_lowercase).count();
            if upper > 0 && lower > 0 || numerals * 4 >= run.len() {
                return true;
            }
        }
    }
    false
}

/// Whether a number looks like a moment: seconds or milliseconds since 1970 between 2001
/// and 2286.
fn epoch_like(n: &serde_json::Number) -> bool {
    n.as_f64()
        .is_some_and(|f| (1e9..1e10).contains(&f) || (1e12..1e13).contains(&f))
}

/// Whether a value holds something volatile anywhere (text holding JSON is looked into).
pub fn volatile_anywhere(v: &Value) -> bool {
    match v {
        Value::String(s) => {
            volatile_text(s)
                || serde_json::from_str::<Value>(s)
                    .ok()
                    .filter(|j| j.is_object() || j.is_array())
                    .is_some_and(|j| volatile_anywhere(&j))
        }
        Value::Number(n) => epoch_like(n),
        Value::Array(a) => a.iter().any(volatile_anywhere),
        Value::Object(o) => o.iter().any(|(k, v)| {
            !dropped_key(k) && (volatile_key(k) && !v.is_object() || volatile_anywhere(v))
        }),
        _ => false,
    }
}

/// The assertions that expect the stable parts of `result` (at most [`MAX_ASSERTIONS`]).
pub fn assertions(result: &Value) -> Vec<Assertion> {
    let mut out = Vec::new();
    walk(result, "$".to_string(), None, &mut out);
    out.truncate(MAX_ASSERTIONS);
    out
}

fn typed(path: &str, kind: JsonType) -> Assertion {
    Assertion {
        path: Some(path.to_string()),
        kind: Some(kind),
        ..Assertion::default()
    }
}

fn equals(path: &str, v: &Value) -> Assertion {
    Assertion {
        path: Some(path.to_string()),
        equals: Some(v.clone()),
        ..Assertion::default()
    }
}

/// `path` followed by member `key`: `.key` for plain names, else `["key"]`.
pub fn member(path: &str, key: &str) -> Option<String> {
    let plain = key
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        Some(format!("{path}.{key}"))
    } else if !key.contains(['"', ']', '\\']) && !key.contains("${") {
        Some(format!("{path}[\"{key}\"]"))
    } else {
        None
    }
}

fn walk(v: &Value, path: String, key: Option<&str>, out: &mut Vec<Assertion>) {
    if out.len() >= MAX_ASSERTIONS {
        return;
    }
    let volatile_here = key.is_some_and(volatile_key);
    match v {
        Value::Object(o) => {
            for (k, item) in o {
                if dropped_key(k) {
                    continue;
                }
                if let Some(p) = member(&path, k) {
                    walk(item, p, Some(k), out);
                }
            }
        }
        Value::Array(a) => {
            out.push(Assertion {
                path: Some(path.clone()),
                length: Some(a.len() as u64),
                ..Assertion::default()
            });
            for (i, item) in a.iter().enumerate().take(MAX_ITEMS) {
                walk(item, format!("{path}[{i}]"), key, out);
            }
        }
        Value::String(s) => {
            let templated = s.contains("${");
            if volatile_here || templated || s.chars().count() > MAX_TEXT || volatile_anywhere(v) {
                out.push(typed(&path, JsonType::String));
            } else {
                out.push(equals(&path, v));
            }
        }
        Value::Number(n) => {
            if volatile_here || epoch_like(n) {
                out.push(typed(&path, JsonType::Number));
            } else {
                out.push(equals(&path, v));
            }
        }
        Value::Bool(_) | Value::Null => out.push(equals(&path, v)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn volatile_texts_are_told_apart_from_stable_ones() {
        for s in [
            "3f2a9c1e-4b5d-4e6f-8a9b-0c1d2e3f4a5b",
            "created at 2024-05-01T12:00:00Z",
            "at 12:34:56",
            "sha 9f86d081884c7d65",
            "tok_Ab3dE5fG7hJ9kL1mN3pQ",
        ] {
            assert!(volatile_text(s), "{s}");
        }
        for s in [
            "hello",
            "Echo: hello world",
            "sum is 12",
            "a-very-long-kebab-case-name-without-digits",
            "",
        ] {
            assert!(!volatile_text(s), "{s}");
        }
        for k in [
            "id",
            "requestId",
            "request_id",
            "createdAt",
            "elapsedMs",
            "timestamp",
        ] {
            assert!(volatile_key(k), "{k}");
        }
        for k in ["name", "text", "valid", "data", "width", "format", "sum"] {
            assert!(!volatile_key(k), "{k}");
        }
    }

    #[test]
    fn stable_parts_are_expected_and_volatile_ones_by_type() {
        let result = json!({
            "content": [{"type": "text", "text": "{\"id\": \"3f2a9c1e-4b5d-4e6f-8a9b-0c1d2e3f4a5b\"}"}],
            "structuredContent": {"sum": 3, "requestId": "r-1", "at": 1717171717, "odd key": true},
            "_meta": {"x": 1},
            "nextCursor": "abc"
        });
        let got: Vec<String> = assertions(&result)
            .into_iter()
            .map(|a| serde_json::to_string(&a).unwrap())
            .collect();
        assert_eq!(
            got,
            [
                r#"{"path":"$.content","length":1}"#,
                r#"{"path":"$.content[0].type","equals":"text"}"#,
                r#"{"path":"$.content[0].text","type":"string"}"#,
                r#"{"path":"$.structuredContent.sum","equals":3}"#,
                r#"{"path":"$.structuredContent.requestId","type":"string"}"#,
                r#"{"path":"$.structuredContent.at","type":"number"}"#,
                r#"{"path":"$.structuredContent[\"odd key\"]","equals":true}"#,
            ]
        );
    }
}
