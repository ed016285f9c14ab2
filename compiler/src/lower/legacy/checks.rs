//! The `assert_*` commands: `check` steps over a value or over the last response.

use serde_json::{Value, json};

use super::commands::Command;
use super::lex::Word;
use super::{Legacy, Lowered, NUMBER_PATTERN};
use crate::ir::{self, Assert, Assertion, JsonAssertions, NativeStep, StepKind};

impl Legacy<'_> {
    /// `assert_contains [value] <expected>` and `assert_equals [value] <expected>`: without a
    /// value, the last response's text (and, for `contains`, its raw JSON) is checked.
    pub(super) fn assert_text(&mut self, command: Command, args: &[Word]) -> Option<Lowered> {
        let (expected, rest) = args.split_last()?;
        let expected = self.template(expected);
        let contains = command == Command::AssertContains;
        let mut a = Assertion::default();
        let params = match rest.first() {
            None => {
                a.path = Some(if contains { "$.textAndRaw" } else { "$.text" }.into());
                None
            }
            Some(v) => {
                a.path = Some("$".into());
                Some(self.template(v))
            }
        };
        if contains {
            a.contains = Some(expected);
        } else {
            a.equals = Some(expected);
        }
        Some(check(params, a))
    }

    /// `assert_number <value>`.
    pub(super) fn assert_number(&mut self, value: &Word) -> Lowered {
        let v = self.template(value);
        check(
            Some(v),
            Assertion {
                path: Some("$".into()),
                matches: Some(NUMBER_PATTERN.into()),
                ..Assertion::default()
            },
        )
    }

    /// `assert_gt <value> <than>`.
    pub(super) fn assert_gt(&mut self, value: &Word, than: &Word) -> Lowered {
        let v = self.template(value);
        let than = self.template(than);
        check(
            Some(v),
            Assertion {
                path: Some("$".into()),
                greater_than: Some(than),
                ..Assertion::default()
            },
        )
    }

    /// `assert_string_length <value> <min> <max>`.
    pub(super) fn assert_string_length(&mut self, args: &[Word]) -> Option<Lowered> {
        let name = Command::AssertStringLength.name();
        let v = self.template(&args[0]);
        let mut bounds = [0u64; 2];
        for (i, w) in args[1..].iter().enumerate() {
            let text = self.literal(name, w, "length")?;
            match text.parse::<u64>() {
                Ok(n) => bounds[i] = n,
                Err(_) => {
                    self.bad(
                        name,
                        w.span,
                        format!("`{text}` is not a whole number of characters"),
                        "write the bounds as whole numbers, e.g. `1 64`".into(),
                    );
                    return None;
                }
            }
        }
        if bounds[0] > bounds[1] {
            self.bad(
                name,
                args[1].span.cover(args[2].span),
                format!(
                    "the least length {} is greater than the greatest {}",
                    bounds[0], bounds[1]
                ),
                "write the smaller bound first".into(),
            );
            return None;
        }
        Some(check(
            Some(v),
            Assertion {
                path: Some("$".into()),
                min_length: Some(bounds[0]),
                max_length: Some(bounds[1]),
                ..Assertion::default()
            },
        ))
    }

    /// `assert_error_code <code|tool>`.
    pub(super) fn assert_error_code(&mut self, code: &Word) -> Option<Lowered> {
        let name = Command::AssertErrorCode.name();
        let text = self.literal(name, code, "error code")?;
        if text == "tool" {
            return Some(tool_error_check());
        }
        let Ok(n) = text.parse::<i64>() else {
            self.bad(
                name,
                code.span,
                format!("`{text}` is neither a JSON-RPC error code nor `tool`"),
                "write a whole number such as `-32602`, or `tool` for a tool error".into(),
            );
            return None;
        };
        Some(check(
            None,
            Assertion {
                path: Some("$.error.code".into()),
                equals: Some(json!(n)),
                ..Assertion::default()
            },
        ))
    }

    /// `assert_elicited <text>` and `assert_sampled <text>`: the message of the last
    /// elicitation request or the prompt of the last sampling request (`path`) contains it.
    pub(super) fn assert_received(&mut self, path: &str, text: &Word) -> Lowered {
        let text = self.template(text);
        check(
            None,
            Assertion {
                path: Some(path.into()),
                contains: Some(text),
                ..Assertion::default()
            },
        )
    }

    /// `assert_task_status <status>`: the last task seen has it.
    pub(super) fn assert_task_status(&mut self, status: &Word) -> Option<Lowered> {
        let status = self.task_status(Command::AssertTaskStatus, status)?;
        Some(check(
            None,
            Assertion {
                path: Some("$.task.status".into()),
                equals: Some(json!(status)),
                ..Assertion::default()
            },
        ))
    }
}

/// A `check` step of one assertion over `params` (the last response when `None`).
pub(super) fn check(params: Option<Value>, a: Assertion) -> Lowered {
    let n = NativeStep::Check(ir::CheckAction {
        params,
        timeout_ms: None,
    });
    (
        StepKind::native(n),
        Some(Assert {
            json: Some(JsonAssertions::List(vec![a])),
            ..Assert::default()
        }),
    )
}

/// The check that the last response is a tool error.
pub(super) fn tool_error_check() -> Lowered {
    check(
        None,
        Assertion {
            path: Some("$.isError".into()),
            equals: Some(json!(true)),
            ..Assertion::default()
        },
    )
}
