//! `--http HOST:PORT`: the reference server over Streamable HTTP at `/mcp`, with the
//! Origin check, optional required headers (401 with a Bearer challenge) and the methods
//! 2026-07-28 removed refused.

use std::sync::Arc;

use super::{Reference, era, origin};

/// Serves Streamable HTTP at `http://ADDR/mcp` (sessions for the handshake era, stateless
/// requests for 2026-07-28). The bound address is printed on stderr, so `:0` works.
/// Every `required` header (lower-case name, exact value) must be on every request, else
/// 401 with a Bearer challenge naming the protected-resource metadata. With `json_response`
/// (`--json-response`) a stateless (2026) request is answered with a JSON body instead of an
/// event stream when the handler sends nothing before its answer.
pub(crate) async fn serve_http(
    server: Reference,
    addr: &str,
    required: Vec<(String, String)>,
    json_response: bool,
) {
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    };
    let config = origin::validate(
        StreamableHttpServerConfig::default()
            .with_sse_keep_alive(None)
            .with_json_response(json_response),
        server.breaks(origin::NO_ORIGIN_CHECK),
    );
    let service = StreamableHttpService::new(
        // A new `Session` for each HTTP session; the rest of the state is the server's.
        move || {
            Ok(Reference {
                session: Arc::default(),
                ..server.clone()
            })
        },
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("mcpr-reference-server: cannot listen on {addr}: {e}");
            std::process::exit(1);
        }
    };
    let metadata = match listener.local_addr() {
        Ok(a) => format!("http://{a}/.well-known/oauth-protected-resource/mcp"),
        Err(_) => "/.well-known/oauth-protected-resource/mcp".into(),
    };
    let required = Arc::new(required);
    let router = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn(era::removed_over_http))
        .layer(
        axum::middleware::from_fn(
            move |req: axum::extract::Request, next: axum::middleware::Next| {
                let required = required.clone();
                let metadata = metadata.clone();
                async move {
                    let missing = required.iter().find(|(name, value)| {
                        req.headers()
                            .get(name.as_str())
                            .and_then(|v| v.to_str().ok())
                            != Some(value.as_str())
                    });
                    match missing {
                        None => next.run(req).await,
                        Some((name, _)) => {
                            let error = if req.headers().contains_key(name.as_str()) {
                                "invalid_token"
                            } else {
                                "invalid_request"
                            };
                            let challenge = format!(
                                "Bearer realm=\"mcpr-reference\", error=\"{error}\", error_description=\"header {name} is missing or wrong\", resource_metadata=\"{metadata}\""
                            );
                            axum::response::Response::builder()
                                .status(401)
                                .header("WWW-Authenticate", challenge)
                                .header("Content-Type", "text/plain")
                                .body(axum::body::Body::from("unauthorized"))
                                .unwrap_or_default()
                        }
                    }
                }
            },
        ),
    );
    match listener.local_addr() {
        Ok(a) => eprintln!("mcpr-reference-server: listening on http://{a}/mcp"),
        Err(e) => eprintln!("mcpr-reference-server: listening ({e})"),
    }
    if let Err(e) = axum::serve(listener, router).await {
        eprintln!("mcpr-reference-server: {e}");
        std::process::exit(1);
    }
}
