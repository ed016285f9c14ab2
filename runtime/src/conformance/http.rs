//! The Streamable HTTP transport's own checks, which no flow can express because they are
//! about HTTP rather than JSON-RPC: Origin validation, the session header and its 400/404,
//! the `MCP-Protocol-Version` header, the 2026 `Mcp-Method` / `Mcp-Name` headers, the GET
//! stream or its 405, JSON or SSE answers and 202 for notifications. Each check sends raw
//! requests with reqwest (the client of [`crate::transport::http`]) and looks at the
//! status, the headers and the body; every session it opens it ends again.

use std::time::Duration;

use reqwest::Method;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap};
use serde_json::{Value, json};

use super::{CheckResult, Verdict};
use crate::protocol::{Era, version::era_of};
use crate::transport::http::SseParser;

/// The `--suite` name of these checks (not a flow library).
pub const SUITE: &str = "http";

/// Every check: id, name, what it checks, spec section, the era it applies to (`None`:
/// both).
pub const CHECKS: &[(&str, &str, &str, &str, Option<Era>)] = &[
    (
        "http.origin",
        "A foreign Origin is refused",
        "A request whose Origin header names a foreign site is refused with 403 Forbidden (DNS rebinding protection).",
        "basic/transports#security-warning",
        None,
    ),
    (
        "http.post-response",
        "A request is answered with JSON or SSE",
        "A POSTed request (Accept: application/json, text/event-stream) is answered 200 with one JSON response or an SSE stream carrying it.",
        "basic/transports#sending-messages-to-the-server",
        None,
    ),
    (
        "http.notification-accepted",
        "A notification is answered 202",
        "A POSTed notification is answered 202 Accepted with no body.",
        "basic/transports#sending-messages-to-the-server",
        None,
    ),
    (
        "http.protocol-version-header",
        "An unsupported MCP-Protocol-Version is 400",
        "A request whose MCP-Protocol-Version header names a version the server does not support is answered 400 Bad Request.",
        "basic/transports#protocol-version-header",
        None,
    ),
    (
        "http.get-stream",
        "GET opens an SSE stream or is 405",
        "GET with Accept: text/event-stream opens an SSE stream or is answered 405 Method Not Allowed (2026-07-28: no GET stream, 405).",
        "basic/transports#listening-for-messages-from-the-server",
        None,
    ),
    (
        "http.session-id",
        "The session id is visible ASCII",
        "The Mcp-Session-Id the server assigns with the initialize result holds visible ASCII only (0x21-0x7E); a server without sessions is INFO.",
        "basic/transports#session-management",
        Some(Era::Legacy),
    ),
    (
        "http.session-required",
        "A request without the session id is 400",
        "Once a session id was assigned, a request without Mcp-Session-Id is answered 400 Bad Request.",
        "basic/transports#session-management",
        Some(Era::Legacy),
    ),
    (
        "http.session-unknown",
        "An unknown session id is 404",
        "A request with a session id the server never assigned is answered 404 Not Found.",
        "basic/transports#session-management",
        Some(Era::Legacy),
    ),
    (
        "http.session-deleted",
        "A deleted session is 404",
        "DELETE with the session id ends the session (or is 405 when clients may not end it); a request with the ended id is then 404 Not Found.",
        "basic/transports#session-management",
        Some(Era::Legacy),
    ),
    (
        "http.mcp-method-header",
        "A missing or wrong Mcp-Method is 400",
        "A request without the Mcp-Method header, or with one that differs from the body's method, is answered 400 Bad Request (-32020).",
        "basic/transports#standard-request-headers",
        Some(Era::Modern),
    ),
    (
        "http.mcp-name-header",
        "A missing or wrong Mcp-Name is 400",
        "A tools/call without the Mcp-Name header, or with one that differs from params.name, is answered 400 Bad Request (-32020).",
        "basic/transports#standard-request-headers",
        Some(Era::Modern),
    ),
];

/// The ids of every check.
pub fn ids() -> Vec<&'static str> {
    CHECKS.iter().map(|c| c.0).collect()
}

/// The foreign origin of the Origin check.
const FOREIGN_ORIGIN: &str = "http://mcpr-conformance.invalid";
/// A session id no server assigns.
const UNKNOWN_SESSION: &str = "mcpr-conformance-unknown-session";
/// A protocol version no server supports.
const BOGUS_VERSION: &str = "1999-01-01";
/// The most bytes of a body read.
const BODY_LIMIT: usize = 1 << 20;

