//! Stopping a run from outside: the command line turns SIGINT, SIGTERM and SIGHUP into a
//! raised [`Interrupt`]; the scheduler sees it, ends every server, marks the tests that did
//! not finish and lets the reporters write what the run has so far.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::watch;

/// Set once any stop request of this process is raised.
static RAISED_ANYWHERE: AtomicBool = AtomicBool::new(false);

/// Whether a stop request was raised anywhere in this process: for work that runs where no
/// [`Interrupt`] reaches (a pattern matched on a thread of its own) and gives up at once.
pub fn raised_anywhere() -> bool {
    RAISED_ANYWHERE.load(Ordering::Relaxed)
}

/// The signal that stopped a run, and the exit code it gives (128 + its number).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopSignal {
    /// SIGINT (Ctrl-C): exit 130.
    Interrupt,
    /// SIGTERM (CI cancellation, `timeout`, `docker stop`): exit 143.
    Terminate,
    /// SIGHUP (the terminal went away): exit 129.
    Hangup,
}

impl StopSignal {
    /// The signal's name, as people know it.
    pub fn name(self) -> &'static str {
        match self {
            StopSignal::Interrupt => "SIGINT",
            StopSignal::Terminate => "SIGTERM",
            StopSignal::Hangup => "SIGHUP",
        }
    }

    /// The exit code a process stopped by this signal reports: 128 + the signal number.
    pub fn exit_code(self) -> u8 {
        match self {
            StopSignal::Interrupt => 130,
            StopSignal::Terminate => 143,
            StopSignal::Hangup => 129,
        }
    }
}

/// A stop request shared by everything a run starts; raised once, seen by every clone.
#[derive(Debug, Clone)]
pub struct Interrupt {
    tx: Arc<watch::Sender<Option<StopSignal>>>,
}

impl Default for Interrupt {
    fn default() -> Self {
        Interrupt::new()
    }
}

impl Interrupt {
    /// A stop request not raised yet.
    pub fn new() -> Interrupt {
        Interrupt {
            tx: Arc::new(watch::channel(None).0),
        }
    }

    /// Raises the stop request; the first signal wins.
    pub fn raise(&self, signal: StopSignal) {
        RAISED_ANYWHERE.store(true, Ordering::Relaxed);
        self.tx.send_if_modified(|s| {
            if s.is_none() {
                *s = Some(signal);
                true
            } else {
                false
            }
        });
    }

    /// The signal, once raised.
    pub fn raised(&self) -> Option<StopSignal> {
        *self.tx.borrow()
    }

    /// Waits until the stop request is raised.
    pub async fn wait(&self) -> StopSignal {
        let mut rx = self.tx.subscribe();
        loop {
            if let Some(s) = *rx.borrow_and_update() {
                return s;
            }
            if rx.changed().await.is_err() {
                // The sender lives in `self`: this cannot happen while we wait.
                std::future::pending::<()>().await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_first_signal_wins_and_wakes_every_waiter() {
        let i = Interrupt::new();
        assert_eq!(i.raised(), None);
        let waiter = {
            let i = i.clone();
            tokio::spawn(async move { i.wait().await })
        };
        tokio::task::yield_now().await;
        i.raise(StopSignal::Terminate);
        i.raise(StopSignal::Interrupt);
        assert_eq!(waiter.await.unwrap(), StopSignal::Terminate);
        assert_eq!(i.raised(), Some(StopSignal::Terminate));
        assert_eq!(i.wait().await.exit_code(), 143);
    }
}
