//! The server's process group: its registry (for emergencies), the stderr tail, exit
//! status, and the shutdown that leaves nothing behind.

use std::collections::BTreeSet;
use std::process::ExitStatus;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::sync::watch;

use super::STDERR_TAIL_BYTES;
use super::descendants;
use super::idle::{self, Activity};

pub(super) fn registry() -> &'static Mutex<BTreeSet<i32>> {
    static LIVE: OnceLock<Mutex<BTreeSet<i32>>> = OnceLock::new();
    LIVE.get_or_init(|| Mutex::new(BTreeSet::new()))
}

/// Sends SIGKILL to the process group of every server still running. For a Ctrl-C handler:
/// call it before the process exits so that no server is orphaned.
pub fn kill_all_process_groups() {
    let groups: Vec<i32> = registry()
        .lock()
        .map(|g| g.iter().copied().collect())
        .unwrap_or_default();
    for pgid in groups {
        let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
    }
}

/// The last bytes a server wrote on stderr.
#[derive(Debug, Default)]
pub struct StderrTail {
    pub(super) buf: Vec<u8>,
    pub(super) total: u64,
}

impl StderrTail {
    pub(super) fn push(&mut self, bytes: &[u8]) {
        self.total += bytes.len() as u64;
        self.buf.extend_from_slice(bytes);
        if self.buf.len() > 2 * STDERR_TAIL_BYTES {
            let cut = self.buf.len() - STDERR_TAIL_BYTES;
            self.buf.drain(..cut);
        }
    }

    /// The tail (at most 64 KiB), lossily decoded.
    pub fn text(&self) -> String {
        let start = self.buf.len().saturating_sub(STDERR_TAIL_BYTES);
        String::from_utf8_lossy(&self.buf[start..]).into_owned()
    }

    /// Bytes written on stderr in all.
    pub fn total(&self) -> u64 {
        self.total
    }
}

/// What is needed to watch and stop a server process.
#[derive(Debug, Clone)]
pub struct ProcessHandle {
    /// The process id (also the process group id).
    pub pid: i32,
    pub(super) exit: watch::Receiver<Option<ExitStatus>>,
    pub(super) stderr: Arc<Mutex<StderrTail>>,
    pub(super) stderr_closed: watch::Receiver<bool>,
    pub(super) started: Instant,
    /// The session's mark in the environment of the server and its descendants.
    pub(super) mark: String,
}

/// How long a server may take to exit after its stdin closes, and again after SIGTERM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShutdownGrace {
    /// mcpr's default: up to [`ShutdownGrace::AUTO_LIMIT`] at each stage, but the wait after
    /// stdin closes ends as soon as the server has sat idle for [`idle::QUIET`] (no thread
    /// of it running, runnable or in disk wait, no CPU time spent): a server busy with its
    /// clean-up gets the whole grace, one held only by a timer or a sleep gets SIGTERM.
    Auto,
    /// Exactly this long at each stage (`--shutdown-grace`, `Shutdown grace:`).
    Fixed(Duration),
}

impl ShutdownGrace {
    /// The longest wait of [`ShutdownGrace::Auto`] at each stage.
    pub const AUTO_LIMIT: Duration = Duration::from_secs(1);

    /// The longest wait at each stage.
    pub fn limit(self) -> Duration {
        match self {
            ShutdownGrace::Auto => Self::AUTO_LIMIT,
            ShutdownGrace::Fixed(d) => d,
        }
    }
}

/// How far the shutdown had to go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ShutdownStage {
    /// The server had already exited.
    AlreadyExited,
    /// It exited after its stdin closed.
    StdinEof,
    /// It needed SIGTERM.
    Sigterm,
    /// It needed SIGKILL.
    Sigkill,
    /// An HTTP connection was closed (no process of ours).
    Disconnected,
}