/// What came back for one request.
#[derive(Debug, Default)]
struct Reply {
    status: u16,
    content_type: String,
    session: Option<String>,
    /// The JSON-RPC response with the request's id (from the JSON body or an SSE event).
    message: Option<Value>,
    /// The body's start, for the details.
    text: String,
}

impl Reply {
    fn error_code(&self) -> Option<i64> {
        self.message.as_ref()?.pointer("/error/code")?.as_i64()
    }

    fn shown(&self) -> String {
        let mut s = format!("HTTP {}", self.status);
        if !self.content_type.is_empty() {
            s.push_str(&format!(" ({})", self.content_type));
        }
        let flat = self.text.split_whitespace().collect::<Vec<_>>().join(" ");
        let body: String = flat.chars().take(160).collect();
        if !body.is_empty() {
            s.push_str(&format!(": {body}"));
        }
        s
    }
}

/// One exchange partner: the endpoint, the version under test, the deadline.
struct Probe {
    client: reqwest::Client,
    url: String,
    version: String,
    timeout: Duration,
}

impl Probe {
    /// Sends `method` with `headers` and `body`; reads the answer up to the response with
    /// `id` (or the end of the body). Headers with an empty value are left out.
    async fn send(
        &self,
        method: Method,
        headers: &[(&str, String)],
        body: Option<&Value>,
    ) -> Result<Reply, String> {
        let mut req = self.client.request(method, &self.url);
        for (k, v) in headers.iter().filter(|(_, v)| !v.is_empty()) {
            req = req.header(*k, v);
        }
        let id = body.and_then(|b| b.get("id")).cloned();
        if let Some(b) = body {
            req = req
                .header(CONTENT_TYPE, "application/json")
                .body(b.to_string());
        }
        let read = async {
            let resp = req
                .send()
                .await
                .map_err(|e| crate::transport::http::describe(&e))?;
            read_reply(resp, id.as_ref()).await
        };
        match tokio::time::timeout(self.timeout, read).await {
            Ok(r) => r,
            Err(_) => Err(format!("no answer within {} ms", self.timeout.as_millis())),
        }
    }

    /// POSTs `body` with the Accept header of a client and the era's headers.
    async fn post(&self, body: &Value, extra: &[(&str, String)]) -> Result<Reply, String> {
        let mut headers = vec![(
            ACCEPT.as_str(),
            "application/json, text/event-stream".into(),
        )];
        headers.extend(extra.iter().cloned());
        self.send(Method::POST, &headers, Some(body)).await
    }

    /// Opens a GET stream: only the status and the content type are read.
    async fn get(&self, extra: &[(&str, String)]) -> Result<Reply, String> {
        let mut req = self
            .client
            .get(&self.url)
            .header(ACCEPT, "text/event-stream");
        for (k, v) in extra.iter().filter(|(_, v)| !v.is_empty()) {
            req = req.header(*k, v);
        }
        match tokio::time::timeout(self.timeout, req.send()).await {
            Ok(Ok(resp)) => Ok(Reply {
                status: resp.status().as_u16(),
                content_type: header(resp.headers(), "content-type"),
                ..Reply::default()
            }),
            Ok(Err(e)) => Err(crate::transport::http::describe(&e)),
            Err(_) => Err(format!("no answer within {} ms", self.timeout.as_millis())),
        }
    }

    /// The headers of a request in the legacy session `session`.
    fn legacy_headers(&self, session: Option<&str>) -> Vec<(&'static str, String)> {
        let mut h = Vec::new();
        if self.version.as_str() >= "2025-06-18" {
            h.push(("MCP-Protocol-Version", self.version.clone()));
        }
        h.push(("Mcp-Session-Id", session.unwrap_or_default().to_string()));
        h
    }

