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
    /// passes (PATH, HOME, LANG, LC_*, TZ, TMPDIR, USER, LOGNAME, SHELL, TERM).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<OrderedMap<String>>,
    /// More of the runner's own environment to pass on: `true` for all of it, or a list of
    /// names and `*` globs. Absent or `false`: the base set alone.
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
pub enum OAuth {
    /// `oauth: true` (the schema allows only `true`).
    Enabled(bool),
    /// `oauth: {clientId, clientSecret, scope}`.
    Settings(OAuthSettings),
}

/// Client details for the OAuth authorization-code login.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OAuthSettings {
    /// Pre-registered client id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// Client secret for confidential clients.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// Requested scopes, space-separated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}
