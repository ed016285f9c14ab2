//! Finding the authorization server of an MCP server: the protected-resource metadata
//! (RFC 9728; the `resource_metadata` URL of the challenge, else the well-known URLs with
//! the endpoint's path, then at the root), then the authorization server's metadata
//! (RFC 8414 and OpenID Connect Discovery, in the order the MCP authorization spec lists).
//!
//! Both documents are checked before use: the resource must be this server, the issuer
//! must be exactly the one the well-known URL was built from. A server with no
//! protected-resource metadata at all is treated as the 2025-03-26 revision did: its
//! origin is the authorization server, and without metadata its endpoints are
//! `/authorize`, `/token` and `/register` there.

use reqwest::Url;
use serde_json::Value;

use super::OAuthError;
use super::fetch::Fetch;

/// One URL tried and what came of it (for messages and `mcpr auth-check`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Probe {
    /// The URL.
    pub url: String,
    /// `found`, `HTTP 404`, `not JSON`, `issuer … is not …`, …
    pub outcome: String,
}

/// The protected-resource metadata of the server, checked.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ProtectedResource {
    /// The resource identifier, sent as `resource` (RFC 8707).
    pub resource: String,
    /// The authorization servers' issuers.
    pub authorization_servers: Vec<String>,
    /// `scopes_supported`.
    pub scopes_supported: Option<Vec<String>>,
    /// Where the document was found; `None` for a 2025-03-26 server without one.
    pub metadata_url: Option<String>,
    /// `bearer_methods_supported`, `dpop_bound_access_tokens_required`, … as received.
    #[serde(skip)]
    pub document: Value,
}

impl ProtectedResource {
    /// True for a server without protected-resource metadata (2025-03-26 discovery).
    pub fn legacy(&self) -> bool {
        self.metadata_url.is_none()
    }
}

/// The authorization server's metadata, checked.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct AuthServer {
    /// The issuer (identical to the one the metadata was fetched for).
    pub issuer: String,
    /// `authorization_endpoint`.
    pub authorization_endpoint: Option<String>,
    /// `token_endpoint`.
    pub token_endpoint: String,
    /// `registration_endpoint`.
    pub registration_endpoint: Option<String>,
    /// `scopes_supported`.
    pub scopes_supported: Option<Vec<String>>,
    /// `code_challenge_methods_supported`.
    pub code_challenge_methods: Option<Vec<String>>,
    /// `token_endpoint_auth_methods_supported`.
    pub token_auth_methods: Option<Vec<String>>,
    /// `grant_types_supported`.
    pub grant_types: Option<Vec<String>>,
    /// `client_id_metadata_document_supported`.
    pub client_id_metadata_document: bool,
    /// `authorization_response_iss_parameter_supported` (RFC 9207).
    pub iss_parameter: bool,
    /// `dpop_signing_alg_values_supported` (RFC 9449 §5.1).
    pub dpop_algs: Option<Vec<String>>,
    /// Where the metadata was found; `None` when the 2025-03-26 default endpoints are used.
    pub metadata_url: Option<String>,
}

impl AuthServer {
    /// True when the metadata lists `method` among the token endpoint's client
    /// authentication methods (an absent list means `client_secret_basic`, RFC 8414 §2).
    pub fn accepts_auth(&self, method: &str) -> bool {
        match &self.token_auth_methods {
            Some(list) => list.iter().any(|m| m == method),
            None => method == "client_secret_basic",
        }
    }

    /// True when the metadata lists `scope` in `scopes_supported`.
    pub fn lists_scope(&self, scope: &str) -> bool {
        self.scopes_supported
            .as_ref()
            .is_some_and(|s| s.iter().any(|x| x == scope))
    }
}

/// The canonical URI of an MCP server (RFC 8707 §2): lowercase scheme and host (the URL
/// parser does that), no fragment, no trailing slash on a bare origin.
pub fn canonical_resource(server_url: &str) -> String {
    match Url::parse(server_url) {
        Ok(mut u) => {
            u.set_fragment(None);
            let s = u.to_string();
            if u.path() == "/" && u.query().is_none() {
                s.trim_end_matches('/').to_string()
            } else {
                s
            }
        }
        Err(_) => server_url.to_string(),
    }
}

/// The origin of a URL (`https://h:8443`).
fn origin(u: &Url) -> String {
    u.origin().ascii_serialization()
}

/// The well-known URLs of the protected-resource metadata, in the order to try: with the
/// endpoint's path (unless it is the root), then at the root.
pub fn resource_metadata_urls(server_url: &str) -> Vec<String> {
    let Ok(u) = Url::parse(server_url) else {
        return Vec::new();
    };
    let base = format!("{}/.well-known/oauth-protected-resource", origin(&u));
    let path = u.path().trim_end_matches('/');
    let mut out = Vec::new();
    if !path.is_empty() {
        out.push(format!("{base}{path}"));
    }
    out.push(base);
    out
}

