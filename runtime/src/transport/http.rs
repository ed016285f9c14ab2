//! The Streamable HTTP transport (client side): every client message is a POST; a request
//! is answered with one JSON object or an SSE stream; session ids and protocol headers for
//! the handshake era; `Mcp-Method` / `Mcp-Name` for 2026-07-28; an optional GET stream for
//! server-initiated messages; message size limits on bodies and events.
//!
//! The transport knows no session: what it reads goes to an [`HttpSink`].

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use serde_json::Value;
use tokio::task::AbortHandle;

use super::auth::{Credentials, HttpAuth, MAX_AUTH_ATTEMPTS, Refusal, Verdict};
pub use super::sse::{SseEvent, SseParser, SseTooLarge};
use crate::error::ErrorKind;
use crate::protocol::RpcError;

/// How to reach a server over HTTP.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// The MCP endpoint (`http://127.0.0.1:3001/mcp`).
    pub url: String,
    /// Extra headers sent with every request (`Authorization`, …).
    pub headers: BTreeMap<String, String>,
    /// Largest accepted message (JSON body or SSE event), in bytes.
    pub max_message_bytes: usize,
    /// What gives every request its credentials and handles refusals (OAuth), if anything.
    pub auth: Option<Arc<dyn HttpAuth>>,
}

impl HttpConfig {
    /// A configuration with no extra headers and a 16 MiB message limit.
    pub fn new(url: impl Into<String>) -> HttpConfig {
        HttpConfig {
            url: url.into(),
            headers: BTreeMap::new(),
            max_message_bytes: 16 * 1024 * 1024,
            auth: None,
        }
    }
}

/// Why a request got no answer over HTTP.
#[derive(Debug, Clone)]
pub enum HttpFailure {
    /// The server answered a JSON-RPC error in the body of a failed POST.
    Rpc(RpcError),
    /// The server answered an HTTP error status.
    Status {
        /// The status code.
        status: u16,
        /// The start of the body.
        body: String,
    },
    /// The connection failed.
    Io(String),
    /// The POST succeeded but neither its body nor its stream held the response.
    NoAnswer(String),
    /// A body or event over the size limit.
    TooLarge {
        /// The limit.
        limit: usize,
    },
    /// 401 (or 403): the server wants other credentials; `challenge` describes its
    /// `WWW-Authenticate` header(s).
    Unauthorized {
        /// The status code.
        status: u16,
        /// The challenges, described (`scheme Bearer, realm "mcp", …`), if the server sent any.
        challenge: Option<String>,
        /// The start of the body.
        body: String,
    },
    /// The authorization hook could not give the request credentials (an OAuth step
    /// failed): its failure.
    Authorization(Box<ErrorKind>),
    /// 404 for a request that carried a session id (handshake era): the session expired
    /// and the client must initialize again.
    SessionExpired {
        /// The session id the server no longer knows.
        session: String,
        /// The start of the body.
        body: String,
    },
}

/// Where the transport delivers what it reads.
pub trait HttpSink: Send + Sync + 'static {
    /// The text of a message read from a body or an SSE event, as received (the session
    /// parses it as it parses a stdout line, with the same limits).
    fn on_text(&self, text: String);
    /// A message (an SSE event) over the size limit, discarded.
    fn on_too_large(&self, limit: usize);
    /// A request that will get no answer (ignored when it was answered already).
    fn on_request_failed(&self, id: i64, failure: HttpFailure);
    /// A notification or response the server refused.
    fn on_post_rejected(&self, what: String, failure: HttpFailure);
    /// True while request `id` still waits for its response.
    fn is_pending(&self, id: i64) -> bool;
    /// A rule of the transport the server broke without keeping its answer from being
    /// read (a wrong `Content-Type`, an `Mcp-Session-Id` that changes): `what` the rule was
    /// broken on, `reason` the rule. Recorded, once per rule and session; nothing fails.
    fn on_slip(&self, what: String, reason: String) {
        let _ = (what, reason);
    }
}

