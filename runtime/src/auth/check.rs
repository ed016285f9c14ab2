//! `mcpr auth-check URL`: how a protected server behaves, with the same code the client
//! flow uses — the answer to a request without credentials and its challenge, the
//! protected-resource metadata, the authorization server's metadata, what they offer
//! (PKCE, registration, `iss`, scopes) — and, given OAuth settings, a whole flow: the
//! token obtained (never its value) and the tools listed with it.

use std::time::Duration;

use serde_json::json;

use super::challenge::{self, Challenge};
use super::discovery::{self, AuthServer, Probe, ProtectedResource};
use super::fetch::Fetch;
use super::flow::{Authorizer, TokenSummary};
use super::settings::OAuthConfig;
use crate::client::Client;
use crate::protocol::version;
use crate::session::{ProtocolChoice, SessionConfig};
use crate::transport::http::HttpConfig;

/// How a finding weighs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// As the spec asks.
    Ok,
    /// A SHOULD not followed, or something clients must work around.
    Warn,
    /// A MUST broken, or a step that failed.
    Fail,
}

/// One thing found.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Finding {
    /// How it weighs.
    pub level: Level,
    /// What was found.
    pub text: String,
}

/// The answer to the request without credentials.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ProbeAnswer {
    /// Its status.
    pub status: u16,
    /// Its `WWW-Authenticate` headers.
    pub www_authenticate: Vec<String>,
    /// The `Bearer` (or `DPoP`) challenge among them.
    #[serde(skip)]
    pub challenge: Option<Challenge>,
}

/// What `mcpr auth-check` found.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthReport {
    /// The MCP server.
    pub server: String,
    /// The answer to a request without credentials.
    pub probe: Option<ProbeAnswer>,
    /// The protected-resource metadata.
    pub resource: Option<ProtectedResource>,
    /// The authorization server's metadata.
    pub authorization_server: Option<AuthServer>,
    /// Every metadata URL tried, with its outcome.
    pub tried: Vec<Probe>,
    /// The findings, in order.
    pub findings: Vec<Finding>,
    /// The tokens a flow obtained (with OAuth settings).
    pub token: Option<TokenSummary>,
    /// How many tools the server listed with the token.
    pub tools: Option<usize>,
}

impl AuthReport {
    /// True when a finding is a failure.
    pub fn failed(&self) -> bool {
        self.findings.iter().any(|f| f.level == Level::Fail)
    }

    fn add(&mut self, level: Level, text: impl Into<String>) {
        self.findings.push(Finding {
            level,
            text: text.into(),
        });
    }

    /// The report for people: one line per finding, then the metadata URLs tried.
    pub fn render(&self) -> String {
        let mut out = format!("mcpr auth-check {}\n", self.server);
        for f in &self.findings {
            let mark = match f.level {
                Level::Ok => "  ok    ",
                Level::Warn => "  warn  ",
                Level::Fail => "  FAIL  ",
            };
            out.push_str(mark);
            out.push_str(&f.text);
            out.push('\n');
        }
        if !self.tried.is_empty() {
            out.push_str("metadata URLs tried:\n");
            for p in &self.tried {
                out.push_str(&format!("  {} — {}\n", p.url, p.outcome));
            }
        }
        let fails = self
            .findings
            .iter()
            .filter(|f| f.level == Level::Fail)
            .count();
        let warns = self
            .findings
            .iter()
            .filter(|f| f.level == Level::Warn)
            .count();
        out.push_str(&format!("{fails} failure(s), {warns} warning(s)\n"));
        out
    }
}

fn list(v: &Option<Vec<String>>) -> String {
    match v {
        Some(l) if !l.is_empty() => l.join(" "),
        Some(_) => "(empty)".into(),
        None => "(not listed)".into(),
    }
}

