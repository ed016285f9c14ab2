//! A protected MCP server with its own OAuth 2.1 authorization server, for the tests of
//! mcpr's OAuth client (runtime/tests/oauth.rs). One process, one port:
//!
//! - `/mcp`: Streamable HTTP (JSON answers), every request needs a bearer token this server
//!   issued and that has not expired; without one, 401 with a `WWW-Authenticate` challenge
//!   naming the protected-resource metadata and the scope `mcp`. Tools: `whoami` (the
//!   token's client and scope) and `admin_report` (needs the scope `admin`: 403
//!   `insufficient_scope` otherwise).
//! - `/.well-known/oauth-protected-resource/mcp` (RFC 9728) and
//!   `/.well-known/oauth-authorization-server` (RFC 8414).
//! - `/register` (RFC 7591), `/authorize` (code, PKCE S256 required, `resource` checked,
//!   `iss` in the response), `/token` (authorization_code, refresh_token with rotation,
//!   client_credentials; client_secret_basic, client_secret_post, none).
//! - `/events`: what the server saw (grants, whether PKCE and `resource` were right) and
//!   every secret value it issued or received (codes, verifiers, tokens, client secrets),
//!   as JSON, for the tests to check and to look for in mcpr's outputs.
//!
//! Options: `--listen ADDR` (default 127.0.0.1:0; the URL is printed on stderr),
//! `--token-lifetime SECS` (default 3600), `--login-page` (the authorization endpoint
//! answers a sign-in page for a person instead of redirecting), `--client ID:SECRET` (a
//! pre-registered confidential client, repeatable), `--never-grant SCOPE` (a scope asked for
//! is left out of every grant: step-up can never succeed), `--no-registration`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use base64::Engine as _;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const SCOPES: [&str; 2] = ["mcp", "admin"];

#[derive(Clone)]
struct Client {
    secret: Option<String>,
    redirect_uris: Vec<String>,
}

struct Code {
    client_id: String,
    redirect_uri: String,
    challenge: String,
    scope: String,
}

struct Token {
    client_id: String,
    scope: String,
    expires: Instant,
}

struct Inner {
    base: String,
    lifetime: Duration,
    login_page: bool,
    never_grant: Vec<String>,
    registration: bool,
    counter: u64,
    clients: HashMap<String, Client>,
    codes: HashMap<String, Code>,
    access: HashMap<String, Token>,
    refresh: HashMap<String, (String, String)>,
    events: Vec<Value>,
}

type Shared = Arc<Mutex<Inner>>;

impl Inner {
    fn fresh(&mut self, what: &str) -> String {
        self.counter += 1;
        let seed = format!("{what}-{}-{:?}-{}", self.counter, Instant::now(), self.base);
        let digest = Sha256::digest(seed.as_bytes());
        format!(
            "{what}_{}",
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(digest)
        )
    }

    fn event(&mut self, e: Value) {
        self.events.push(e);
    }

    fn grantable(&self, scope: &str) -> String {
        scope
            .split_whitespace()
            .filter(|s| SCOPES.contains(s) && !self.never_grant.iter().any(|n| n == s))
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn issue(&mut self, client_id: &str, scope: &str, with_refresh: bool) -> Value {
        let access = self.fresh("at");
        let expires = Instant::now() + self.lifetime;
        self.access.insert(
            access.clone(),
            Token {
                client_id: client_id.into(),
                scope: scope.into(),
                expires,
            },
        );
        let mut out = json!({
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": self.lifetime.as_secs(),
            "scope": scope,
        });
        if with_refresh {
            let refresh = self.fresh("rt");
            self.refresh
                .insert(refresh.clone(), (client_id.into(), scope.into()));
            out["refresh_token"] = json!(refresh);
        }
        self.event(
            json!({"kind": "issued", "values": [&out["access_token"], &out["refresh_token"]]}),
        );
        out
    }
}

fn oauth_error(status: u16, error: &str, description: &str) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST);
    (
        status,
        axum::Json(json!({"error": error, "error_description": description})),
    )
        .into_response()
}

async fn resource_metadata(State(s): State<Shared>) -> Response {
    let base = s.lock().expect("state").base.clone();
    axum::Json(json!({
        "resource": format!("{base}/mcp"),
        "authorization_servers": [base],
        "scopes_supported": SCOPES,
        "bearer_methods_supported": ["header"],
    }))
    .into_response()
}

