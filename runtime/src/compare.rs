//! Comparing JSON values the way checks compare them, and what a check that did not hold
//! says: type-sensitive deep equality, `contains`, the [`Mismatch`] a failed check gives and
//! the value as a report shows it. A leaf: step assertions (`exec::assert`), stored
//! snapshots (`snapshot`) and tool snapshots (`toolsnap`) all compare through it.

use serde_json::Value;

use crate::codes::RunCode;

/// An expectation that did not hold.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    /// Stable code (`MCP-ASSERT-001`, `MCP-SCHEMA-001`, …).
    pub code: RunCode,
    /// One sentence saying what did not hold.
    pub message: String,
    /// What was expected, as text.
    pub expected: Option<String>,
    /// What came back, as text.
    pub actual: Option<String>,
    /// The value the check compared with, when it names one (reports show it as JSON).
    pub expected_value: Option<Box<Value>>,
    /// The value that came back, when there was one.
    pub actual_value: Option<Box<Value>>,
}

impl Mismatch {
    /// A mismatch with its message and texts, as an `MCP-ASSERT-001`.
    pub fn new(
        message: impl Into<String>,
        expected: Option<String>,
        actual: Option<String>,
    ) -> Self {
        Mismatch {
            code: RunCode::Assertion,
            message: message.into(),
            expected,
            actual,
            expected_value: None,
            actual_value: None,
        }
    }

    /// The same mismatch with another code.
    pub fn code(mut self, code: RunCode) -> Self {
        self.code = code;
        self
    }

    /// The same mismatch with the value compared with and the value found, as JSON.
    pub fn values(mut self, expected: Option<&Value>, actual: Option<&Value>) -> Self {
        self.expected_value = expected.cloned().map(Box::new);
        self.actual_value = actual.cloned().map(Box::new);
        self
    }
}

/// Most characters of one value shown in a failure.
const SHOW_LIMIT: usize = 4000;

/// JSON text for a report: compact when short, pretty otherwise, shortened when huge.
pub fn show(v: &Value) -> String {
    let compact = v.to_string();
    if compact.len() <= 100 {
        compact
    } else {
        let pretty = serde_json::to_string_pretty(v).unwrap_or(compact);
        crate::error::shorten(&pretty, SHOW_LIMIT)
    }
}

/// Type-sensitive deep equality: `2` ≠ `"2"`, `1` = `1.0`, object key order ignored.
pub fn deep_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(i), Some(j)) => i == j,
            _ => match (x.as_u64(), y.as_u64()) {
                (Some(i), Some(j)) => i == j,
                _ => x.as_f64() == y.as_f64(),
            },
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| deep_equal(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| deep_equal(v, w)))
        }
        _ => a == b,
    }
}

/// `contains`: substring of a string, an element of an array (equal, or a superset of an
/// expected object), or a recursive subset of an object.
pub fn contains(actual: &Value, expected: &Value) -> bool {
    match (actual, expected) {
        (Value::String(a), Value::String(e)) => a.contains(e.as_str()),
        (Value::Array(items), e) => items.iter().any(|item| {
            deep_equal(item, e) || (item.is_object() && e.is_object() && subset(item, e))
        }),
        (Value::Object(_), Value::Object(_)) => subset(actual, expected),
        _ => false,
    }
}

fn subset(actual: &Value, expected: &Value) -> bool {
    match (actual, expected) {
        (Value::Object(a), Value::Object(e)) => e
            .iter()
            .all(|(k, ev)| a.get(k).is_some_and(|av| subset(av, ev))),
        _ => deep_equal(actual, expected),
    }
}