/// What the transport needs to know about an outgoing message.
#[derive(Debug, Clone, Default)]
pub struct MessageInfo {
    /// The id, for requests.
    pub id: Option<i64>,
    /// The method, for requests and notifications.
    pub method: Option<String>,
    /// The `Mcp-Name` value (tool or prompt name, resource URI, task id), 2026 only.
    pub name: Option<String>,
    /// The `MCP-Protocol-Version` header value, if one is due.
    pub protocol_version: Option<String>,
    /// 2026-07-28 headers (`Mcp-Method`, `Mcp-Name`).
    pub modern: bool,
    /// Further headers for this message (2026 `Mcp-Param-*`).
    pub extra_headers: Vec<(String, String)>,
    /// The session id sent with the message (filled in by [`HttpWire::post`]).
    pub session_id: Option<String>,
}

/// A connection to one HTTP endpoint.
pub struct HttpWire {
    client: reqwest::Client,
    config: HttpConfig,
    session_id: Mutex<Option<String>>,
    sse_endpoint: Mutex<Option<String>>,
    in_flight: Mutex<HashMap<i64, AbortHandle>>,
    others: Mutex<Vec<AbortHandle>>,
    /// The transport rules already reported broken (each once: see [`HttpSink::on_slip`]).
    slipped: Mutex<Vec<&'static str>>,
}

impl std::fmt::Debug for HttpWire {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpWire")
            .field("url", &self.config.url)
            .finish()
    }
}

