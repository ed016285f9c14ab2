//! The reports of `mcpr run` as their consumers read them: the HTML report in headless
//! Chromium, the JUnit XML through junitparser, the JSON reports of three shards merged
//! into the unsharded one, GitHub annotations and the job summary, reports on stdout.
//! Real reference server, real pipes, real consumers.

mod common;
use common::reference_server;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

fn root() -> PathBuf {
    common::repo_root()
}

fn mcpr() -> Command {
    let mut c = common::mcpr_bin();
    c.current_dir(root()).env("NO_COLOR", "1");
    // Runs from the repository must not add to its own run history (.mcpr/history.jsonl).
    c.env("MCPR_NO_HISTORY", "1");
    c
}

fn text(out: &Output) -> String {
    common::output_text(out)
}

/// Whether a missing consumer (Chromium, junitparser) is a failure rather than a skip:
/// `.ci/run` sets `MCPR_REQUIRE_REPORT_CONSUMERS=1` after installing them; `CI=true` too.
fn in_ci() -> bool {
    std::env::var("MCPR_REQUIRE_REPORT_CONSUMERS").is_ok_and(|v| v == "1")
        || std::env::var("CI").is_ok_and(|v| v == "true")
}

/// A report consumer (`what`) is not installed: a failure where one is required, else the
/// test is skipped with how to install it.
fn missing_consumer(what: &str, install: &str) {
    assert!(
        !in_ci(),
        "a report consumer is required but {what} is not installed (.ci/run installs it)"
    );
    eprintln!("skipped: {what} is not installed ({install}); CI runs it");
}

/// A suite whose every test opens a session: two pass, one fails, a data-driven test with
/// three rows (one fails), and one whose server writes to stderr.
fn mixed_suite(dir: &Path, name: &str) -> PathBuf {
    let server = reference_server();
    let noisy = format!("echo 'warming up the noisy server' >&2; exec {server}");
    let suite = json!({
        "version": 1,
        "name": name,
        "target": {"transport": "stdio", "command": server},
        "servers": {
            "noisy": {"transport": "stdio", "command": "sh", "args": ["-c", noisy]},
            "plain": {"transport": "stdio", "command": server},
        },
        "tests": [
            {"name": "adds", "steps": [{"tool": {"name": "add", "arguments": {"a": 1, "b": 2}},
                "assert": {"json": [{"path": "$.structuredContent.sum", "equals": 3}]}}]},
            {"name": "echoes", "server": "plain", "steps": [{"tool": {"name": "echo", "arguments": {"text": "hi"}}},
                {"tool": {"name": "echo", "arguments": {"text": "again"}}}]},
            {"name": "wrong sum", "steps": [{"tool": {"name": "add", "arguments": {"a": 2, "b": 2}},
                "assert": {"json": [{"path": "$.structuredContent", "equals": {"sum": 5}}]}}]},
            {"name": "doubles", "forEach": {"rows": [
                {"caseId": "one", "v": 1, "twice": 2},
                {"caseId": "two", "v": 2, "twice": 4},
                {"caseId": "bad", "v": 3, "twice": 7}]},
             "steps": [{"tool": {"name": "add", "arguments": {"a": "${row.v}", "b": "${row.v}"}},
                "assert": {"json": [{"path": "$.structuredContent.sum", "equals": "${row.twice}"}]}}]},
            {"name": "noisy server", "server": "noisy",
             "steps": [{"tool": {"name": "echo", "arguments": {"text": "quiet"}}}]},
        ]
    });
    let path = dir.join(format!("{}.json", name.replace(' ', "-")));
    std::fs::write(&path, serde_json::to_string_pretty(&suite).unwrap()).unwrap();
    path
}

/// Headless Chromium, when the machine has it.
fn chromium() -> Option<PathBuf> {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
}

fn chromium_run(browser: &Path, profile: &Path, args: &[String]) -> Output {
    Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--window-size=1280,1800",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .output()
        .expect("chromium runs")
}

