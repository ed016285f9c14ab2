//! Who the client is at an authorization server, in the spec's order of preference: a
//! pre-registered client from the settings, a Client ID Metadata Document URL where the
//! server supports them, else dynamic client registration (RFC 7591) where it offers it.
//! And how the client authenticates at the token endpoint.

use mcpr_compiler::ir::TokenEndpointAuth;
use serde_json::{Value, json};

use super::OAuthError;
use super::discovery::AuthServer;
use super::fetch::Fetch;
use super::settings::OAuthConfig;

/// Where a client identity came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClientKind {
    /// The settings' `clientId` (pre-registration).
    Configured,
    /// The settings' `clientMetadataUrl` (portable across authorization servers).
    MetadataDocument,
    /// Dynamic client registration at this authorization server.
    Registered,
}

/// A client identity at one authorization server.
#[derive(Clone, PartialEq)]
pub struct ClientIdentity {
    /// `client_id`.
    pub client_id: String,
    /// `client_secret`, for confidential clients.
    pub client_secret: Option<String>,
    /// How it authenticates at the token endpoint.
    pub auth: TokenEndpointAuth,
    /// Where it came from.
    pub kind: ClientKind,
    /// The issuer it belongs to (SEP-2352: credentials are keyed by issuer).
    pub issuer: String,
}

impl std::fmt::Debug for ClientIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientIdentity")
            .field("client_id", &self.client_id)
            .field("auth", &self.auth)
            .field("kind", &self.kind)
            .field("issuer", &self.issuer)
            .finish_non_exhaustive()
    }
}

/// The registry name of a token endpoint authentication method.
pub fn auth_name(a: TokenEndpointAuth) -> &'static str {
    match a {
        TokenEndpointAuth::None => "none",
        TokenEndpointAuth::ClientSecretBasic => "client_secret_basic",
        TokenEndpointAuth::ClientSecretPost => "client_secret_post",
        TokenEndpointAuth::PrivateKeyJwt => "private_key_jwt",
    }
}

fn auth_from_name(name: &str) -> Option<TokenEndpointAuth> {
    Some(match name {
        "none" => TokenEndpointAuth::None,
        "client_secret_basic" => TokenEndpointAuth::ClientSecretBasic,
        "client_secret_post" => TokenEndpointAuth::ClientSecretPost,
        "private_key_jwt" => TokenEndpointAuth::PrivateKeyJwt,
        _ => return None,
    })
}

/// How a client with (or without) a secret or key authenticates at `server`: the settings'
/// choice, else what the server lists, preferring a key, then HTTP Basic, then the body.
pub fn choose_auth(
    config: &OAuthConfig,
    server: &AuthServer,
    has_secret: bool,
    registered: Option<TokenEndpointAuth>,
) -> TokenEndpointAuth {
    if let Some(a) = config.client_auth.or(registered) {
        return a;
    }
    if config.private_key.is_some() && server.accepts_auth("private_key_jwt") {
        return TokenEndpointAuth::PrivateKeyJwt;
    }
    if has_secret {
        if server.accepts_auth("client_secret_basic") {
            return TokenEndpointAuth::ClientSecretBasic;
        }
        if server.accepts_auth("client_secret_post") {
            return TokenEndpointAuth::ClientSecretPost;
        }
        if config.private_key.is_some() {
            return TokenEndpointAuth::PrivateKeyJwt;
        }
        return TokenEndpointAuth::ClientSecretBasic;
    }
    if config.private_key.is_some() {
        return TokenEndpointAuth::PrivateKeyJwt;
    }
    TokenEndpointAuth::None
}

/// The client identity for the authorization code grant at `server` (`redirect_uri` is
/// registered when the client registers dynamically).
pub async fn identity(
    fetch: &Fetch,
    config: &OAuthConfig,
    server: &AuthServer,
    redirect_uri: &str,
) -> Result<ClientIdentity, OAuthError> {
    if let Some(id) = &config.client_id {
        return Ok(configured(config, server, id));
    }
    if let Some(url) = &config.client_metadata_url
        && server.client_id_metadata_document
    {
        let auth = if config.private_key.is_some() {
            TokenEndpointAuth::PrivateKeyJwt
        } else {
            TokenEndpointAuth::None
        };
        return Ok(ClientIdentity {
            client_id: url.clone(),
            client_secret: None,
            auth: config.client_auth.unwrap_or(auth),
            kind: ClientKind::MetadataDocument,
            issuer: server.issuer.clone(),
        });
    }
    let Some(endpoint) = &server.registration_endpoint else {
        let cimd = if config.client_metadata_url.is_some() {
            "it does not support Client ID Metadata Documents and "
        } else {
            "it "
        };
        return Err(OAuthError::NoClient {
            issuer: server.issuer.clone(),
            reason: format!(
                "{cimd}offers no dynamic client registration; give the target's `oauth` a pre-registered `clientId` (and `clientSecret`){}",
                if config.client_metadata_url.is_none() && server.client_id_metadata_document {
                    ", or a `clientMetadataUrl` (it supports Client ID Metadata Documents)"
                } else {
                    ""
                }
            ),
        });
    };
    register(fetch, config, server, endpoint, redirect_uri).await
}

/// The pre-registered client of the settings.
pub fn configured(config: &OAuthConfig, server: &AuthServer, id: &str) -> ClientIdentity {
    ClientIdentity {
        client_id: id.to_string(),
        client_secret: config.client_secret.clone(),
        auth: choose_auth(config, server, config.client_secret.is_some(), None),
        kind: ClientKind::Configured,
        issuer: server.issuer.clone(),
    }
}

/// Dynamic client registration (RFC 7591), as a native application (a CLI on the
/// loopback interface) that wants refresh tokens.
async fn register(
    fetch: &Fetch,
    config: &OAuthConfig,
    server: &AuthServer,
    endpoint: &str,
    redirect_uri: &str,
) -> Result<ClientIdentity, OAuthError> {
    let method = match &server.token_auth_methods {
        Some(list) if list.iter().any(|m| m == "none") => "none",
        Some(list) if list.iter().any(|m| m == "client_secret_basic") => "client_secret_basic",
        Some(list) if list.iter().any(|m| m == "client_secret_post") => "client_secret_post",
        _ => "none",
    };
    let mut body = json!({
        "client_name": config.client_name,
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": method,
        "application_type": "native",
    });
    if let Some(scope) = &config.scope {
        body["scope"] = json!(scope);
    }
    let refused = |reason: String| OAuthError::NoClient {
        issuer: server.issuer.clone(),
        reason: format!(
            "dynamic client registration at {endpoint} failed: {reason}; give the target's `oauth` a pre-registered `clientId` instead"
        ),
    };
    let answer = fetch.post_json(endpoint, &body).await.map_err(refused)?;
    if !answer.ok() {
        return Err(refused(answer.oauth_error()));
    }
    let doc = answer.json.unwrap_or(Value::Null);
    let Some(client_id) = doc.get("client_id").and_then(Value::as_str) else {
        return Err(refused("the answer has no client_id".into()));
    };
    let client_secret = doc
        .get("client_secret")
        .and_then(Value::as_str)
        .map(str::to_string);
    if let Some(s) = &client_secret {
        fetch.secrets.learn(s);
    }
    let registered = doc
        .get("token_endpoint_auth_method")
        .and_then(Value::as_str)
        .and_then(auth_from_name);
    let auth = choose_auth(config, server, client_secret.is_some(), registered);
    Ok(ClientIdentity {
        client_id: client_id.to_string(),
        client_secret,
        auth,
        kind: ClientKind::Registered,
        issuer: server.issuer.clone(),
    })
}