pub(crate) fn install_crypto() {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

impl HttpWire {
    /// Prepares a client for `config.url`.
    pub fn new(config: HttpConfig) -> Result<HttpWire, String> {
        install_crypto();
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(30))
            .build()
            .map_err(|e| format!("cannot build an HTTP client: {e}"))?;
        Ok(HttpWire {
            client,
            config,
            session_id: Mutex::new(None),
            sse_endpoint: Mutex::new(None),
            in_flight: Mutex::new(HashMap::new()),
            others: Mutex::new(Vec::new()),
            slipped: Mutex::new(Vec::new()),
        })
    }

    /// True once a legacy HTTP+SSE connection is established.
    pub fn is_sse(&self) -> bool {
        self.sse_endpoint
            .lock()
            .map(|e| e.is_some())
            .unwrap_or(false)
    }

    /// The session id the server assigned (`Mcp-Session-Id`), if any.
    pub fn session_id(&self) -> Option<String> {
        self.session_id.lock().ok().and_then(|s| s.clone())
    }

    /// Forgets the session id (it expired): the next `initialize` goes without one and
    /// the server's new id is taken. Streams of the old session are dropped.
    pub fn forget_session(&self) {
        if let Ok(mut s) = self.session_id.lock() {
            *s = None;
        }
        if let Ok(mut o) = self.others.lock() {
            for h in o.drain(..) {
                h.abort();
            }
        }
    }

    /// The URL a request of `method` goes to: the announced endpoint for a POST over
    /// HTTP+SSE, the configured URL otherwise.
    fn url_for(&self, method: &reqwest::Method) -> String {
        match (
            method,
            self.sse_endpoint.lock().ok().and_then(|e| e.clone()),
        ) {
            (&reqwest::Method::POST, Some(endpoint)) => endpoint,
            _ => self.config.url.clone(),
        }
    }

    fn base_at(
        &self,
        url: &str,
        method: reqwest::Method,
        info: &MessageInfo,
    ) -> reqwest::RequestBuilder {
        let mut req = self.client.request(method, url);
        for (k, v) in &self.config.headers {
            req = req.header(k, v);
        }
        if let Some(v) = &info.protocol_version {
            req = req.header("MCP-Protocol-Version", v);
        }
        for (k, v) in &info.extra_headers {
            req = req.header(k, v);
        }
        if !info.modern
            && let Some(id) = info.session_id.clone().or_else(|| self.session_id())
        {
            req = req.header("Mcp-Session-Id", id);
        }
        if info.modern {
            if let Some(m) = &info.method {
                req = req.header("Mcp-Method", m);
            }
            if let Some(n) = &info.name {
                req = req.header("Mcp-Name", header_value(n));
            }
        }
        req
    }

    /// Sends a request (`finish` adds what the request needs beyond the common headers; it
    /// runs again for each attempt) with the authorization hook's credentials. A 401, or a
    /// 403 with a challenge, goes to the hook, which may obtain new credentials: the same
    /// request is then sent again, at most [`MAX_AUTH_ATTEMPTS`] times. Without a hook the
    /// first response is the answer.
    async fn send(
        &self,
        method: reqwest::Method,
        info: &MessageInfo,
        finish: impl Fn(reqwest::RequestBuilder) -> reqwest::RequestBuilder,
    ) -> Result<reqwest::Response, HttpFailure> {
        let url = self.url_for(&method);
        let mut attempt = 0;
        loop {
            let mut req = finish(self.base_at(&url, method.clone(), info));
            let credentials = match &self.config.auth {
                Some(auth) => auth.credentials(method.as_str(), &url),
                None => Credentials::default(),
            };
            for (k, v) in &credentials.headers {
                req = req.header(k, v);
            }
            let resp = req
                .send()
                .await
                .map_err(|e| HttpFailure::Io(describe(&e)))?;
            let Some(auth) = &self.config.auth else {
                return Ok(resp);
            };
            let status = resp.status().as_u16();
            let header = |name: &str| -> Vec<String> {
                resp.headers()
                    .get_all(name)
                    .iter()
                    .filter_map(|v| v.to_str().ok())
                    .map(str::to_string)
                    .collect()
            };
            let www_authenticate = header("www-authenticate");
            let dpop_nonce = header("dpop-nonce").into_iter().next();
            if status != 401 && (status != 403 || www_authenticate.is_empty()) {
                auth.accepted(dpop_nonce.as_deref());
                return Ok(resp);
            }
            attempt += 1;
            if attempt > MAX_AUTH_ATTEMPTS {
                return Ok(resp);
            }
            let refusal = Refusal {
                status,
                method: method.as_str().to_string(),
                url: url.clone(),
                www_authenticate,
                dpop_nonce,
                generation: credentials.generation,
                attempt,
            };
            match auth.refused(refusal).await {
                Verdict::Retry => continue,
                Verdict::GiveUp(None) => return Ok(resp),
                Verdict::GiveUp(Some(kind)) => {
                    return Err(HttpFailure::Authorization(Box::new(kind)));
                }
            }
        }
    }

    /// POSTs one message; what comes back goes to `sink`. Returns at once.
    pub fn post(self: &Arc<Self>, sink: Arc<dyn HttpSink>, body: String, info: MessageInfo) {
        let mut info = info;
        if !info.modern {
            info.session_id = self.session_id();
        }
        let me = self.clone();
        let id = info.id;
        let task = tokio::spawn(async move {
            me.post_task(sink, body, info).await;
            if let Some(id) = id
                && let Ok(mut m) = me.in_flight.lock()
            {
                m.remove(&id);
            }
        });
        match id {
            Some(id) => {
                if let Ok(mut m) = self.in_flight.lock() {
                    m.insert(id, task.abort_handle());
                }
            }
            None => {
                if let Ok(mut o) = self.others.lock() {
                    o.retain(|h| !h.is_finished());
                    o.push(task.abort_handle());
                }
            }
        }
    }

    /// Drops the connection of an in-flight request (the 2026 way to cancel on HTTP).
    pub fn abort(&self, id: i64) {
        if let Some(h) = self.in_flight.lock().ok().and_then(|mut m| m.remove(&id)) {
            h.abort();
        }
    }

    async fn post_task(&self, sink: Arc<dyn HttpSink>, body: String, info: MessageInfo) {
        let what = info.method.clone().unwrap_or_else(|| "response".into());
        let fail = |f: HttpFailure| match info.id {
            Some(id) => sink.on_request_failed(id, f),
            None => sink.on_post_rejected(what.clone(), f),
        };
        let sent = self
            .send(reqwest::Method::POST, &info, |req| {
                req.header("Content-Type", "application/json")
                    .header("Accept", "application/json, text/event-stream")
                    .body(body.clone())
            })
            .await;
        let resp = match sent {
            Ok(r) => r,
            Err(f) => return fail(f),
        };
        // The server assigns the session with its answer to `initialize`, and only
        // there: a late answer to a message of an expired session must not bring its
        // old id back after the client forgot it.
        let sid = resp
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok());
        if let Some(sid) = sid
            && !info.modern
            && info.method.as_deref() == Some("initialize")
            && let Ok(mut s) = self.session_id.lock()
        {
            *s = Some(sid.to_string());
        } else if let Some(sid) = sid
            && let Some(ours) = info.session_id.as_deref()
            && sid != ours
        {
            self.slip(
                &sink,
                "session-id",
                &info,
                format!(
                    "the response carries Mcp-Session-Id {sid:?}, not the session's {ours:?}: the id is assigned once, with the answer to initialize, and stays the same for the session"
                ),
            );
        }
        let status = resp.status().as_u16();
        let content_type = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        if status == 200
            && info.id.is_some()
            && !content_type.contains("text/event-stream")
            && !content_type.contains("application/json")
        {
            self.slip(
                &sink,
                "content-type",
                &info,
                format!(
                    "the answer came with Content-Type {content_type:?}: an answer to a request is application/json or text/event-stream"
                ),
            );
        }
        let sse_mode = self
            .sse_endpoint
            .lock()
            .map(|e| e.is_some())
            .unwrap_or(false);
        if sse_mode && (200..300).contains(&status) {
            // Legacy HTTP+SSE: every answer comes on the GET stream.
            return;
        }
        if status == 202
            || (status == 200 && info.id.is_none() && !content_type.contains("text/event-stream"))
        {
            if info.id.is_some() {
                fail(HttpFailure::NoAnswer(format!(
                    "the server answered the request with status {status} and no body"
                )));
            }
            return;
        }
        if !(200..300).contains(&status) {
            let challenges: Vec<String> = resp
                .headers()
                .get_all("www-authenticate")
                .iter()
                .filter_map(|v| v.to_str().ok())
                .map(str::to_string)
                .collect();
            let body = read_capped(resp, 64 * 1024).await.unwrap_or_default();
            let text = String::from_utf8_lossy(&body).into_owned();
            let rpc = serde_json::from_str::<Value>(&text)
                .ok()
                .and_then(|v| v.get("error").and_then(|e| RpcError::from_value(e).ok()));
            let body: String = text.chars().take(500).collect();
            if status == 404
                && !info.modern
                && let Some(session) = info.session_id.clone()
            {
                return fail(HttpFailure::SessionExpired { session, body });
            }
            if status == 401 || (status == 403 && !challenges.is_empty()) {
                return fail(HttpFailure::Unauthorized {
                    status,
                    challenge: describe_challenges(&challenges),
                    body,
                });
            }
            return fail(match rpc {
                Some(e) => HttpFailure::Rpc(e),
                None => HttpFailure::Status { status, body },
            });
        }
        if content_type.contains("text/event-stream") {
            let end = self.read_sse(resp, &sink).await;
            if let Some(id) = info.id {
                self.resume(id, &sink, end, &info).await;
            }
        } else {
            match read_capped(resp, self.config.max_message_bytes).await {
                Ok(body) => {
                    let text = String::from_utf8_lossy(&body).into_owned();
                    if !text.trim().is_empty() {
                        deliver(&sink, text);
                    }
                }
                Err(Capped::TooLarge) => {
                    return fail(HttpFailure::TooLarge {
                        limit: self.config.max_message_bytes,
                    });
                }
                Err(Capped::Io(e)) => return fail(HttpFailure::Io(e)),
            }
        }
        if let Some(id) = info.id {
            sink.on_request_failed(
                id,
                HttpFailure::NoAnswer(format!(
                    "the {what} response body or stream ended without the response"
                )),
            );
        }
    }

    async fn read_sse(&self, resp: reqwest::Response, sink: &Arc<dyn HttpSink>) -> SseEnd {
        self.read_sse_events(resp, sink, None).await
    }

    /// Reads an event stream: `message` events go to the sink; the first `endpoint` event
    /// (legacy HTTP+SSE) goes to `endpoint`.
    async fn read_sse_events(
        &self,
        mut resp: reqwest::Response,
        sink: &Arc<dyn HttpSink>,
        mut endpoint: Option<tokio::sync::oneshot::Sender<String>>,
    ) -> SseEnd {
        let mut parser = SseParser::new(self.config.max_message_bytes);
        let end = |p: &SseParser| SseEnd {
            last_id: p.last_event_id.clone(),
            retry_ms: p.retry_ms,
        };
        loop {
            match resp.chunk().await {
                Ok(Some(bytes)) => match parser.feed(&bytes) {
                    Ok(events) => {
                        for e in events {
                            match e.event.as_str() {
                                "message" => deliver(sink, e.data),
                                "endpoint" => {
                                    if let Some(tx) = endpoint.take() {
                                        let _ = tx.send(e.data);
                                    }
                                }
                                _ => {}
                            }
                        }
                    }
                    Err(SseTooLarge) => {
                        // The same failure as an oversized line on stdio.
                        sink.on_too_large(self.config.max_message_bytes);
                        return end(&parser);
                    }
                },
                // A stream that ends or breaks is not an error by itself: a request whose
                // response did not come is resumed or reported by the caller.
                Ok(None) | Err(_) => return end(&parser),
            }
        }
    }

    /// SSE polling and resumability (2025-11-25, SEP-1699): when a request's stream ends
    /// before its response and the stream carried an event id, wait the announced `retry`
    /// and reconnect with GET and `Last-Event-ID`, up to five times, while the request is
    /// still pending.
    async fn resume(&self, id: i64, sink: &Arc<dyn HttpSink>, mut end: SseEnd, info: &MessageInfo) {
        for _ in 0..5 {
            if !sink.is_pending(id) {
                return;
            }
            let Some(last_id) = end.last_id.clone() else {
                return;
            };
            tokio::time::sleep(Duration::from_millis(
                end.retry_ms.unwrap_or(1000).min(30_000),
            ))
            .await;
            let get = MessageInfo {
                protocol_version: info.protocol_version.clone(),
                ..Default::default()
            };
            let sent = self
                .send(reqwest::Method::GET, &get, |req| {
                    req.header("Accept", "text/event-stream")
                        .header("Last-Event-ID", last_id.as_str())
                })
                .await;
            let Ok(resp) = sent else { return };
            if resp.status().as_u16() != 200 {
                return;
            }
            // The resumed stream may stay open after the response; read it until the
            // response has come or the stream ends.
            let reading = self.read_sse(resp, sink);
            tokio::pin!(reading);
            loop {
                tokio::select! {
                    e = &mut reading => {
                        end = SseEnd { last_id: e.last_id.or(end.last_id), retry_ms: e.retry_ms.or(end.retry_ms) };
                        break;
                    }
                    _ = tokio::time::sleep(Duration::from_millis(20)) => {
                        if !sink.is_pending(id) {
                            return;
                        }
                    }
                }
            }
        }
    }

    /// Opens a legacy HTTP+SSE connection (2024-11-05): GET the URL as an event stream and
    /// wait for its `endpoint` event; later POSTs go to that endpoint and every server
    /// message arrives on the stream. Returns the endpoint.
    pub async fn connect_sse(
        self: &Arc<Self>,
        sink: Arc<dyn HttpSink>,
        timeout: Duration,
    ) -> Result<String, HttpFailure> {
        let info = MessageInfo::default();
        let sent = self.send(reqwest::Method::GET, &info, |req| {
            req.header("Accept", "text/event-stream")
        });
        let resp = tokio::time::timeout(timeout, sent).await.map_err(|_| {
            HttpFailure::NoAnswer("the SSE endpoint did not answer in time".into())
        })??;
        let status = resp.status().as_u16();
        let content_type = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        if status != 200 || !content_type.contains("text/event-stream") {
            let challenges: Vec<String> = resp
                .headers()
                .get_all("www-authenticate")
                .iter()
                .filter_map(|v| v.to_str().ok())
                .map(str::to_string)
                .collect();
            let body = read_capped(resp, 64 * 1024).await.unwrap_or_default();
            if status == 401 || (status == 403 && !challenges.is_empty()) {
                return Err(HttpFailure::Unauthorized {
                    status,
                    challenge: describe_challenges(&challenges),
                    body: String::from_utf8_lossy(&body).chars().take(500).collect(),
                });
            }
            return Err(HttpFailure::Status {
                status,
                body: String::from_utf8_lossy(&body).chars().take(500).collect(),
            });
        }
        let (tx, rx) = tokio::sync::oneshot::channel();
        let me = self.clone();
        let task = tokio::spawn(async move { me.read_sse_events(resp, &sink, Some(tx)).await });
        if let Ok(mut o) = self.others.lock() {
            o.push(task.abort_handle());
        }
        let endpoint = match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(e)) => e,
            _ => {
                return Err(HttpFailure::NoAnswer(
                    "the SSE stream sent no endpoint event".into(),
                ));
            }
        };
        let resolved = reqwest::Url::parse(&self.config.url)
            .and_then(|base| base.join(endpoint.trim()))
            .map_err(|e| {
                HttpFailure::NoAnswer(format!("the endpoint event {endpoint:?} is not a URL: {e}"))
            })?
            .to_string();
        if let Ok(mut e) = self.sse_endpoint.lock() {
            *e = Some(resolved.clone());
        }
        Ok(resolved)
    }

    /// Opens the GET stream for server-initiated messages (handshake era). A 405 or any
    /// other refusal is fine: the server has no such stream.
    /// The returned receiver fires once the server has answered the GET (or refused it),
    /// so a caller can let the stream stand before it sends `initialized`.
    pub fn open_get_stream(
        self: &Arc<Self>,
        sink: Arc<dyn HttpSink>,
        protocol_version: Option<String>,
    ) -> tokio::sync::oneshot::Receiver<()> {
        let me = self.clone();
        let (ready, ready_rx) = tokio::sync::oneshot::channel();
        let task = tokio::spawn(async move {
            let info = MessageInfo {
                protocol_version,
                ..Default::default()
            };
            let resp = me
                .send(reqwest::Method::GET, &info, |req| {
                    req.header("Accept", "text/event-stream")
                })
                .await;
            let _ = ready.send(());
            if let Ok(resp) = resp
                && resp.status().as_u16() == 200
            {
                me.read_sse(resp, &sink).await;
            }
        });
        if let Ok(mut o) = self.others.lock() {
            o.push(task.abort_handle());
        }
        ready_rx
    }

    /// Ends the connection: aborts every stream and, when the server gave a session id,
    /// sends DELETE (a 405 is fine). Returns the DELETE status, if one was sent.
    pub async fn close(&self, protocol_version: Option<String>) -> Option<u16> {
        if let Ok(mut m) = self.in_flight.lock() {
            for (_, h) in m.drain() {
                h.abort();
            }
        }
        if let Ok(mut o) = self.others.lock() {
            for h in o.drain(..) {
                h.abort();
            }
        }
        self.session_id()?;
        let info = MessageInfo {
            protocol_version,
            ..Default::default()
        };
        self.send(reqwest::Method::DELETE, &info, |req| {
            req.timeout(Duration::from_secs(5))
        })
        .await
        .ok()
        .map(|r| r.status().as_u16())
    }

    /// Aborts every stream at once (for drops).
    pub fn abort_all(&self) {
        if let Ok(mut m) = self.in_flight.lock() {
            for (_, h) in m.drain() {
                h.abort();
            }
        }
        if let Ok(mut o) = self.others.lock() {
            for h in o.drain(..) {
                h.abort();
            }
        }
    }
}