/// Checks the server at `url` (speaking `protocol`, default 2025-11-25 for the probe);
/// with `oauth`, runs the whole flow and lists the tools. Each stage adds its findings to
/// the report; a stage that fails ends the check there.
pub async fn auth_check(
    url: &str,
    oauth: Option<OAuthConfig>,
    protocol: Option<&str>,
    timeout: Duration,
    context: &super::Context,
) -> AuthReport {
    let mut r = AuthReport {
        server: url.to_string(),
        probe: None,
        resource: None,
        authorization_server: None,
        tried: Vec::new(),
        findings: Vec::new(),
        token: None,
        tools: None,
    };
    let fetch = match Fetch::new(timeout, &context.secrets) {
        Ok(f) => f,
        Err(e) => {
            r.add(Level::Fail, e);
            return r;
        }
    };
    let Some(ch) = probe(&mut r, &fetch, url, protocol).await else {
        return r;
    };
    let resource = match discovery::protected_resource(
        &fetch,
        url,
        ch.resource_metadata.as_deref(),
        &mut r.tried,
    )
    .await
    {
        Ok(p) => p,
        Err(e) => {
            r.add(Level::Fail, e.to_string());
            return r;
        }
    };
    judge_resource(&mut r, &resource);
    let issuer = resource.authorization_servers[0].clone();
    let server = match discovery::authorization_server(
        &fetch,
        url,
        &issuer,
        resource.legacy(),
        &mut r.tried,
    )
    .await
    {
        Ok(s) => s,
        Err(e) => {
            r.resource = Some(resource);
            r.add(Level::Fail, e.to_string());
            return r;
        }
    };
    r.resource = Some(resource);
    judge_authorization_server(&mut r, &server);
    r.authorization_server = Some(server);
    if let Some(config) = oauth {
        login(&mut r, url, config, protocol, timeout, context).await;
    }
    r
}

/// Sends the first request without credentials (`initialize`, or `server/discover` in the
/// 2026 era) and judges the refusal and its challenge; `None` when the server cannot be
/// reached.
async fn probe(
    r: &mut AuthReport,
    fetch: &Fetch,
    url: &str,
    protocol: Option<&str>,
) -> Option<Challenge> {
    let v = protocol.unwrap_or("2025-11-25");
    let modern = version::era_of(v) == Some(version::Era::Modern);
    let body = if modern {
        json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {}})
    } else {
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": v, "capabilities": {},
            "clientInfo": {"name": "mcpr-auth-check", "version": env!("CARGO_PKG_VERSION")}}})
    };
    let answer = match fetch.post_mcp(url, &body, v).await {
        Ok(a) => a,
        Err(e) => {
            r.add(Level::Fail, format!("the server cannot be reached: {e}"));
            return None;
        }
    };
    let ch = challenge::pick(&answer.www_authenticate, true);
    r.probe = Some(ProbeAnswer {
        status: answer.status,
        www_authenticate: answer.www_authenticate.clone(),
        challenge: ch.clone(),
    });
    match answer.status {
        401 => r.add(Level::Ok, "a request without credentials is refused with HTTP 401"),
        403 => r.add(Level::Warn, "a request without credentials is refused with HTTP 403 (401 is what clients expect)"),
        s if (200..300).contains(&s) => {
            r.add(Level::Warn, format!("a request without credentials is answered (HTTP {s}): the server is not protected, or not for this request"));
        }
        s => r.add(Level::Fail, format!("a request without credentials is answered HTTP {s}, neither a refusal (401) nor an answer")),
    }
    let ch = ch.unwrap_or_default();
    if answer.status == 401 || answer.status == 403 {
        if ch.scheme.is_empty() {
            r.add(
                Level::Fail,
                "the refusal has no Bearer (or DPoP) WWW-Authenticate challenge (RFC 6750 §3)",
            );
        } else {
            r.add(
                Level::Ok,
                format!(
                    "challenge: {}",
                    crate::transport::http::describe_challenges(&answer.www_authenticate)
                        .unwrap_or_default()
                ),
            );
        }
        match &ch.resource_metadata {
            Some(u) => r.add(
                Level::Ok,
                format!("the challenge names the protected-resource metadata: {u}"),
            ),
            None => r.add(
                Level::Warn,
                "the challenge has no resource_metadata: clients fall back to the well-known URLs",
            ),
        }
        match &ch.scope {
            Some(s) => r.add(Level::Ok, format!("the challenge names the scope it needs: {s:?}")),
            None => r.add(Level::Warn, "the challenge names no scope (servers SHOULD; clients then ask for scopes_supported)"),
        }
    }
    Some(ch)
}

