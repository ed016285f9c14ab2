//! `mcpr lint`, `mcpr snapshot` / `mcpr diff` and `mcpr init` → `mcpr check` → `mcpr run`
//! against the pinned public servers of `conformance-tests/interop/install.sh`. Ignored by
//! default; `.ci/run` runs them (`cargo test --workspace --test lint_interop -- --ignored`).
//! The findings asserted here are the ones recorded in docs/lint.md next to mcptest's table.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use common::output_text;
use serde_json::Value;

fn node(package: &str) -> String {
    common::interop_dir()
        .join("node_modules/@modelcontextprotocol")
        .join(package)
        .join("dist/index.js")
        .display()
        .to_string()
}

fn venv(bin: &str) -> String {
    common::interop_dir()
        .join("venv/bin")
        .join(bin)
        .display()
        .to_string()
}

fn tiny_server() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../conformance-tests/interop/tiny_server.py")
        .display()
        .to_string()
}

/// One public server: how to start it, its environment, how to give it a fresh state.
struct Server<'a> {
    command: Vec<String>,
    env: Vec<(&'a str, String)>,
    fresh: &'a dyn Fn(),
    /// Every tool answers the same twice, so init holds each to a value.
    every_tool_valued: bool,
}

impl Server<'_> {
    fn mcpr(&self, dir: &Path, args: &[&str], with_command: bool) -> Output {
        let mut cmd = common::mcpr_in(dir);
        cmd.args(args);
        if with_command {
            cmd.arg("--").args(&self.command);
        }
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    }
}

/// Lint (the finding counts by code), snapshot twice and diff, then init, check and run.
fn check(server: &Server<'_>, tools: usize, findings: &[(&str, usize)]) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    (server.fresh)();
    let human = server.mcpr(d, &["lint"], true);
    println!("{}", String::from_utf8_lossy(&human.stdout));
    let lint = server.mcpr(d, &["lint", "--format", "json"], true);
    assert_eq!(lint.status.code(), Some(0), "{}", output_text(&lint));
    let report: Value = serde_json::from_slice(&lint.stdout).unwrap();
    assert_eq!(report["tools"], tools, "{}", output_text(&human));
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for f in report["findings"].as_array().unwrap() {
        *counts
            .entry(f["code"].as_str().unwrap().to_string())
            .or_default() += 1;
    }
    let expected: BTreeMap<String, usize> =
        findings.iter().map(|(c, n)| (c.to_string(), *n)).collect();
    assert_eq!(counts, expected, "{}", output_text(&human));

    for file in ["a.json", "b.json"] {
        let out = server.mcpr(d, &["snapshot", "-o", file], true);
        assert_eq!(out.status.code(), Some(0), "{}", output_text(&out));
    }
    let a = std::fs::read_to_string(d.join("a.json")).unwrap();
    assert_eq!(
        a,
        std::fs::read_to_string(d.join("b.json")).unwrap(),
        "snapshots differ"
    );
    let diff = server.mcpr(d, &["diff", "a.json", "--strict"], true);
    assert_eq!(diff.status.code(), Some(0), "{}", output_text(&diff));
    assert_eq!(
        String::from_utf8_lossy(&diff.stdout),
        "MCP tools match snapshot a.json\n"
    );

    (server.fresh)();
    let init = server.mcpr(d, &["init", "-o", "starter.mcpr"], true);
    assert_eq!(init.status.code(), Some(0), "{}", output_text(&init));
    let suite = std::fs::read_to_string(d.join("starter.mcpr")).unwrap();
    if server.every_tool_valued {
        // Each tool that answered (twice) without an error is held to a value it gave.
        for block in suite.split("\nTest: ").filter(|b| b.starts_with("\"Tool ")) {
            if block.contains("Expect it succeeds") {
                assert!(
                    block.contains("\" equals ") || block.contains("\" contains "),
                    "a tool test without a value expectation:\nTest: {block}"
                );
            }
        }
    }
    let check = server.mcpr(d, &["check", "starter.mcpr"], false);
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}\n{suite}",
        output_text(&check)
    );
    // From the state init started from, in the file's order (a server with state sees the
    // calls as init made them).
    (server.fresh)();
    let run = server.mcpr(
        d,
        &[
            "run",
            "--no-history",
            "--jobs",
            "1",
            "--coverage",
            "--json",
            "run.json",
            "starter.mcpr",
        ],
        false,
    );
    println!("{}", String::from_utf8_lossy(&run.stdout));
    assert_eq!(run.status.code(), Some(0), "{}\n{suite}", output_text(&run));
    // Coverage: every tool whose starter test passed was exercised.
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("run.json")).unwrap()).unwrap();
    let suite_report = &report["suites"][0];
    let missing = &suite_report["coverage"]["servers"][0]["tools"]["missing"];
    for t in suite_report["tests"].as_array().unwrap() {
        if let Some(tool) = t["name"].as_str().and_then(|n| n.strip_prefix("Tool "))
            && t["status"] == "passed"
        {
            assert!(
                !missing.as_array().unwrap().contains(&tool.into()),
                "{tool} ran but is not covered: {}",
                suite_report["coverage"]
            );
        }
    }
    assert!(suite_report["coverage"]["covered"].as_u64().unwrap() >= 1);
    // The in-suite gates against the same server: its settings (the header of the starter
    // suite), lint clean at error level (none of these servers has an error-level finding;
    // most have warnings, which the bare statement fails on) and the tool
    // snapshot (the suite's client declares more than `mcpr snapshot`'s, which adds tools
    // to some servers: compatible changes).
    let header: String = suite
        .lines()
        .take_while(|l| !l.starts_with("Test:"))
        .map(|l| format!("{l}\n"))
        .collect();
    let gates = format!(
        "{header}Test: \"Gates\"\n  Expect the server is lint clean only errors\n  Expect the tools match snapshot \"a.json\" allowing compatible changes\n"
    );
    std::fs::write(d.join("gates.mcpr"), &gates).unwrap();
    let gated = server.mcpr(d, &["run", "--no-history", "gates.mcpr"], false);
    println!("{}", String::from_utf8_lossy(&gated.stdout));
    assert_eq!(
        gated.status.code(),
        Some(0),
        "{}\n{gates}",
        output_text(&gated)
    );
}