    /// A 2026 request: the `_meta` envelope in `params`, the standard headers.
    fn modern(
        &self,
        id: i64,
        method: &str,
        mut params: Value,
        version: &str,
    ) -> (Value, Vec<(&'static str, String)>) {
        let meta = json!({
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": client_info(),
        });
        if let Some(p) = params.as_object_mut() {
            p.insert("_meta".into(), meta);
        }
        let mut headers = vec![
            ("MCP-Protocol-Version", version.to_string()),
            ("Mcp-Method", method.to_string()),
        ];
        let name = match method {
            "tools/call" | "prompts/get" => params.get("name"),
            "resources/read" => params.get("uri"),
            _ => None,
        };
        if let Some(n) = name.and_then(Value::as_str) {
            headers.push(("Mcp-Name", n.to_string()));
        }
        let mut body = json!({"jsonrpc": "2.0", "method": method, "params": params});
        if id >= 0 {
            body["id"] = json!(id);
        }
        (body, headers)
    }

    fn initialize(&self, id: i64) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
            "protocolVersion": self.version, "capabilities": {}, "clientInfo": client_info()}})
    }

    /// Ends a legacy session (best effort).
    async fn end(&self, session: &str) {
        let _ = self
            .send(Method::DELETE, &self.legacy_headers(Some(session)), None)
            .await;
    }
}

fn client_info() -> Value {
    json!({"name": "mcpr-conformance", "version": env!("CARGO_PKG_VERSION")})
}

fn header(headers: &HeaderMap, name: &str) -> String {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string()
}

/// Reads a response: a JSON body whole, an SSE stream up to the event answering `id`.
async fn read_reply(mut resp: reqwest::Response, id: Option<&Value>) -> Result<Reply, String> {
    let mut reply = Reply {
        status: resp.status().as_u16(),
        content_type: header(resp.headers(), "content-type"),
        session: resp
            .headers()
            .get("mcp-session-id")
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned()),
        ..Reply::default()
    };
    let sse = reply.content_type.starts_with("text/event-stream");
    let mut parser = SseParser::new(BODY_LIMIT);
    let mut body = Vec::new();
    loop {
        let chunk = match resp.chunk().await {
            Ok(Some(c)) => c,
            Ok(None) => break,
            Err(e) => return Err(crate::transport::http::describe(&e)),
        };
        if body.len() < BODY_LIMIT {
            body.extend_from_slice(&chunk);
        }
        if !sse {
            continue;
        }
        let events = parser
            .feed(&chunk)
            .map_err(|_| "an SSE event passed 1 MiB".to_string())?;
        for e in events {
            let Ok(v) = serde_json::from_str::<Value>(&e.data) else {
                continue;
            };
            if id.is_some() && v.get("id") == id && v.get("method").is_none() {
                reply.message = Some(v);
            }
        }
        if reply.message.is_some() {
            break;
        }
    }
    reply.text = String::from_utf8_lossy(&body).into_owned();
    if !sse && reply.content_type.starts_with("application/json") {
        reply.message = serde_json::from_slice::<Value>(&body)
            .ok()
            .filter(|v| id.is_some() && v.get("id") == id);
    }
    Ok(reply)
}

/// The verdicts found so far, keyed by check id.
struct Found {
    version: String,
    out: Vec<CheckResult>,
}

impl Found {
    fn put(&mut self, check: &str, verdict: Verdict, detail: Option<String>) {
        let Some(c) = CHECKS.iter().find(|c| c.0 == check) else {
            return;
        };
        self.out.push(CheckResult {
            check: c.0.into(),
            library: SUITE.into(),
            flow: c.1.into(),
            checks: c.2.into(),
            version: self.version.clone(),
            verdict,
            spec: vec![c.3.into()],
            detail,
            expected: false,
        });
    }

    fn ok(&mut self, check: &str) {
        self.put(check, Verdict::Success, None);
    }

    fn fail(&mut self, check: &str, why: String) {
        self.put(check, Verdict::Failure, Some(why));
    }

    fn warn(&mut self, check: &str, why: String) {
        self.put(check, Verdict::Warning, Some(why));
    }

    fn info(&mut self, check: &str, why: &str) {
        self.put(check, Verdict::Info, Some(why.into()));
    }

    /// Every check of the era not judged yet fails (or is INFO) with `why`.
    fn rest(&mut self, era: Era, verdict: Verdict, why: &str) {
        let done: Vec<String> = self.out.iter().map(|c| c.check.clone()).collect();
        for c in CHECKS {
            if c.4.is_none_or(|e| e == era) && !done.iter().any(|d| d == c.0) {
                self.put(c.0, verdict, Some(why.into()));
            }
        }
    }
}

/// Expects `want` for a refusal: SUCCESS on `want`; anything else is a FAILURE, or a
/// WARNING when the rule is a `should` (`should`).
fn expect_status(
    found: &mut Found,
    check: &str,
    what: &str,
    want: u16,
    should: bool,
    got: Result<Reply, String>,
) {
    match got {
        Err(e) => found.fail(check, format!("{what}: {e}")),
        Ok(r) if r.status == want => found.ok(check),
        Ok(r) => {
            let why = format!("{what} was answered {}, not {want}", r.shown());
            if should {
                found.warn(check, why)
            } else {
                found.fail(check, why)
            }
        }
    }
}