/// The HTML report opened in a real browser: the counts, a failure's location and one
/// timeline bar per test are what the page's script drew. The screenshot is kept under
/// `target/mcpr-artifacts/` for CI to upload.
#[test]
fn html_report_renders_in_headless_chromium() {
    let Some(browser) = chromium() else {
        return missing_consumer("Debian's chromium", "apt-get install chromium");
    };
    let tmp = tempfile::tempdir().unwrap();
    let suite = mixed_suite(tmp.path(), "html report");
    let html = tmp.path().join("report.html");
    let json_path = tmp.path().join("report.json");
    let out = mcpr()
        .arg("run")
        .arg(&suite)
        .args(["--jobs", "2", "--no-history", "--html"])
        .arg(&html)
        .arg("--json")
        .arg(&json_path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let report: Value = serde_json::from_slice(&std::fs::read(&json_path).unwrap()).unwrap();
    let tests = report["suites"][0]["tests"].as_array().unwrap().clone();
    assert_eq!(tests.len(), 7);
    let url = format!("file://{}", html.display());
    let profile = tmp.path().join("chromium-profile");
    let dom = chromium_run(&browser, &profile, &["--dump-dom".into(), url.clone()]);
    let dom_text = String::from_utf8_lossy(&dom.stdout).into_owned();
    assert!(
        dom_text.contains("id=\"count-passed\""),
        "the page's script did not draw it: {}",
        text(&dom)
    );
    for (status, n) in [("passed", 5), ("failed", 2), ("errored", 0), ("blocked", 0)] {
        let needle = format!("id=\"count-{status}\">{n}</span>");
        assert!(dom_text.contains(&needle), "{needle} in:\n{dom_text}");
    }
    let failing = tests.iter().find(|t| t["name"] == "wrong sum").unwrap();
    let loc = &failing["failure"]["location"];
    let at = format!(
        "at {}:{}:{}",
        loc["file"].as_str().unwrap(),
        loc["line"],
        loc["column"]
    );
    assert!(dom_text.contains(&at), "{at} in:\n{dom_text}");
    let bars = dom_text.matches("class=\"bar ").count();
    assert_eq!(bars, tests.len(), "one timeline bar per test:\n{dom_text}");
    assert!(
        dom_text.contains("doubles — 3 rows (2 passed, 1 failed)"),
        "data rows grouped under their test:\n{dom_text}"
    );
    assert!(
        dom_text.contains("warming up the noisy server"),
        "stderr tail shown"
    );
    // `#status=failed` opens the page with only the failed tests shown: rows and bars.
    let filtered = chromium_run(
        &browser,
        &profile,
        &["--dump-dom".into(), format!("{url}#status=failed")],
    );
    let filtered = String::from_utf8_lossy(&filtered.stdout).into_owned();
    let (mut hidden, mut visible) = (0, 0);
    for tag in filtered
        .split('<')
        .filter_map(|t| t.split_once('>').map(|(t, _)| t))
    {
        let Some(status) = attribute(tag, "data-status-of") else {
            continue;
        };
        let is_hidden =
            attribute(tag, "class").is_some_and(|c| c.split(' ').any(|w| w == "hidden"));
        assert_eq!(is_hidden, status != "failed", "{tag}");
        if is_hidden { hidden += 1 } else { visible += 1 }
    }
    assert_eq!(
        visible,
        2 * 2,
        "two failed tests, each a row and a bar:\n{filtered}"
    );
    assert_eq!(hidden, 2 * 5, "five passed tests hidden, rows and bars");
    assert!(
        filtered.contains("data-status=\"passed\" aria-pressed=\"false\"")
            || filtered.contains("aria-pressed=\"false\" data-status=\"passed\""),
        "the passed filter is off"
    );
    let artifacts = root().join("target/mcpr-artifacts");
    std::fs::create_dir_all(&artifacts).unwrap();
    let shot = artifacts.join("html-report.png");
    let _ = std::fs::remove_file(&shot);
    let taken = chromium_run(
        &browser,
        &profile,
        &[format!("--screenshot={}", shot.display()), url],
    );
    let png =
        std::fs::read(&shot).unwrap_or_else(|e| panic!("no screenshot ({e}): {}", text(&taken)));
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 10_000,
        "{}",
        png.len()
    );
    std::fs::copy(&html, artifacts.join("html-report.html")).unwrap();
}

/// The start tags of a page's text (what is between `<` and `>`).
fn tags(page: &str) -> impl Iterator<Item = &str> {
    page.split('<')
        .filter_map(|t| t.split_once('>').map(|(t, _)| t))
}

/// Whether a start tag carries the class `hidden`.
fn is_hidden(tag: &str) -> bool {
    attribute(tag, "class").is_some_and(|c| c.split(' ').any(|w| w == "hidden"))
}

