//! `mcpr run` end to end: the runtime conformance suites (`conformance-tests/runtime/`) with
//! the expected outcome of every test, exit codes, IR JSON input, the JUnit and terminal
//! reports. Real reference server, real pipes.

mod common;
use common::reference_server;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn root() -> PathBuf {
    common::repo_root()
}

fn mcpr() -> Command {
    let mut c = common::mcpr_bin();
    c.current_dir(root()).env_remove("NO_COLOR");
    // Runs from the repository must not add to its own run history (.mcpr/history.jsonl).
    c.env("MCPR_NO_HISTORY", "1");
    c
}

fn text(out: &Output) -> String {
    common::output_text(out)
}

/// `(test name, status, code)` from the `# expect:` comment above each `Test:` line.
fn expectations(source: &str) -> Vec<(String, String, Option<String>)> {
    let mut out = Vec::new();
    let mut pending: Option<(String, Option<String>)> = None;
    for line in source.lines() {
        if let Some(rest) = line.strip_prefix("# expect:") {
            let mut words = rest.split_whitespace();
            let status = words
                .next()
                .expect("a status after `# expect:`")
                .to_string();
            pending = Some((status, words.next().map(str::to_string)));
        } else if let Some(name) = line.strip_prefix("Test:") {
            let name = name.trim().trim_matches('"').to_string();
            let (status, code) = pending
                .take()
                .unwrap_or_else(|| panic!("test {name:?} has no `# expect:` line above it"));
            out.push((name, status, code));
        } else if !line.trim().is_empty() {
            assert!(
                pending.is_none(),
                "`# expect:` must be right above a `Test:` line, not {line:?}"
            );
        }
    }
    out
}

#[test]
fn conformance_suites_have_their_expected_outcomes() {
    let server = reference_server();
    let dir = root().join("conformance-tests/runtime");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mcpr"))
        .collect();
    files.sort();
    assert!(files.len() >= 4, "{files:?}");
    let tmp = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for file in files {
        let source = std::fs::read_to_string(&file).unwrap();
        // `# eras: V1 V2` runs the suite once per pinned protocol version, with the same
        // expected outcomes each time.
        let eras: Vec<Option<String>> = match source.lines().find_map(|l| l.strip_prefix("# eras:"))
        {
            Some(list) => list
                .split_whitespace()
                .map(|v| Some(v.to_string()))
                .collect(),
            None => vec![None],
        };
        for era in eras {
            checked += check_suite(&server, &file, &source, era.as_deref(), tmp.path());
        }
    }
    assert!(checked >= 35, "only {checked} tests checked");
}

/// Runs one conformance suite (pinned to `era` when given) and checks every test's outcome
/// against its `# expect:` line; returns how many tests were checked.
fn check_suite(server: &str, file: &Path, source: &str, era: Option<&str>, tmp: &Path) -> usize {
    let mut checked = 0;
    let expected = expectations(source);
    let json = tmp.join("report.json");
    let rel = file.strip_prefix(root()).unwrap();
    let out = mcpr()
        .arg("run")
        .arg(rel)
        .args(["--server", server, "--jobs", "4"])
        .args(era.map(|v| vec!["--protocol", v]).unwrap_or_default())
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    let any_bad = expected
        .iter()
        .any(|(_, s, _)| s == "failed" || s == "blocked");
    assert_eq!(
        out.status.code(),
        Some(if any_bad { 1 } else { 0 }),
        "{} ({}): {}",
        rel.display(),
        era.unwrap_or("probed"),
        text(&out)
    );
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let tests = report["suites"][0]["tests"].as_array().unwrap();
    assert_eq!(tests.len(), expected.len(), "{}", rel.display());
    for (name, status, code) in &expected {
        let t = tests
            .iter()
            .find(|t| t["name"] == name.as_str())
            .unwrap_or_else(|| panic!("{}: no result for {name:?}", rel.display()));
        assert_eq!(
            t["status"],
            status.as_str(),
            "{}: {name}: {t:#}",
            rel.display()
        );
        if let Some(code) = code {
            assert_eq!(
                t["failure"]["code"],
                code.as_str(),
                "{}: {name}: {t:#}",
                rel.display()
            );
        }
        checked += 1;
    }
    checked
}

