//! Where a suite's MCP server lives: a local process or a URL.

use serde::{Deserialize, Serialize};

use super::map::OrderedMap;

/// One MCP server to connect to, told apart by its `transport` field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "transport")]
pub enum Target {
    /// A child process spoken to over stdin/stdout (`transport: stdio`).
    #[serde(rename = "stdio")]
    Stdio(StdioTarget),
    /// A server behind one HTTP endpoint (`transport: streamable-http`).
    #[serde(rename = "streamable-http")]
    StreamableHttp(HttpTarget),
    /// A server using the older HTTP+SSE transport (`transport: sse`, an mcpr addition).
    #[serde(rename = "sse")]
    Sse(HttpTarget),
}

impl Target {
    /// A stdio target running `command` with `args` and no other settings.
    pub fn stdio(command: impl Into<String>, args: Vec<String>) -> Self {
        Self::Stdio(StdioTarget {
            command: command.into(),
            args: Some(args),
            cwd: None,
            env: None,
            inherit_env: None,
        })
    }

    /// A Streamable HTTP target at `url` with no other settings.
    pub fn http(url: impl Into<String>) -> Self {
        Self::StreamableHttp(HttpTarget::new(url))
    }
}

/// Settings of a server started as a local process.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StdioTarget {
    /// Program to start (looked up on `PATH`, never run through a shell).
    pub command: String,
    /// Arguments passed to the program, one string each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<String>>,
    /// Working directory of the process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Environment variables the server gets, besides the base set the runner always
    /// passes (PATH, HOME, LANG, LC_*, TZ, TMPDIR, USER, LOGNAME, SHELL, TERM, CARGO_*, RUSTUP_*).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<OrderedMap<String>>,
    /// How much of the runner's own environment to pass on. Absent: all of it but the
    /// variables that look like credentials (by name or value); `true`: all of it; `false`:
    /// the base set alone (a minimal environment); a list: the base set and these names and
    /// `*` globs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inherit_env: Option<InheritEnv>,
}

/// The `inheritEnv` setting of a server started as a command.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum InheritEnv {
    /// `true`: the runner's whole environment; `false`: the base set alone.
    All(bool),
    /// Names (`NODE_OPTIONS`) and globs (`AWS_*`) of variables to pass on.
    Names(Vec<String>),
}

/// Settings of a server reached over HTTP.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HttpTarget {
    /// Endpoint URL.
    pub url: String,
    /// Extra HTTP headers sent with every request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<OrderedMap<String>>,
    /// Command whose output is a bearer token, run once per run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_from: Option<String>,
    /// Interactive OAuth login before the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth: Option<OAuth>,
}

impl HttpTarget {
    /// An HTTP target at `url` with no headers, token command or OAuth.
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            headers: None,
            token_from: None,
            oauth: None,
        }
    }
}

/// The `oauth` setting: `true` for defaults, or an object with client settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
// One value per target, read once: its size does not matter, and boxing would make every
// literal of it noisier.
#[allow(clippy::large_enum_variant)]
pub enum OAuth {
    /// `oauth: true` (the schema allows only `true`): discovery, a Client ID Metadata
    /// Document or dynamic registration, the authorization code with PKCE.
    Enabled(bool),
    /// `oauth: {clientId, clientSecret, scope, grant, …}`.
    Settings(OAuthSettings),
}

/// How the runner obtains access tokens for an OAuth target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum OAuthGrant {
    /// The authorization code with PKCE, mcpr acting as the user agent (the default).
    #[default]
    #[serde(rename = "authorization_code")]
    AuthorizationCode,
    /// Client credentials of a pre-registered client (machine to machine).
    #[serde(rename = "client_credentials")]
    ClientCredentials,
    /// A JWT assertion (`assertion`, e.g. a workload identity token) as the grant
    /// (RFC 7523).
    #[serde(rename = "jwt_bearer")]
    JwtBearer,
    /// Enterprise-managed authorization: an identity assertion from the identity provider
    /// (`idp`) exchanged for an ID-JAG, then the ID-JAG as a JWT grant.
    #[serde(rename = "identity_assertion")]
    IdentityAssertion,
}
every_variant!(OAuthGrant: AuthorizationCode, ClientCredentials, JwtBearer, IdentityAssertion);

/// How the client authenticates at the token endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TokenEndpointAuth {
    /// A public client: `client_id` in the body, no secret.
    #[serde(rename = "none")]
    None,
    /// HTTP Basic with the client id and secret.
    #[serde(rename = "client_secret_basic")]
    ClientSecretBasic,
    /// The client id and secret in the request body.
    #[serde(rename = "client_secret_post")]
    ClientSecretPost,
    /// A JWT signed with `privateKey` (RFC 7523 client authentication).
    #[serde(rename = "private_key_jwt")]
    PrivateKeyJwt,
}
every_variant!(TokenEndpointAuth: None, ClientSecretBasic, ClientSecretPost, PrivateKeyJwt);

/// Client details for OAuth: who the client is and how it obtains tokens.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OAuthSettings {
    /// How tokens are obtained (default `authorization_code`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant: Option<OAuthGrant>,
    /// Pre-registered client id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// Client secret for confidential clients.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// Requested scopes, space-separated (instead of the scope selection strategy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// An HTTPS URL used as the client id where the authorization server supports Client
    /// ID Metadata Documents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_metadata_url: Option<String>,
    /// Token endpoint authentication (default: chosen from the server's metadata).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth: Option<TokenEndpointAuth>,
    /// PEM (PKCS #8) EC P-256 private key for `private_key_jwt`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private_key: Option<String>,
    /// The JWT assertion of the `jwt_bearer` grant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assertion: Option<String>,
    /// A refresh token to start from (no authorization step needed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// The redirect URI to use (default: a loopback listener on 127.0.0.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect_uri: Option<String>,
    /// Sender-constrained tokens (DPoP, RFC 9449): `true` always, `false` never; by
    /// default when the server's challenge asks for DPoP.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop: Option<bool>,
    /// Ask for `offline_access` when the authorization server lists it (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offline_access: Option<bool>,
    /// Keep tokens in the token cache between runs (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_cache: Option<bool>,
    /// The identity provider of the `identity_assertion` grant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idp: Option<OAuthIdp>,
}

/// The enterprise identity provider of the `identity_assertion` grant.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OAuthIdp {
    /// The identity assertion (an OpenID Connect ID token) of the user.
    pub id_token: String,
    /// The identity provider's token endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint: Option<String>,
    /// The identity provider's issuer (its token endpoint is discovered when
    /// `tokenEndpoint` is absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
    /// The client id at the identity provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// The client secret at the identity provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
}
