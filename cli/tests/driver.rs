//! `mcpr driver` as a binding runs it: a child process spoken to over its stdin and
//! stdout (docs/driver.md). What the in-process tests of the runtime cannot show: the
//! environment a server inherits from the driver, and that a binding that dies (its pipes
//! close) or a signal leaves no server process behind.

mod common;
use common::{mcpr_bin, reference_server};

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// A running `mcpr driver` and its pipes.
struct Driver {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next: u64,
}

impl Driver {
    /// Starts the driver with `env` added to its environment and says hello.
    fn start(env: &[(&str, &str)]) -> Driver {
        let mut cmd = mcpr_bin();
        cmd.arg("driver")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("mcpr driver starts");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut d = Driver {
            child,
            stdin,
            stdout,
            next: 1,
        };
        let hello = d.ask("hello", json!({"protocol": 1}));
        assert_eq!(hello["result"]["protocol"], 1, "{hello}");
        d
    }

    /// Sends one line and reads one response line (these tests send one request at a time).
    fn line(&mut self, line: &str) -> Value {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        writeln!(stdin, "{line}").expect("the driver reads");
        stdin.flush().unwrap();
        let mut text = String::new();
        self.stdout
            .read_line(&mut text)
            .expect("the driver answers");
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text:?}"))
    }

    fn ask(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        let v = self.line(&json!({"id": id, "method": method, "params": params}).to_string());
        assert_eq!(v["id"], id, "{v}");
        v
    }

    fn ok(&mut self, method: &str, params: Value) -> Value {
        let v = self.ask(method, params);
        assert!(v.get("error").is_none(), "{method}: {v}");
        v["result"].clone()
    }

    /// Opens the reference server; returns the open result.
    fn reference(&mut self, extra: Value) -> Value {
        let mut params = json!({"command": [reference_server()], "timeoutMs": 10_000});
        params
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().cloned().unwrap_or_default());
        self.ok("open", params)
    }

    /// What the reference server sees of variable `name` (its `environment` tool).
    fn server_sees(&mut self, server: &Value, name: &str) -> String {
        let r = self.ok(
            "callTool",
            json!({"server": server, "name": "environment", "arguments": {"name": name}}),
        );
        r["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// Waits (at most 20 s) for the driver to exit; its exit code.
    fn wait(&mut self) -> Option<i32> {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code().or_else(|| {
                    use std::os::unix::process::ExitStatusExt;
                    status.signal().map(|s| 128 + s)
                });
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "the driver did not exit"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits (at most 5 s) for the process group of `pid` to be gone.
fn assert_gone(pid: i64) {
    let pid = pid as i32;
    let start = Instant::now();
    while mcpr_runtime::transport::stdio::group_alive(pid) {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "server {pid} outlived its driver"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_server_inherits_the_environment_minus_credentials_and_the_handle_names_them() {
    let token = "ghp_0123456789abcdefghijABCDEFGHIJklmnop";
    let mut d = Driver::start(&[
        ("GITHUB_TOKEN", token),
        ("MCPR_TEST_PLAIN", "plain value"),
        ("MCPR_TEST_OVERRIDDEN", "from the driver"),
    ]);
    let opened = d.reference(
        json!({"env": {"MCPR_TEST_ADDED": "added", "MCPR_TEST_OVERRIDDEN": "from open"}}),
    );
    let server = opened["server"].clone();
    assert_eq!(opened["withheldEnv"], json!(["GITHUB_TOKEN"]), "{opened}");
    assert!(!opened.to_string().contains(token));
    assert!(
        d.server_sees(&server, "MCPR_TEST_PLAIN")
            .contains("plain value")
    );
    assert!(d.server_sees(&server, "MCPR_TEST_ADDED").contains("added"));
    assert!(
        d.server_sees(&server, "MCPR_TEST_OVERRIDDEN")
            .contains("from open")
    );
    let seen = d.server_sees(&server, "GITHUB_TOKEN");
    assert!(
        !seen.contains(token),
        "the token reached the server: {seen}"
    );

    let minimal = d.reference(json!({"inheritEnv": "minimal", "name": "minimal"}));
    let seen = d.server_sees(&minimal["server"], "MCPR_TEST_PLAIN");
    assert!(!seen.contains("plain value"), "{seen}");
    assert!(d.server_sees(&minimal["server"], "PATH").contains('/'));
}

#[test]
fn a_binding_that_goes_away_leaves_no_server_behind() {
    let mut d = Driver::start(&[]);
    let first = d.reference(json!({}))["pid"].as_i64().unwrap();
    let second = d.reference(json!({"name": "second"}))["pid"]
        .as_i64()
        .unwrap();
    // What the kernel does to the pipes of a binding that is killed.
    d.stdin.take();
    assert_eq!(d.wait(), Some(0));
    assert_gone(first);
    assert_gone(second);
}

#[test]
fn a_signal_to_the_driver_ends_its_servers() {
    let mut d = Driver::start(&[]);
    let pid = d.reference(json!({}))["pid"].as_i64().unwrap();
    let driver = nix::unistd::Pid::from_raw(d.child.id() as i32);
    nix::sys::signal::kill(driver, nix::sys::signal::Signal::SIGTERM).unwrap();
    assert_eq!(d.wait(), Some(143));
    assert_gone(pid);
}

#[test]
fn a_line_that_is_not_a_request_is_answered_and_the_driver_goes_on() {
    let mut d = Driver::start(&[]);
    let v = d.line("{\"oops\"");
    assert_eq!(v["id"], Value::Null);
    assert_eq!(v["error"]["kind"], "invalid-request");
    let server = d.reference(json!({}))["server"].clone();
    let r = d.ok(
        "callTool",
        json!({"server": server, "name": "echo", "arguments": {"text": "on"}}),
    );
    assert_eq!(r["result"]["content"][0]["text"], "on");
    let closed = d.ok("shutdown", json!({}));
    assert_eq!(closed, json!({}));
    assert_eq!(d.wait(), Some(0));
}
