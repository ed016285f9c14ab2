//! The command line of `mcpr run` around the reports: folders discovered as `check` finds
//! suites, `--timeout`, `mcpr.toml` with profiles and `MCPR_*` variables in their order
//! (flag > env > file), `--help`, and `mcpr completions`. Real reference server.

mod common;
use common::reference_server;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::json;

fn text(out: &Output) -> String {
    common::output_text(out)
}

/// `mcpr` in `dir`, with no `MCPR_*` setting inherited from the caller.
fn mcpr_in(dir: &Path) -> Command {
    let mut c = common::mcpr_bin();
    c.current_dir(dir).env("NO_COLOR", "1");
    for (k, _) in std::env::vars() {
        if k.starts_with("MCPR_") {
            c.env_remove(k);
        }
    }
    c
}

/// A JSON suite of one test calling `add`, and one calling `slow` for `slow_ms`.
fn suite(name: &str, slow_ms: u64) -> String {
    serde_json::to_string_pretty(&json!({
        "version": 1,
        "name": name,
        "target": {"transport": "stdio", "command": reference_server()},
        "tests": [
            {"name": format!("{name} adds"), "steps": [{"tool": {"name": "add", "arguments": {"a": 1, "b": 2}},
                "assert": {"json": [{"path": "$.structuredContent.sum", "equals": 3}]}}]},
            {"name": format!("{name} sleeps"), "steps": [{"tool": {"name": "slow", "arguments": {"ms": slow_ms}}}]},
        ]
    }))
    .unwrap()
}

