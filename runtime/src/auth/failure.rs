//! Why the OAuth client flow could not give a request a token, as data: one variant per
//! registered code (`MCP-AUTH-004` … `MCP-AUTH-011`). No message ever holds a secret (a
//! client secret, a code, a verifier, a token): they name settings and endpoints only.

use crate::codes::RunCode;
use crate::error::ErrorKind;

/// What a person must give mcpr instead of a login page.
pub const NON_INTERACTIVE_SETTINGS: &str = "mcpr runs no interactive login; give the target settings that need no person: `grant: client_credentials` with `clientId` and `clientSecret` (or `privateKey`), a pre-registered `clientId` with a `refreshToken`, or a token from `Token from` or an `Authorization` header (see docs/oauth.md)";

/// An OAuth step that failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OAuthError {
    /// No protected-resource or authorization-server metadata could be found or used.
    #[error("OAuth discovery for {server} failed: {reason}")]
    Discovery {
        /// The MCP server's URL.
        server: String,
        /// What was tried, and what each URL answered.
        reason: String,
    },
    /// Metadata that must not be used: a resource that is not this server, an issuer that
    /// is not the one the metadata was fetched for, no PKCE `S256`.
    #[error("OAuth metadata refused: {reason}")]
    MetadataRefused {
        /// The rule that was broken.
        reason: String,
    },
    /// The client has no identity at the authorization server.
    #[error("no OAuth client for the authorization server {issuer}: {reason}")]
    NoClient {
        /// The authorization server.
        issuer: String,
        /// Why (no registration offered, registration refused, credentials of another
        /// authorization server), and the settings that would help.
        reason: String,
    },
    /// The authorization endpoint wants a person (a login or consent page).
    #[error(
        "the authorization step at {endpoint} needs a person: {reason}; {NON_INTERACTIVE_SETTINGS}"
    )]
    LoginRequired {
        /// The authorization endpoint (without the request's parameters).
        endpoint: String,
        /// What it answered.
        reason: String,
    },
    /// The authorization response was refused (state, `iss`) or was an error.
    #[error("the authorization response was refused: {reason}")]
    AuthorizationResponse {
        /// Why.
        reason: String,
    },
    /// The token endpoint (or the identity provider's) refused a request.
    #[error("the token endpoint {endpoint} refused the {grant} request: {reason}")]
    TokenRefused {
        /// The endpoint.
        endpoint: String,
        /// The grant (`authorization_code`, `refresh_token`, `client_credentials`, …).
        grant: String,
        /// The status and the OAuth error (`invalid_grant: …`).
        reason: String,
    },
    /// The server still answers `insufficient_scope` after re-authorization.
    #[error("the server still refuses {what} with insufficient_scope (scope {scope:?}): {reason}")]
    InsufficientScope {
        /// The HTTP request refused (`POST http://…/mcp`).
        what: String,
        /// The scope the server asks for.
        scope: String,
        /// Why mcpr stopped (the token has the scope already, the retry limit).
        reason: String,
    },
    /// The target's OAuth settings cannot be used.
    #[error("the OAuth settings cannot be used: {0}")]
    Settings(String),
}

impl OAuthError {
    /// The registered code of this failure.
    pub fn run_code(&self) -> RunCode {
        match self {
            OAuthError::Discovery { .. } => RunCode::OAuthDiscovery,
            OAuthError::MetadataRefused { .. } => RunCode::OAuthMetadataRefused,
            OAuthError::NoClient { .. } => RunCode::OAuthNoClient,
            OAuthError::LoginRequired { .. } => RunCode::OAuthLoginRequired,
            OAuthError::AuthorizationResponse { .. } => RunCode::OAuthAuthorizationResponse,
            OAuthError::TokenRefused { .. } => RunCode::OAuthTokenRefused,
            OAuthError::InsufficientScope { .. } => RunCode::OAuthInsufficientScope,
            OAuthError::Settings(_) => RunCode::OAuthSettings,
        }
    }

    /// The failure as a request's error: its code and its words.
    pub fn error_kind(&self) -> ErrorKind {
        ErrorKind::OAuth {
            code: self.run_code(),
            message: self.to_string(),
        }
    }
}
