//! One exchange through the HTTP proxy: the client's request goes to the upstream server
//! with its method, headers and body as sent (less those of one connection), and the
//! answer comes back with its status, headers and body as they arrive, an event stream
//! chunk by chunk. On the MCP endpoint the tape is fed on the way: the request's messages
//! once the upstream server has answered it (so a refused request is not a step), then the
//! messages of the JSON answer or of each event. Requests elsewhere (OAuth metadata, …)
//! pass through unrecorded.

use std::sync::{Arc, Mutex};

use axum::body::{Body, HttpBody};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::Response;
use serde_json::Value;

use super::headers::{forwarded_request_header, forwarded_response_header};
use super::http::{ExchangeGuard, MAX_KEPT, Proxy, Shared};
use super::tap::{Sink, Tap};
use crate::transport::http::SseParser;

/// Serves one request of the client.
pub(super) async fn exchange(State(proxy): State<Arc<Proxy>>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let shared = &proxy.shared;
    let recorded = parts.uri.path() == proxy.path;
    let method = parts.method.clone();
    let session = header_text(&parts.headers, "mcp-session-id");
    // Answers are paired with requests by id within a scope: the session, or, for a client
    // without one (2026-07-28), this exchange alone — such clients reuse ids across
    // requests in flight at once, and a POST's answers come on its own response.
    let scope = session.clone().unwrap_or_else(|| shared.exchange_scope());
    if recorded {
        let secrets = match shared.headers.lock() {
            Ok(mut seen) => seen.observe(&parts.headers),
            Err(_) => Vec::new(),
        };
        shared.learn(secrets);
    }
    let guard = (recorded && method != Method::GET).then(|| shared.exchange());
    let mut headers = HeaderMap::new();
    for (name, value) in &parts.headers {
        if forwarded_request_header(name.as_str()) {
            headers.append(name.clone(), value.clone());
        }
    }
    // A request without a body has nothing to record (and nothing to wait for).
    let kept = Arc::new(Mutex::new(if body.is_end_stream() {
        Kept::Done(Vec::new())
    } else {
        Kept::Pending
    }));
    let mut upstream = proxy
        .client
        .request(
            method.clone(),
            upstream_url(&proxy.upstream, &parts.uri, recorded),
        )
        .headers(headers);
    if !body.is_end_stream() {
        let sink = (recorded && method == Method::POST).then(|| {
            Box::new(KeepRequest {
                kept: kept.clone(),
                bytes: Keep::expecting(body.size_hint().exact()),
            }) as Box<dyn Sink>
        });
        upstream = upstream.body(reqwest::Body::wrap(Tap::new(body, sink)));
    }
    let answer = match upstream.send().await {
        Ok(a) => a,
        Err(e) => return bad_gateway(shared, &method, &e),
    };
    let status = answer.status();
    let content_type = header_text(answer.headers(), "content-type")
        .unwrap_or_default()
        .to_ascii_lowercase();
    let json = content_type.starts_with("application/json");
    let length = answer.content_length();
    let sse = content_type.starts_with("text/event-stream");
    let mut sink = None;
    if recorded {
        if let Some(id) = header_text(answer.headers(), "mcp-session-id") {
            shared.session_opened(&id);
        }
        if method == Method::POST {
            let request = std::mem::replace(&mut *lock(&kept), Kept::Pending);
            record_request(shared, &scope, request, status, json);
        }
        if method == Method::DELETE
            && status.is_success()
            && let Some(session) = &session
        {
            shared.session_ended(session);
        }
        let kind = if sse && method != Method::DELETE {
            AnswerKind::Events(SseParser::new(MAX_KEPT))
        } else if json && method == Method::POST {
            AnswerKind::Json(Keep::expecting(length))
        } else {
            AnswerKind::Other
        };
        sink = Some(Box::new(Answer {
            shared: shared.clone(),
            scope,
            kind,
            _guard: guard,
        }) as Box<dyn Sink>);
    }
    let answer: axum::http::Response<reqwest::Body> = answer.into();
    let (head, body) = answer.into_parts();
    let mut out = Response::new(Body::new(Tap::new(body, sink)));
    *out.status_mut() = head.status;
    for (name, value) in &head.headers {
        if forwarded_response_header(name.as_str()) {
            out.headers_mut().append(name.clone(), value.clone());
        }
    }
    out
}

