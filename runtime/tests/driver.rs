//! The driver protocol (docs/driver.md) served in-process, as `mcpr driver` serves it,
//! against the reference and hostile servers: each request kind, each failure kind, lines
//! that are not requests, and the end of the input stopping every server. Every response
//! is checked against the protocol's schema (docs/schema/driver.schema.json).

mod common;
use common::server_bin;

use std::collections::BTreeMap;
use std::time::Duration;

use mcpr_runtime::driver::{self, Input};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader, DuplexStream, Lines};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// The driver's schema, compiled once.
fn schema() -> &'static jsonschema::Validator {
    static SCHEMA: std::sync::OnceLock<jsonschema::Validator> = std::sync::OnceLock::new();
    SCHEMA.get_or_init(|| {
        let text = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../docs/schema/driver.schema.json"),
        )
        .expect("docs/schema/driver.schema.json");
        let schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
        jsonschema::validator_for(&schema).expect("the schema compiles")
    })
}

/// A driver served on channels, and the binding's end of it.
struct Binding {
    input: Option<mpsc::Sender<Input>>,
    output: Lines<BufReader<DuplexStream>>,
    served: JoinHandle<std::io::Result<()>>,
    next: u64,
    /// Responses read while looking for another id.
    early: BTreeMap<String, Value>,
}

impl Binding {
    /// A driver that has already said hello.
    async fn start() -> Binding {
        let mut b = Binding::bare();
        let hello = b
            .ask("hello", json!({"protocol": 1, "client": "tests"}))
            .await;
        assert_eq!(hello["result"]["protocol"], 1, "{hello}");
        b
    }

    fn bare() -> Binding {
        let (tx, rx) = mpsc::channel(16);
        let (ours, theirs) = tokio::io::duplex(1 << 20);
        let served = tokio::spawn(driver::serve(rx, theirs));
        Binding {
            input: Some(tx),
            output: BufReader::new(ours).lines(),
            served,
            next: 1,
            early: BTreeMap::new(),
        }
    }

    async fn line(&mut self, text: &str) {
        let input = self.input.as_ref().expect("the input is open");
        input
            .send(Input::Line(text.as_bytes().to_vec()))
            .await
            .expect("the driver reads");
    }

    /// Sends a request; returns its id.
    async fn send(&mut self, method: &str, params: Value) -> Value {
        let id = json!(self.next);
        self.next += 1;
        self.line(&json!({"id": id, "method": method, "params": params}).to_string())
            .await;
        id
    }

    /// The next response line, checked against the schema.
    async fn read(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(20), self.output.next_line())
            .await
            .expect("a response within 20 s")
            .expect("the output reads")
            .expect("a response, not the end of the output");
        let v: Value = serde_json::from_str(&line).expect("each response is one JSON line");
        let problems: Vec<String> = schema().iter_errors(&v).map(|e| e.to_string()).collect();
        assert!(
            problems.is_empty(),
            "{line}\nbreaks the schema: {problems:?}"
        );
        v
    }

    /// The response to `id`, whatever order the responses come in.
    async fn response(&mut self, id: &Value) -> Value {
        if let Some(v) = self.early.remove(&id.to_string()) {
            return v;
        }
        loop {
            let v = self.read().await;
            if &v["id"] == id {
                return v;
            }
            self.early.insert(v["id"].to_string(), v);
        }
    }

    async fn ask(&mut self, method: &str, params: Value) -> Value {
        let id = self.send(method, params).await;
        self.response(&id).await
    }

    /// The result of a request that must succeed.
    async fn ok(&mut self, method: &str, params: Value) -> Value {
        let v = self.ask(method, params).await;
        assert!(v.get("error").is_none(), "{method} failed: {v}");
        v["result"].clone()
    }

    /// The error of a request that must fail.
    async fn fails(&mut self, method: &str, params: Value) -> Value {
        let v = self.ask(method, params).await;
        assert!(v.get("result").is_none(), "{method} succeeded: {v}");
        v["error"].clone()
    }

    /// Opens the reference server; returns its handle and pid.
    async fn reference(&mut self, extra: Value) -> (String, i32) {
        let mut params =
            json!({"command": [server_bin("mcpr-reference-server")], "timeoutMs": 10_000});
        params
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().cloned().unwrap_or_default());
        let r = self.ok("open", params).await;
        (
            r["server"].as_str().unwrap().to_string(),
            r["pid"].as_i64().unwrap() as i32,
        )
    }

    /// Ends the input and waits for the driver to finish.
    async fn end(mut self) {
        self.input.take();
        let served = tokio::time::timeout(Duration::from_secs(20), self.served)
            .await
            .expect("the driver ends when its input does");
        served.expect("no panic").expect("no I/O error");
    }
}

