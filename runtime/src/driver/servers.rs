//! `open` and `close`: starting (or reaching) a server for a binding, and what the driver
//! keeps of it while it is open.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value, json};

use super::wire::{self, Failure};
use crate::client::{Client, Target};
use crate::redact::Inherit;
use crate::redact::Redactor;
use crate::session::{ProtocolChoice, SessionConfig};
use crate::transport::http::HttpConfig;
use crate::transport::stdio::StdioConfig;

/// The deadline of a start, and of each request, when the binding names none.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// An open server.
pub(crate) struct Open {
    /// Its handle (`mcp-1`, or the name the binding gave).
    pub name: String,
    /// The client on its session.
    pub client: Client,
    /// The secrets of its target (header and `env` values, the runner's credentials),
    /// masked in every failure.
    pub redactor: Redactor,
    /// The log level asked for at `open`: sent with each tool call in 2026-07-28, where
    /// the level belongs to the request (before, `logging/setLevel` set it once).
    pub log_level: Option<String>,
}

/// The params of `open`.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct OpenParams {
    command: Option<Vec<String>>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    inherit_env: InheritEnv,
    cwd: Option<PathBuf>,
    timeout_ms: Option<u64>,
    protocol: Option<String>,
    name: Option<String>,
    log_level: Option<String>,
}

/// Which of the driver's variables a stdio server gets.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
enum InheritEnv {
    /// Everything but what looks like a credential.
    #[default]
    All,
    /// The base set alone (PATH, HOME, locale, …).
    Minimal,
}

/// Starts or reaches the server and runs the handshake; the result is what `open`
/// answers. `n` numbers the default handle.
pub(crate) async fn open(params: Value, n: u64) -> Result<(Open, Value), Failure> {
    let p: OpenParams = wire::params("open", params)?;
    let timeout = p
        .timeout_ms
        .map(Duration::from_millis)
        .unwrap_or(DEFAULT_TIMEOUT);
    let env = crate::environment::Environment::of_process();
    let mut redactor = Redactor::new();
    redactor.add_credential_vars(&env);
    let target = match (p.command, p.url) {
        (Some(command), None) => {
            let Some((program, args)) = command.split_first() else {
                return Err(Failure::invalid("open: `command` is empty"));
            };
            let mut stdio = StdioConfig::new(program.clone(), args.iter().cloned());
            stdio.cwd = p.cwd;
            for v in p.env.values() {
                redactor.add(v);
            }
            stdio.env = p.env;
            stdio.inherit = match p.inherit_env {
                InheritEnv::All => Inherit::AllButCredentials,
                InheritEnv::Minimal => Inherit::Base,
            };
            Target::Stdio(stdio)
        }
        (None, Some(url)) => {
            let mut http = HttpConfig::new(url);
            for v in p.headers.values() {
                redactor.add_resolved(v, &env);
            }
            http.headers = p.headers;
            Target::Http(http)
        }
        _ => {
            return Err(Failure::invalid(
                "open: give `command` (an array: program and arguments) or `url`, not both",
            ));
        }
    };
    let config = SessionConfig {
        request_timeout: timeout,
        connect_timeout: timeout,
        protocol: match p.protocol {
            Some(v) => ProtocolChoice::Pinned(v),
            None => ProtocolChoice::Auto,
        },
        // A binding's server may print what is not protocol; the session goes on and
        // failures name those lines, as they name the stderr tail.
        strict: false,
        // Several servers and requests share the driver's threads: no wait may hold one.
        foreground_reads: false,
        ..SessionConfig::default()
    };
    let name = p.name.unwrap_or_else(|| format!("mcp-{n}"));
    let client = match Client::connect_to(target, config).await {
        Ok(c) => c,
        Err(e) => {
            // Without a session there is no transcript to read the stray lines from; the
            // last message tells the one that came last.
            let noise: Vec<String> = e
                .last_message
                .iter()
                .filter(|m| {
                    m.kind == crate::transcript::MessageKind::Invalid
                        && m.direction == crate::transcript::Direction::Received
                })
                .map(|m| m.text.clone())
                .collect();
            let mut f = Failure::from_error(&e, &name, &noise, &redactor);
            f.kind = "start-failed";
            f.message = format!("the MCP server did not come up: {}", f.message);
            return Err(f);
        }
    };
    if let Some(level) = &p.log_level
        && client.session().era() == crate::protocol::version::Era::Legacy
        && let Err(e) = client.set_log_level(level).await
    {
        let noise = crate::surface::stdout_noise(&client);
        let mut f = Failure::from_error(&e, &name, &noise, &redactor);
        f.message = format!("open: logging/setLevel {level:?} failed: {}", f.message);
        client.close().await;
        return Err(f);
    }
    let session = client.session();
    let facts = session.facts();
    let mut result = json!({
        "server": name,
        "serverInfo": facts.server_info,
        "protocolVersion": facts.protocol_version,
        "capabilities": facts.capabilities,
        "instructions": facts.instructions,
        "withheldEnv": session.withheld_env(),
    });
    if !session.is_http() {
        result["pid"] = json!(session.pid());
    }
    Ok((
        Open {
            name,
            client,
            redactor,
            log_level: p.log_level,
        },
        result,
    ))
}

impl Open {
    /// Stops the server; the result is what `close` answers.
    pub(crate) async fn close(&self) -> Value {
        let report = self.client.close().await;
        let tail = self.client.session().final_stderr_tail().await;
        let mut out = serde_json::Map::new();
        match &report.status {
            Some(status) => wire::exit_status(&mut out, status),
            None => {
                out.insert("exitStatus".into(), Value::Null);
            }
        }
        out.insert(
            "stderrTail".into(),
            json!(wire::tail_lines(&tail, &self.redactor)),
        );
        Value::Object(out)
    }

    /// A runtime failure of a request to this server, with its context.
    pub(crate) fn failure(&self, err: &crate::error::Error) -> Failure {
        let noise = crate::surface::stdout_noise(&self.client);
        Failure::from_error(err, &self.name, &noise, &self.redactor)
    }
}
