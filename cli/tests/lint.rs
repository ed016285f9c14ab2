//! `mcpr lint`, `mcpr snapshot`, `mcpr diff` and `mcpr init` against real servers over real
//! pipes: the lint server of `conformance-tests/lint-server` (one defect per rule, a clean
//! mode, a server in two versions, a server that pollutes stdout, one that dies) and the
//! reference server. Golden outputs are insta snapshots.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{lint_server, output_text, reference_server, scratch};

fn mcpr(dir: &Path, args: &[&str]) -> Output {
    common::mcpr_in(dir).args(args).output().unwrap()
}

/// `mcpr ARGS -- lint-server MODE` in `dir`.
fn against(dir: &Path, args: &[&str], mode: &str) -> Output {
    let server = lint_server();
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--", &server, mode]);
    mcpr(dir, &all)
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn lint_reports_one_finding_per_rule_in_three_formats() {
    let dir = scratch(&[]);
    let human = against(dir.path(), &["lint"], "defects");
    assert_eq!(human.status.code(), Some(1), "{}", output_text(&human));
    assert!(human.stderr.is_empty(), "{}", output_text(&human));
    let text = stdout(&human);
    let mut codes: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split_whitespace().nth(1))
        .filter(|c| c.starts_with("MCP"))
        .collect();
    codes.sort();
    let every: Vec<String> = (1..=30).map(|n| format!("MCP{n:03}")).collect();
    assert_eq!(codes, every, "each rule exactly once:\n{text}");
    insta::assert_snapshot!("lint_defects_human", text);
    // The two rule pages whose examples abbreviate a long text show this server's lines.
    for code in ["MCP006", "MCP010"] {
        let page = mcpr_runtime::lint::explain(code).unwrap();
        let start = page.find("```text\n").unwrap() + 8;
        let shown = &page[start..start + page[start..].find("```").unwrap()];
        assert!(text.contains(shown), "{code} page shows {shown:?}");
    }
    let json = against(dir.path(), &["lint", "--format", "json"], "defects");
    assert_eq!(json.status.code(), Some(1));
    insta::assert_snapshot!("lint_defects_json", stdout(&json));
    let github = against(dir.path(), &["lint", "--format", "github"], "defects");
    assert_eq!(github.status.code(), Some(1));
    insta::assert_snapshot!("lint_defects_github", stdout(&github));
}

#[test]
fn lint_exit_status_follows_fail_on_and_ignore() {
    let dir = scratch(&[]);
    let clean = against(dir.path(), &["lint", "--fail-on", "info"], "clean");
    assert_eq!(clean.status.code(), Some(0), "{}", output_text(&clean));
    assert_eq!(
        stdout(&clean),
        "lint-clean: 2 tools, about 178 tokens of definitions; 0 errors, 0 warnings, 0 info\n"
    );
    // Without the error rules, only warnings and info remain: pass at `error`, fail at `warning`.
    let errors =
        "MCP001,MCP002,MCP003,MCP008,MCP012,MCP013,MCP014,MCP016,MCP017,MCP018,MCP020,MCP021";
    let more = "MCP025,MCP026,MCP029,MCP030";
    let no_errors = against(
        dir.path(),
        &["lint", "--ignore", errors, "--ignore", more],
        "defects",
    );
    assert_eq!(
        no_errors.status.code(),
        Some(0),
        "{}",
        output_text(&no_errors)
    );
    assert!(
        stdout(&no_errors).ends_with("0 errors, 12 warnings, 2 info\n"),
        "{}",
        stdout(&no_errors)
    );
    let at_warning = against(
        dir.path(),
        &[
            "lint",
            "--fail-on",
            "warning",
            "--ignore",
            errors,
            "--ignore",
            more,
        ],
        "defects",
    );
    assert_eq!(at_warning.status.code(), Some(1));
    let bad = against(dir.path(), &["lint", "--ignore", "MCP099"], "clean");
    assert_eq!(bad.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&bad.stderr),
        "error: --ignore MCP099: not a lint rule (codes MCP001 to MCP030; see `mcpr lint --rules`)\n"
    );
    let rules = mcpr(dir.path(), &["lint", "--rules"]);
    assert_eq!(rules.status.code(), Some(0));
    insta::assert_snapshot!("lint_rules", stdout(&rules));
    let nothing = mcpr(dir.path(), &["lint"]);
    assert_eq!(nothing.status.code(), Some(2), "{}", output_text(&nothing));
}

