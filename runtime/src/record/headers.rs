//! Headers through the HTTP proxy: which pass (all but those of one connection), which
//! belong to the protocol, and which carry credentials; and the draft's target: the
//! upstream URL with the client's own headers, credentials only as `${env.…}` references
//! (their values are never written; the proxy's redactor learns them).

use std::collections::BTreeMap;

use axum::http::HeaderMap;
use mcpr_compiler::ir::{HttpTarget, OrderedMap, Target};
use reqwest::Url;

use crate::redact::{credential_spans, looks_like_credential};

/// Headers of one connection (RFC 9110 §7.6.1) and those the HTTP stack sets itself
/// (`Host` names the upstream; `Content-Length` follows the body): never passed on.
const CONNECTION_HEADERS: [&str; 11] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
];

/// True when a request header goes on to the upstream server. `Accept-Encoding` stays
/// behind: the upstream then answers uncompressed, which the proxy can read (the client
/// gets the same bytes).
pub fn forwarded_request_header(name: &str) -> bool {
    !CONNECTION_HEADERS.contains(&name) && name != "accept-encoding"
}

/// True when a response header goes back to the client.
pub fn forwarded_response_header(name: &str) -> bool {
    !CONNECTION_HEADERS.contains(&name)
}

/// Headers of MCP and of HTTP's own plumbing: `mcpr run` sends its own, so the draft
/// names none of them.
fn protocol_header(name: &str) -> bool {
    const EXACT: [&str; 21] = [
        "accept",
        "accept-encoding",
        "accept-language",
        "cache-control",
        "content-type",
        "dnt",
        "forwarded",
        "if-modified-since",
        "if-none-match",
        "last-event-id",
        "mcp-method",
        "mcp-name",
        "mcp-protocol-version",
        "mcp-session-id",
        "origin",
        "pragma",
        "priority",
        "referer",
        "traceparent",
        "tracestate",
        "user-agent",
    ];
    EXACT.contains(&name)
        || CONNECTION_HEADERS.contains(&name)
        || name == "baggage"
        || name == "via"
        || name.starts_with("mcp-param-")
        || name.starts_with("sec-")
        || name.starts_with("x-forwarded-")
}

/// One header of the client's own, as the draft writes it.
#[derive(Debug, Clone, PartialEq)]
enum Kept {
    /// Written as sent.
    Plain(String),
    /// A credential: written as a reference to this environment variable.
    Secret(String),
}

/// The client's own headers seen on the MCP endpoint (the first value of each).
#[derive(Debug, Default)]
pub struct SeenHeaders {
    headers: BTreeMap<String, Kept>,
}

impl SeenHeaders {
    /// Notes the client's own headers of a request; returns the credential values in it
    /// (every time, so a renewed token is learned too).
    pub fn observe(&mut self, headers: &HeaderMap) -> Vec<String> {
        let mut secrets = Vec::new();
        for (name, value) in headers {
            let name = name.as_str();
            if protocol_header(name) {
                continue;
            }
            let text = String::from_utf8_lossy(value.as_bytes()).into_owned();
            let secret = name == "authorization"
                || name == "cookie"
                || looks_like_credential(name)
                || !credential_spans(&text).is_empty();
            if secret {
                // `Bearer TOKEN`: the token alone is a secret too (it may appear elsewhere).
                if let Some((_, token)) = text.split_once(' ') {
                    secrets.push(token.trim().to_string());
                }
                secrets.push(text.clone());
            }
            self.headers.entry(name.to_string()).or_insert(if secret {
                Kept::Secret(env_name(name))
            } else {
                Kept::Plain(text)
            });
        }
        secrets
    }
}

/// The environment variable a credential header is read from in the draft.
fn env_name(header: &str) -> String {
    let upper = header.to_ascii_uppercase().replace('-', "_");
    if upper == "AUTHORIZATION" {
        "MCP_AUTHORIZATION".into()
    } else {
        format!("MCP_HEADER_{upper}")
    }
}

/// `x-api-key` as `X-Api-Key`.
fn display_name(header: &str) -> String {
    header
        .split('-')
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
                None => String::new(),
            }
        })
        .collect::<Vec<_>>()
        .join("-")
}

