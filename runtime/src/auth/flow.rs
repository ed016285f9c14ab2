//! The OAuth client of one HTTP target, as the transport's authorization hook: it adds
//! the current token to every request and, when the server refuses one, obtains a token
//! the way the MCP authorization spec describes — discovery, client identity, the grant
//! (authorization code with PKCE and `resource`, client credentials, a JWT grant, the
//! enterprise identity assertion), refresh, step-up on `insufficient_scope` with a retry
//! limit — and has the request sent again.
//!
//! One flow runs at a time per target and settings; sessions share the tokens (see
//! [`super::cache`]).

use std::path::PathBuf;
use std::sync::Arc;

use mcpr_compiler::ir::OAuthGrant;
use reqwest::Url;

use super::OAuthError;
use super::agent::{self, Listener};
use super::cache::{self, Shared, State};
use super::challenge::{self, Challenge, split_scope};
use super::discovery::{self, AuthServer, ProtectedResource};
use super::fetch::Fetch;
use super::jose::{SigningKey, dpop_proof};
use super::pkce::{Pkce, random_text};
use super::registration::{self, ClientIdentity, ClientKind};
use super::settings::OAuthConfig;
use super::token::{
    DpopState, JWT_BEARER, TokenCall, TokenSet, dpop_wanted, identity_assertion_grant,
};
use crate::BoxFuture;
use crate::transport::auth::{Credentials, HttpAuth, Refusal, Verdict};

/// Most re-authorizations for one request after `insufficient_scope` (the spec's "no
/// more than a few times").
pub const MAX_STEP_UPS: u32 = 2;

/// Why a refusal is not answered with new credentials.
enum Stop {
    /// Report the server's refusal as it came (`MCP-AUTH-003`).
    AsRefused,
    /// An OAuth step failed.
    Failed(OAuthError),
}

impl From<OAuthError> for Stop {
    fn from(e: OAuthError) -> Stop {
        Stop::Failed(e)
    }
}

/// The OAuth client of one target.
pub struct Authorizer {
    server_url: String,
    config: OAuthConfig,
    key: String,
    shared: Arc<Shared>,
    fetch: Fetch,
    /// The run's token cache folder (used when the settings allow the cache).
    cache_dir: Option<PathBuf>,
    signing_key: Option<Arc<SigningKey>>,
}

impl std::fmt::Debug for Authorizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authorizer")
            .field("server_url", &self.server_url)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// What `mcpr auth-check` reports of the tokens a flow obtained (never the tokens).
#[derive(Debug, Clone, serde::Serialize)]
pub struct TokenSummary {
    /// `Bearer` or `DPoP`.
    pub token_type: String,
    /// The granted scope.
    pub scope: Option<String>,
    /// Seconds until it expires, if the server said.
    pub expires_in: Option<u64>,
    /// A refresh token was issued.
    pub refresh_token: bool,
    /// The issuer.
    pub issuer: String,
    /// Where the client identity came from.
    pub client: Option<ClientKind>,
}

impl Authorizer {
    /// The OAuth client of the MCP server at `server_url` with `config`. The settings'
    /// secrets join the redaction list; a cached token (if the cache is on) is taken up.
    pub fn new(
        server_url: &str,
        config: OAuthConfig,
        context: &super::Context,
    ) -> Result<Authorizer, OAuthError> {
        config.check().map_err(OAuthError::Settings)?;
        for s in config.secrets() {
            context.secrets.learn(&s);
        }
        let signing_key = config
            .private_key
            .as_deref()
            .map(SigningKey::from_pem)
            .transpose()
            .map_err(OAuthError::Settings)?
            .map(Arc::new);
        let key = cache::key(server_url, &config);
        let a = Authorizer {
            server_url: server_url.to_string(),
            shared: context.states.of(&key),
            fetch: Fetch::new(config.timeout, &context.secrets).map_err(OAuthError::Settings)?,
            cache_dir: context.token_cache.clone(),
            key,
            config,
            signing_key,
        };
        a.read_cache();
        Ok(a)
    }

