//! Checks of one step's outcome (mcp-test-language-1.md §4.5 with the fixes of
//! architecture.md): status, error expectations and the JSON assertions.

use mcpr_compiler::ir::{Assertion, ErrorExpectation, JsonType};
use serde_json::{Map, Value};

use crate::codes::RunCode;
use crate::compare::{Mismatch, contains, deep_equal, show};
use crate::values::lookup;

/// Items of an array a length mismatch shows.
const ITEMS_SHOWN: usize = 3;

/// A value whose length was wrong: an array as its first few items (each shortened) and how
/// many more there are, not the whole array; anything else as [`show`].
fn show_items(v: &Value) -> String {
    let Value::Array(items) = v else {
        return show(v);
    };
    if items.len() <= ITEMS_SHOWN && v.to_string().len() <= 100 {
        return v.to_string();
    }
    let first: Vec<String> = items
        .iter()
        .take(ITEMS_SHOWN)
        .map(|i| crate::error::shorten(&i.to_string(), 100))
        .collect();
    let more = items.len().saturating_sub(ITEMS_SHOWN);
    if more == 0 {
        format!("[{}]", first.join(", "))
    } else {
        format!("[{}, … and {more} more]", first.join(", "))
    }
}

fn show_opt(v: Option<&Value>) -> String {
    v.map_or_else(|| "(absent)".to_string(), show)
}

fn kind(v: &Value) -> JsonType {
    match v {
        Value::Null => JsonType::Null,
        Value::Bool(_) => JsonType::Boolean,
        Value::Number(_) => JsonType::Number,
        Value::String(_) => JsonType::String,
        Value::Array(_) => JsonType::Array,
        Value::Object(_) => JsonType::Object,
    }
}

fn kind_name(k: JsonType) -> &'static str {
    match k {
        JsonType::Array => "array",
        JsonType::Null => "null",
        JsonType::Object => "object",
        JsonType::String => "string",
        JsonType::Number => "number",
        JsonType::Boolean => "boolean",
    }
}

/// Checks one assertion (already interpolated) against a result. The first check that
/// fails is reported; when the path is absent, what does exist at the deepest level the path
/// reaches is said with it.
pub fn check_assertion(result: &Value, a: &Assertion) -> Result<(), Mismatch> {
    check_one(result, a).map_err(|mut m| {
        if m.actual.as_deref() == Some("(absent)") {
            let path = a.path.as_deref().unwrap_or("$");
            if let Some(found) = deepest_present(result, path) {
                m.actual = Some(format!("(absent; {found})"));
            }
        }
        m
    })
}

/// What is at the deepest prefix of `path` present in `result`: the keys of an object,
/// the length of a list, the type of anything else.
fn deepest_present(result: &Value, path: &str) -> Option<String> {
    let cuts: Vec<usize> = path
        .char_indices()
        .filter(|&(i, c)| i > 0 && (c == '.' || c == '['))
        .map(|(i, _)| i)
        .collect();
    for &cut in cuts.iter().rev() {
        let prefix = &path[..cut];
        if let Ok(Some(v)) = lookup(result, prefix) {
            let what = match v {
                Value::Object(m) if m.is_empty() => "an empty object".to_string(),
                Value::Object(m) => {
                    let keys: Vec<String> = m.keys().take(20).map(|k| format!("`{k}`")).collect();
                    let more = m.len().saturating_sub(20);
                    let tail = if more > 0 {
                        format!(" and {more} more")
                    } else {
                        String::new()
                    };
                    format!("its keys are {}{tail}", keys.join(", "))
                }
                Value::Array(items) => format!("a list of {} items", items.len()),
                other => format!("a {}", kind_name(kind(other))),
            };
            return Some(format!("{prefix} is there: {what}"));
        }
    }
    None
}

