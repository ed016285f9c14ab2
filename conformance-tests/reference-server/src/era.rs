//! The requests the 2026-07-28 revision removed. A server that speaks both eras serves them
//! in the handshake era only; in a stateless request they are methods the server does not
//! implement, so they are answered -32601 (Method not found; over Streamable HTTP the SDK
//! sends that with 404). Found by comparing with the official conformance suite, whose
//! `server-stateless` scenario expects exactly that, and checked by `mcpr conformance`
//! (`protocol.removed-methods-2026`).

use rmcp::ErrorData;
use rmcp::model::ErrorCode;

/// The removed requests the reference server would otherwise serve.
pub const REMOVED_2026: &[&str] = &[
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
];

/// Err(-32601) for a `method` of [`REMOVED_2026`] in a stateless (`modern`) request.
pub fn refuse_removed(modern: bool, method: &str) -> Result<(), ErrorData> {
    if modern && REMOVED_2026.contains(&method) {
        return Err(ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("Method not found: {method} (removed in 2026-07-28)"),
            None,
        ));
    }
    Ok(())
}

/// The largest request body read to find its id.
const BODY_LIMIT: usize = 1 << 20;

/// Over Streamable HTTP: a stateless request (`MCP-Protocol-Version` 2026-07-28 or later) for
/// a method of [`REMOVED_2026`] is answered 404 with -32601 before the SDK sees it. The SDK
/// still knows `resources/subscribe` and `resources/unsubscribe` and would first ask for their
/// `Mcp-Name` header (-32020), which a request for a method that no longer exists does not
/// owe.
pub async fn removed_over_http(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let (modern, method) = {
        let header = |name: &str| {
            req.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        (
            header("mcp-protocol-version").is_some_and(|v| v.as_str() >= "2026-07-28"),
            header("mcp-method").unwrap_or_default(),
        )
    };
    if req.method() != axum::http::Method::POST
        || !modern
        || !REMOVED_2026.contains(&method.as_str())
    {
        return next.run(req).await;
    }
    let body = axum::body::to_bytes(req.into_body(), BODY_LIMIT)
        .await
        .unwrap_or_default();
    let id = serde_json::from_slice::<serde_json::Value>(&body)
        .ok()
        .and_then(|v| v.get("id").cloned())
        .unwrap_or(serde_json::Value::Null);
    let answer = serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {
        "code": -32601, "message": format!("Method not found: {method} (removed in 2026-07-28)")}});
    axum::response::Response::builder()
        .status(404)
        .header("Content-Type", "application/json")
        .body(axum::body::Body::from(answer.to_string()))
        .unwrap_or_default()
}
