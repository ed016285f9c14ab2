//! Every hostile-server mode ends in a named failure within its deadline plus 2 s, leaves
//! no process behind, and does not disturb other sessions.

mod common;

use std::time::{Duration, Instant};

use common::{assert_group_gone, connect_reference, hostile};
use mcpr_runtime::session::{ClientBehaviour, ProtocolChoice, SessionConfig, ShutdownGrace};
use mcpr_runtime::transport::ShutdownStage;
use mcpr_runtime::{CallOptions, Client, Error, StdioConfig};
use serde_json::json;

const DEADLINE: Duration = Duration::from_secs(5);

fn cfg() -> SessionConfig {
    SessionConfig {
        request_timeout: DEADLINE,
        connect_timeout: DEADLINE,
        shutdown_grace: ShutdownGrace::Fixed(Duration::from_millis(500)),
        behaviour: ClientBehaviour::everything(),
        ..SessionConfig::default()
    }
}

/// Live (non-zombie) processes whose command line is `mcpr-hostile-server <mode> …`.
fn hostile_processes(mode: &str) -> usize {
    let mut n = 0;
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
        let is_hostile = args
            .first()
            .is_some_and(|a| a.ends_with(b"mcpr-hostile-server"));
        if is_hostile && args.get(1) == Some(&mode.as_bytes()) {
            let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
            let state = stat
                .rfind(')')
                .and_then(|i| stat[i + 1..].split_whitespace().next().map(str::to_string));
            if state.as_deref() != Some("Z") {
                n += 1;
            }
        }
    }
    n
}