/// Checks one JSON assertion against a step's result: each family of its members in turn,
/// the first mismatch ending the check.
fn check_one(result: &Value, a: &Assertion) -> Result<(), Mismatch> {
    let path = a.path.as_deref().unwrap_or("$");
    let value = lookup(result, path).map_err(|e| Mismatch::new(e, None, None))?;
    // What a mismatch says of the place it checked: `PATH WHAT`.
    let at = |what: &str| format!("{path} {what}");
    check_presence(a, value, &at)?;
    check_equality(a, value, &at)?;
    check_kind(a, value, &at)?;
    check_length(a, value, &at)?;
    check_containment(a, value, &at)?;
    check_pattern(a, value, &at)?;
    check_bounds(a, value, &at)?;
    check_length_range(a, value, &at)?;
    if let Some(schema) = &a.schema {
        check_schema(path, value, schema)?;
    }
    // `snapshot` needs the store; the step runner checks it (crate::snapshot).
    Ok(())
}

/// The length of a string (in characters), an array or an object.
fn length_of(value: Option<&Value>) -> Option<u64> {
    match value {
        Some(Value::String(s)) => Some(s.chars().count() as u64),
        Some(Value::Array(items)) => Some(items.len() as u64),
        Some(Value::Object(members)) => Some(members.len() as u64),
        _ => None,
    }
}

/// `exists`: the value is there, or (false) is not.
fn check_presence(
    a: &Assertion,
    value: Option<&Value>,
    at: &dyn Fn(&str) -> String,
) -> Result<(), Mismatch> {
    if let Some(want) = a.exists {
        if want && value.is_none() {
            return Err(Mismatch::new(
                at("does not exist"),
                Some("present".into()),
                Some("(absent)".into()),
            ));
        }
        if !want && let Some(v) = value {
            return Err(Mismatch::new(
                at("exists but should not"),
                Some("(absent)".into()),
                Some(show(v)),
            )
            .values(None, Some(v)));
        }
    }
    Ok(())
}

/// `equals` and `notEquals`.
fn check_equality(
    a: &Assertion,
    value: Option<&Value>,
    at: &dyn Fn(&str) -> String,
) -> Result<(), Mismatch> {
    if let Some(expected) = &a.equals
        && !value.is_some_and(|v| deep_equal(v, expected))
    {
        return Err(Mismatch::new(
            at("is not equal to the expected value"),
            Some(show(expected)),
            Some(show_opt(value)),
        )
        .values(Some(expected), value));
    }
    if let Some(unwanted) = &a.not_equals
        && value.is_some_and(|v| deep_equal(v, unwanted))
    {
        return Err(Mismatch::new(
            at("equals a value it must not equal"),
            Some(format!("anything but {}", show(unwanted))),
            Some(show_opt(value)),
        )
        .values(None, value));
    }
    Ok(())
}

/// `type`: the JSON type of the value.
fn check_kind(
    a: &Assertion,
    value: Option<&Value>,
    at: &dyn Fn(&str) -> String,
) -> Result<(), Mismatch> {
    if let Some(want) = a.kind {
        let got = value.map(kind);
        if got != Some(want) {
            return Err(Mismatch::new(
                at(&format!("is not of type {}", kind_name(want))),
                Some(kind_name(want).into()),
                Some(match value {
                    Some(v) => format!("{} {}", kind_name(kind(v)), show(v)),
                    None => "(absent)".into(),
                }),
            )
            .values(None, value));
        }
    }
    Ok(())
}

/// `length`: the exact length of a string, array or object.
fn check_length(
    a: &Assertion,
    value: Option<&Value>,
    at: &dyn Fn(&str) -> String,
) -> Result<(), Mismatch> {
    if let Some(n) = a.length {
        let got = length_of(value);
        if got != Some(n) {
            return Err(Mismatch::new(
                at(&format!("does not have length {n}")),
                Some(format!("length {n}")),
                Some(match (got, value) {
                    (Some(g), Some(v)) => format!("length {g}: {}", show_items(v)),
                    (_, v) => format!("no length (not a string, array or object): {}", show_opt(v)),
                }),
            )
            .values(None, value));
        }
    }
    Ok(())
}

