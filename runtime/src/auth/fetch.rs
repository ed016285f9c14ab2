//! The OAuth client's own HTTP exchanges (metadata, registration, token requests): every
//! one has a deadline and a size limit, like the MCP transport's. Form bodies are
//! `application/x-www-form-urlencoded` (no reqwest feature needed).

use std::time::Duration;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::Value;

/// Largest metadata or token response read.
const MAX_BODY: usize = 1024 * 1024;

/// What `application/x-www-form-urlencoded` leaves as it is: `*-._` and alphanumerics.
const FORM: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'*')
    .remove(b'-')
    .remove(b'.')
    .remove(b'_');

/// One value, form-encoded.
pub fn form_value(v: &str) -> String {
    utf8_percent_encode(v, FORM).to_string()
}

/// A form body from pairs.
pub fn form_encode(pairs: &[(&str, String)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{}={}", form_value(k), form_value(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// An HTTP answer, read whole (up to the limit).
#[derive(Debug, Clone)]
pub struct Answer {
    /// The status code.
    pub status: u16,
    /// The body as JSON, when it is JSON.
    pub json: Option<Value>,
    /// The start of the body as text (for messages; never a token endpoint's 200 body).
    pub text: String,
    /// The `DPoP-Nonce` header.
    pub dpop_nonce: Option<String>,
    /// The `Location` header.
    pub location: Option<String>,
    /// The `Content-Type` header.
    pub content_type: String,
    /// The `WWW-Authenticate` headers.
    pub www_authenticate: Vec<String>,
}

impl Answer {
    /// True for 2xx.
    pub fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// `error: error_description` of an OAuth error body, else the status and the start
    /// of the body.
    pub fn oauth_error(&self) -> String {
        let field = |k: &str| {
            self.json
                .as_ref()
                .and_then(|j| j.get(k))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        match (field("error"), field("error_description")) {
            (Some(e), Some(d)) => format!("HTTP {}: {e}: {d}", self.status),
            (Some(e), None) => format!("HTTP {}: {e}", self.status),
            _ if self.text.trim().is_empty() => format!("HTTP {} with an empty body", self.status),
            _ => format!("HTTP {}: {}", self.status, self.text.trim()),
        }
    }
}

/// The clients of one OAuth flow: one that follows redirects (metadata, up to five), one
/// that never does (the user agent, which looks at each redirect itself).
#[derive(Debug, Clone)]
pub struct Fetch {
    follow: reqwest::Client,
    manual: reqwest::Client,
    timeout: Duration,
    /// The run's learned secrets: what an exchange obtains joins them.
    pub secrets: crate::redact::Learned,
}

impl Fetch {
    /// Clients whose every request has `timeout`; what they obtain joins `secrets`.
    pub fn new(timeout: Duration, secrets: &crate::redact::Learned) -> Result<Fetch, String> {
        let build = |policy| {
            reqwest::Client::builder()
                .connect_timeout(timeout)
                .timeout(timeout)
                .redirect(policy)
                .build()
                .map_err(|e| format!("cannot build an HTTP client: {e}"))
        };
        crate::transport::http::install_crypto();
        Ok(Fetch {
            follow: build(reqwest::redirect::Policy::limited(5))?,
            manual: build(reqwest::redirect::Policy::none())?,
            timeout,
            secrets: secrets.clone(),
        })
    }

    /// The deadline of each request.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// GETs a JSON document (metadata).
    pub async fn get(&self, url: &str) -> Result<Answer, String> {
        let req = self.follow.get(url).header("Accept", "application/json");
        read(req.send().await.map_err(|e| describe(url, &e))?).await
    }

    /// GETs `url` without following a redirect (the user agent's step).
    pub async fn get_manual(&self, url: &str) -> Result<Answer, String> {
        let req = self
            .manual
            .get(url)
            .header("Accept", "text/html, application/json");
        read(req.send().await.map_err(|e| describe(url, &e))?).await
    }

    /// POSTs a form with extra headers (`Authorization: Basic …`, `DPoP`).
    pub async fn post_form(
        &self,
        url: &str,
        form: &[(&str, String)],
        headers: &[(String, String)],
    ) -> Result<Answer, String> {
        let mut req = self
            .follow
            .post(url)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .header("Accept", "application/json")
            .body(form_encode(form));
        for (k, v) in headers {
            req = req.header(k, v);
        }
        read(req.send().await.map_err(|e| describe(url, &e))?).await
    }

    /// POSTs an MCP message as a client without credentials would (the probe of
    /// `mcpr auth-check`).
    pub async fn post_mcp(&self, url: &str, body: &Value, version: &str) -> Result<Answer, String> {
        let req = self
            .manual
            .post(url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", version)
            .body(body.to_string());
        read(req.send().await.map_err(|e| describe(url, &e))?).await
    }

    /// POSTs a JSON document (dynamic client registration).
    pub async fn post_json(&self, url: &str, body: &Value) -> Result<Answer, String> {
        let req = self
            .follow
            .post(url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .body(body.to_string());
        read(req.send().await.map_err(|e| describe(url, &e))?).await
    }
}

fn describe(url: &str, e: &reqwest::Error) -> String {
    let what = if e.is_timeout() {
        "did not answer in time".to_string()
    } else if e.is_connect() {
        "could not be reached".to_string()
    } else {
        crate::transport::http::describe(e)
    };
    // Without the query: an authorization URL's parameters are no one's business.
    let shown = url.split('?').next().unwrap_or(url);
    format!("{shown} {what}")
}

async fn read(mut resp: reqwest::Response) -> Result<Answer, String> {
    let status = resp.status().as_u16();
    let header = |name: &str| {
        resp.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let dpop_nonce = header("dpop-nonce");
    let location = header("location");
    let content_type = header("content-type").unwrap_or_default();
    let www_authenticate = resp
        .headers()
        .get_all("www-authenticate")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .map(str::to_string)
        .collect();
    let mut body = Vec::new();
    // An event stream may stay open: its body is nobody's business here.
    let stream = content_type.contains("text/event-stream");
    if !stream {
        loop {
            match resp.chunk().await {
                Ok(Some(b)) => {
                    if body.len() + b.len() > MAX_BODY {
                        return Err(format!(
                            "{} answered a body over {MAX_BODY} bytes",
                            resp.url().as_str().split('?').next().unwrap_or("")
                        ));
                    }
                    body.extend_from_slice(&b);
                }
                Ok(None) => break,
                Err(e) => return Err(describe(resp.url().as_str(), &e)),
            }
        }
    }
    let text = String::from_utf8_lossy(&body).into_owned();
    let json = serde_json::from_str::<Value>(&text).ok();
    Ok(Answer {
        status,
        json,
        text: text.chars().take(300).collect(),
        dpop_nonce,
        location,
        content_type,
        www_authenticate,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_encoding() {
        assert_eq!(
            form_encode(&[("a b", "x&y=z".into()), ("u", "https://h/p?q=1".into())]),
            "a%20b=x%26y%3Dz&u=https%3A%2F%2Fh%2Fp%3Fq%3D1"
        );
        assert_eq!(form_value("A-z_0.9*~"), "A-z_0.9*%7E");
    }
}
