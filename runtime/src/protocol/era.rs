//! The rules that tell the two protocol eras apart, as pure functions over messages: what
//! a 2026-07-28 server may send and where, what its results must carry, which requests the
//! revision removed, and what the HTTP headers of a request name. The session applies them;
//! they know no session and no wire.

use serde_json::Value;

use super::version::Era;

/// Why a 2026-07-28 server must not have sent this notification here, if it must not.
/// `log_requested` is whether a request in flight asked for log messages
/// (`_meta` `io.modelcontextprotocol/logLevel`).
pub fn misplaced_notification(
    method: &str,
    params: &Value,
    log_requested: bool,
) -> Option<&'static str> {
    match method {
        "notifications/message" if !log_requested => Some(
            "a 2026-07-28 server may send log messages only while a request that asked for them (_meta io.modelcontextprotocol/logLevel) is in flight",
        ),
        "notifications/tools/list_changed"
        | "notifications/prompts/list_changed"
        | "notifications/resources/list_changed"
        | "notifications/resources/updated"
        | "notifications/subscriptions/acknowledged"
            if super::meta::get_meta(params, super::meta::ENVELOPE_SUBSCRIPTION_ID).is_none() =>
        {
            Some(
                "in 2026-07-28 this notification belongs on a subscriptions/listen stream and must carry _meta io.modelcontextprotocol/subscriptionId",
            )
        }
        _ => None,
    }
}

/// Why a server request is out of place: a 2026-07-28 server asks for input inside results
/// (`input_required`), never with a request of its own.
pub const SERVER_REQUEST_IN_MODERN_ERA: &str =
    "a 2026-07-28 server must not send requests to the client";

/// Checks the `resultType` of a 2026-07-28 result to `method`: absent, or one the method
/// allows (`complete` always, `input_required` for calls, reads and prompts, `task` for tool
/// calls and task methods). The error is the reason, for `MCP-PROTOCOL-005`.
pub fn check_result_type(method: &str, result: &Value) -> Result<(), String> {
    let rt = result.get("resultType");
    let ok = match rt {
        None => true,
        Some(Value::String(s)) => match s.as_str() {
            "complete" => true,
            "input_required" => matches!(method, "tools/call" | "prompts/get" | "resources/read"),
            "task" => method == "tools/call" || method.starts_with("tasks/"),
            _ => false,
        },
        Some(_) => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "resultType {} is not valid here",
            rt.map(Value::to_string).unwrap_or_default()
        ))
    }
}

/// Whether a request the client stopped waiting for may be cancelled with
/// `notifications/cancelled`. The handshake may not: `initialize` MUST NOT be cancelled,
/// and `server/discover` (the 2026-07-28 handshake, and mcpr's probe of a server's era) is
/// no different. A server that starts slowly and answers the probe late then reads the
/// `initialize` that follows, not a cancellation it cannot place.
pub fn may_cancel(method: &str) -> bool {
    !matches!(method, "initialize" | "server/discover")
}

/// Whether a client asks for a task on the request itself (`params.task`, with its `ttl`):
/// the 2025-11-25 task augmentation does; under the 2026-07-28 tasks extension the server
/// alone decides and the client only declares the extension in its capabilities.
pub fn task_in_params(era: Era) -> bool {
    era == Era::Legacy
}

/// Whether results of `method` carry the caching hints `ttlMs` and `cacheScope` (2026).
pub fn is_cacheable(method: &str) -> bool {
    matches!(
        method,
        "server/discover"
            | "tools/list"
            | "prompts/list"
            | "resources/list"
            | "resources/templates/list"
            | "resources/read"
            | "skills/list"
            | "skills/get"
    )
}

/// What a 2026-07-28 result lacks that the revision requires, each as a short sentence:
/// `resultType`, and on complete results of cacheable methods `ttlMs` and `cacheScope`.
/// Empty when the result is in order. (Recorded as violations; the result is still used.)
pub fn missing_result_members(method: &str, result: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let rt = result.get("resultType").and_then(Value::as_str);
    if result.get("resultType").is_none() {
        problems.push("the result has no resultType".to_string());
    }
    if is_cacheable(method) && rt.is_none_or(|t| t == "complete") {
        if result.get("ttlMs").is_none_or(|t| t.as_u64().is_none()) {
            problems.push("ttlMs is missing or not a non-negative integer".into());
        }
        if !matches!(
            result.get("cacheScope").and_then(Value::as_str),
            Some("public" | "private")
        ) {
            problems.push("cacheScope is missing or neither \"public\" nor \"private\"".into());
        }
    }
    problems
}

