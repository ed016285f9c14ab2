//! The server quality gates inside suites, run by `mcpr run` against real servers over real
//! pipes: `Expect the server is lint clean` and `Expect the tools match snapshot` against
//! the lint server (`conformance-tests/lint-server`: defects, clean, v1 and v2), and
//! coverage (`--coverage`, `--min-coverage`, `Minimum coverage:`) against the reference
//! server.

mod common;

use std::path::Path;
use std::process::Output;

use common::{lint_server, output_text, reference_server, scratch};
use serde_json::Value;

/// `mcpr run ARGS` in `cwd`, with `CI` set as given.
fn run(cwd: &Path, args: &[&str], ci: bool) -> Output {
    let mut c = common::mcpr_in(cwd);
    c.arg("run").args(args).arg("--no-history");
    if ci {
        c.env("CI", "true");
    }
    c.output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A suite against the lint server in `mode`.
fn lint_suite(mode: &str, body: &str) -> String {
    format!("MCP Test 1\nServer: {} {mode}\n\n{body}", lint_server())
}

/// Every error-level rule: ignoring them all leaves the defects server's warnings.
const ERROR_RULES: &str = "MCP001, MCP002, MCP003, MCP008, MCP012, MCP013, MCP014, MCP016, MCP017, MCP018, MCP020, MCP021, MCP025, MCP026, MCP029, MCP030";

#[test]
fn lint_clean_fails_on_warnings_and_errors_at_its_line_and_only_errors_lets_warnings_pass() {
    let body = format!(
        "Test: \"Defects\"\n  Expect the server is lint clean only errors\n\nTest: \"Errors ignored\"\n  Expect the server is lint clean only errors ignoring {ERROR_RULES}\n\nTest: \"Warnings fail by default\"\n  Expect the server is lint clean ignoring {ERROR_RULES}\n\nTest: \"Said aloud\"\n  Expect the server is lint clean including warnings ignoring {ERROR_RULES}\n"
    );
    let dir = scratch(&[("lint.mcpr", &lint_suite("defects", &body))]);
    let out = run(dir.path(), &["lint.mcpr", "--json", "r.json"], false);
    assert_eq!(out.status.code(), Some(1), "{}", output_text(&out));
    let text = stdout(&out);
    assert!(text.contains("  ✗ Defects failed"), "{text}");
    assert!(text.contains("      at lint.mcpr:5:3\n"), "{text}");
    assert!(
        text.contains(
            "MCP-LINT-001: the server is not lint clean: 16 findings at error level or worse:\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("error   MCP001 bad name!: invalid tool name 'bad name!'"),
        "{text}"
    );
    assert!(text.contains("also (not failing):\n"), "{text}");
    // `only errors`, ignoring every error rule, passes with the warnings printed.
    assert!(text.contains("  ✓ Errors ignored passed"), "{text}");
    assert!(
        text.contains("      warning MCP007 undescribed: parameter 'key' has no description\n"),
        "{text}"
    );
    // Bare, as seed 002's assert_lint_clean, the warnings fail (and saying so changes nothing).
    assert!(
        text.contains("  ✗ Warnings fail by default failed"),
        "{text}"
    );
    assert!(text.contains("at lint.mcpr:11:3"), "{text}");
    assert!(text.contains("  ✗ Said aloud failed"), "{text}");
    assert!(
        text.contains("12 findings at warning level or worse"),
        "{text}"
    );
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    let failure = &report["suites"][0]["tests"][0]["failure"];
    assert_eq!(failure["code"], "MCP-LINT-001");
    assert_eq!(failure["location"]["line"], 5);
    assert_eq!(failure["actual"]["summary"]["errors"], 16);
    // The clean server passes even with info included.
    let clean = lint_suite(
        "clean",
        "Test: \"Clean\"\n  Expect the server is lint clean including info\n",
    );
    let dir = scratch(&[("clean.mcpr", &clean)]);
    let out = run(dir.path(), &["clean.mcpr"], false);
    assert_eq!(out.status.code(), Some(0), "{}", output_text(&out));
}

#[test]
fn an_unknown_rule_code_does_not_compile() {
    let dir = scratch(&[(
        "bad.mcpr",
        &lint_suite(
            "clean",
            "Test: \"t\"\n  Expect the server is lint clean ignoring MCP05\n",
        ),
    )]);
    let out = run(dir.path(), &["bad.mcpr"], false);
    assert_eq!(out.status.code(), Some(2), "{}", output_text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.mcpr:5:44: error MCPLANG424: `MCP05` is not a lint rule"),
        "{err}"
    );
}

/// The tool snapshot statements of a suite against the lint server in `mode`.
fn snapshot_suite(mode: &str, file: &str, allowing: bool) -> String {
    let tail = if allowing {
        " allowing compatible changes"
    } else {
        ""
    };
    lint_suite(
        mode,
        &format!("Test: \"Snapshot\"\n  Expect the tools match snapshot \"{file}\"{tail}\n"),
    )
}

#[test]
fn tool_snapshots_are_written_compared_classified_and_updated() {
    // The suite lives in a folder of its own; the snapshot path is relative to it, not to
    // the folder mcpr runs in.
    let dir = scratch(&[
        (
            "suites/v1.mcpr",
            &snapshot_suite("v1", "snaps/tools.json", false),
        ),
        (
            "suites/v2.mcpr",
            &snapshot_suite("v2", "snaps/tools.json", false),
        ),
        (
            "suites/v2-allow.mcpr",
            &snapshot_suite("v2", "snaps/tools.json", true),
        ),
        (
            "suites/ci.mcpr",
            &snapshot_suite("v1", "missing.json", false),
        ),
        (
            "suites/older.mcpr",
            &snapshot_suite("v2", "older.json", false),
        ),
        (
            "suites/older-allow.mcpr",
            &snapshot_suite("v2", "older.json", true),
        ),
    ]);
    let written = dir.path().join("suites/snaps/tools.json");
    // Under CI=true a missing snapshot fails and nothing is written.
    let ci = run(dir.path(), &["suites/ci.mcpr"], true);
    assert_eq!(ci.status.code(), Some(1), "{}", output_text(&ci));
    assert!(
        stdout(&ci).contains("MCP-SNAPSHOT-002: tool snapshot missing.json is missing (CI=true")
    );
    assert!(!dir.path().join("suites/missing.json").exists());
    // CI=1 (as some services set it) is CI too: one rule for every use of the variable.
    let ci_one = common::mcpr_in(dir.path())
        .args(["run", "suites/ci.mcpr", "--no-progress"])
        .env("CI", "1")
        .output()
        .unwrap();
    assert_eq!(ci_one.status.code(), Some(1), "{}", output_text(&ci_one));
    assert!(!dir.path().join("suites/missing.json").exists());
    // Outside CI the first run writes it: the same bytes as `mcpr snapshot`.
    let first = run(dir.path(), &["suites/v1.mcpr"], false);
    assert_eq!(first.status.code(), Some(0), "{}", output_text(&first));
    assert!(stdout(&first).contains("wrote tool snapshot snaps/tools.json"));
    let cli = common::mcpr_in(dir.path())
        .args(["snapshot", "-o", "cli.json", "--", &lint_server(), "v1"])
        .output()
        .unwrap();
    assert_eq!(cli.status.code(), Some(0), "{}", output_text(&cli));
    assert_eq!(
        std::fs::read_to_string(&written).unwrap(),
        std::fs::read_to_string(dir.path().join("cli.json")).unwrap()
    );
    // The same server again, now in CI: nothing changed.
    let again = run(dir.path(), &["suites/v1.mcpr"], true);
    assert_eq!(again.status.code(), Some(0), "{}", output_text(&again));
    // v2 breaks v1's clients: it fails, allowing compatible changes or not.
    let v2 = run(dir.path(), &["suites/v2.mcpr"], false);
    assert_eq!(v2.status.code(), Some(1), "{}", output_text(&v2));
    let text = stdout(&v2);
    assert!(text.contains("at suites/v2.mcpr:5:3"), "{text}");
    assert!(
        text.contains("MCP-SNAPSHOT-004: MCP tools differ from snapshot snaps/tools.json (9 breaking, 7 compatible):"),
        "{text}"
    );
    assert!(
        text.contains("BREAKING add: new required parameter 'c'"),
        "{text}"
    );
    assert!(text.contains("ok       multiply: new tool"), "{text}");
    let allow = run(dir.path(), &["suites/v2-allow.mcpr"], false);
    assert_eq!(allow.status.code(), Some(1), "{}", output_text(&allow));
    assert!(stdout(&allow).contains("compatible changes are allowed, breaking ones are not"));
    // Compatible changes alone: they fail without `allowing compatible changes`, pass with it.
    let v2_snap = common::mcpr_in(dir.path())
        .args(["snapshot", "-o", "v2.json", "--", &lint_server(), "v2"])
        .output()
        .unwrap();
    assert_eq!(v2_snap.status.code(), Some(0));
    let mut older: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("v2.json")).unwrap())
            .unwrap();
    older["tools"]
        .as_array_mut()
        .unwrap()
        .retain(|t| t["name"] != "multiply");
    std::fs::write(dir.path().join("suites/older.json"), older.to_string()).unwrap();
    let strict = run(dir.path(), &["suites/older.mcpr"], false);
    assert_eq!(strict.status.code(), Some(1), "{}", output_text(&strict));
    assert!(stdout(&strict).contains("(0 breaking, 1 compatible):\n"));
    let compatible = run(dir.path(), &["suites/older-allow.mcpr"], false);
    assert_eq!(
        compatible.status.code(),
        Some(0),
        "{}",
        output_text(&compatible)
    );
    assert!(stdout(&compatible).contains("      ok       multiply: new tool\n"));
    // --update-snapshots accepts v2: the file is v2's snapshot, and v2 then passes in CI.
    let update = run(dir.path(), &["suites/v2.mcpr", "--update-snapshots"], false);
    assert_eq!(update.status.code(), Some(0), "{}", output_text(&update));
    assert!(
        stdout(&update).contains("updated tool snapshot snaps/tools.json (16 changes, 9 breaking)")
    );
    assert_eq!(
        std::fs::read_to_string(&written).unwrap(),
        std::fs::read_to_string(dir.path().join("v2.json")).unwrap()
    );
    let after = run(dir.path(), &["suites/v2.mcpr"], true);
    assert_eq!(after.status.code(), Some(0), "{}", output_text(&after));
}

