//! The closed sets of text values the IR holds as plain strings (because a `configure-client`
//! string may be a template): elicitation actions, log levels, task statuses. Every front end
//! checks them from here — the `.mcpr` phrases, the mcp-tester commands, and YAML/JSON suites
//! through [`closed_values`] — so the sets cannot drift apart.

use super::{ClientBehavior, ElicitationAnswer, NativeStep, StepKind, Suite, Test};
use serde_json::Value;

/// The answers to an elicitation request.
pub const ELICITATION_ACTIONS: &[&str] = &["accept", "decline", "cancel"];

/// The log levels of `logging/setLevel` (RFC 5424 severities, as MCP names them).
pub const LOG_LEVELS: &[&str] = &[
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// The statuses a task can have.
pub const TASK_STATUSES: &[&str] = &[
    "working",
    "input_required",
    "completed",
    "failed",
    "cancelled",
];

/// A value outside its closed set: where it is in the suite document, what it is, the value,
/// and the set.
#[derive(Debug, Clone, PartialEq)]
pub struct OutsideSet {
    /// Path in the suite document (`tests`, `0`, `steps`, `1`, `native`, `level`).
    pub path: Vec<String>,
    /// What the value is, for messages ("the log level").
    pub what: &'static str,
    /// The value as written.
    pub found: String,
    /// The allowed values.
    pub valid: &'static [&'static str],
}

/// Every value of `suite` that a closed set above governs and that is not in it. A value
/// holding a template (`${…}`) is left to the run.
pub fn closed_values(suite: &Suite) -> Vec<OutsideSet> {
    let mut out = suite_values(suite);
    for (i, t) in suite.tests.iter().enumerate() {
        test_values(t, i, &mut out);
    }
    out
}

/// [`closed_values`] of the suite's own settings, its tests left out.
pub fn suite_values(suite: &Suite) -> Vec<OutsideSet> {
    let mut out = Vec::new();
    if let Some(c) = &suite.client {
        behavior(c, &mut vec!["client".into()], &mut out);
    }
    out
}

/// [`closed_values`] of the test at index `i` alone.
pub fn test_values(t: &Test, i: usize, out: &mut Vec<OutsideSet>) {
    for (j, s) in t.steps.iter().enumerate() {
        let StepKind::Native(n) = &s.kind else {
            continue;
        };
        let mut at: Vec<String> = vec![
            "tests".into(),
            i.to_string(),
            "steps".into(),
            j.to_string(),
            "native".into(),
        ];
        match n.as_ref() {
            NativeStep::SetLogLevel(a) => {
                if let Some(level) = &a.level {
                    at.push("level".into());
                    check(at, "the log level", level, LOG_LEVELS, out);
                }
            }
            NativeStep::ConfigureClient(a) => {
                if let Some(b) = &a.behavior {
                    at.push("behavior".into());
                    behavior(b, &mut at, out);
                }
            }
            NativeStep::QueueAnswer(a) if a.method.as_deref() == Some("elicitation/create") => {
                if let Some(Value::String(action)) = a.params.as_ref().and_then(|p| p.get("action"))
                {
                    at.extend(["params".into(), "action".into()]);
                    check(
                        at,
                        "the elicitation action",
                        action,
                        ELICITATION_ACTIONS,
                        out,
                    );
                }
            }
            _ => {}
        }
    }
}

/// The closed values of a client behaviour at `at`.
fn behavior(b: &ClientBehavior, at: &mut Vec<String>, out: &mut Vec<OutsideSet>) {
    at.push("elicitation".into());
    match &b.elicitation {
        Some(ElicitationAnswer::Action(a)) => {
            check(
                at.clone(),
                "the elicitation action",
                a,
                ELICITATION_ACTIONS,
                out,
            );
        }
        Some(ElicitationAnswer::Scripted(e)) => {
            if let Some(a) = &e.action {
                at.push("action".into());
                check(
                    at.clone(),
                    "the elicitation action",
                    a,
                    ELICITATION_ACTIONS,
                    out,
                );
                at.pop();
            }
        }
        None => {}
    }
    at.pop();
}

fn check(
    path: Vec<String>,
    what: &'static str,
    found: &str,
    valid: &'static [&'static str],
    out: &mut Vec<OutsideSet>,
) {
    if !found.contains("${") && !valid.contains(&found) {
        out.push(OutsideSet {
            path,
            what,
            found: found.to_string(),
            valid,
        });
    }
}
