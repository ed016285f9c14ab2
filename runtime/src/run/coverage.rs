//! Coverage after a suite ran: each server its tests used is listed once more, in a
//! session of its own with the suite's client behaviour, and compared with what the tests
//! exercised ([`crate::coverage`]).

use std::collections::BTreeMap;

use mcpr_compiler::ir::Suite;

use crate::client::Client;
use crate::coverage::{self, Coverage, Exercised};
use crate::schedule::{RunOptions, RunResult};
use crate::session::{ProtocolChoice, SessionConfig};

/// What `--coverage` and `--min-coverage` ask for.
#[derive(Debug, Clone, Copy, Default)]
pub struct CoverageSettings {
    /// Measure and print coverage (`--coverage`).
    pub enabled: bool,
    /// The least coverage in percent (`--min-coverage`, over the suite's own
    /// `minimumCoverage`); measuring follows.
    pub minimum: Option<f64>,
}

/// Whether the settings or the suite ask for coverage.
pub(super) fn asked(suite: &Suite, settings: CoverageSettings) -> bool {
    settings.enabled || settings.minimum.or(suite.minimum_coverage).is_some()
}

/// The coverage of `run`, or `None` when neither the settings nor the suite ask for it.
pub(super) async fn measure(
    suite: &Suite,
    run: &RunResult,
    opts: &RunOptions,
    settings: CoverageSettings,
) -> Option<Coverage> {
    let minimum = settings.minimum.or(suite.minimum_coverage);
    if !asked(suite, settings) || run.interrupted.is_some() {
        return None;
    }
    // The servers the tests name (`None`: the default one), with what each exercised.
    let mut used: BTreeMap<Option<String>, Exercised> = BTreeMap::new();
    for t in &suite.tests {
        used.entry(t.server.clone()).or_default();
    }
    for t in &run.tests {
        used.entry(t.exercised.server.clone())
            .or_default()
            .merge(&t.exercised);
    }
    let default = crate::schedule::default_target(suite, opts.target.as_ref());
    let mut servers = Vec::new();
    let mut unlisted = Vec::new();
    for (name, exercised) in &used {
        let label = name.clone().unwrap_or_else(|| "default".into());
        let target = match name {
            Some(n) => suite.servers.as_ref().and_then(|s| s.get(n)).cloned(),
            None => default.clone(),
        };
        let Some(target) = target else {
            continue;
        };
        match list(suite, &target, opts).await {
            Ok(surface) => servers.push(coverage::of_server(&label, &surface, exercised)),
            Err(why) => unlisted.push(format!("{label}: {why}")),
        }
    }
    Some(Coverage::new(servers, minimum, unlisted))
}

/// Lists what one server advertises.
async fn list(
    suite: &Suite,
    target: &mcpr_compiler::ir::Target,
    opts: &RunOptions,
) -> Result<crate::surface::Surface, String> {
    let runtime = crate::exec::runtime_target(target, &opts.state, &opts.context)?;
    let timeout = opts.timeout.unwrap_or_else(|| {
        suite.defaults.as_ref().and_then(|d| d.timeout_ms).map_or(
            crate::exec::DEFAULT_TIMEOUT,
            std::time::Duration::from_millis,
        )
    });
    let config = SessionConfig {
        request_timeout: timeout,
        connect_timeout: opts.connect_timeout.unwrap_or(timeout),
        behaviour: crate::exec::client_behaviour(suite.client.as_ref()),
        strict: false,
        protocol: match &opts.protocol {
            Some(v) => ProtocolChoice::Pinned(v.clone()),
            None => ProtocolChoice::Auto,
        },
        ..SessionConfig::default()
    };
    let client = Client::connect_to(runtime, config)
        .await
        .map_err(|e| e.to_string())?;
    let listed = crate::surface::list(&client).await;
    client.close().await;
    listed.map_err(|e| e.to_string())
}
