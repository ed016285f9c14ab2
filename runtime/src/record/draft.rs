//! A tape as a draft suite: one test that makes the client's calls in the order it made
//! them (a later call may depend on what an earlier one changed), each expecting what the
//! server answered, with volatile fields left out ([`super::stable`]). The suite is built
//! as Suite IR and printed by the compiler's printer, proven by compiling it again
//! ([`mcpr_compiler::fmt::to_mcpr_checked`]), so a draft always passes `mcpr check`.

use mcpr_compiler::ir::{
    Assert, Assertion, ErrorExpectation, JsonAssertions, RequestStep, Status, Step, StepKind,
    Suite, Target, Test, ToolStep,
};
use serde_json::{Map, Value, json};

use super::stable::{self, volatile_text};
use super::tape::{Answer, Call, Tape};

/// Methods that are part of the session itself, never a step: the runner makes them.
const SESSION_METHODS: [&str; 2] = ["initialize", "server/discover"];

/// List methods, with the array they answer and the member that names each item.
const LISTS: [(&str, &str, &str); 4] = [
    ("tools/list", "tools", "name"),
    ("prompts/list", "prompts", "name"),
    ("resources/list", "resources", "uri"),
    (
        "resources/templates/list",
        "resourceTemplates",
        "uriTemplate",
    ),
];

/// A written draft.
#[derive(Debug, Clone, PartialEq)]
pub struct Draft {
    /// The `.mcpr` text.
    pub text: String,
    /// Steps written.
    pub steps: usize,
    /// Calls not written, each with the reason.
    pub left_out: Vec<String>,
}

/// The draft of `tape` for the server at `target`, with `comments` (one line each, said
/// by the proxy: credentials it left out) at the top; `Err` when there is nothing to write
/// or (which would be a bug) the printed suite does not compile back.
pub fn draft(tape: &Tape, target: Target, comments: &[String]) -> Result<Draft, String> {
    let mut steps = Vec::new();
    let mut left_out = Vec::new();
    for call in &tape.calls {
        if SESSION_METHODS.contains(&call.method.as_str()) {
            continue;
        }
        match step(call) {
            Ok(s) => steps.push(s),
            Err(why) => left_out.push(format!("{}: {why}", call.method)),
        }
    }
    if steps.is_empty() {
        return Err(if tape.calls.is_empty() {
            "the client sent no request, so there is nothing to write".into()
        } else {
            format!(
                "no request of the client can be written as a test step ({} seen{})",
                tape.calls.len(),
                left_out
                    .first()
                    .map(|l| format!("; {l}"))
                    .unwrap_or_default()
            )
        });
    }
    let server = tape.server.clone().unwrap_or_else(|| "the server".into());
    let mut test = Test::new(format!("Recorded session with {server}"), steps);
    // Every difference is worth seeing in a draft, not only the first.
    test.continue_on_failure = Some(true);
    let count = test.steps.len();
    let mut suite = Suite::new(target, vec![test]);
    suite.name = Some(format!("Recorded from {server}"));
    let printed = mcpr_compiler::fmt::to_mcpr_checked(&suite)?;
    let mut header = String::from("# Written by mcpr record");
    if let Some(p) = &tape.protocol {
        header.push_str(&format!(
            " (protocol {p}: if the answers differ, run it with `mcpr run --protocol {p}`)"
        ));
    }
    header.push_str(".\n# Expectations are what the server answered; volatile fields (ids, times,\n# tokens, `_meta`, cursors) are left out or expected only by their type.\n");
    let mut methods: Vec<&String> = tape.server_requests.iter().collect();
    methods.sort();
    methods.dedup();
    if !methods.is_empty() {
        let list: Vec<&str> = methods.iter().map(|m| m.as_str()).collect();
        header.push_str(&format!(
            "# The server asked the client ({}): mcpr answers with its `Client behavior:` block.\n",
            list.join(", ")
        ));
    }
    for c in comments {
        header.push_str(&format!("# {}\n", one_line(c)));
    }
    for l in &left_out {
        header.push_str(&format!("# Left out: {}\n", one_line(l)));
    }
    let text = match printed.split_once('\n') {
        Some((first, rest)) => format!("{first}\n{header}{rest}"),
        None => format!("{printed}\n{header}"),
    };
    Ok(Draft {
        text,
        steps: count,
        left_out,
    })
}

