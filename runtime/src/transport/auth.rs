//! The HTTP transport's hook for authorization: something that adds credentials to every
//! request (`Authorization`, a `DPoP` proof) and, when the server refuses a request with
//! 401 (or 403 with a `WWW-Authenticate` challenge), may obtain new credentials so that
//! the transport sends the same request again.
//!
//! The transport knows no OAuth: [`crate::auth`] implements the hook. Every POST, GET and
//! DELETE of [`super::http::HttpWire`] goes through it.

use crate::BoxFuture;
use crate::error::ErrorKind;

/// Most times one HTTP request is sent again after a refusal, whatever the hook says.
pub const MAX_AUTH_ATTEMPTS: u32 = 5;

/// What the hook adds to one request (its `Debug` shows header names, never values).
#[derive(Clone, Default)]
pub struct Credentials {
    /// Headers to send (`Authorization`, `DPoP`).
    pub headers: Vec<(String, String)>,
    /// Which credentials these are: the hook's counter, handed back with a refusal so it
    /// can tell a refusal of old credentials from one of the newest.
    pub generation: u64,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(k, _)| k.as_str()).collect();
        f.debug_struct("Credentials")
            .field("headers", &names)
            .field("generation", &self.generation)
            .finish()
    }
}

/// A response that refused a request's credentials.
#[derive(Debug, Clone)]
pub struct Refusal {
    /// 401 or 403.
    pub status: u16,
    /// The request's HTTP method.
    pub method: String,
    /// The request's URL.
    pub url: String,
    /// The `WWW-Authenticate` header values, as received.
    pub www_authenticate: Vec<String>,
    /// The `DPoP-Nonce` header, if the server sent one.
    pub dpop_nonce: Option<String>,
    /// The generation of the credentials the request carried.
    pub generation: u64,
    /// How many refusals this request has had, this one included (1 for the first).
    pub attempt: u32,
}

/// What the transport does with a refused request.
#[derive(Debug, Clone)]
pub enum Verdict {
    /// New credentials are ready: send the request again.
    Retry,
    /// Give up: with `None` the refusal is reported as it came (`MCP-AUTH-003`), with a
    /// failure of the hook's own (an OAuth step that went wrong) that failure instead.
    GiveUp(Option<ErrorKind>),
}

/// The authorization hook of an HTTP target.
pub trait HttpAuth: Send + Sync + std::fmt::Debug {
    /// The credentials for a request about to be sent (`method`, `url` without changes).
    fn credentials(&self, method: &str, url: &str) -> Credentials;

    /// The server refused a request: obtain new credentials (and return
    /// [`Verdict::Retry`]) or give up.
    fn refused(&self, refusal: Refusal) -> BoxFuture<'_, Verdict>;

    /// The server accepted a request; `dpop_nonce` is its `DPoP-Nonce` header, if any.
    fn accepted(&self, dpop_nonce: Option<&str>) {
        let _ = dpop_nonce;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_debug_shows_no_value() {
        let c = Credentials {
            headers: vec![("Authorization".into(), "Bearer at_secret_value".into())],
            generation: 3,
        };
        let shown = format!("{c:?}");
        assert!(shown.contains("Authorization"), "{shown}");
        assert!(!shown.contains("at_secret_value"), "{shown}");
    }
}
