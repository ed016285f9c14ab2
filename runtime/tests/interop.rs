//! Interop against pinned public MCP servers. They are installed by
//! `conformance-tests/interop/install.sh` and these tests run through
//! `conformance-tests/interop/run.sh` (`MCPR_INTEROP_DIR` names the install folder), so
//! they are ignored in a plain `cargo test`.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mcpr_runtime::client::content_text;
use mcpr_runtime::protocol::Era;
use mcpr_runtime::session::{
    ClientBehaviour, ElicitationAnswer, Match, ProtocolChoice, Root, SessionConfig,
};
use mcpr_runtime::transport::ShutdownStage;
use mcpr_runtime::{CallOptions, Client, StdioConfig};
use serde_json::json;

fn dir() -> PathBuf {
    match std::env::var("MCPR_INTEROP_DIR") {
        Ok(d) => PathBuf::from(d),
        Err(_) => panic!("MCPR_INTEROP_DIR is not set; run conformance-tests/interop/run.sh"),
    }
}

fn node_server(package: &str, args: &[&str]) -> StdioConfig {
    let script = dir()
        .join("node_modules/@modelcontextprotocol")
        .join(package)
        .join("dist/index.js");
    let mut all = vec![script.display().to_string()];
    all.extend(args.iter().map(|s| s.to_string()));
    StdioConfig::new("node", all)
}

fn venv_bin(name: &str) -> String {
    dir().join("venv/bin").join(name).display().to_string()
}

fn cfg(protocol: Option<&str>, behaviour: ClientBehaviour) -> SessionConfig {
    SessionConfig {
        request_timeout: Duration::from_secs(30),
        connect_timeout: Duration::from_secs(30),
        protocol: protocol
            .map(|p| ProtocolChoice::Pinned(p.into()))
            .unwrap_or_default(),
        behaviour,
        ..SessionConfig::default()
    }
}

async fn connect(stdio: StdioConfig, config: SessionConfig) -> Client {
    match Client::connect(stdio, config).await {
        Ok(c) => c,
        Err(e) => panic!("connect failed: {e}"),
    }
}

fn ok<T>(r: Result<T, mcpr_runtime::Error>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => panic!("{e}"),
    }
}

async fn close(c: Client) {
    let pid = c.session().pid();
    let report = c.close().await;
    assert!(report.stage != ShutdownStage::Sigkill, "{report:?}");
    common::assert_group_gone(pid).await;
}

