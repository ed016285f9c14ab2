//! Tests: identity, requirements, dependencies, variables, iteration and steps.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::data::ForEach;
use super::step::Step;

/// One test: its own session running its steps in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Test {
    /// Display name; unique within the suite.
    pub name: String,
    /// The steps, at least one, in the order they run.
    pub steps: Vec<Step>,
    /// Stable id used by `dependsOn`, outputs and snapshots (slug of the name when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Skip the test: `true`, or the reason as text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip: Option<Skip>,
    /// Named server (from the suite's `servers`) the test runs against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// Ids of tests that must pass first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depends_on: Option<Vec<String>>,
    /// What the server must offer for the test to run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires: Option<Requirements>,
    /// Name as written by the user, before row suffixes (grouping of data rows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logical_name: Option<String>,
    /// Initial variables of the test (values are templates).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variables: Option<Map<String, Value>>,
    /// Details of the data row an expanded test was made from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Map<String, Value>>,
    /// Rows to run the test for, one instance each (mcpr addition).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub for_each: Option<ForEach>,
    /// A failing step does not stop the test: later steps still run and the test fails if
    /// any step failed. A broken session or an unresolvable variable still stops it (mcpr
    /// addition).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continue_on_failure: Option<bool>,
    /// The test opens a session of its own even when the suite shares sessions (mcpr
    /// addition).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isolated: Option<bool>,
    /// How many times a failed or errored test is run again, each time in a new session; a
    /// test that passes on a retry is `flaky` (mcpr addition; 0–100). Absent: the run's
    /// `--retries`, else the suite's `defaults.retries`, else 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retries: Option<u32>,
}

impl Test {
    /// A test named `name` running `steps`, with every other setting left out.
    pub fn new(name: impl Into<String>, steps: Vec<Step>) -> Self {
        Self {
            name: name.into(),
            steps,
            id: None,
            skip: None,
            server: None,
            depends_on: None,
            requires: None,
            logical_name: None,
            variables: None,
            data: None,
            for_each: None,
            continue_on_failure: None,
            isolated: None,
            retries: None,
        }
    }
}

/// The `skip` setting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Skip {
    /// `skip: true` or `skip: false`.
    Flag(bool),
    /// `skip: "reason"`.
    Reason(String),
}

/// Requirements checked after connecting; unmet ones skip the test.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Requirements {
    /// Dotted paths that must exist in the server's capabilities, e.g. `resources.subscribe`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<Vec<String>>,
    /// Protocol versions one of which must have been negotiated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol_versions: Option<Vec<String>>,
}