/// Runs every HTTP check of `version` against `url`.
pub async fn checks(url: &str, version: &str, timeout: Duration) -> Vec<CheckResult> {
    crate::transport::http::install_crypto();
    let mut found = Found {
        version: version.into(),
        out: Vec::new(),
    };
    let era = era_of(version).unwrap_or(Era::Legacy);
    if version < "2025-03-26" {
        found.rest(
            era,
            Verdict::Info,
            "Streamable HTTP starts with 2025-03-26 (this version has HTTP+SSE)",
        );
        return found.out;
    }
    let client = match reqwest::Client::builder().connect_timeout(timeout).build() {
        Ok(c) => c,
        Err(e) => {
            found.rest(
                era,
                Verdict::Failure,
                &format!("cannot build an HTTP client: {e}"),
            );
            return found.out;
        }
    };
    let probe = Probe {
        client,
        url: url.into(),
        version: version.into(),
        timeout,
    };
    origin(&probe, era, &mut found).await;
    match era {
        Era::Legacy => legacy(&probe, &mut found).await,
        Era::Modern => modern(&probe, &mut found).await,
    }
    // In the order of CHECKS.
    found
        .out
        .sort_by_key(|c| CHECKS.iter().position(|k| k.0 == c.check));
    found.out
}

/// The era's first request with a foreign Origin.
async fn origin(probe: &Probe, era: Era, found: &mut Found) {
    let foreign = ("Origin", FOREIGN_ORIGIN.to_string());
    let got = match era {
        Era::Legacy => probe.post(&probe.initialize(1), &[foreign]).await,
        Era::Modern => {
            let (body, mut h) = probe.modern(1, "server/discover", json!({}), &probe.version);
            h.push(foreign);
            probe.post(&body, &h).await
        }
    };
    const CHECK: &str = "http.origin";
    const WHAT: &str = "a request with Origin: http://mcpr-conformance.invalid";
    match got {
        Err(e) => found.fail(CHECK, format!("{WHAT}: {e}")),
        Ok(r) if r.status == 403 => found.ok(CHECK),
        // Before 2025-11-25 the status was not named: any refusal validates.
        Ok(r) if (400..500).contains(&r.status) && probe.version.as_str() < "2025-11-25" => {
            found.ok(CHECK)
        }
        Ok(r) if (400..500).contains(&r.status) => found.warn(
            CHECK,
            format!("{WHAT} was refused, but with {} instead of 403", r.shown()),
        ),
        Ok(r) => {
            if let Some(s) = &r.session {
                probe.end(s).await;
            }
            found.fail(
                CHECK,
                format!(
                    "{WHAT} was served ({}): the server does not validate Origin",
                    r.shown()
                ),
            )
        }
    }
}

