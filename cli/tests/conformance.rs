//! `mcpr conformance`: the standard flow library against real servers over real pipes and
//! sockets — the reference server passes every check in both eras over stdio and HTTP;
//! broken behaviour fails exactly the checks it breaks; baselines, inputs and reports.

mod common;

use common::{HttpServer, mcpr_in, output_text, reference_server, scratch};
use serde_json::Value;
use std::process::Output;

/// The reference server's own names, for the flows that need them.
const REFERENCE_INPUTS: &[&str] = &[
    "tool=echo",
    r#"arguments={"text":"hi"}"#,
    r#"invalid_arguments={"text":5}"#,
    "error_tool=fail",
    "resource_uri=fixture://status",
    "prompt=code_review",
    r#"prompt_arguments={"language":"rust"}"#,
    "completion_argument=language",
    "completion_value=py",
    "progress_tool=progress",
    r#"progress_arguments={"steps":3}"#,
    "slow_tool=slow",
    r#"slow_arguments={"ms":3000}"#,
    "task_tool=long_task",
    r#"task_arguments={"ms":200}"#,
    "slow_task_tool=ask_task",
    "input_tool=elicit",
    "change_tool=notify",
    r#"change_arguments={"kind":"tools"}"#,
];

fn conformance(dir: &std::path::Path, args: &[&str]) -> Output {
    mcpr_in(dir).arg("conformance").args(args).output().unwrap()
}