#[test]
fn servers_that_pollute_stdout_or_die_are_named_with_their_stderr() {
    let dir = scratch(&[]);
    let polluted = against(dir.path(), &["lint"], "pollute");
    assert_eq!(
        polluted.status.code(),
        Some(3),
        "{}",
        output_text(&polluted)
    );
    assert_eq!(
        String::from_utf8_lossy(&polluted.stderr),
        "error: the MCP server wrote 1 line on stdout that is not JSON-RPC (a stdio server must keep stdout for protocol messages and log to stderr):\n  lint-server v0.1 starting (this banner is not JSON-RPC)\nserver stderr (last lines):\n  lint-server: debug output goes to stdout by mistake\n"
    );
    let died = against(dir.path(), &["lint"], "crash");
    assert_eq!(died.status.code(), Some(3));
    let err = String::from_utf8_lossy(&died.stderr);
    assert!(
        err.starts_with("error: MCP-EXIT-001: MCP server exited during "),
        "{err}"
    );
    assert!(err.ends_with("server exit status: exit status 3\nserver stderr (last lines):\n  lint-server: connecting to the database\n  fatal: database not configured\n"), "{err}");
    for cmd in [
        &["snapshot", "-o", "s.json"][..],
        &["diff", "s.json"],
        &["init"],
    ] {
        let out = against(dir.path(), cmd, "pollute");
        let want = if cmd[0] == "diff" { 2 } else { 3 };
        assert_eq!(
            out.status.code(),
            Some(want),
            "{cmd:?}: {}",
            output_text(&out)
        );
    }
    assert!(!dir.path().join("s.json").exists());
}

#[test]
fn snapshot_and_diff_classify_the_changes_between_two_versions() {
    let dir = scratch(&[]);
    let written = against(dir.path(), &["snapshot", "-o", "tools.json"], "v1");
    assert_eq!(written.status.code(), Some(0), "{}", output_text(&written));
    assert_eq!(
        String::from_utf8_lossy(&written.stderr),
        "wrote tools.json: 4 tools, 2 resources, 1 resource template, 2 prompts\n"
    );
    let file = std::fs::read_to_string(dir.path().join("tools.json")).unwrap();
    insta::assert_snapshot!("snapshot_v1", file);
    // Deterministic: a second snapshot is the same bytes.
    against(dir.path(), &["snapshot", "-o", "again.json"], "v1");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("again.json")).unwrap(),
        file
    );
    let same = against(dir.path(), &["diff", "tools.json"], "v1");
    assert_eq!(same.status.code(), Some(0));
    assert_eq!(stdout(&same), "MCP tools match snapshot tools.json\n");
    let human = against(dir.path(), &["diff", "tools.json"], "v2");
    assert_eq!(human.status.code(), Some(1), "{}", output_text(&human));
    insta::assert_snapshot!("diff_v1_v2_human", stdout(&human));
    let json = against(
        dir.path(),
        &["diff", "tools.json", "--format", "json"],
        "v2",
    );
    assert_eq!(json.status.code(), Some(1));
    insta::assert_snapshot!("diff_v1_v2_json", stdout(&json));
    let github = against(
        dir.path(),
        &["diff", "tools.json", "--format", "github"],
        "v2",
    );
    insta::assert_snapshot!("diff_v1_v2_github", stdout(&github));
    let allowed = against(
        dir.path(),
        &[
            "diff",
            "tools.json",
            "--allow-breaking",
            "--format",
            "github",
        ],
        "v2",
    );
    assert_eq!(allowed.status.code(), Some(0));
    let allowed = stdout(&allowed);
    assert!(
        allowed.starts_with("::warning file=tools.json,line=")
            && allowed.lines().next().unwrap().ends_with(
                ",title=breaking MCP change (tools.json)::add: new required parameter 'c'"
            ),
        "{allowed}"
    );
    // Compatible changes only: listed, exit 0; `--strict` fails on them.
    against(dir.path(), &["snapshot", "-o", "v2.json"], "v2");
    let mut v2: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("v2.json")).unwrap())
            .unwrap();
    v2["tools"]
        .as_array_mut()
        .unwrap()
        .retain(|t| t["name"] != "multiply");
    std::fs::write(dir.path().join("older.json"), v2.to_string()).unwrap();
    let compatible = against(dir.path(), &["diff", "older.json"], "v2");
    assert_eq!(compatible.status.code(), Some(0));
    assert_eq!(
        stdout(&compatible),
        "MCP tools differ from snapshot older.json (0 breaking, 1 compatible):\n  ok       multiply: new tool\nRun mcpr snapshot -o older.json against the same server to accept these changes.\n"
    );
    let strict = against(dir.path(), &["diff", "older.json", "--strict"], "v2");
    assert_eq!(strict.status.code(), Some(1));
    // `mcpr tools` output works as a (tools-only) snapshot.
    let tools = against(dir.path(), &["tools"], "v1");
    std::fs::write(dir.path().join("listed.json"), &tools.stdout).unwrap();
    let listed = against(dir.path(), &["diff", "listed.json"], "v1");
    assert_eq!(listed.status.code(), Some(0), "{}", output_text(&listed));
    assert!(
        stdout(&listed).contains("  ok       resource lint://status: new resource\n"),
        "{}",
        stdout(&listed)
    );
    let missing = against(dir.path(), &["diff", "nope.json"], "v1");
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).starts_with("error: cannot read nope.json: "));
}