/// `contains` and `notContains`.
fn check_containment(
    a: &Assertion,
    value: Option<&Value>,
    at: &dyn Fn(&str) -> String,
) -> Result<(), Mismatch> {
    if let Some(expected) = &a.contains
        && !value.is_some_and(|v| contains(v, expected))
    {
        return Err(Mismatch::new(
            at("does not contain the expected value"),
            Some(format!("contains {}", show(expected))),
            Some(show_opt(value)),
        )
        .values(Some(expected), value));
    }
    if let Some(unwanted) = &a.not_contains
        && value.is_some_and(|v| contains(v, unwanted))
    {
        return Err(Mismatch::new(
            at("contains a value it must not contain"),
            Some(format!("does not contain {}", show(unwanted))),
            Some(show_opt(value)),
        )
        .values(None, value));
    }
    Ok(())
}

/// `matches`: a string the regular expression matches.
fn check_pattern(
    a: &Assertion,
    value: Option<&Value>,
    at: &dyn Fn(&str) -> String,
) -> Result<(), Mismatch> {
    if let Some(pattern) = &a.matches {
        let re = mcpr_compiler::regexp::compile(pattern).map_err(|e| {
            Mismatch::new(
                format!("invalid regular expression {pattern:?}: {e}"),
                None,
                None,
            )
        })?;
        let found = match value {
            Some(Value::String(s)) => {
                super::pattern::is_match(&re, s).map_err(|u| unfinished(pattern, u))?
            }
            _ => false,
        };
        match value {
            Some(Value::String(_)) if found => {}
            other => {
                return Err(Mismatch::new(
                    at(&format!("does not match /{pattern}/")),
                    Some(format!("a string matching /{pattern}/")),
                    Some(show_opt(other)),
                )
                .values(None, other));
            }
        }
    }
    Ok(())
}

/// `greaterThan`, `atLeast`, `lessThan` and `atMost`: numeric bounds, a number held in a
/// string counting as one.
fn check_bounds(
    a: &Assertion,
    value: Option<&Value>,
    at: &dyn Fn(&str) -> String,
) -> Result<(), Mismatch> {
    // Numeric bounds: (bound, member, words, holds).
    let bounds: [(&Option<Value>, &str, &str, Holds); 4] = [
        (&a.greater_than, "greaterThan", "greater than", |n, l| n > l),
        (&a.at_least, "atLeast", "at least", |n, l| n >= l),
        (&a.less_than, "lessThan", "less than", |n, l| n < l),
        (&a.at_most, "atMost", "at most", |n, l| n <= l),
    ];
    for (bound, member, words, holds) in bounds {
        let Some(than) = bound else { continue };
        let Some(limit) = as_number(than) else {
            return Err(Mismatch::new(
                format!("the {member} bound {} is not a number", show(than)),
                Some("a number".into()),
                Some(show(than)),
            ));
        };
        match value.and_then(as_number) {
            Some(n) if holds(n, limit) => {}
            Some(_) => {
                return Err(Mismatch::new(
                    at(&format!("is not {words} {}", show(than))),
                    Some(format!("{words} {}", show(than))),
                    Some(show_opt(value)),
                )
                .values(None, value));
            }
            None => {
                return Err(Mismatch::new(
                    at("is not a number"),
                    Some(format!("a number {words} {}", show(than))),
                    Some(show_opt(value)),
                )
                .values(None, value));
            }
        }
    }
    Ok(())
}

/// `minLength` and `maxLength`: the length of a string, array or object within a range.
fn check_length_range(
    a: &Assertion,
    value: Option<&Value>,
    at: &dyn Fn(&str) -> String,
) -> Result<(), Mismatch> {
    if a.min_length.is_some() || a.max_length.is_some() {
        let got = length_of(value);
        let min = a.min_length.unwrap_or(0);
        let max = a.max_length.unwrap_or(u64::MAX);
        let range = match a.max_length {
            Some(m) => format!("{min}…{m}"),
            None => format!("at least {min}"),
        };
        match got {
            Some(g) if g >= min && g <= max => {}
            Some(g) => {
                return Err(Mismatch::new(
                    at(&format!("has length {g}, not {range}")),
                    Some(format!("length {range}")),
                    Some(format!(
                        "length {g}: {}",
                        value.map_or_else(|| "(absent)".to_string(), show_items)
                    )),
                )
                .values(None, value));
            }
            None => {
                return Err(Mismatch::new(
                    at("has no length (not a string, array or object)"),
                    Some(format!("length {range}")),
                    Some(show_opt(value)),
                )
                .values(None, value));
            }
        }
    }
    Ok(())
}