async fn assert_no_hostile_left(mode: &str) {
    for _ in 0..100 {
        if hostile_processes(mode) == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("a `mcpr-hostile-server {mode}` process is still running");
}

async fn connect(mode: &str, extra: &[&str], config: SessionConfig) -> Result<Client, Error> {
    Client::connect(hostile(mode, extra), config).await
}

fn within(start: Instant, deadline: Duration) {
    let took = start.elapsed();
    assert!(
        took <= deadline + Duration::from_secs(2),
        "took {took:?}, deadline {deadline:?} + 2s"
    );
}

/// Connects, runs `f`, and expects the first failure to carry `code`.
async fn expect_call_failure(
    mode: &str,
    code: &str,
    f: impl AsyncFn(&Client) -> Result<(), Error>,
) -> Error {
    let start = Instant::now();
    let c = match connect(mode, &[], cfg()).await {
        Ok(c) => c,
        Err(e) => panic!("{mode}: connect failed: {e}"),
    };
    let err = match f(&c).await {
        Ok(()) => panic!("{mode}: expected {code}, got success"),
        Err(e) => e,
    };
    assert_eq!(err.code(), code, "{mode}: {err}");
    within(start, DEADLINE);
    let pid = c.session().pid();
    c.close().await;
    assert_group_gone(pid).await;
    assert_no_hostile_left(mode).await;
    err
}

async fn call(c: &Client, tool: &str) -> Result<(), Error> {
    c.call_tool(tool, json!({"text": "x"}), &CallOptions::default())
        .await
        .map(|_| ())
}

on_both_runtimes! {
async fn garbage_on_stdout_is_named_with_its_line() {
    let start = Instant::now();
    let e = connect("garbage", &[], cfg()).await.unwrap_err();
    assert_eq!(e.code(), "MCP-PROTOCOL-001", "{e}");
    assert!(
        e.to_string()
            .contains("Server starting... (this banner is not JSON-RPC)"),
        "{e}"
    );
    within(start, DEADLINE);
    assert_no_hostile_left("garbage").await;
}}

on_both_runtimes! {
async fn partial_line_then_exit() {
    let e = expect_call_failure("partial-exit", "MCP-EXIT-001", async |c| {
        call(c, "echo").await
    })
    .await;
    let text = e.to_string();
    assert!(
        text.contains("exited during tools/call (exit status 0)"),
        "{text}"
    );
    assert!(
        text.contains(r#"last MCP message (received, invalid): {"jsonrpc":"2.0","id":"#),
        "{text}"
    );
}}

on_both_runtimes! {
async fn crash_mid_call_reports_status_and_stderr() {
    let e = expect_call_failure("crash-mid-call", "MCP-EXIT-001", async |c| {
        call(c, "echo").await
    })
    .await;
    assert_eq!(e.exit_status.as_deref(), Some("exit status 70"));
    assert!(
        e.stderr_tail
            .as_deref()
            .unwrap_or("")
            .contains("panicked while handling tools/call"),
        "{e}"
    );
    assert!(
        e.to_string().contains("last MCP message (sent, request)"),
        "{e}"
    );
}}

on_both_runtimes! {
async fn never_answers_times_out_the_handshake() {
    let start = Instant::now();
    let e = connect("never-answer", &[], cfg()).await.unwrap_err();
    assert_eq!(e.code(), "MCP-TIMEOUT-001", "{e}");
    assert!(e.to_string().contains("no response to initialize"), "{e}");
    within(start, DEADLINE);
    assert_no_hostile_left("never-answer").await;
}}

on_both_runtimes! {
async fn wrong_response_id() {
    let e = expect_call_failure("wrong-id", "MCP-PROTOCOL-002", async |c| {
        call(c, "echo").await
    })
    .await;
    assert!(
        e.to_string().contains("which this client never sent"),
        "{e}"
    );
}}

on_both_runtimes! {
async fn duplicate_response() {
    let start = Instant::now();
    // The handshake's own answers are duplicated, so the failure comes at connect or at the
    // first call, whichever sees it first.
    let outcome = match connect("duplicate", &[], cfg()).await {
        Err(e) => e,
        Ok(c) => {
            let mut err = None;
            for _ in 0..3 {
                if let Err(e) = call(&c, "echo").await {
                    err = Some(e);
                    break;
                }
            }
            c.close().await;
            err.expect("duplicate responses must be reported")
        }
    };
    assert_eq!(outcome.code(), "MCP-PROTOCOL-004", "{outcome}");
    within(start, DEADLINE);
    assert_no_hostile_left("duplicate").await;
}}

on_both_runtimes! {
async fn fifty_megabyte_message_is_refused() {
    let e = expect_call_failure("huge", "MCP-PROTOCOL-003", async |c| call(c, "echo").await).await;
    assert!(e.to_string().contains("more than 16777216 bytes"), "{e}");
}}

on_both_runtimes! {
async fn notification_flood_is_stopped() {
    let e = expect_call_failure("flood", "MCP-PROTOCOL-009", async |c| call(c, "echo").await).await;
    assert!(
        e.to_string().contains("more than 50000 notifications"),
        "{e}"
    );
}}

on_both_runtimes! {
async fn stderr_flood_is_drained_and_its_tail_kept() {
    let start = Instant::now();
    let c = connect("stderr-flood", &[], cfg()).await.unwrap();
    let e = call(&c, "echo").await.unwrap_err();
    assert_eq!(e.code(), "MCP-EXIT-001", "{e}");
    assert_eq!(e.exit_status.as_deref(), Some("exit status 3"));
    let tail = e.stderr_tail.clone().unwrap();
    assert!(tail.len() <= 64 * 1024, "{}", tail.len());
    assert!(tail.trim_end().ends_with("hostile: END-OF-STDERR-FLOOD"));
    within(start, DEADLINE);
    let pid = c.session().pid();
    c.close().await;
    assert!(c.session().stderr_total() > 9_000_000, "{}", c.session().stderr_total());
    assert_group_gone(pid).await;
}}

on_both_runtimes! {
async fn a_server_ignoring_sigterm_is_killed() {
    let c = connect("ignore-sigterm", &[], cfg()).await.unwrap();
    call(&c, "echo").await.unwrap();
    let pid = c.session().pid();
    let start = Instant::now();
    let report = c.close().await;
    assert_eq!(report.stage, ShutdownStage::Sigkill, "{report:?}");
    assert_eq!(
        report.status.as_deref(),
        Some("killed by signal 9 (SIGKILL)")
    );
    within(start, Duration::from_secs(1));
    assert_group_gone(pid).await;
    assert_no_hostile_left("ignore-sigterm").await;
}}

on_both_runtimes! {
async fn slow_start_beyond_the_timeout() {
    let start = Instant::now();
    let e = connect("slow-start", &["30"], cfg()).await.unwrap_err();
    assert_eq!(e.code(), "MCP-TIMEOUT-001", "{e}");
    within(start, DEADLINE);
    assert_no_hostile_left("slow-start").await;
}}

on_both_runtimes! {
async fn exits_one_at_once() {
    let start = Instant::now();
    let e = connect("exit-1", &[], cfg()).await.unwrap_err();
    assert_eq!(e.code(), "MCP-EXIT-001", "{e}");
    assert_eq!(e.exit_status.as_deref(), Some("exit status 1"));
    assert!(
        e.stderr_tail
            .as_deref()
            .unwrap_or("")
            .contains("refusing to start"),
        "{e}"
    );
    within(start, DEADLINE);
}}

on_both_runtimes! {
async fn unsupported_version_in_initialize() {
    let start = Instant::now();
    let e = connect("bad-version", &[], cfg()).await.unwrap_err();
    assert_eq!(e.code(), "MCP-INIT-002", "{e}");
    assert!(e.to_string().contains("\"1999-01-01\""), "{e}");
    within(start, DEADLINE);
    assert_no_hostile_left("bad-version").await;
    // A pinned version that the server does not echo is refused too.
    let mut pinned = cfg();
    pinned.protocol = ProtocolChoice::Pinned("2025-06-18".into());
    let e = connect("instant", &[], pinned).await.unwrap_err();
    assert_eq!(e.code(), "MCP-INIT-002", "{e}");
}}

// The benchmark's `instant` server answers briefly but correctly: what it answers is checked
// here, so that a benchmark against it measures a real exchange.
on_both_runtimes! {
async fn the_instant_server_answers_correctly() {
    let c = connect("instant", &[], cfg()).await.unwrap();
    let tools = c.list_tools().await.unwrap();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0]["name"], "echo");
    c.ping(None).await.unwrap();
    for text in ["hi", "quote \" and \\ and ü and \n", ""] {
        let call = c
            .call_tool("echo", json!({"text": text}), &CallOptions::default())
            .await
            .unwrap();
        assert_eq!(call.result, json!({"content": [{"type": "text", "text": text}]}));
    }
    let e = c.session().request("no/such/method", Some(&json!({})), &Default::default()).await.unwrap_err();
    assert_eq!(e.rpc_error().map(|r| r.code), Some(-32601), "{e}");
    c.close().await;
}}