/// GitHub annotations carry a file where one is known: the failure of a suite's lint
/// statement sits on the statement; `mcpr diff`'s on the snapshot file, at the line of the
/// definition that changed; `mcpr lint`'s, about a live server and so in no file, name the
/// server in their title.
#[test]
fn github_annotations_point_at_a_file_or_name_the_server() {
    let suite = format!(
        "MCP Test 1\nServer: {} defects\n\nTest: \"Lint gate\"\n  Expect the server is lint clean\n",
        lint_server()
    );
    let dir = scratch(&[("gate.mcpr", &suite)]);
    let run = mcpr(
        dir.path(),
        &["run", "gate.mcpr", "--no-history", "--format", "github"],
    );
    assert_eq!(run.status.code(), Some(1), "{}", output_text(&run));
    let text = stdout(&run);
    let gate = text
        .lines()
        .find(|l| l.starts_with("::error "))
        .unwrap_or_else(|| panic!("no annotation:\n{text}"));
    assert!(
        gate.starts_with("::error file=gate.mcpr,line=5,col=3,title=mcpr%3A Lint gate::")
            && gate.contains("MCP-LINT-001: the server is not lint clean"),
        "{gate}"
    );

    let lint = against(dir.path(), &["lint", "--format", "github"], "defects");
    let annotations: Vec<&str> = std::str::from_utf8(&lint.stdout)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("::"))
        .collect();
    assert_eq!(annotations.len(), 30);
    for a in &annotations {
        assert!(!a.contains("file="), "{a}");
        assert!(a.contains(" (lint-defects)::"), "{a}");
    }

    against(dir.path(), &["snapshot", "-o", "tools.json"], "v1");
    let snapshot = std::fs::read_to_string(dir.path().join("tools.json")).unwrap();
    let echo = snapshot
        .lines()
        .position(|l| l.trim().trim_end_matches(',') == "\"name\": \"echo\"")
        .expect("echo in the snapshot")
        + 1;
    let diff = against(
        dir.path(),
        &["diff", "tools.json", "--format", "github"],
        "v2",
    );
    let diff = stdout(&diff);
    assert!(
        diff.contains(&format!(
            "::error file=tools.json,line={echo},title=breaking MCP change (tools.json)::echo: tool was removed\n"
        )),
        "{diff}"
    );
    assert!(
        diff.contains(
            "::notice file=tools.json,title=compatible MCP change (tools.json)::multiply: new tool\n"
        ),
        "{diff}"
    );
}