fn one_line(s: &str) -> String {
    crate::error::shorten(&s.replace(['\n', '\r'], " "), 160)
}

/// The step of one call, or why it has none.
fn step(call: &Call) -> Result<Step, String> {
    let Some(answer) = &call.answer else {
        return Err("no answer came before the session ended".into());
    };
    let params = call.params.as_ref().map(without_meta);
    if let Some(p) = &params
        && crate::values::mentions_template(p)
    {
        return Err("its params hold `${`, which a suite reads as a reference".into());
    }
    if params
        .as_ref()
        .and_then(|p| p.get("cursor"))
        .is_some_and(|c| !c.is_null())
    {
        return Err("a page after the first (its cursor is the server's own)".into());
    }
    let obj = |p: &Option<Value>| p.as_ref().and_then(Value::as_object).cloned();
    let (kind, name) = match call.method.as_str() {
        "tools/call" => {
            let p = obj(&params).ok_or("its params are not an object")?;
            let tool = p
                .get("name")
                .and_then(Value::as_str)
                .ok_or("it names no tool")?;
            let mut t = ToolStep::new(tool);
            t.arguments = p
                .get("arguments")
                .and_then(Value::as_object)
                .filter(|a| !a.is_empty())
                .cloned();
            (StepKind::Tool(t), named("Call tool", tool))
        }
        "resources/read" => {
            let uri = params
                .as_ref()
                .and_then(|p| p.get("uri"))
                .and_then(Value::as_str)
                .ok_or("it names no resource")?;
            let r = RequestStep {
                method: call.method.clone(),
                params: Some(json!({ "uri": uri })),
            };
            (StepKind::Request(r), named("Read resource", uri))
        }
        "prompts/get" => {
            let p = obj(&params).ok_or("its params are not an object")?;
            let prompt = p
                .get("name")
                .and_then(Value::as_str)
                .ok_or("it names no prompt")?;
            let args = p.get("arguments").cloned().unwrap_or_else(|| json!({}));
            let r = RequestStep {
                method: call.method.clone(),
                params: Some(json!({ "name": prompt, "arguments": args })),
            };
            (StepKind::Request(r), named("Get prompt", prompt))
        }
        m => {
            let params = match params {
                Some(Value::Object(o)) if o.is_empty() => None,
                Some(Value::Object(o)) => Some(Value::Object(o)),
                None | Some(Value::Null) => None,
                Some(_) => return Err("its params are not an object".into()),
            };
            let r = RequestStep {
                method: m.to_string(),
                params,
            };
            (StepKind::Request(r), format!("Send {m}"))
        }
    };
    let mut s = Step::new(kind);
    s.name = Some(name);
    s.assert = Some(Box::new(expect(&call.method, answer)));
    Ok(s)
}

/// The step name `.mcpr` gives a subject in quotes.
fn named(verb: &str, subject: &str) -> String {
    format!("{verb} \u{201c}{subject}\u{201d}")
}

/// The params without `_meta` (progress tokens and the like are the client's own).
fn without_meta(v: &Value) -> Value {
    match v {
        Value::Object(o) => Value::Object(
            o.iter()
                .filter(|(k, _)| k.as_str() != "_meta")
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect::<Map<String, Value>>(),
        ),
        other => other.clone(),
    }
}

/// What the step expects of the answer.
fn expect(method: &str, answer: &Answer) -> Assert {
    match answer {
        Answer::Error { code, message } => Assert {
            status: Some(Status::Error),
            error: Some(ErrorExpectation {
                code: Some(*code),
                message: (!message.is_empty()
                    && !volatile_text(message)
                    && !message.contains("${"))
                .then(|| message.clone()),
                matches: None,
            }),
            ..Assert::default()
        },
        // A tool's own error (`isError`): the runner expects it as an error, and its text is
        // the tool's to word.
        Answer::Result(r) if method == "tools/call" && r["isError"] == json!(true) => Assert {
            status: Some(Status::Error),
            ..Assert::default()
        },
        Answer::Result(r) => {
            let list = LISTS.iter().find(|(m, _, _)| *m == method);
            let checks = match list {
                Some((_, array, key)) => list_checks(r, array, key),
                None => stable::assertions(r),
            };
            Assert {
                status: Some(Status::Success),
                json: (!checks.is_empty()).then_some(JsonAssertions::List(checks)),
                ..Assert::default()
            }
        }
    }
}