    fn cache_dir(&self) -> Option<PathBuf> {
        if self.config.token_cache {
            self.cache_dir.clone()
        } else {
            None
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.shared.state.lock().expect("oauth state lock")
    }

    fn read_cache(&self) {
        let dir = self.cache_dir();
        let mut st = self.state();
        if st.cache_read {
            return;
        }
        st.cache_read = true;
        let Some(entry) = dir.and_then(|d| cache::load(&d, &self.key)) else {
            return;
        };
        if st.token.is_some() || entry.server != self.server_url {
            return;
        }
        self.fetch.secrets.learn(&entry.token.access_token);
        if let Some(r) = &entry.token.refresh_token {
            self.fetch.secrets.learn(r);
        }
        if let Some(c) = entry.client {
            if let Some(s) = &c.client_secret {
                self.fetch.secrets.learn(s);
            }
            st.clients.insert(c.issuer.clone(), c.into());
        }
        st.requested = split_scope(entry.token.scope.as_deref());
        st.token = Some(entry.token);
        st.generation += 1;
    }

    fn write_cache(&self, st: &State) {
        let (Some(dir), Some(token)) = (self.cache_dir(), &st.token) else {
            return;
        };
        let entry = cache::Entry {
            version: 1,
            server: self.server_url.clone(),
            token: token.clone(),
            client: st.clients.get(&token.issuer).map(Into::into),
        };
        // A cache that cannot be written costs a login next time, nothing more.
        let _ = cache::save(&dir, &self.key, &entry);
    }

    /// What the current tokens are, if there are any.
    pub fn summary(&self) -> Option<TokenSummary> {
        let st = self.state();
        let t = st.token.as_ref()?;
        Some(TokenSummary {
            token_type: t.token_type.clone(),
            scope: t.scope.clone(),
            expires_in: t.expires_at.map(|at| at.saturating_sub(super::jose::now())),
            refresh_token: t.refresh_token.is_some(),
            issuer: t.issuer.clone(),
            client: st.clients.get(&t.issuer).map(|c| c.kind),
        })
    }

    async fn handle(&self, r: Refusal) -> Verdict {
        let ch = challenge::pick(&r.www_authenticate, self.config.dpop != Some(false))
            .unwrap_or_default();
        // RFC 9449 §9: the MCP server wants a proof with its nonce.
        if r.status == 401 && ch.error.as_deref() == Some("use_dpop_nonce") && r.attempt <= 2 {
            let dpop = self.state().dpop.clone();
            if let (Some(n), Some(d)) = (&r.dpop_nonce, dpop) {
                *d.rs_nonce.lock().expect("nonce lock") = Some(n.clone());
                return Verdict::Retry;
            }
        }
        let _flow = self.shared.flow.lock().await;
        {
            let st = self.state();
            if let Some(f) = &st.failure {
                return Verdict::GiveUp(Some(f.error_kind()));
            }
            // Another request obtained newer tokens while this one was out.
            if r.status == 401 && st.token.is_some() && r.generation != st.generation {
                return Verdict::Retry;
            }
        }
        let done = if r.status == 403 {
            self.step_up(&ch, &r).await
        } else {
            self.obtain(&ch, &r).await
        };
        match done {
            Ok(()) => Verdict::Retry,
            Err(Stop::AsRefused) => Verdict::GiveUp(None),
            Err(Stop::Failed(e)) => {
                if !matches!(e, OAuthError::InsufficientScope { .. }) {
                    // It would only fail again: later requests get it at once.
                    self.state().failure = Some(e.clone());
                }
                Verdict::GiveUp(Some(e.error_kind()))
            }
        }
    }

    /// A 401: tokens for the first time, or again (refresh, else the grant).
    async fn obtain(&self, ch: &Challenge, r: &Refusal) -> Result<(), Stop> {
        let carried = r.generation != 0;
        if carried && r.attempt > 1 {
            // The server refuses a token obtained for this very request.
            return Err(Stop::AsRefused);
        }
        let (resource, server) = self.discover(ch, carried).await?;
        let dpop = self.dpop(ch, &resource)?;
        // A refresh token of the current tokens (same authorization server), else the
        // settings' own.
        let (refresh, from_settings) = {
            let st = self.state();
            match &st.token {
                Some(t) if t.issuer == server.issuer => (t.refresh_token.clone(), false),
                Some(_) => (None, false),
                None => (self.config.refresh_token.clone(), true),
            }
        };
        if let Some(rt) = refresh {
            match self.refresh(&resource, &server, &rt, dpop.as_deref()).await {
                Ok(t) => {
                    self.store(t);
                    return Ok(());
                }
                // The settings' refresh token was the way in: its refusal is the answer.
                Err(e) if from_settings => return Err(e.into()),
                Err(_) => {
                    if let Some(t) = &mut self.state().token {
                        t.refresh_token = None;
                    }
                }
            }
        }
        let scope = self.select_scope(Some(ch), &resource, &server, &[]);
        let t = self
            .grant(&resource, &server, scope, dpop.as_deref())
            .await?;
        self.store(t);
        Ok(())
    }

    /// A 403 with `insufficient_scope`: a new authorization with the union of what was
    /// asked for so far and what the challenge names, a few times at most.
    async fn step_up(&self, ch: &Challenge, r: &Refusal) -> Result<(), Stop> {
        if !ch.insufficient_scope() || r.generation == 0 {
            return Err(Stop::AsRefused);
        }
        let what = format!("{} {}", r.method, r.url);
        let challenged = ch.scopes();
        let scope = ch.scope.clone().unwrap_or_default();
        let fail = |reason: String| {
            Stop::Failed(OAuthError::InsufficientScope {
                what: what.clone(),
                scope: scope.clone(),
                reason,
            })
        };
        if challenged.is_empty() {
            return Err(fail("the challenge names no scope to ask for".into()));
        }
        let granted = {
            let st = self.state();
            split_scope(st.token.as_ref().and_then(|t| t.scope.as_deref()))
        };
        if challenged.iter().all(|s| granted.contains(s)) {
            return Err(fail(format!(
                "the token was granted {:?} already; authorizing again would ask for the same",
                granted.join(" ")
            )));
        }
        if r.attempt > MAX_STEP_UPS {
            return Err(fail(format!(
                "{MAX_STEP_UPS} re-authorizations did not satisfy it (retry limit)"
            )));
        }
        let (resource, server) = self.discover(ch, false).await?;
        let dpop = self.dpop(ch, &resource)?;
        let scope = self.select_scope(None, &resource, &server, &challenged);
        let t = self
            .grant(&resource, &server, scope, dpop.as_deref())
            .await?;
        self.store(t);
        Ok(())
    }

    /// The checked metadata: found again when a token was refused (the authorization
    /// server may have changed: then the old tokens go, and credentials of the old server
    /// are never presented to the new one).
    async fn discover(
        &self,
        ch: &Challenge,
        again: bool,
    ) -> Result<(ProtectedResource, AuthServer), OAuthError> {
        {
            let st = self.state();
            if !again && let (Some(r), Some(s)) = (&st.resource, &st.server) {
                return Ok((r.clone(), s.clone()));
            }
        }
        let mut trail = Vec::new();
        let resource = discovery::protected_resource(
            &self.fetch,
            &self.server_url,
            ch.resource_metadata.as_deref(),
            &mut trail,
        )
        .await?;
        let issuer = resource.authorization_servers[0].clone();
        let known = self.state().server.clone().filter(|s| s.issuer == issuer);
        let server = match known {
            Some(s) => s,
            None => {
                discovery::authorization_server(
                    &self.fetch,
                    &self.server_url,
                    &issuer,
                    resource.legacy(),
                    &mut trail,
                )
                .await?
            }
        };
        let mut st = self.state();
        if let Some(t) = &st.token
            && t.issuer != server.issuer
        {
            // SEP-2352: the server moved to another authorization server.
            let old = t.issuer.clone();
            st.token = None;
            if st
                .clients
                .get(&old)
                .is_some_and(|c| c.kind == ClientKind::Configured)
            {
                return Err(OAuthError::NoClient {
                    issuer: server.issuer.clone(),
                    reason: format!(
                        "the pre-registered client belongs to {old}, and the server now names {}; register the client there and give its `clientId`",
                        server.issuer
                    ),
                });
            }
        }
        st.resource = Some(resource.clone());
        st.server = Some(server.clone());
        Ok((resource, server))
    }

    /// The DPoP state when DPoP is on (started at the first need).
    fn dpop(
        &self,
        ch: &Challenge,
        resource: &ProtectedResource,
    ) -> Result<Option<Arc<DpopState>>, OAuthError> {
        let required = resource
            .document
            .get("dpop_bound_access_tokens_required")
            .and_then(serde_json::Value::as_bool)
            .unwrap_or(false);
        let mut st = self.state();
        if st.dpop.is_none() && dpop_wanted(self.config.dpop, ch.wants_dpop(), required) {
            st.dpop = Some(Arc::new(DpopState::new().map_err(OAuthError::Settings)?));
        }
        Ok(st.dpop.clone())
    }

    /// The scope to ask for: the settings' scope, else the challenge's, else every scope
    /// of the protected-resource metadata (none when it lists none); with the scopes asked
    /// for before and `extra` (a step-up's challenge), and `offline_access` when the
    /// authorization server lists it and the grant can use a refresh token.
    fn select_scope(
        &self,
        ch: Option<&Challenge>,
        resource: &ProtectedResource,
        server: &AuthServer,
        extra: &[String],
    ) -> Option<String> {
        let base = match (&self.config.scope, ch) {
            (Some(s), _) => split_scope(Some(s)),
            (None, Some(c)) if c.scope.is_some() => c.scopes(),
            _ if extra.is_empty() => resource.scopes_supported.clone().unwrap_or_default(),
            _ => Vec::new(),
        };
        let mut st = self.state();
        let mut all = st.requested.clone();
        for s in base.iter().chain(extra) {
            if !all.contains(s) {
                all.push(s.clone());
            }
        }
        let offline = "offline_access";
        if self.config.offline_access
            && self.config.grant == OAuthGrant::AuthorizationCode
            && server.lists_scope(offline)
            && !all.iter().any(|s| s == offline)
        {
            all.push(offline.into());
        }
        st.requested = all.clone();
        (!all.is_empty()).then(|| all.join(" "))
    }

    fn store(&self, t: TokenSet) {
        let mut st = self.state();
        st.token = Some(t);
        st.generation += 1;
        self.write_cache(&st);
    }

    fn call<'a>(
        &'a self,
        server: &'a AuthServer,
        client: Option<&'a ClientIdentity>,
        dpop: Option<&'a DpopState>,
    ) -> TokenCall<'a> {
        TokenCall {
            fetch: &self.fetch,
            server,
            client,
            key: self.signing_key.as_deref(),
            dpop,
        }
    }

    /// The client of the settings or the one that obtained the current tokens.
    fn known_client(&self, server: &AuthServer) -> Option<ClientIdentity> {
        if let Some(c) = self.state().clients.get(&server.issuer) {
            return Some(c.clone());
        }
        let id = self.config.client_id.as_deref()?;
        let c = registration::configured(&self.config, server, id);
        self.state()
            .clients
            .insert(server.issuer.clone(), c.clone());
        Some(c)
    }

    async fn refresh(
        &self,
        resource: &ProtectedResource,
        server: &AuthServer,
        refresh_token: &str,
        dpop: Option<&DpopState>,
    ) -> Result<TokenSet, OAuthError> {
        let client = self.known_client(server);
        let form = vec![
            ("refresh_token", refresh_token.to_string()),
            ("resource", resource.resource.clone()),
        ];
        let mut t = self
            .call(server, client.as_ref(), dpop)
            .request("refresh_token", form, None)
            .await?;
        if t.refresh_token.is_none() {
            t.refresh_token = Some(refresh_token.to_string());
        }
        if t.scope.is_none() {
            t.scope = self.state().token.as_ref().and_then(|o| o.scope.clone());
        }
        Ok(t)
    }

    /// Tokens by the settings' grant.
    async fn grant(
        &self,
        resource: &ProtectedResource,
        server: &AuthServer,
        scope: Option<String>,
        dpop: Option<&DpopState>,
    ) -> Result<TokenSet, OAuthError> {
        let mut form = vec![("resource", resource.resource.clone())];
        if let Some(s) = &scope {
            form.push(("scope", s.clone()));
        }
        let scope = scope.as_deref();
        match self.config.grant {
            OAuthGrant::AuthorizationCode => {
                self.authorization_code(resource, server, scope, dpop).await
            }
            OAuthGrant::ClientCredentials => {
                let client = self.known_client(server);
                self.call(server, client.as_ref(), dpop)
                    .request("client_credentials", form, scope)
                    .await
            }
            OAuthGrant::JwtBearer => {
                let client = self.known_client(server);
                let assertion = self.config.assertion.clone().unwrap_or_default();
                form.insert(0, ("assertion", assertion));
                self.call(server, client.as_ref(), dpop)
                    .request(JWT_BEARER, form, scope)
                    .await
            }
            OAuthGrant::IdentityAssertion => {
                let idp = self.config.idp.clone().ok_or_else(|| {
                    OAuthError::Settings("grant identity_assertion needs idp".into())
                })?;
                let endpoint = match (&idp.token_endpoint, &idp.issuer) {
                    (Some(e), _) => e.clone(),
                    (None, Some(issuer)) => {
                        let mut trail = Vec::new();
                        discovery::authorization_server(
                            &self.fetch,
                            &self.server_url,
                            issuer,
                            false,
                            &mut trail,
                        )
                        .await?
                        .token_endpoint
                    }
                    (None, None) => {
                        return Err(OAuthError::Settings(
                            "idp needs tokenEndpoint or issuer".into(),
                        ));
                    }
                };
                let jag = identity_assertion_grant(
                    &self.fetch,
                    &idp,
                    &endpoint,
                    &server.issuer,
                    &resource.resource,
                    scope,
                )
                .await?;
                form.insert(0, ("assertion", jag));
                let client = self.known_client(server);
                self.call(server, client.as_ref(), dpop)
                    .request(JWT_BEARER, form, scope)
                    .await
            }
        }
    }

    /// The authorization code grant with PKCE `S256`, `state`, `resource`, the recorded
    /// issuer checked against `iss`, mcpr following the redirects.
    async fn authorization_code(
        &self,
        resource: &ProtectedResource,
        server: &AuthServer,
        scope: Option<&str>,
        dpop: Option<&DpopState>,
    ) -> Result<TokenSet, OAuthError> {
        let s256 = server
            .code_challenge_methods
            .as_ref()
            .is_some_and(|m| m.iter().any(|x| x == "S256"));
        if !s256 {
            return Err(OAuthError::MetadataRefused {
                reason: format!(
                    "the authorization server {} does not list S256 in code_challenge_methods_supported; a client must not use it without PKCE",
                    server.issuer
                ),
            });
        }
        let endpoint =
            server
                .authorization_endpoint
                .clone()
                .ok_or_else(|| OAuthError::Discovery {
                    server: self.server_url.clone(),
                    reason: format!(
                        "the metadata of {} has no authorization_endpoint",
                        server.issuer
                    ),
                })?;
        // The redirect URI registered before, so that a registered client stays usable.
        let registered = self.state().clients.get(&server.issuer).cloned();
        let wanted = self
            .config
            .redirect_uri
            .clone()
            .or_else(|| self.state().redirect_uri.clone());
        let mut listener = match Listener::start(wanted.as_deref()).await {
            Ok(l) => l,
            Err(_) if wanted.is_some() && self.config.redirect_uri.is_none() => {
                // The old port is taken: a new one, and a new registration with it.
                self.state().redirect_uri = None;
                if registered
                    .as_ref()
                    .is_some_and(|c| c.kind == ClientKind::Registered)
                {
                    self.state().clients.remove(&server.issuer);
                }
                Listener::start(None).await.map_err(OAuthError::Settings)?
            }
            Err(e) => return Err(OAuthError::Settings(e)),
        };
        let redirect_uri = listener
            .as_ref()
            .map(|l| l.redirect_uri.clone())
            .or_else(|| self.config.redirect_uri.clone())
            .unwrap_or_default();
        let known = self.state().clients.get(&server.issuer).cloned();
        let client = match known {
            Some(c) => c,
            None => {
                let c = registration::identity(&self.fetch, &self.config, server, &redirect_uri)
                    .await?;
                let mut st = self.state();
                st.clients.insert(server.issuer.clone(), c.clone());
                c
            }
        };
        self.state().redirect_uri = Some(redirect_uri.clone());
        let pkce = Pkce::new().map_err(OAuthError::Settings)?;
        self.fetch.secrets.learn(&pkce.verifier);
        let state = random_text(16).map_err(OAuthError::Settings)?;
        let mut url = Url::parse(&endpoint).map_err(|e| OAuthError::Discovery {
            server: self.server_url.clone(),
            reason: format!("the authorization_endpoint {endpoint:?} is not a URL: {e}"),
        })?;
        {
            let mut q = url.query_pairs_mut();
            q.append_pair("response_type", "code");
            q.append_pair("client_id", &client.client_id);
            q.append_pair("redirect_uri", &redirect_uri);
            q.append_pair("code_challenge", &pkce.challenge);
            q.append_pair("code_challenge_method", "S256");
            q.append_pair("state", &state);
            q.append_pair("resource", &resource.resource);
            if let Some(s) = scope {
                q.append_pair("scope", s);
            }
        }
        let cb = agent::follow(&self.fetch, &url, &redirect_uri, listener.as_mut()).await?;
        drop(listener);
        let code = agent::check(&cb, &state, &server.issuer, server.iss_parameter)?;
        self.fetch.secrets.learn(&code);
        let form = vec![
            ("code", code),
            ("redirect_uri", redirect_uri),
            ("code_verifier", pkce.verifier.clone()),
            ("resource", resource.resource.clone()),
        ];
        self.call(server, Some(&client), dpop)
            .request("authorization_code", form, scope)
            .await
    }
}

impl HttpAuth for Authorizer {
    fn credentials(&self, method: &str, url: &str) -> Credentials {
        let st = self.state();
        let Some(t) = &st.token else {
            return Credentials::default();
        };
        let mut headers = Vec::new();
        match (&st.dpop, t.is_dpop()) {
            (Some(d), true) => {
                let nonce = d.rs_nonce.lock().expect("nonce lock").clone();
                headers.push(("Authorization".into(), format!("DPoP {}", t.access_token)));
                if let Ok(p) =
                    dpop_proof(&d.key, method, url, nonce.as_deref(), Some(&t.access_token))
                {
                    headers.push(("DPoP".into(), p));
                }
            }
            _ => headers.push(("Authorization".into(), format!("Bearer {}", t.access_token))),
        }
        Credentials {
            headers,
            generation: st.generation,
        }
    }

    fn refused(&self, refusal: Refusal) -> BoxFuture<'_, Verdict> {
        Box::pin(self.handle(refusal))
    }

    fn accepted(&self, dpop_nonce: Option<&str>) {
        if let Some(n) = dpop_nonce
            && let Some(d) = &self.state().dpop
        {
            *d.rs_nonce.lock().expect("nonce lock") = Some(n.to_string());
        }
    }
}
