//! `cancellation.unknown-id`: a `notifications/cancelled` that names a request the client
//! never sent must be ignored. No flow can express it (the language sends requests, not
//! notifications), so a session of its own is opened here, in the version being tested and
//! over the same transport as the flows: the notification is sent, then a request of the
//! era (`ping`; `server/discover` in 2026-07-28) must be answered, and nothing may answer
//! the notification itself. (The in-flight cancellation is a flow:
//! `cancellation.in-flight` in `stdlib-flows/cancellation.mcpr`.)

use std::time::Duration;

use serde_json::json;

use super::native::NativeCheck;
use super::{CheckResult, Verdict};
use crate::run::TargetChoice;

/// The check.
pub const CHECK: NativeCheck = NativeCheck {
    check: "cancellation.unknown-id",
    library: "cancellation",
    flow: "A cancellation of an unknown request is ignored",
    checks: "`notifications/cancelled` naming a request id the client never used is ignored: nothing answers the notification, and the server answers the next request.",
    spec: &[
        "basic/utilities/cancellation#error-handling",
        "basic#notifications",
    ],
    listed: "must, all versions, made by the command",
};

/// A request id the client never uses: its ids count up from 1 in each session. A number
/// (as the client's own ids are), and one that a JavaScript server holds exactly.
pub const UNKNOWN_ID: i64 = 900_719_925_474;

/// How long to listen after the answer to the next request, for a late reply to the
/// notification (a server that handles messages concurrently may send it after).
const SETTLE: Duration = Duration::from_millis(300);

/// Runs the check in `version`.
pub async fn check(target: &TargetChoice, version: &str, timeout: Duration) -> CheckResult {
    let client = match CHECK.open(target, version, timeout).await {
        Ok(c) => c,
        Err(failed) => return failed,
    };
    let session = client.session();
    let before = session.violations().len();
    let sent = session.notify(
        "notifications/cancelled",
        Some(json!({
            "requestId": UNKNOWN_ID,
            "reason": "mcpr conformance: a request that was never sent",
        })),
    );
    let verdict = match sent {
        Err(e) => CHECK.result(
            version,
            Verdict::Failure,
            Some(format!("sending the notification failed: {e}")),
        ),
        Ok(()) => {
            let next = client.ping(Some(timeout)).await;
            tokio::time::sleep(SETTLE).await;
            let after: Vec<String> = session
                .violations()
                .into_iter()
                .skip(before)
                .map(|v| format!("{}: {}", v.code, v.message))
                .collect();
            match (next, after.first()) {
                (Ok(_), None) => CHECK.result(version, Verdict::Success, None),
                (next, Some(first)) => {
                    let mut why = format!(
                        "the server answered the notification (a notification gets no reply): {first}"
                    );
                    if let Err(e) = next
                        && !first.contains(&e.kind.to_string())
                    {
                        why.push_str(&format!("; then the next request failed: {}", e.kind));
                    }
                    CHECK.result(version, Verdict::Failure, Some(why))
                }
                (Err(e), None) => CHECK.result(
                    version,
                    Verdict::Failure,
                    Some(format!(
                        "the next request after the cancellation failed: {e}"
                    )),
                ),
            }
        }
    };
    client.close().await;
    verdict
}