fn nothing() {}

fn words(w: &[&str]) -> Vec<String> {
    w.iter().map(|s| s.to_string()).collect()
}

#[test]
#[ignore = "needs the interop servers (conformance-tests/interop/install.sh)"]
fn server_everything() {
    let server = Server {
        command: words(&["node", &node("server-everything"), "stdio"]),
        env: vec![],
        fresh: &nothing,
        every_tool_valued: true,
    };
    check(&server, 13, &[("MCP007", 1), ("MCP027", 1)]);
}

#[test]
#[ignore = "needs the interop servers (conformance-tests/interop/install.sh)"]
fn server_filesystem() {
    let scratch = tempfile::tempdir().unwrap();
    let sandbox = scratch.path().join("sandbox");
    let fresh = || {
        let _ = std::fs::remove_dir_all(&sandbox);
        std::fs::create_dir_all(&sandbox).unwrap();
    };
    let server = Server {
        command: words(&[
            "node",
            &node("server-filesystem"),
            &sandbox.display().to_string(),
        ]),
        env: vec![],
        fresh: &fresh,
        every_tool_valued: false,
    };
    check(&server, 14, &[("MCP007", 18)]);
}

#[test]
#[ignore = "needs the interop servers (conformance-tests/interop/install.sh)"]
fn server_memory() {
    let scratch = tempfile::tempdir().unwrap();
    let file = scratch.path().join("memory.jsonl");
    let fresh = || {
        let _ = std::fs::remove_file(&file);
    };
    let server = Server {
        command: words(&["node", &node("server-memory")]),
        env: vec![("MEMORY_FILE_PATH", file.display().to_string())],
        fresh: &fresh,
        every_tool_valued: true,
    };
    check(&server, 9, &[("MCP007", 4)]);
}