fn hostile(mode: &str) -> Value {
    json!([server_bin("mcpr-hostile-server"), mode])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hello_comes_first_and_names_the_protocol() {
    let mut b = Binding::bare();
    let e = b.fails("listTools", json!({"server": "mcp-1"})).await;
    assert_eq!(e["kind"], "no-hello", "{e}");
    let e = b.fails("hello", json!({"protocol": 2})).await;
    assert_eq!(e["kind"], "unsupported-protocol");
    assert_eq!(e["data"]["supported"], json!([1]));
    // A request right behind `hello`, before its answer, is read after it.
    let hello = b.send("hello", json!({"protocol": 1})).await;
    let behind = b.send("listTools", json!({"server": "mcp-9"})).await;
    let r = b.response(&hello).await["result"].clone();
    assert_eq!(b.response(&behind).await["error"]["kind"], "unknown-server");
    assert_eq!(r["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(
        r["methods"].as_array().unwrap().len(),
        driver::METHODS.len()
    );
    b.end().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_is_opened_called_listed_read_and_closed() {
    let mut b = Binding::start().await;
    let (server, _) = b.reference(json!({"protocol": "2025-11-25"})).await;
    assert_eq!(server, "mcp-1");
    let tools = b.ok("listTools", json!({"server": server})).await;
    let names: Vec<&str> = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"add") && names.contains(&"echo"),
        "{names:?}"
    );
    let r = b
        .ok(
            "callTool",
            json!({"server": server, "name": "add", "arguments": {"a": 2, "b": 3}}),
        )
        .await;
    assert_eq!(r["result"]["structuredContent"]["sum"], 5, "{r}");
    let resources = b.ok("listResources", json!({"server": server})).await;
    let uri = resources["resources"][0]["uri"]
        .as_str()
        .unwrap()
        .to_string();
    let read = b
        .ok(
            "readResource",
            json!({"server": server, "uri": uri, "timeoutMs": 5000}),
        )
        .await;
    assert!(read["result"]["contents"].is_array(), "{read}");
    let templates = b
        .ok("listResourceTemplates", json!({"server": server}))
        .await;
    assert!(
        !templates["resourceTemplates"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    let prompts = b.ok("listPrompts", json!({"server": server})).await;
    assert!(
        prompts["prompts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["name"] == "greet")
    );
    let got = b
        .ok(
            "getPrompt",
            json!({"server": server, "name": "greet", "arguments": {"name": "Ada"}}),
        )
        .await;
    assert!(
        got["result"]["messages"].to_string().contains("Ada"),
        "{got}"
    );
    let stderr = b.ok("stderr", json!({"server": server})).await;
    assert!(stderr["stderrTail"].is_array(), "{stderr}");
    let e = b
        .fails("snapshot", json!({"server": server, "timeoutMs": 5}))
        .await;
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("unknown field `timeoutMs`"),
        "{e}"
    );
    let closed = b.ok("close", json!({"server": server})).await;
    assert_eq!(
        (closed["exitStatus"].as_str(), closed["exitCode"].as_i64()),
        (Some("exit status 0"), Some(0))
    );
    let e = b.fails("listTools", json!({"server": server})).await;
    assert_eq!(e["kind"], "unknown-server");
    b.end().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_errors_are_failures_unless_allowed_and_rpc_errors_carry_the_servers_error() {
    let mut b = Binding::start().await;
    let (server, _) = b.reference(json!({})).await;
    let e = b
        .fails("callTool", json!({"server": server, "name": "fail"}))
        .await;
    assert_eq!(
        (e["kind"].as_str(), e["code"].as_str()),
        (Some("tool-error"), Some("MCP-TOOL-001"))
    );
    assert_eq!(e["data"]["result"]["isError"], true, "{e}");
    assert_eq!(e["data"]["lastMessage"]["direction"], "received");
    let r = b
        .ok(
            "callTool",
            json!({"server": server, "name": "fail", "allowError": true}),
        )
        .await;
    assert_eq!(r["result"]["isError"], true);
    // A tool the server does not list is still asked for: its refusal is the answer.
    let e = b
        .fails("callTool", json!({"server": server, "name": "nosuch"}))
        .await;
    assert_eq!(e["kind"], "rpc-error", "{e}");
    assert_eq!(e["data"]["error"]["code"], -32602);
    b.end().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notifications_are_kept_from_the_start_and_handed_out_once() {
    let mut b = Binding::start().await;
    let (server, _) = b
        .reference(json!({"protocol": "2025-11-25", "logLevel": "debug"}))
        .await;
    // A wait may be in flight while the call that causes its notification runs.
    let waiting = b
        .send(
            "waitNotification",
            json!({"server": server, "method": "notifications/message", "match": {"data.message": "second"}, "timeoutMs": 10_000}),
        )
        .await;
    for message in ["first", "second"] {
        b.ok("callTool", json!({"server": server, "name": "log", "arguments": {"level": "info", "message": message}}))
            .await;
    }
    let got = b.response(&waiting).await;
    assert_eq!(
        got["result"]["params"]["data"]["message"], "second",
        "{got}"
    );
    // Call first, wait after: "first" arrived before anyone asked for it.
    let first = b
        .ok(
            "waitNotification",
            json!({"server": server, "method": "notifications/message"}),
        )
        .await;
    assert_eq!(first["params"]["data"]["message"], "first");
    b.ok("callTool", json!({"server": server, "name": "log", "arguments": {"level": "info", "message": "third"}}))
        .await;
    let e = b
        .fails(
            "waitNotification",
            json!({"server": server, "method": "notifications/message", "match": {"data.message": "first"}, "timeoutMs": 300}),
        )
        .await;
    assert_eq!(
        (e["kind"].as_str(), e["code"].as_str()),
        (Some("timeout"), Some("MCP-EVENT-001"))
    );
    assert_eq!(
        e["data"]["arrived"][0]["params"]["data"]["message"], "third",
        "{e}"
    );
    assert_eq!(e["data"]["more"], 0);
    b.end().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_does_not_come_up_fails_open_with_its_stderr() {
    let mut b = Binding::start().await;
    let e = b.fails("open", json!({"command": hostile("exit-1")})).await;
    assert_eq!(e["kind"], "start-failed", "{e}");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .starts_with("the MCP server did not come up")
    );
    let stderr = e["data"]["stderrTail"].to_string();
    assert!(stderr.contains("refusing to start"), "{e}");
    // A banner on stdout, a word on stderr, and gone: both are named.
    let e = b
        .fails(
            "open",
            json!({"command": ["sh", "-c", "echo 'Server starting...'; echo 'fatal: no database' >&2; exit 3"]}),
        )
        .await;
    assert_eq!(e["kind"], "start-failed", "{e}");
    assert_eq!(e["data"]["exitCode"], 3, "{e}");
    assert_eq!(
        e["data"]["stdoutNoise"],
        json!(["Server starting..."]),
        "{e}"
    );
    assert_eq!(
        e["data"]["stderrTail"],
        json!(["fatal: no database"]),
        "{e}"
    );
    let e = b
        .fails(
            "open",
            json!({"command": ["/nonexistent/server"], "name": "gone"}),
        )
        .await;
    assert_eq!(
        (e["kind"].as_str(), e["data"]["server"].as_str()),
        (Some("start-failed"), Some("gone"))
    );
    b.end().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_dies_mid_call_is_named_with_its_exit_and_stderr() {
    let mut b = Binding::start().await;
    let opened = b
        .ok("open", json!({"command": hostile("crash-mid-call")}))
        .await;
    let server = opened["server"].clone();
    let e = b
        .fails(
            "callTool",
            json!({"server": server, "name": "echo", "arguments": {"text": "x"}}),
        )
        .await;
    assert_eq!(e["kind"], "server-exited", "{e}");
    assert_eq!(e["data"]["exitCode"], 70);
    assert!(
        e["data"]["stderrTail"]
            .to_string()
            .contains("panicked while handling tools/call")
    );
    assert_eq!(e["data"]["lastMessage"]["direction"], "sent", "{e}");
    assert_eq!(e["data"]["lastMessage"]["kind"], "request");
    b.end().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_past_its_deadline_times_out_and_the_server_goes_on() {
    let mut b = Binding::start().await;
    let (server, _) = b.reference(json!({})).await;
    let e = b
        .fails(
            "callTool",
            json!({"server": server, "name": "slow", "arguments": {"ms": 5000}, "timeoutMs": 200}),
        )
        .await;
    assert_eq!(
        (e["kind"].as_str(), e["code"].as_str()),
        (Some("timeout"), Some("MCP-TIMEOUT-001"))
    );
    let r = b
        .ok(
            "callTool",
            json!({"server": server, "name": "echo", "arguments": {"text": "still here"}}),
        )
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "still here");
    b.end().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_that_are_not_requests_get_a_structured_error_and_the_driver_goes_on() {
    let mut b = Binding::start().await;
    for (line, id) in [
        ("this is not json", Value::Null),
        ("[1, 2]", Value::Null),
        (r#"{"id": {"x": 1}, "method": "listTools"}"#, Value::Null),
        (r#"{"id": 41, "params": {}}"#, json!(41)),
        (
            r#"{"id": "s", "method": "listTools", "params": "x"}"#,
            json!("s"),
        ),
    ] {
        b.line(line).await;
        let v = b.read().await;
        assert_eq!(
            (&v["id"], v["error"]["kind"].as_str()),
            (&id, Some("invalid-request")),
            "{line}: {v}"
        );
    }
    b.input
        .as_ref()
        .unwrap()
        .send(Input::TooLong)
        .await
        .unwrap();
    let v = b.read().await;
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("longer than"),
        "{v}"
    );
    let e = b.fails("frobnicate", json!({"server": "mcp-1"})).await;
    assert_eq!(e["kind"], "unknown-server");
    let (server, _) = b.reference(json!({})).await;
    let e = b.fails("frobnicate", json!({"server": server})).await;
    assert!(
        e["message"].as_str().unwrap().contains("unknown method"),
        "{e}"
    );
    let e = b.fails("callTool", json!({"server": server})).await;
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("missing field `name`"),
        "{e}"
    );
    let e = b
        .fails(
            "callTool",
            json!({"server": server, "name": "echo", "argument": {}}),
        )
        .await;
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("unknown field `argument`"),
        "{e}"
    );
    let e = b.fails("open", json!({"command": []})).await;
    assert_eq!(e["kind"], "invalid-request");
    let e = b
        .fails(
            "open",
            json!({"url": "http://127.0.0.1:1/mcp", "command": ["x"]}),
        )
        .await;
    assert!(e["message"].as_str().unwrap().contains("not both"), "{e}");
    let r = b.ok("listTools", json!({"server": server})).await;
    assert!(r["tools"].is_array());
    b.end().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lint_snapshot_and_diff_are_the_commands_own() {
    let mut b = Binding::start().await;
    let (server, _) = b.reference(json!({})).await;
    let lint = b
        .ok("lint", json!({"server": server, "failOn": "warning"}))
        .await;
    assert_eq!(
        lint["failed"], true,
        "the reference server has undescribed parameters"
    );
    assert!(
        lint["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["code"] == "MCP007")
    );
    assert!(lint["text"].as_str().unwrap().contains("warning MCP007"));
    let quiet = b
        .ok(
            "lint",
            json!({"server": server, "ignore": ["mcp007"], "failOn": "warning"}),
        )
        .await;
    assert!(
        quiet["findings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["code"] != "MCP007")
    );
    let e = b
        .fails("lint", json!({"server": server, "ignore": ["MCP999"]}))
        .await;
    assert_eq!(e["kind"], "invalid-request");

    let snap = b.ok("snapshot", json!({"server": server})).await;
    let text = snap["text"].as_str().unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(text).unwrap(),
        snap["snapshot"]
    );
    let same = b
        .ok("diff", json!({"server": server, "snapshot": text}))
        .await;
    assert_eq!(
        (same["breaking"].as_u64(), same["compatible"].as_u64()),
        (Some(0), Some(0))
    );
    // A snapshot that knew a tool the server no longer has: a breaking change.
    let mut old = snap["snapshot"].clone();
    let tools = old["tools"].as_array_mut().unwrap();
    let mut gone = tools[0].clone();
    gone["name"] = json!("retired_tool");
    tools.push(gone);
    let changed = b
        .ok(
            "diff",
            json!({"server": server, "snapshot": old.to_string(), "name": "tools.json"}),
        )
        .await;
    assert_eq!(changed["breaking"], 1, "{changed}");
    assert_eq!(changed["failed"], true);
    let line = changed["changes"][0]["line"].as_str().unwrap();
    assert!(line.starts_with("  BREAKING retired_tool: "), "{line}");
    assert!(
        changed["text"]
            .as_str()
            .unwrap()
            .starts_with("MCP tools differ from snapshot tools.json (1 breaking, 0 compatible):")
    );
    let allowed = b
        .ok(
            "diff",
            json!({"server": server, "snapshot": old.to_string(), "allowBreaking": true}),
        )
        .await;
    assert_eq!(allowed["failed"], false);
    let e = b
        .fails("diff", json!({"server": server, "snapshot": "42"}))
        .await;
    assert_eq!(e["kind"], "failed");
    b.end().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_a_server_prints_that_is_not_protocol_is_named_not_fatal() {
    let mut b = Binding::start().await;
    let opened = b.ok("open", json!({"command": hostile("garbage")})).await;
    let server = opened["server"].clone();
    let lint = b.ok("lint", json!({"server": server})).await;
    let noise = lint["stdoutNoise"].to_string();
    assert!(noise.contains("this banner is not JSON-RPC"), "{lint}");
    b.end().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_end_of_the_input_stops_every_server() {
    let mut b = Binding::start().await;
    let (_, first) = b.reference(json!({})).await;
    let (_, second) = b.reference(json!({"name": "other"})).await;
    let e = b
        .fails(
            "open",
            json!({"command": [server_bin("mcpr-reference-server")], "name": "other"}),
        )
        .await;
    assert!(
        e["message"].as_str().unwrap().contains("already open"),
        "{e}"
    );
    // A request still in flight is abandoned with its server.
    b.send(
        "callTool",
        json!({"server": "other", "name": "slow", "arguments": {"ms": 60_000}}),
    )
    .await;
    b.end().await;
    common::assert_group_gone(first).await;
    common::assert_group_gone(second).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_stops_the_servers_answers_and_ends() {
    let mut b = Binding::start().await;
    let (_, pid) = b.reference(json!({})).await;
    let r = b.ok("shutdown", json!({})).await;
    assert_eq!(r, json!({}));
    common::assert_group_gone(pid).await;
    let served = tokio::time::timeout(Duration::from_secs(10), b.served).await;
    served
        .expect("ends")
        .expect("no panic")
        .expect("no I/O error");
}
