//! Every client operation against the reference server (rmcp), in both eras.

mod common;

use std::time::{Duration, Instant};

use common::{assert_group_gone, config, connect_reference, reference};
use mcpr_runtime::client::content_text;
use mcpr_runtime::protocol::Era;
use mcpr_runtime::session::{Match, RequestOptions};
use mcpr_runtime::transport::ShutdownStage;
use mcpr_runtime::{CallOptions, Client};
use serde_json::json;

const LEGACY: &str = "2025-11-25";
const MODERN: &str = "2026-07-28";

/// Runs `f` against a fresh server in each era and checks the server is gone afterwards.
async fn both_eras(f: impl AsyncFn(&Client, Era)) {
    for (version, era) in [(LEGACY, Era::Legacy), (MODERN, Era::Modern)] {
        let c = connect_reference(Some(version)).await;
        assert_eq!(c.session().era(), era);
        assert_eq!(c.session().protocol_version(), version);
        f(&c, era).await;
        assert!(
            c.session().violations().is_empty(),
            "violations in {version}: {:?}",
            c.session().violations()
        );
        let pid = c.session().pid();
        let report = c.close().await;
        assert_eq!(report.stage, ShutdownStage::StdinEof, "{report:?}");
        assert_group_gone(pid).await;
    }
}

fn ok<T>(r: Result<T, mcpr_runtime::Error>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => panic!("{e}"),
    }
}

on_both_runtimes! {
async fn auto_probe_picks_the_modern_era_and_every_handshake_version_works() {
    let c = connect_reference(None).await;
    assert_eq!(c.session().era(), Era::Modern);
    assert_eq!(c.session().facts().server_info["name"], "mcpr-reference-server");
    assert!(
        c.session().facts()
            .supported_versions
            .contains(&"2025-06-18".to_string())
    );
    c.close().await;
    for v in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let c = connect_reference(Some(v)).await;
        assert_eq!(c.session().era(), Era::Legacy);
        assert_eq!(c.session().protocol_version(), v);
        assert_eq!(c.session().facts().server_info["name"], "mcpr-reference-server");
        assert!(c.server_has(&["resources", "subscribe"]));
        let echo = ok(c
            .call_tool("echo", json!({"text": v}), &CallOptions::default())
            .await);
        assert_eq!(content_text(&echo.result), v);
        c.close().await;
    }
}}

on_both_runtimes! {
async fn tools_list_follows_cursors_and_calls_check_results() {
    both_eras(async |c, _era| {
        let tools = ok(c.list_tools().await);
        let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
        assert_eq!(names.len(), 15, "{names:?}");
        assert!(names.contains(&"add") && names.contains(&"app"));
        let (transcript, _) = c.session().transcript();
        let list_requests = transcript
            .iter()
            .filter(|e| e.method.as_deref() == Some("tools/list"))
            .count();
        assert_eq!(list_requests, 4, "15 tools at 4 per page");

        let echo = ok(c
            .call_tool("echo", json!({"text": "hi"}), &CallOptions::default())
            .await);
        assert_eq!(content_text(&echo.result), "hi");
        assert!(!echo.is_error);

        let add = ok(c
            .call_tool("add", json!({"a": 2, "b": 3}), &CallOptions::default())
            .await);
        assert_eq!(add.result["structuredContent"]["sum"], 5);

        let fail = c
            .call_tool("fail", json!({"message": "boom"}), &CallOptions::default())
            .await
            .unwrap_err();
        assert_eq!(fail.code(), "MCP-TOOL-001");
        assert!(fail.to_string().contains("boom"), "{fail}");
        assert!(
            fail.to_string()
                .contains("last MCP message (received, response)"),
            "{fail}"
        );
        let allowed = ok(c
            .call_tool(
                "fail",
                json!({}),
                &CallOptions {
                    allow_error: true,
                    ..Default::default()
                },
            )
            .await);
        assert!(allowed.is_error);

        let unknown = c
            .call_tool("nope", json!({}), &CallOptions::default())
            .await
            .unwrap_err();
        assert_eq!(unknown.code(), "MCP-RPC-001");
        assert_eq!(unknown.rpc_error().map(|e| e.code), Some(-32602));
    })
    .await;
}}

