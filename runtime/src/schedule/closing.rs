//! The servers of a finished suite that are still shutting down (stdin closed, the grace,
//! SIGTERM, SIGKILL: `ProcessHandle::shutdown`). A run writes its reports meanwhile and waits
//! for them before it returns, so no server outlives it; and before it starts another server
//! (the next suite, the coverage listing), so `--jobs` still bounds the servers alive at once.

use std::thread::JoinHandle;

/// The threads still closing sessions of a finished suite: a test's thread closes its session
/// after handing over its result, a worker closes the shared session it kept once it is let go.
#[derive(Debug, Default)]
#[must_use = "the servers must be waited for before the run returns"]
pub struct Closing {
    tests: Vec<JoinHandle<u64>>,
    workers: Vec<JoinHandle<()>>,
}

impl Closing {
    pub(super) fn new(tests: Vec<JoinHandle<u64>>, workers: Vec<JoinHandle<()>>) -> Closing {
        Closing { tests, workers }
    }

    /// Waits until every server of the suite is gone, and with them every process they
    /// left behind that the sessions' own shutdown missed
    /// ([`crate::transport::stdio::sweep_strays`]), marked or not
    /// ([`crate::transport::stdio::end_unclaimed`]).
    pub async fn wait(mut self) {
        let (tests, workers) = self.take();
        if !tests.is_empty() || !workers.is_empty() {
            let _ = tokio::task::spawn_blocking(move || join(tests, workers)).await;
        }
        crate::transport::stdio::sweep_strays().await;
        crate::transport::stdio::end_unclaimed().await;
    }

    fn take(&mut self) -> (Vec<JoinHandle<u64>>, Vec<JoinHandle<()>>) {
        (
            std::mem::take(&mut self.tests),
            std::mem::take(&mut self.workers),
        )
    }
}

/// A suite given up on an error path still ends its servers before it is forgotten.
impl Drop for Closing {
    fn drop(&mut self) {
        let (tests, workers) = self.take();
        join(tests, workers);
    }
}

fn join(tests: Vec<JoinHandle<u64>>, workers: Vec<JoinHandle<()>>) {
    for t in tests {
        let _ = t.join();
    }
    for w in workers {
        let _ = w.join();
    }
}
