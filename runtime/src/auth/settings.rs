//! The OAuth settings of one target, resolved (`${env.…}` filled in) and checked: who the
//! client is, which grant obtains tokens, and the switches (DPoP, `offline_access`, the
//! token cache).

use std::path::PathBuf;
use std::time::Duration;

use mcpr_compiler::ir::{self, OAuthGrant, TokenEndpointAuth};

/// The settings of the enterprise identity provider (`identity_assertion` grant).
#[derive(Clone, PartialEq)]
pub struct IdpConfig {
    /// The user's identity assertion (ID token).
    pub id_token: String,
    /// The identity provider's token endpoint, if given.
    pub token_endpoint: Option<String>,
    /// The identity provider's issuer, if given (its token endpoint is discovered).
    pub issuer: Option<String>,
    /// Client id at the identity provider.
    pub client_id: Option<String>,
    /// Client secret at the identity provider.
    pub client_secret: Option<String>,
}

/// How one target obtains OAuth tokens.
#[derive(Clone, PartialEq)]
pub struct OAuthConfig {
    /// The grant.
    pub grant: OAuthGrant,
    /// A pre-registered client id.
    pub client_id: Option<String>,
    /// Its secret.
    pub client_secret: Option<String>,
    /// An HTTPS URL used as the client id (Client ID Metadata Document).
    pub client_metadata_url: Option<String>,
    /// `client_name` in a dynamic registration.
    pub client_name: String,
    /// Scopes to ask for instead of the scope selection strategy.
    pub scope: Option<String>,
    /// Token endpoint authentication instead of the one chosen from the metadata.
    pub client_auth: Option<TokenEndpointAuth>,
    /// PEM (PKCS #8) EC P-256 private key for `private_key_jwt`.
    pub private_key: Option<String>,
    /// The assertion of the `jwt_bearer` grant.
    pub assertion: Option<String>,
    /// The identity provider of the `identity_assertion` grant.
    pub idp: Option<IdpConfig>,
    /// A refresh token to start from.
    pub refresh_token: Option<String>,
    /// The redirect URI (default: a loopback listener on 127.0.0.1, any free port).
    pub redirect_uri: Option<String>,
    /// DPoP: `Some(true)` always, `Some(false)` never, `None` when the server asks.
    pub dpop: Option<bool>,
    /// Ask for `offline_access` when the authorization server lists it.
    pub offline_access: bool,
    /// Read and write the token cache (where the run's [`super::Context`] keeps it).
    pub token_cache: bool,
    /// Deadline of each OAuth HTTP request.
    pub timeout: Duration,
}

impl std::fmt::Debug for OAuthConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never a secret: only which settings are present.
        f.debug_struct("OAuthConfig")
            .field("grant", &self.grant)
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "…"))
            .field("client_metadata_url", &self.client_metadata_url)
            .field("scope", &self.scope)
            .field("client_auth", &self.client_auth)
            .field("dpop", &self.dpop)
            .finish_non_exhaustive()
    }
}

impl Default for OAuthConfig {
    fn default() -> Self {
        OAuthConfig {
            grant: OAuthGrant::AuthorizationCode,
            client_id: None,
            client_secret: None,
            client_metadata_url: None,
            client_name: "mcpr".into(),
            scope: None,
            client_auth: None,
            private_key: None,
            assertion: None,
            idp: None,
            refresh_token: None,
            redirect_uri: None,
            dpop: None,
            offline_access: true,
            token_cache: true,
            timeout: Duration::from_secs(30),
        }
    }
}

impl OAuthConfig {
    /// The settings of an IR `oauth` value, each text through `text` (which fills in
    /// `${env.…}` and `${state.…}`), checked.
    pub fn from_ir(
        oauth: &ir::OAuth,
        text: &dyn Fn(&str) -> Result<String, String>,
    ) -> Result<OAuthConfig, String> {
        let mut c = OAuthConfig::default();
        let ir::OAuth::Settings(s) = oauth else {
            return match oauth {
                ir::OAuth::Enabled(true) => Ok(c),
                _ => Err("`oauth: false` is not a setting; leave `oauth` out".into()),
            };
        };
        let opt = |v: &Option<String>| v.as_deref().map(text).transpose();
        c.grant = s.grant.unwrap_or_default();
        c.client_id = opt(&s.client_id)?;
        c.client_secret = opt(&s.client_secret)?;
        c.client_metadata_url = opt(&s.client_metadata_url)?;
        c.scope = opt(&s.scope)?;
        c.client_auth = s.token_endpoint_auth;
        c.private_key = opt(&s.private_key)?;
        c.assertion = opt(&s.assertion)?;
        c.refresh_token = opt(&s.refresh_token)?;
        c.redirect_uri = opt(&s.redirect_uri)?;
        c.dpop = s.dpop;
        c.offline_access = s.offline_access.unwrap_or(true);
        c.token_cache = s.token_cache.unwrap_or(true);
        if let Some(idp) = &s.idp {
            c.idp = Some(IdpConfig {
                id_token: text(&idp.id_token)?,
                token_endpoint: opt(&idp.token_endpoint)?,
                issuer: opt(&idp.issuer)?,
                client_id: opt(&idp.client_id)?,
                client_secret: opt(&idp.client_secret)?,
            });
        }
        c.check()?;
        Ok(c)
    }