/// The checks of a session: initialize, then each rule, then DELETE.
async fn legacy(probe: &Probe, found: &mut Found) {
    let init = match probe.post(&probe.initialize(1), &[]).await {
        Ok(r)
            if r.status == 200
                && r.message
                    .as_ref()
                    .is_some_and(|m| m.get("result").is_some()) =>
        {
            r
        }
        Ok(r) => {
            let why = format!("initialize was answered {}", r.shown());
            found.rest(Era::Legacy, Verdict::Failure, &why);
            return;
        }
        Err(e) => {
            found.rest(Era::Legacy, Verdict::Failure, &format!("initialize: {e}"));
            return;
        }
    };
    let session = init.session.clone();
    match &session {
        None => found.info(
            "http.session-id",
            "the server assigns no session (sessions are optional)",
        ),
        Some(s) if !s.is_empty() && s.bytes().all(|b| (0x21..=0x7e).contains(&b)) => {
            found.ok("http.session-id")
        }
        Some(s) => found.fail(
            "http.session-id",
            format!("the session id {s:?} is not visible ASCII"),
        ),
    }
    let sid = session.as_deref();
    let inside = probe.legacy_headers(sid);
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    notification(found, probe.post(&note, &inside).await);
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    post_response(found, probe.post(&ping, &inside).await);
    if probe.version.as_str() < "2025-06-18" {
        found.info(
            "http.protocol-version-header",
            "the MCP-Protocol-Version header starts with 2025-06-18",
        );
    } else {
        let mut bogus = inside.clone();
        bogus[0].1 = BOGUS_VERSION.into();
        let ping = json!({"jsonrpc": "2.0", "id": 3, "method": "ping"});
        let what = format!("a ping with MCP-Protocol-Version: {BOGUS_VERSION}");
        expect_status(
            found,
            "http.protocol-version-header",
            &what,
            400,
            false,
            probe.post(&ping, &bogus).await,
        );
    }
    get_stream(found, Era::Legacy, probe.get(&inside).await);
    let Some(sid) = sid else {
        for c in [
            "http.session-required",
            "http.session-unknown",
            "http.session-deleted",
        ] {
            found.info(c, "the server assigns no session (sessions are optional)");
        }
        return;
    };
    let ping = json!({"jsonrpc": "2.0", "id": 4, "method": "ping"});
    let without = probe.legacy_headers(None);
    expect_status(
        found,
        "http.session-required",
        "a ping without Mcp-Session-Id",
        400,
        true,
        probe.post(&ping, &without).await,
    );
    let unknown = probe.legacy_headers(Some(UNKNOWN_SESSION));
    let what = format!("a ping with Mcp-Session-Id: {UNKNOWN_SESSION}");
    expect_status(
        found,
        "http.session-unknown",
        &what,
        404,
        false,
        probe.post(&ping, &unknown).await,
    );
    const DELETED: &str = "http.session-deleted";
    match probe.send(Method::DELETE, &inside, None).await {
        Err(e) => found.fail(DELETED, format!("DELETE: {e}")),
        Ok(r) if r.status == 405 => found.info(
            DELETED,
            "the server does not let clients end sessions (DELETE is 405)",
        ),
        Ok(r) if (200..300).contains(&r.status) => {
            let ping = json!({"jsonrpc": "2.0", "id": 5, "method": "ping"});
            let what = "after DELETE, a ping with the ended session id";
            expect_status(
                found,
                DELETED,
                what,
                404,
                false,
                probe.post(&ping, &inside).await,
            );
        }
        Ok(r) => {
            found.fail(
                DELETED,
                format!("DELETE was answered {}, neither 2xx nor 405", r.shown()),
            );
            probe.end(sid).await;
        }
    }
}

/// The checks of the stateless era: every request stands alone.
async fn modern(probe: &Probe, found: &mut Found) {
    let v = probe.version.clone();
    let (discover, h) = probe.modern(1, "server/discover", json!({}), &v);
    post_response(found, probe.post(&discover, &h).await);
    let (note, h) = probe.modern(
        -1,
        "notifications/cancelled",
        json!({"requestId": 999_999, "reason": "mcpr conformance"}),
        &v,
    );
    notification(found, probe.post(&note, &h).await);
    const VERSION: &str = "http.protocol-version-header";
    let (list, h) = probe.modern(3, "tools/list", json!({}), BOGUS_VERSION);
    let what = format!(
        "a request with MCP-Protocol-Version: {BOGUS_VERSION} (and the same _meta version)"
    );
    match probe.post(&list, &h).await {
        Ok(r) if r.status == 400 && r.error_code() != Some(-32022) => found.warn(
            VERSION,
            format!(
                "{what} was 400, but its error is not -32022 (UnsupportedProtocolVersion): {}",
                r.shown()
            ),
        ),
        got => expect_status(found, VERSION, &what, 400, false, got),
    }
    get_stream(
        found,
        Era::Modern,
        probe.get(&[("MCP-Protocol-Version", v.clone())]).await,
    );
    // Mcp-Method: left out, then naming another method.
    const METHOD: &str = "http.mcp-method-header";
    let (list, h) = probe.modern(4, "tools/list", json!({}), &v);
    let without: Vec<_> = h
        .iter()
        .filter(|(k, _)| *k != "Mcp-Method")
        .cloned()
        .collect();
    let mut wrong = h.clone();
    wrong[1].1 = "prompts/list".into();
    header_rule(
        found,
        METHOD,
        vec![
            (
                "tools/list without Mcp-Method",
                probe.post(&list, &without).await,
            ),
            (
                "tools/list with Mcp-Method: prompts/list",
                probe.post(&list, &wrong).await,
            ),
        ],
    );
    // Mcp-Name: a tool the server lists, called with the header left out or wrong.
    const NAME: &str = "http.mcp-name-header";
    let (list, h) = probe.modern(5, "tools/list", json!({}), &v);
    let tool = match probe.post(&list, &h).await {
        Ok(r) => r
            .message
            .as_ref()
            .and_then(|m| m.pointer("/result/tools/0/name"))
            .and_then(Value::as_str)
            .map(String::from),
        Err(_) => None,
    };
    let Some(tool) = tool else {
        found.info(
            NAME,
            "optional capability not offered: tools (no tool to call)",
        );
        return;
    };
    let (call, h) = probe.modern(6, "tools/call", json!({"name": tool, "arguments": {}}), &v);
    let without: Vec<_> = h
        .iter()
        .filter(|(k, _)| *k != "Mcp-Name")
        .cloned()
        .collect();
    let mut wrong = without.clone();
    wrong.push(("Mcp-Name", "mcpr-conformance-wrong-name".into()));
    header_rule(
        found,
        NAME,
        vec![
            (
                "tools/call without Mcp-Name",
                probe.post(&call, &without).await,
            ),
            (
                "tools/call with a Mcp-Name that differs from params.name",
                probe.post(&call, &wrong).await,
            ),
        ],
    );
}

