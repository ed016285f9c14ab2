//! `mcpr conformance` against the public servers of `conformance-tests/interop/install.sh`
//! (server-everything, the Python SDK server, mcp-server-time, -git and -memory), over stdio
//! and, where the server offers it, Streamable HTTP. The outcome recorded in
//! docs/conformance-results.md is checked: the versions tested and every check that did
//! not succeed (its verdict), so the document stays true. Ignored by default: `.ci/run`
//! installs the servers and runs `cargo test --test interop_conformance -- --ignored`.

use std::collections::BTreeSet;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

mod common;

/// A `(version, check, verdict)` row.
type Row = (String, String, String);

/// What docs/conformance-results.md records for the section `### title`: the versions (the
/// `Versions:` line), the `(version, check, verdict)` rows of its table, and the rows whose
/// verdict ends in `?` (that check may also succeed), without the `?`.
fn recorded(title: &str) -> (Vec<String>, BTreeSet<Row>, BTreeSet<Row>) {
    let doc = std::fs::read_to_string(common::repo_root().join("docs/conformance-results.md"))
        .expect("docs/conformance-results.md");
    let heading = format!("### {title}");
    let start = doc
        .lines()
        .position(|l| l.trim() == heading)
        .unwrap_or_else(|| panic!("no `{heading}` in docs/conformance-results.md"));
    let mut versions = Vec::new();
    let mut rows = BTreeSet::new();
    let mut may = BTreeSet::new();
    for line in doc.lines().skip(start + 1) {
        if line.starts_with("#") {
            break;
        }
        if let Some(v) = line.strip_prefix("Versions:") {
            versions = v
                .split(',')
                .map(|s| s.trim().trim_matches('`').to_string())
                .collect();
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() > 4 && cells[1].starts_with("20") {
            let row = (
                cells[1].to_string(),
                cells[2].trim_matches('`').to_string(),
                cells[3].trim_end_matches('?').to_string(),
            );
            if cells[3].ends_with('?') {
                may.insert(row);
            } else {
                rows.insert(row);
            }
        }
    }
    (versions, rows, may)
}

/// Runs `mcpr conformance` with `target` (the server, after any `--input`) and compares
/// with the recorded section.
fn check(title: &str, target: &[String]) {
    let scratch = tempfile::tempdir().unwrap();
    let out = common::mcpr_in(scratch.path())
        .args([
            "conformance",
            "--format",
            "json",
            "--jobs",
            "2",
            "--timeout",
            "60",
        ])
        .args(target)
        .output()
        .unwrap();
    let text = common::output_text(&out);
    let doc: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{title}: not JSON ({e})\n{text}"));
    let checks = doc["checks"].as_array().cloned().unwrap_or_default();
    let mut versions: Vec<String> = Vec::new();
    for c in &checks {
        let v = c["version"].as_str().unwrap_or_default().to_string();
        if !versions.contains(&v) {
            versions.push(v);
        }
    }
    let (want_versions, want, may) = recorded(title);
    let got: BTreeSet<Row> = checks
        .iter()
        .filter(|c| c["verdict"] != "SUCCESS")
        .map(|c| {
            (
                c["version"].as_str().unwrap_or_default().to_string(),
                c["check"].as_str().unwrap_or_default().to_string(),
                c["verdict"].as_str().unwrap_or_default().to_string(),
            )
        })
        .filter(|row| !may.contains(row))
        .collect();
    assert_eq!(
        versions, want_versions,
        "{title}: the versions tested\n{text}"
    );
    assert_eq!(
        got, want,
        "{title}: the checks that did not succeed differ from docs/conformance-results.md\n{text}"
    );
}

fn words(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// A server listening on `port`, killed when dropped.
struct Listening(Child);

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// Starts `cmd` and waits until `port` accepts connections (at most 90 s: a Python server
/// starts slowly on a loaded machine).
fn listen(mut cmd: Command, port: u16) -> Listening {
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts");
    let server = Listening(child);
    let start = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(90),
            "the server does not listen on {port}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    server
}

fn everything(dir: &std::path::Path) -> String {
    dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
        .display()
        .to_string()
}

fn tiny_server() -> String {
    common::repo_root()
        .join("conformance-tests/interop/tiny_server.py")
        .display()
        .to_string()
}

#[test]
#[ignore = "needs the interop servers (conformance-tests/interop/install.sh)"]
fn server_everything_over_stdio() {
    let dir = common::interop_dir();
    check(
        "server-everything, stdio",
        &words(&["--", "node", &everything(&dir), "stdio"]),
    );
}

/// server-everything's own names, so that the checks that call a tool, read a resource or
/// get a prompt run too; its task tool needs arguments (`topic`), given as `task_arguments`.
const EVERYTHING_INPUTS: &[&str] = &[
    "tool=echo",
    r#"arguments={"message":"hi"}"#,
    r#"invalid_arguments={"message":5}"#,
    "resource_uri=demo://resource/static/document/architecture.md",
    "prompt=completable-prompt",
    r#"prompt_arguments={"department":"Engineering","name":"Alice"}"#,
    "completion_argument=department",
    "completion_value=E",
    "progress_tool=trigger-long-running-operation",
    r#"progress_arguments={"duration":1,"steps":3}"#,
    "slow_tool=trigger-long-running-operation",
    r#"slow_arguments={"duration":5,"steps":5}"#,
    "task_tool=simulate-research-query",
    r#"task_arguments={"topic":"mcp"}"#,
    "slow_task_tool=simulate-research-query",
    r#"slow_task_arguments={"topic":"mcp","ambiguous":true}"#,
];

#[test]
#[ignore = "needs the interop servers (conformance-tests/interop/install.sh)"]
fn server_everything_with_its_names_over_stdio() {
    let dir = common::interop_dir();
    let mut args = Vec::new();
    for input in EVERYTHING_INPUTS {
        args.push("--input".to_string());
        args.push(input.to_string());
    }
    args.extend(words(&["--", "node", &everything(&dir), "stdio"]));
    check("server-everything with its names, stdio", &args);
}

#[test]
#[ignore = "needs the interop servers (conformance-tests/interop/install.sh)"]
fn server_everything_over_http() {
    let dir = common::interop_dir();
    let port = free_port();
    let mut cmd = Command::new("node");
    cmd.args([everything(&dir).as_str(), "streamableHttp"])
        .env("PORT", port.to_string());
    let _server = listen(cmd, port);
    check(
        "server-everything, Streamable HTTP",
        &words(&["--url", &format!("http://127.0.0.1:{port}/mcp")]),
    );
}

#[test]
#[ignore = "needs the interop servers (conformance-tests/interop/install.sh)"]
fn python_sdk_server_over_stdio() {
    let dir = common::interop_dir();
    let python = dir.join("venv/bin/python").display().to_string();
    check(
        "Python SDK server, stdio",
        &words(&["--", &python, &tiny_server()]),
    );
}

#[test]
#[ignore = "needs the interop servers (conformance-tests/interop/install.sh)"]
fn python_sdk_server_over_http() {
    let dir = common::interop_dir();
    let port = free_port();
    let mut cmd = Command::new(dir.join("venv/bin/python"));
    cmd.args([tiny_server(), "http".into(), port.to_string()]);
    let _server = listen(cmd, port);
    check(
        "Python SDK server, Streamable HTTP",
        &words(&["--url", &format!("http://127.0.0.1:{port}/mcp")]),
    );
}

#[test]
#[ignore = "needs the interop servers (conformance-tests/interop/install.sh)"]
fn mcp_server_time_over_stdio() {
    let dir = common::interop_dir();
    let time = dir.join("venv/bin/mcp-server-time").display().to_string();
    check("mcp-server-time, stdio", &words(&["--", &time]));
}

#[test]
#[ignore = "needs the interop servers (conformance-tests/interop/install.sh)"]
fn mcp_server_git_over_stdio() {
    let dir = common::interop_dir();
    let repo = tempfile::tempdir().unwrap();
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .args(args)
            .current_dir(repo.path())
            .output()
            .is_ok_and(|o| o.status.success());
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    std::fs::write(repo.path().join("a.txt"), "a\n").unwrap();
    git(&["add", "a.txt"]);
    git(&[
        "-c",
        "user.email=mcpr@example.invalid",
        "-c",
        "user.name=mcpr",
        "commit",
        "-qm",
        "init",
    ]);
    let server = dir.join("venv/bin/mcp-server-git").display().to_string();
    let repo_path = repo.path().display().to_string();
    check(
        "mcp-server-git, stdio",
        &words(&["--", &server, "--repository", &repo_path]),
    );
}

#[test]
#[ignore = "needs the interop servers (conformance-tests/interop/install.sh)"]
fn mcp_server_memory_over_stdio() {
    let dir = common::interop_dir();
    let scratch = tempfile::tempdir().unwrap();
    let memory = dir
        .join("node_modules/@modelcontextprotocol/server-memory/dist/index.js")
        .display()
        .to_string();
    let file = scratch.path().join("memory.jsonl").display().to_string();
    check(
        "mcp-server-memory, stdio",
        &words(&[
            "--",
            "env",
            &format!("MEMORY_FILE_PATH={file}"),
            "node",
            &memory,
        ]),
    );
}
