//! Version negotiation of the `initialize` handshake, which no flow can express: a flow runs
//! inside a session whose handshake is already done. A session of its own is opened here
//! that asks for a version no server supports, over the same transport as the flows (stdio
//! or Streamable HTTP). The stateless era's counterpart is a flow
//! (`protocol.unsupported-version-2026` in `stdlib-flows/protocol.mcpr`).

use std::time::Duration;

use super::native::NativeCheck;
use super::{CheckResult, Verdict, discover};
use crate::client::Client;
use crate::error::ErrorKind;
use crate::protocol::Era;
use crate::run::TargetChoice;
use crate::session::ProtocolChoice;

/// The check.
pub const CHECK: NativeCheck = NativeCheck {
    check: "protocol.unsupported-version",
    library: "protocol",
    flow: "Unsupported version is negotiated",
    checks: "`initialize` asking for a protocol version the server does not support is answered with a version the server supports (not the one asked for), or with an error; never a hang or the unsupported version echoed.",
    spec: &["basic/lifecycle#version-negotiation"],
    listed: "must, the initialize versions, made by the command",
};

/// A version that no server supports.
pub const UNSUPPORTED: &str = "1999-01-01";

/// Runs the check for the handshake-era `version` (the version the era's other checks use;
/// the check itself asks for [`UNSUPPORTED`]).
pub async fn check(target: &TargetChoice, version: &str, timeout: Duration) -> CheckResult {
    let opts = match discover::options(target, timeout) {
        Ok(o) => o,
        Err(e) => return CHECK.result(version, Verdict::Failure, Some(e)),
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
                CHECK.result(version, Verdict::Failure, Some(how))
            } else {
                CHECK.result(version, Verdict::Success, None)
            }
        }
        Err(e) => match &e.kind {
            ErrorKind::UnsupportedVersion { offered, .. } if offered == UNSUPPORTED => CHECK.result(
                version,
                Verdict::Failure,
                Some(format!(
                    "the server echoed the unsupported version {UNSUPPORTED} instead of one it supports"
                )),
            ),
            ErrorKind::Handshake { reason }
                if reason.contains("answered initialize with error") =>
            {
                CHECK.result(version, Verdict::Success, None)
            }
            _ => CHECK.result(
                version,
                Verdict::Failure,
                Some(format!("asking for {UNSUPPORTED}: {e}")),
            ),
        },
    }
}
