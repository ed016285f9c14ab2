//! Version negotiation of the `initialize` handshake, which no flow can express: a flow runs
//! inside a session whose handshake is already done. A session of its own is opened here
//! that asks for a version no server supports, over the same transport as the flows (stdio
//! or Streamable HTTP). The stateless era's counterpart is a flow
//! (`protocol.unsupported-version-2026` in `stdlib-flows/protocol.mcpr`).

use std::time::Duration;

use super::{CheckResult, Verdict, discover};
use crate::client::Client;
use crate::error::ErrorKind;
use crate::protocol::Era;
use crate::run::TargetChoice;
use crate::session::ProtocolChoice;

/// The check's id.
pub const CHECK: &str = "protocol.unsupported-version";

/// A version that no server supports.
pub const UNSUPPORTED: &str = "1999-01-01";

/// The ids of the checks made here.
pub const CHECKS: &[&str] = &[CHECK];

/// What the check says, for its line and for `--list`.
pub const FLOW: &str = "Unsupported version is negotiated";

/// What it checks.
pub const CHECKS_TEXT: &str = "`initialize` asking for a protocol version the server does not support is answered with a version the server supports (not the one asked for), or with an error; never a hang or the unsupported version echoed.";

fn result(version: &str, verdict: Verdict, detail: Option<String>) -> CheckResult {
    CheckResult {
        check: CHECK.into(),
        library: "protocol".into(),
        flow: FLOW.into(),
        checks: CHECKS_TEXT.into(),
        version: version.into(),
        verdict,
        spec: vec!["basic/lifecycle#version-negotiation".into()],
        detail,
        expected: false,
    }
}

/// Runs the check for the handshake-era `version` (the version the era's other checks use;
/// the check itself asks for [`UNSUPPORTED`]).
pub async fn check(target: &TargetChoice, version: &str, timeout: Duration) -> CheckResult {
    let opts = match discover::options(target, timeout) {
        Ok(o) => o,
        Err(e) => return result(version, Verdict::Failure, Some(e)),
    };
    let mut config = opts.session_config();
    config.protocol = ProtocolChoice::Offered(UNSUPPORTED.into());
    match Client::connect_to(opts.target(), config).await {
        Ok(client) => {
            let facts = client.session().facts().clone();
            client.close().await;
            let how = match facts.era {
                Era::Legacy => format!("answered with {}", facts.protocol_version),
                Era::Modern => format!(
                    "answered -32022 naming {}, then discovery",
                    facts.protocol_version
                ),
            };
            if facts.protocol_version == UNSUPPORTED {
                result(version, Verdict::Failure, Some(how))
            } else {
                result(version, Verdict::Success, None)
            }
        }
        Err(e) => match &e.kind {
            ErrorKind::UnsupportedVersion { offered, .. } if offered == UNSUPPORTED => result(
                version,
                Verdict::Failure,
                Some(format!(
                    "the server echoed the unsupported version {UNSUPPORTED} instead of one it supports"
                )),
            ),
            ErrorKind::Handshake { reason }
                if reason.contains("answered initialize with error") =>
            {
                result(version, Verdict::Success, None)
            }
            _ => result(
                version,
                Verdict::Failure,
                Some(format!("asking for {UNSUPPORTED}: {e}")),
            ),
        },
    }
}