async fn server_metadata(State(s): State<Shared>) -> Response {
    let st = s.lock().expect("state");
    let base = &st.base;
    let mut m = json!({
        "issuer": base,
        "authorization_endpoint": format!("{base}/authorize"),
        "token_endpoint": format!("{base}/token"),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
        "scopes_supported": SCOPES,
        "authorization_response_iss_parameter_supported": true,
    });
    if st.registration {
        m["registration_endpoint"] = json!(format!("{base}/register"));
    }
    axum::Json(m).into_response()
}

async fn register(State(s): State<Shared>, body: Bytes) -> Response {
    let Ok(req) = serde_json::from_slice::<Value>(&body) else {
        return oauth_error(400, "invalid_client_metadata", "the body is not JSON");
    };
    let mut st = s.lock().expect("state");
    if !st.registration {
        return oauth_error(404, "invalid_request", "no dynamic registration here");
    }
    let redirect_uris: Vec<String> = req["redirect_uris"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let method = req["token_endpoint_auth_method"]
        .as_str()
        .unwrap_or("client_secret_basic")
        .to_string();
    let id = st.fresh("client");
    let secret = (method != "none").then(|| st.fresh("secret"));
    if let Some(secret) = &secret {
        st.event(json!({"kind": "issued", "values": [secret]}));
    }
    st.clients.insert(
        id.clone(),
        Client {
            secret: secret.clone(),
            redirect_uris: redirect_uris.clone(),
        },
    );
    st.event(json!({"kind": "register", "method": method}));
    let mut out = json!({
        "client_id": id,
        "redirect_uris": redirect_uris,
        "token_endpoint_auth_method": method,
        "grant_types": ["authorization_code", "refresh_token"],
    });
    if let Some(secret) = secret {
        out["client_secret"] = json!(secret);
    }
    (StatusCode::CREATED, axum::Json(out)).into_response()
}

async fn authorize(State(s): State<Shared>, Query(q): Query<HashMap<String, String>>) -> Response {
    let mut st = s.lock().expect("state");
    let p = |k: &str| q.get(k).cloned().unwrap_or_default();
    let Some(client) = st.clients.get(&p("client_id")).cloned() else {
        return oauth_error(400, "invalid_client", "unknown client_id");
    };
    let redirect_uri = p("redirect_uri");
    if !client.redirect_uris.is_empty() && !client.redirect_uris.contains(&redirect_uri) {
        return oauth_error(400, "invalid_request", "redirect_uri not registered");
    }
    if st.login_page {
        st.event(json!({"kind": "login-page"}));
        return (
            StatusCode::OK,
            [("content-type", "text/html")],
            "<html><body><form method=post><input name=user><input type=password name=pw><button>Sign in</button></form></body></html>",
        )
            .into_response();
    }
    let pkce = p("code_challenge_method") == "S256" && p("code_challenge").len() == 43;
    let resource = p("resource") == format!("{}/mcp", st.base);
    st.event(
        json!({"kind": "authorize", "pkce_s256": pkce, "resource": resource, "scope": p("scope")}),
    );
    if p("response_type") != "code" || !pkce || !resource {
        return oauth_error(
            400,
            "invalid_request",
            "response_type code, PKCE S256 and resource are required",
        );
    }
    let code = st.fresh("code");
    st.event(json!({"kind": "issued", "values": [&code, p("code_challenge")]}));
    let scope = st.grantable(&p("scope"));
    st.codes.insert(
        code.clone(),
        Code {
            client_id: p("client_id"),
            redirect_uri: redirect_uri.clone(),
            challenge: p("code_challenge"),
            scope,
        },
    );
    let mut to = match with_query(&redirect_uri) {
        Some(u) => u,
        None => return oauth_error(400, "invalid_request", "bad redirect_uri"),
    };
    to.push_str(&format!(
        "code={}&state={}&iss={}",
        enc(&code),
        enc(&p("state")),
        enc(&st.base)
    ));
    (StatusCode::FOUND, [("location", to)]).into_response()
}

/// The redirect URI with `?` or `&` ready for more parameters.
fn with_query(uri: &str) -> Option<String> {
    if !uri.starts_with("http://") && !uri.starts_with("https://") {
        return None;
    }
    Some(if uri.contains('?') {
        format!("{uri}&")
    } else {
        format!("{uri}?")
    })
}

fn enc(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn form(body: &[u8]) -> HashMap<String, String> {
    let dec = |s: &str| -> String {
        let s = s.replace('+', " ");
        let bytes = s.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'%'
                && i + 2 < bytes.len()
                && let Some(v) = std::str::from_utf8(&bytes[i + 1..i + 3])
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                out.push(v);
                i += 3;
                continue;
            }
            out.push(bytes[i]);
            i += 1;
        }
        String::from_utf8_lossy(&out).into_owned()
    };
    String::from_utf8_lossy(body)
        .split('&')
        .filter(|kv| !kv.is_empty())
        .map(|kv| {
            let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
            (dec(k), dec(v))
        })
        .collect()
}

