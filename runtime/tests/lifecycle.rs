//! Sessions and processes against hostile servers: the handshake's own deadline, a
//! `setsid` descendant ended with its session, a server reported as exited while a
//! descendant holds its pipes, SIGTERM ignored during a call, a session's byte budget, and
//! the default shutdown grace, which waits for a busy server but not for an idle one.
//! Each failure is named within its deadline plus 2 s and leaves no process behind.

mod common;

use std::time::{Duration, Instant};

use common::{assert_group_gone, hostile};
use mcpr_runtime::session::{ClientBehaviour, SessionConfig, ShutdownGrace};
use mcpr_runtime::transport::ShutdownStage;
use mcpr_runtime::{CallOptions, Client};
use serde_json::json;

const DEADLINE: Duration = Duration::from_secs(2);

fn cfg() -> SessionConfig {
    SessionConfig {
        request_timeout: DEADLINE,
        connect_timeout: DEADLINE,
        shutdown_grace: ShutdownGrace::Fixed(Duration::from_millis(300)),
        behaviour: ClientBehaviour::everything(),
        ..SessionConfig::default()
    }
}

/// Whether process `pid` is alive and not a zombie.
fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rfind(')')
            .and_then(|i| s[i + 1..].split_whitespace().next())
            .is_some_and(|st| st != "Z" && st != "X")
    })
}

/// The pid the hostile server printed for its `setsid` grandchild.
fn grandchild(stderr: &str) -> i32 {
    stderr
        .lines()
        .find_map(|l| l.strip_prefix("hostile: setsid grandchild "))
        .and_then(|p| p.trim().parse().ok())
        .unwrap_or_else(|| panic!("no grandchild pid in {stderr:?}"))
}