/// The outcome of a shutdown.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ShutdownReport {
    /// How far it went.
    pub stage: ShutdownStage,
    /// The exit status, described.
    pub status: Option<String>,
    /// How long the shutdown took.
    #[serde(serialize_with = "ser_ms")]
    pub elapsed: Duration,
    /// Whether other processes of the server's group had to be ended after it exited.
    pub ended_stragglers: bool,
    /// Whether the wait after stdin closed ended early because the server sat idle
    /// ([`ShutdownGrace::Auto`]).
    pub idle: bool,
}

pub(super) fn ser_ms<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(d.as_millis() as u64)
}

/// Describes an exit status (`exit status 1`, `killed by signal 9 (SIGKILL)`).
pub fn describe_status(status: &ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    if let Some(code) = status.code() {
        return format!("exit status {code}");
    }
    if let Some(sig) = status.signal() {
        let name = Signal::try_from(sig)
            .map(|s| s.as_str().to_string())
            .unwrap_or_default();
        return format!("killed by signal {sig} ({name})");
    }
    status.to_string()
}

impl ProcessHandle {
    /// The exit status, if the process has exited.
    pub fn exit_status(&self) -> Option<ExitStatus> {
        *self.exit.borrow()
    }

    /// The exit status, described.
    pub fn exit_description(&self) -> Option<String> {
        self.exit_status().map(|s| describe_status(&s))
    }

    /// The stderr tail (at most 64 KiB).
    pub fn stderr_tail(&self) -> String {
        self.stderr.lock().map(|t| t.text()).unwrap_or_default()
    }

    /// Bytes written on stderr so far.
    pub fn stderr_total(&self) -> u64 {
        self.stderr.lock().map(|t| t.total()).unwrap_or(0)
    }

    /// Time since the process started.
    pub fn age(&self) -> Duration {
        self.started.elapsed()
    }

    /// Waits until the process exits or `limit` passes; true when it exited.
    pub async fn wait_exit(&self, limit: Duration) -> bool {
        let mut rx = self.exit.clone();
        matches!(
            tokio::time::timeout(limit, rx.wait_for(Option::is_some)).await,
            Ok(Ok(_))
        )
    }

    /// Waits until the process has exited (however long that takes).
    pub async fn exited(&self) {
        let mut rx = self.exit.clone();
        let _ = rx.wait_for(Option::is_some).await;
    }

    /// Waits until the server's stderr is closed (all of it is in the tail) or `limit`
    /// passes; true when it closed.
    pub async fn wait_stderr_closed(&self, limit: Duration) -> bool {
        let mut rx = self.stderr_closed.clone();
        matches!(
            tokio::time::timeout(limit, rx.wait_for(|c| *c)).await,
            Ok(Ok(_))
        )
    }

    /// True while any process of the server's group is alive (zombies do not count).
    pub fn group_alive(&self) -> bool {
        group_alive(self.pid)
    }

    pub(super) fn signal_group(&self, signal: Signal) {
        if self.pid > 0 {
            let _ = killpg(Pid::from_raw(self.pid), signal);
        }
    }

    /// Ends the process and its group. The caller must already have closed stdin (dropped
    /// it); then this waits the grace (less for an idle server under
    /// [`ShutdownGrace::Auto`]), sends SIGTERM to the group, waits the grace, sends SIGKILL.
    /// Processes of the group that outlive the server are ended the same way.
    pub async fn shutdown(&self, grace: ShutdownGrace) -> ShutdownReport {
        let start = Instant::now();
        let mut stage = ShutdownStage::AlreadyExited;
        let mut idle = false;
        let limit = grace.limit();
        if self.exit_status().is_none() {
            stage = ShutdownStage::StdinEof;
            let exited = match grace {
                ShutdownGrace::Auto => {
                    let waited = self.wait_exit_or_idle(limit).await;
                    idle = waited == Waited::Idle;
                    waited == Waited::Exited
                }
                ShutdownGrace::Fixed(d) => self.wait_exit(d).await,
            };
            if !exited {
                stage = ShutdownStage::Sigterm;
                self.signal_group(Signal::SIGTERM);
                if !self.wait_exit(limit).await {
                    stage = ShutdownStage::Sigkill;
                    self.signal_group(Signal::SIGKILL);
                    self.wait_exit(Duration::from_secs(5)).await;
                }
            }
        }
        // Descendants that left the group, re-parented to mcpr, carry the session's mark.
        let mut ended_stragglers = descendants::end_strays(&self.mark, self.pid, limit).await;
        if group_left(self.pid) {
            ended_stragglers = true;
            self.signal_group(Signal::SIGTERM);
            if !wait_group_gone(self.pid, limit).await {
                self.signal_group(Signal::SIGKILL);
                wait_group_gone(self.pid, Duration::from_secs(2)).await;
            }
        }
        descendants::mark_ended(&self.mark);
        if let Ok(mut g) = registry().lock() {
            g.remove(&self.pid);
        }
        ShutdownReport {
            stage,
            status: self.exit_description(),
            elapsed: start.elapsed(),
            ended_stragglers,
            idle,
        }
    }