/// What replaces a request the 2026-07-28 revision removed, if `method` is one.
pub fn removed_in_modern(method: &str) -> Option<&'static str> {
    match method {
        "logging/setLevel" => Some("a request-scoped log level"),
        "resources/subscribe" => Some("subscriptions/listen"),
        "resources/unsubscribe" => Some("cancelling the listen request"),
        "ping" => Some("server/discover"),
        "tasks/result" => Some("tasks/get polling"),
        "tasks/list" => Some("tasks/get"),
        "initialize" => Some("server/discover"),
        _ => None,
    }
}

/// The name a request is about, for the 2026 `Mcp-Name` HTTP header: the tool or prompt
/// name, the resource URI, or the task id.
pub fn request_name<'v>(method: &str, params: Option<&'v Value>) -> Option<&'v str> {
    let key = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        "tasks/get" | "tasks/update" | "tasks/cancel" => "taskId",
        _ => return None,
    };
    params?.get(key)?.as_str()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn log_messages_need_a_request_that_asked_for_them() {
        let m = "notifications/message";
        assert!(misplaced_notification(m, &json!({"level": "info"}), false).is_some());
        assert!(misplaced_notification(m, &json!({"level": "info"}), true).is_none());
        assert!(misplaced_notification("notifications/progress", &json!({}), false).is_none());
    }

    #[test]
    fn list_changes_belong_on_a_listen_stream() {
        let m = "notifications/tools/list_changed";
        assert!(misplaced_notification(m, &json!({}), true).is_some());
        let on_stream = json!({"_meta": {"io.modelcontextprotocol/subscriptionId": 7}});
        assert!(misplaced_notification(m, &on_stream, false).is_none());
        assert!(
            misplaced_notification("notifications/resources/updated", &Value::Null, false)
                .is_some()
        );
    }

    #[test]
    fn result_types_by_method() {
        let r = |t: Value| json!({"resultType": t});
        assert!(check_result_type("tools/list", &json!({})).is_ok());
        assert!(check_result_type("tools/list", &r(json!("complete"))).is_ok());
        assert!(check_result_type("tools/call", &r(json!("input_required"))).is_ok());
        assert!(check_result_type("resources/read", &r(json!("input_required"))).is_ok());
        assert!(check_result_type("tools/list", &r(json!("input_required"))).is_err());
        assert!(check_result_type("tools/call", &r(json!("task"))).is_ok());
        assert!(check_result_type("tasks/get", &r(json!("task"))).is_ok());
        assert!(check_result_type("prompts/get", &r(json!("task"))).is_err());
        assert_eq!(
            check_result_type("tools/call", &r(json!(3))).unwrap_err(),
            "resultType 3 is not valid here"
        );
        assert_eq!(
            check_result_type("tools/call", &r(json!("later"))).unwrap_err(),
            "resultType \"later\" is not valid here"
        );
    }

    #[test]
    fn cacheable_results_need_ttl_and_scope() {
        assert_eq!(
            missing_result_members(
                "tools/list",
                &json!({"resultType": "complete", "ttlMs": 0, "cacheScope": "public"})
            ),
            Vec::<String>::new()
        );
        assert_eq!(
            missing_result_members("tools/list", &json!({"ttlMs": -1, "cacheScope": "shared"})),
            vec![
                "the result has no resultType",
                "ttlMs is missing or not a non-negative integer",
                "cacheScope is missing or neither \"public\" nor \"private\""
            ]
        );
        // A call result is not cached; an input_required read is not complete.
        assert!(
            missing_result_members("tools/call", &json!({"resultType": "complete"})).is_empty()
        );
        assert!(
            missing_result_members("resources/read", &json!({"resultType": "input_required"}))
                .is_empty()
        );
    }

    #[test]
    fn the_handshake_is_never_cancelled() {
        assert!(!may_cancel("initialize") && !may_cancel("server/discover"));
        assert!(may_cancel("tools/call") && may_cancel("ping"));
    }

    #[test]
    fn removed_requests_and_header_names() {
        assert_eq!(
            removed_in_modern("logging/setLevel"),
            Some("a request-scoped log level")
        );
        assert_eq!(removed_in_modern("tools/call"), None);
        let p = json!({"name": "echo", "uri": "file:///a", "taskId": "t1"});
        assert_eq!(request_name("tools/call", Some(&p)), Some("echo"));
        assert_eq!(request_name("resources/read", Some(&p)), Some("file:///a"));
        assert_eq!(request_name("tasks/cancel", Some(&p)), Some("t1"));
        assert_eq!(request_name("tools/list", Some(&p)), None);
        assert_eq!(request_name("tools/call", None), None);
    }
}
