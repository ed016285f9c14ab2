//! Typed coercion of columns (`columns`): `string`, `number`, `boolean`, `date`, `json`,
//! with `required` and `enum` (mcp-test-language-1.md §4.9), and the shared scalar rules
//! for cells that arrive as text (CSV, Google Sheets).

use mcpr_compiler::ir::{Column, ColumnType};
use serde_json::{Number, Value};

use super::date;

/// What went wrong with one cell.
#[derive(Debug, Clone, PartialEq)]
pub enum CellProblem {
    /// `required` and the value is absent, `null` or `""` (`MCP-DATA-020`).
    Missing,
    /// The value cannot be read as the column's type (`MCP-DATA-021`).
    NotA(ColumnType),
    /// The converted value is none of the allowed values (`MCP-DATA-022`).
    NotAllowed(Vec<Value>),
}

/// A JSON number from a double: integral values within ±2⁵³ become integers, as JavaScript
/// has one number type and prints `1.0` as `1`. `None` for NaN and infinities.
pub fn js_number(x: f64) -> Option<Value> {
    if !x.is_finite() {
        return None;
    }
    if x.fract() == 0.0 && x.abs() <= 9_007_199_254_740_992.0 {
        return Some(Value::from(x as i64));
    }
    Number::from_f64(x).map(Value::Number)
}

/// Text of a CSV cell as a value: `true`, `false`, `null` exactly; decimal numbers without
/// leading zeros (`-?(0|[1-9]\d*)(\.\d+)?`); anything else stays text.
pub fn infer_scalar(text: &str) -> Value {
    match text {
        "true" => return Value::Bool(true),
        "false" => return Value::Bool(false),
        "null" => return Value::Null,
        _ => {}
    }
    if is_plain_decimal(text) {
        if !text.contains('.')
            && let Ok(i) = text.parse::<i64>()
        {
            return Value::from(i);
        }
        if let Some(v) = text.parse::<f64>().ok().and_then(js_number) {
            return v;
        }
    }
    Value::String(text.to_string())
}

fn is_plain_decimal(t: &str) -> bool {
    let b = t.strip_prefix('-').unwrap_or(t).as_bytes();
    let int_end = b
        .iter()
        .position(|c| !c.is_ascii_digit())
        .unwrap_or(b.len());
    if int_end == 0 || (int_end > 1 && b[0] == b'0') {
        return false;
    }
    match &b[int_end..] {
        [] => true,
        [b'.', frac @ ..] => !frac.is_empty() && frac.iter().all(u8::is_ascii_digit),
        _ => false,
    }
}

/// Whether a value counts as missing: absent, `null` or the empty string.
pub fn is_missing(v: Option<&Value>) -> bool {
    matches!(v, None | Some(Value::Null)) || v.and_then(Value::as_str) == Some("")
}

/// A value as text the way JavaScript's `String(v)` would (objects as JSON).
pub fn as_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => super::fingerprint::js_number_text(n),
        other => serde_json::to_string(other).unwrap_or_default(),
    }
}

/// Converts one present value to a column type.
pub fn convert(v: &Value, kind: ColumnType) -> Option<Value> {
    match kind {
        ColumnType::String => Some(Value::String(as_text(v))),
        ColumnType::Number => match v {
            Value::Number(n) => n.as_f64().and_then(js_number).or(Some(v.clone())),
            Value::String(s) => parse_js_number(s.trim()).and_then(js_number),
            _ => None,
        },
        ColumnType::Boolean => match v {
            Value::Bool(b) => Some(Value::Bool(*b)),
            Value::Number(n) => match n.as_f64() {
                Some(1.0) => Some(Value::Bool(true)),
                Some(0.0) => Some(Value::Bool(false)),
                _ => None,
            },
            Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
                "true" | "yes" | "1" => Some(Value::Bool(true)),
                "false" | "no" | "0" => Some(Value::Bool(false)),
                _ => None,
            },
            _ => None,
        },
        ColumnType::Date => match v {
            Value::Number(n) => n
                .as_f64()
                .and_then(date::date_from_millis)
                .map(Value::String),
            Value::String(s) => date::parse_date_text(s).map(Value::String),
            _ => None,
        },
        ColumnType::Json => match v {
            Value::String(s) => serde_json::from_str(s).ok(),
            other => Some(other.clone()),
        },
    }
}

/// JavaScript's `Number(text)` for trimmed, non-empty text: decimal with optional exponent,
/// `0x`/`0o`/`0b` integers; `None` for anything else or a non-finite result.
pub fn parse_js_number(t: &str) -> Option<f64> {
    if t.is_empty() {
        return None;
    }
    for (prefix, radix) in [
        ("0x", 16),
        ("0X", 16),
        ("0o", 8),
        ("0O", 8),
        ("0b", 2),
        ("0B", 2),
    ] {
        if let Some(rest) = t.strip_prefix(prefix) {
            return u64::from_str_radix(rest, radix).ok().map(|n| n as f64);
        }
    }
    let body = t.strip_prefix(['-', '+']).unwrap_or(t);
    let ok = !body.is_empty()
        && body
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'-' | b'+'))
        && body
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_digit() || b == b'.');
    if !ok {
        return None;
    }
    t.parse::<f64>().ok().filter(|x| x.is_finite())
}