on_both_runtimes! {
async fn grandchildren_are_ended_with_the_group() {
    let c = connect("orphan", &[], cfg()).await.unwrap();
    let pid = c.session().pid();
    let report = c.close().await;
    assert!(report.ended_stragglers, "{report:?}");
    assert_group_gone(pid).await;
}}

on_both_runtimes! {
async fn dropping_a_session_kills_its_group() {
    let c = connect("ignore-sigterm", &["drop"], cfg()).await.unwrap();
    let pid = c.session().pid();
    drop(c);
    assert_group_gone(pid).await;
}}

on_both_runtimes! {
async fn repeated_cursor() {
    expect_call_failure("repeat-cursor", "MCP-PROTOCOL-007", async |c| {
        c.list_tools().await.map(|_| ())
    })
    .await;
}}

on_both_runtimes! {
async fn progress_that_goes_backwards() {
    let e = expect_call_failure("bad-progress", "MCP-PROTOCOL-006", async |c| {
        c.call_tool(
            "echo",
            json!({}),
            &CallOptions {
                progress: true,
                ..Default::default()
            },
        )
        .await
        .map(|_| ())
    })
    .await;
    assert!(e.to_string().contains("progress went from 3 to 2"), "{e}");
}}

on_both_runtimes! {
async fn structured_content_against_output_schema() {
    let e = expect_call_failure("bad-structured", "MCP-PROTOCOL-008", async |c| {
        call(c, "echo").await
    })
    .await;
    assert!(
        e.to_string()
            .contains("structuredContent does not match the outputSchema"),
        "{e}"
    );
}}

