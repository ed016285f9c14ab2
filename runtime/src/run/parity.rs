//! A parity run: every suite once per compare target, then whether the targets behave
//! alike (see [`crate::parity`]); reported through the same [`Reporter`] interface.

use std::sync::Arc;

use super::{ExitClass, RunError, run_options};
use crate::auth::{TokenCache, resolve_credentials};
use crate::codes::RunClass;
use crate::parity::{self, ParityReport};
use crate::report::{Report, Reporter};
use crate::schedule::Event;

/// What a parity run needs.
#[derive(Debug, Clone, Default)]
pub struct ParityRequest {
    /// The compiled suites, in order.
    pub suites: Vec<mcpr_compiler::ir::Suite>,
    /// Most tests at once per target.
    pub jobs: Option<usize>,
    /// Only tests whose name or id matches.
    pub filter: Option<String>,
    /// The protocol version every session speaks (`--protocol`); probed when `None`.
    pub protocol: Option<String>,
    /// Paths in every response whose values are not compared (`--ignore`): ids, timestamps.
    pub ignore: Vec<String>,
    /// The run's context (environment, CI, OAuth state, learned secrets).
    pub context: crate::context::RunContext,
}

/// What a finished parity run hands back.
#[derive(Debug)]
pub struct ParityOutcome {
    /// The parity of each suite.
    pub reports: Vec<ParityReport>,
    /// [`ExitClass::Passed`] when every suite behaves alike on every target,
    /// [`ExitClass::TestsFailed`] otherwise.
    pub exit: ExitClass,
}

/// Runs each suite on each of its compare targets and reports their parity.
pub async fn parity(
    req: ParityRequest,
    reporter: &mut dyn Reporter,
) -> Result<ParityOutcome, RunError> {
    let settings = super::RunRequest {
        filter: req.filter.clone(),
        jobs: req.jobs,
        protocol: req.protocol.clone(),
        context: req.context.clone(),
        ..Default::default()
    };
    let opts = run_options(&settings, None)?;
    let mut reports = Vec::new();
    let mut tokens = TokenCache::new();
    for mut suite in req.suites {
        // Each compare target's `Token from` runs once, before any test.
        resolve_credentials(&mut suite, &opts.state, &mut tokens, &opts.context.env)
            .await
            .map_err(|e| RunError::Usage(e.to_string()))?;
        reporter.suite_started(&suite);
        let mut on_event = |e: &Event| reporter.event(e);
        match parity::run_parity(Arc::new(suite), opts.clone(), &req.ignore, &mut on_event).await {
            Ok(r) => reports.push(r),
            Err(e) if e.code.class() == RunClass::Internal => {
                return Err(RunError::Failure(e.to_string()));
            }
            Err(e) => return Err(RunError::Usage(e.to_string())),
        }
    }
    reporter
        .finish(Report::Parity(&reports))
        .map_err(RunError::Failure)?;
    let exit = if reports.iter().all(|r| r.equivalent) {
        ExitClass::Passed
    } else {
        ExitClass::TestsFailed
    };
    Ok(ParityOutcome { reports, exit })
}