fn deliver(sink: &Arc<dyn HttpSink>, text: String) {
    if text.trim().is_empty() {
        // SSE priming events (2025-11-25) and keep-alives carry no message.
        return;
    }
    sink.on_text(text);
}

impl HttpWire {
    /// Reports a broken transport rule to the session, the first time it is broken.
    fn slip(
        &self,
        sink: &Arc<dyn HttpSink>,
        rule: &'static str,
        info: &MessageInfo,
        reason: String,
    ) {
        let first = self.slipped.lock().is_ok_and(|mut s| {
            let new = !s.contains(&rule);
            if new {
                s.push(rule);
            }
            new
        });
        if first {
            let what = match (&info.method, info.id) {
                (Some(m), Some(id)) => format!("the HTTP response to {m} (id {id})"),
                (Some(m), None) => format!("the HTTP response to {m}"),
                _ => "an HTTP response".to_string(),
            };
            sink.on_slip(what, reason);
        }
    }
}

/// A reqwest error with every cause in its chain, `outer: inner: …`.
pub(crate) fn describe(e: &reqwest::Error) -> String {
    let mut s = e.to_string();
    let mut src = std::error::Error::source(e);
    while let Some(inner) = src {
        s.push_str(": ");
        s.push_str(&inner.to_string());
        src = inner.source();
    }
    s
}

