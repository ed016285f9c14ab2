//! How a failed check of an mcp-tester script (`.mcp`) is worded: as mcp-tester words it
//! (`assertion failed: string length 5 is not between 20 and 30`), never with the IR paths
//! the checks are lowered to, so a script that matches the message under `expect_error`
//! reads the same text it read with its first implementation.

use mcpr_compiler::ir::{Assertion, Step};
use serde_json::Value;

use crate::values::as_text;

/// Whether `step` was written in an mcp-tester script (its source file ends in `.mcp`).
pub(super) fn is_script_step(step: &Step) -> bool {
    step.source.as_ref().is_some_and(|s| {
        let f = s.file.as_bytes();
        f.len() >= 4 && f[f.len() - 4..].eq_ignore_ascii_case(b".mcp")
    })
}

/// The failure of a `wait_notification` that saw nothing, as mcp-tester words it:
/// `assertion failed: no METHOD [for URI] within TIMEOUT` (the timeout as Go prints a
/// duration). Under `expect_error` it is what the next `assert_contains` reads.
pub(super) fn no_notification(method: &str, uri: Option<&str>, timeout_ms: u64) -> String {
    let within = go_duration(timeout_ms);
    match uri {
        Some(uri) => format!("assertion failed: no {method} for {uri} within {within}"),
        None => format!("assertion failed: no {method} within {within}"),
    }
}

/// Milliseconds as Go's `time.Duration` prints them: `300ms`, `2s`, `1.5s`, `1m30s`.
fn go_duration(ms: u64) -> String {
    if ms == 0 {
        return "0s".into();
    }
    if ms < 1000 {
        return format!("{ms}ms");
    }
    let seconds = |ms: u64| {
        let text = format!("{}.{:03}", ms / 1000, ms % 1000);
        format!("{}s", text.trim_end_matches('0').trim_end_matches('.'))
    };
    let (h, m) = (ms / 3_600_000, (ms / 60_000) % 60);
    match (h, m) {
        (0, 0) => seconds(ms),
        (0, m) => format!("{m}m{}", seconds(ms % 60_000)),
        (h, m) => format!("{h}h{m}m{}", seconds(ms % 60_000)),
    }
}

/// Text quoted as Go's `%q` quotes it (close enough for the text of checks: JSON escapes).
fn q(text: &str) -> String {
    Value::String(text.to_string()).to_string()
}

/// A number as Go's `%f` prints it: six decimals.
fn f6(v: f64) -> String {
    format!("{v:.6}")
}

