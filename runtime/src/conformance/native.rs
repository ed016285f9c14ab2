//! The checks the command makes itself, because no flow can express them (the stdio
//! process, the handshake's version negotiation, a cancellation of a request never sent,
//! progress after a result). Each is described once, as a [`NativeCheck`], and the
//! description gives both its result lines and its line in `--list`.

use std::time::Duration;

use super::{CheckResult, Verdict, discover};
use crate::client::Client;
use crate::run::TargetChoice;

/// What a check made by the command is.
#[derive(Debug, Clone, Copy)]
pub struct NativeCheck {
    /// The check's id (`cancellation.unknown-id`).
    pub check: &'static str,
    /// The library it belongs to: `--suite LIBRARY` runs it.
    pub library: &'static str,
    /// What it says, for its line and for `--list`.
    pub flow: &'static str,
    /// What it checks.
    pub checks: &'static str,
    /// The specification sections.
    pub spec: &'static [&'static str],
    /// Its level, versions and inputs, as `--list` shows them.
    pub listed: &'static str,
}

impl NativeCheck {
    /// Its result in `version`.
    pub fn result(&self, version: &str, verdict: Verdict, detail: Option<String>) -> CheckResult {
        CheckResult {
            check: self.check.into(),
            library: self.library.into(),
            flow: self.flow.into(),
            checks: self.checks.into(),
            version: version.into(),
            verdict,
            spec: self.spec.iter().map(|s| s.to_string()).collect(),
            detail,
            expected: false,
        }
    }

    /// A session of its own with the server in `version`, over the transport of the run;
    /// when none can be opened, the check's failure saying why.
    pub async fn open(
        &self,
        target: &TargetChoice,
        version: &str,
        timeout: Duration,
    ) -> Result<Client, CheckResult> {
        let mut opts = discover::options(target, timeout)
            .map_err(|e| self.result(version, Verdict::Failure, Some(e)))?;
        opts.protocol = Some(version.to_string());
        opts.connect().await.map_err(|e| {
            self.result(
                version,
                Verdict::Failure,
                Some(format!("could not open a session in {version}: {e}")),
            )
        })
    }
}
