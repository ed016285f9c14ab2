//! One-shot operations for the CLI's ad-hoc commands (`mcpr tools -- CMD`, `mcpr call TOOL
//! '{json}' -- CMD`, `mcpr ping -- CMD`): start the server, run the handshake, do one thing,
//! shut the server down (always, also on failure). `AdhocOptions::http(url)` talks
//! Streamable HTTP instead.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::client::{CallOptions, Client, Target};
use crate::error::{Error, ErrorKind};
use crate::session::{ProtocolChoice, SessionConfig};
use crate::transport::auth::HttpAuth;
use crate::transport::http::HttpConfig;
use crate::transport::stdio::StdioConfig;

/// What an ad-hoc command needs.
#[derive(Debug, Clone)]
pub struct AdhocOptions {
    /// The server program.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Working directory.
    pub cwd: Option<PathBuf>,
    /// Extra environment (passed even when credential-like).
    pub env: BTreeMap<String, String>,
    /// Pin a protocol version (`--protocol`); probe when `None`.
    pub protocol: Option<String>,
    /// Deadline of the handshake and of the request.
    pub timeout: Duration,
    /// Talk Streamable HTTP to this URL instead of starting `command`.
    pub url: Option<String>,
    /// Extra HTTP headers (`Authorization`, …) for `url`.
    pub headers: BTreeMap<String, String>,
    /// The OAuth client of `url` (see [`AdhocOptions::with_oauth`]), if any.
    pub auth: Option<Arc<dyn HttpAuth>>,
    /// Skip (and record) stdout lines that are not JSON instead of stopping the session
    /// (`SessionConfig::tolerate_stray_lines`).
    pub tolerate_stray_lines: bool,
}

impl AdhocOptions {
    /// Options for a command line with the default 30 s deadline.
    pub fn new(
        command: impl Into<String>,
        args: impl IntoIterator<Item = impl Into<String>>,
    ) -> AdhocOptions {
        AdhocOptions {
            command: command.into(),
            args: args.into_iter().map(Into::into).collect(),
            cwd: None,
            env: BTreeMap::new(),
            protocol: None,
            timeout: Duration::from_secs(30),
            url: None,
            headers: BTreeMap::new(),
            auth: None,
            tolerate_stray_lines: false,
        }
    }

    /// Gives the HTTP `url` the OAuth client with `oauth` (the IR's `oauth` setting; its
    /// texts may use `${env.…}`, read from the command's `context`), sharing the command's
    /// OAuth state, token cache and learned secrets. The error says which setting is wrong.
    pub fn with_oauth(
        &mut self,
        oauth: &mcpr_compiler::ir::OAuth,
        context: &crate::context::RunContext,
    ) -> Result<(), String> {
        let Some(url) = &self.url else {
            return Err("OAuth needs an HTTP server (`--url`)".into());
        };
        let vars = crate::values::Vars::with_env(&context.env);
        let text = |s: &str| vars.interpolate_text(s);
        self.auth = Some(crate::auth::oauth_hook(oauth, url, &text, &context.auth)?);
        Ok(())
    }

    /// Options for a Streamable HTTP endpoint with the default 30 s deadline.
    pub fn http(url: impl Into<String>) -> AdhocOptions {
        let mut o = AdhocOptions::new(String::new(), Vec::<String>::new());
        o.url = Some(url.into());
        o
    }

    /// Starts (or reaches) the server and runs the handshake.
    pub async fn connect(&self) -> Result<Client, Error> {
        Client::connect_to(self.target(), self.session_config()).await
    }

    /// Where the server is: the Streamable HTTP `url` with its headers, else the command.
    pub fn target(&self) -> Target {
        match &self.url {
            Some(url) => {
                let mut http = HttpConfig::new(url.clone());
                http.headers = self.headers.clone();
                http.auth = self.auth.clone();
                Target::Http(http)
            }
            None => {
                let mut stdio = StdioConfig::new(self.command.clone(), self.args.clone());
                stdio.cwd = self.cwd.clone();
                stdio.env = self.env.clone();
                Target::Stdio(stdio)
            }
        }
    }

    /// The session settings: the deadline for the handshake and each request, the protocol.
    pub fn session_config(&self) -> SessionConfig {
        SessionConfig {
            request_timeout: self.timeout,
            connect_timeout: self.timeout,
            protocol: match &self.protocol {
                Some(v) => ProtocolChoice::Pinned(v.clone()),
                None => ProtocolChoice::Auto,
            },
            tolerate_stray_lines: self.tolerate_stray_lines,
            ..SessionConfig::default()
        }
    }
}

/// What `mcpr ping` reports (camelCase, as the run report: `protocolVersion`, `startupMs`).
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PingReport {
    /// `legacy` or `modern`.
    pub era: crate::protocol::Era,
    /// The negotiated version.
    pub protocol_version: String,
    /// The server's `serverInfo`.
    pub server_info: Value,
    /// Milliseconds from spawn to a finished handshake.
    pub startup_ms: f64,
    /// Milliseconds of the ping round trip.
    pub round_trip_ms: f64,
    /// Names of environment variables withheld as credentials.
    pub withheld_env: Vec<String>,
}

async fn with_client<T, F>(opts: &AdhocOptions, f: F) -> Result<T, Error>
where
    F: AsyncFnOnce(&Client) -> Result<T, Error>,
{
    let client = opts.connect().await?;
    let out = f(&client).await;
    client.close().await;
    out
}

/// Lists the server's tools: `{"tools": [...]}` with every page followed.
pub async fn list_tools(opts: &AdhocOptions) -> Result<Value, Error> {
    with_client(opts, async |c: &Client| {
        Ok(json!({"tools": c.list_tools().await?}))
    })
    .await
}

/// Calls one tool and returns its result. An `isError` result is returned (not a failure)
/// so the caller can print it and choose the exit code; `outputSchema` is checked.
pub async fn call_tool(opts: &AdhocOptions, tool: &str, arguments: Value) -> Result<Value, Error> {
    if !arguments.is_object() {
        return Err(Error::new(ErrorKind::Usage(format!(
            "tool arguments must be a JSON object, not {arguments}"
        ))));
    }
    with_client(opts, async |c: &Client| {
        let copts = CallOptions {
            allow_error: true,
            ..Default::default()
        };
        Ok(c.call_tool(tool, arguments, &copts).await?.result)
    })
    .await
}

/// Starts the server, runs the handshake and one ping round trip.
pub async fn ping(opts: &AdhocOptions) -> Result<PingReport, Error> {
    let start = Instant::now();
    let client = opts.connect().await?;
    let startup = start.elapsed();
    let rtt = client.ping(Some(opts.timeout)).await;
    let facts = client.session().facts().clone();
    let withheld = client.session().withheld_env().to_vec();
    client.close().await;
    let rtt = rtt?;
    Ok(PingReport {
        era: facts.era,
        protocol_version: facts.protocol_version,
        server_info: facts.server_info,
        startup_ms: startup.as_secs_f64() * 1000.0,
        round_trip_ms: rtt.as_secs_f64() * 1000.0,
        withheld_env: withheld,
    })
}
