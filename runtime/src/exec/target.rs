//! What a test's session is made from: its target (with `${env.…}` and `${state.…}` filled
//! in) and the client behaviour the suite declares.

use std::collections::BTreeMap;
use std::time::Duration;

use mcpr_compiler::ir::{self};
use serde_json::{Map, Value};

use crate::client::Target;
use crate::redact::Inherit;
use crate::session::{ClientBehaviour, ElicitationAnswer, Root, SamplingAnswer};
use crate::transport::http::HttpConfig;
use crate::transport::stdio::StdioConfig;

use crate::values::Vars;

/// Everything one test needs besides the IR.
#[derive(Debug, Clone)]
pub struct TestInput {
    /// The server to run against (the suite target, a named server, or an override).
    pub target: ir::Target,
    /// Outputs of the dependencies: id → {key: value}.
    pub deps: Map<String, Value>,
    /// The loaded state (`${state.…}`), an object.
    pub state: Value,
    /// Deadline of the handshake; `None`: the test's default step timeout (the suite's
    /// `Default timeout`, else [`super::DEFAULT_TIMEOUT`]), so a server that hangs in
    /// `initialize` costs what a hanging call costs.
    pub connect_timeout: Option<Duration>,
    /// The protocol version to speak; probed when `None`.
    pub protocol: Option<String>,
    /// The snapshot store, shared by the tests of a run (`None`: snapshot expectations fail).
    pub snapshots: Option<std::sync::Arc<std::sync::Mutex<crate::snapshot::SnapshotStore>>>,
    /// Keep each step's response and the session's messages in the result.
    pub record: bool,
    /// Most bytes the session keeps waiting (`SessionConfig::max_buffered_bytes`).
    pub max_buffered_bytes: usize,
    /// Most JSON values of one message (`SessionConfig::max_message_values`).
    pub max_message_values: usize,
    /// Skip and record stdout lines that are not JSON
    /// (`SessionConfig::tolerate_stray_lines`).
    pub tolerate_stray_lines: bool,
    /// Keep the session's messages of a test that does not pass (for the HTML report).
    pub record_failed: bool,
    /// The default step deadline (`--timeout`), over the suite's `defaults.timeoutMs`.
    pub timeout: Option<Duration>,
    /// How long the server may take to exit after its stdin closes (`--shutdown-grace`),
    /// over the suite's `Shutdown grace:`.
    pub shutdown_grace: Option<crate::session::ShutdownGrace>,
    /// The run's context: its environment (`${env.…}`), CI, OAuth state and learned secrets.
    pub context: crate::context::RunContext,
    /// The suite's function host (`None`: only the built-in functions).
    pub functions: Option<std::sync::Arc<crate::functions::FunctionHost>>,
}

/// Which of the runner's variables a stdio target's server gets besides the base set: by
/// default all of them but the runner's credentials (seed 004); `false` the minimal
/// environment.
pub fn inherit_of(t: &ir::StdioTarget) -> Inherit {
    match &t.inherit_env {
        None => Inherit::AllButCredentials,
        Some(ir::InheritEnv::All(false)) => Inherit::Base,
        Some(ir::InheritEnv::All(true)) => Inherit::All,
        Some(ir::InheritEnv::Names(n)) => Inherit::Names(n.clone()),
    }
}

/// The names (never the values) of the runner's credential-like variables that the
/// servers of `targets` do not get, sorted and without repeats.
pub fn withheld_env<'t>(targets: impl IntoIterator<Item = &'t ir::Target>) -> Vec<String> {
    let runner = crate::redact::runner_env();
    let mut names: Vec<String> = Vec::new();
    for t in targets {
        if let ir::Target::Stdio(t) = t {
            let explicit = t
                .env
                .iter()
                .flat_map(|e| e.iter())
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect();
            let env = crate::redact::server_env(runner.clone(), &explicit, &inherit_of(t));
            names.extend(env.withheld);
        }
    }
    names.sort();
    names.dedup();
    names
}