/// Judges the protected-resource metadata (RFC 9728) the client found.
fn judge_resource(r: &mut AuthReport, resource: &ProtectedResource) {
    if resource.legacy() {
        r.add(Level::Fail, "no protected-resource metadata (RFC 9728; required since 2025-06-18): only 2025-03-26 clients find the authorization server (the server's origin)");
    } else {
        r.add(Level::Ok, format!(
            "protected-resource metadata: resource {:?}, authorization servers {}, scopes_supported {}",
            resource.resource,
            resource.authorization_servers.join(" "),
            list(&resource.scopes_supported)
        ));
        if resource
            .scopes_supported
            .as_ref()
            .is_some_and(|s| s.iter().any(|x| x == "offline_access"))
        {
            r.add(Level::Warn, "scopes_supported lists offline_access, which servers SHOULD NOT (refresh tokens are not a resource requirement)");
        }
    }
}

/// Judges what the authorization server's metadata offers MCP clients: PKCE, a way to
/// get a client identity, `iss` in the response, grants and scopes.
fn judge_authorization_server(r: &mut AuthReport, server: &AuthServer) {
    match &server.metadata_url {
        Some(u) => r.add(Level::Ok, format!("authorization-server metadata of {} at {u} (its issuer matches)", server.issuer)),
        None => r.add(Level::Warn, format!("no authorization-server metadata for {}: the 2025-03-26 default endpoints are assumed", server.issuer)),
    }
    if server
        .code_challenge_methods
        .as_ref()
        .is_some_and(|m| m.iter().any(|x| x == "S256"))
    {
        r.add(
            Level::Ok,
            "PKCE S256 is supported (code_challenge_methods_supported)",
        );
    } else {
        r.add(Level::Fail, format!("code_challenge_methods_supported {} lacks S256: MCP clients must refuse the authorization code grant", list(&server.code_challenge_methods)));
    }
    match (server.client_id_metadata_document, &server.registration_endpoint) {
        (true, _) => r.add(Level::Ok, "Client ID Metadata Documents are supported"),
        (false, Some(e)) => r.add(Level::Ok, format!("dynamic client registration at {e} (Client ID Metadata Documents are not supported)")),
        (false, None) => r.add(Level::Warn, "neither Client ID Metadata Documents nor dynamic registration: clients must be pre-registered"),
    }
    if server.iss_parameter {
        r.add(
            Level::Ok,
            "the authorization response carries iss (RFC 9207)",
        );
    } else {
        r.add(Level::Warn, "authorization_response_iss_parameter_supported is not true (authorization servers SHOULD send iss)");
    }
    r.add(
        Level::Ok,
        format!(
            "grant types {}, token endpoint authentication {}, scopes_supported {}",
            list(&server.grant_types),
            list(&server.token_auth_methods),
            list(&server.scopes_supported)
        ),
    );
}

/// The whole flow through a client of the runtime, then `tools/list`.
async fn login(
    r: &mut AuthReport,
    url: &str,
    config: OAuthConfig,
    protocol: Option<&str>,
    timeout: Duration,
    context: &super::Context,
) {
    let auth = match Authorizer::new(url, config, context) {
        Ok(a) => std::sync::Arc::new(a),
        Err(e) => {
            r.add(Level::Fail, e.to_string());
            return;
        }
    };
    let mut http = HttpConfig::new(url);
    http.auth = Some(auth.clone());
    let session = SessionConfig {
        request_timeout: timeout,
        connect_timeout: timeout,
        protocol: protocol.map_or(ProtocolChoice::Auto, |p| ProtocolChoice::Pinned(p.into())),
        ..SessionConfig::default()
    };
    let client = match Client::connect_http(http, session).await {
        Ok(c) => c,
        Err(e) => {
            r.add(
                Level::Fail,
                format!("the OAuth flow or the handshake failed: {}", e.kind),
            );
            r.token = auth.summary();
            return;
        }
    };
    let tools = client.list_tools().await;
    client.close().await;
    r.token = auth.summary();
    if let Some(t) = &r.token {
        r.add(
            Level::Ok,
            format!(
                "token obtained: {}, scope {:?}, {}, refresh token {}",
                t.token_type,
                t.scope.as_deref().unwrap_or("(none)"),
                t.expires_in
                    .map_or("no expiry given".to_string(), |s| format!(
                        "expires in {s} s"
                    )),
                if t.refresh_token {
                    "issued"
                } else {
                    "not issued"
                }
            ),
        );
    }
    match tools {
        Ok(t) => {
            r.tools = Some(t.len());
            r.add(
                Level::Ok,
                format!("tools/list with the token: {} tool(s)", t.len()),
            );
        }
        Err(e) => r.add(
            Level::Fail,
            format!("tools/list with the token failed: {}", e.kind),
        ),
    }
}