enum Capped {
    TooLarge,
    Io(String),
}

async fn read_capped(mut resp: reqwest::Response, limit: usize) -> Result<Vec<u8>, Capped> {
    let mut out = Vec::new();
    loop {
        match resp.chunk().await {
            Ok(Some(b)) => {
                if out.len() + b.len() > limit {
                    return Err(Capped::TooLarge);
                }
                out.extend_from_slice(&b);
            }
            Ok(None) => return Ok(out),
            Err(e) => return Err(Capped::Io(describe(&e))),
        }
    }
}

/// Describes `WWW-Authenticate` challenges for a failure message: the scheme and the
/// parameters a user acts on (`realm`, `error`, `error_description`, `scope`,
/// `resource_metadata`, …), in the server's order; `None` when there is none.
pub fn describe_challenges(headers: &[String]) -> Option<String> {
    let described: Vec<String> = headers
        .iter()
        .flat_map(|h| parse_challenges(h))
        .map(|(scheme, params)| {
            let mut s = format!("scheme {scheme}");
            for (k, v) in params {
                s.push_str(&format!(", {k} {v:?}"));
            }
            s
        })
        .collect();
    (!described.is_empty()).then(|| described.join("; "))
}

/// Splits a `WWW-Authenticate` value into challenges: `(scheme, [(param, value)])`
/// (RFC 9110 §11.6.1: `auth-scheme [ token68 / #auth-param ]`, several challenges
/// separated by commas). A token68 (`Basic dXNlcg==`) is kept as the parameter `token68`.
pub fn parse_challenges(header: &str) -> Vec<(String, Vec<(String, String)>)> {
    // Comma-separated items, commas inside quoted strings kept.
    let mut items = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut escaped = false;
    for c in header.chars() {
        if escaped {
            cur.push(c);
            escaped = false;
            continue;
        }
        match c {
            '\\' if quoted => {
                cur.push(c);
                escaped = true;
            }
            '"' => {
                quoted = !quoted;
                cur.push(c);
            }
            ',' if !quoted => items.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    items.push(cur);
    let is_token = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c))
    };
    // `name=value` (a value never starts with `=`; `abc==` is a token68).
    let param = |s: &str| -> Option<(String, String)> {
        let (name, value) = s.split_once('=')?;
        let (name, value) = (name.trim(), value.trim());
        if !is_token(name) || value.is_empty() || value.starts_with('=') {
            return None;
        }
        let value = match value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
            Some(inner) => {
                let mut out = String::new();
                let mut esc = false;
                for c in inner.chars() {
                    if esc || c != '\\' {
                        out.push(c);
                        esc = false;
                    } else {
                        esc = true;
                    }
                }
                out
            }
            None => value.to_string(),
        };
        Some((name.to_ascii_lowercase(), value))
    };
    let mut out: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for item in items {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        if let Some(p) = param(item)
            && let Some(last) = out.last_mut()
        {
            last.1.push(p);
            continue;
        }
        let (scheme, rest) = match item.split_once([' ', '\t']) {
            Some((s, r)) => (s, r.trim()),
            None => (item, ""),
        };
        let mut params = Vec::new();
        if !rest.is_empty() {
            params.push(param(rest).unwrap_or_else(|| ("token68".into(), rest.to_string())));
        }
        out.push((scheme.to_string(), params));
    }
    out
}