/// The test rows of a page drawn by the report's script, in the order of the page: each
/// row's status, test id and whether it is hidden.
fn test_rows(page: &str) -> Vec<(String, String, bool)> {
    tags(page)
        .filter(|t| t.starts_with("tr "))
        .filter_map(|t| {
            let status = attribute(t, "data-status-of")?;
            let key = attribute(t, "data-key")?;
            Some((status.to_string(), key.to_string(), is_hidden(t)))
        })
        .collect()
}

/// The HTML report lists failures first, and its filter box (pre-filled from the link's
/// `#q=…`, as typing into it sets the link) shows only the tests whose name, status or
/// failure text holds every word typed, rows and timeline bars alike, in headless Chromium.
#[test]
fn html_report_lists_failures_first_and_filters_by_name_status_and_text() {
    let Some(browser) = chromium() else {
        return missing_consumer("Debian's chromium", "apt-get install chromium");
    };
    let tmp = tempfile::tempdir().unwrap();
    let suite = mixed_suite(tmp.path(), "html filter");
    let html = tmp.path().join("report.html");
    let json_path = tmp.path().join("report.json");
    let out = mcpr()
        .arg("run")
        .arg(&suite)
        .args(["--jobs", "2", "--no-history", "--html"])
        .arg(&html)
        .arg("--json")
        .arg(&json_path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let report: Value = serde_json::from_slice(&std::fs::read(&json_path).unwrap()).unwrap();
    let tests = report["suites"][0]["tests"].as_array().unwrap().clone();
    let key_of = |pick: &dyn Fn(&Value) -> bool| -> String {
        let t = tests.iter().find(|t| pick(t)).expect("the test");
        format!("0:{}", t["id"].as_str().unwrap())
    };
    let wrong_sum = key_of(&|t| t["name"] == "wrong sum");
    let bad_row = key_of(&|t| t["logicalName"] == "doubles" && t["status"] == "failed");
    let url = format!("file://{}", html.display());
    let profile = tmp.path().join("chromium-profile");
    let page = |fragment: &str| -> String {
        let dom = chromium_run(
            &browser,
            &profile,
            &["--dump-dom".into(), format!("{url}{fragment}")],
        );
        let page = String::from_utf8_lossy(&dom.stdout).into_owned();
        assert!(
            page.contains("id=\"search\""),
            "no filter box: {}",
            text(&dom)
        );
        page
    };

    // Failures first: the failed test, then the group of data rows with its failed row
    // first, then the passed tests in the suite's order.
    let plain = page("");
    let rows = test_rows(&plain);
    assert_eq!(rows.len(), 7, "{plain}");
    let statuses: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(
        statuses,
        [
            "failed", "failed", "passed", "passed", "passed", "passed", "passed"
        ],
        "{plain}"
    );
    assert_eq!(rows[0].1, wrong_sum);
    assert_eq!(rows[1].1, bad_row);
    assert!(rows.iter().all(|r| !r.2), "nothing hidden without a filter");
    let doubles_group = plain.find("doubles — 3 rows").unwrap();
    let adds = plain.find(" adds").expect("the adds row");
    assert!(
        doubles_group < adds,
        "a group with a failed row before passed tests"
    );

    // What is shown for a filter: the keys of the visible rows, and the visible bars.
    let shown = |page: &str| -> (Vec<String>, usize) {
        let rows: Vec<String> = test_rows(page)
            .into_iter()
            .filter(|r| !r.2)
            .map(|r| r.1)
            .collect();
        let bars = tags(page)
            .filter(|t| t.starts_with("div ") && attribute(t, "data-status-of").is_some())
            .filter(|t| !is_hidden(t))
            .count();
        (rows, bars)
    };
    // By name, in any case, the box showing what it filters by.
    let by_name = page("#q=WRONG");
    assert!(
        by_name.contains("value=\"WRONG\""),
        "the box holds the text"
    );
    assert_eq!(shown(&by_name), (vec![wrong_sum.clone()], 1), "{by_name}");
    assert!(by_name.contains("1 of 7 tests shown"), "{by_name}");
    // Every word must match: the group's name and the row's case.
    let two_words = page("#q=doubles%20bad");
    assert_eq!(shown(&two_words), (vec![bad_row.clone()], 1), "{two_words}");
    // By status.
    let passed = page("#q=passed");
    let (rows, bars) = shown(&passed);
    assert_eq!((rows.len(), bars), (5, 5), "{passed}");
    assert!(!rows.contains(&wrong_sum) && !rows.contains(&bad_row));
    // By the text of the failure: its code and what was expected.
    let code = tests
        .iter()
        .find(|t| t["name"] == "wrong sum")
        .and_then(|t| t["failure"]["code"].as_str())
        .unwrap()
        .to_string();
    let by_code = page(&format!("#q={code}"));
    let (rows, _) = shown(&by_code);
    assert!(
        rows.contains(&wrong_sum),
        "{code} finds its failure: {by_code}"
    );
    assert!(!rows.iter().any(|k| k == &key_of(&|t| t["name"] == "adds")));
    // With the status filter: nothing failed is named `adds`.
    let none = page("#status=failed&q=adds");
    assert_eq!(shown(&none), (vec![], 0), "{none}");
    assert!(none.contains("0 of 7 tests shown"), "{none}");
}

/// The value of attribute `name` in the text of an HTML start tag.
fn attribute<'t>(tag: &'t str, name: &str) -> Option<&'t str> {
    let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    tag[at..].split('"').next()
}