/// Turns an IR target into a runtime target, interpolating `${env.…}` (from the run's
/// environment) and `${state.…}`; an OAuth target joins the run's OAuth clients.
pub fn runtime_target(
    target: &ir::Target,
    state: &Value,
    context: &crate::context::RunContext,
) -> Result<Target, String> {
    let mut vars = Vars::with_env(&context.env);
    vars.set("state", state.clone());
    let text = |s: &str| vars.interpolate_text(s);
    Ok(match target {
        ir::Target::Stdio(t) => {
            let args = t
                .args
                .iter()
                .flatten()
                .map(|a| text(a))
                .collect::<Result<Vec<_>, _>>()?;
            let mut stdio = StdioConfig::new(text(&t.command)?, args);
            if let Some(cwd) = &t.cwd {
                stdio.cwd = Some(text(cwd)?.into());
            }
            if let Some(env) = &t.env {
                for (k, v) in env.iter() {
                    stdio.env.insert(k.to_string(), text(v)?);
                }
            }
            stdio.inherit = inherit_of(t);
            Target::Stdio(stdio)
        }
        ir::Target::StreamableHttp(h) | ir::Target::Sse(h) => {
            if h.token_from.is_some() {
                return Err("the target's `tokenFrom` command has not been run (auth::resolve_credentials runs it before the tests)".into());
            }
            let mut http = HttpConfig::new(text(&h.url)?);
            if let Some(headers) = &h.headers {
                let mut map = BTreeMap::new();
                for (k, v) in headers.iter() {
                    map.insert(k.to_string(), text(v)?);
                }
                http.headers = map;
            }
            if let Some(oauth) = &h.oauth {
                let url = http.url.clone();
                http.auth = Some(crate::auth::oauth_hook(oauth, &url, &text, &context.auth)?);
            }
            if matches!(target, ir::Target::Sse(_)) {
                Target::Sse(http)
            } else {
                Target::Http(http)
            }
        }
    })
}

/// The suite's `client` block as the session's client behaviour.
///
/// Without settings the client declares sampling (answering “deterministic response” from
/// model `mcprigor-fixture`) and elicitation (answering `decline`) and no roots, as the
/// reference runner does.
pub fn client_behaviour(client: Option<&ir::ClientBehavior>) -> ClientBehaviour {
    let mut b = ClientBehaviour {
        sampling: Some(SamplingAnswer {
            text: "deterministic response".into(),
            model: "mcprigor-fixture".into(),
            ..SamplingAnswer::default()
        }),
        elicitation: Some(ElicitationAnswer {
            action: "decline".into(),
            content: None,
            url_mode: false,
        }),
        ..ClientBehaviour::default()
    };
    // The settings as JSON, as a `configure-client` step's are after interpolation.
    if let Some(Ok(Value::Object(client))) = client.map(serde_json::to_value) {
        apply_client_settings(&mut b, &client);
    }
    b
}

/// Applies `roots` / `sampling` / `elicitation` settings (the suite's `client` block or
/// a `configure-client` step's `behavior`) over a behaviour; absent keys keep theirs.
pub fn apply_client_settings(b: &mut ClientBehaviour, client: &Map<String, Value>) {
    if let Some(Value::Bool(only)) = client.get("preparedAnswersOnly") {
        b.prepared_answers_only = *only;
    }
    if let Some(Value::Object(ext)) = client.get("extensions") {
        for (k, v) in ext {
            b.extensions.insert(k.clone(), v.clone());
        }
    }
    if let Some(Value::Array(roots)) = client.get("roots") {
        b.roots = Some(
            roots
                .iter()
                .filter_map(|r| match r {
                    Value::String(uri) => Some(Root {
                        uri: uri.clone(),
                        name: None,
                    }),
                    Value::Object(o) => Some(Root {
                        uri: o.get("uri")?.as_str()?.to_string(),
                        name: o.get("name").and_then(Value::as_str).map(str::to_string),
                    }),
                    _ => None,
                })
                .collect(),
        );
    }
    if let Some(s) = client.get("sampling") {
        let mut answer = b.sampling.clone().unwrap_or_default();
        match s {
            Value::String(text) => answer.text = text.clone(),
            Value::Object(o) => {
                if let Some(t) = o
                    .get("text")
                    .or_else(|| o.get("response"))
                    .and_then(Value::as_str)
                {
                    answer.text = t.to_string();
                }
                if let Some(m) = o.get("model").and_then(Value::as_str) {
                    answer.model = m.to_string();
                }
            }
            _ => {}
        }
        b.sampling = Some(answer);
    }
    if let Some(e) = client.get("elicitation") {
        let mut answer = ElicitationAnswer {
            action: "accept".into(),
            content: None,
            url_mode: false,
        };
        match e {
            Value::String(action) => {
                answer.action = action.clone();
                answer.content = None;
            }
            Value::Object(o) => {
                if let Some(a) = o.get("action").and_then(Value::as_str) {
                    answer.action = a.to_string();
                }
                answer.content = o.get("content").cloned();
            }
            _ => {}
        }
        b.elicitation = Some(answer);
    }
}
