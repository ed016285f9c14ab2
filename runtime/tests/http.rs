//! Client operations over Streamable HTTP against the reference server (rmcp's
//! Streamable HTTP service), in both eras.

mod common;

use std::time::Duration;

use common::{HttpServer, config};
use mcpr_runtime::client::content_text;
use mcpr_runtime::protocol::Era;
use mcpr_runtime::session::Match;
use mcpr_runtime::transport::ShutdownStage;
use mcpr_runtime::transport::http::HttpConfig;
use mcpr_runtime::{CallOptions, Client};
use serde_json::json;

fn ok<T>(r: Result<T, mcpr_runtime::Error>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => panic!("{e}"),
    }
}

async fn connect(server: &HttpServer, protocol: Option<&str>) -> Client {
    ok(Client::connect_http(HttpConfig::new(server.url.clone()), config(protocol)).await)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn core_operations_over_http_in_both_eras() {
    let server = HttpServer::start("mcpr-reference-server", &["--http", "127.0.0.1:0"]);
    for (protocol, era) in [
        (Some("2025-11-25"), Era::Legacy),
        (Some("2026-07-28"), Era::Modern),
        (None, Era::Modern),
        (Some("2025-06-18"), Era::Legacy),
    ] {
        let c = connect(&server, protocol).await;
        assert_eq!(c.session().era(), era, "{protocol:?}");
        let tools = ok(c.list_tools().await);
        assert_eq!(tools.len(), 15);
        let add = ok(c
            .call_tool("add", json!({"a": 2, "b": 3}), &CallOptions::default())
            .await);
        assert_eq!(add.result["structuredContent"]["sum"], 5);
        let p = ok(c
            .call_tool(
                "progress",
                json!({"steps": 3, "delayMs": 1}),
                &CallOptions {
                    progress: true,
                    ..Default::default()
                },
            )
            .await);
        assert_eq!(p.progress.len(), 3);
        let status = ok(c.read_resource("fixture://status").await);
        assert!(
            status["contents"][0]["text"]
                .as_str()
                .unwrap()
                .contains("ready")
        );
        let greet = ok(c.get_prompt("greet", Some(json!({"name": "Ada"}))).await);
        assert_eq!(greet["messages"][0]["content"]["text"], "Hello, Ada!");
        let fail = c
            .call_tool("fail", json!({}), &CallOptions::default())
            .await
            .unwrap_err();
        assert_eq!(fail.code(), "MCP-TOOL-001");
        let e = c
            .call_tool(
                "slow",
                json!({"ms": 3000}),
                &CallOptions {
                    timeout: Some(Duration::from_millis(200)),
                    ..Default::default()
                },
            )
            .await
            .unwrap_err();
        assert_eq!(e.code(), "MCP-TIMEOUT-001");
        let echo = ok(c
            .call_tool("echo", json!({"text": "after"}), &CallOptions::default())
            .await);
        assert_eq!(content_text(&echo.result), "after");
        // Over 2026 HTTP the region also travels in Mcp-Param-Region; rmcp checks it.
        let regional = ok(c
            .call_tool(
                "regional",
                json!({"region": "eu-west-1", "text": "hi"}),
                &CallOptions::default(),
            )
            .await);
        assert_eq!(content_text(&regional.result), "hi@eu-west-1");
        if era == Era::Modern {
            let bare = c.session().request("tools/call", Some(&json!({"name": "regional", "arguments": {"region": "eu-west-1", "text": "hi"}})), &Default::default()).await.unwrap_err();
            assert_eq!(
                bare.rpc_error().map(|r| r.code).unwrap_or_default(),
                -32020,
                "a call without Mcp-Param-Region is a header mismatch"
            );
        }
        assert!(
            c.session().violations().is_empty(),
            "{protocol:?}: {:?}",
            c.session().violations()
        );
        let report = c.close().await;
        assert_eq!(report.stage, ShutdownStage::Disconnected);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_requests_and_notifications_over_http() {
    let server = HttpServer::start("mcpr-reference-server", &["--http", "127.0.0.1:0"]);
    // Legacy: sampling, elicitation and roots arrive as requests on the POST's SSE stream
    // and are answered with POSTs; logs and list_changed too.
    let c = connect(&server, Some("2025-11-25")).await;
    let s = ok(c
        .call_tool("sample", json!({"prompt": "hi"}), &CallOptions::default())
        .await);
    assert_eq!(content_text(&s.result), "sampled: sampled text");
    c.session().queue_answer(
        "elicitation/create",
        Ok(json!({"action": "accept", "content": {"name": "Ada"}})),
    );
    let e = ok(c
        .call_tool("elicit", json!({}), &CallOptions::default())
        .await);
    assert_eq!(content_text(&e.result), "elicitation accept: Ada");
    let r = ok(c
        .call_tool("roots", json!({}), &CallOptions::default())
        .await);
    assert_eq!(content_text(&r.result), "roots: file:///tmp/mcpr-root");
    ok(c.set_log_level("info").await);
    ok(c.call_tool(
        "log",
        json!({"level": "warning", "message": "over http"}),
        &CallOptions::default(),
    )
    .await);
    ok(c.session()
        .wait_notification(
            "notifications/message",
            &[Match::dotted("data.message", json!("over http"))],
            Duration::from_secs(2),
        )
        .await);
    assert!(
        c.session().violations().is_empty(),
        "{:?}",
        c.session().violations()
    );
    c.close().await;

    // 2026: multi round-trip requests and a listen stream.
    let c = connect(&server, Some("2026-07-28")).await;
    let s = ok(c
        .call_tool("sample", json!({"prompt": "hi"}), &CallOptions::default())
        .await);
    assert_eq!(
        (content_text(&s.result).as_str(), s.rounds),
        ("sampled: sampled text", 2)
    );
    let sub = ok(c
        .listen(json!({"resourceSubscriptions": ["fixture://status"]}), None)
        .await);
    ok(c.call_tool(
        "notify",
        json!({"kind": "updated", "uri": "fixture://status"}),
        &CallOptions::default(),
    )
    .await);
    ok(c.wait_subscription_notification(
        &sub,
        "notifications/resources/updated",
        Duration::from_secs(2),
    )
    .await);
    ok(c.stop_listen(sub));
    let task = ok(c
        .call_tool("long_task", json!({"ms": 20}), &CallOptions::default())
        .await);
    let id = task.result["taskId"].as_str().unwrap().to_string();
    assert_eq!(
        ok(c.task_run_to_end(&id, Duration::from_secs(5)).await)["status"],
        "completed"
    );
    assert!(
        c.session().violations().is_empty(),
        "{:?}",
        c.session().violations()
    );
    c.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_failures_are_named() {
    // Nothing listens on this port.
    let e = Client::connect_http(
        HttpConfig::new("http://127.0.0.1:9/mcp"),
        config(Some("2025-11-25")),
    )
    .await
    .unwrap_err();
    assert_eq!(e.code(), "MCP-HTTP-001", "{e}");
    // A wrong path: the server answers 404.
    let server = HttpServer::start("mcpr-reference-server", &["--http", "127.0.0.1:0"]);
    let wrong = server.url.replace("/mcp", "/nope");
    let e = Client::connect_http(HttpConfig::new(wrong), config(Some("2025-11-25")))
        .await
        .unwrap_err();
    assert_eq!(e.code(), "MCP-HTTP-001", "{e}");
    assert!(e.to_string().contains("status 404"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn adhoc_commands_over_http() {
    use mcpr_runtime::adhoc::{self, AdhocOptions};
    let server = HttpServer::start("mcpr-reference-server", &["--http", "127.0.0.1:0"]);
    let mut opts = AdhocOptions::http(server.url.clone());
    opts.timeout = Duration::from_secs(10);
    assert_eq!(
        adhoc::list_tools(&opts).await.unwrap()["tools"]
            .as_array()
            .unwrap()
            .len(),
        15
    );
    let add = adhoc::call_tool(&opts, "add", json!({"a": 1, "b": 2}))
        .await
        .unwrap();
    assert_eq!(add["structuredContent"]["sum"], 3);
    opts.protocol = Some("2025-06-18".into());
    let ping = adhoc::ping(&opts).await.unwrap();
    assert_eq!(ping.protocol_version, "2025-06-18");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_401_names_the_www_authenticate_challenge() {
    let server = HttpServer::start(
        "mcpr-reference-server",
        &[
            "--http",
            "127.0.0.1:0",
            "--require-header",
            "Authorization: Bearer s3cret-token",
        ],
    );
    let metadata = server
        .url
        .replace("/mcp", "/.well-known/oauth-protected-resource/mcp");
    for protocol in [None, Some("2025-11-25"), Some("2026-07-28")] {
        // No credentials at all.
        let e = Client::connect_http(HttpConfig::new(server.url.clone()), config(protocol))
            .await
            .unwrap_err();
        assert_eq!(e.code(), "MCP-AUTH-003", "{protocol:?}: {e}");
        let text = e.to_string();
        for part in [
            "HTTP status 401: the server requires authentication",
            "WWW-Authenticate: scheme Bearer, realm \"mcpr-reference\", error \"invalid_request\"",
            &format!("resource_metadata \"{metadata}\""),
            "body: unauthorized",
        ] {
            assert!(
                text.contains(part),
                "{protocol:?}: {part:?} missing from {text}"
            );
        }
        // A wrong token.
        let mut wrong = HttpConfig::new(server.url.clone());
        wrong
            .headers
            .insert("Authorization".into(), "Bearer nope".into());
        let e = Client::connect_http(wrong, config(protocol))
            .await
            .unwrap_err();
        assert_eq!(e.code(), "MCP-AUTH-003", "{e}");
        assert!(e.to_string().contains("error \"invalid_token\""), "{e}");
        // The right one, on every request of the session.
        let mut right = HttpConfig::new(server.url.clone());
        right
            .headers
            .insert("Authorization".into(), "Bearer s3cret-token".into());
        let c = ok(Client::connect_http(right, config(protocol)).await);
        let r = ok(c
            .call_tool(
                "echo",
                json!({"text": "authorized"}),
                &CallOptions::default(),
            )
            .await);
        assert_eq!(content_text(&r.result), "authorized");
        c.close().await;
    }
}

/// Clients without sessions (2026-07-28) number their requests alike, so two listen streams
/// may carry one subscription id; the end of one must not end the other.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listen_streams_of_two_clients_with_one_subscription_id_stay_apart() {
    let server = HttpServer::start("mcpr-reference-server", &["--http", "127.0.0.1:0"]);
    let (a, b) = two_clients(&server, "2026-07-28").await;
    let filter = json!({"toolsListChanged": true});
    let sub_a = ok(a.listen(filter.clone(), None).await);
    let sub_b = ok(b.listen(filter, None).await);
    assert_eq!(sub_a.id, sub_b.id, "the case needs one id on both streams");
    ok(a.stop_listen(sub_a));
    // The server counts the streams it notifies: wait until it has seen A's end.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let sent = loop {
        let r = ok(b
            .call_tool("notify", json!({"kind": "tools"}), &CallOptions::default())
            .await);
        let text = content_text(&r.result);
        if !text.contains("to 2 ") || std::time::Instant::now() > deadline {
            break text;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(sent, "sent tools to 1 subscription(s)");
    ok(b.wait_subscription_notification(
        &sub_b,
        "notifications/tools/list_changed",
        Duration::from_secs(5),
    )
    .await);
    ok(b.stop_listen(sub_b));
    a.close().await;
    b.close().await;
}

/// Resource subscriptions of the handshake era belong to their session: another session's
/// unsubscribe leaves them be.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resource_subscriptions_belong_to_their_session() {
    let server = HttpServer::start("mcpr-reference-server", &["--http", "127.0.0.1:0"]);
    let (a, b) = two_clients(&server, "2025-11-25").await;
    let uri = "fixture://status";
    ok(a.subscribe(uri).await);
    ok(b.subscribe(uri).await);
    ok(b.unsubscribe(uri).await);
    assert_eq!(
        notify_updated(&b, uri).await,
        "fixture://status has no subscriber; nothing sent"
    );
    assert_eq!(notify_updated(&a, uri).await, "sent updated");
    ok(a.session()
        .wait_notification(
            "notifications/resources/updated",
            &[Match::dotted("uri", json!(uri))],
            Duration::from_secs(5),
        )
        .await);
    a.close().await;
    b.close().await;
}

/// The log level of the handshake era belongs to its session: one session's
/// `logging/setLevel` leaves another's messages be.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_log_level_belongs_to_its_session() {
    let server = HttpServer::start("mcpr-reference-server", &["--http", "127.0.0.1:0"]);
    let (a, b) = two_clients(&server, "2025-11-25").await;
    ok(a.set_log_level("error").await);
    assert_eq!(
        log_info(&a).await,
        "not logged (level info below threshold or not requested)"
    );
    assert_eq!(log_info(&b).await, "logged at info");
    a.close().await;
    b.close().await;
}

/// Two clients of one server in `version` (two sessions in the handshake era).
async fn two_clients(server: &HttpServer, version: &str) -> (Client, Client) {
    (
        connect(server, Some(version)).await,
        connect(server, Some(version)).await,
    )
}

/// Calls the reference server's `notify` tool for an update of `uri`; its answer.
async fn notify_updated(c: &Client, uri: &str) -> String {
    let args = json!({"kind": "updated", "uri": uri});
    let r = ok(c.call_tool("notify", args, &CallOptions::default()).await);
    content_text(&r.result)
}

/// Calls the reference server's `log` tool for a message at `info`; its answer.
async fn log_info(c: &Client) -> String {
    let args = json!({"level": "info", "message": "hi"});
    let r = ok(c.call_tool("log", args, &CallOptions::default()).await);
    content_text(&r.result)
}