/// The Python with junitparser that `.ci/run` installs (`MCPR_JUNITPARSER_PYTHON`), else
/// any `python3` that can import it.
fn junitparser_python() -> Option<String> {
    let candidates = std::env::var("MCPR_JUNITPARSER_PYTHON")
        .into_iter()
        .chain(["python3".to_string()]);
    for py in candidates {
        let ok = Command::new(&py)
            .args(["-c", "import junitparser"])
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            return Some(py);
        }
    }
    None
}

const READ_JUNIT: &str = r#"
import json, sys
from junitparser import JUnitXml, Failure, Error, Skipped
xml = JUnitXml.fromfile(sys.argv[1])
cases = []
for suite in xml:
    for case in suite:
        kinds = [type(r).__name__ for r in case.result]
        cases.append({
            "suite": suite.name, "hostname": suite.hostname, "timestamp": suite.timestamp,
            "classname": case.classname, "name": case.name,
            "file": case._elem.get("file"), "line": case._elem.get("line"),
            "out": case.system_out, "err": case.system_err, "results": kinds,
        })
print(json.dumps(cases))
"#;

/// junitparser reads the JUnit XML: every case has file and line, the step log is in
/// system-out, the server's stderr in system-err, and two files with the same suite name
/// keep their cases apart by classname.
#[test]
fn junit_is_read_by_junitparser() {
    let Some(python) = junitparser_python() else {
        return missing_consumer("junitparser", "pip install junitparser");
    };
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("a")).unwrap();
    std::fs::create_dir_all(tmp.path().join("b")).unwrap();
    let one = mixed_suite(&tmp.path().join("a"), "same name");
    let two = mixed_suite(&tmp.path().join("b"), "same name");
    let xml = tmp.path().join("junit.xml");
    let out = mcpr()
        .arg("run")
        .args([&one, &two])
        .args(["--no-history", "--junit"])
        .arg(&xml)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let read = Command::new(&python)
        .args(["-c", READ_JUNIT])
        .arg(&xml)
        .output()
        .unwrap();
    assert!(read.status.success(), "{}", text(&read));
    let cases: Vec<Value> = serde_json::from_slice(&read.stdout).unwrap();
    assert_eq!(cases.len(), 14);
    for c in &cases {
        assert!(
            c["file"].as_str().is_some_and(|f| f.ends_with(".json")),
            "{c}"
        );
        assert!(
            c["line"].as_str().is_some_and(|l| l.parse::<u32>().is_ok()),
            "{c}"
        );
        assert!(c["hostname"].as_str().is_some_and(|h| !h.is_empty()), "{c}");
        assert!(c["timestamp"].is_string(), "{c}");
        assert!(
            c["out"].as_str().is_some_and(|o| o.contains("tools/call")),
            "{c}"
        );
    }
    let mut keys: Vec<(String, String)> = cases
        .iter()
        .map(|c| (c["classname"].to_string(), c["name"].to_string()))
        .collect();
    keys.sort();
    keys.dedup();
    assert_eq!(
        keys.len(),
        14,
        "classname keeps equal suite names apart: {keys:?}"
    );
    let noisy: Vec<&Value> = cases
        .iter()
        .filter(|c| c["name"] == "noisy server")
        .collect();
    assert_eq!(noisy.len(), 2);
    assert!(
        noisy
            .iter()
            .all(|c| c["err"].as_str().is_some_and(|e| e.contains("warming up"))),
        "{noisy:?}"
    );
    let wrong = cases.iter().find(|c| c["name"] == "wrong sum").unwrap();
    assert_eq!(wrong["results"], json!(["Failure"]), "{wrong}");
}