#[test]
#[ignore = "needs the interop servers (conformance-tests/interop/install.sh)"]
fn server_sequential_thinking() {
    let server = Server {
        command: words(&["node", &node("server-sequential-thinking")]),
        env: vec![("DISABLE_THOUGHT_LOGGING", "true".into())],
        fresh: &nothing,
        every_tool_valued: false,
    };
    check(&server, 1, &[("MCP006", 1)]);
}

#[test]
#[ignore = "needs the interop servers (conformance-tests/interop/install.sh)"]
fn mcp_server_time() {
    let server = Server {
        command: words(&[&venv("mcp-server-time"), "--local-timezone", "UTC"]),
        env: vec![],
        fresh: &nothing,
        every_tool_valued: false,
    };
    check(&server, 2, &[]);
}

#[test]
#[ignore = "needs the interop servers (conformance-tests/interop/install.sh)"]
fn mcp_server_git() {
    let scratch = tempfile::tempdir().unwrap();
    let repo = scratch.path().join("repo");
    let fresh = || {
        let _ = std::fs::remove_dir_all(&repo);
        std::fs::create_dir_all(&repo).unwrap();
        let git = |args: &[&str]| {
            let ok = Command::new("git")
                .current_dir(&repo)
                .args([
                    "-c",
                    "user.name=mcpr",
                    "-c",
                    "user.email=mcpr@example.invalid",
                ])
                .args(args)
                .output()
                .unwrap()
                .status
                .success();
            assert!(ok, "git {args:?}");
        };
        git(&["init", "-q"]);
        std::fs::write(repo.join("a.txt"), "a\n").unwrap();
        git(&["add", "a.txt"]);
        git(&["commit", "-q", "-m", "first"]);
    };
    let server = Server {
        command: words(&[&venv("mcp-server-git"), "-r", &repo.display().to_string()]),
        env: vec![],
        fresh: &fresh,
        every_tool_valued: false,
    };
    check(&server, 12, &[("MCP005", 2), ("MCP007", 22)]);
}

#[test]
#[ignore = "needs the interop servers (conformance-tests/interop/install.sh)"]
fn python_sdk_server() {
    let server = Server {
        command: words(&[&venv("python"), &tiny_server()]),
        env: vec![],
        fresh: &nothing,
        every_tool_valued: false,
    };
    check(
        &server,
        3,
        &[("MCP005", 1), ("MCP007", 4), ("MCP022", 2), ("MCP027", 1)],
    );
}

/// The two servers that also speak Streamable HTTP give the same findings over it.
#[test]
#[ignore = "needs the interop servers (conformance-tests/interop/install.sh)"]
fn lint_over_streamable_http() {
    // (command, whether the port goes in `PORT` rather than after the command, findings)
    let cases = [
        (words(&[&venv("python"), &tiny_server(), "http"]), false, 8),
        (
            words(&["node", &node("server-everything"), "streamableHttp"]),
            true,
            2,
        ),
    ];
    for (mut command, port_in_env, findings) in cases {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut env = Vec::new();
        if port_in_env {
            env.push(("PORT", port.to_string()));
        } else {
            command.push(port.to_string());
        }
        let mut child = Command::new(&command[0])
            .args(&command[1..])
            .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let start = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "{command:?} did not come up"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let dir = tempfile::tempdir().unwrap();
        let url = format!("http://127.0.0.1:{port}/mcp");
        let out = common::mcpr_in(dir.path())
            .args(["lint", "--format", "json", "--url", &url])
            .output()
            .unwrap();
        let _ = child.kill();
        let _ = child.wait();
        assert_eq!(out.status.code(), Some(0), "{}", output_text(&out));
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            report["findings"].as_array().unwrap().len(),
            findings,
            "{report:#}"
        );
    }
}