/// `mcpr init` writes a suite that `mcpr check` accepts and `mcpr run` passes, unchanged.
#[test]
fn init_then_check_then_run_against_the_reference_server() {
    let dir = scratch(&[]);
    let server = reference_server();
    let init = mcpr(dir.path(), &["init", "-o", "starter.mcpr", "--", &server]);
    assert_eq!(init.status.code(), Some(0), "{}", output_text(&init));
    let text = std::fs::read_to_string(dir.path().join("starter.mcpr")).unwrap();
    assert!(text.contains(&format!("\nServer: {server}\n")), "{text}");
    for expected in [
        "Test: \"Tool add\"\n  Call tool \"add\" with:\n    a: 1\n    b: 1\n  Expect it succeeds\n",
        "Test: \"Tool fail\"\n  Call tool \"fail\"\n  # The tool answered with an error: the fail tool always fails\n  Expect an error\n",
        "Test: \"Resource fixture://status\"\n  Read resource \"fixture://status\"\n  Expect it succeeds\n",
        "Test: \"Prompt greet\"\n  Get prompt \"greet\" with:\n    name: \"example\"\n  Expect it succeeds\n",
        "# Resource template fixture://items/{id}:",
    ] {
        assert!(text.contains(expected), "{expected:?} missing from\n{text}");
    }
    let tests = text.lines().filter(|l| l.starts_with("Test: ")).count();
    assert_eq!(
        tests,
        15 + 4 + 2,
        "a test per tool, resource and prompt:\n{text}"
    );
    let again = mcpr(dir.path(), &["init", "-o", "starter.mcpr", "--", &server]);
    assert_eq!(
        again.status.code(),
        Some(2),
        "an existing file is kept without --force"
    );
    let check = mcpr(dir.path(), &["check", "starter.mcpr"]);
    assert_eq!(check.status.code(), Some(0), "{}", output_text(&check));
    let run = mcpr(dir.path(), &["run", "--no-history", "starter.mcpr"]);
    assert_eq!(run.status.code(), Some(0), "{}\n{text}", output_text(&run));
    let summary = stdout(&run);
    assert!(summary.contains(" 0 failed, "), "{summary}");
}

/// Over Streamable HTTP with a required header: the credential is not written to the file.
#[test]
fn init_over_http_keeps_credentials_out_of_the_suite() {
    let dir = scratch(&[]);
    let mut child = Command::new(reference_server())
        .args([
            "--http",
            "127.0.0.1:0",
            "--require-header",
            "Authorization: Bearer s3cret",
        ])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let url = read_url(&mut child);
    let init = mcpr(
        dir.path(),
        &[
            "init",
            "--url",
            &url,
            "--header",
            "Authorization: Bearer s3cret",
            "-o",
            "http.mcpr",
        ],
    );
    assert_eq!(init.status.code(), Some(0), "{}", output_text(&init));
    assert!(String::from_utf8_lossy(&init.stderr).contains("note: the Authorization header is read from ${MCPR_HEADER_AUTHORIZATION}; set it before `mcpr run`"));
    let text = std::fs::read_to_string(dir.path().join("http.mcpr")).unwrap();
    assert!(!text.contains("s3cret"), "{text}");
    assert!(text.contains(&format!("MCP URL: {url}\n")), "{text}");
    let run = common::mcpr_in(dir.path())
        .args(["run", "--no-history", "http.mcpr"])
        .env("MCPR_HEADER_AUTHORIZATION", "Bearer s3cret")
        .output()
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(run.status.code(), Some(0), "{}\n{text}", output_text(&run));
}

/// The URL the reference server prints on stderr in `--http` mode.
fn read_url(child: &mut std::process::Child) -> String {
    use std::io::BufRead;
    let stderr = child.stderr.take().unwrap();
    let mut lines = std::io::BufReader::new(stderr).lines();
    loop {
        let line = lines.next().expect("the server prints its URL").unwrap();
        if let Some(i) = line.find("http://") {
            let url = line[i..].split_whitespace().next().unwrap().to_string();
            std::thread::spawn(move || for _ in lines {});
            return url;
        }
    }
}
