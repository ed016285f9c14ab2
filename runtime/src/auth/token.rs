//! Token endpoint requests: the authorization code (with the PKCE verifier), refresh,
//! client credentials, a JWT as the grant (RFC 7523 §2.1), and the token exchange at an
//! enterprise identity provider (RFC 8693). Client authentication as the client's method
//! says; a DPoP proof (RFC 9449 §5) when DPoP is on, sent again with the server's nonce
//! when it asks for one (§8). Every token received joins the redaction list at once.

use std::sync::Mutex;

use base64::Engine as _;
use mcpr_compiler::ir::TokenEndpointAuth;
use serde_json::Value;

use super::OAuthError;
use super::discovery::AuthServer;
use super::fetch::{Answer, Fetch, form_value};
use super::jose::{SigningKey, client_assertion, dpop_proof, now};
use super::registration::ClientIdentity;
use super::settings::IdpConfig;

/// The grant type of RFC 7523 §2.1.
pub const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/// The grant type of RFC 8693.
pub const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";

/// The DPoP key of a target and the nonces its servers handed out.
#[derive(Debug)]
pub struct DpopState {
    /// The proof key (one per target for the run).
    pub key: SigningKey,
    /// The authorization server's latest `DPoP-Nonce`.
    pub as_nonce: Mutex<Option<String>>,
    /// The MCP server's latest `DPoP-Nonce`.
    pub rs_nonce: Mutex<Option<String>>,
}

impl DpopState {
    /// A fresh key.
    pub fn new() -> Result<DpopState, String> {
        Ok(DpopState {
            key: SigningKey::generate()?,
            as_nonce: Mutex::new(None),
            rs_nonce: Mutex::new(None),
        })
    }
}

/// Tokens from a token endpoint.
#[derive(Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenSet {
    /// The access token.
    pub access_token: String,
    /// `Bearer` or `DPoP`.
    pub token_type: String,
    /// When it expires (seconds since the epoch), if the server said.
    pub expires_at: Option<u64>,
    /// The refresh token, if one was issued.
    pub refresh_token: Option<String>,
    /// The scope granted (as the server said, else as requested).
    pub scope: Option<String>,
    /// The authorization server that issued it.
    pub issuer: String,
}

impl std::fmt::Debug for TokenSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenSet")
            .field("token_type", &self.token_type)
            .field("expires_at", &self.expires_at)
            .field("refresh_token", &self.refresh_token.as_ref().map(|_| "…"))
            .field("scope", &self.scope)
            .field("issuer", &self.issuer)
            .finish_non_exhaustive()
    }
}

impl TokenSet {
    /// True for a DPoP-bound token.
    pub fn is_dpop(&self) -> bool {
        self.token_type.eq_ignore_ascii_case("dpop")
    }

    /// True when the token has expired or expires within `margin` seconds.
    pub fn expired(&self, margin: u64) -> bool {
        self.expires_at.is_some_and(|at| at <= now() + margin)
    }
}

/// One authorization server's token endpoint, with the client that calls it.
pub struct TokenCall<'a> {
    /// The HTTP clients.
    pub fetch: &'a Fetch,
    /// The authorization server.
    pub server: &'a AuthServer,
    /// The client, if the grant has one.
    pub client: Option<&'a ClientIdentity>,
    /// The `private_key_jwt` key.
    pub key: Option<&'a SigningKey>,
    /// DPoP, when on.
    pub dpop: Option<&'a DpopState>,
}

impl TokenCall<'_> {
    /// Sends a token request of `grant` with `form` (the grant's own parameters) and
    /// returns the tokens; `scope` is what was asked for (kept when the answer names none).
    pub async fn request(
        &self,
        grant: &str,
        form: Vec<(&str, String)>,
        scope: Option<&str>,
    ) -> Result<TokenSet, OAuthError> {
        let endpoint = &self.server.token_endpoint;
        let refused = |reason: String| OAuthError::TokenRefused {
            endpoint: endpoint.clone(),
            grant: short_grant(grant).to_string(),
            reason,
        };
        let mut form = form;
        form.insert(0, ("grant_type", grant.to_string()));
        let mut headers = Vec::new();
        if let Some(client) = self.client {
            self.authenticate(client, &mut form, &mut headers)
                .map_err(&refused)?;
        }
        let mut answer = self
            .post(endpoint, &form, &headers)
            .await
            .map_err(&refused)?;
        if let Some(dpop) = self.dpop
            && answer.status == 400
            && error_code(&answer) == Some("use_dpop_nonce")
            && answer.dpop_nonce.is_some()
        {
            // RFC 9449 §8: once more, with the nonce the server gave.
            *dpop.as_nonce.lock().expect("nonce lock") = answer.dpop_nonce.clone();
            answer = self
                .post(endpoint, &form, &headers)
                .await
                .map_err(&refused)?;
        }
        if let (Some(dpop), Some(n)) = (self.dpop, &answer.dpop_nonce) {
            *dpop.as_nonce.lock().expect("nonce lock") = Some(n.clone());
        }
        if !answer.ok() {
            return Err(refused(answer.oauth_error()));
        }
        tokens(&answer, scope, &self.server.issuer, &self.fetch.secrets).map_err(refused)
    }

    async fn post(
        &self,
        endpoint: &str,
        form: &[(&str, String)],
        headers: &[(String, String)],
    ) -> Result<Answer, String> {
        let mut headers = headers.to_vec();
        if let Some(dpop) = self.dpop {
            let nonce = dpop.as_nonce.lock().expect("nonce lock").clone();
            headers.push((
                "DPoP".into(),
                dpop_proof(&dpop.key, "POST", endpoint, nonce.as_deref(), None)?,
            ));
        }
        self.fetch.post_form(endpoint, form, &headers).await
    }

    fn authenticate(
        &self,
        client: &ClientIdentity,
        form: &mut Vec<(&str, String)>,
        headers: &mut Vec<(String, String)>,
    ) -> Result<(), String> {
        let secret = || {
            client.client_secret.clone().ok_or_else(|| {
                format!(
                    "client {} authenticates with a secret, and none was given",
                    client.client_id
                )
            })
        };
        match client.auth {
            TokenEndpointAuth::None => form.push(("client_id", client.client_id.clone())),
            TokenEndpointAuth::ClientSecretBasic => {
                // RFC 6749 §2.3.1: both form-encoded, then base64.
                let pair = format!(
                    "{}:{}",
                    form_value(&client.client_id),
                    form_value(&secret()?)
                );
                let b64 = base64::engine::general_purpose::STANDARD.encode(pair);
                self.fetch.secrets.learn(&b64);
                headers.push(("Authorization".into(), format!("Basic {b64}")));
            }
            TokenEndpointAuth::ClientSecretPost => {
                form.push(("client_id", client.client_id.clone()));
                form.push(("client_secret", secret()?));
            }
            TokenEndpointAuth::PrivateKeyJwt => {
                let key = self
                    .key
                    .ok_or("private_key_jwt needs the settings' privateKey")?;
                let assertion = client_assertion(key, &client.client_id, &self.server.issuer)?;
                self.fetch.secrets.learn(&assertion);
                form.push((
                    "client_assertion_type",
                    "urn:ietf:params:oauth:client-assertion-type:jwt-bearer".into(),
                ));
                form.push(("client_assertion", assertion));
            }
        }
        Ok(())
    }
}