/// A fresh directory per call: the one- and two-thread variants of a test run
/// at the same time in one process, so the name carries a counter as well.
fn tmpdir(name: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let d = std::env::temp_dir().join(format!("mcpr-interop-{name}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

async fn wait_server_request(c: &Client, method: &str, limit: Duration) {
    let start = Instant::now();
    while !c
        .session()
        .server_requests()
        .iter()
        .any(|r| r.method == method)
    {
        assert!(
            start.elapsed() < limit,
            "no {method} request from the server within {limit:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

on_both_runtimes! {
#[ignore = "needs the public servers: conformance-tests/interop/run.sh"]
async fn everything_core_features() {
    let c = connect(
        node_server("server-everything", &["stdio"]),
        cfg(None, ClientBehaviour::everything()),
    )
    .await;
    // The TS SDK does not speak 2026-07-28: the probe falls back to initialize.
    assert_eq!(c.session().era(), Era::Legacy);
    assert_eq!(c.session().protocol_version(), "2025-11-25");
    assert_eq!(c.session().facts().server_info["name"], "mcp-servers/everything");
    // Tools are added after `initialized`, each with a list_changed.
    for _ in 0..5 {
        ok(c.session().wait_notification(
            "notifications/tools/list_changed",
            &[],
            Duration::from_secs(5),
        )
        .await);
    }
    let tools = ok(c.list_tools().await);
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    for t in [
        "echo",
        "get-sum",
        "get-structured-content",
        "trigger-sampling-request",
        "trigger-elicitation-request",
        "get-roots-list",
        "simulate-research-query",
    ] {
        assert!(names.contains(&t), "{t} missing from {names:?}");
    }
    let echo = ok(c
        .call_tool("echo", json!({"message": "hi"}), &CallOptions::default())
        .await);
    assert_eq!(content_text(&echo.result), "Echo: hi");
    let weather = ok(c
        .call_tool(
            "get-structured-content",
            json!({"location": "Chicago"}),
            &CallOptions::default(),
        )
        .await);
    assert!(weather.result["structuredContent"].is_object());
    let bad = ok(c
        .call_tool(
            "get-sum",
            json!({"a": "x"}),
            &CallOptions {
                allow_error: true,
                ..Default::default()
            },
        )
        .await);
    assert!(bad.is_error);

    // Server→client requests: roots right after initialized, then sampling and elicitation.
    wait_server_request(&c, "roots/list", Duration::from_secs(5)).await;
    let roots = ok(c
        .call_tool("get-roots-list", json!({}), &CallOptions::default())
        .await);
    assert!(
        content_text(&roots.result).contains("file:///tmp/mcpr-root"),
        "{}",
        roots.result
    );
    let s = ok(c
        .call_tool(
            "trigger-sampling-request",
            json!({"prompt": "hi", "maxTokens": 20}),
            &CallOptions::default(),
        )
        .await);
    assert!(
        s.result.to_string().contains("sampled text"),
        "{}",
        s.result
    );
    c.session().queue_answer("elicitation/create", Ok(json!({"action": "decline"})));
    ok(c.call_tool(
        "trigger-elicitation-request",
        json!({}),
        &CallOptions {
            allow_error: true,
            ..Default::default()
        },
    )
    .await);
    let methods: Vec<String> = c
        .session().server_requests()
        .iter()
        .map(|r| r.method.clone())
        .collect();
    assert!(
        methods.contains(&"sampling/createMessage".to_string())
            && methods.contains(&"elicitation/create".to_string()),
        "{methods:?}"
    );
    let url = c
        .call_tool(
            "trigger-url-elicitation",
            json!({"url": "https://example.invalid/x", "errorPath": true}),
            &CallOptions::default(),
        )
        .await
        .unwrap_err();
    assert_eq!(url.rpc_error().map(|e| e.code), Some(-32042), "{url}");

    // Progress over 4 steps, checked monotonic.
    let p = ok(c
        .call_tool(
            "trigger-long-running-operation",
            json!({"duration": 1, "steps": 4}),
            &CallOptions {
                progress: true,
                ..Default::default()
            },
        )
        .await);
    assert_eq!(p.progress.len(), 4, "{:?}", p.progress);

    // Cancellation: no answer comes, the session carries on (progress may continue: trap 11).
    let (pending, _) = ok(c.start_tool_call(
        "trigger-long-running-operation",
        json!({"duration": 3, "steps": 3}),
        true,
    ));
    tokio::time::sleep(Duration::from_millis(300)).await;
    ok(c.session().cancel(pending, "interop test cancels"));
    let echo = ok(c
        .call_tool(
            "echo",
            json!({"message": "after cancel"}),
            &CallOptions::default(),
        )
        .await);
    assert_eq!(content_text(&echo.result), "Echo: after cancel");

    // Resources, templates, prompts, completion, logging.
    let resources = ok(c.list_resources().await);
    assert!(resources.len() >= 7);
    let doc = ok(c.read_resource(resources[0]["uri"].as_str().unwrap()).await);
    assert!(doc["contents"][0]["text"].is_string());
    assert_eq!(ok(c.list_resource_templates().await).len(), 2);
    let missing = c
        .read_resource("demo://resource/static/document/missing.md")
        .await
        .unwrap_err();
    assert!(missing.rpc_error().is_some(), "{missing}");
    let prompts = ok(c.list_prompts().await);
    assert!(prompts.iter().any(|p| p["name"] == "args-prompt"));
    ok(c.get_prompt("args-prompt", Some(json!({"city": "Paris"})))
        .await);
    let comp = ok(c
        .complete(
            json!({"type": "ref/prompt", "name": "completable-prompt"}),
            "department",
            "E",
            None,
        )
        .await);
    assert_eq!(comp["values"], json!(["Engineering"]));
    ok(c.set_log_level("debug").await);
    assert!(
        c.session().request("no/such", None, &Default::default())
            .await
            .unwrap_err()
            .rpc_error()
            .is_some_and(|e| e.code == -32601)
    );
    close(c).await;
}}

on_both_runtimes! {
#[ignore = "needs the public servers: conformance-tests/interop/run.sh"]
async fn everything_tasks_including_the_input_required_trap() {
    let c = connect(
        node_server("server-everything", &["stdio"]),
        cfg(Some("2025-11-25"), ClientBehaviour::everything()),
    )
    .await;
    let plain = ok(c
        .call_tool(
            "simulate-research-query",
            json!({"topic": "rust"}),
            &CallOptions {
                allow_error: true,
                ..Default::default()
            },
        )
        .await);
    assert!(
        plain.is_error,
        "taskSupport required: a plain call is refused"
    );
    let call = ok(c
        .call_tool(
            "simulate-research-query",
            json!({"topic": "rust"}),
            &CallOptions {
                task_ttl: Some(Some(60_000)),
                ..Default::default()
            },
        )
        .await);
    assert!(call.is_task);
    let id = call.result["task"]["taskId"].as_str().unwrap().to_string();
    let listed = ok(c.task_list().await);
    assert!(listed.iter().any(|t| t["taskId"] == id.as_str()));
    let result = ok(c.task_result(&id, Some(Duration::from_secs(20))).await);
    assert!(result["content"].is_array(), "{result}");
    assert_eq!(ok(c.task_get(&id).await)["status"], "completed");
    ok(c.session().wait_notification(
        "notifications/tasks/status",
        &[Match::dotted("taskId", json!(id))],
        Duration::from_secs(1),
    )
    .await);

    // Trap: an input_required task moves on only when tasks/result is called; the
    // elicitation then arrives as a server request, answered from the behaviour.
    let call = ok(c
        .call_tool(
            "simulate-research-query",
            json!({"topic": "x", "ambiguous": true}),
            &CallOptions {
                task_ttl: Some(Some(60_000)),
                ..Default::default()
            },
        )
        .await);
    let id = call.result["task"]["taskId"].as_str().unwrap().to_string();
    let start = Instant::now();
    loop {
        let t = ok(c.task_get(&id).await);
        if t["status"] == "input_required" {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "never reached input_required: {t}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let before = c.session().server_requests().len();
    let r = c.task_result(&id, Some(Duration::from_secs(20))).await;
    assert!(
        c.session().server_requests()[before..]
            .iter()
            .any(|r| r.method == "elicitation/create"),
        "the queued elicitation came with tasks/result"
    );
    assert!(
        r.is_ok() || r.as_ref().unwrap_err().rpc_error().is_some(),
        "{r:?}"
    );
    close(c).await;
}}

on_both_runtimes! {
#[ignore = "needs the public servers: conformance-tests/interop/run.sh"]
async fn filesystem_with_roots_pointing_at_the_sandbox() {
    let sandbox = tmpdir("fs");
    std::fs::write(sandbox.join("hello.txt"), "hello from fs sandbox\n").unwrap();
    let behaviour = ClientBehaviour {
        roots: Some(vec![Root {
            uri: format!("file://{}", sandbox.display()),
            name: None,
        }]),
        ..Default::default()
    };
    let c = connect(
        node_server("server-filesystem", &[&sandbox.display().to_string()]),
        cfg(Some("2025-06-18"), behaviour),
    )
    .await;
    let tools = ok(c.list_tools().await);
    assert!(tools.len() >= 14 && tools.iter().all(|t| t.get("outputSchema").is_some()));
    wait_server_request(&c, "roots/list", Duration::from_secs(5)).await;
    let path = sandbox.join("hello.txt").display().to_string();
    let read = ok(c
        .call_tool(
            "read_text_file",
            json!({"path": path}),
            &CallOptions::default(),
        )
        .await);
    assert_eq!(
        read.result["structuredContent"]["content"],
        "hello from fs sandbox\n"
    );
    let outside = ok(c
        .call_tool(
            "read_text_file",
            json!({"path": "/etc/hostname"}),
            &CallOptions {
                allow_error: true,
                ..Default::default()
            },
        )
        .await);
    assert!(outside.is_error);
    close(c).await;
}}

on_both_runtimes! {
#[ignore = "needs the public servers: conformance-tests/interop/run.sh"]
async fn memory_subscription_updates() {
    let d = tmpdir("memory");
    let mut stdio = node_server("server-memory", &[]);
    stdio.env.insert(
        "MEMORY_FILE_PATH".into(),
        d.join("m.jsonl").display().to_string(),
    );
    let c = connect(stdio, cfg(None, ClientBehaviour::default())).await;
    assert!(c.server_has(&["resources", "subscribe"]));
    ok(c.subscribe("memory://knowledge-graph").await);
    let created = ok(c.call_tool("create_entities", json!({"entities": [{"name": "mcpr", "entityType": "tool", "observations": ["tests MCP servers"]}]}), &CallOptions::default()).await);
    assert!(created.result["structuredContent"].is_object());
    ok(c.session().wait_notification(
        "notifications/resources/updated",
        &[Match::dotted("uri", json!("memory://knowledge-graph"))],
        Duration::from_secs(5),
    )
    .await);
    let graph = ok(c
        .call_tool("read_graph", json!({}), &CallOptions::default())
        .await);
    assert_eq!(
        graph.result["structuredContent"]["entities"][0]["name"],
        "mcpr"
    );
    ok(c.unsubscribe("memory://knowledge-graph").await);
    close(c).await;
}}

on_both_runtimes! {
#[ignore = "needs the public servers: conformance-tests/interop/run.sh"]
async fn sequential_thinking() {
    let mut stdio = node_server("server-sequential-thinking", &[]);
    stdio
        .env
        .insert("DISABLE_THOUGHT_LOGGING".into(), "true".into());
    let c = connect(stdio, cfg(None, ClientBehaviour::default())).await;
    let r = ok(c.call_tool("sequentialthinking", json!({"thought": "step one", "nextThoughtNeeded": true, "thoughtNumber": 1, "totalThoughts": 2}), &CallOptions::default()).await);
    assert_eq!(r.result["structuredContent"]["thoughtNumber"], 1);
    close(c).await;
}}

fn tiny_server() -> StdioConfig {
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance-tests/interop/tiny_server.py");
    StdioConfig::new(venv_bin("python"), [script.display().to_string()])
}

on_both_runtimes! {
#[ignore = "needs the public servers: conformance-tests/interop/run.sh"]
async fn python_sdk_in_both_eras() {
    for (protocol, era) in [
        (None, Era::Modern),
        (Some("2026-07-28"), Era::Modern),
        (Some("2025-11-25"), Era::Legacy),
    ] {
        let c = connect(tiny_server(), cfg(protocol, ClientBehaviour::default())).await;
        assert_eq!(c.session().era(), era, "{protocol:?}");
        let add = ok(c
            .call_tool("add", json!({"a": 2, "b": 40}), &CallOptions::default())
            .await);
        assert_eq!(add.result["structuredContent"]["total"], 42);
        let slow = ok(c
            .call_tool(
                "slow",
                json!({"steps": 2}),
                &CallOptions {
                    progress: true,
                    log_level: Some("info".into()),
                    ..Default::default()
                },
            )
            .await);
        assert_eq!(slow.progress.len(), 2, "{:?}", slow.progress);
        let item = ok(c.read_resource("tiny://item/42").await);
        assert!(item["contents"][0]["text"].as_str().unwrap().contains("42"));
        let review = ok(c
            .get_prompt("review", Some(json!({"code": "fn main() {}"})))
            .await);
        assert_eq!(review["messages"].as_array().unwrap().len(), 1);
        let missing = c.read_resource("tiny://nope").await.unwrap_err();
        assert!(missing.rpc_error().is_some(), "{missing}");
        close(c).await;
    }
}}

on_both_runtimes! {
#[ignore = "needs the public servers: conformance-tests/interop/run.sh"]
async fn time_server() {
    let c = connect(
        StdioConfig::new(venv_bin("mcp-server-time"), ["--local-timezone", "UTC"]),
        cfg(None, ClientBehaviour::default()),
    )
    .await;
    assert_eq!(c.session().era(), Era::Modern, "mcp 2.3 servers speak 2026-07-28");
    let r = ok(c.call_tool("convert_time", json!({"source_timezone": "Europe/Paris", "time": "12:00", "target_timezone": "Asia/Tokyo"}), &CallOptions::default()).await);
    assert_eq!(r.result["structuredContent"]["time_difference"], "+8.0h");
    let unknown = c
        .call_tool("nope", json!({}), &CallOptions::default())
        .await
        .unwrap_err();
    assert!(
        matches!(unknown.code(), "MCP-RPC-001" | "MCP-TOOL-001"),
        "{unknown}"
    );
    close(c).await;
    let c = connect(
        StdioConfig::new(venv_bin("mcp-server-time"), ["--local-timezone", "UTC"]),
        cfg(Some("2025-11-25"), ClientBehaviour::default()),
    )
    .await;
    let now = ok(c
        .call_tool(
            "get_current_time",
            json!({"timezone": "UTC"}),
            &CallOptions::default(),
        )
        .await);
    assert_eq!(now.result["structuredContent"]["timezone"], "UTC");
    close(c).await;
}}

on_both_runtimes! {
#[ignore = "needs the public servers: conformance-tests/interop/run.sh"]
async fn git_server() {
    let repo = tmpdir("git");
    let git = |args: &[&str]| {
        let s = std::process::Command::new("git")
            .args(args)
            .current_dir(&repo)
            .status()
            .unwrap();
        assert!(s.success(), "git {args:?}");
    };
    git(&["init", "-q"]);
    std::fs::write(repo.join("a.txt"), "one\n").unwrap();
    git(&["add", "a.txt"]);
    git(&[
        "-c",
        "user.name=mcpr",
        "-c",
        "user.email=mcpr@example.invalid",
        "commit",
        "-q",
        "-m",
        "first",
    ]);
    std::fs::write(repo.join("a.txt"), "two\n").unwrap();
    let repo_s = repo.display().to_string();
    let c = connect(
        StdioConfig::new(venv_bin("mcp-server-git"), ["--repository", &repo_s]),
        cfg(
            None,
            ClientBehaviour {
                elicitation: Some(ElicitationAnswer::default()),
                ..Default::default()
            },
        ),
    )
    .await;
    let status = ok(c
        .call_tool(
            "git_status",
            json!({"repo_path": repo_s}),
            &CallOptions::default(),
        )
        .await);
    assert!(
        content_text(&status.result).contains("modified"),
        "{}",
        status.result
    );
    let diff = ok(c
        .call_tool(
            "git_diff_unstaged",
            json!({"repo_path": repo_s}),
            &CallOptions::default(),
        )
        .await);
    assert!(content_text(&diff.result).contains("+two"));
    close(c).await;
}}

/// server-everything adds its capability-dependent tools after `initialized`, each with a
/// `tools/list_changed`; wait for all five before calling them.
async fn everything_ready(c: &Client) {
    for _ in 0..5 {
        ok(c.session()
            .wait_notification(
                "notifications/tools/list_changed",
                &[],
                Duration::from_secs(10),
            )
            .await);
    }
}

/// A server process on a free local port, killed on drop.
struct HttpChild {
    child: std::process::Child,
    url: String,
}

impl Drop for HttpChild {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

async fn start_http_server(mut cmd: std::process::Command, port: u16) -> HttpChild {
    let child = cmd
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "server on port {port} did not come up"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    HttpChild {
        child,
        url: format!("http://127.0.0.1:{port}/mcp"),
    }
}

on_both_runtimes! {
#[ignore = "needs the public servers: conformance-tests/interop/run.sh"]
async fn everything_over_streamable_http() {
    let port = free_port();
    let script = dir().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    let mut cmd = std::process::Command::new("node");
    cmd.arg(script)
        .arg("streamableHttp")
        .env("PORT", port.to_string());
    let server = start_http_server(cmd, port).await;
    let c = ok(Client::connect_http(
        mcpr_runtime::transport::http::HttpConfig::new(server.url.clone()),
        cfg(None, ClientBehaviour::everything()),
    )
    .await);
    assert_eq!(c.session().era(), Era::Legacy);
    everything_ready(&c).await;
    let tools = ok(c.list_tools().await);
    assert!(tools.iter().any(|t| t["name"] == "echo"));
    let echo = ok(c
        .call_tool(
            "echo",
            json!({"message": "over http"}),
            &CallOptions::default(),
        )
        .await);
    assert_eq!(content_text(&echo.result), "Echo: over http");
    let weather = ok(c
        .call_tool(
            "get-structured-content",
            json!({"location": "Chicago"}),
            &CallOptions::default(),
        )
        .await);
    assert!(weather.result["structuredContent"].is_object());
    let s = ok(c
        .call_tool(
            "trigger-sampling-request",
            json!({"prompt": "hi", "maxTokens": 20}),
            &CallOptions::default(),
        )
        .await);
    assert!(
        s.result.to_string().contains("sampled text"),
        "{}",
        s.result
    );
    let p = ok(c
        .call_tool(
            "trigger-long-running-operation",
            json!({"duration": 1, "steps": 2}),
            &CallOptions {
                progress: true,
                ..Default::default()
            },
        )
        .await);
    assert_eq!(p.progress.len(), 2);
    let report = c.close().await;
    assert_eq!(
        report.status.as_deref(),
        Some("DELETE answered 200"),
        "{report:?}"
    );
}}

on_both_runtimes! {
#[ignore = "needs the public servers: conformance-tests/interop/run.sh"]
async fn python_sdk_over_streamable_http_in_both_eras() {
    let port = free_port();
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance-tests/interop/tiny_server.py");
    let mut cmd = std::process::Command::new(venv_bin("python"));
    cmd.arg(script).arg("http").arg(port.to_string());
    let server = start_http_server(cmd, port).await;
    for (protocol, era) in [(None, Era::Modern), (Some("2025-11-25"), Era::Legacy)] {
        let c = ok(Client::connect_http(
            mcpr_runtime::transport::http::HttpConfig::new(server.url.clone()),
            cfg(protocol, ClientBehaviour::default()),
        )
        .await);
        assert_eq!(c.session().era(), era, "{protocol:?}");
        let add = ok(c
            .call_tool("add", json!({"a": 2, "b": 40}), &CallOptions::default())
            .await);
        assert_eq!(add.result["structuredContent"]["total"], 42);
        let item = ok(c.read_resource("tiny://item/7").await);
        assert!(item["contents"][0]["text"].as_str().unwrap().contains('7'));
        c.close().await;
    }
}}

on_both_runtimes! {
#[ignore = "needs the public servers: conformance-tests/interop/run.sh"]
async fn everything_over_legacy_http_sse() {
    let port = free_port();
    let script = dir().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    let mut cmd = std::process::Command::new("node");
    cmd.arg(script).arg("sse").env("PORT", port.to_string());
    let server = start_http_server(cmd, port).await;
    let sse_url = server.url.replace("/mcp", "/sse");
    // Explicitly, and as the fallback of a Streamable HTTP attempt on the same URL.
    for fallback in [false, true] {
        let http = mcpr_runtime::transport::http::HttpConfig::new(sse_url.clone());
        let behaviour = ClientBehaviour::everything();
        let c = if fallback {
            Client::connect_http(http, cfg(None, behaviour)).await
        } else {
            Client::connect_sse(http, cfg(None, behaviour)).await
        };
        let c = ok(c);
        assert_eq!(c.session().era(), Era::Legacy);
        everything_ready(&c).await;
        let echo = ok(c
            .call_tool(
                "echo",
                json!({"message": "over sse"}),
                &CallOptions::default(),
            )
            .await);
        assert_eq!(content_text(&echo.result), "Echo: over sse");
        let s = ok(c
            .call_tool(
                "trigger-sampling-request",
                json!({"prompt": "hi", "maxTokens": 20}),
                &CallOptions::default(),
            )
            .await);
        assert!(
            s.result.to_string().contains("sampled text"),
            "{}",
            s.result
        );
        c.close().await;
    }
    drop(server);
}}