    /// Refuses settings that cannot work, naming what is missing.
    pub fn check(&self) -> Result<(), String> {
        if let Some(url) = &self.client_metadata_url {
            let ok = reqwest::Url::parse(url)
                .is_ok_and(|u| u.scheme() == "https" && u.path() != "/" && u.fragment().is_none());
            if !ok {
                return Err(format!(
                    "clientMetadataUrl {url:?} must be an https URL with a path (the client id of a Client ID Metadata Document)"
                ));
            }
        }
        if let Some(uri) = &self.redirect_uri {
            let ok = reqwest::Url::parse(uri).is_ok_and(|u| {
                u.scheme() == "https"
                    || (u.scheme() == "http"
                        && matches!(u.host_str(), Some("127.0.0.1" | "localhost" | "[::1]")))
            });
            if !ok {
                return Err(format!(
                    "redirectUri {uri:?} must be an https URL or an http URL on localhost or 127.0.0.1"
                ));
            }
        }
        if self.client_secret.is_some() && self.client_id.is_none() {
            return Err("clientSecret needs the clientId it belongs to".into());
        }
        let wants_key = self.client_auth == Some(TokenEndpointAuth::PrivateKeyJwt);
        if wants_key && self.private_key.is_none() {
            return Err("tokenEndpointAuth private_key_jwt needs privateKey".into());
        }
        if let Some(pem) = &self.private_key {
            super::jose::SigningKey::from_pem(pem)?;
            if self.client_id.is_none() {
                return Err("privateKey needs the clientId it belongs to".into());
            }
        }
        match self.grant {
            OAuthGrant::AuthorizationCode => {}
            OAuthGrant::ClientCredentials => {
                if self.client_id.is_none()
                    || (self.client_secret.is_none() && self.private_key.is_none())
                {
                    return Err(
                        "grant client_credentials needs clientId and clientSecret (or privateKey): the client is pre-registered".into(),
                    );
                }
            }
            OAuthGrant::JwtBearer => {
                if self.assertion.is_none() {
                    return Err("grant jwt_bearer needs assertion (the JWT to present)".into());
                }
            }
            OAuthGrant::IdentityAssertion => match &self.idp {
                None => {
                    return Err(
                        "grant identity_assertion needs idp: {idToken, tokenEndpoint or issuer}"
                            .into(),
                    );
                }
                Some(idp) if idp.token_endpoint.is_none() && idp.issuer.is_none() => {
                    return Err(
                        "idp needs tokenEndpoint or issuer (to discover the token endpoint)".into(),
                    );
                }
                Some(_) if self.client_id.is_none() => {
                    return Err(
                        "grant identity_assertion needs the clientId registered at the authorization server".into(),
                    );
                }
                Some(_) => {}
            },
        }
        Ok(())
    }

    /// Every secret of these settings, for the redaction list.
    pub fn secrets(&self) -> Vec<String> {
        let mut out: Vec<String> = [
            &self.client_secret,
            &self.private_key,
            &self.assertion,
            &self.refresh_token,
        ]
        .into_iter()
        .flatten()
        .cloned()
        .collect();
        if let Some(idp) = &self.idp {
            out.push(idp.id_token.clone());
            out.extend(idp.client_secret.clone());
        }
        if let Some(pem) = &self.private_key {
            // The key's base64 body, line by line, wherever a piece of it shows up.
            out.extend(
                pem.lines()
                    .map(str::trim)
                    .filter(|l| !l.starts_with("-----") && l.len() >= 16)
                    .map(str::to_string),
            );
        }
        out
    }
}

/// The IR's `oauth` from `key=value` pairs (`mcpr tools --oauth-setting …`; the keys of the
/// suite's `oauth` block, `true`/`false` as switches); no pairs is `oauth: true`.
pub fn oauth_from_pairs(pairs: &[String]) -> Result<ir::OAuth, String> {
    if pairs.is_empty() {
        return Ok(ir::OAuth::Enabled(true));
    }
    let mut m = serde_json::Map::new();
    for p in pairs {
        let (k, v) = p
            .split_once('=')
            .ok_or_else(|| format!("--oauth-setting `{p}` is not `key=value`"))?;
        let v = match v {
            "true" => serde_json::Value::Bool(true),
            "false" => serde_json::Value::Bool(false),
            _ => serde_json::Value::String(v.to_string()),
        };
        m.insert(k.trim().to_string(), v);
    }
    serde_json::from_value(serde_json::Value::Object(m))
        .map(ir::OAuth::Settings)
        .map_err(|e| format!("--oauth-setting: {e}"))
}

/// Where the token cache is, from the environment the command was started in (`env`
/// looks a variable up): `MCPR_TOKEN_CACHE` (a folder, or `off`), else
/// `$XDG_CACHE_HOME/mcpr/oauth`, else `~/.cache/mcpr/oauth`; `None` when it is off.
pub fn token_cache_dir(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    match env("MCPR_TOKEN_CACHE") {
        Some(v) if v == "off" || v == "0" || v.is_empty() => return None,
        Some(v) => return Some(PathBuf::from(v)),
        None => {}
    }
    let base = env("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| env("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("mcpr").join("oauth"))
}