/// The client a token request authenticates as, and how; `Err` says why it is refused.
fn client_auth(
    st: &Inner,
    headers: &HeaderMap,
    f: &HashMap<String, String>,
) -> Result<(String, &'static str), &'static str> {
    let basic = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Basic "))
        .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok())
        .and_then(|b| String::from_utf8(b).ok());
    let (id, secret, method) = match (basic, f.get("client_secret")) {
        (Some(pair), _) => {
            let (id, secret) = pair.split_once(':').unwrap_or((&pair, ""));
            (
                id.to_string(),
                Some(secret.to_string()),
                "client_secret_basic",
            )
        }
        (None, Some(secret)) => (
            f.get("client_id").cloned().unwrap_or_default(),
            Some(secret.clone()),
            "client_secret_post",
        ),
        (None, None) => (
            f.get("client_id").cloned().unwrap_or_default(),
            None,
            "none",
        ),
    };
    let Some(client) = st.clients.get(&id) else {
        return Err("unknown client");
    };
    if client.secret != secret {
        return Err("wrong client credentials");
    }
    Ok((id, method))
}

async fn token(State(s): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    let f = form(&body);
    let mut st = s.lock().expect("state");
    let (client_id, method) = match client_auth(&st, &headers, &f) {
        Ok(c) => c,
        Err(why) => return oauth_error(401, "invalid_client", why),
    };
    let grant = f.get("grant_type").cloned().unwrap_or_default();
    let resource = f.get("resource").map(String::as_str) == Some(&format!("{}/mcp", st.base));
    st.event(json!({"kind": "token", "grant": grant, "auth": method, "resource": resource}));
    match grant.as_str() {
        "authorization_code" => {
            let Some(code) = f.get("code").and_then(|c| st.codes.remove(c)) else {
                return oauth_error(400, "invalid_grant", "unknown or used code");
            };
            let verifier = f.get("code_verifier").cloned().unwrap_or_default();
            st.event(json!({"kind": "issued", "values": [&verifier]}));
            let digest = base64::engine::general_purpose::URL_SAFE_NO_PAD
                .encode(Sha256::digest(verifier.as_bytes()));
            if code.client_id != client_id
                || f.get("redirect_uri") != Some(&code.redirect_uri)
                || digest != code.challenge
            {
                return oauth_error(400, "invalid_grant", "code, verifier or redirect_uri wrong");
            }
            axum::Json(st.issue(&client_id, &code.scope, true)).into_response()
        }
        "refresh_token" => {
            let Some((owner, scope)) = f.get("refresh_token").and_then(|r| st.refresh.remove(r))
            else {
                return oauth_error(400, "invalid_grant", "unknown refresh token");
            };
            if owner != client_id {
                return oauth_error(400, "invalid_grant", "not this client's refresh token");
            }
            axum::Json(st.issue(&client_id, &scope, true)).into_response()
        }
        "client_credentials" => {
            if method == "none" {
                return oauth_error(401, "invalid_client", "client_credentials needs a secret");
            }
            let asked = f.get("scope").cloned().unwrap_or_else(|| "mcp".into());
            let scope = st.grantable(&asked);
            axum::Json(st.issue(&client_id, &scope, false)).into_response()
        }
        _ => oauth_error(400, "unsupported_grant_type", "unsupported grant_type"),
    }
}

async fn events(State(s): State<Shared>) -> Response {
    axum::Json(Value::Array(s.lock().expect("state").events.clone())).into_response()
}

fn challenge(base: &str, error: Option<&str>, scope: &str) -> String {
    let mut c = format!(
        "Bearer resource_metadata=\"{base}/.well-known/oauth-protected-resource/mcp\", scope=\"{scope}\""
    );
    if let Some(e) = error {
        c.push_str(&format!(", error=\"{e}\""));
    }
    c
}