/// A folder is searched as `check` searches it: `.mcpr` files, and `.json`/`.yaml` files
/// whose top level has `version` and `tests`; other JSON files are left alone.
#[test]
fn run_discovers_the_suites_of_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    let tests = dir.path().join("tests");
    std::fs::create_dir_all(tests.join("nested")).unwrap();
    std::fs::write(tests.join("one.json"), suite("one", 1)).unwrap();
    std::fs::write(tests.join("nested/two.json"), suite("two", 1)).unwrap();
    std::fs::write(tests.join("package.json"), r#"{"name": "not a suite"}"#).unwrap();
    let out = mcpr_in(dir.path())
        .args(["run", "tests", "--no-history", "--json", "-"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let files: Vec<&str> = report["suites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["file"].as_str().unwrap())
        .collect();
    assert_eq!(
        files,
        ["tests/nested/two.json", "tests/one.json"],
        "{report}"
    );
    let empty = dir.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = mcpr_in(dir.path())
        .args(["run", "empty", "--no-history"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("empty: no suite in this folder"),
        "{}",
        text(&out)
    );
}

/// The code and message of the failure of the test named `name` in a JSON report.
fn failure_of(report: &[u8], name: &str) -> (String, String) {
    let v: serde_json::Value = serde_json::from_slice(report).unwrap();
    let t = v["suites"][0]["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no test {name} in {v}"))
        .clone();
    (
        t["failure"]["code"].as_str().unwrap_or("").to_string(),
        t["status"].as_str().unwrap().to_string(),
    )
}

/// `--timeout` is the default step deadline, over the suite's; from `MCPR_TIMEOUT` and
/// `mcpr.toml` too, the flag winning; a bad duration is a usage error naming its source.
#[test]
fn timeout_from_flag_env_and_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.json"), suite("s", 4000)).unwrap();
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let mut c = mcpr_in(dir.path());
        c.args(["run", "s.json", "--no-history", "--json", "-"])
            .args(args);
        for (k, v) in env {
            c.env(k, v);
        }
        c.output().unwrap()
    };
    let out = run(&["--timeout", "1s"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(
        failure_of(&out.stdout, "s sleeps"),
        ("MCP-TIMEOUT-001".to_string(), "failed".to_string()),
        "{}",
        text(&out)
    );
    assert_eq!(failure_of(&out.stdout, "s adds").1, "passed");

    let out = run(&[], &[("MCPR_TIMEOUT", "1s")]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(failure_of(&out.stdout, "s sleeps").0, "MCP-TIMEOUT-001");

    // The file says 1 s; the flag's 20 s wins and the slow call finishes.
    std::fs::write(dir.path().join("mcpr.toml"), "[run]\ntimeout = \"1s\"\n").unwrap();
    let out = run(&[], &[]);
    assert_eq!(
        failure_of(&out.stdout, "s sleeps").0,
        "MCP-TIMEOUT-001",
        "{}",
        text(&out)
    );
    let out = run(&["--timeout", "20s"], &[("MCPR_TIMEOUT", "1s")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));

    let out = run(&["--timeout", "soon"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("timeout \"soon\" (flag)"),
        "{}",
        text(&out)
    );
    let out = run(&[], &[("MCPR_TIMEOUT", "-3s")]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("(MCPR_TIMEOUT)"), "{}", text(&out));
}

/// The run history is on by default and turned off by `--no-history`, `MCPR_NO_HISTORY` or
/// `no-history = true` in mcpr.toml; `--history PATH` turns it back on over the variable.
#[test]
fn the_history_is_turned_off_by_flag_env_or_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.json"), suite("s", 1)).unwrap();
    let history = dir.path().join(".mcpr/history.jsonl");
    let runs = |path: &Path| {
        std::fs::read_to_string(path)
            .map(|t| t.lines().count())
            .unwrap_or(0)
    };
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let mut c = mcpr_in(dir.path());
        c.args(["run", "s.json"]).args(args);
        for (k, v) in env {
            c.env(k, v);
        }
        let out = c.output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    };
    run(&[], &[]);
    assert_eq!(runs(&history), 1, "on by default");
    run(&["--no-history"], &[]);
    run(&[], &[("MCPR_NO_HISTORY", "1")]);
    std::fs::write(dir.path().join("mcpr.toml"), "[run]\nno-history = true\n").unwrap();
    run(&[], &[]);
    assert_eq!(runs(&history), 1, "flag, variable and file turn it off");
    let elsewhere = dir.path().join("elsewhere.jsonl");
    run(
        &["--history", elsewhere.to_str().unwrap()],
        &[("MCPR_NO_HISTORY", "1")],
    );
    assert_eq!(runs(&elsewhere), 1, "--history PATH wins");
}

/// `mcpr.toml` is found upward from the working folder; `--config-profile` overlays a
/// profile on `[run]`; `-v` shows each setting with where it came from; report paths in
/// the file are relative to the file; a bad file or profile is a usage error.
#[test]
fn project_file_profiles_and_precedence() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.json"), suite("s", 1)).unwrap();
    std::fs::write(
        dir.path().join("mcpr.toml"),
        "[run]\njobs = 3\ntimeout = \"20s\"\n\n[profiles.ci]\njobs = 1\njunit = \"out/junit.xml\"\n",
    )
    .unwrap();
    let sub = dir.path().join("deep/down");
    std::fs::create_dir_all(&sub).unwrap();
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let mut c = mcpr_in(&sub);
        c.args(["run", "../../s.json", "--no-history", "-v"])
            .args(args);
        for (k, v) in env {
            c.env(k, v);
        }
        c.output().unwrap()
    };
    let setting = |out: &Output, name: &str| -> String {
        String::from_utf8_lossy(&out.stderr)
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no {name} in {}", text(out)))
            .split_whitespace()
            .skip(1)
            .collect::<Vec<_>>()
            .join(" ")
    };
    let out = run(&[], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(setting(&out, "jobs"), "3 (mcpr.toml [run])");
    assert_eq!(setting(&out, "timeout"), "20s (mcpr.toml [run])");
    let config = setting(&out, "config");
    assert!(config.contains("mcpr.toml"), "found upward: {config}");

    let out = run(&["--config-profile", "ci"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(setting(&out, "jobs"), "1 (mcpr.toml [profiles.ci])");
    assert_eq!(setting(&out, "timeout"), "20s (mcpr.toml [run])");
    assert!(
        dir.path().join("out/junit.xml").is_file(),
        "the profile's junit path is relative to mcpr.toml: {}",
        text(&out)
    );

    let out = run(&["--config-profile", "ci"], &[("MCPR_JOBS", "2")]);
    assert_eq!(setting(&out, "jobs"), "2 (MCPR_JOBS)");
    let out = run(
        &["--jobs", "4"],
        &[("MCPR_JOBS", "2"), ("MCPR_CONFIG_PROFILE", "ci")],
    );
    assert_eq!(setting(&out, "jobs"), "4 (flag)");

    let out = run(&["--config-profile", "nightly"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("no profile \"nightly\" (profiles: ci)"),
        "{}",
        text(&out)
    );

    std::fs::write(dir.path().join("mcpr.toml"), "[run]\njobz = 3\n").unwrap();
    let out = run(&[], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("mcpr.toml") && text(&out).contains("jobz"),
        "the bad key is named with its file: {}",
        text(&out)
    );
    let out = run(&["--config", "missing.toml"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("--config missing.toml: no such file"),
        "{}",
        text(&out)
    );
}

/// `mcpr run --help` carries examples, exit codes and the environment variables.
#[test]
fn run_help_has_examples_exit_codes_and_environment() {
    let dir = tempfile::tempdir().unwrap();
    let out = mcpr_in(dir.path())
        .args(["run", "--help"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let help = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "Examples:",
        "mcpr report merge",
        "Exit codes:",
        "3  a server, transport or internal failure",
        "MCPR_JOBS",
        "MCPR_CONFIG_PROFILE",
        "--timeout <DURATION>",
        "--config-profile <NAME>",
        "mcpr.toml",
    ] {
        assert!(help.contains(needle), "{needle:?} in:\n{help}");
    }
}

/// `mcpr --help` ends with examples, the exit codes and where the settings are listed.
#[test]
fn top_level_help_has_examples_and_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let out = mcpr_in(dir.path()).arg("--help").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let help = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "Examples:",
        "mcpr run tests/",
        "Exit codes:",
        "mcpr run --help",
        "completions",
    ] {
        assert!(help.contains(needle), "{needle:?} in:\n{help}");
    }
}

/// The subcommands a `--help` text lists under `Commands:` (without `help`).
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter(|l| !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(String::from)
        .collect()
}

/// Every subcommand's `--help`, nested ones too (`report merge`), ends with an
/// `Examples:` section of real command lines, and says its defaults.
#[test]
fn every_subcommand_help_has_examples() {
    let dir = tempfile::tempdir().unwrap();
    let help_of = |path: &[String]| -> String {
        let out = mcpr_in(dir.path())
            .args(path)
            .arg("--help")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{path:?}: {}", text(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let mut todo: Vec<Vec<String>> = subcommands(&help_of(&[]))
        .into_iter()
        .map(|c| vec![c])
        .collect();
    let mut seen = Vec::new();
    while let Some(path) = todo.pop() {
        let help = help_of(&path);
        let shown = path.join(" ");
        let examples = help
            .split_once("Examples:\n")
            .unwrap_or_else(|| panic!("`mcpr {shown} --help` has no Examples:\n{help}"))
            .1;
        let first = examples.lines().next().unwrap_or_default().trim_start();
        assert!(
            first.starts_with(&format!("mcpr {shown}")),
            "`mcpr {shown} --help`: the first example is not a `mcpr {shown}` command line:\n{help}"
        );
        let says_defaults = help.contains("Defaults:")
            || help.contains("[default:")
            || help.contains("Takes no options");
        assert!(
            says_defaults,
            "`mcpr {shown} --help` states no defaults:\n{help}"
        );
        for sub in subcommands(&help) {
            let mut deeper = path.clone();
            deeper.push(sub);
            todo.push(deeper);
        }
        seen.push(shown);
    }
    assert!(seen.len() >= 23, "{seen:?}");
    assert!(seen.iter().any(|s| s == "report merge"), "{seen:?}");
}

/// `mcpr completions SHELL` prints a script the shell accepts, naming the subcommands.
#[test]
fn completions_for_bash_zsh_and_fish() {
    let dir = tempfile::tempdir().unwrap();
    for (shell, marker) in [
        ("bash", "_mcpr()"),
        ("zsh", "#compdef mcpr"),
        ("fish", "complete -c mcpr"),
    ] {
        let out = mcpr_in(dir.path())
            .args(["completions", shell])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        let script = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(script.contains(marker), "{shell}: {marker} in\n{script}");
        assert!(
            script.contains("merge") && script.contains("config-profile"),
            "{shell}"
        );
        let path = dir.path().join(format!("mcpr.{shell}"));
        std::fs::write(&path, &script).unwrap();
        // The shells that are installed check the script's syntax.
        let check = match shell {
            "bash" => Command::new("bash").arg("-n").arg(&path).output(),
            "zsh" => Command::new("zsh").arg("-n").arg(&path).output(),
            _ => Command::new("fish").arg("--no-execute").arg(&path).output(),
        };
        match check {
            Ok(o) => assert!(o.status.success(), "{shell} -n: {}", text(&o)),
            Err(_) => eprintln!("{shell} is not installed: syntax not checked"),
        }
    }
    let out = mcpr_in(dir.path())
        .args(["completions", "tcsh"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}