/// A number, or a string holding a decimal number (surrounding spaces ignored).
/// Whether a number stands in a bound's relation to the limit.
type Holds = fn(f64, f64) -> bool;

/// A `matches` that did not finish within the step's deadline (`MCP-ASSERT-002`).
fn unfinished(pattern: &str, u: super::pattern::Unfinished) -> Mismatch {
    let mut m = Mismatch::new(
        format!("the pattern /{pattern}/ {}", u.why),
        Some(format!("a string matching /{pattern}/")),
        None,
    );
    m.code = RunCode::PatternTimeout;
    m
}

fn as_number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok().filter(|f| f.is_finite()),
        _ => None,
    }
}

fn check_schema(
    path: &str,
    value: Option<&Value>,
    schema: &Map<String, Value>,
) -> Result<(), Mismatch> {
    let schema = Value::Object(schema.clone());
    let validator = jsonschema::validator_for(&schema).map_err(|e| {
        Mismatch::new(
            format!("the schema for {path} is not a valid JSON Schema: {e}"),
            None,
            None,
        )
        .code(RunCode::InvalidSchema)
    })?;
    let Some(v) = value else {
        return Err(Mismatch::new(
            format!("{path} does not exist, so it cannot match the schema"),
            Some(show(&schema)),
            Some("(absent)".into()),
        )
        .code(RunCode::SchemaMismatch)
        .values(Some(&schema), None));
    };
    let errors: Vec<String> = validator
        .iter_errors(v)
        .take(5)
        .map(|e| {
            let at = e.instance_path().to_string();
            if at.is_empty() {
                e.to_string()
            } else {
                format!("at {at}: {e}")
            }
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Mismatch::new(
            format!("{path} does not match the schema: {}", errors.join("; ")),
            Some(show(&schema)),
            Some(show(v)),
        )
        .code(RunCode::SchemaMismatch)
        .values(Some(&schema), Some(v)))
    }
}

/// What an MCP error looks like to the error expectations.
#[derive(Debug, Clone)]
pub struct McpError {
    /// The JSON-RPC code (`None` for an `isError` tool result).
    pub code: Option<i64>,
    /// The message (for `isError`, the text content).
    pub message: String,
}