#[test]
fn failure_report_points_at_the_line_with_expected_and_actual() {
    let server = reference_server();
    let out = mcpr()
        .args([
            "run",
            "conformance-tests/runtime/assertions-fail.mcpr",
            "--server",
            &server,
            "--test",
            "contains on a string",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        !stdout.contains('\x1b'),
        "no colour when stdout is not a terminal: {stdout}"
    );
    for needle in [
        "✗ contains on a string failed",
        // The failed expectation's own line, not the call above it.
        "at conformance-tests/runtime/assertions-fail.mcpr:32:3",
        "32 |   Expect \"content[0].text\" contains \"bye\"",
        "expected: contains \"bye\"",
        "actual:   \"hello\"",
        "last MCP message (received, response)",
        "0 passed, 1 failed, 0 skipped, 0 blocked",
    ] {
        assert!(stdout.contains(needle), "missing {needle:?} in:\n{stdout}");
    }
}

#[test]
fn junit_shows_failed_blocked_and_skipped_tests() {
    let server = reference_server();
    let tmp = tempfile::tempdir().unwrap();
    let xml = tmp.path().join("junit.xml");
    let out = mcpr()
        .args([
            "run",
            "conformance-tests/runtime/lifecycle.mcpr",
            "--server",
            &server,
            "--junit",
        ])
        .arg(&xml)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let xml = std::fs::read_to_string(xml).unwrap();
    assert!(
        xml.contains(r#"<testsuite name="Lifecycle, variables and dependencies" tests="10""#),
        "{xml}"
    );
    assert!(
        xml.contains(r#"<failure message="conformance-tests/runtime/lifecycle.mcpr:"#),
        "{xml}"
    );
    assert!(xml.contains(r#"type="blocked""#), "{xml}");
    assert_eq!(xml.matches("<skipped").count(), 3, "{xml}");
}

#[test]
fn ir_json_input_and_exit_codes() {
    let server = reference_server();
    let tmp = tempfile::tempdir().unwrap();
    // IR JSON, as `mcpr compile --emit ir` writes it, runs the same as the .mcpr file.
    let ir = mcpr()
        .args(["compile", "examples/customers.mcpr", "--emit", "ir"])
        .output()
        .unwrap();
    assert_eq!(ir.status.code(), Some(0), "{}", text(&ir));
    let ir_path = tmp.path().join("customers.ir.json");
    std::fs::write(&ir_path, &ir.stdout).unwrap();
    let out = mcpr()
        .arg("run")
        .arg(&ir_path)
        .args(["--server", &server])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("8 passed, 0 failed, 0 skipped, 0 blocked")
    );

    // A dependency cycle is a configuration error found when the IR is read (located, like
    // every problem of a JSON suite): exit 2, nothing runs.
    let mut suite: Value = serde_json::from_slice(&ir.stdout).unwrap();
    suite["tests"][0]["dependsOn"] = serde_json::json!(["echo"]);
    std::fs::write(&ir_path, suite.to_string()).unwrap();
    let out = mcpr()
        .arg("run")
        .arg(&ir_path)
        .args(["--server", &server])
        .output()
        .unwrap();
    common::assert_exit_with(&out, 2, "error MCPLANG405");

    // A --test pattern that matches nothing: exit 2.
    let out = mcpr()
        .args(["run", "examples/customers.mcpr", "--test", "no such test"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));

    // A file that does not compile: exit 2.
    let bad = tmp.path().join("bad.mcpr");
    std::fs::write(
        &bad,
        "MCP Test 1\nServer: x\nTest: \"t\"\n\tCall tool \"a\"\n",
    )
    .unwrap();
    let out = mcpr().arg("run").arg(&bad).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));

    // A server that cannot start: the tests error, exit 3, with the reason.
    let out = mcpr()
        .args([
            "run",
            "examples/customers.mcpr",
            "--server",
            "/nonexistent/mcp-server",
            "--test",
            "Echo",
            "--no-deps",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "an unselected producer blocks: {}",
        text(&out)
    );
    let out = mcpr()
        .args([
            "run",
            "examples/customers.mcpr",
            "--server",
            "/nonexistent/mcp-server",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("MCP-SPAWN-001"),
        "{}",
        text(&out)
    );
}

/// `--protocol` pins the version of every session; without it the runner probes, and the
/// reference server (which speaks both eras) gets 2026-07-28. An unknown version is a usage
/// error before anything starts.
#[test]
fn protocol_flag_pins_every_session() {
    let server = reference_server();
    let tmp = tempfile::tempdir().unwrap();
    let versions = |extra: &[&str]| -> Vec<String> {
        let json = tmp.path().join("r.json");
        let out = mcpr()
            .args([
                "run",
                "examples/customers.mcpr",
                "--no-history",
                "--server",
                &server,
            ])
            .arg("--json")
            .arg(&json)
            .args(extra)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        let report: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        report["suites"][0]["tests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["protocolVersion"].as_str().unwrap_or("none").to_string())
            .collect()
    };
    let probed = versions(&[]);
    assert_eq!(probed.len(), 8);
    assert!(probed.iter().all(|v| v == "2026-07-28"), "{probed:?}");
    for pinned in ["2025-11-25", "2025-06-18", "2026-07-28"] {
        let got = versions(&["--protocol", pinned]);
        assert!(got.iter().all(|v| v == pinned), "{pinned}: {got:?}");
    }
    let out = mcpr()
        .args(["run", "examples/customers.mcpr", "--server", &server])
        .args(["--protocol", "2099-01-01"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--protocol \"2099-01-01\"") && err.contains("2025-11-25"),
        "{err}"
    );
}

#[test]
fn secrets_never_reach_any_report() {
    let server = reference_server();
    let tmp = tempfile::tempdir().unwrap();
    let planted = "tok-5a7e/9q+SECRET";
    let in_env = "env-value-8c1d2e";
    let suite = serde_json::json!({
        "version": 1,
        "name": "secrets",
        "target": {"transport": "stdio", "command": server, "env": {"PLANTED": in_env}},
        "redact": [planted],
        "tests": [
            {"name": "leaks in expected and actual", "id": "leak",
             "steps": [{"tool": {"name": "echo", "arguments": {"text": planted}},
                        "assert": {"json": [{"path": "$.content[0].text", "equals": format!("{planted}!")}]}}]},
            {"name": "leaks from the environment",
             "steps": [{"tool": {"name": "environment", "arguments": {"name": "PLANTED"}},
                        "assert": {"json": [{"path": "$.content[0].text", "equals": "nothing"}]}}]},
            {"name": "sensitive export", "id": "exp",
             "steps": [{"tool": {"name": "echo", "arguments": {"text": "sensitive-output-77"}},
                        "export": {"v": {"path": "$.content[0].text", "sensitive": true}}}]},
            {"name": "consumer gets the real value", "dependsOn": ["exp"],
             "steps": [{"tool": {"name": "echo", "arguments": {"text": "${deps.exp.v}"}},
                        "assert": {"json": [{"path": "$.content[0].text", "equals": "sensitive-output-77"}]}}]},
        ]
    });
    let ir = tmp.path().join("secrets.ir.json");
    std::fs::write(&ir, suite.to_string()).unwrap();
    let json = tmp.path().join("r.json");
    let xml = tmp.path().join("r.xml");
    let out = mcpr()
        .arg("run")
        .arg(&ir)
        .arg("--json")
        .arg(&json)
        .arg("--junit")
        .arg(&xml)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let json_text = std::fs::read_to_string(&json).unwrap();
    let report: Value = serde_json::from_str(&json_text).unwrap();
    let statuses: Vec<&str> = report["suites"][0]["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["status"].as_str().unwrap())
        .collect();
    assert_eq!(
        statuses,
        ["failed", "failed", "passed", "passed"],
        "{json_text}"
    );
    let all = format!(
        "{}\n{json_text}\n{}",
        text(&out),
        std::fs::read_to_string(&xml).unwrap()
    );
    assert!(all.contains("[REDACTED]"), "{all}");
    use base64::Engine as _;
    for secret in [planted, in_env, "sensitive-output-77"] {
        let forms = [
            secret.to_string(),
            secret.replace('/', "%2F").replace('+', "%2B"),
            base64::engine::general_purpose::STANDARD.encode(secret),
        ];
        for f in forms {
            assert!(!all.contains(&f), "{f:?} leaked:\n{all}");
        }
    }
}

#[test]
fn github_annotations_point_at_the_failing_line() {
    let server = reference_server();
    let out = mcpr()
        .args([
            "run",
            "conformance-tests/runtime/lifecycle.mcpr",
            "--server",
            &server,
        ])
        .env("GITHUB_ACTIONS", "true")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let errors: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("::error "))
        .collect();
    assert_eq!(errors.len(), 4, "2 failed and 2 blocked: {stdout}");
    assert!(
        errors[0].starts_with("::error file=conformance-tests/runtime/lifecycle.mcpr,line=")
            && errors[0].contains("title=mcpr%3A Broken producer::"),
        "{}",
        errors[0]
    );
    assert!(
        stdout.contains("::notice title=mcpr::3 passed, 2 failed, 3 skipped, 2 blocked"),
        "{stdout}"
    );
    let plain = mcpr()
        .args([
            "run",
            "conformance-tests/runtime/lifecycle.mcpr",
            "--server",
            &server,
        ])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&plain.stdout).contains("::error"));
}

#[test]
fn state_out_then_state_in() {
    let server = reference_server();
    let tmp = tempfile::tempdir().unwrap();
    let producer = tmp.path().join("producer.ir.json");
    let consumer = tmp.path().join("consumer.ir.json");
    let state = tmp.path().join("state.json");
    let target = serde_json::json!({"transport": "stdio", "command": server});
    std::fs::write(
        &producer,
        serde_json::json!({"version": 1, "target": target, "tests": [{"name": "make", "id": "make",
            "steps": [{"tool": {"name": "add", "arguments": {"a": 20, "b": 1}},
                       "export": {"n": {"path": "$.structuredContent.sum"}}}]}]})
        .to_string(),
    )
    .unwrap();
    std::fs::write(
        &consumer,
        serde_json::json!({"version": 1, "target": target, "tests": [{"name": "use",
            "steps": [{"tool": {"name": "add", "arguments": {"a": "${state.make.n}", "b": 1}},
                       "assert": {"json": [{"path": "$.structuredContent.sum", "equals": 22}]}}]}]})
        .to_string(),
    )
    .unwrap();
    let out = mcpr()
        .arg("run")
        .arg(&producer)
        .arg("--state-out")
        .arg(&state)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let out = mcpr()
        .arg("run")
        .arg(&consumer)
        .arg("--state-in")
        .arg(&state)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // Another target: refused (exit 2) unless forced.
    let out = mcpr()
        .arg("run")
        .arg(&consumer)
        .arg("--state-in")
        .arg(&state)
        .args(["--server", &format!("{server} --variant conflict")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("MCP-STATE-003"));
}

#[test]
fn interrupt_exits_130_and_ends_the_servers() {
    let server = reference_server();
    let tmp = tempfile::tempdir().unwrap();
    let ir = tmp.path().join("slow.ir.json");
    let marker = format!("mcpr-interrupt-{}", std::process::id());
    std::fs::write(
        &ir,
        serde_json::json!({"version": 1,
            "target": {"transport": "stdio", "command": server, "env": {"MCPR_TEST_MARKER": marker}},
            "tests": [
                {"name": "slow 1", "steps": [{"tool": {"name": "slow", "arguments": {"ms": 20000}}, "timeoutMs": 30000}]},
                {"name": "slow 2", "steps": [{"tool": {"name": "slow", "arguments": {"ms": 20000}}, "timeoutMs": 30000}]},
            ]})
        .to_string(),
    )
    .unwrap();
    let mut child = mcpr()
        .arg("run")
        .arg(&ir)
        .args(["--jobs", "2"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let started = std::time::Instant::now();
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let code = child.wait().unwrap().code();
    assert_eq!(code, Some(130));
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    // No server of this run is left: none has our marker in its environment.
    std::thread::sleep(std::time::Duration::from_millis(200));
    let mut left = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(env) = std::fs::read(entry.path().join("environ"))
            && String::from_utf8_lossy(&env).contains(&marker)
        {
            left.push(entry.file_name());
        }
    }
    assert!(left.is_empty(), "servers left running: {left:?}");
}

/// Snapshots of the three reports of one suite, with durations filtered out.
#[test]
fn report_snapshots() {
    let server = reference_server();
    let tmp = tempfile::tempdir().unwrap();
    let json = tmp.path().join("r.json");
    let xml = tmp.path().join("r.xml");
    let out = mcpr()
        .args([
            "run",
            "conformance-tests/runtime/lifecycle.mcpr",
            "--server",
            &server,
            "--jobs",
            "3",
            "--json",
        ])
        .arg(&json)
        .arg("--junit")
        .arg(&xml)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"\(\d+(\.\d+)?m?s\)", "(TIME)");
    settings.add_filter(r#""durationMs": \d+"#, r#""durationMs": 0"#);
    settings.add_filter(r#"time="[0-9.]+""#, r#"time="0""#);
    settings.add_filter(r#"timestamp="[^"]+""#, r#"timestamp="T""#);
    settings.add_filter(r#"hostname="[^"]*""#, r#"hostname="HOST""#);
    settings.add_filter(r#""hostname": "[^"]*""#, r#""hostname": "HOST""#);
    settings.add_filter(r#""startedAt": "[^"]*""#, r#""startedAt": "T""#);
    settings.add_filter(
        r#""(startUs|spawnUs|handshakeUs|closeUs|lane)": \d+"#,
        r#""$1": 0"#,
    );
    settings.bind(|| {
        insta::assert_snapshot!("terminal", String::from_utf8_lossy(&out.stdout));
        insta::assert_snapshot!("json", std::fs::read_to_string(&json).unwrap());
        insta::assert_snapshot!("junit", std::fs::read_to_string(&xml).unwrap());
    });
}

#[test]
fn a_failure_inside_a_flow_names_the_flow_call() {
    let server = reference_server();
    let out = mcpr()
        .args([
            "run",
            "conformance-tests/runtime/assertions-fail.mcpr",
            "--server",
            &server,
            "--test",
            "*inside a flow",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("at conformance-tests/runtime/assertions-fail.mcpr:115:3"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "in flow “Check a sum” used at conformance-tests/runtime/assertions-fail.mcpr:119:3"
        ),
        "{stdout}"
    );
}

#[test]
fn the_example_suite_passes_over_streamable_http_with_url() {
    let server = common::HttpServer::start(reference_server(), &["--http", "127.0.0.1:0"]);
    let out = mcpr()
        .args(["run", "examples/customers.mcpr", "--url", &server.url])
        .output()
        .unwrap();
    drop(server);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("8 passed, 0 failed"),
        "{}",
        text(&out)
    );
}

/// Starts the reference server over HTTP with `--require-header` pairs; returns it and its URL.
fn http_reference(required: &[&str]) -> (std::process::Child, String) {
    use std::io::{BufRead, BufReader};
    let mut cmd = Command::new(reference_server());
    cmd.args(["--http", "127.0.0.1:0"]);
    for r in required {
        cmd.args(["--require-header", r]);
    }
    let mut child = cmd
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line.trim().rsplit(' ').next().unwrap().to_string();
    (child, url)
}

#[test]
fn token_from_runs_once_and_header_values_and_tokens_are_secrets() {
    let token = "tok-9f3a/7Qx+e2";
    let header = "hdr-value-71b5c3";
    let (mut server, url) = http_reference(&[
        &format!("Authorization: Bearer {token}"),
        &format!("X-Tenant: {header}"),
    ]);
    let tmp = tempfile::tempdir().unwrap();
    let token_file = tmp.path().join("token.txt");
    std::fs::write(&token_file, format!("  {token}\n")).unwrap();
    let count = tmp.path().join("count");
    // The command notes each run in `count`, then prints the token (with spaces).
    let script = tmp.path().join("get-token.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho run >> '{}'\ncat '{}'\n",
            count.display(),
            token_file.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let suite = tmp.path().join("auth.mcpr");
    let call = |name: &str, text: &str, expected: &str| {
        format!(
            "Test: \"{name}\"\n  Call tool \"echo\" with:\n    text: \"{text}\"\n  Expect \"content[0].text\" equals \"{expected}\"\n\n"
        )
    };
    std::fs::write(
        &suite,
        format!(
            "Suite: \"Token from\"\nMCP URL: {url}\nServer options:\n  headers:\n    X-Tenant: \"${{env.MCPR_TEST_TENANT}}\"\n  Token from: {}\n\n{}{}{}",
            script.display(),
            call("authorized call", "${env.MCPR_TEST_TOKEN_COPY}", "something else"),
            call("header value in a failure", "${env.MCPR_TEST_TENANT}", "nothing"),
            call("plain call", "hello", "hello"),
        ),
    )
    .unwrap();
    let json = tmp.path().join("r.json");
    let xml = tmp.path().join("r.xml");
    let out = mcpr()
        .arg("run")
        .arg(&suite)
        .arg("--json")
        .arg(&json)
        .arg("--junit")
        .arg(&xml)
        .env("MCPR_TEST_TENANT", header)
        .env("MCPR_TEST_TOKEN_COPY", token)
        .output()
        .unwrap();
    let _ = server.kill();
    let _ = server.wait();
    // The two leaking tests fail (their values differ), the plain one passes: every
    // request was authorized.
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let json_text = std::fs::read_to_string(&json).unwrap();
    let report: Value = serde_json::from_str(&json_text).unwrap();
    let statuses: Vec<&str> = report["suites"][0]["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["failed", "failed", "passed"], "{json_text}");
    assert_eq!(
        std::fs::read_to_string(&count).unwrap().lines().count(),
        1,
        "the token command runs once per run"
    );
    let all = format!(
        "{}\n{json_text}\n{}",
        text(&out),
        std::fs::read_to_string(&xml).unwrap()
    );
    assert!(all.contains("[REDACTED]"), "{all}");
    use base64::Engine as _;
    for secret in [token, header] {
        for f in [
            secret.to_string(),
            secret.replace('/', "%2F").replace('+', "%2B"),
            base64::engine::general_purpose::STANDARD.encode(secret),
        ] {
            assert!(!all.contains(&f), "{f:?} leaked:\n{all}");
        }
    }

    // A failing command stops the run before any test, with its named code.
    std::fs::write(&script, "#!/bin/sh\necho no credentials >&2\nexit 3\n").unwrap();
    std::fs::write(
        &suite,
        format!(
            "Suite: \"Token from fails\"\nMCP URL: {url}\nServer options:\n  Token from: {}\n\n{}",
            script.display(),
            call("never runs", "x", "x"),
        ),
    )
    .unwrap();
    let out = mcpr().arg("run").arg(&suite).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("MCP-AUTH-002")
            && stderr.contains("exited with status 3; stderr: no credentials"),
        "{}",
        text(&out)
    );
}

/// A YAML suite runs like the `.mcpr` suite it mirrors; a failing YAML step points at its line.
#[test]
fn yaml_suites_run_against_the_reference_server() {
    let server = reference_server();
    let out = mcpr()
        .args(["run", "examples/customers.yaml", "--server", &server])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("8 passed, 0 failed, 0 skipped, 0 blocked"),
        "{}",
        text(&out)
    );

    let tmp = tempfile::tempdir().unwrap();
    let suite = "version: 1\ntarget: {transport: stdio, command: node}\ntests:\n  - name: Echo\n    steps:\n      - tool:\n          name: echo\n          arguments: {text: hello}\n        assert:\n          json:\n            - path: $.content[0].text\n              equals: goodbye\n";
    std::fs::write(tmp.path().join("suite.yml"), suite).unwrap();
    let out = mcpr()
        .current_dir(tmp.path())
        .args(["run", "suite.yml", "--server", &server])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("at suite.yml:6:9"), "{}", text(&out));
    assert!(stdout.contains("expected: \"goodbye\""), "{}", text(&out));

    // A JSON suite with a schema error does not run: exit 2 with a located diagnostic.
    std::fs::write(
        tmp.path().join("bad.json"),
        r#"{"version": 1, "target": {"transport": "stdio", "command": "node"}, "tests": [{"name": "x", "stpes": []}]}"#,
    )
    .unwrap();
    let out = mcpr()
        .current_dir(tmp.path())
        .args(["run", "bad.json", "--server", &server])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("bad.json:1:93: error MCPLANG602"),
        "{}",
        text(&out)
    );
}

#[test]
fn a_401_errors_the_test_and_names_the_challenge() {
    let (mut server, url) = http_reference(&["Authorization: Bearer right-token-123"]);
    let tmp = tempfile::tempdir().unwrap();
    let suite = tmp.path().join("unauthorized.mcpr");
    std::fs::write(
        &suite,
        format!(
            "Suite: \"Wrong token\"\nMCP URL: {url}\nServer options:\n  headers:\n    Authorization: \"Bearer wrong-token-456\"\n\n\
             Test: \"call\"\n  Call tool \"echo\" with:\n    text: \"x\"\n  Expect it succeeds\n"
        ),
    )
    .unwrap();
    let json = tmp.path().join("r.json");
    let out = mcpr()
        .arg("run")
        .arg(&suite)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let test = &report["suites"][0]["tests"][0];
    assert_eq!(test["status"], "errored", "{test}");
    assert_eq!(test["failure"]["code"], "MCP-AUTH-003", "{test}");
    let message = test["failure"]["message"].as_str().unwrap();
    assert!(
        message.contains("HTTP status 401: the server requires authentication; WWW-Authenticate: scheme Bearer, realm \"mcpr-reference\", error \"invalid_token\""),
        "{message}"
    );
    assert!(message.contains("resource_metadata \"http://"), "{message}");
    let all = text(&out);
    assert!(all.contains("MCP-AUTH-003"), "{all}");
    assert!(
        !all.contains("wrong-token-456"),
        "the header value leaked:\n{all}"
    );
}

#[test]
fn a_misspelt_tool_and_an_absent_path_say_what_exists() {
    let dir = common::scratch(&[(
        "suite.mcpr",
        &format!(
            "MCP Test 1\nServer: {}\n\nTest: \"Misspelt\"\n  Call tool \"ech\" with:\n    text: hi\n\nTest: \"Absent\"\n  Call tool \"add\" with:\n    a: 2\n    b: 3\n  Expect \"structuredContent.total\" equals 5\n",
            reference_server()
        ),
    )]);
    let out = common::mcpr_in(dir.path())
        .args(["run", "suite.mcpr", "--no-history"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("did you mean \"echo\""), "{}", text(&out));
    assert!(
        stdout.contains("$.structuredContent is there: its keys are `sum`"),
        "{}",
        text(&out)
    );
}

/// A suite's problems are printed as `check` prints them: the first hundred of a file, the
/// others counted on one line (a generated suite of thousands of tests once printed every
/// one of its warnings before running).
#[test]
fn run_prints_the_first_hundred_problems_of_a_file_and_counts_the_rest() {
    let mut suite = String::from("MCP Test 1\nServer: node server.js\n\n");
    for i in 0..150 {
        suite.push_str(&format!("Test: \"t{i}\"\n  Sned \"ping\"\n\n"));
    }
    let dir = common::scratch(&[("broken.mcpr", &suite)]);
    let out = common::mcpr_in(dir.path())
        .args(["run", "broken.mcpr"])
        .env("MCPR_NO_HISTORY", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    let shown = err.lines().filter(|l| l.contains("MCPLANG")).count();
    assert_eq!(shown, 100, "{err}");
    let count = "\u{2026} and 50 more in broken.mcpr (50 errors; \
                 `mcpr check --max-diagnostics 0 broken.mcpr` shows all)";
    assert!(err.contains(count), "{err}");
    assert!(err.contains("the suite has errors"), "{err}");
}