async fn mcp(State(s): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    let mut st = s.lock().expect("state");
    let bearer = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_string);
    let base = st.base.clone();
    let (client_id, scope) = match bearer.as_ref().and_then(|b| st.access.get(b)) {
        Some(t) if t.expires > Instant::now() => (t.client_id.clone(), t.scope.clone()),
        found => {
            let error = found.map(|_| "invalid_token");
            st.event(json!({"kind": "mcp-401", "expired": error.is_some()}));
            return (
                StatusCode::UNAUTHORIZED,
                [("www-authenticate", challenge(&base, error, "mcp"))],
                "unauthorized",
            )
                .into_response();
        }
    };
    let Ok(msg) = serde_json::from_slice::<Value>(&body) else {
        return (StatusCode::BAD_REQUEST, "not JSON").into_response();
    };
    let Some(id) = msg.get("id").cloned() else {
        return StatusCode::ACCEPTED.into_response();
    };
    let method = msg["method"].as_str().unwrap_or_default();
    let result = match method {
        "initialize" => json!({
            "protocolVersion": msg["params"]["protocolVersion"].as_str().unwrap_or("2025-11-25"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "mcpr-auth-server", "version": env!("CARGO_PKG_VERSION")},
        }),
        "ping" => json!({}),
        "tools/list" => json!({"tools": [
            {"name": "whoami", "description": "The token's client and scope", "inputSchema": {"type": "object"}},
            {"name": "admin_report", "description": "Needs the scope admin", "inputSchema": {"type": "object"}},
        ]}),
        "tools/call" => {
            let tool = msg["params"]["name"].as_str().unwrap_or_default();
            let scopes: Vec<&str> = scope.split_whitespace().collect();
            if tool == "admin_report" && !scopes.contains(&"admin") {
                st.event(json!({"kind": "mcp-403", "scope": scope}));
                return (
                    StatusCode::FORBIDDEN,
                    [(
                        "www-authenticate",
                        challenge(&base, Some("insufficient_scope"), "mcp admin"),
                    )],
                    "insufficient scope",
                )
                    .into_response();
            }
            json!({"content": [{"type": "text", "text": format!("client {client_id} scope {scope}")}]})
        }
        _ => {
            return axum::Json(json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": format!("no method {method}")}}))
                .into_response();
        }
    };
    axum::Json(json!({"jsonrpc": "2.0", "id": id, "result": result})).into_response()
}

fn usage() -> ! {
    eprintln!(
        "usage: mcpr-auth-server [--listen ADDR] [--token-lifetime SECS] [--login-page] [--client ID:SECRET]… [--never-grant SCOPE]… [--no-registration]"
    );
    std::process::exit(2);
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut listen = "127.0.0.1:0".to_string();
    let mut inner = Inner {
        base: String::new(),
        lifetime: Duration::from_secs(3600),
        login_page: false,
        never_grant: Vec::new(),
        registration: true,
        counter: 0,
        clients: HashMap::new(),
        codes: HashMap::new(),
        access: HashMap::new(),
        refresh: HashMap::new(),
        events: Vec::new(),
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--login-page" => inner.login_page = true,
            "--no-registration" => inner.registration = false,
            "--listen" => listen = it.next().unwrap_or_else(|| usage()),
            "--token-lifetime" => {
                let secs = it.next().and_then(|v| v.parse().ok());
                inner.lifetime = Duration::from_secs(secs.unwrap_or_else(|| usage()));
            }
            "--never-grant" => inner.never_grant.push(it.next().unwrap_or_else(|| usage())),
            "--client" => {
                let pair = it.next().unwrap_or_else(|| usage());
                let Some((id, secret)) = pair.split_once(':') else {
                    usage()
                };
                inner.clients.insert(
                    id.into(),
                    Client {
                        secret: Some(secret.into()),
                        redirect_uris: Vec::new(),
                    },
                );
            }
            _ => usage(),
        }
    }
    let listener = match tokio::net::TcpListener::bind(&listen).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("mcpr-auth-server: cannot listen on {listen}: {e}");
            std::process::exit(1);
        }
    };
    let addr = match listener.local_addr() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("mcpr-auth-server: {e}");
            std::process::exit(1);
        }
    };
    inner.base = format!("http://{addr}");
    let shared: Shared = Arc::new(Mutex::new(inner));
    let router = Router::new()
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            get(resource_metadata),
        )
        .route(
            "/.well-known/oauth-authorization-server",
            get(server_metadata),
        )
        .route("/register", post(register))
        .route("/authorize", get(authorize))
        .route("/token", post(token))
        .route("/events", get(events))
        .route(
            "/mcp",
            post(mcp)
                .get(|| async { StatusCode::METHOD_NOT_ALLOWED })
                .delete(|| async { StatusCode::OK }),
        )
        .with_state(shared);
    eprintln!("mcpr-auth-server: listening on http://{addr}/mcp");
    if let Err(e) = axum::serve(listener, router).await {
        eprintln!("mcpr-auth-server: {e}");
        std::process::exit(1);
    }
}