/// Checks `error.code`, `error.message` (exact) and `error.matches` (regex search).
pub fn check_error(err: &McpError, want: &ErrorExpectation) -> Result<(), Mismatch> {
    if let Some(code) = want.code
        && err.code != Some(code)
    {
        return Err(Mismatch::new(
            "the error code is not the expected one",
            Some(format!("error code {code}")),
            Some(match err.code {
                Some(c) => format!("error code {c}: {}", err.message),
                None => format!("a tool result with isError (no code): {}", err.message),
            }),
        ));
    }
    if let Some(message) = &want.message
        && &err.message != message
    {
        return Err(Mismatch::new(
            "the error message is not the expected one",
            Some(format!("{message:?}")),
            Some(format!("{:?}", err.message)),
        )
        .values(
            Some(&Value::String(message.clone())),
            Some(&Value::String(err.message.clone())),
        ));
    }
    if let Some(pattern) = &want.matches {
        let re = mcpr_compiler::regexp::compile(pattern).map_err(|e| {
            Mismatch::new(
                format!("invalid regular expression {pattern:?}: {e}"),
                None,
                None,
            )
        })?;
        if !super::pattern::is_match(&re, &err.message).map_err(|u| unfinished(pattern, u))? {
            return Err(Mismatch::new(
                format!("the error message does not match /{pattern}/"),
                Some(format!("a message matching /{pattern}/")),
                Some(format!("{:?}", err.message)),
            )
            .values(None, Some(&Value::String(err.message.clone()))));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_length_mismatch_shows_the_count_and_the_first_items() {
        let long: Vec<Value> = (0..500)
            .map(|i| json!({"name": format!("tool-{i}"), "description": "x".repeat(50)}))
            .collect();
        let r = json!({"tools": long});
        let a: Assertion =
            serde_json::from_value(json!({"path": "$.tools", "length": 14})).unwrap();
        let m = check_assertion(&r, &a).unwrap_err();
        let actual = m.actual.unwrap();
        assert!(actual.starts_with("length 500: [{"), "{actual}");
        assert!(actual.ends_with(", … and 497 more]"), "{actual}");
        assert!(actual.len() < 400, "{} bytes: {actual}", actual.len());
        let short = json!({"l": [1, 2]});
        let a: Assertion = serde_json::from_value(json!({"path": "$.l", "length": 3})).unwrap();
        let m = check_assertion(&short, &a).unwrap_err();
        assert_eq!(m.actual.as_deref(), Some("length 2: [1,2]"));
    }

    use super::*;
    use serde_json::json;

    fn a(v: Value) -> Assertion {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn every_check_passes_and_fails() {
        let r = json!({"s": "hello world", "n": 2, "l": [1, {"a": 1, "b": 2}], "o": {"x": {"y": 1, "z": 2}}, "nil": null});
        let ok = |v| check_assertion(&r, &a(v)).is_ok();
        assert!(ok(json!({"path": "$.n", "equals": 2})));
        assert!(ok(json!({"path": "$.n", "equals": 2.0})));
        assert!(!ok(json!({"path": "$.n", "equals": "2"})));
        assert!(ok(json!({"path": "$.n", "notEquals": "2"})));
        assert!(!ok(json!({"path": "$.n", "notEquals": 2})));
        assert!(ok(json!({"path": "$.nil", "exists": true})));
        assert!(ok(json!({"path": "$.n", "greaterThan": 1})));
        assert!(ok(json!({"path": "$.n", "greaterThan": "1.5"})));
        assert!(!ok(json!({"path": "$.n", "greaterThan": 2})));
        assert!(!ok(json!({"path": "$.s", "greaterThan": 0})));
        assert!(!ok(json!({"path": "$.n", "greaterThan": "x"})));
        assert!(ok(json!({"path": "$.s", "minLength": 11, "maxLength": 11})));
        assert!(!ok(json!({"path": "$.s", "maxLength": 10})));
        assert!(!ok(json!({"path": "$.l", "minLength": 3})));
        assert!(!ok(json!({"path": "$.n", "minLength": 0})));
        assert!(ok(json!({"path": "$.nil", "equals": null})));
        assert!(!ok(json!({"path": "$.zz", "equals": null})));
        assert!(ok(json!({"path": "$.zz", "exists": false})));
        assert!(!ok(json!({"path": "$.zz", "exists": true})));
        assert!(ok(json!({"path": "$.s", "contains": "lo wo"})));
        assert!(!ok(json!({"path": "$.s", "contains": "bye"})));
        assert!(ok(json!({"path": "$.l", "contains": 1})));
        assert!(ok(json!({"path": "$.l", "contains": {"a": 1}})));
        assert!(!ok(json!({"path": "$.l", "contains": {"a": 2}})));
        assert!(ok(json!({"path": "$.o", "contains": {"x": {"y": 1}}})));
        assert!(!ok(json!({"path": "$.o", "contains": {"x": {"y": 2}}})));
        assert!(ok(json!({"path": "$.s", "notContains": "bye"})));
        assert!(!ok(json!({"path": "$.s", "notContains": "lo wo"})));
        assert!(ok(json!({"path": "$.l", "notContains": {"a": 2}})));
        assert!(!ok(json!({"path": "$.l", "notContains": {"a": 1}})));
        assert!(ok(json!({"path": "$.zz", "notContains": "x"})));
        assert!(ok(json!({"path": "$.l", "length": 2})));
        assert!(ok(json!({"path": "$.s", "length": 11})));
        assert!(!ok(json!({"path": "$.n", "length": 1})));
        assert!(ok(json!({"path": "$.o", "type": "object"})));
        assert!(!ok(json!({"path": "$.n", "type": "string"})));
        assert!(ok(json!({"path": "$.s", "matches": "^hel+o"})));
        // ECMAScript: look-ahead and look-behind work.
        assert!(ok(json!({"path": "$.s", "matches": "hello(?= world)"})));
        assert!(ok(json!({"path": "$.s", "matches": "(?<=hello )world"})));
        assert!(!ok(json!({"path": "$.s", "matches": "(?<!hello )world"})));
        assert!(!ok(json!({"path": "$.n", "matches": "2"})));
        assert!(ok(
            json!({"path": "$.o", "schema": {"type": "object", "required": ["x"]}})
        ));
        assert!(!ok(
            json!({"path": "$.o", "schema": {"type": "object", "required": ["q"]}})
        ));
        // draft-07 when $schema says so: `items` as an array is a tuple there.
        assert!(ok(
            json!({"path": "$.l", "schema": {"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "integer"}]}})
        ));
    }

    #[test]
    fn error_expectations() {
        let e = McpError {
            code: Some(-32602),
            message: "Unknown tool: nope".into(),
        };
        let w = |v: Value| -> ErrorExpectation { serde_json::from_value(v).unwrap() };
        assert!(check_error(&e, &w(json!({"code": -32602}))).is_ok());
        assert!(check_error(&e, &w(json!({"code": -32601}))).is_err());
        assert!(check_error(&e, &w(json!({"message": "Unknown tool: nope"}))).is_ok());
        assert!(check_error(&e, &w(json!({"message": "Unknown"}))).is_err());
        assert!(check_error(&e, &w(json!({"matches": "tool: n"}))).is_ok());
        assert!(check_error(&e, &w(json!({"matches": "^tool"}))).is_err());
    }
}

#[cfg(test)]
mod bounds {
    use super::*;
    use serde_json::json;

    fn check(value: Value, assertion: Value) -> Result<(), String> {
        let a: Assertion = serde_json::from_value(assertion).unwrap();
        check_assertion(&json!({ "v": value }), &a).map_err(|m| m.message)
    }

    #[test]
    fn numeric_bounds_hold_or_say_which_failed() {
        for (value, bound, holds) in [
            (json!(5), json!({"greaterThan": 4}), true),
            (json!(5), json!({"greaterThan": 5}), false),
            (json!(5), json!({"atLeast": 5}), true),
            (json!(4.5), json!({"atLeast": 5}), false),
            (json!("3"), json!({"lessThan": 4}), true),
            (json!(4), json!({"lessThan": 4}), false),
            (json!(4), json!({"atMost": 4}), true),
            (json!(4), json!({"atMost": 3.5}), false),
            (json!(7), json!({"atLeast": 1, "atMost": 10}), true),
            (json!(11), json!({"atLeast": 1, "atMost": 10}), false),
        ] {
            let mut a = bound.as_object().unwrap().clone();
            a.insert("path".into(), json!("$.v"));
            let got = check(value.clone(), Value::Object(a));
            assert_eq!(got.is_ok(), holds, "{value} {bound}: {got:?}");
        }
        let e = check(json!(11), json!({"path": "$.v", "atMost": 10})).unwrap_err();
        assert!(e.contains("is not at most 10"), "{e}");
        let e = check(json!("n/a"), json!({"path": "$.v", "lessThan": 3})).unwrap_err();
        assert!(e.contains("is not a number"), "{e}");
        let e = check(json!(1), json!({"path": "$.v", "atLeast": "x"})).unwrap_err();
        assert!(e.contains("the atLeast bound \"x\" is not a number"), "{e}");
    }

    #[test]
    fn an_object_has_as_many_items_as_members() {
        assert!(check(json!({}), json!({"path": "$.v", "length": 0})).is_ok());
        assert!(check(json!({"a": 1}), json!({"path": "$.v", "minLength": 1})).is_ok());
        assert!(check(json!({}), json!({"path": "$.v", "minLength": 1})).is_err());
        assert!(check(json!(3), json!({"path": "$.v", "length": 0})).is_err());
    }
}
