//! Legacy `.mcp` scripts compiled by the compiler and run by the scheduler against the
//! reference server over real pipes: the corpus scripts pass, positional arguments are typed
//! from the schema, a failing command does not stop the script, `expect_error` forms, and
//! `set_var` / `$name` substitution.

mod common;

use std::path::Path;
use std::sync::Arc;

use mcpr_compiler::SourceMap;
use mcpr_compiler::ir::{Suite, Target};
use mcpr_compiler::lower::{self, MemoryLoader, Options};
use mcpr_compiler::source::SourceFile;
use mcpr_runtime::exec::{Outcome, StepStatus, TestResult};
use mcpr_runtime::schedule::{RunOptions, run_suite};

fn compile(name: &str, text: &str) -> Suite {
    let mut map = SourceMap::new();
    let id = map.add(SourceFile::new(name, text));
    let c = lower::compile(&mut map, id, &MemoryLoader::new(), &Options::default());
    assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics);
    c.suite.expect("a suite")
}

async fn run(suite: Suite) -> TestResult {
    let server = common::server_bin("mcpr-reference-server")
        .display()
        .to_string();
    let opts = RunOptions {
        target: Some(Target::stdio(server, Vec::new())),
        jobs: 1,
        ..RunOptions::default()
    };
    let mut events = |_: &mcpr_runtime::schedule::Event| {};
    let mut r = run_suite(Arc::new(suite), opts, &mut events)
        .await
        .expect("the run starts");
    assert_eq!(r.tests.len(), 1, "one script is one test");
    r.tests.remove(0)
}

async fn run_script(text: &str) -> TestResult {
    run(compile("script.mcp", text)).await
}

/// `(line, code)` of every failing step.
fn failures(r: &TestResult) -> Vec<(u32, String)> {
    r.steps
        .iter()
        .filter_map(|s| {
            let f = s.failure.as_ref()?;
            Some((s.source.as_ref().map_or(0, |l| l.line), f.code.to_string()))
        })
        .collect()
}

