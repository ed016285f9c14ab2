//! Expectations attached to a step: the `assert` block and its JSON assertions.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::present;

/// The `assert` block of a step.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Assert {
    /// Whether the request must succeed or fail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Status>,
    /// What the error must look like when `status` is `error`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorExpectation>,
    /// Upper bound on the step's duration in milliseconds (1–600000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_duration_ms: Option<u64>,
    /// Checks on the result JSON: one assertion or a list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json: Option<JsonAssertions>,
    /// Where the first `Expect` statement that set `status`, `error` or `max_duration_ms`
    /// is written; a failure of those is reported there (mcpr addition; each JSON
    /// assertion has its own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<super::SourceLocation>,
}

/// Expected outcome of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The request must return a result.
    Success,
    /// The request must return a JSON-RPC error.
    Error,
}
every_variant!(Status: Success, Error);

/// Expectations on a JSON-RPC error.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ErrorExpectation {
    /// Exact JSON-RPC error code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<i64>,
    /// Exact error message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Regular expression searched in the error message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matches: Option<String>,
}

/// The `json` member of an `assert` block, which may be written as one object or a list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum JsonAssertions {
    /// A list of assertions, checked in order (what the `.mcpr` compiler writes).
    List(Vec<Assertion>),
    /// A single assertion object.
    One(Box<Assertion>),
}

impl JsonAssertions {
    /// The assertions in order, whichever way they were written.
    pub fn as_slice(&self) -> &[Assertion] {
        match self {
            Self::List(list) => list,
            Self::One(one) => std::slice::from_ref(one),
        }
    }
}

/// One set of checks on the value found at `path`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Assertion {
    /// Result path such as `$.structuredContent.total` (must start with `$`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The value must deep-equal this (type-sensitive); `null` is a real expectation.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub equals: Option<Value>,
    /// The value must not deep-equal this.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub not_equals: Option<Value>,
    /// The value must be present (`true`) or absent (`false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exists: Option<bool>,
    /// The JSON kind the value must have.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<JsonType>,
    /// Substring, element or subset the value must contain.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub contains: Option<Value>,
    /// Substring, element or subset the value must not contain (the negation of
    /// `contains`; mcpr addition).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub not_contains: Option<Value>,
    /// Length of a string or array.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length: Option<u64>,
    /// Regular expression the (string) value must match somewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matches: Option<String>,
    /// JSON Schema the value must satisfy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<Map<String, Value>>,
    /// Named snapshot the value is compared with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<SnapshotAssertion>,
    /// The value, as a number (a number, or a string holding one), must be greater than this
    /// (a number or a template giving one) (mcpr addition).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub greater_than: Option<Value>,
    /// The value, as a number, must be less than this (mcpr addition).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub less_than: Option<Value>,
    /// The value, as a number, must be at least this (mcpr addition).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub at_least: Option<Value>,
    /// The value, as a number, must be at most this (mcpr addition).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub at_most: Option<Value>,
    /// Least length of a string (in characters) or array (mcpr addition).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u64>,
    /// Greatest length of a string (in characters) or array (mcpr addition).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    /// Position of the `Expect` statement that produced the assertion, where a failure of it
    /// is reported (mcpr addition; the step's own `source` is the action's line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<super::SourceLocation>,
}

/// The JSON kinds an assertion's `type` can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JsonType {
    /// A JSON array.
    Array,
    /// JSON `null`.
    Null,
    /// A JSON object.
    Object,
    /// A JSON string.
    String,
    /// A JSON number.
    Number,
    /// `true` or `false`.
    Boolean,
}
every_variant!(JsonType: Array, Null, Object, String, Number, Boolean);

/// A snapshot comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SnapshotAssertion {
    /// Snapshot name; the stored key is `TESTID.NAME`.
    pub name: String,
    /// Paths (starting with `$`) removed before comparing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignore: Option<Vec<String>>,
}
