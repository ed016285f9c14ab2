//! A step's injected fault (`fault:`, docs/faults.md): the session injects it on the step's
//! request; here the step is judged by whether the runner saw what the fault must cause.
//! A `drop` passes when the request timed out, a `disconnect` when the session closed, a
//! `corrupt` when the answer was reported as not JSON, a `duplicate` when the second answer
//! was reported as a protocol violation; a `delay` is an ordinary step whose answer comes
//! late (its checks apply, and a delay past the deadline times out). The step's output says
//! what was injected and seen.

use std::time::Duration;

use mcpr_compiler::ir::{Fault, FaultKind, Step};

use super::{StepFail, StepRunner, fail};
use crate::codes::RunCode;
use crate::session;

/// The session fault of a step, when it has one.
pub(super) fn session_fault(step: &Step) -> Option<session::Fault> {
    let f = step.fault.as_ref()?;
    Some(match f.kind {
        FaultKind::Drop => session::Fault::Drop,
        FaultKind::Delay => session::Fault::Delay(Duration::from_millis(f.delay_ms.unwrap_or(0))),
        FaultKind::Disconnect => session::Fault::Disconnect,
        FaultKind::Duplicate => session::Fault::Duplicate,
        FaultKind::Corrupt => session::Fault::Corrupt,
    })
}

impl StepRunner {
    /// The outcome of a faulted step: passed when the runner saw what the fault causes.
    pub(super) fn judge_fault(
        &mut self,
        fault: &Fault,
        outcome: Result<(), StepFail>,
    ) -> Result<(), StepFail> {
        let (expected, what) = match fault.kind {
            FaultKind::Delay => return outcome,
            FaultKind::Drop => (
                RunCode::Timeout,
                "the answer was dropped; the request timed out",
            ),
            FaultKind::Disconnect => (
                RunCode::Closed,
                "the connection was closed after the request; the session is closed",
            ),
            FaultKind::Corrupt => (
                RunCode::NotJsonRpc,
                "the answer was corrupted; the client reported a line that is not JSON",
            ),
            FaultKind::Duplicate => (
                RunCode::DuplicateResponse,
                "the answer was sent twice; the client reported the second as a protocol violation",
            ),
        };
        let seen = match &outcome {
            Err(f) => Some(f.failure.code),
            Ok(()) => None,
        };
        let duplicate_seen = fault.kind == FaultKind::Duplicate
            && self
                .client
                .session()
                .violations()
                .iter()
                .any(|v| v.code == expected.as_str());
        if seen == Some(expected) || duplicate_seen {
            self.output = Some(format!("fault injected: {what}"));
            return Ok(());
        }
        match outcome {
            Err(f) => Err(f),
            Ok(()) => Err(fail(
                RunCode::FaultNotSeen,
                format!(
                    "the injected fault was not seen: expected {expected} ({what}), but the step passed"
                ),
            )),
        }
    }
}