fn short_grant(grant: &str) -> &str {
    match grant {
        JWT_BEARER => "jwt-bearer",
        TOKEN_EXCHANGE => "token-exchange",
        g => g,
    }
}

fn error_code(a: &Answer) -> Option<&str> {
    a.json.as_ref()?.get("error")?.as_str()
}

/// The tokens of a successful answer.
fn tokens(
    answer: &Answer,
    requested: Option<&str>,
    issuer: &str,
    secrets: &crate::redact::Learned,
) -> Result<TokenSet, String> {
    let doc = answer.json.as_ref().ok_or("the answer is not JSON")?;
    let access_token = doc
        .get("access_token")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .ok_or("the answer has no access_token")?
        .to_string();
    secrets.learn(&access_token);
    let refresh_token = doc
        .get("refresh_token")
        .and_then(Value::as_str)
        .map(str::to_string);
    if let Some(r) = &refresh_token {
        secrets.learn(r);
    }
    let expires_at = doc
        .get("expires_in")
        .and_then(|v| v.as_u64().or_else(|| v.as_str()?.parse().ok()))
        .map(|s| now() + s);
    Ok(TokenSet {
        access_token,
        token_type: doc
            .get("token_type")
            .and_then(Value::as_str)
            .unwrap_or("Bearer")
            .to_string(),
        expires_at,
        refresh_token,
        scope: doc
            .get("scope")
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| requested.map(str::to_string)),
        issuer: issuer.to_string(),
    })
}

/// The token exchange at the enterprise identity provider (SEP-990 §4): the user's
/// identity assertion for an ID-JAG whose audience is the MCP server's authorization
/// server. Returns the ID-JAG.
pub async fn identity_assertion_grant(
    fetch: &Fetch,
    idp: &IdpConfig,
    idp_token_endpoint: &str,
    audience: &str,
    resource: &str,
    scope: Option<&str>,
) -> Result<String, OAuthError> {
    let refused = |reason: String| OAuthError::TokenRefused {
        endpoint: idp_token_endpoint.to_string(),
        grant: "token-exchange".into(),
        reason,
    };
    let mut form = vec![
        ("grant_type", TOKEN_EXCHANGE.to_string()),
        (
            "requested_token_type",
            "urn:ietf:params:oauth:token-type:id-jag".to_string(),
        ),
        ("audience", audience.to_string()),
        ("resource", resource.to_string()),
        ("subject_token", idp.id_token.clone()),
        (
            "subject_token_type",
            "urn:ietf:params:oauth:token-type:id_token".to_string(),
        ),
    ];
    if let Some(s) = scope {
        form.push(("scope", s.to_string()));
    }
    if let Some(id) = &idp.client_id {
        form.push(("client_id", id.clone()));
    }
    if let Some(secret) = &idp.client_secret {
        form.push(("client_secret", secret.clone()));
    }
    let answer = fetch
        .post_form(idp_token_endpoint, &form, &[])
        .await
        .map_err(refused)?;
    if !answer.ok() {
        return Err(refused(answer.oauth_error()));
    }
    let jag = answer
        .json
        .as_ref()
        .and_then(|d| d.get("access_token"))
        .and_then(Value::as_str)
        .ok_or_else(|| refused("the answer has no access_token (the ID-JAG)".into()))?
        .to_string();
    fetch.secrets.learn(&jag);
    Ok(jag)
}

/// The settings' DPoP choice against what the servers say: on when asked for (`dpop:
/// true`), off when refused (`dpop: false`), else when the MCP server's challenge uses
/// the `DPoP` scheme or its metadata requires bound tokens.
pub fn dpop_wanted(
    setting: Option<bool>,
    challenge_dpop: bool,
    required_by_resource: bool,
) -> bool {
    setting.unwrap_or(challenge_dpop || required_by_resource)
}