/// A list is expected by its length and the name of each item (their descriptions and
/// schemas are `mcpr snapshot`'s business).
fn list_checks(r: &Value, array: &str, key: &str) -> Vec<Assertion> {
    let Some(items) = r.get(array).and_then(Value::as_array) else {
        return stable::assertions(r);
    };
    let at = format!("$.{array}");
    let mut out = vec![Assertion {
        path: Some(at.clone()),
        length: Some(items.len() as u64),
        ..Assertion::default()
    }];
    for (i, item) in items.iter().enumerate() {
        if out.len() >= stable::MAX_ASSERTIONS {
            break;
        }
        if let Some(v) = item.get(key).filter(|v| v.is_string()) {
            out.push(Assertion {
                path: Some(format!("{at}[{i}].{key}")),
                equals: Some(v.clone()),
                ..Assertion::default()
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(method: &str, params: Value, answer: Answer) -> Call {
        Call {
            method: method.into(),
            params: Some(params),
            answer: Some(answer),
        }
    }

    #[test]
    fn a_tape_becomes_a_suite_that_compiles() {
        let mut tape = Tape::default();
        tape.calls = vec![
            call(
                "initialize",
                json!({}),
                Answer::Result(json!({"protocolVersion": "2025-06-18"})),
            ),
            call(
                "tools/list",
                json!({}),
                Answer::Result(
                    json!({"tools": [{"name": "add"}, {"name": "echo"}], "nextCursor": "x"}),
                ),
            ),
            call(
                "tools/call",
                json!({"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": {"progressToken": 1}}),
                Answer::Result(
                    json!({"content": [{"type": "text", "text": "3"}], "structuredContent": {"sum": 3}}),
                ),
            ),
            call(
                "tools/call",
                json!({"name": "fail"}),
                Answer::Result(json!({"content": [], "isError": true})),
            ),
            call(
                "tools/call",
                json!({"name": "nope", "arguments": {}}),
                Answer::Error {
                    code: -32602,
                    message: "unknown tool nope".into(),
                },
            ),
            call(
                "resources/read",
                json!({"uri": "fixture://status"}),
                Answer::Result(json!({"contents": [{"uri": "fixture://status", "text": "ok"}]})),
            ),
            call(
                "prompts/get",
                json!({"name": "greet", "arguments": {"name": "Ada"}}),
                Answer::Result(json!({"messages": []})),
            ),
            call("ping", json!({}), Answer::Result(json!({}))),
            call(
                "tools/list",
                json!({"cursor": "abc"}),
                Answer::Result(json!({"tools": []})),
            ),
            call(
                "tools/call",
                json!({"name": "echo", "arguments": {"text": "${x}"}}),
                Answer::Result(json!({})),
            ),
            Call {
                method: "tools/call".into(),
                params: None,
                answer: None,
            },
        ];
        tape.server = Some("demo".into());
        tape.protocol = Some("2025-06-18".into());
        tape.server_requests = vec!["roots/list".into()];
        let d = draft(
            &tape,
            Target::stdio("demo-server", vec!["--flag".into()]),
            &[],
        )
        .unwrap();
        assert_eq!(d.steps, 7, "{}", d.text);
        assert_eq!(d.left_out.len(), 3, "{:?}", d.left_out);
        for want in [
            "Server: demo-server --flag",
            "Call tool \"add\" with:",
            "Expect \"structuredContent.sum\" equals 3",
            "Expect \"tools\" has 2 items",
            "Expect error code -32602",
            "Read resource \"fixture://status\"",
            "Get prompt \"greet\" with:",
            "Send \"ping\"",
            "# The server asked the client (roots/list)",
        ] {
            assert!(d.text.contains(want), "{want}\n{}", d.text);
        }
        assert!(!d.text.contains("progressToken"), "{}", d.text);
    }

    #[test]
    fn a_tape_without_calls_writes_nothing() {
        let e = draft(&Tape::default(), Target::stdio("x", vec![]), &[]).unwrap_err();
        assert!(e.contains("no request"), "{e}");
    }
}
