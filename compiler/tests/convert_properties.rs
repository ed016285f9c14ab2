//! Property tests of conversion: arbitrary values survive the YAML emitter, and arbitrary
//! names and values in a suite either print to `.mcpr` that compiles back to the same suite
//! or are refused with a reason — never dropped, never a panic.

use mcpr_compiler::fmt;
use mcpr_compiler::ir::{
    Assert, Assertion, JsonAssertions, Step, StepKind, Suite, Target, Test, ToolStep,
};
use proptest::prelude::*;
use serde_json::{Map, Value};

/// Text that stresses quoting: quotes, YAML indicators, keywords, escapes, non-ASCII.
fn tricky() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just("yes".to_string()),
        Just("007".to_string()),
        Just("1.5".to_string()),
        Just("null".to_string()),
        Just("- x".to_string()),
        Just("a: b".to_string()),
        Just("#c".to_string()),
        Just("${env.HOME}".to_string()),
        Just("it's".to_string()),
        Just("say \"hi\"".to_string()),
        Just(" padded ".to_string()),
        Just("ünï ✓ 𝄞".to_string()),
        "[a-z]{1,8}",
        "[ -~]{0,12}",
        "\\PC{0,6}",
    ]
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1.0e6f64..1.0e6).prop_map(Value::from),
        tricky().prop_map(Value::String),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((tricky(), inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

fn suite(tool: String, args: Map<String, Value>, expected: Value, test: String) -> Suite {
    let mut step = Step::new(StepKind::Tool(ToolStep {
        arguments: Some(args),
        ..ToolStep::new(tool.clone())
    }));
    step.name = Some(format!("Call tool \u{201c}{tool}\u{201d}"));
    step.assert = Some(Box::new(Assert {
        json: Some(JsonAssertions::List(vec![Assertion {
            path: Some("$.structuredContent".into()),
            equals: Some(expected),
            ..Default::default()
        }])),
        ..Default::default()
    }));
    Suite::new(
        Target::stdio("server", vec![]),
        vec![Test::new(test, vec![step])],
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn yaml_documents_read_back(v in value()) {
        let text = fmt::emit::document(&v);
        let back = mcpr_compiler::yaml::parse_full(&text);
        prop_assert_eq!(back.as_ref().ok(), Some(&v), "{}", text);
    }

    #[test]
    fn printed_suites_compile_back_or_are_refused(
        tool in tricky(),
        args in prop::collection::vec((tricky(), value()), 1..4),
        expected in value(),
        test in tricky(),
    ) {
        let s = suite(tool, args.into_iter().collect(), expected, test);
        match fmt::to_mcpr_checked(&s) {
            // Proven inside: the printed text compiles to the same suite.
            Ok(text) => prop_assert!(text.starts_with("MCP Test 1\n")),
            Err(e) => prop_assert!(e.contains("cannot carry"), "{}", e),
        }
    }
}