// 2026-07-28 over stdio: the envelope is written into each request line as text made once
// per session. What the server gets must be what adding it to the params would give: the
// params first, `_meta` last with the three members; a caller's own `_meta` is kept and the
// envelope joins it; capabilities changed mid-session are declared from then on.
on_both_runtimes! {
async fn the_2026_envelope_goes_into_every_request_line() {
    let c = connect_reference(Some("2026-07-28")).await;
    let last_request = |method: &str| -> serde_json::Value {
        let (transcript, _) = c.session().transcript();
        let e = transcript
            .iter()
            .rev()
            .find(|e| e.kind.as_str() == "request" && e.method.as_deref() == Some(method))
            .expect("the request is in the transcript");
        serde_json::from_str(&e.text).unwrap()
    };
    ok(c.call_tool("echo", json!({"text": "hi"}), &CallOptions::default()).await);
    let sent = last_request("tools/call");
    let params = sent["params"].as_object().unwrap();
    let keys: Vec<&str> = params.keys().map(String::as_str).collect();
    assert_eq!(keys, ["name", "arguments", "_meta"], "{sent}");
    let meta = params["_meta"].as_object().unwrap();
    let keys: Vec<&str> = meta.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "io.modelcontextprotocol/protocolVersion",
            "io.modelcontextprotocol/clientCapabilities",
            "io.modelcontextprotocol/clientInfo"
        ]
    );
    assert_eq!(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
    assert_eq!(meta["io.modelcontextprotocol/clientInfo"]["name"], "mcpr");
    let before = meta["io.modelcontextprotocol/clientCapabilities"].clone();

    // A request without params, and one whose params carry a `_meta` of their own.
    ok(c.session().request("tools/list", None, &Default::default()).await);
    let sent = last_request("tools/list");
    assert_eq!(sent["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
    ok(c
        .session().request("tools/call", Some(&json!({"name": "echo", "arguments": {"text": "x"}, "_meta": {"mine": 1}})), &Default::default())
        .await);
    let sent = last_request("tools/call");
    let meta = sent["params"]["_meta"].as_object().unwrap();
    assert_eq!(meta["mine"], 1, "{sent}");
    assert_eq!(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28");

    // Other capabilities from now on.
    let mut behaviour = c.session().behaviour();
    behaviour.roots = match behaviour.roots {
        Some(_) => None,
        None => Some(vec![]),
    };
    c.session().set_behaviour(behaviour);
    ok(c.call_tool("echo", json!({"text": "again"}), &CallOptions::default()).await);
    let after = last_request("tools/call")["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"].clone();
    assert_ne!(after, before, "the new capabilities are declared");
    c.close().await;
}}

on_both_runtimes! {
async fn progress_is_collected_and_monotonic() {
    both_eras(async |c, _era| {
        let call = ok(c
            .call_tool(
                "progress",
                json!({"steps": 5, "delayMs": 1}),
                &CallOptions {
                    progress: true,
                    ..Default::default()
                },
            )
            .await);
        assert_eq!(call.progress.len(), 5, "{:?}", call.progress);
        let values: Vec<f64> = call
            .progress
            .iter()
            .map(|p| p["progress"].as_f64().unwrap())
            .collect();
        assert_eq!(values, vec![1.0, 2.0, 3.0, 4.0, 5.0]);
        // The notifications stay in the inbox for waits too.
        let n = ok(c
            .session().wait_notification(
                "notifications/progress",
                &[Match::dotted("progress", json!(5))],
                Duration::from_secs(1),
            )
            .await);
        assert_eq!(n.params["total"].as_f64(), Some(5.0));
        // Without a token the server sends none.
        let quiet = ok(c
            .call_tool("progress", json!({"steps": 2}), &CallOptions::default())
            .await);
        assert!(quiet.progress.is_empty());
    })
    .await;
}}

on_both_runtimes! {
async fn sampling_elicitation_and_roots_are_answered_in_each_era() {
    both_eras(async |c, era| {
        let s = ok(c
            .call_tool(
                "sample",
                json!({"prompt": "hello"}),
                &CallOptions::default(),
            )
            .await);
        assert_eq!(content_text(&s.result), "sampled: sampled text");
        // A queued per-step answer wins over the behaviour.
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
        let expected_rounds = if era == Era::Modern { 2 } else { 1 };
        assert_eq!(
            (s.rounds, e.rounds, r.rounds),
            (expected_rounds, expected_rounds, expected_rounds)
        );
        let methods: Vec<String> = c
            .session().server_requests()
            .iter()
            .map(|r| r.method.clone())
            .collect();
        assert_eq!(
            methods,
            vec!["sampling/createMessage", "elicitation/create", "roots/list"]
        );
        assert!(c.session().server_requests()[1].queued);
        if era == Era::Modern {
            // The retry carried a new id, the answers and the echoed requestState.
            let (t, _) = c.session().transcript();
            let retry = t
                .iter()
                .find(|e| {
                    e.direction == mcpr_runtime::transcript::Direction::Sent
                        && e.text.contains("\"requestState\":\"elicit-1\"")
                })
                .expect("retry sent");
            assert!(
                retry.text.contains("\"inputResponses\":{\"elicit\""),
                "{}",
                retry.text
            );
        }
    })
    .await;
}}

on_both_runtimes! {
async fn a_declined_capability_gets_an_error_answer() {
    let mut cfg = config(Some(LEGACY));
    cfg.behaviour.roots = None;
    let c = ok(Client::connect(reference(), cfg).await);
    let e = c
        .call_tool("roots", json!({"force": true}), &CallOptions::default())
        .await
        .unwrap_err();
    assert_eq!(e.code(), "MCP-RPC-001", "{e}");
    let reqs = c.session().server_requests();
    assert_eq!(reqs.len(), 1);
    assert_eq!(reqs[0].answer["error"]["code"], -32601);
    c.close().await;
}}

on_both_runtimes! {
async fn resources_templates_and_not_found() {
    both_eras(async |c, era| {
        let res = ok(c.list_resources().await);
        assert_eq!(res.len(), 4);
        let templates = ok(c.list_resource_templates().await);
        assert_eq!(templates[0]["uriTemplate"], "fixture://items/{id}");
        let status = ok(c.read_resource("fixture://status").await);
        assert!(
            status["contents"][0]["text"]
                .as_str()
                .unwrap()
                .contains("ready")
        );
        let item = ok(c.read_resource("fixture://items/7").await);
        assert_eq!(item["contents"][0]["text"], "item 7");
        let blob = ok(c.read_resource("fixture://blob").await);
        assert_eq!(
            mcpr_runtime::client::resource_bytes(&blob).unwrap(),
            vec![0, 1, 2, 3, 254, 255]
        );
        let missing = c.read_resource("fixture://missing").await.unwrap_err();
        let code = missing.rpc_error().map(|e| e.code);
        assert_eq!(
            code,
            Some(if era == Era::Modern { -32602 } else { -32002 }),
            "{missing}"
        );
        if era == Era::Modern {
            let (t, _) = c.session().transcript();
            let list = t
                .iter()
                .rev()
                .find(|e| e.text.contains("\"resources\":["))
                .expect("resources/list answer");
            assert!(
                list.text.contains("\"ttlMs\""),
                "2026 list results carry caching hints: {}",
                list.text
            );
        }
    })
    .await;
}}

on_both_runtimes! {
async fn prompts_and_completions() {
    both_eras(async |c, _era| {
        let prompts = ok(c.list_prompts().await);
        assert_eq!(prompts.len(), 2);
        let greet = ok(c.get_prompt("greet", Some(json!({"name": "Ada"}))).await);
        assert_eq!(greet["messages"][0]["content"]["text"], "Hello, Ada!");
        let missing_arg = c.get_prompt("greet", None).await.unwrap_err();
        assert_eq!(missing_arg.rpc_error().map(|e| e.code), Some(-32602));
        let lang = ok(c
            .complete(
                json!({"type": "ref/prompt", "name": "code_review"}),
                "language",
                "r",
                None,
            )
            .await);
        assert_eq!(lang["values"], json!(["rust"]));
        let fw = ok(c
            .complete(
                json!({"type": "ref/prompt", "name": "code_review"}),
                "framework",
                "",
                Some(json!({"language": "python"})),
            )
            .await);
        assert_eq!(fw["values"], json!(["django", "fastapi", "flask"]));
        let ids = ok(c
            .complete(
                json!({"type": "ref/resource", "uri": "fixture://items/{id}"}),
                "id",
                "1",
                None,
            )
            .await);
        assert_eq!(ids["values"], json!(["1", "10"]));
    })
    .await;
}}

on_both_runtimes! {
async fn logging_in_each_era() {
    // Legacy: logging/setLevel filters what the server sends.
    let c = connect_reference(Some(LEGACY)).await;
    ok(c.set_log_level("warning").await);
    ok(c.call_tool(
        "log",
        json!({"level": "info", "message": "quiet"}),
        &CallOptions::default(),
    )
    .await);
    ok(c.call_tool(
        "log",
        json!({"level": "error", "message": "loud"}),
        &CallOptions::default(),
    )
    .await);
    let n = ok(c
        .session().wait_notification(
            "notifications/message",
            &[Match::dotted("data.message", json!("loud"))],
            Duration::from_secs(2),
        )
        .await);
    assert_eq!(n.params["level"], "error");
    let none = c
        .session().wait_notification(
            "notifications/message",
            &[Match::dotted("data.message", json!("quiet"))],
            Duration::from_millis(200),
        )
        .await
        .unwrap_err();
    assert_eq!(none.code(), "MCP-EVENT-001");
    c.close().await;

    // 2026: no setLevel; a request-scoped level opts a single request in.
    let c = connect_reference(Some(MODERN)).await;
    assert_eq!(
        c.set_log_level("info").await.unwrap_err().code(),
        "MCP-CAP-001"
    );
    let r = ok(c
        .call_tool(
            "log",
            json!({"level": "info", "message": "unasked"}),
            &CallOptions::default(),
        )
        .await);
    assert!(content_text(&r.result).starts_with("not logged"));
    ok(c.call_tool(
        "log",
        json!({"level": "info", "message": "asked"}),
        &CallOptions {
            log_level: Some("debug".into()),
            ..Default::default()
        },
    )
    .await);
    ok(c.session().wait_notification(
        "notifications/message",
        &[Match::dotted("data.message", json!("asked"))],
        Duration::from_secs(2),
    )
    .await);
    assert!(
        c.session().inbox()
            .iter()
            .all(|n| n.params["data"]["message"] != "unasked")
    );
    c.close().await;
}}

on_both_runtimes! {
async fn subscriptions_and_list_changed_in_each_era() {
    // Legacy: resources/subscribe, then updates and list_changed on demand.
    let c = connect_reference(Some(LEGACY)).await;
    ok(c.subscribe("fixture://status").await);
    ok(c.call_tool(
        "notify",
        json!({"kind": "updated", "uri": "fixture://status"}),
        &CallOptions::default(),
    )
    .await);
    ok(
        c.call_tool("notify", json!({"kind": "tools"}), &CallOptions::default())
            .await,
    );
    let u = ok(c
        .session().wait_notification(
            "notifications/resources/updated",
            &[Match::dotted("uri", json!("fixture://status"))],
            Duration::from_secs(2),
        )
        .await);
    assert_eq!(u.params["uri"], "fixture://status");
    ok(c.session().wait_notification(
        "notifications/tools/list_changed",
        &[],
        Duration::from_secs(2),
    )
    .await);
    ok(c.unsubscribe("fixture://status").await);
    let r = ok(c
        .call_tool(
            "notify",
            json!({"kind": "updated", "uri": "fixture://status"}),
            &CallOptions::default(),
        )
        .await);
    assert!(content_text(&r.result).contains("no subscriber"));
    // Each notification is handed out once.
    let again = c
        .session().wait_notification(
            "notifications/tools/list_changed",
            &[],
            Duration::from_millis(100),
        )
        .await
        .unwrap_err();
    assert!(
        again
            .to_string()
            .contains("no other notification arrived (none is waiting to be taken)"),
        "{again}"
    );
    c.close().await;

    // 2026: subscriptions/listen with acknowledgement and subscription ids.
    let c = connect_reference(Some(MODERN)).await;
    assert_eq!(
        c.subscribe("fixture://status").await.unwrap_err().code(),
        "MCP-CAP-001"
    );
    let sub = ok(c
        .listen(
            json!({"toolsListChanged": true, "resourceSubscriptions": ["fixture://status"]}),
            None,
        )
        .await);
    assert_eq!(sub.acknowledged["toolsListChanged"], true);
    ok(c.call_tool(
        "notify",
        json!({"kind": "updated", "uri": "fixture://status"}),
        &CallOptions::default(),
    )
    .await);
    ok(
        c.call_tool("notify", json!({"kind": "tools"}), &CallOptions::default())
            .await,
    );
    let u = ok(c
        .wait_subscription_notification(
            &sub,
            "notifications/resources/updated",
            Duration::from_secs(2),
        )
        .await);
    assert_eq!(u.params["uri"], "fixture://status");
    ok(c.wait_subscription_notification(
        &sub,
        "notifications/tools/list_changed",
        Duration::from_secs(2),
    )
    .await);
    // prompts were not requested, so the server must not send them on this stream.
    ok(c.call_tool(
        "notify",
        json!({"kind": "prompts"}),
        &CallOptions::default(),
    )
    .await);
    assert!(
        c.session().wait_notification(
            "notifications/prompts/list_changed",
            &[],
            Duration::from_millis(200)
        )
        .await
        .is_err()
    );
    ok(c.stop_listen(sub));
    assert!(c.session().violations().is_empty(), "{:?}", c.session().violations());
    c.close().await;
}}

on_both_runtimes! {
async fn cancellation_and_timeouts_leave_the_session_usable() {
    both_eras(async |c, _era| {
        let (pending, _) = ok(c.start_tool_call("slow", json!({"ms": 5000}), false));
        let id = pending.id;
        ok(c.session().cancel(pending, "test cancels"));
        let (t, _) = c.session().transcript();
        assert!(
            t.iter()
                .any(|e| e.method.as_deref() == Some("notifications/cancelled")
                    && e.text.contains(&format!("\"requestId\":{id}")))
        );
        let echo = ok(c
            .call_tool(
                "echo",
                json!({"text": "still here"}),
                &CallOptions::default(),
            )
            .await);
        assert_eq!(content_text(&echo.result), "still here");

        let start = Instant::now();
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
        assert!(start.elapsed() < Duration::from_secs(1));
        assert!(e.to_string().contains("no response to tools/call"), "{e}");
        assert!(
            e.to_string()
                .contains("last MCP message (sent, notification)"),
            "{e}"
        );
        let echo = ok(c
            .call_tool(
                "echo",
                json!({"text": "after timeout"}),
                &CallOptions::default(),
            )
            .await);
        assert_eq!(content_text(&echo.result), "after timeout");
    })
    .await;
}}

on_both_runtimes! {
async fn tasks_extension_in_each_era() {
    both_eras(async |c, _era| {
        assert!(c.tasks_extension());
        let call = ok(c
            .call_tool("long_task", json!({"ms": 50}), &CallOptions::default())
            .await);
        assert!(call.is_task, "{}", call.result);
        let id = call.result["taskId"].as_str().unwrap().to_string();
        let end = ok(c.task_run_to_end(&id, Duration::from_secs(5)).await);
        assert_eq!(end["status"], "completed");
        assert_eq!(content_text(&end["result"]), "finished after 50ms");

        // A task that needs input: answered through tasks/update.
        c.session().queue_answer(
            "elicitation/create",
            Ok(json!({"action": "accept", "content": {"name": "Grace"}})),
        );
        let ask = ok(c
            .call_tool("ask_task", json!({}), &CallOptions::default())
            .await);
        let id = ask.result["taskId"].as_str().unwrap().to_string();
        let first = ok(c.task_get(&id).await);
        assert_eq!(first["status"], "input_required");
        let end = ok(c.task_run_to_end(&id, Duration::from_secs(5)).await);
        assert_eq!(content_text(&end["result"]), "task answered by Grace");

        // Cancel a long one; unknown ids are -32602.
        let call = ok(c
            .call_tool("long_task", json!({"ms": 60000}), &CallOptions::default())
            .await);
        let id = call.result["taskId"].as_str().unwrap().to_string();
        ok(c.task_cancel(&id).await);
        assert_eq!(ok(c.task_get(&id).await)["status"], "cancelled");
        assert_eq!(
            c.task_get("task-unknown")
                .await
                .unwrap_err()
                .rpc_error()
                .map(|e| e.code),
            Some(-32602)
        );
    })
    .await;
}}

// Asking for a task: `params.task` in 2025-11-25; in 2026-07-28 the tasks extension lets the
// server alone decide ("clients do not signal task preference on the request itself").
on_both_runtimes! {
async fn a_task_is_asked_for_in_the_params_only_in_2025_11_25() {
    both_eras(async |c, era| {
        let copts = CallOptions {
            task_ttl: Some(Some(60_000)),
            ..CallOptions::default()
        };
        let call = ok(c.call_tool("long_task", json!({"ms": 10}), &copts).await);
        assert!(call.is_task, "{}", call.result);
        let (t, _) = c.session().transcript();
        let sent = t
            .iter()
            .rev()
            .find(|e| e.kind.as_str() == "request" && e.method.as_deref() == Some("tools/call"))
            .expect("the call is in the transcript");
        let sent: serde_json::Value = serde_json::from_str(&sent.text).unwrap();
        match era {
            Era::Legacy => assert_eq!(sent["params"]["task"], json!({"ttl": 60_000})),
            Era::Modern => assert!(sent["params"].get("task").is_none(), "{sent}"),
        }
    })
    .await;
}}

on_both_runtimes! {
async fn without_the_tasks_extension_the_tool_runs_inline() {
    let mut cfg = config(Some(MODERN));
    cfg.behaviour.tasks = false;
    let c = ok(Client::connect(reference(), cfg).await);
    let call = ok(c
        .call_tool("long_task", json!({"ms": 10}), &CallOptions::default())
        .await);
    assert!(!call.is_task);
    let e = c
        .call_tool("ask_task", json!({}), &CallOptions::default())
        .await
        .unwrap_err();
    assert_eq!(e.rpc_error().map(|e| e.code), Some(-32021), "{e}");
    c.close().await;
}}

on_both_runtimes! {
async fn skills_and_apps() {
    both_eras(async |c, _era| {
        let skills = ok(c.skills_list().await);
        assert_eq!(skills.len(), 1);
        let skill = ok(c.skill_get("skill://reference/greeter/SKILL.md").await);
        assert_eq!(ok(c.verify_skill(&skill).await), 2);
        let mut tampered = skill.clone();
        tampered["resources"][1]["size"] = json!(1);
        assert_eq!(
            c.verify_skill(&tampered).await.unwrap_err().code(),
            "MCP-SKILL-001"
        );
        let app = ok(c.check_app("app").await);
        assert_eq!(app.resource_uri, "ui://reference/app.html");
        assert_eq!(app.mime_type, "text/html;profile=mcp-app");
        assert!(app.csp.is_some());
        assert_eq!(c.check_app("echo").await.unwrap_err().code(), "MCP-APP-001");
    })
    .await;
}}

on_both_runtimes! {
async fn raw_requests_ping_and_envelope() {
    both_eras(async |c, era| {
        let rtt = ok(c.ping(None).await);
        assert!(rtt < Duration::from_secs(1));
        let e = c
            .session().request("no/such/method", Some(&json!({})), &Default::default())
            .await
            .unwrap_err();
        assert_eq!(e.rpc_error().map(|e| e.code), Some(-32601));
        let (t, _) = c.session().transcript();
        let sent_call = t
            .iter()
            .find(|e| e.method.as_deref() == Some("no/such/method"))
            .unwrap();
        assert_eq!(
            sent_call
                .text
                .contains("io.modelcontextprotocol/protocolVersion"),
            era == Era::Modern
        );
        if era == Era::Modern {
            // A modern request without the envelope is refused by the server.
            let opts = RequestOptions {
                no_envelope: true,
                ..Default::default()
            };
            let e = c
                .session()
                .request("tools/list", Some(&json!({})), &opts)
                .await
                .unwrap_err();
            assert_eq!(e.rpc_error().map(|r| r.code), Some(-32602), "{e}");
        }
    })
    .await;
}}

on_both_runtimes! {
async fn transcript_records_both_directions_in_order() {
    let c = connect_reference(Some(LEGACY)).await;
    ok(
        c.call_tool("echo", json!({"text": "t"}), &CallOptions::default())
            .await,
    );
    let (t, dropped) = c.session().transcript();
    assert_eq!(dropped, 0);
    let kinds: Vec<(&str, Option<&str>)> =
        t.iter().map(|e| (e.kind.as_str(), e.method.as_deref())).collect();
    assert_eq!(kinds[0], ("request", Some("initialize")));
    assert_eq!(kinds[1].0, "response");
    assert_eq!(
        kinds[2],
        ("notification", Some("notifications/initialized"))
    );
    assert!(
        t.windows(2)
            .all(|w| w[0].at <= w[1].at && w[0].seq < w[1].seq)
    );
    // Every answer comes after its request (the foreground records a request after
    // writing it, still before anything reads the answer).
    let id_of = |e: &mcpr_runtime::transcript::Entry| {
        serde_json::from_str::<serde_json::Value>(&e.text).unwrap()["id"].as_i64()
    };
    for (i, e) in t.iter().enumerate().filter(|(_, e)| e.kind.as_str() == "response") {
        let id = id_of(e).expect("an answer has an id");
        assert!(
            t[..i].iter().any(|s| s.kind.as_str() == "request" && id_of(s) == Some(id)),
            "answer {id} before its request: {t:?}"
        );
    }
    assert!(t.iter().filter(|e| e.kind.as_str() == "response").count() >= 3);
    let json = serde_json::to_value(&t).unwrap();
    assert_eq!(json[0]["direction"], "sent");
    assert!(
        json[1]["text"]
            .as_str()
            .unwrap()
            .contains("mcpr-reference-server")
    );
    // The tools are listed before the first call (for the outputSchema check), so the
    // call's answer is the last message.
    let last = c.session().last_message().unwrap();
    assert!(last.text.contains("\"text\":\"t\""), "{}", last.text);
    c.close().await;
}}

on_both_runtimes! {
async fn the_conflict_variant_drifts_on_add() {
    let mut stdio = reference();
    stdio.args = vec!["--variant".into(), "conflict".into()];
    let c = ok(Client::connect(stdio, config(Some(LEGACY))).await);
    let tools = ok(c.list_tools().await);
    assert_eq!(tools.len(), 2);
    let add = ok(c
        .call_tool("add", json!({"a": 2, "b": 3}), &CallOptions::default())
        .await);
    assert_eq!(add.result["structuredContent"]["sum"], "5");
    assert_eq!(
        c.call_tool("fail", json!({}), &CallOptions::default())
            .await
            .unwrap_err()
            .code(),
        "MCP-RPC-001"
    );
    c.close().await;
}}

on_both_runtimes! {
async fn progress_can_restart_the_deadline_up_to_a_hard_limit() {
    let c = connect_reference(Some(LEGACY)).await;
    // 8 steps of 150 ms (1.2 s in all) against a 600 ms deadline: wide margins for a
    // loaded machine.
    let args = json!({"steps": 8, "delayMs": 150});
    let short = Some(Duration::from_millis(600));
    let e = c
        .call_tool(
            "progress",
            args.clone(),
            &CallOptions {
                timeout: short,
                progress: true,
                ..Default::default()
            },
        )
        .await
        .unwrap_err();
    assert_eq!(e.code(), "MCP-TIMEOUT-001");
    let ok_call = ok(c
        .call_tool(
            "progress",
            args.clone(),
            &CallOptions {
                timeout: short,
                reset_timeout_on_progress: true,
                ..Default::default()
            },
        )
        .await);
    assert_eq!(ok_call.progress.len(), 8);
    let start = Instant::now();
    let capped = CallOptions {
        timeout: short,
        reset_timeout_on_progress: true,
        max_total: Some(Duration::from_millis(800)),
        ..Default::default()
    };
    let e = c.call_tool("progress", args, &capped).await.unwrap_err();
    assert_eq!(e.code(), "MCP-TIMEOUT-001");
    assert!(
        start.elapsed() < Duration::from_millis(1150),
        "{:?}",
        start.elapsed()
    );
    assert!(e.to_string().contains("within 800ms"), "{e}");
    c.close().await;
}}

on_both_runtimes! {
async fn cwd_env_and_the_observer() {
    let dir = std::env::temp_dir().join(format!("mcpr-cwd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut stdio = reference();
    stdio.cwd = Some(dir.clone());
    stdio
        .env
        .insert("MCPR_TEST_API_TOKEN".into(), "explicit-secret".into());
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = seen.clone();
    let mut cfg = config(Some(LEGACY));
    cfg.observer = Some(mcpr_runtime::session::Observer::new(move |e| {
        sink.lock().unwrap().push((e.direction, e.kind))
    }));
    let c = ok(Client::connect(stdio, cfg).await);
    let token = env_of(&c, "MCPR_TEST_API_TOKEN").await;
    assert_eq!(
        token["value"], "explicit-secret",
        "explicit variables pass even when credential-like"
    );
    assert_eq!(
        std::fs::canonicalize(token["cwd"].as_str().unwrap()).unwrap(),
        std::fs::canonicalize(&dir).unwrap()
    );
    assert!(
        env_of(&c, "PATH").await["value"].is_string(),
        "the runner's environment is inherited"
    );
    // Whatever credential-like variables the runner has are withheld, by name.
    let expected: Vec<String> = {
        let mut v: Vec<String> = mcpr_runtime::redact::runner_env()
            .into_iter()
            .filter(|(k, v)| mcpr_runtime::redact::looks_like_credential_var(k, v))
            .map(|(k, _)| k)
            .collect();
        v.sort();
        v
    };
    assert_eq!(c.session().withheld_env(), expected.as_slice());
    for name in &expected {
        assert!(
            env_of(&c, name).await["value"].is_null(),
            "{name} reached the server"
        );
    }
    let (transcript, _) = c.session().transcript();
    for _ in 0..100 {
        if seen.lock().unwrap().len() >= transcript.len() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        seen.lock().unwrap().len(),
        transcript.len(),
        "the observer saw every message"
    );
    c.close().await;
}}

async fn env_of(c: &Client, name: &str) -> serde_json::Value {
    let r = ok(c
        .call_tool(
            "environment",
            json!({"name": name}),
            &CallOptions::default(),
        )
        .await);
    serde_json::from_str(&content_text(&r.result)).unwrap()
}