/// The authorization-server metadata URLs of an issuer, in the spec's order.
pub fn server_metadata_urls(issuer: &str) -> Vec<String> {
    let Ok(u) = Url::parse(issuer) else {
        return Vec::new();
    };
    let o = origin(&u);
    let path = u.path().trim_end_matches('/');
    if path.is_empty() {
        vec![
            format!("{o}/.well-known/oauth-authorization-server"),
            format!("{o}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{o}/.well-known/oauth-authorization-server{path}"),
            format!("{o}/.well-known/openid-configuration{path}"),
            format!("{o}{path}/.well-known/openid-configuration"),
        ]
    }
}

/// True when the metadata's `resource` may stand for the server at `server_url`: the same
/// origin, and the server's path at or under the resource's path (a resource at the root
/// covers every endpoint of its origin). Anything else is another server's metadata.
pub fn resource_matches(server_url: &str, resource: &str) -> bool {
    let (Ok(server), Ok(res)) = (Url::parse(server_url), Url::parse(resource)) else {
        return false;
    };
    if res.fragment().is_some() || origin(&server) != origin(&res) {
        return false;
    }
    let dir = |p: &str| format!("{}/", p.trim_end_matches('/'));
    dir(server.path()).starts_with(&dir(res.path()))
}

/// The JSON object at `url`; `None` (with the reason in `trail`) when the fetch fails, the
/// status is not a success or the body is not a JSON object.
async fn json_object(fetch: &Fetch, url: &str, trail: &mut Vec<Probe>) -> Option<Value> {
    let outcome = match fetch.get(url).await {
        Err(e) => e,
        Ok(answer) => match (&answer.json, answer.ok()) {
            (Some(doc @ Value::Object(_)), true) => return Some(doc.clone()),
            (_, false) => format!("HTTP {}", answer.status),
            _ => "not a JSON object".into(),
        },
    };
    trail.push(Probe {
        url: url.to_string(),
        outcome,
    });
    None
}

fn strings(v: &Value, key: &str) -> Option<Vec<String>> {
    v.get(key)?.as_array().map(|a| {
        a.iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect()
    })
}

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

/// Finds and checks the protected-resource metadata of the server at `server_url`:
/// `header_url` (the challenge's `resource_metadata`) first, then the well-known URLs. No
/// document anywhere gives the 2025-03-26 answer (the origin is the authorization server).
pub async fn protected_resource(
    fetch: &Fetch,
    server_url: &str,
    header_url: Option<&str>,
    trail: &mut Vec<Probe>,
) -> Result<ProtectedResource, OAuthError> {
    let mut urls: Vec<String> = header_url.map(str::to_string).into_iter().collect();
    for u in resource_metadata_urls(server_url) {
        if !urls.contains(&u) {
            urls.push(u);
        }
    }
    for url in urls {
        let Some(doc) = json_object(fetch, &url, trail).await else {
            continue;
        };
        let Some(resource) = text(&doc, "resource") else {
            trail.push(Probe {
                url,
                outcome: "no `resource` member".into(),
            });
            continue;
        };
        if !resource_matches(server_url, &resource) {
            trail.push(Probe {
                url: url.clone(),
                outcome: format!("resource {resource:?} is another server"),
            });
            return Err(OAuthError::MetadataRefused {
                reason: format!(
                    "the protected-resource metadata at {url} is for resource {resource:?}, not for {server_url} (RFC 9728 §3.3: it must not be used)"
                ),
            });
        }
        let servers = strings(&doc, "authorization_servers").unwrap_or_default();
        if servers.is_empty() {
            trail.push(Probe {
                url: url.clone(),
                outcome: "no authorization_servers".into(),
            });
            return Err(OAuthError::Discovery {
                server: server_url.into(),
                reason: format!(
                    "the protected-resource metadata at {url} names no authorization server"
                ),
            });
        }
        trail.push(Probe {
            url: url.clone(),
            outcome: "found".into(),
        });
        return Ok(ProtectedResource {
            resource,
            authorization_servers: servers,
            scopes_supported: strings(&doc, "scopes_supported"),
            metadata_url: Some(url),
            document: doc,
        });
    }
    // 2025-03-26: no protected-resource metadata; the MCP server's origin authorizes.
    let origin = Url::parse(server_url)
        .map(|u| origin(&u))
        .map_err(|e| OAuthError::Discovery {
            server: server_url.into(),
            reason: format!("the URL cannot be parsed: {e}"),
        })?;
    Ok(ProtectedResource {
        resource: canonical_resource(server_url),
        authorization_servers: vec![origin],
        scopes_supported: None,
        metadata_url: None,
        document: Value::Null,
    })
}