/// A header-safe value: as is when it is visible ASCII without leading or trailing space,
/// else `=?base64?…?=` (2026-07-28 rules).
pub fn header_value(v: &str) -> String {
    let looks_encoded = v.starts_with("=?") && v.ends_with("?=");
    let safe = !v.is_empty()
        && v.bytes().all(|b| (0x20..0x7f).contains(&b))
        && !v.starts_with(' ')
        && !v.ends_with(' ')
        && !looks_encoded;
    if safe {
        v.to_string()
    } else {
        use base64::Engine as _;
        format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode(v.as_bytes())
        )
    }
}

/// Where an event stream stopped: what a reconnection needs.
#[derive(Debug, Clone, Default)]
struct SseEnd {
    last_id: Option<String>,
    retry_ms: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn www_authenticate_challenges() {
        let h = r#"Bearer realm="mcp, inc", error="invalid_token", error_description="the token \"x\" expired", resource_metadata="https://a.example/.well-known/oauth-protected-resource/mcp", Basic dXNlcjpwdw=="#;
        let c = parse_challenges(h);
        assert_eq!(c.len(), 2, "{c:?}");
        assert_eq!(c[0].0, "Bearer");
        assert_eq!(
            c[0].1,
            vec![
                ("realm".to_string(), "mcp, inc".to_string()),
                ("error".to_string(), "invalid_token".to_string()),
                (
                    "error_description".to_string(),
                    "the token \"x\" expired".to_string()
                ),
                (
                    "resource_metadata".to_string(),
                    "https://a.example/.well-known/oauth-protected-resource/mcp".to_string()
                ),
            ]
        );
        assert_eq!(
            c[1],
            (
                "Basic".to_string(),
                vec![("token68".to_string(), "dXNlcjpwdw==".to_string())]
            )
        );
        assert_eq!(
            describe_challenges(&["Bearer scope=read".into(), "Negotiate".into()]).unwrap(),
            "scheme Bearer, scope \"read\"; scheme Negotiate"
        );
        assert_eq!(describe_challenges(&[]), None);
    }

    #[test]
    fn header_values() {
        assert_eq!(header_value("get_weather"), "get_weather");
        assert_eq!(header_value("héllo"), "=?base64?aMOpbGxv?=");
        assert_eq!(header_value(" x"), "=?base64?IHg=?=");
    }
}