/// A header rule: every case must be 400, ideally with -32020 (HeaderMismatch).
fn header_rule(found: &mut Found, check: &str, cases: Vec<(&str, Result<Reply, String>)>) {
    let mut warning = None;
    for (what, got) in cases {
        match got {
            Err(e) => return found.fail(check, format!("{what}: {e}")),
            Ok(r) if r.status == 400 => {
                if r.error_code() != Some(-32020) {
                    warning.get_or_insert(format!(
                        "{what} was 400, but its error is not -32020 (HeaderMismatch): {}",
                        r.shown()
                    ));
                }
            }
            Ok(r) => {
                return found.fail(check, format!("{what} was answered {}, not 400", r.shown()));
            }
        }
    }
    match warning {
        None => found.ok(check),
        Some(w) => found.warn(check, w),
    }
}

fn post_response(found: &mut Found, got: Result<Reply, String>) {
    const CHECK: &str = "http.post-response";
    match got {
        Err(e) => found.fail(CHECK, e),
        Ok(r) if r.status != 200 => {
            found.fail(CHECK, format!("the request was answered {}", r.shown()))
        }
        Ok(r) if r.message.is_some() => found.ok(CHECK),
        Ok(r)
            if r.content_type.starts_with("application/json")
                || r.content_type.starts_with("text/event-stream") =>
        {
            found.fail(
                CHECK,
                format!(
                    "the answer carries no JSON-RPC response with the request's id: {}",
                    r.shown()
                ),
            )
        }
        Ok(r) => found.fail(
            CHECK,
            format!(
                "the answer is neither application/json nor text/event-stream: {}",
                r.shown()
            ),
        ),
    }
}

fn notification(found: &mut Found, got: Result<Reply, String>) {
    const CHECK: &str = "http.notification-accepted";
    match got {
        Err(e) => found.fail(CHECK, e),
        Ok(r) if r.status == 202 && r.text.trim().is_empty() => found.ok(CHECK),
        Ok(r) if r.status == 202 => {
            found.warn(CHECK, format!("202, but with a body: {}", r.shown()))
        }
        Ok(r) if (200..300).contains(&r.status) => found.warn(
            CHECK,
            format!(
                "the notification was accepted with {} instead of 202",
                r.shown()
            ),
        ),
        Ok(r) => found.fail(
            CHECK,
            format!("the notification was answered {}", r.shown()),
        ),
    }
}

fn get_stream(found: &mut Found, era: Era, got: Result<Reply, String>) {
    const CHECK: &str = "http.get-stream";
    let sse = |r: &Reply| r.status == 200 && r.content_type.starts_with("text/event-stream");
    match (era, got) {
        (_, Err(e)) => found.fail(CHECK, format!("GET: {e}")),
        (_, Ok(r)) if r.status == 405 => found.ok(CHECK),
        (Era::Legacy, Ok(r)) if sse(&r) => found.ok(CHECK),
        (Era::Legacy, Ok(r)) => found.fail(
            CHECK,
            format!(
                "GET was answered {}, neither an SSE stream nor 405",
                r.shown()
            ),
        ),
        (Era::Modern, Ok(r)) => found.warn(
            CHECK,
            format!(
                "2026-07-28 has no GET stream and asks for 405; GET was answered {}",
                r.shown()
            ),
        ),
    }
}
