//! Credentials of HTTP targets.
//!
//! - [`token_from`]: `Token from` commands and header credentials, settled once per run.
//! - The OAuth 2.1 client of the MCP authorization spec (docs/oauth.md), as the HTTP
//!   transport's authorization hook ([`Authorizer`]): [`challenge`] (`WWW-Authenticate`),
//!   [`discovery`] (protected-resource and authorization-server metadata),
//!   [`registration`] (client identity), [`pkce`], [`agent`] (the loopback redirect
//!   listener and the redirects followed), [`token`] (token endpoint requests, DPoP),
//!   [`jose`] (ES256 keys, JWTs), [`cache`] (shared state and the token cache), [`flow`]
//!   (the whole of it), [`check`] (`mcpr auth-check`), [`settings`], [`failure`].

pub mod agent;
pub mod cache;
pub mod challenge;
pub mod check;
pub mod discovery;
pub mod failure;
pub mod fetch;
pub mod flow;
pub mod jose;
pub mod pkce;
pub mod registration;
pub mod settings;
pub mod token;
pub mod token_from;

pub use failure::OAuthError;
pub use flow::{Authorizer, TokenSummary};
pub use settings::{OAuthConfig, token_cache_dir};
pub use token_from::{TOKEN_TIMEOUT, TokenCache, resolve_credentials, run_token_command};

use std::path::PathBuf;
use std::sync::Arc;

use crate::redact::Learned;
use crate::transport::auth::HttpAuth;

/// What the OAuth clients of one run share, decided by the command that starts the run:
/// their state by target and settings, the token cache folder (`None`: tokens live in
/// memory for the run only, as `--no-token-cache` asks) and the secrets the run learns
/// (tokens, codes, verifiers), which every report masks. The default keeps no cache.
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// Each target's state.
    pub states: cache::States,
    /// The token cache folder, if tokens are cached on disk.
    pub token_cache: Option<PathBuf>,
    /// The run's learned secrets.
    pub secrets: Learned,
}

/// The authorization hook of an `oauth` target at `url`: its settings with every text
/// through `text` (`${env.…}`, `${state.…}`), checked. The error says which setting is
/// wrong.
pub fn oauth_hook(
    oauth: &mcpr_compiler::ir::OAuth,
    url: &str,
    text: &dyn Fn(&str) -> Result<String, String>,
    context: &Context,
) -> Result<Arc<dyn HttpAuth>, String> {
    let config = OAuthConfig::from_ir(oauth, text)?;
    let a = Authorizer::new(url, config, context).map_err(|e| e.to_string())?;
    Ok(Arc::new(a))
}

/// The OAuth settings of `key=value` pairs (see [`settings::oauth_from_pairs`]), their
/// `${env.…}` filled in from `env`, checked.
pub fn config_from_pairs(
    pairs: &[String],
    env: &crate::environment::Environment,
) -> Result<OAuthConfig, String> {
    let oauth = settings::oauth_from_pairs(pairs)?;
    let vars = crate::values::Vars::with_env(env);
    OAuthConfig::from_ir(&oauth, &|s: &str| vars.interpolate_text(s))
}