fn with_inputs(extra: &[&str]) -> Vec<String> {
    let mut v = Vec::new();
    for i in REFERENCE_INPUTS {
        v.push("--input".to_string());
        v.push(i.to_string());
    }
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

/// The checks of `--format json` as `(version, check) → verdict`.
fn verdicts(out: &Output) -> Vec<(String, String, String)> {
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("not JSON ({e}):\n{}", output_text(out));
    });
    doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["version"].as_str().unwrap().to_string(),
                c["check"].as_str().unwrap().to_string(),
                c["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn assert_all_succeed(out: &Output, stdio: bool) {
    // The verdicts first: a failing check is named before the exit code is judged.
    let v = verdicts(out);
    let versions: std::collections::BTreeSet<&str> = v.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(
        versions.into_iter().collect::<Vec<_>>(),
        ["2025-11-25", "2026-07-28"],
        "both eras are discovered and tested"
    );
    let libs = mcpr_compiler::stdlib::documents().unwrap();
    // The checks about a capability's absence do not apply to a server that offers all.
    let about_absence = |check: &str| {
        libs.iter()
            .flat_map(|l| &l.flows)
            .any(|f| f.check == check && !f.unless.is_empty())
    };
    // The SDK the reference server is built on cannot declare the 2025-11-25 `tasks`
    // capability (it serves tasks through the extension), so the handshake era's task checks
    // are "optional capability not offered"; the suite test below runs their flows.
    let core_tasks = |version: &str, check: &str| {
        version == "2025-11-25"
            && libs
                .iter()
                .any(|l| l.library.name == "tasks" && l.flows.iter().any(|f| f.check == check))
    };
    let not_ok: Vec<_> = v
        .iter()
        .filter(|c| {
            c.2 != "SUCCESS" && !(c.2 == "INFO" && (about_absence(&c.1) || core_tasks(&c.0, &c.1)))
        })
        .collect();
    if !not_ok.is_empty() {
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let failing: Vec<&Value> = doc["checks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| {
                not_ok
                    .iter()
                    .any(|n| c["check"] == n.1.as_str() && c["version"] == n.0.as_str())
            })
            .collect();
        panic!(
            "{failing:#?}\nstderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(out.status.code(), Some(0), "{}", output_text(out));
    let expected: usize = ["2025-11-25", "2026-07-28"]
        .iter()
        .map(|version| {
            libs.iter()
                .flat_map(|l| &l.flows)
                .filter(|f| f.applies_to(version))
                .count()
        })
        .sum::<usize>()
        // The checks the command makes itself: version negotiation in the handshake era,
        // the others in both.
        + 2 * mcpr_runtime::conformance::LIBRARY_CHECKS.len()
        - 1
        + if stdio {
            2 * mcpr_runtime::conformance::STDIO_CHECKS.len()
        } else {
            // Every HTTP check applies to one era or both.
            mcpr_runtime::conformance::http::CHECKS
                .iter()
                .map(|c| if c.4.is_none() { 2 } else { 1 })
                .sum()
        };
    assert_eq!(v.len(), expected, "every check of every library ran");
}

#[test]
fn the_reference_server_passes_every_check_in_both_eras_over_stdio() {
    let dir = scratch(&[]);
    let server = reference_server();
    let mut args = with_inputs(&["--format", "json", "--"]);
    args.push(server);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    assert_all_succeed(&conformance(dir.path(), &args), true);
}

#[test]
fn the_reference_server_passes_every_check_in_both_eras_over_http() {
    let dir = scratch(&[]);
    let http = HttpServer::start(reference_server(), &["--http", "127.0.0.1:0"]);
    let mut args = with_inputs(&["--format", "json", "--url"]);
    args.push(http.url.clone());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    assert_all_succeed(&conformance(dir.path(), &args), false);
}

#[test]
fn the_human_lines_name_the_verdict_and_the_spec_and_checks_without_inputs_are_info() {
    let dir = scratch(&[]);
    let server = reference_server();
    let out = conformance(
        dir.path(),
        &[
            "--protocol",
            "2025-11-25",
            "--suite",
            "tools",
            "--",
            &server,
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", output_text(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("protocol 2025-11-25 (initialize)"), "{text}");
    assert!(
        text.contains("SUCCESS tools.unknown-tool")
            && text.contains("[server/tools#error-handling]"),
        "{text}"
    );
    assert!(
        text.contains("INFO    tools.call") && text.contains("not run: needs --input tool=…"),
        "{text}"
    );
    assert!(
        !text.contains("protocol.ping"),
        "--suite tools runs std:tools alone: {text}"
    );
    assert!(text.contains("0 failure"), "{text}");
}

#[test]
fn a_check_that_fails_exits_1_and_says_why() {
    let dir = scratch(&[]);
    let server = reference_server();
    // `echo` does not fail: the isError check must.
    let out = conformance(
        dir.path(),
        &[
            "--protocol",
            "2025-11-25",
            "--suite",
            "std:tools",
            "--input",
            "error_tool=echo",
            "--input",
            r#"error_arguments={"text":"x"}"#,
            "--",
            &server,
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", output_text(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("FAILURE tools.is-error"), "{text}");
    assert!(text.contains("expected an MCP error"), "{text}");
    assert!(text.contains("1 failure"), "{text}");
}

#[test]
fn a_baseline_expects_known_failures_and_fails_stale_entries() {
    let dir = scratch(&[
        (
            "expected.txt",
            "# known failures\ntools.is-error@2025-11-25\n",
        ),
        ("stale.txt", "tools.unknown-tool\n"),
        ("typo.txt", "tools.unknwn-tool\n"),
    ]);
    let server = reference_server();
    let base = [
        "--protocol",
        "2025-11-25",
        "--suite",
        "tools",
        "--input",
        "error_tool=echo",
        "--input",
        r#"error_arguments={"text":"x"}"#,
    ];
    let run = |baseline: &str| {
        let mut args: Vec<&str> = base.to_vec();
        args.extend(["--baseline", baseline, "--", &server]);
        conformance(dir.path(), &args)
    };
    let out = run("expected.txt");
    assert_eq!(out.status.code(), Some(0), "{}", output_text(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("expected failure (baseline)"), "{text}");
    assert!(text.contains("1 expected failure"), "{text}");

    let out = run("stale.txt");
    assert_eq!(out.status.code(), Some(1), "{}", output_text(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("FAILURE tools.unknown-tool") && text.contains("stale baseline entry"),
        "{text}"
    );

    let out = run("typo.txt");
    common::assert_exit_with(&out, 2, "typo.txt:1: `tools.unknwn-tool` is not a check");
}

#[test]
fn the_common_reports_are_written_over_every_era() {
    let dir = scratch(&[]);
    let server = reference_server();
    let out = conformance(
        dir.path(),
        &[
            "--suite",
            "protocol",
            "--json",
            "report.json",
            "--junit",
            "report.xml",
            "--html",
            "report.html",
            "--",
            &server,
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", output_text(&out));
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    let text = report.to_string();
    assert!(
        text.contains("mcpr conformance 2025-11-25")
            && text.contains("mcpr conformance 2026-07-28"),
        "one suite per era in the JSON report: {text}"
    );
    let junit = std::fs::read_to_string(dir.path().join("report.xml")).unwrap();
    assert!(junit.contains("protocol.ping"), "{junit}");
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert!(
        html.contains("mcpr conformance 2026-07-28") && html.contains("protocol.ping"),
        "one suite per era in the HTML report"
    );
}

#[test]
fn bad_usage_is_exit_2() {
    let dir = scratch(&[]);
    common::assert_exit_with(&conformance(dir.path(), &[]), 2, "give the server");
    common::assert_exit_with(
        &conformance(dir.path(), &["--suite", "nope", "--", "true"]),
        2,
        "std:protocol",
    );
    common::assert_exit_with(
        &conformance(dir.path(), &["--input", "novalue", "--", "true"]),
        2,
        "NAME=VALUE",
    );
}

/// A banner on stdout before the first message is one FAILURE, `stdio.stdout-clean`, in
/// each era: the sessions of the other checks record the line and skip it, so they judge
/// what the server does besides, and the outcome is the same on every run
/// (docs/conformance.md).
#[test]
fn a_server_that_writes_a_banner_on_stdout_first_fails_stdout_clean_alone_every_time() {
    let dir = scratch(&[]);
    let server = reference_server();
    let mut args = with_inputs(&["--format", "json", "--"]);
    args.extend([server.clone(), "--broken".into(), "stdout".into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut outcomes = Vec::new();
    for _ in 0..3 {
        let out = conformance(dir.path(), &args);
        assert_eq!(out.status.code(), Some(1), "{}", output_text(&out));
        assert_eq!(
            with_verdict(&out, &["FAILURE", "WARNING"]),
            pairs(BOTH, &["stdio.stdout-clean"]),
            "{}",
            output_text(&out)
        );
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let clean = doc["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["check"] == "stdio.stdout-clean")
            .unwrap()
            .to_string();
        assert!(clean.contains("this banner is not JSON-RPC"), "{clean}");
        outcomes.push(verdicts(&out));
    }
    assert!(
        outcomes.windows(2).all(|w| w[0] == w[1]),
        "the same verdicts on every run"
    );
}

#[test]
fn a_server_that_cannot_start_is_exit_3() {
    let dir = scratch(&[]);
    common::assert_exit_with(
        &conformance(dir.path(), &["--", "/nonexistent/mcp-server"]),
        3,
        "cannot reach the server",
    );
}

/// The checks of `out` whose verdict is one of `verdicts`, as sorted `(version, check)`.
fn with_verdict(out: &Output, verdicts_wanted: &[&str]) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = verdicts(out)
        .into_iter()
        .filter(|c| verdicts_wanted.contains(&c.2.as_str()))
        .map(|c| (c.0, c.1))
        .collect();
    v.sort();
    v
}

/// `(version, check)` for every version of `eras` and check of `checks`, sorted.
fn pairs(eras: &[&str], checks: &[&str]) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = eras
        .iter()
        .flat_map(|e| checks.iter().map(|c| (e.to_string(), c.to_string())))
        .collect();
    v.sort();
    v
}

const BOTH: &[&str] = &["2025-11-25", "2026-07-28"];

/// The reference server with `--broken RULE` fails exactly the checks of that rule, in
/// both eras, and nothing else.
#[test]
fn a_deliberately_broken_server_fails_exactly_the_checks_it_breaks() {
    let dir = scratch(&[]);
    let server = reference_server();
    let cases: &[(&str, &[&str])] = &[
        ("unknown-tool", &["tools.unknown-tool"]),
        ("unknown-method", &["protocol.unknown-method"]),
        ("progress", &["progress.notifications"]),
        ("progress-late", &["progress.none-after-result"]),
        ("stdin-exit", &["stdio.exit-on-stdin-close"]),
        ("unadvertised", &["protocol.unadvertised-completions"]),
        ("unknown-cancel", &["cancellation.unknown-id"]),
        ("stdout-late", &["stdio.stdout-clean"]),
    ];
    for (rule, broken) in cases {
        let mut args = with_inputs(&["--format", "json", "--"]);
        args.extend([server.clone(), "--broken".into(), rule.to_string()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = conformance(dir.path(), &args);
        assert_eq!(out.status.code(), Some(1), "{rule}: {}", output_text(&out));
        assert_eq!(
            with_verdict(&out, &["FAILURE", "WARNING"]),
            pairs(BOTH, broken),
            "--broken {rule}: {}",
            output_text(&out)
        );
    }
}

/// A server that offers no tools, resources, prompts, logging or completions, and answers
/// their methods -32601, passes the checks of their absence; the checks that need them are
/// INFO, not failures.
#[test]
fn a_server_without_optional_capabilities_passes_the_checks_of_their_absence() {
    let dir = scratch(&[]);
    let server = reference_server();
    let mut args = with_inputs(&["--format", "json", "--"]);
    args.extend([
        server,
        "--without".into(),
        "tools,resources,prompts,logging,completions".into(),
    ]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = conformance(dir.path(), &args);
    assert_eq!(out.status.code(), Some(0), "{}", output_text(&out));
    let ok = with_verdict(&out, &["SUCCESS"]);
    let mut absent = pairs(
        BOTH,
        &[
            "protocol.unadvertised-tools",
            "protocol.unadvertised-resources",
            "protocol.unadvertised-prompts",
            "protocol.unadvertised-completions",
        ],
    );
    absent.push(("2025-11-25".into(), "protocol.unadvertised-logging".into()));
    for pair in &absent {
        assert!(
            ok.contains(pair),
            "{pair:?} succeeds: {}",
            output_text(&out)
        );
    }
    let info = with_verdict(&out, &["INFO"]);
    for pair in pairs(
        BOTH,
        &["tools.call", "resources.read", "completion.prompt-argument"],
    ) {
        assert!(
            info.contains(&pair),
            "{pair:?} is INFO: {}",
            output_text(&out)
        );
    }
    assert!(with_verdict(&out, &["FAILURE", "WARNING"]).is_empty());
}

/// Version negotiation: `initialize` asking for an unsupported version is answered with a
/// supported one (2025-11-25), and a 2026 request naming one is -32022.
#[test]
fn an_unsupported_protocol_version_is_negotiated_in_both_eras() {
    let dir = scratch(&[]);
    let server = reference_server();
    let out = conformance(
        dir.path(),
        &["--suite", "protocol", "--format", "json", "--", &server],
    );
    assert_eq!(out.status.code(), Some(0), "{}", output_text(&out));
    let ok = with_verdict(&out, &["SUCCESS"]);
    assert!(
        ok.contains(&("2025-11-25".into(), "protocol.unsupported-version".into()))
            && ok.contains(&(
                "2026-07-28".into(),
                "protocol.unsupported-version-2026".into()
            )),
        "{}",
        output_text(&out)
    );
}

/// `std:tasks` in the handshake era. The reference server does not declare the 2025-11-25
/// `tasks` capability (its SDK models only the 2026 tasks extension), so `mcpr conformance`
/// reports those checks as "optional capability not offered". Forced on it from a suite of
/// one's own, the task-augmented call (`params.task`, with the tool's arguments) shows why:
/// the server answers the 2026 flat handle instead of 2025-11-25's `CreateTaskResult`
/// (`{task: {taskId, status, …}}`), and the flow says so. (Against server-everything, which
/// declares the capability, they pass: cli/tests/interop_conformance.rs.)
#[test]
fn the_task_flows_of_the_handshake_era_check_the_2025_task_shape() {
    let suite = r#"MCP Test 1
Suite: "std:tasks in the handshake era"
Server from the command line
Import flows from "std:tasks"

Test: "call"
  Use flow "A tool call runs as a task" with:
    task_tool: long_task
    task_arguments: {"ms": 200}

Test: "unknown"
  Use flow "Unknown task is -32602"
"#;
    let dir = scratch(&[("tasks.mcpr", suite)]);
    let server = reference_server();
    let out = mcpr_in(dir.path())
        .args([
            "run",
            "tasks.mcpr",
            "--protocol",
            "2025-11-25",
            "--server",
            &server,
        ])
        .output()
        .unwrap();
    let text = output_text(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("1 passed, 1 failed")
            && text.contains("$.task.taskId is not of type string")
            && text.contains(r#""resultType":"task","taskId""#),
        "{text}"
    );

    // In `mcpr conformance`, the same checks are INFO and say why.
    let out = conformance(
        dir.path(),
        &[
            "--protocol",
            "2025-11-25",
            "--suite",
            "tasks",
            "--input",
            "task_tool=long_task",
            "--",
            &server,
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", output_text(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("INFO    tasks.call")
            && text.contains("optional capability not offered: tools, tasks.requests.tools.call"),
        "{text}"
    );
}

/// `mcpr conformance --list` names every check: the flows of each library and the checks
/// the command makes itself (version negotiation, the unknown cancellation, the stdio and
/// HTTP transports), with their inputs.
#[test]
fn the_list_names_every_check_and_its_inputs() {
    let dir = scratch(&[]);
    let out = conformance(dir.path(), &["--list"]);
    assert_eq!(out.status.code(), Some(0), "{}", output_text(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let libs = mcpr_compiler::stdlib::documents().unwrap();
    let mut ids: Vec<String> = libs
        .iter()
        .flat_map(|l| &l.flows)
        .map(|f| f.check.clone())
        .collect();
    ids.extend(
        mcpr_runtime::conformance::LIBRARY_CHECKS
            .iter()
            .chain(mcpr_runtime::conformance::STDIO_CHECKS)
            .map(|c| c.check)
            .chain(mcpr_runtime::conformance::http::ids())
            .map(|s| s.to_string()),
    );
    for id in &ids {
        assert!(
            text.contains(&format!("  {id} ")),
            "{id} is listed:\n{text}"
        );
    }
    assert!(
        text.contains("input task_tool, input task_arguments={}"),
        "{text}"
    );
    let out = conformance(dir.path(), &["--list", "--suite", "cancellation"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("cancellation.unknown-id") && !text.contains("tools.call"),
        "{text}"
    );
}

/// `--broken no-origin-check`: over HTTP, the foreign Origin is served; exactly the Origin
/// check fails, in both eras, and nothing else fails or warns.
#[test]
fn a_server_without_origin_validation_fails_exactly_the_origin_check() {
    let dir = scratch(&[]);
    let http = HttpServer::start(
        reference_server(),
        &["--http", "127.0.0.1:0", "--broken", "no-origin-check"],
    );
    let mut args = with_inputs(&["--format", "json", "--url"]);
    args.push(http.url.clone());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = conformance(dir.path(), &args);
    assert_eq!(out.status.code(), Some(1), "{}", output_text(&out));
    let failed: Vec<(String, String)> = verdicts(&out)
        .into_iter()
        .filter(|c| c.2 == "FAILURE" || c.2 == "WARNING")
        .map(|c| (c.0, c.1))
        .collect();
    assert_eq!(
        failed,
        [
            ("2025-11-25".to_string(), "http.origin".to_string()),
            ("2026-07-28".to_string(), "http.origin".to_string())
        ],
        "{}",
        output_text(&out)
    );
}

/// `--suite http` runs the transport checks alone; a baseline may name them.
#[test]
fn the_http_checks_run_alone_and_a_baseline_may_expect_them() {
    let dir = scratch(&[("base.txt", "http.origin  # this server serves any Origin\n")]);
    let http = HttpServer::start(
        reference_server(),
        &["--http", "127.0.0.1:0", "--broken", "no-origin-check"],
    );
    let url = http.url.clone();
    let out = conformance(
        dir.path(),
        &["--suite", "http", "--baseline", "base.txt", "--url", &url],
    );
    let text = output_text(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("http.mcp-name-header"), "{text}");
    assert!(text.contains("expected failure (baseline)"), "{text}");
    assert!(!text.contains("tools.unknown-tool"), "{text}");
}