async fn assert_gone(pid: i32) {
    for _ in 0..150 {
        if !alive(pid) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("process {pid} is still alive");
}

#[tokio::test]
async fn a_server_that_hangs_in_the_handshake_fails_within_its_deadline() {
    let start = Instant::now();
    let e = Client::connect(hostile("hang-initialize", &[]), cfg())
        .await
        .expect_err("no handshake");
    assert!(
        matches!(e.code(), "MCP-TIMEOUT-001" | "MCP-INIT-001"),
        "{e}"
    );
    assert!(
        start.elapsed() < DEADLINE + Duration::from_secs(2),
        "{:?} {e}",
        start.elapsed()
    );
}

#[tokio::test]
async fn a_setsid_descendant_is_ended_with_its_session() {
    let c = Client::connect(hostile("setsid-orphan", &[]), cfg())
        .await
        .expect("connects");
    let pid = c.session().pid();
    // The grandchild announces itself on stderr before the server reads stdin.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let child = grandchild(&c.session().stderr_tail());
    assert!(alive(child));
    let report = c.close().await;
    assert!(report.ended_stragglers, "{report:?}");
    assert_gone(child).await;
    assert_group_gone(pid).await;
}

#[tokio::test]
async fn a_server_that_exits_while_a_descendant_holds_its_pipes_is_reported_exited() {
    let c = Client::connect(hostile("setsid-exit", &[]), cfg())
        .await
        .expect("connects");
    tokio::time::sleep(Duration::from_millis(200)).await;
    let child = grandchild(&c.session().stderr_tail());
    let start = Instant::now();
    let e = c
        .call_tool("echo", json!({"text": "x"}), &CallOptions::default())
        .await
        .expect_err("the server exits");
    assert_eq!(e.code(), "MCP-EXIT-001", "{e}");
    assert!(start.elapsed() < DEADLINE, "named before the deadline: {e}");
    c.close().await;
    assert_gone(child).await;
}

#[tokio::test]
async fn sigterm_ignored_during_a_call_ends_in_sigkill() {
    let c = Client::connect(hostile("ignore-sigterm-in-call", &[]), cfg())
        .await
        .expect("connects");
    let pid = c.session().pid();
    let opts = CallOptions {
        timeout: Some(Duration::from_millis(500)),
        ..CallOptions::default()
    };
    let e = c
        .call_tool("echo", json!({"text": "x"}), &opts)
        .await
        .expect_err("never answered");
    assert_eq!(e.code(), "MCP-TIMEOUT-001", "{e}");
    let start = Instant::now();
    let report = c.close().await;
    assert_eq!(report.stage, ShutdownStage::Sigkill, "{report:?}");
    assert!(start.elapsed() < Duration::from_secs(3), "{report:?}");
    assert_group_gone(pid).await;
}

#[tokio::test]
async fn large_notifications_nobody_takes_stop_at_the_byte_budget() {
    let mut config = cfg();
    config.max_buffered_bytes = 32 << 20;
    config.request_timeout = Duration::from_secs(10);
    let c = Client::connect(hostile("notification-hog", &[]), config)
        .await
        .expect("connects");
    let e = c
        .call_tool("echo", json!({"text": "x"}), &CallOptions::default())
        .await
        .expect_err("the budget is passed");
    assert_eq!(e.code(), "MCP-PROTOCOL-012", "{e}");
    assert!(e.to_string().contains("33554432"), "{e}");
    let kept: usize = c.session().inbox().iter().map(|n| n.size).sum();
    assert!(kept <= 32 << 20, "{kept}");
    c.close().await;
}

#[tokio::test]
async fn an_sse_event_over_the_limit_is_too_large_as_on_stdio() {
    let server = common::HttpServer::start("mcpr-hostile-server", &["http-huge"]);
    let mut http = mcpr_runtime::transport::http::HttpConfig::new(server.url.clone());
    http.max_message_bytes = 1 << 20;
    let c = Client::connect_http(http, cfg()).await.expect("connects");
    let e = c
        .call_tool("echo", json!({"text": "x"}), &CallOptions::default())
        .await
        .expect_err("too large");
    assert_eq!(e.code(), "MCP-PROTOCOL-003", "{e}");
    c.close().await;
}

#[tokio::test]
async fn large_sse_events_stop_at_the_byte_budget() {
    let server = common::HttpServer::start("mcpr-hostile-server", &["http-sse-hog"]);
    let http = mcpr_runtime::transport::http::HttpConfig::new(server.url.clone());
    let mut config = cfg();
    config.max_buffered_bytes = 32 << 20;
    config.request_timeout = Duration::from_secs(15);
    let c = Client::connect_http(http, config).await.expect("connects");
    let e = c
        .call_tool("echo", json!({"text": "x"}), &CallOptions::default())
        .await
        .expect_err("the budget is passed");
    assert_eq!(e.code(), "MCP-PROTOCOL-012", "{e}");
    c.close().await;
}

/// A server that starts slowly answers the era probe after mcpr stopped waiting for it:
/// the handshake is never cancelled, so the server reads the `initialize` that follows and
/// the session opens (here the reference server starts 3 s late, the probe waits 2.5 s).
#[tokio::test]
async fn a_server_that_answers_the_probe_late_still_opens_its_session() {
    let reference = common::reference();
    let late = mcpr_runtime::transport::stdio::StdioConfig::new(
        "sh",
        [
            "-c".to_string(),
            format!("sleep 3; exec {}", reference.command),
        ],
    );
    let config = SessionConfig {
        connect_timeout: Duration::from_secs(5),
        ..cfg()
    };
    let c = Client::connect(late, config)
        .await
        .expect("the session opens");
    c.ping(None).await.expect("and works");
    c.close().await;
}

/// Connects to the hostile server in `mode` (which takes `millis` after stdin closes),
/// makes one call and closes the session under `grace`.
async fn closed_after_one_call(
    mode: &str,
    millis: &str,
    grace: ShutdownGrace,
) -> (mcpr_runtime::transport::ShutdownReport, String) {
    let config = SessionConfig {
        shutdown_grace: grace,
        ..cfg()
    };
    let c = Client::connect(hostile(mode, &[millis]), config)
        .await
        .expect("connects");
    let pid = c.session().pid();
    c.call_tool("echo", json!({"text": "x"}), &CallOptions::default())
        .await
        .expect("echo answers");
    let report = c.close().await;
    assert_group_gone(pid).await;
    (report, c.session().stderr_tail())
}

#[tokio::test]
async fn the_default_grace_ends_early_for_a_server_that_sits_idle_after_stdin_closes() {
    let (report, _) = closed_after_one_call("linger", "5000", ShutdownGrace::Auto).await;
    assert_eq!(report.stage, ShutdownStage::Sigterm, "{report:?}");
    assert!(report.idle, "{report:?}");
    assert!(
        report.elapsed < ShutdownGrace::AUTO_LIMIT,
        "SIGTERM came before the grace's limit: {report:?}"
    );
}

#[tokio::test]
async fn the_default_grace_waits_for_a_server_busy_with_its_clean_up() {
    let (report, stderr) = closed_after_one_call("busy-exit", "400", ShutdownGrace::Auto).await;
    assert_eq!(report.stage, ShutdownStage::StdinEof, "{report:?}");
    assert!(!report.idle, "{report:?}");
    assert!(stderr.contains("busy-exit done"), "{stderr}");
}

#[tokio::test]
async fn a_fixed_grace_waits_for_an_idle_server_too() {
    let grace = ShutdownGrace::Fixed(Duration::from_secs(3));
    let (report, _) = closed_after_one_call("linger", "300", grace).await;
    assert_eq!(report.stage, ShutdownStage::StdinEof, "{report:?}");
    assert!(!report.idle, "{report:?}");
    let grace = ShutdownGrace::Fixed(Duration::from_millis(100));
    let (report, _) = closed_after_one_call("linger", "5000", grace).await;
    assert_eq!(report.stage, ShutdownStage::Sigterm, "{report:?}");
    assert!(
        !report.idle,
        "a fixed grace runs out, it does not judge: {report:?}"
    );
}
