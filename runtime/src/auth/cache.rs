//! Where tokens live. In memory, one [`Shared`] state per target and settings for the
//! whole process, so the sessions of a run (a test each) share one authorization. On
//! disk, the token cache: one file per target and settings (their hash names it) in a
//! folder only the user may enter (0700), each file readable by the user only (0600),
//! holding the tokens and the client identity needed to refresh them. `--no-token-cache`,
//! `tokenCache: false` or `MCPR_TOKEN_CACHE=off` keep everything in memory.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::OAuthError;
use super::discovery::{AuthServer, ProtectedResource};
use super::registration::ClientIdentity;
use super::settings::OAuthConfig;
use super::token::{DpopState, TokenSet};
use crate::files::{Access, write_atomic};

/// The OAuth state of one target and settings.
#[derive(Default)]
pub struct State {
    /// Counts the tokens obtained; a request's credentials carry the count they were made
    /// with, so a refusal of older credentials is answered by sending again.
    pub generation: u64,
    /// The current tokens.
    pub token: Option<TokenSet>,
    /// The checked protected-resource metadata.
    pub resource: Option<ProtectedResource>,
    /// The checked authorization-server metadata.
    pub server: Option<AuthServer>,
    /// Client identities by issuer (SEP-2352: never used at another issuer).
    pub clients: HashMap<String, ClientIdentity>,
    /// Every scope asked for so far (a re-authorization asks for their union with the
    /// challenge's).
    pub requested: Vec<String>,
    /// The DPoP key and nonces, once DPoP is on.
    pub dpop: Option<Arc<DpopState>>,
    /// A failure that would only repeat (refused credentials, a login page): later
    /// requests get it at once instead of asking again.
    pub failure: Option<OAuthError>,
    /// The redirect URI of the last authorization request (a registered client keeps it).
    pub redirect_uri: Option<String>,
    /// The disk cache was read.
    pub cache_read: bool,
}

/// The state of one target and settings, and the lock that lets one flow run at a time.
#[derive(Default)]
pub struct Shared {
    /// Held while a flow obtains tokens.
    pub flow: tokio::sync::Mutex<()>,
    /// The state.
    pub state: Mutex<State>,
}

/// The OAuth state of every target and settings one run has met, by [`key`]: tests on
/// the same server with the same settings share their tokens and take turns obtaining
/// them. The run owns it (in its context); two runs in one process share nothing.
#[derive(Clone, Default)]
pub struct States(Arc<Mutex<HashMap<String, Arc<Shared>>>>);

impl States {
    /// The state of `key` (see [`key`]), made empty the first time.
    pub fn of(&self, key: &str) -> Arc<Shared> {
        let mut all = self.0.lock().expect("oauth state lock");
        all.entry(key.to_string()).or_default().clone()
    }
}

impl std::fmt::Debug for States {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.0.lock().map(|m| m.len()).unwrap_or(0);
        write!(f, "States({n} targets)")
    }
}

/// What tells targets and settings apart: the server URL and every setting (secrets as
/// their hash), hashed.
pub fn key(server_url: &str, config: &OAuthConfig) -> String {
    let mut h = Sha256::new();
    let mut part = |s: &str| {
        h.update(s.as_bytes());
        h.update([0u8]);
    };
    part(server_url);
    part(&format!("{:?}", config.grant));
    for v in [
        &config.client_id,
        &config.client_secret,
        &config.client_metadata_url,
        &config.scope,
        &config.private_key,
        &config.assertion,
        &config.refresh_token,
        &config.redirect_uri,
    ] {
        part(v.as_deref().unwrap_or("-"));
    }
    part(&format!("{:?}{:?}", config.client_auth, config.dpop));
    if let Some(idp) = &config.idp {
        part(&idp.id_token);
        part(idp.token_endpoint.as_deref().unwrap_or("-"));
        part(idp.issuer.as_deref().unwrap_or("-"));
        part(idp.client_id.as_deref().unwrap_or("-"));
    }
    h.finalize()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// What the disk cache keeps of one target.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    /// The format of the file.
    pub version: u32,
    /// The MCP server (for people reading the folder).
    pub server: String,
    /// The tokens.
    pub token: TokenSet,
    /// The client that obtained them (to refresh them).
    pub client: Option<CachedClient>,
}