    /// Waits until the process exits, `limit` passes, or the server has sat idle for
    /// [`idle::QUIET`] (see [`idle`]).
    async fn wait_exit_or_idle(&self, limit: Duration) -> Waited {
        let deadline = Instant::now() + limit;
        let mut last = Activity::sample(self.pid);
        let mut quiet_from = Instant::now();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if self.wait_exit(left.min(idle::SAMPLE)).await {
                return Waited::Exited;
            }
            if left <= idle::SAMPLE {
                return Waited::Limit;
            }
            let now = Activity::sample(self.pid);
            match (&last, &now) {
                (Some(before), Some(after)) if after.quiet_since(before) => {
                    if quiet_from.elapsed() >= idle::QUIET {
                        return Waited::Idle;
                    }
                }
                _ => quiet_from = Instant::now(),
            }
            last = now;
        }
    }

    /// Sends SIGKILL to the whole group at once (no grace), for drops and emergencies.
    pub fn kill_now(&self) {
        self.signal_group(Signal::SIGKILL);
        descendants::mark_ended(&self.mark);
        if let Ok(mut g) = registry().lock() {
            g.remove(&self.pid);
        }
    }
}

/// How a wait for the server's exit ended.
#[derive(PartialEq)]
enum Waited {
    Exited,
    Idle,
    Limit,
}

pub(super) async fn wait_group_gone(pgid: i32, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if !group_left(pgid) {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Whether any process is left in group `pgid`, after reaping the members that ended as
/// mcpr's children (re-parented when the server exited). A signal 0 to the group asks the
/// kernel; nothing scans `/proc`.
fn group_left(pgid: i32) -> bool {
    if pgid <= 0 {
        return false;
    }
    for pid in descendants::children(std::process::id()) {
        let p = Pid::from_raw(pid);
        if nix::unistd::getpgid(Some(p)).is_ok_and(|g| g.as_raw() == pgid)
            && !descendants::alive(pid)
        {
            let _ = nix::sys::wait::waitpid(p, Some(nix::sys::wait::WaitPidFlag::WNOHANG));
        }
    }
    killpg(Pid::from_raw(pgid), None).is_ok()
}

/// True while a live (non-zombie) process belongs to process group `pgid`.
pub fn group_alive(pgid: i32) -> bool {
    if pgid <= 0 {
        return false;
    }
    #[cfg(target_os = "linux")]
    {
        if let Ok(dir) = std::fs::read_dir("/proc") {
            for entry in dir.flatten() {
                let name = entry.file_name();
                let Some(name) = name.to_str() else { continue };
                if !name.bytes().all(|b| b.is_ascii_digit()) {
                    continue;
                }
                let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
                    continue;
                };
                // Fields after the command name (which is in parentheses and may contain spaces).
                let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
                    continue;
                };
                let fields: Vec<&str> = rest.split_whitespace().collect();
                // fields[0] = state, fields[1] = ppid, fields[2] = pgrp
                if fields.len() > 2
                    && fields[2] == pgid.to_string()
                    && fields[0] != "Z"
                    && fields[0] != "X"
                {
                    return true;
                }
            }
            return false;
        }
    }
    killpg(Pid::from_raw(pgid), None).is_ok()
}