/// The message of the failed check `a` over `subject` (the `check` step's value), as
/// mcp-tester words it, `assertion failed: …` included; `None` for a check no script
/// command lowers to.
pub(super) fn failure(a: &Assertion, subject: &Value) -> Option<String> {
    let path = a.path.as_deref().unwrap_or("$");
    let field = |name: &str| subject.get(name).map(as_text).unwrap_or_default();
    let text = |v: &Value| as_text(v);
    let detail = match path {
        "$.textAndRaw" => format!(
            "last response does not contain {}",
            q(&text(a.contains.as_ref()?))
        ),
        "$.text" => format!(
            "expected exactly {}, but got {}",
            q(&text(a.equals.as_ref()?)),
            q(&field("text"))
        ),
        "$.error.code" => {
            let got = subject
                .get("error")
                .and_then(|e| e.get("code"))
                .and_then(Value::as_i64)
                .unwrap_or(0);
            format!(
                "expected error code {}, got {got}",
                text(a.equals.as_ref()?)
            )
        }
        "$.isError" => "last response is not a tool error (isError: true)".to_string(),
        "$.task.status" => {
            let got = subject
                .get("task")
                .and_then(|t| t.get("status"))
                .map(as_text)
                .unwrap_or_else(|| "none".into());
            format!(
                "expected task status {}, got {}",
                q(&text(a.equals.as_ref()?)),
                q(&got)
            )
        }
        "$.elicited" | "$.sampled" => {
            let which = if path == "$.elicited" {
                "last elicitation message"
            } else {
                "last sampling prompt"
            };
            format!(
                "{which} does not contain {}",
                q(&text(a.contains.as_ref()?))
            )
        }
        "$" => {
            let value = text(subject);
            if let Some(c) = &a.contains {
                format!("{} does not contain {}", q(&value), q(&text(c)))
            } else if let Some(e) = &a.equals {
                format!("{} != {}", q(&value), q(&text(e)))
            } else if a.matches.is_some() {
                format!("{} is not a number", q(&value))
            } else if let Some(than) = &a.greater_than {
                let (Ok(v), Ok(t)) = (
                    value.trim().parse::<f64>(),
                    text(than).trim().parse::<f64>(),
                ) else {
                    return Some("assert_gt arguments must be numbers".into());
                };
                format!("{} is not greater than {}", f6(v), f6(t))
            } else if a.min_length.is_some() || a.max_length.is_some() {
                format!(
                    "string length {} is not between {} and {}",
                    value.chars().count(),
                    a.min_length.unwrap_or(0),
                    a.max_length.unwrap_or(u64::MAX)
                )
            } else {
                return None;
            }
        }
        _ => return None,
    };
    Some(format!("assertion failed: {detail}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn on_value(a: Assertion, v: Value) -> String {
        failure(&a, &v).unwrap()
    }

    #[test]
    fn every_check_a_script_command_lowers_to_is_worded_as_mcp_tester_words_it() {
        let a = Assertion {
            path: Some("$".into()),
            min_length: Some(20),
            max_length: Some(30),
            ..Assertion::default()
        };
        assert_eq!(
            on_value(a, json!("hello")),
            "assertion failed: string length 5 is not between 20 and 30"
        );
        let a = Assertion {
            path: Some("$".into()),
            greater_than: Some(json!("5")),
            ..Assertion::default()
        };
        assert_eq!(
            on_value(a.clone(), json!("3")),
            "assertion failed: 3.000000 is not greater than 5.000000"
        );
        assert_eq!(
            on_value(a, json!("x")),
            "assert_gt arguments must be numbers"
        );
        let a = Assertion {
            path: Some("$.textAndRaw".into()),
            contains: Some(json!("sum")),
            ..Assertion::default()
        };
        assert_eq!(
            on_value(a, json!({})),
            "assertion failed: last response does not contain \"sum\""
        );
        let a = Assertion {
            path: Some("$.text".into()),
            equals: Some(json!("Result: 30")),
            ..Assertion::default()
        };
        assert_eq!(
            on_value(a, json!({"text": "Result: 31"})),
            "assertion failed: expected exactly \"Result: 30\", but got \"Result: 31\""
        );
        let a = Assertion {
            path: Some("$.error.code".into()),
            equals: Some(json!(-32602)),
            ..Assertion::default()
        };
        assert_eq!(
            on_value(a, json!({"text": "ok"})),
            "assertion failed: expected error code -32602, got 0"
        );
        let a = Assertion {
            path: Some("$".into()),
            equals: Some(json!("b")),
            ..Assertion::default()
        };
        assert_eq!(on_value(a, json!("a")), "assertion failed: \"a\" != \"b\"");
    }

    #[test]
    fn a_wait_that_saw_nothing_is_worded_with_go_durations() {
        assert_eq!(
            no_notification("notifications/tools/list_changed", None, 300),
            "assertion failed: no notifications/tools/list_changed within 300ms"
        );
        assert_eq!(
            no_notification("notifications/resources/updated", Some("mcp://time"), 2000),
            "assertion failed: no notifications/resources/updated for mcp://time within 2s"
        );
        for (ms, shown) in [
            (1500, "1.5s"),
            (90_000, "1m30s"),
            (5000, "5s"),
            (3_600_000, "1h0m0s"),
        ] {
            assert_eq!(go_duration(ms), shown);
        }
    }
}