fn parse_server(doc: &Value, issuer: &str, url: &str) -> Result<AuthServer, String> {
    let token_endpoint = text(doc, "token_endpoint").ok_or("no token_endpoint")?;
    Ok(AuthServer {
        issuer: issuer.to_string(),
        authorization_endpoint: text(doc, "authorization_endpoint"),
        token_endpoint,
        registration_endpoint: text(doc, "registration_endpoint"),
        scopes_supported: strings(doc, "scopes_supported"),
        code_challenge_methods: strings(doc, "code_challenge_methods_supported"),
        token_auth_methods: strings(doc, "token_endpoint_auth_methods_supported"),
        grant_types: strings(doc, "grant_types_supported"),
        client_id_metadata_document: doc
            .get("client_id_metadata_document_supported")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        iss_parameter: doc
            .get("authorization_response_iss_parameter_supported")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        dpop_algs: strings(doc, "dpop_signing_alg_values_supported"),
        metadata_url: Some(url.to_string()),
    })
}

/// Finds and checks the metadata of the authorization server `issuer`. A document whose
/// `issuer` is not exactly `issuer` is not used (RFC 8414 §3.3). With `legacy` (a server
/// without protected-resource metadata) and no document, the 2025-03-26 default endpoints
/// at the issuer's origin are the answer.
pub async fn authorization_server(
    fetch: &Fetch,
    server_url: &str,
    issuer: &str,
    legacy: bool,
    trail: &mut Vec<Probe>,
) -> Result<AuthServer, OAuthError> {
    let mut mismatch = None;
    for url in server_metadata_urls(issuer) {
        let Some(doc) = json_object(fetch, &url, trail).await else {
            continue;
        };
        let named = text(&doc, "issuer").unwrap_or_default();
        if named != issuer {
            trail.push(Probe {
                url: url.clone(),
                outcome: format!("issuer {named:?} is not {issuer:?}"),
            });
            mismatch.get_or_insert(format!(
                "the authorization-server metadata at {url} names issuer {named:?}, not {issuer:?}, the issuer it was fetched for (RFC 8414 §3.3: it must not be used)"
            ));
            continue;
        }
        match parse_server(&doc, issuer, &url) {
            Ok(s) => {
                trail.push(Probe {
                    url,
                    outcome: "found".into(),
                });
                return Ok(s);
            }
            Err(why) => trail.push(Probe { url, outcome: why }),
        }
    }
    if let Some(reason) = mismatch {
        return Err(OAuthError::MetadataRefused { reason });
    }
    if legacy && let Ok(u) = Url::parse(issuer) {
        // 2025-03-26 §2.3.3: the default endpoints at the authorization base URL.
        let o = origin(&u);
        return Ok(AuthServer {
            issuer: issuer.to_string(),
            authorization_endpoint: Some(format!("{o}/authorize")),
            token_endpoint: format!("{o}/token"),
            registration_endpoint: Some(format!("{o}/register")),
            scopes_supported: None,
            code_challenge_methods: Some(vec!["S256".into()]),
            token_auth_methods: None,
            grant_types: None,
            client_id_metadata_document: false,
            iss_parameter: false,
            dpop_algs: None,
            metadata_url: None,
        });
    }
    let tried: Vec<String> = trail
        .iter()
        .map(|p| format!("{} ({})", p.url, p.outcome))
        .collect();
    Err(OAuthError::Discovery {
        server: server_url.into(),
        reason: format!(
            "no metadata for the authorization server {issuer}; tried {}",
            tried.join(", ")
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_known_urls_in_the_spec_order() {
        assert_eq!(
            resource_metadata_urls("https://example.com/public/mcp"),
            vec![
                "https://example.com/.well-known/oauth-protected-resource/public/mcp",
                "https://example.com/.well-known/oauth-protected-resource"
            ]
        );
        assert_eq!(
            resource_metadata_urls("http://127.0.0.1:9/"),
            vec!["http://127.0.0.1:9/.well-known/oauth-protected-resource"]
        );
        assert_eq!(
            server_metadata_urls("https://auth.example.com/tenant1"),
            vec![
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            server_metadata_urls("https://auth.example.com"),
            vec![
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration"
            ]
        );
    }

    #[test]
    fn resources_and_their_servers() {
        let s = "http://localhost:5000/mcp";
        assert!(resource_matches(s, "http://localhost:5000/mcp"));
        assert!(resource_matches(s, "http://localhost:5000"));
        assert!(resource_matches(s, "HTTP://LOCALHOST:5000/mcp/"));
        assert!(!resource_matches(s, "https://evil.example.com/mcp"));
        assert!(!resource_matches(s, "http://localhost:5001/mcp"));
        assert!(!resource_matches(s, "http://localhost:5000/mcp2"));
        assert!(!resource_matches(s, "http://localhost:5000/mcp#x"));
        assert_eq!(
            canonical_resource("HTTPS://Mcp.Example.com/"),
            "https://mcp.example.com"
        );
        assert_eq!(
            canonical_resource("https://mcp.example.com/mcp#f"),
            "https://mcp.example.com/mcp"
        );
    }
}