/// A suite against the reference server that calls one tool, reads one resource through
/// the template and gets one prompt.
fn coverage_suite(setting: &str) -> String {
    format!(
        "MCP Test 1\nServer: {}\n{setting}\nTest: \"Add\"\n  Call tool \"add\" with:\n    a: 1\n    b: 2\n  Expect it succeeds\n\nTest: \"Item\"\n  Read resource \"fixture://items/7\"\n\nTest: \"Greet\"\n  Get prompt \"greet\" with:\n    name: \"Ada\"\n",
        reference_server()
    )
}

#[test]
fn coverage_is_printed_reported_and_gated() {
    let dir = scratch(&[
        ("cov.mcpr", &coverage_suite("")),
        ("min.mcpr", &coverage_suite("Minimum coverage: 90%\n")),
    ]);
    // Without a flag or a setting, no coverage.
    let plain = run(dir.path(), &["cov.mcpr"], false);
    assert_eq!(plain.status.code(), Some(0), "{}", output_text(&plain));
    assert!(!stdout(&plain).contains("Coverage:"));
    let out = run(
        dir.path(),
        &["cov.mcpr", "--coverage", "--json", "r.json"],
        false,
    );
    assert_eq!(out.status.code(), Some(0), "{}", output_text(&out));
    let text = stdout(&out);
    let at = text.find("\nCoverage: ").expect("coverage after the recap");
    assert!(at > text.find(" passed, 0 failed").unwrap(), "{text}");
    assert!(
        text.contains("  default (mcpr-reference-server): "),
        "{text}"
    );
    assert!(text.contains("    resource templates 1/1\n"), "{text}");
    assert!(
        text.contains("not exercised: app, ask_task, echo,"),
        "{text}"
    );
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    let c = &report["suites"][0]["coverage"];
    let server = &c["servers"][0];
    assert_eq!(server["target"], "default");
    assert_eq!(server["server"], "mcpr-reference-server");
    assert_eq!(server["tools"]["exercised"], 1);
    assert_eq!(server["resourceTemplates"]["exercised"], 1);
    assert_eq!(
        server["resourceTemplates"]["missing"],
        serde_json::json!([])
    );
    assert_eq!(server["prompts"]["exercised"], 1);
    assert!(
        server["tools"]["missing"]
            .as_array()
            .unwrap()
            .contains(&"echo".into())
    );
    assert_eq!(c["covered"], 3);
    assert_eq!(c["total"], server["total"]);
    assert_eq!(c["passed"], true);
    assert!(c.get("minimum").is_none());
    let total = c["total"].as_u64().unwrap() as f64;
    let percent = (3.0 * 1000.0 / total).round() / 10.0;
    assert_eq!(c["percent"].as_f64().unwrap(), percent);
    // --min-coverage under the run's share passes; over it fails with the code.
    let low = format!("{}", (percent - 1.0).floor());
    let pass = run(dir.path(), &["cov.mcpr", "--min-coverage", &low], false);
    assert_eq!(pass.status.code(), Some(0), "{}", output_text(&pass));
    let fail = run(
        dir.path(),
        &["cov.mcpr", "--min-coverage", "50%", "--json", "f.json"],
        false,
    );
    assert_eq!(fail.status.code(), Some(1), "{}", output_text(&fail));
    let text = stdout(&fail);
    assert!(
        text.contains("MCP-COVERAGE-001: coverage ")
            && text.contains("is under the minimum of 50%"),
        "{text}"
    );
    assert!(
        text.contains("\n  default tools: app, ask_task, echo,"),
        "{text}"
    );
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("f.json")).unwrap()).unwrap();
    assert_eq!(report["suites"][0]["coverage"]["minimum"], 50.0);
    assert_eq!(report["suites"][0]["coverage"]["passed"], false);
    // The suite's own minimum gates the run; the flag overrides it.
    let suite_min = run(dir.path(), &["min.mcpr"], false);
    assert_eq!(
        suite_min.status.code(),
        Some(1),
        "{}",
        output_text(&suite_min)
    );
    assert!(stdout(&suite_min).contains("under the minimum of 90%"));
    let overridden = run(dir.path(), &["min.mcpr", "--min-coverage", "0"], false);
    assert_eq!(
        overridden.status.code(),
        Some(0),
        "{}",
        output_text(&overridden)
    );
    // GitHub annotations name the shortfall too.
    let github = run(dir.path(), &["min.mcpr", "--format", "github"], false);
    assert_eq!(github.status.code(), Some(1), "{}", output_text(&github));
    assert!(
        stdout(&github).contains("::error file=min.mcpr,title=mcpr%3A coverage of MCP test suite::MCP-COVERAGE-001: coverage "),
        "{}",
        stdout(&github)
    );
    let bad = run(dir.path(), &["cov.mcpr", "--min-coverage", "120"], false);
    assert_eq!(bad.status.code(), Some(2), "{}", output_text(&bad));
}