fn show(r: &TestResult) -> String {
    serde_json::to_string_pretty(r).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_corpus_scripts_pass_against_the_reference_server() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance-tests/legacy/valid");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mcp"))
        .collect();
    files.sort();
    let mut ran = 0;
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        if text.contains("input_var") {
            continue; // interactive; covered by the CLI tests
        }
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let r = run(compile(&name, &text)).await;
        assert_eq!(r.status, Outcome::Passed, "{name}: {}", show(&r));
        assert!(r.steps.iter().all(|s| s.status == StepStatus::Passed));
        ran += 1;
    }
    assert!(ran >= 6);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_command_does_not_stop_the_script_and_fails_the_test() {
    let r = run_script(
        "call_tool echo text:first\nassert_equals \"second\"\necho \"still running\"\ncall_tool add 2 3\nassert_contains \"nope\"\nassert_contains \"5\"\n",
    )
    .await;
    assert_eq!(r.status, Outcome::Failed, "{}", show(&r));
    assert_eq!(r.steps.len(), 6, "every command ran");
    assert_eq!(
        failures(&r),
        vec![(2, "MCP-ASSERT-001".into()), (5, "MCP-ASSERT-001".into())]
    );
    assert_eq!(r.steps[2].output.as_deref(), Some("still running"));
    // The test's failure is the first failing command's.
    assert_eq!(r.failure.unwrap().location.unwrap().line, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn positional_arguments_follow_the_schema_in_alphabetical_order() {
    let r = run_script(
        "# a and b are numbers: the text values are sent as numbers\ncall_tool add 40 2\nassert_equals \"{\\\"sum\\\":42}\"\ncall_tool add b:1 7\nset_var s $.sum\nassert_equals $s \"8\"\ncall_tool add 1 2 3\ncall_tool add c:1 a:1\ncall_tool echo text:007\nassert_equals \"007\"\n",
    )
    .await;
    assert_eq!(r.status, Outcome::Failed, "{}", show(&r));
    assert_eq!(
        failures(&r),
        vec![(7, "MCP-ARGS-001".into()), (8, "MCP-ARGS-001".into())]
    );
    let too_many = r.steps[5].failure.as_ref().unwrap();
    assert!(
        too_many.message.contains("3 positional values")
            && too_many.message.contains("valid names: a, b"),
        "{}",
        too_many.message
    );
    let unknown = r.steps[6].failure.as_ref().unwrap();
    assert!(
        unknown.message.contains("no argument \"c\"")
            && unknown.message.contains("valid names: a, b"),
        "{}",
        unknown.message
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expect_error_checks_tool_and_protocol_errors() {
    let r = run_script(
        "expect_error call_tool add a:\"not_a_number\" b:1\nassert_tool_error\nassert_error_code -32602\nexpect_error call_tool no_such_tool\nassert_error_code -32602\nassert_tool_error\nexpect_error call_tool echo text:fine\ncall_tool fail\n",
    )
    .await;
    assert_eq!(r.status, Outcome::Failed);
    assert_eq!(
        failures(&r),
        vec![
            // a tool error has no numeric code
            (3, "MCP-ASSERT-001".into()),
            // a protocol error is no tool error
            (6, "MCP-ASSERT-001".into()),
            // expect_error on a call that succeeds
            (7, "MCP-ASSERT-001".into()),
            // a tool error without expect_error
            (8, "MCP-TOOL-001".into()),
        ],
        "{}",
        show(&r)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_variable_stops_the_script() {
    let r = run_script(
        "call_tool echo text:hi\nset_var x $.missing\ncall_tool echo $x\necho \"not reached\"\n",
    )
    .await;
    assert_eq!(r.status, Outcome::Failed);
    assert_eq!(
        failures(&r),
        vec![(2, "MCP-CAPTURE-001".into()), (3, "MCP-VAR-001".into())]
    );
    assert_eq!(r.steps.len(), 3, "the script stopped: {}", show(&r));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn set_var_keeps_text_and_substitutes_per_argument() {
    let r = run_script(
        "call_tool echo \"John Doe\"\nset_var name $.content.0.text\ncall_tool echo \"name: $name!\"\nassert_equals \"name: John Doe!\"\nset_var raw rawResponse\nassert_contains $raw \"\\\"type\\\":\\\"text\\\"\"\ncall_tool echo ''\nset_var empty $.content.0.text\nassert_equals $empty \"\"\nassert_string_length $name 8 8\n",
    )
    .await;
    assert_eq!(r.status, Outcome::Passed, "{}", show(&r));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unanswered_input_requests_fail_and_notifications_must_not_arrive() {
    let r = run_script(
        "call_tool elicit\nsubscribe fixture://status\ncall_tool notify kind:tools\nexpect_error wait_notification tools/list_changed 500ms\n",
    )
    .await;
    assert_eq!(r.status, Outcome::Failed);
    let f = failures(&r);
    assert_eq!(f.len(), 2, "{}", show(&r));
    assert_eq!(f[0].0, 1, "no elicit_response was prepared");
    assert!(
        r.steps[0]
            .failure
            .as_ref()
            .unwrap()
            .message
            .contains("elicit_response"),
        "{}",
        show(&r)
    );
    assert_eq!(f[1], (4, "MCP-ASSERT-001".into()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn value_checks_fail_when_they_should() {
    let r = run_script(
        "assert_gt 3 2.5\nassert_gt 1 2\nassert_gt abc 1\nassert_number -1.5e3\nassert_number 12abc\nassert_string_length \"äbc\" 3 3\nassert_string_length \"abc\" 4 5\nassert_equals \"2\" \"2.0\"\nassert_contains \"haystack\" \"needle\"\nexpect_error assert_equals \"a\" \"a\"\nexpect_error assert_equals \"a\" \"b\"\nassert_contains \"assertion failed\"\n",
    )
    .await;
    assert_eq!(r.status, Outcome::Failed);
    let lines: Vec<u32> = failures(&r).into_iter().map(|(l, _)| l).collect();
    assert_eq!(lines, [2, 3, 5, 7, 8, 9, 10], "{}", show(&r));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scripts_run_over_streamable_http() {
    let server = common::HttpServer::start("mcpr-reference-server", &["--http", "127.0.0.1:0"]);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance-tests/legacy/valid");
    for name in ["01_basics.mcp", "03_client_answers.mcp", "05_tasks.mcp"] {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        let opts = RunOptions {
            target: Some(Target::http(server.url.clone())),
            jobs: 1,
            ..RunOptions::default()
        };
        let mut events = |_: &mcpr_runtime::schedule::Event| {};
        let r = run_suite(Arc::new(compile(name, &text)), opts, &mut events)
            .await
            .expect("the run starts");
        assert_eq!(
            r.tests[0].status,
            Outcome::Passed,
            "{name}: {}",
            show(&r.tests[0])
        );
    }
}