/// A JSON report with what differs between runs of the same tests taken out.
fn without_times(mut v: Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(o) => {
                for k in ["durationMs", "startUs", "timing", "startedAt", "hostname"] {
                    o.remove(k);
                }
                o.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v
}

/// A suite run in three shards and merged equals the unsharded report, times aside; a
/// missing shard is refused.
#[test]
fn three_shards_merge_into_the_unsharded_report() {
    let server = reference_server();
    let tmp = tempfile::tempdir().unwrap();
    let run = |extra: &[&str], json: &Path| {
        let out = mcpr()
            .args([
                "run",
                "conformance-tests/runtime/lifecycle.mcpr",
                "--server",
                &server,
            ])
            .args(["--jobs", "2", "--no-history", "--json"])
            .arg(json)
            .args(extra)
            .output()
            .unwrap();
        assert!(matches!(out.status.code(), Some(0 | 1)), "{}", text(&out));
    };
    let whole = tmp.path().join("whole.json");
    run(&[], &whole);
    let shards: Vec<PathBuf> = (1..=3)
        .map(|k| {
            let p = tmp.path().join(format!("shard-{k}.json"));
            run(&["--shard", &format!("{k}/3")], &p);
            p
        })
        .collect();
    let merged = tmp.path().join("merged.json");
    let junit = tmp.path().join("merged.xml");
    let html = tmp.path().join("merged.html");
    let summary = tmp.path().join("summary.md");
    let out = mcpr()
        .args(["report", "merge"])
        .args([&shards[2], &shards[0], &shards[1]])
        .arg("--json")
        .arg(&merged)
        .arg("--junit")
        .arg(&junit)
        .arg("--html")
        .arg(&html)
        .arg("--github")
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("3 passed, 2 failed, 3 skipped, 2 blocked"),
        "{}",
        text(&out)
    );
    let located = stdout
        .lines()
        .filter(|l| l.starts_with("::error file=conformance-tests/runtime/lifecycle.mcpr,line="))
        .count();
    assert_eq!(located, 4, "merged annotations: {stdout}");
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(
        md.contains("mcpr: 3 passed, 2 failed, 3 skipped, 2 blocked"),
        "{md}"
    );
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("Broken producer") && !page.contains("<script src"),
        "self-contained"
    );
    let read = |p: &Path| -> Value { serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap() };
    assert_eq!(without_times(read(&merged)), without_times(read(&whole)));
    assert!(
        std::fs::read_to_string(&junit)
            .unwrap()
            .contains("tests=\"10\"")
    );
    let missing = mcpr()
        .args(["report", "merge"])
        .args([&shards[0], &shards[2]])
        .output()
        .unwrap();
    common::assert_exit_with(&missing, 2, "shard 2/3 missing");
    let twice = mcpr()
        .args(["report", "merge"])
        .args([&whole, &whole])
        .output()
        .unwrap();
    assert_eq!(twice.status.code(), Some(2), "{}", text(&twice));
}

/// GitHub output: an annotation with file and line for every failed, errored and blocked
/// test, and the job summary appended to `GITHUB_STEP_SUMMARY`.
#[test]
fn github_annotations_and_job_summary() {
    let server = reference_server();
    let tmp = tempfile::tempdir().unwrap();
    let summary = tmp.path().join("summary.md");
    std::fs::write(&summary, "earlier step\n").unwrap();
    let out = mcpr()
        .args([
            "run",
            "conformance-tests/runtime/lifecycle.mcpr",
            "--server",
            &server,
        ])
        .args(["--no-history", "--format", "github"])
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let errors: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("::error "))
        .collect();
    assert_eq!(errors.len(), 4, "{stdout}");
    for e in &errors {
        assert!(
            e.starts_with("::error file=conformance-tests/runtime/lifecycle.mcpr,line="),
            "every annotation is located, blocked ones too: {e}"
        );
    }
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(
        md.starts_with("earlier step\n## ❌ mcpr: "),
        "appended: {md}"
    );
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"\(\d+(\.\d+)?m?s\)", "(TIME)");
    settings.bind(|| {
        insta::assert_snapshot!(
            "github_annotations",
            stdout
                .lines()
                .filter(|l| l.starts_with("::"))
                .collect::<Vec<_>>()
                .join("\n")
        );
        insta::assert_snapshot!("github_job_summary", md);
    });
}

