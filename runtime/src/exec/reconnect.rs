//! `Reconnect` (native `reconnect`, docs/faults.md): the test's session is closed — what a
//! fault left of it, or a healthy one — in the usual orphan-free order (stdin EOF, SIGTERM,
//! SIGKILL on the process group; the HTTP session deleted), and a new one is opened to the
//! same server with the same settings and client behaviour: a new process over stdio, a new
//! HTTP session over HTTP. Variables survive; notifications, queued answers and the listen
//! stream belong to the closed session. The closed session's transcript and stderr are kept
//! for the test's result.

use std::time::Duration;

use serde_json::json;

use super::native::NativeFail;
use super::{Reply, StepRunner, fail, listen, stderr_since};
use crate::client::Client;
use crate::codes::RunCode;
use crate::transcript::Entry;

/// What the sessions a `Reconnect` closed left behind.
#[derive(Default)]
pub(super) struct Earlier {
    /// Their transcripts, oldest session first.
    pub(super) transcript: Vec<Entry>,
    /// Messages their transcripts dropped.
    pub(super) dropped: u64,
    /// Their stderr, as far as the tails held it.
    pub(super) stderr: String,
    /// How much the current session's server had written on stderr before the test.
    pub(super) stderr_before: u64,
    /// How many sessions were closed by `Reconnect`.
    pub(super) closed: u32,
}

impl StepRunner {
    /// Closes the session and opens a new one to the same server.
    pub(super) async fn reconnect(&mut self, timeout: Duration) -> Result<Reply, NativeFail> {
        let Some((target, mut config)) = self.reopen.clone() else {
            return Err(NativeFail::Step(fail(
                RunCode::TargetUnusable,
                "the test's server could not be resolved, so it cannot be reached again",
            )));
        };
        if let Some((sub, _)) = self.listen.take() {
            let _ = self.client.stop_listen(sub);
        }
        let (entries, dropped) = self.client.session().transcript();
        self.earlier.transcript.extend(entries);
        self.earlier.dropped += dropped;
        self.earlier.stderr += &stderr_since(&self.client, self.earlier.stderr_before);
        self.earlier.stderr_before = 0;
        let shutdown = self.client.close().await;
        self.earlier.closed += 1;
        config.connect_timeout = timeout;
        let client = Client::connect_to(target, config).await?;
        self.client = client;
        if self.client.session().era() == crate::protocol::Era::Modern {
            listen::open_at_start(&self.client, &mut self.listen).await;
        }
        let session = self.earlier.closed + 1;
        let version = self.client.session().protocol_version().to_string();
        self.output = Some(format!(
            "session {session} opened (protocol {version}); the previous session was closed ({})",
            shutdown.status.as_deref().unwrap_or("no process to end")
        ));
        Ok(Reply::Ok(json!({
            "session": session,
            "protocolVersion": version,
        })))
    }
}
