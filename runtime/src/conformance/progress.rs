//! `progress.none-after-result`: once a request's result has come, no progress notification
//! may name its token any more. A flow ends with its last step, before a late notification
//! would arrive, so the command makes this check itself with `std:progress`, in a session of
//! its own: it calls the `progress_tool` input with a progress token, waits a little after
//! the result and makes one more round trip (on stdio the server's messages keep their order,
//! so what it sent before answering that request has arrived), and looks for a progress
//! notification the session could not place: the client retires a token when its request
//! ends and notes any later notification for it as a protocol violation.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{Value, json};

use super::native::NativeCheck;
use super::{CheckResult, Verdict};
use crate::client::CallOptions;
use crate::error::ErrorKind;
use crate::run::TargetChoice;

/// The check.
pub const CHECK: NativeCheck = NativeCheck {
    check: "progress.none-after-result",
    library: "progress",
    flow: "No progress after the result",
    checks: "A call of `progress_tool` (with `progress_arguments`) with a progress token gets no `notifications/progress` for that token once its result has come.",
    spec: &["basic/utilities/progress#behavior-requirements"],
    listed: "must, all versions, requires tools, input progress_tool, input progress_arguments={}, made by the command",
};

/// The inputs: the tool and its arguments.
pub const INPUTS: (&str, &str) = ("progress_tool", "progress_arguments");

/// How long to listen after the result before the round trip.
const SETTLE: Duration = Duration::from_millis(300);

/// Runs the check in `version` with the flows' inputs.
pub async fn check(
    target: &TargetChoice,
    version: &str,
    timeout: Duration,
    inputs: &BTreeMap<String, Value>,
) -> CheckResult {
    let Some(tool) = inputs.get(INPUTS.0).map(|v| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }) else {
        return CHECK.result(
            version,
            Verdict::Info,
            Some(format!("not run: needs --input {}=…", INPUTS.0)),
        );
    };
    let arguments = inputs.get(INPUTS.1).cloned().unwrap_or_else(|| json!({}));
    let client = match CHECK.open(target, version, timeout).await {
        Ok(c) => c,
        Err(failed) => return failed,
    };
    let verdict = run(&client, version, &tool, arguments, timeout).await;
    client.close().await;
    verdict
}

async fn run(
    client: &crate::client::Client,
    version: &str,
    tool: &str,
    arguments: Value,
    timeout: Duration,
) -> CheckResult {
    let session = client.session();
    if !super::suite::declares(&session.facts().capabilities, "tools") {
        return CHECK.result(
            version,
            Verdict::Info,
            Some("optional capability not offered: tools".into()),
        );
    }
    let call = CallOptions {
        timeout: Some(timeout),
        progress: true,
        allow_error: true,
        ..CallOptions::default()
    };
    // Whatever the call came to (a result, an error, progress that broke the monotonic
    // rule: `progress.notifications` judges those), its request has ended now.
    let _ = client.call_tool(tool, arguments, &call).await;
    let before = session.violations().len();
    tokio::time::sleep(SETTLE).await;
    let next = client.ping(Some(timeout)).await;
    let progress_code = ErrorKind::Progress {
        token: String::new(),
        reason: String::new(),
    }
    .code();
    let late: Vec<String> = session
        .violations()
        .into_iter()
        .skip(before)
        .filter(|v| v.code == progress_code)
        .map(|v| v.message)
        .collect();
    match (late.first(), next) {
        (None, Ok(_)) => CHECK.result(version, Verdict::Success, None),
        (Some(first), _) => CHECK.result(
            version,
            Verdict::Failure,
            Some(format!(
                "a progress notification came after the result ({} in all): {first}",
                late.len()
            )),
        ),
        (None, Err(e)) => CHECK.result(
            version,
            Verdict::Failure,
            Some(format!("the request after the call failed: {e}")),
        ),
    }
}
