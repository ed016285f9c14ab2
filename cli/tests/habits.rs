//! The habits users bring from pytest, nextest and Playwright, against the reference
//! server: `-k` expressions, `FILE:LINE`, `--last-failed` / `--failed-first` from the run
//! history, `--durations N`, diffs of failed comparisons in the terminal, one duration
//! syntax on every flag, and `mcpr.toml`'s default server, `[lint]` and `[snapshot]`.

mod common;
use common::{mcpr_in, output_text, reference_server, scratch};

use std::process::Output;

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A suite of four tests; `broken` fails while `FAIL` is in the file.
fn suite(fail: bool) -> String {
    let server = reference_server();
    let expected = if fail { "\"nope\"" } else { "\"hi\"" };
    format!(
        r#"MCP Test 1
Suite: "Habits"
Server: {server}

Test: "add small numbers"
  Call tool "add" with:
    a: 1
    b: 2
  Expect it succeeds

Test: "add large numbers"
  Call tool "add" with:
    a: 1000
    b: 2000
  Expect it succeeds

Test: "echo greeting"
  Call tool "echo" with:
    text: "hi"
  Expect "content[0].text" equals {expected}

Test: "echo slowly"
  Call tool "slow" with:
    ms: 300
  Expect it succeeds
"#
    )
}

/// The names of the tests a run reported as passed or failed, in report order.
fn ran(out: &Output) -> Vec<String> {
    stdout(out)
        .lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let rest = l.strip_prefix("✓ ").or_else(|| l.strip_prefix("✗ "))?;
            // A test's line ends in its duration; the recap's lines go on with " — ".
            let end = rest.find(" passed (").or_else(|| rest.find(" failed ("))?;
            Some(rest[..end].to_string())
        })
        .collect()
}

fn run(dir: &std::path::Path, args: &[&str]) -> Output {
    mcpr_in(dir)
        .arg("run")
        .args(args)
        .arg("--no-progress")
        .output()
        .unwrap()
}

#[test]
fn keyword_expressions_and_lines_select_tests() {
    let dir = scratch(&[("s.mcpr", &suite(false))]);
    let out = run(dir.path(), &["s.mcpr", "-k", "add and not large"]);
    assert_eq!(ran(&out), ["add small numbers"], "{}", output_text(&out));
    let out = run(
        dir.path(),
        &["s.mcpr", "-k", "(echo or LARGE) and not slowly"],
    );
    assert_eq!(
        ran(&out),
        ["add large numbers", "echo greeting"],
        "{}",
        output_text(&out)
    );
    let out = run(dir.path(), &["s.mcpr", "-k", "add and"]);
    assert_eq!(out.status.code(), Some(2), "{}", output_text(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected a word at the end"));
    let out = run(dir.path(), &["s.mcpr", "-k", "nothing-like-this"]);
    assert_eq!(out.status.code(), Some(2), "{}", output_text(&out));

    // Line 13 is inside "add large numbers" (its `a: 1000` line), 18 inside "echo
    // greeting" (its `Call tool` line); both arguments name the same file, which runs once.
    let out = run(dir.path(), &["s.mcpr:13", "s.mcpr:18"]);
    assert_eq!(
        ran(&out),
        ["add large numbers", "echo greeting"],
        "{}",
        output_text(&out)
    );
    let out = run(dir.path(), &["s.mcpr:2"]);
    assert_eq!(out.status.code(), Some(2), "{}", output_text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("s.mcpr:2: no test there"),
        "{}",
        output_text(&out)
    );
}

#[test]
fn the_history_picks_what_failed_last_time() {
    let dir = scratch(&[("s.mcpr", &suite(true))]);
    let out = run(dir.path(), &["s.mcpr"]);
    assert_eq!(out.status.code(), Some(1), "{}", output_text(&out));

    let out = run(dir.path(), &["s.mcpr", "--last-failed"]);
    assert_eq!(ran(&out), ["echo greeting"], "{}", output_text(&out));
    let out = run(dir.path(), &["s.mcpr", "--failed-first", "--jobs", "1"]);
    assert_eq!(
        ran(&out),
        [
            "echo greeting",
            "add small numbers",
            "add large numbers",
            "echo slowly"
        ],
        "{}",
        output_text(&out)
    );

    // Fixed: the next --lf run passes it, and then nothing failed last time: every test runs.
    std::fs::write(dir.path().join("s.mcpr"), suite(false)).unwrap();
    let out = run(dir.path(), &["s.mcpr", "--lf"]);
    assert_eq!(out.status.code(), Some(0), "{}", output_text(&out));
    assert_eq!(ran(&out), ["echo greeting"]);
    let out = run(dir.path(), &["s.mcpr", "--lf"]);
    assert_eq!(ran(&out).len(), 4, "{}", output_text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("running every test"),
        "{}",
        output_text(&out)
    );
}

#[test]
fn durations_list_the_slowest_tests() {
    let dir = scratch(&[("s.mcpr", &suite(false))]);
    let out = run(dir.path(), &["s.mcpr", "--durations", "2"]);
    let text = stdout(&out);
    let at = text
        .find("The 2 slowest tests:")
        .unwrap_or_else(|| panic!("{}", output_text(&out)));
    let listed: Vec<&str> = text[at..].lines().skip(1).take(2).collect();
    assert!(listed[0].contains("echo slowly"), "{text}");
    assert!(listed.iter().all(|l| l.contains("passed")), "{text}");
    let out = run(dir.path(), &["s.mcpr", "--durations", "0"]);
    assert!(stdout(&out).contains("Every test, slowest first:"));
}

#[test]
fn failed_comparisons_show_a_diff() {
    let server = reference_server();
    let text = format!(
        r#"MCP Test 1
Suite: "Diffs"
Server: {server}

Test: "text"
  Call tool "echo" with:
    text: "Hello, world"
  Expect "content[0].text" equals "Hello, w0rld!"

Test: "object"
  Call tool "add" with:
    a: 1
    b: 2
  Expect "structuredContent" equals {{"sum": 4, "extra": true}}
"#
    );
    let dir = scratch(&[("d.mcpr", &text)]);
    let out = run(dir.path(), &["d.mcpr"]);
    let shown = stdout(&out);
    assert!(shown.contains("diff:"), "{shown}");
    // What the expected text has that the answer lacks, then what the answer has instead.
    assert!(shown.contains("Hello, w[-0-]{+o+}rld[-!-]"), "{shown}");
    assert!(
        shown.contains("$.extra: missing (expected true)"),
        "{shown}"
    );
    assert!(shown.contains("$.sum: 4 → 3"), "{shown}");
}

#[test]
fn every_duration_flag_takes_one_syntax() {
    let server = reference_server();
    let dir = scratch(&[]);
    for timeout in ["30s", "1500ms", "2m", "30", "2.5"] {
        let out = mcpr_in(dir.path())
            .args(["tools", "--timeout", timeout, "--", &server])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{timeout}: {}",
            output_text(&out)
        );
    }
    for (args, flag) in [
        (vec!["tools", "--timeout", "soon"], "--timeout"),
        (vec!["lint", "--timeout", "0s"], "--timeout"),
        (vec!["conformance", "--timeout", "5h"], "--timeout"),
        (
            vec!["record", "-o", "x.mcpr", "--shutdown-grace", "x"],
            "--shutdown-grace",
        ),
    ] {
        let out = mcpr_in(dir.path())
            .args(&args)
            .args(["--", &server])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            output_text(&out)
        );
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(flag),
            "{args:?}: {}",
            output_text(&out)
        );
    }
}