/// A response snapshot that did not exist is recorded and the run says so (terminal and JSON
/// report); a matching one says nothing; a changed one fails with the difference until
/// `--update-snapshots`, which says it updated it.
#[test]
fn recording_or_updating_a_response_snapshot_is_said() {
    let suite = |text: &str| {
        format!(
            "MCP Test 1\nServer: {}\n\nTest: \"Echo\"\n  Call tool \"echo\" with:\n    text: {text}\n  Expect \"content[0].text\" matches snapshot \"greeting\"\n",
            reference_server()
        )
    };
    let dir = scratch(&[("suites/echo.mcpr", &suite("hello"))]);
    let first = run(dir.path(), &["suites/echo.mcpr", "--json", "r.json"], false);
    assert_eq!(first.status.code(), Some(0), "{}", output_text(&first));
    let said = "recorded new snapshot echo.greeting in mcpr.snap.json";
    assert!(stdout(&first).contains(said), "{}", output_text(&first));
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    assert_eq!(report["suites"][0]["tests"][0]["steps"][0]["output"], said);
    // Relative to the working directory (docs/run-report.md).
    assert!(dir.path().join("mcpr.snap.json").exists());
    let again = run(dir.path(), &["suites/echo.mcpr"], false);
    assert_eq!(again.status.code(), Some(0), "{}", output_text(&again));
    assert!(!stdout(&again).contains("snapshot"), "{}", stdout(&again));
    std::fs::write(dir.path().join("suites/echo.mcpr"), suite("goodbye")).unwrap();
    let changed = run(dir.path(), &["suites/echo.mcpr"], false);
    assert_eq!(changed.status.code(), Some(1), "{}", output_text(&changed));
    assert!(stdout(&changed).contains("snapshot echo.greeting differs"));
    let updated = run(
        dir.path(),
        &["suites/echo.mcpr", "--update-snapshots"],
        false,
    );
    assert_eq!(updated.status.code(), Some(0), "{}", output_text(&updated));
    assert!(
        stdout(&updated).contains("updated snapshot echo.greeting in mcpr.snap.json"),
        "{}",
        output_text(&updated)
    );
    let after = run(dir.path(), &["suites/echo.mcpr"], true);
    assert_eq!(after.status.code(), Some(0), "{}", output_text(&after));
}