/// Where a request goes: the MCP endpoint to the upstream URL (the client's query added
/// to its own), any other path to the same path of the upstream server.
fn upstream_url(upstream: &reqwest::Url, uri: &Uri, endpoint: bool) -> reqwest::Url {
    let mut url = upstream.clone();
    if endpoint {
        if let Some(q) = uri.query().filter(|q| !q.is_empty()) {
            let joined = match url.query().filter(|q| !q.is_empty()) {
                Some(own) => format!("{own}&{q}"),
                None => q.to_string(),
            };
            url.set_query(Some(&joined));
        }
    } else {
        url.set_path(uri.path());
        url.set_query(uri.query());
    }
    url
}

/// The 502 the client gets when the upstream server cannot be reached.
fn bad_gateway(shared: &Shared, method: &Method, e: &reqwest::Error) -> Response {
    let reason = shared.redact(&error_text(e));
    shared.note(&format!(
        "a {method} request got no answer from the upstream server ({reason}); the client was answered 502"
    ));
    let mut out = Response::new(Body::from(format!(
        "mcpr record: the upstream server did not answer: {reason}\n"
    )));
    *out.status_mut() = StatusCode::BAD_GATEWAY;
    out.headers_mut().insert(
        axum::http::header::CONTENT_TYPE,
        axum::http::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    out
}

/// The error's text without its URL (which may hold credentials).
fn error_text(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    if let Some(url) = e.url() {
        text = text.replace(url.as_str(), "the upstream URL");
    }
    let mut src = std::error::Error::source(e);
    while let Some(inner) = src {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        src = inner.source();
    }
    text
}

/// The request's messages go on the tape when the upstream server took them: a 2xx
/// answer, or a JSON body (a JSON-RPC error with a 4xx status). A refused request (401,
/// 404 of an expired session, …) is noted instead.
fn record_request(shared: &Shared, scope: &str, request: Kept, status: StatusCode, json: bool) {
    match request {
        Kept::Done(bytes) if bytes.is_empty() => {}
        Kept::Done(bytes) => {
            if status.is_success() || json {
                lock(&shared.tape).from_client_in(scope, &bytes);
            } else {
                let method = serde_json::from_slice::<Value>(&bytes)
                    .ok()
                    .and_then(|v| v.get("method").and_then(Value::as_str).map(str::to_string))
                    .unwrap_or_else(|| "a message".into());
                shared.note(&format!(
                    "the upstream server answered HTTP {} to {method}; it is not recorded",
                    status.as_u16()
                ));
            }
        }
        Kept::TooLarge => shared.note(&format!(
            "a request of more than {} MiB was passed on but not recorded",
            MAX_KEPT >> 20
        )),
        Kept::Pending | Kept::Cut => shared.note(
            "the upstream server answered a request before reading it whole; it is not recorded",
        ),
    }
}

fn header_text(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A request body as kept for the tape.
enum Kept {
    /// Not passed on whole yet.
    Pending,
    /// Passed on whole.
    Done(Vec<u8>),
    /// Passed on, but longer than [`MAX_KEPT`].
    TooLarge,
    /// Cut before its end.
    Cut,
}

/// Keeps a request body (up to [`MAX_KEPT`]) for [`record_request`].
struct KeepRequest {
    kept: Arc<Mutex<Kept>>,
    bytes: Keep,
}

impl Sink for KeepRequest {
    fn chunk(&mut self, bytes: &[u8]) {
        self.bytes.push(bytes);
    }

    fn end(&mut self, complete: bool) {
        *lock(&self.kept) = match (complete, self.bytes.over) {
            (false, _) => Kept::Cut,
            (true, true) => Kept::TooLarge,
            (true, false) => Kept::Done(std::mem::take(&mut self.bytes.bytes)),
        };
    }
}

/// The bytes of one message, kept while they stay within [`MAX_KEPT`].
struct Keep {
    bytes: Vec<u8>,
    /// Past the limit: nothing is kept any more.
    over: bool,
}

impl Keep {
    /// For a body of `length` bytes, when it is known: one larger than the limit is not
    /// kept at all, a smaller one gets its room at once.
    fn expecting(length: Option<u64>) -> Keep {
        match length {
            Some(n) if n > MAX_KEPT as u64 => Keep {
                bytes: Vec::new(),
                over: true,
            },
            Some(n) => Keep {
                bytes: Vec::with_capacity(n as usize),
                over: false,
            },
            None => Keep {
                bytes: Vec::new(),
                over: false,
            },
        }
    }

    /// Appends `bytes` while the total stays within [`MAX_KEPT`]; past it, drops what was
    /// kept and remembers it was too large.
    fn push(&mut self, bytes: &[u8]) {
        if self.over {
            return;
        }
        if self.bytes.len() + bytes.len() > MAX_KEPT {
            self.over = true;
            self.bytes = Vec::new();
        } else {
            self.bytes.extend_from_slice(bytes);
        }
    }
}

/// How an answer is read for the tape.
enum AnswerKind {
    /// One JSON body, read at its end.
    Json(Keep),
    /// An event stream: each event's data as it completes.
    Events(SseParser),
    /// Nothing to read (an empty 202, a DELETE's answer).
    Other,
}

/// Feeds the tape with the answer of an exchange on the MCP endpoint, and holds the
/// exchange in flight until its answer is passed on whole.
struct Answer {
    shared: Arc<Shared>,
    scope: String,
    kind: AnswerKind,
    _guard: Option<ExchangeGuard>,
}

impl Sink for Answer {
    fn chunk(&mut self, bytes: &[u8]) {
        match &mut self.kind {
            AnswerKind::Json(kept) => kept.push(bytes),
            AnswerKind::Events(parser) => {
                let (events, dropped) = parser.feed_lossy(bytes);
                if dropped > 0 {
                    self.shared.note(&format!(
                        "an event of more than {} MiB was passed on but not recorded",
                        MAX_KEPT >> 20
                    ));
                }
                let data: Vec<String> = events
                    .into_iter()
                    .filter(|e| e.event == "message" && !e.data.trim().is_empty())
                    .map(|e| e.data)
                    .collect();
                if !data.is_empty() {
                    let mut tape = lock(&self.shared.tape);
                    for d in data {
                        tape.from_server_in(&self.scope, d.as_bytes());
                    }
                }
            }
            AnswerKind::Other => {}
        }
    }

    fn end(&mut self, complete: bool) {
        if let AnswerKind::Json(Keep { bytes, over }) = &mut self.kind {
            if *over {
                self.shared.note(&format!(
                    "an answer of more than {} MiB was passed on but not recorded",
                    MAX_KEPT >> 20
                ));
            } else if complete && !bytes.is_empty() {
                lock(&self.shared.tape).from_server_in(&self.scope, bytes);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_endpoint_goes_to_the_upstream_url_and_other_paths_to_its_origin() {
        let up = reqwest::Url::parse("https://mcp.example.com/v1/mcp?tenant=a").unwrap();
        let at = |uri: &str, endpoint| {
            upstream_url(&up, &uri.parse::<Uri>().unwrap(), endpoint).to_string()
        };
        assert_eq!(
            at("/v1/mcp", true),
            "https://mcp.example.com/v1/mcp?tenant=a"
        );
        assert_eq!(
            at("/v1/mcp?x=1", true),
            "https://mcp.example.com/v1/mcp?tenant=a&x=1"
        );
        assert_eq!(
            at("/.well-known/oauth-protected-resource/v1/mcp", false),
            "https://mcp.example.com/.well-known/oauth-protected-resource/v1/mcp"
        );
        assert_eq!(at("/other?q=2", false), "https://mcp.example.com/other?q=2");
    }

    #[test]
    fn a_message_over_the_limit_is_not_kept() {
        let mut k = Keep::expecting(None);
        k.push(b"{}");
        assert_eq!((k.bytes.as_slice(), k.over), (&b"{}"[..], false));
        k.push(&vec![b' '; MAX_KEPT]);
        assert!(k.over && k.bytes.is_empty() && k.bytes.capacity() == 0);
        k.push(b"more");
        assert!(k.bytes.is_empty());
        let big = Keep::expecting(Some(MAX_KEPT as u64 + 1));
        assert!(big.over && big.bytes.capacity() == 0);
    }
}