/// Applies one column's rules to the value found in a row (`None`: absent). Returns the new
/// value (`None`: leave the row as it is).
pub fn apply(column: &Column, v: Option<&Value>) -> Result<Option<Value>, CellProblem> {
    if is_missing(v) {
        return if column.required == Some(true) {
            Err(CellProblem::Missing)
        } else {
            Ok(None)
        };
    }
    let v = v.expect("present");
    let converted = match column.kind {
        Some(kind) => convert(v, kind).ok_or(CellProblem::NotA(kind))?,
        None => v.clone(),
    };
    if let Some(allowed) = &column.allowed
        && !allowed.iter().any(|a| strict_equal(a, &converted))
    {
        return Err(CellProblem::NotAllowed(allowed.clone()));
    }
    Ok(Some(converted))
}

/// JavaScript's `===` on JSON values: numbers by value, strings and booleans by content,
/// objects and arrays never equal (they are different objects), `null` equals `null`.
pub fn strict_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Null, Value::Null) => true,
        _ => false,
    }
}

/// A short description of a type for messages.
pub fn type_word(kind: ColumnType) -> &'static str {
    match kind {
        ColumnType::String => "text",
        ColumnType::Number => "a number",
        ColumnType::Boolean => "a boolean (true/yes/1 or false/no/0)",
        ColumnType::Date => "a date",
        ColumnType::Json => "JSON text",
    }
}

/// A value shown in a message: text in quotes, everything else as JSON, long values cut.
pub fn show_value(v: &Value) -> String {
    let text = match v {
        Value::Number(n) => super::fingerprint::js_number_text(n),
        other => serde_json::to_string(other).unwrap_or_default(),
    };
    if text.chars().count() > 80 {
        let cut: String = text.chars().take(77).collect();
        format!("{cut}…")
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn csv_scalars() {
        assert_eq!(infer_scalar("42"), json!(42));
        assert_eq!(infer_scalar("-0.5"), json!(-0.5));
        assert_eq!(infer_scalar("2.0"), json!(2));
        assert_eq!(infer_scalar("007"), json!("007"));
        assert_eq!(infer_scalar("1e3"), json!("1e3"));
        assert_eq!(infer_scalar("true"), json!(true));
        assert_eq!(infer_scalar("True"), json!("True"));
        assert_eq!(infer_scalar("null"), Value::Null);
        assert_eq!(infer_scalar(""), json!(""));
        assert_eq!(infer_scalar("1."), json!("1."));
    }

    #[test]
    fn conversions() {
        let n = ColumnType::Number;
        assert_eq!(convert(&json!(" 12 "), n), Some(json!(12)));
        assert_eq!(convert(&json!("1e3"), n), Some(json!(1000)));
        assert_eq!(convert(&json!("0x10"), n), Some(json!(16)));
        assert_eq!(convert(&json!("12abc"), n), None);
        assert_eq!(convert(&json!("Infinity"), n), None);
        assert_eq!(convert(&json!(true), n), None);
        let b = ColumnType::Boolean;
        assert_eq!(convert(&json!("YES"), b), Some(json!(true)));
        assert_eq!(convert(&json!(0), b), Some(json!(false)));
        assert_eq!(convert(&json!("maybe"), b), None);
        let s = ColumnType::String;
        assert_eq!(convert(&json!(2.5), s), Some(json!("2.5")));
        assert_eq!(convert(&json!({"a": 1}), s), Some(json!("{\"a\":1}")));
        let j = ColumnType::Json;
        assert_eq!(convert(&json!("[1,2]"), j), Some(json!([1, 2])));
        assert_eq!(convert(&json!("{oops"), j), None);
        let d = ColumnType::Date;
        assert_eq!(
            convert(&json!("2024-03-07"), d),
            Some(json!("2024-03-07T00:00:00.000Z"))
        );
    }

    #[test]
    fn required_and_enum() {
        let col: Column =
            serde_json::from_value(json!({"type": "number", "required": true, "enum": [1, 2]}))
                .unwrap();
        assert_eq!(apply(&col, None), Err(CellProblem::Missing));
        assert_eq!(apply(&col, Some(&json!(""))), Err(CellProblem::Missing));
        assert_eq!(apply(&col, Some(&json!("2"))), Ok(Some(json!(2))));
        assert!(matches!(
            apply(&col, Some(&json!("3"))),
            Err(CellProblem::NotAllowed(_))
        ));
        let optional: Column = serde_json::from_value(json!({"type": "number"})).unwrap();
        assert_eq!(apply(&optional, Some(&Value::Null)), Ok(None));
    }
}