/// `--json -` and `--format junit` put the report on stdout and the human lines on stderr;
/// two reports on stdout are refused.
#[test]
fn reports_on_stdout_move_the_human_lines_to_stderr() {
    let server = reference_server();
    let base = |extra: &[&str]| {
        mcpr()
            .args([
                "run",
                "examples/customers.mcpr",
                "--server",
                &server,
                "--no-history",
            ])
            .args(extra)
            .output()
            .unwrap()
    };
    let out = base(&["--json", "-"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let v: Value = serde_json::from_slice(&out.stdout).expect("stdout is the JSON report");
    assert_eq!(v["schemaVersion"], 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("8 passed, 0 failed"));
    assert!(!Path::new(&root()).join("-").exists(), "no file named -");
    let out = base(&["--format", "junit"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("<?xml"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("✓ Addition passed"));
    let out = base(&["--json", "-", "--junit", "-"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("only one report can go to stdout"));
}

/// `-q` shows the failures, the summary and the recap; `-v` every step and the settings.
#[test]
fn quiet_and_verbose_terminal() {
    let server = reference_server();
    let run = |flag: &str| {
        mcpr()
            .args([
                "run",
                "conformance-tests/runtime/lifecycle.mcpr",
                "--server",
                &server,
            ])
            .args(["--no-history", "--jobs", "2", flag])
            .env_remove("MCPR_JOBS")
            .output()
            .unwrap()
    };
    let quiet = run("-q");
    assert_eq!(quiet.status.code(), Some(1), "{}", text(&quiet));
    let verbose = run("-v");
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"\(\d+(\.\d+)?m?s\)", "(TIME)");
    settings.add_filter(r"config    .*", "config    CONFIG");
    settings.bind(|| {
        insta::assert_snapshot!("quiet", String::from_utf8_lossy(&quiet.stdout));
        insta::assert_snapshot!("verbose_settings", String::from_utf8_lossy(&verbose.stderr));
    });
    let v = String::from_utf8_lossy(&verbose.stdout);
    assert!(
        v.contains("      ✓ Set “lower” using lowercase passed ("),
        "{v}"
    );
}

/// The server's stderr tail reaches the JUnit `<system-err>`, the HTML report and the JSON
/// report redacted: a target env value (a secret) printed by the server is masked.
#[test]
fn the_stderr_tail_is_redacted_in_every_report() {
    const SECRET: &str = "s3cr3t-stderr-value-42";
    let server = reference_server();
    let tmp = tempfile::tempdir().unwrap();
    let noisy = format!("echo \"token=$API_TOKEN\" >&2; exec {server}");
    let suite = json!({
        "version": 1,
        "name": "leaky stderr",
        "target": {"transport": "stdio", "command": "sh", "args": ["-c", noisy],
                   "env": {"API_TOKEN": SECRET}},
        "tests": [
            {"name": "fails", "steps": [{"tool": {"name": "add", "arguments": {"a": 1, "b": 1}},
                "assert": {"json": [{"path": "$.structuredContent.sum", "equals": 3}]}}]},
        ]
    });
    let path = tmp.path().join("leaky.json");
    std::fs::write(&path, serde_json::to_string(&suite).unwrap()).unwrap();
    let (xml, html, report) = (
        tmp.path().join("r.xml"),
        tmp.path().join("r.html"),
        tmp.path().join("r.json"),
    );
    let summary = tmp.path().join("summary.md");
    let out = mcpr()
        .arg("run")
        .arg(&path)
        .args(["--no-history", "--format", "github", "--junit"])
        .arg(&xml)
        .arg("--html")
        .arg(&html)
        .arg("--json")
        .arg(&report)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let junit = std::fs::read_to_string(&xml).unwrap();
    assert!(
        junit.contains("<system-err>token=[REDACTED]"),
        "the stderr tail, redacted, in system-err:\n{junit}"
    );
    for (what, body) in [
        ("junit", junit),
        ("html", std::fs::read_to_string(&html).unwrap()),
        ("json", std::fs::read_to_string(&report).unwrap()),
        ("summary", std::fs::read_to_string(&summary).unwrap()),
        ("terminal", text(&out)),
    ] {
        assert!(!body.contains(SECRET), "{what} leaks the secret:\n{body}");
    }
}