/// The upstream URL as the draft and mcpr's messages show it: no user name or password,
/// no query parameter named like a credential. Also returns what was taken out (for the
/// draft's comments: names only) and the values taken out (secrets to mask).
pub fn public_url(url: &Url) -> (Url, Vec<String>, Vec<String>) {
    let mut out = url.clone();
    let mut removed = Vec::new();
    let mut secrets = Vec::new();
    if !url.username().is_empty() || url.password().is_some() {
        removed.push("its user name and password".to_string());
        secrets.extend(url.password().map(str::to_string));
        let _ = out.set_username("");
        let _ = out.set_password(None);
    }
    if url.query().is_some() {
        let (hidden, kept): (Vec<_>, Vec<_>) = url
            .query_pairs()
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .partition(|(k, v)| looks_like_credential(k) || !credential_spans(v).is_empty());
        if !hidden.is_empty() {
            let names: Vec<&str> = hidden.iter().map(|(k, _)| k.as_str()).collect();
            removed.push(format!("its query parameters {}", names.join(", ")));
            secrets.extend(hidden.iter().map(|(_, v)| v.clone()));
            out.set_query(None);
            if !kept.is_empty() {
                out.query_pairs_mut().extend_pairs(kept);
            }
        }
    }
    (out, removed, secrets)
}

/// The draft's target: the upstream URL (credentials taken out) with the client's own
/// headers, and the comments that say what the draft leaves to the person.
pub fn draft_target(upstream: &Url, seen: &SeenHeaders) -> (Target, Vec<String>) {
    let (url, removed, _) = public_url(upstream);
    let mut comments = Vec::new();
    for r in removed {
        comments.push(format!(
            "The upstream URL had {r}, which are not written: add them back to run it."
        ));
    }
    let mut headers = OrderedMap::new();
    let mut vars = Vec::new();
    for (name, kept) in &seen.headers {
        let value = match kept {
            Kept::Plain(v) => v.clone(),
            Kept::Secret(var) => {
                vars.push((display_name(name), var.clone()));
                format!("${{env.{var}}}")
            }
        };
        headers.insert(display_name(name), value);
    }
    if !vars.is_empty() {
        let names: Vec<&str> = vars.iter().map(|(n, _)| n.as_str()).collect();
        let envs: Vec<&str> = vars.iter().map(|(_, v)| v.as_str()).collect();
        comments.push(format!(
            "The client sent credentials ({}); their values are not written.",
            names.join(", ")
        ));
        comments.push(format!(
            "Set {} to them before `mcpr run`.",
            envs.join(", ")
        ));
    }
    let mut target = HttpTarget::new(url.to_string());
    target.headers = (!headers.is_empty()).then_some(headers);
    (Target::StreamableHttp(target), comments)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn credentials_become_references_and_protocol_headers_stay_out() {
        let mut h = HeaderMap::new();
        let mut add = |k: &'static str, v: &'static str| {
            h.insert(k, HeaderValue::from_static(v));
        };
        add("authorization", "Bearer s3cr3t-token-value");
        add("x-api-key", "k-123456");
        add("x-tenant", "acme");
        add("mcp-session-id", "abc");
        add("mcp-param-region", "eu");
        add("accept", "application/json, text/event-stream");
        let mut seen = SeenHeaders::default();
        let secrets = seen.observe(&h);
        assert!(
            secrets.contains(&"s3cr3t-token-value".to_string()),
            "{secrets:?}"
        );
        assert!(secrets.contains(&"k-123456".to_string()), "{secrets:?}");
        let url = Url::parse("https://user:pw@mcp.example.com/mcp?api_key=zzz&region=eu").unwrap();
        let (target, comments) = draft_target(&url, &seen);
        let Target::StreamableHttp(t) = target else {
            panic!("an HTTP target")
        };
        assert_eq!(t.url, "https://mcp.example.com/mcp?region=eu");
        let headers: Vec<(&str, &String)> = t.headers.as_ref().unwrap().iter().collect();
        assert_eq!(
            headers,
            [
                ("Authorization", &"${env.MCP_AUTHORIZATION}".to_string()),
                ("X-Api-Key", &"${env.MCP_HEADER_X_API_KEY}".to_string()),
                ("X-Tenant", &"acme".to_string()),
            ]
        );
        let all = comments.join("\n");
        assert!(all.contains("user name and password"), "{all}");
        assert!(all.contains("query parameters api_key"), "{all}");
        assert!(
            all.contains("MCP_AUTHORIZATION, MCP_HEADER_X_API_KEY"),
            "{all}"
        );
        assert!(!all.contains("s3cr3t") && !all.contains("zzz") && !all.contains("pw@"));
        assert!(forwarded_request_header("authorization"));
        assert!(!forwarded_request_header("host") && !forwarded_request_header("accept-encoding"));
        assert!(forwarded_response_header("mcp-session-id"));
        assert!(!forwarded_response_header("transfer-encoding"));
    }
}