#[test]
fn the_project_file_names_the_server_and_the_gate_defaults() {
    let server = reference_server();
    let dir = scratch(&[
        (
            "mcpr.toml",
            &format!(
                "server = \"{server}\"\n\n[lint]\nfail-on = \"info\"\nignore = [\"MCP005\"]\n\n[snapshot]\nfile = \"snaps/tools.json\"\n"
            ),
        ),
        (
            "tests/s.mcpr",
            "MCP Test 1\nSuite: \"The project's server\"\nServer from the command line\n\nTest: \"ping\"\n  Send \"ping\"\n",
        ),
        ("snaps/.keep", ""),
    ]);
    // From a sub-folder: the file is found upward, the suite's missing server filled in.
    let sub = dir.path().join("tests");
    let out = mcpr_in(&sub)
        .args(["run", "s.mcpr", "--no-progress"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", output_text(&out));

    let out = mcpr_in(&sub).args(["tools"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", output_text(&out));
    assert!(stdout(&out).contains("\"echo\""));

    let out = mcpr_in(&sub)
        .args(["lint", "--format", "json"])
        .output()
        .unwrap();
    let report: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", output_text(&out)));
    assert_eq!(report["failOn"], "info", "{report}");
    assert!(
        report["ignored"]
            .as_array()
            .unwrap()
            .contains(&"MCP005".into()),
        "{report}"
    );
    let out = mcpr_in(&sub)
        .args(["lint", "--format", "json", "--fail-on", "error"])
        .output()
        .unwrap();
    let report: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", output_text(&out)));
    assert_eq!(report["failOn"], "error", "the flag wins");

    let out = mcpr_in(&sub).args(["snapshot"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", output_text(&out));
    assert!(dir.path().join("snaps/tools.json").is_file());
    let out = mcpr_in(&sub).args(["diff"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", output_text(&out));

    std::fs::write(
        dir.path().join("mcpr.toml"),
        format!("server = \"{server}\"\nurl = \"http://127.0.0.1:9/mcp\"\n"),
    )
    .unwrap();
    let out = mcpr_in(&sub).args(["tools"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", output_text(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not both"));
}

#[test]
fn folders_are_searched_as_git_and_ruff_search_them() {
    let good =
        "MCP Test 1\nSuite: \"Good\"\nServer: node server.js\n\nTest: \"one\"\n  Send \"ping\"\n";
    let broken = "MCP Test 1\nSuite: \"Broken\"\nThis is no statement\n";
    let dir = scratch(&[
        ("tests/good.mcpr", good),
        ("tests/node_modules/pkg/broken.mcpr", broken),
        ("tests/target/debug/broken.mcpr", broken),
        ("tests/.venv/lib/broken.mcpr", broken),
        ("tests/.hidden.mcpr", broken),
        ("tests/generated/broken.mcpr", broken),
        ("tests/scratch.mcpr", broken),
        (".gitignore", "generated/\nscratch.mcpr\n"),
    ]);
    let out = mcpr_in(dir.path())
        .args(["check", "tests"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", output_text(&out));
    // A file named on the command line is checked whatever ignores it.
    let out = mcpr_in(dir.path())
        .args(["check", "tests/scratch.mcpr"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", output_text(&out));
}