/// A client identity as cached.
#[derive(Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CachedClient {
    /// `client_id`.
    pub client_id: String,
    /// `client_secret`.
    pub client_secret: Option<String>,
    /// Its token endpoint authentication.
    pub auth: mcpr_compiler::ir::TokenEndpointAuth,
    /// Where it came from.
    pub kind: super::registration::ClientKind,
    /// Its issuer.
    pub issuer: String,
}

impl std::fmt::Debug for CachedClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CachedClient")
            .field("client_id", &self.client_id)
            .field("issuer", &self.issuer)
            .finish_non_exhaustive()
    }
}

impl From<&ClientIdentity> for CachedClient {
    fn from(c: &ClientIdentity) -> Self {
        CachedClient {
            client_id: c.client_id.clone(),
            client_secret: c.client_secret.clone(),
            auth: c.auth,
            kind: c.kind,
            issuer: c.issuer.clone(),
        }
    }
}

impl From<CachedClient> for ClientIdentity {
    fn from(c: CachedClient) -> Self {
        ClientIdentity {
            client_id: c.client_id,
            client_secret: c.client_secret,
            auth: c.auth,
            kind: c.kind,
            issuer: c.issuer,
        }
    }
}

/// The file of `key` in `dir`.
pub fn path(dir: &Path, key: &str) -> PathBuf {
    dir.join(format!("{key}.json"))
}

/// The cached entry of `key`, if there is a readable one of this format.
pub fn load(dir: &Path, key: &str) -> Option<Entry> {
    let text = std::fs::read_to_string(path(dir, key)).ok()?;
    let entry: Entry = serde_json::from_str(&text).ok()?;
    (entry.version == 1).then_some(entry)
}

/// Writes the entry of `key` (the folder is created 0700, the file is 0600).
pub fn save(dir: &Path, key: &str, entry: &Entry) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("cannot create the token cache {}: {e}", dir.display()))?;
    let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700));
    let text = serde_json::to_vec_pretty(entry).map_err(|e| e.to_string())?;
    write_atomic(&path(dir, key), &text, Access::Private)
}

/// Removes the entry of `key` (its tokens were refused).
pub fn remove(dir: &Path, key: &str) {
    let _ = std::fs::remove_file(path(dir, key));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_private_files_keyed_by_settings() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("oauth");
        let a = OAuthConfig::default();
        let b = OAuthConfig {
            scope: Some("x".into()),
            ..OAuthConfig::default()
        };
        let (ka, kb) = (key("http://h/mcp", &a), key("http://h/mcp", &b));
        assert_ne!(ka, kb);
        assert_ne!(ka, key("http://h/other", &a));
        assert_eq!(ka, key("http://h/mcp", &OAuthConfig::default()));
        let entry = Entry {
            version: 1,
            server: "http://h/mcp".into(),
            token: TokenSet {
                access_token: "at-1".into(),
                token_type: "Bearer".into(),
                expires_at: None,
                refresh_token: Some("rt-1".into()),
                scope: None,
                issuer: "http://as".into(),
            },
            client: None,
        };
        save(&cache, &ka, &entry).unwrap();
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&cache), 0o700);
        assert_eq!(mode(&path(&cache, &ka)), 0o600);
        assert_eq!(
            load(&cache, &ka).unwrap().token.refresh_token.as_deref(),
            Some("rt-1")
        );
        assert!(load(&cache, &kb).is_none());
        remove(&cache, &ka);
        assert!(load(&cache, &ka).is_none());
    }
}
