//! `mcpr record`: a scripted client drives `mcpr record -- reference-server` over pipes, as
//! a real client drives its server; the draft must pass `mcpr check` and `mcpr run`.

mod common;

use common::{mcpr_bin, mcpr_in, output_text, reference_server, scratch};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// A client speaking JSON-RPC lines to `mcpr record`, reading its stdout on a thread so
/// that a silent proxy fails the test instead of hanging it.
struct Client {
    /// `None` once [`Client::finish`] took it.
    child: Option<Child>,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<Value>,
}

impl Client {
    fn start(dir: &std::path::Path, extra: &[&str]) -> Client {
        let mut cmd = mcpr_in(dir);
        cmd.args(["record", "-o", "draft.mcpr"])
            .args(extra)
            .arg("--")
            .arg(reference_server())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        let stdin = child.stdin.take();
        let stdout: ChildStdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| {
                    panic!("the proxy passed on a line that is not JSON ({e}): {line}")
                });
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        Client {
            child: Some(child),
            stdin,
            lines,
        }
    }

    fn send(&mut self, v: Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{v}").unwrap();
        stdin.flush().unwrap();
    }

    /// Sends a request and returns its answer (messages before it are skipped).
    fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let v = self
                .lines
                .recv_timeout(Duration::from_secs(20))
                .unwrap_or_else(|_| panic!("no answer to {method} through the proxy"));
            if v["id"] == json!(id) && v.get("method").is_none() {
                return v;
            }
        }
    }

    /// Closes stdin, as a client does at the end, and waits for mcpr to exit.
    fn finish(mut self) -> std::process::Output {
        drop(self.stdin.take());
        let mut child = self.child.take().unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while child.try_wait().unwrap().is_none() {
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                panic!("mcpr record did not exit after the client closed its end");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        child.wait_with_output().unwrap()
    }
}

/// A test that fails midway still ends the recorder, and through it the server: stdin is
/// closed as a client closes it (mcpr then shuts the server down); a recorder that does not
/// exit in time is killed.
impl Drop for Client {
    fn drop(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        drop(self.stdin.take());
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while let Ok(None) = child.try_wait() {
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn session(c: &mut Client) {
    let init = c.request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "scripted", "version": "1"}}),
    );
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18", "{init}");
    c.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let tools = c.request(2, "tools/list", json!({}));
    assert!(
        tools["result"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty()),
        "{tools}"
    );
    let add = c.request(
        3,
        "tools/call",
        json!({"name": "add", "arguments": {"a": 2, "b": 3}}),
    );
    assert_eq!(add["result"]["structuredContent"]["sum"], 5, "{add}");
    let echo = c.request(
        4,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "héllo"}, "_meta": {"progressToken": 7}}),
    );
    assert_eq!(echo["result"]["content"][0]["text"], "héllo", "{echo}");
    let fail = c.request(5, "tools/call", json!({"name": "fail", "arguments": {}}));
    assert_eq!(fail["result"]["isError"], true, "{fail}");
    let bad = c.request(6, "tools/call", json!({"name": "echo", "arguments": {}}));
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    c.request(7, "resources/read", json!({"uri": "fixture://status"}));
    let greet = c.request(
        8,
        "prompts/get",
        json!({"name": "greet", "arguments": {"name": "Ada"}}),
    );
    assert!(greet["result"]["messages"].is_array(), "{greet}");
    c.request(9, "ping", json!({}));
}

#[test]
fn a_recorded_session_replays_green() {
    let dir = scratch(&[]);
    let mut c = Client::start(dir.path(), &[]);
    session(&mut c);
    let out = c.finish();
    assert_eq!(out.status.code(), Some(0), "{}", output_text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("wrote draft.mcpr: 8 steps from 9 requests"),
        "{}",
        output_text(&out)
    );
    let draft = std::fs::read_to_string(dir.path().join("draft.mcpr")).unwrap();
    for want in [
        "Call tool \"add\" with:",
        "Expect \"structuredContent.sum\" equals 5",
        "Expect error code -32602",
        "Read resource \"fixture://status\"",
        "Get prompt \"greet\" with:",
        "Send \"ping\"",
    ] {
        assert!(draft.contains(want), "{want:?} not in the draft:\n{draft}");
    }
    assert!(!draft.contains("progressToken"), "{draft}");
    common::assert_draft_replays(dir.path(), &draft, &[]);
}

#[test]
fn a_draft_that_no_longer_matches_fails_its_run() {
    let dir = scratch(&[]);
    let mut c = Client::start(dir.path(), &[]);
    session(&mut c);
    assert_eq!(c.finish().status.code(), Some(0));
    let path = dir.path().join("draft.mcpr");
    let draft = std::fs::read_to_string(&path).unwrap();
    assert!(draft.contains("    a: 2\n"), "{draft}");
    std::fs::write(&path, draft.replace("    a: 2\n", "    a: 20\n")).unwrap();
    let run = mcpr_in(dir.path())
        .args(["run", "draft.mcpr", "--no-progress"])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1), "{}", output_text(&run));
}

#[test]
fn an_existing_draft_is_kept_and_an_empty_session_writes_nothing() {
    let dir = scratch(&[("draft.mcpr", "keep me")]);
    let out = mcpr_in(dir.path())
        .args(["record", "-o", "draft.mcpr", "--", "true"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    common::assert_exit_with(&out, 2, "exists; pass --force");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("draft.mcpr")).unwrap(),
        "keep me"
    );
    let c = Client::start(dir.path(), &["--force"]);
    let out = c.finish();
    common::assert_exit_with(&out, 2, "the client sent no request");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("draft.mcpr")).unwrap(),
        "keep me"
    );
}

#[test]
fn a_signal_ends_the_recording_and_the_draft_is_written() {
    let dir = scratch(&[]);
    let mut c = Client::start(dir.path(), &[]);
    c.request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "scripted", "version": "1"}}),
    );
    c.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    c.request(
        2,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "x"}}),
    );
    let pid = c.child.as_ref().unwrap().id() as i32;
    // SIGTERM, as a client ending its server does; stdin stays open.
    assert!(
        std::process::Command::new("kill")
            .arg(pid.to_string())
            .status()
            .unwrap()
            .success()
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while c.child.as_mut().unwrap().try_wait().unwrap().is_none() {
        assert!(
            std::time::Instant::now() < deadline,
            "mcpr record did not stop on SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let draft = std::fs::read_to_string(dir.path().join("draft.mcpr")).unwrap();
    assert!(draft.contains("Call tool \"echo\" with:"), "{draft}");
    let _ = mcpr_bin;
}