on_both_runtimes! {
async fn a_missing_command_is_a_spawn_failure() {
    let e = Client::connect(StdioConfig::new("/nonexistent/mcp-server", ["x"]), cfg())
        .await
        .unwrap_err();
    assert_eq!(e.code(), "MCP-SPAWN-001", "{e}");
    assert!(e.to_string().contains("/nonexistent/mcp-server x"), "{e}");
}}

on_both_runtimes! {
async fn a_hostile_server_does_not_disturb_another_session() {
    let good = connect_reference(Some("2025-11-25")).await;
    let bad = connect("flood", &[], cfg()).await.unwrap();
    let opts = CallOptions::default();
    let (flooded, fine) = tokio::join!(
        call(&bad, "echo"),
        good.call_tool("echo", json!({"text": "calm"}), &opts)
    );
    assert_eq!(flooded.unwrap_err().code(), "MCP-PROTOCOL-009");
    assert_eq!(
        mcpr_runtime::client::content_text(&fine.unwrap().result),
        "calm"
    );
    bad.close().await;
    assert!(good.ping(None).await.is_ok());
    assert!(good.session().violations().is_empty());
    good.close().await;
}}

on_both_runtimes! {
async fn batches_only_in_2025_03_26() {
    let mut config = cfg();
    config.protocol = ProtocolChoice::Pinned("2025-03-26".into());
    let c = connect("batch", &[], config).await.unwrap();
    let r = c
        .call_tool(
            "echo",
            json!({"text": "in a batch"}),
            &CallOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(mcpr_runtime::client::content_text(&r.result), "in a batch");
    c.session().wait_notification("notifications/message", &[], Duration::from_secs(1))
        .await
        .unwrap();
    assert!(c.session().violations().is_empty(), "{:?}", c.session().violations());
    c.close().await;
    let mut config = cfg();
    config.protocol = ProtocolChoice::Pinned("2025-06-18".into());
    let c = connect("batch", &[], config).await.unwrap();
    let e = call(&c, "echo").await.unwrap_err();
    assert_eq!(e.code(), "MCP-PROTOCOL-001", "{e}");
    assert!(
        e.to_string()
            .contains("a JSON-RPC batch, which this protocol version does not allow"),
        "{e}"
    );
    c.close().await;
}}

on_both_runtimes! {
async fn a_probe_answered_late_still_ends_in_the_2026_era() {
    // The server answers `server/discover` after the probe gave up; the `initialize` that
    // follows is refused with -32022 naming 2026-07-28, which the client then speaks.
    let config = SessionConfig {
        probe_timeout: Duration::from_millis(300),
        ..cfg()
    };
    let c = connect("late-modern", &[], config).await.unwrap();
    assert_eq!(c.session().protocol_version(), "2026-07-28");
    // discover (given up on, never cancelled: it is the handshake), initialize, the late
    // discover answer, the refusal, discover again and its answer: about a second in all,
    // no further deadline waited out.
    let (entries, _) = c.session().transcript();
    let methods: Vec<_> = entries.iter().filter_map(|e| e.method.clone()).collect();
    assert_eq!(
        methods,
        [
            "server/discover",
            "initialize",
            "server/discover"
        ]
    );
    let last = entries.last().unwrap();
    assert!(last.at < Duration::from_millis(2500), "{:?}", last.at);
    // Pinned to the handshake era, the refusal is the answer.
    let pinned = SessionConfig {
        protocol: ProtocolChoice::Pinned("2025-11-25".into()),
        ..cfg()
    };
    let e = connect("late-modern", &[], pinned).await.err().unwrap();
    assert!(e.to_string().contains("-32022"), "{e}");
}}

on_both_runtimes! {
async fn sloppy_2026_servers_are_recorded_not_stopped() {
    let c = connect("sloppy-modern", &[], cfg()).await.unwrap();
    assert_eq!(c.session().protocol_version(), "2026-07-28");
    call(&c, "echo").await.unwrap();
    let v = c.session().violations();
    let codes: Vec<&str> = v.iter().map(|v| v.code.as_str()).collect();
    assert!(codes.iter().all(|c| *c == "MCP-PROTOCOL-011"), "{v:?}");
    let text: Vec<&str> = v.iter().map(|v| v.message.as_str()).collect();
    assert!(
        text.iter()
            .any(|m| m.starts_with("server/discover result:") && m.contains("ttlMs")),
        "{text:?}"
    );
    assert!(
        text.iter().any(|m| m.starts_with("notifications/message:")),
        "{text:?}"
    );
    assert!(
        text.iter()
            .any(|m| m.starts_with("notifications/tools/list_changed:")),
        "{text:?}"
    );
    assert!(
        text.iter()
            .any(|m| m.starts_with("tools/call result: the result has no resultType")),
        "{text:?}"
    );
    c.close().await;
}}

on_both_runtimes! {
async fn input_required_without_end_stops_after_the_round_limit() {
    use mcpr_runtime::client::MAX_INPUT_ROUNDS;
    let c = connect("endless-input", &[], cfg()).await.unwrap();
    assert_eq!(c.session().protocol_version(), "2026-07-28");
    let e = call(&c, "echo").await.unwrap_err();
    assert_eq!(e.code(), "MCP-PROTOCOL-010", "{e}");
    assert!(
        e.to_string()
            .contains(&format!("still input_required after {MAX_INPUT_ROUNDS} rounds")),
        "{e}"
    );
    let (t, _) = c.session().transcript();
    let calls: Vec<&str> = t
        .iter()
        .filter(|e| e.kind.as_str() == "request" && e.method.as_deref() == Some("tools/call"))
        .map(|e| e.text.as_str())
        .collect();
    assert_eq!(calls.len(), MAX_INPUT_ROUNDS, "one request per round");
    // Each retry answers the input request and echoes the state of the round before.
    let last = calls.last().unwrap();
    assert!(last.contains("inputResponses"), "{last}");
    assert!(
        last.contains(&format!("round-{}", MAX_INPUT_ROUNDS - 1)),
        "{last}"
    );
    c.close().await;
}}

/// A request written after the server died (before any task of the session saw it go) is
/// reported as the server's exit, with its status, not as a bare broken pipe. On a runtime
/// of one thread the blocking sleep keeps the session's tasks from running meanwhile.
#[tokio::test(flavor = "current_thread")]
async fn a_request_to_a_server_that_just_died_names_its_exit() {
    let c = connect_reference(None).await;
    let pid = c.session().pid();
    let killed = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    std::thread::sleep(Duration::from_millis(300));
    let start = Instant::now();
    let e = c
        .session()
        .request("ping", None, &Default::default())
        .await
        .unwrap_err();
    assert_eq!(e.code(), "MCP-EXIT-001", "{e}");
    assert!(e.to_string().contains("during ping"), "{e}");
    assert_eq!(
        e.exit_status.as_deref(),
        Some("killed by signal 9 (SIGKILL)"),
        "{e}"
    );
    assert!(start.elapsed() < Duration::from_secs(3));
    c.close().await;
}
