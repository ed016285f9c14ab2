//! The stdio transport: a child process in its own process group, newline-delimited
//! messages on stdin/stdout with a size limit, stderr drained continuously, and a shutdown
//! that leaves nothing behind (stdin EOF, grace, SIGTERM, grace, SIGKILL, on the whole group).
//!
//! Lines are written from the calling thread when the pipe takes them ([`StdinWriter`]).
//! Stdout is read by the session's reader task ([`LineReader`]) and, on a runtime of one
//! thread, also by the waiting call itself for a short slice ([`ForegroundReader`]): both
//! frame bytes through one shared buffer, so neither ever sees a line out of order.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::{ChildStdin, ChildStdout, Command};
use tokio::sync::watch;

use crate::error::{Error, ErrorKind};
use crate::redact;
use crate::transport::alarm::Alarm;

/// The size of the kept stderr tail.
pub const STDERR_TAIL_BYTES: usize = 64 * 1024;

/// How to start a server.
#[derive(Debug, Clone)]
pub struct StdioConfig {
    /// The program.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Working directory (the runner's when `None`).
    pub cwd: Option<PathBuf>,
    /// Variables set explicitly (these pass even when they look like credentials).
    pub env: BTreeMap<String, String>,
    /// Inherit the runner's environment (minus credentials). On by default.
    pub inherit_env: bool,
    /// Largest accepted stdout message, in bytes.
    pub max_message_bytes: usize,
}

impl StdioConfig {
    /// A configuration with defaults: inherited environment, 16 MiB messages.
    pub fn new(
        command: impl Into<String>,
        args: impl IntoIterator<Item = impl Into<String>>,
    ) -> StdioConfig {
        StdioConfig {
            command: command.into(),
            args: args.into_iter().map(Into::into).collect(),
            cwd: None,
            env: BTreeMap::new(),
            inherit_env: true,
            max_message_bytes: 16 * 1024 * 1024,
        }
    }

    /// The command line, for messages.
    pub fn display(&self) -> String {
        let mut s = self.command.clone();
        for a in &self.args {
            s.push(' ');
            if a.contains(' ') || a.is_empty() {
                s.push_str(&format!("{a:?}"));
            } else {
                s.push_str(a);
            }
        }
        s
    }
}

fn registry() -> &'static Mutex<BTreeSet<i32>> {
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
    buf: Vec<u8>,
    total: u64,
}

impl StderrTail {
    fn push(&mut self, bytes: &[u8]) {
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

/// A running server process.
#[derive(Debug)]
pub struct StdioProcess {
    /// The server's stdin (dropping it is the EOF of the shutdown).
    pub stdin: Option<ChildStdin>,
    /// The server's stdout, framed.
    pub stdout: Option<LineReader>,
    /// The same stream for waits that read on their own thread, when the system allows.
    pub foreground: Option<ForegroundReader>,
    /// The process handle.
    pub handle: ProcessHandle,
    /// Names of environment variables withheld as credentials.
    pub withheld_env: Vec<String>,
}

/// What is needed to watch and stop a server process.
#[derive(Debug, Clone)]
pub struct ProcessHandle {
    /// The process id (also the process group id).
    pub pid: i32,
    exit: watch::Receiver<Option<ExitStatus>>,
    stderr: Arc<Mutex<StderrTail>>,
    stderr_closed: watch::Receiver<bool>,
    started: Instant,
}

impl StdioProcess {
    /// Starts a server in its own process group.
    pub fn spawn(config: &StdioConfig) -> Result<StdioProcess, Error> {
        let env = if config.inherit_env {
            redact::server_env(redact::runner_env(), &config.env)
        } else {
            redact::ServerEnv {
                vars: config.env.clone(),
                withheld: Vec::new(),
            }
        };
        let mut cmd = Command::new(&config.command);
        cmd.args(&config.args)
            .env_clear()
            .envs(&env.vars)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .process_group(0);
        if let Some(cwd) = &config.cwd {
            cmd.current_dir(cwd);
        }
        let mut child = cmd.spawn().map_err(|e| {
            let reason = match e.kind() {
                std::io::ErrorKind::NotFound => {
                    format!("{e} (is `{}` installed and on PATH?)", config.command)
                }
                _ => e.to_string(),
            };
            Error::new(ErrorKind::Spawn {
                command: config.display(),
                reason,
            })
        })?;
        let pid = child.id().map(|p| p as i32).unwrap_or(0);
        if pid > 0
            && let Ok(mut g) = registry().lock()
        {
            g.insert(pid);
        }
        let stdin = child.stdin.take();
        let stderr_tail = Arc::new(Mutex::new(StderrTail::default()));
        let (stdout, foreground) = match child.stdout.take() {
            Some(stdout) => {
                let buf = Arc::new(Mutex::new(LineBuf::new(config.max_message_bytes)));
                let foreground =
                    foreground_reader(&buf, &stdout, child.stderr.as_ref(), &stderr_tail);
                (Some(LineReader { buf, stdout }), foreground)
            }
            None => (None, None),
        };
        let (closed_tx, closed_rx) = watch::channel(false);
        if let Some(mut stderr) = child.stderr.take() {
            let tail = stderr_tail.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 16 * 1024];
                loop {
                    match stderr.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => {
                            if let Ok(mut t) = tail.lock() {
                                t.push(&buf[..n]);
                            }
                        }
                    }
                }
                let _ = closed_tx.send(true);
            });
        } else {
            let _ = closed_tx.send(true);
        }
        let (tx, rx) = watch::channel(None);
        tokio::spawn(async move {
            // The child lives in this task; if the runtime drops the task, kill_on_drop ends it.
            if let Ok(status) = child.wait().await {
                let _ = tx.send(Some(status));
            }
        });
        Ok(StdioProcess {
            stdin,
            stdout,
            foreground,
            handle: ProcessHandle {
                pid,
                exit: rx,
                stderr: stderr_tail,
                stderr_closed: closed_rx,
                started: Instant::now(),
            },
            withheld_env: env.withheld,
        })
    }
}

/// A foreground reader over duplicates of the pipes' descriptors (they share the pipes'
/// non-blocking flag, which tokio sets on every child pipe); `None` when a duplicate or an
/// alarm cannot be had, and the session's waits then all go through its reader task.
fn foreground_reader(
    buf: &Arc<Mutex<LineBuf>>,
    stdout: &ChildStdout,
    stderr: Option<&tokio::process::ChildStderr>,
    tail: &Arc<Mutex<StderrTail>>,
) -> Option<ForegroundReader> {
    use std::os::fd::AsFd;
    let dup =
        |fd: std::os::fd::BorrowedFd<'_>| fd.try_clone_to_owned().ok().map(std::fs::File::from);
    let stderr = match stderr {
        Some(e) => Some((dup(e.as_fd())?, tail.clone())),
        None => None,
    };
    ForegroundReader::new(buf.clone(), dup(stdout.as_fd())?, stderr)
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
}

fn ser_ms<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
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

    fn signal_group(&self, signal: Signal) {
        if self.pid > 0 {
            let _ = killpg(Pid::from_raw(self.pid), signal);
        }
    }

    /// Ends the process and its group. The caller must already have closed stdin (dropped
    /// it); then this waits `grace`, sends SIGTERM to the group, waits `grace`, sends SIGKILL.
    /// Processes of the group that outlive the server are ended the same way.
    pub async fn shutdown(&self, grace: Duration) -> ShutdownReport {
        let start = Instant::now();
        let mut stage = ShutdownStage::AlreadyExited;
        if self.exit_status().is_none() {
            stage = ShutdownStage::StdinEof;
            if !self.wait_exit(grace).await {
                stage = ShutdownStage::Sigterm;
                self.signal_group(Signal::SIGTERM);
                if !self.wait_exit(grace).await {
                    stage = ShutdownStage::Sigkill;
                    self.signal_group(Signal::SIGKILL);
                    self.wait_exit(Duration::from_secs(5)).await;
                }
            }
        }
        let mut ended_stragglers = false;
        if self.group_alive() {
            ended_stragglers = true;
            self.signal_group(Signal::SIGTERM);
            if !wait_group_gone(self.pid, grace).await {
                self.signal_group(Signal::SIGKILL);
                wait_group_gone(self.pid, Duration::from_secs(2)).await;
            }
        }
        if let Ok(mut g) = registry().lock() {
            g.remove(&self.pid);
        }
        ShutdownReport {
            stage,
            status: self.exit_description(),
            elapsed: start.elapsed(),
            ended_stragglers,
        }
    }

    /// Sends SIGKILL to the whole group at once (no grace), for drops and emergencies.
    pub fn kill_now(&self) {
        self.signal_group(Signal::SIGKILL);
        if let Ok(mut g) = registry().lock() {
            g.remove(&self.pid);
        }
    }
}

async fn wait_group_gone(pgid: i32, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if !group_alive(pgid) {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
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

/// One unit read from a server's stdout.
#[derive(Debug)]
pub enum Frame {
    /// A complete line (without the newline; a trailing `\r` is removed too).
    Line(Vec<u8>),
    /// A line longer than the limit, reported as soon as the limit is passed; the rest of
    /// the line is skipped up to its newline.
    TooLarge {
        /// Bytes seen when the line was abandoned (more than the limit).
        seen: usize,
    },
    /// Bytes after the last newline when stdout closed.
    PartialAtEof(Vec<u8>),
    /// Stdout closed.
    Eof,
    /// Reading failed.
    Failed(String),
}

/// Writes lines to a server's stdin. A line is written at once, from the calling thread,
/// when nothing is waiting before it and the pipe takes all of it; otherwise it (or what
/// the pipe did not take) goes to a task that waits until the pipe has room. The direct
/// write saves the hop to that task and lets the server start on a request while the
/// client is still filing it.
pub struct StdinWriter {
    open: Mutex<Option<OpenStdin>>,
}

struct OpenStdin {
    /// Lines (or their unwritten rest) for the task, in order.
    tx: tokio::sync::mpsc::UnboundedSender<Vec<u8>>,
    /// A duplicate of the pipe's descriptor for direct writes, set non-blocking (see
    /// [`nonblocking_duplicate`]), so a write never blocks; being a descriptor of our own,
    /// it stays valid whatever the task does.
    direct: std::fs::File,
    /// Lines handed to the task and not yet written: a direct write must wait for them.
    queued: Arc<std::sync::atomic::AtomicUsize>,
}

/// The reason given when the server no longer reads its stdin.
const STDIN_CLOSED: &str = "the server's stdin is closed";

/// Why a line could not be written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteFailure {
    /// The writer was closed (the session is ending).
    Closed,
    /// The server's stdin is gone, or the write failed.
    Failed(String),
}

impl StdinWriter {
    /// Takes the child's stdin; starts the writing task on the current runtime.
    pub fn new(stdin: ChildStdin) -> std::io::Result<StdinWriter> {
        let direct = nonblocking_duplicate(&stdin)?;
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let queued = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        tokio::spawn(write_queued(stdin, rx, queued.clone()));
        Ok(StdinWriter {
            open: Mutex::new(Some(OpenStdin { tx, direct, queued })),
        })
    }

    /// Writes one line (with its newline), keeping the order of every line written. The
    /// line is copied only when the pipe cannot take it at once.
    pub fn send(&self, line: &[u8]) -> Result<(), WriteFailure> {
        use std::io::Write;
        use std::sync::atomic::Ordering::{AcqRel, Acquire};
        let guard = self.open.lock().map_err(|_| WriteFailure::Closed)?;
        let Some(open) = guard.as_ref() else {
            return Err(WriteFailure::Closed);
        };
        let mut written = 0;
        if open.queued.load(Acquire) == 0 {
            while written < line.len() {
                match (&open.direct).write(&line[written..]) {
                    Ok(0) => break,
                    Ok(n) => written += n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                    Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                        return Err(WriteFailure::Failed(STDIN_CLOSED.into()));
                    }
                    Err(e) => return Err(WriteFailure::Failed(e.to_string())),
                }
            }
            if written == line.len() {
                return Ok(());
            }
        }
        open.queued.fetch_add(1, AcqRel);
        open.tx.send(line[written..].to_vec()).map_err(|_| {
            open.queued.fetch_sub(1, AcqRel);
            WriteFailure::Failed(STDIN_CLOSED.into())
        })
    }

    /// Whether lines wait for the writing task (it must run before they reach the server).
    pub fn has_queued(&self) -> bool {
        use std::sync::atomic::Ordering::Acquire;
        self.open
            .lock()
            .ok()
            .and_then(|g| g.as_ref().map(|o| o.queued.load(Acquire) > 0))
            .unwrap_or(false)
    }

    /// Closes stdin once every queued line is written: the server sees EOF.
    pub fn close(&self) {
        if let Ok(mut g) = self.open.lock() {
            // Dropping the sender ends the task after the queued lines; dropping the
            // duplicate leaves the task's descriptor as the pipe's last writer.
            g.take();
        }
    }
}

/// A duplicate of the child's stdin descriptor with `O_NONBLOCK` set. The flag belongs to
/// the pipe's open file description, which the duplicate shares with the original: tokio
/// sets it too, but the direct write must not depend on that, since a blocking write to a
/// full pipe would stall the runtime's thread until the server reads.
fn nonblocking_duplicate(stdin: &ChildStdin) -> std::io::Result<std::fs::File> {
    use nix::fcntl::{FcntlArg, OFlag, fcntl};
    use std::os::fd::AsFd;
    let fd = stdin.as_fd().try_clone_to_owned()?;
    let flags = fcntl(&fd, FcntlArg::F_GETFL).map_err(std::io::Error::from)?;
    let flags = OFlag::from_bits_retain(flags) | OFlag::O_NONBLOCK;
    fcntl(&fd, FcntlArg::F_SETFL(flags)).map_err(std::io::Error::from)?;
    Ok(std::fs::File::from(fd))
}

async fn write_queued(
    mut stdin: ChildStdin,
    mut rx: tokio::sync::mpsc::UnboundedReceiver<Vec<u8>>,
    queued: Arc<std::sync::atomic::AtomicUsize>,
) {
    use std::sync::atomic::Ordering::AcqRel;
    use tokio::io::AsyncWriteExt;
    while let Some(chunk) = rx.recv().await {
        let ok = stdin.write_all(&chunk).await.is_ok() && stdin.flush().await.is_ok();
        queued.fetch_sub(1, AcqRel);
        if !ok {
            // The pipe is broken: later lines fail when they are sent (the direct write
            // sees the broken pipe; the channel is closed when this task ends).
            break;
        }
    }
    // Dropping stdin here is the EOF of the shutdown.
}

/// How a server's stdout stream ended.
#[derive(Debug, Clone)]
enum StreamEnd {
    Eof,
    Failed(String),
}

/// Newline framing with a maximum message size over bytes read from a server's stdout.
/// Shared by the session's reader task ([`LineReader`]) and a wait that reads in the
/// foreground ([`ForegroundReader`]); whoever reads next continues where the other stopped.
#[derive(Debug)]
struct LineBuf {
    buf: Box<[u8]>,
    start: usize,
    end: usize,
    line: Vec<u8>,
    max: usize,
    discarding: bool,
    /// Set when a read saw the end; the frames after the buffered bytes report it.
    ended: Option<StreamEnd>,
    done: bool,
    /// The reader task's waker while it waits for bytes. A foreground read that leaves
    /// work here must wake it: the reactor will not, because epoll reports an edge only if
    /// the pipe is still readable when the event is collected, and the bytes are gone.
    reader: Option<std::task::Waker>,
}

impl LineBuf {
    fn new(max: usize) -> LineBuf {
        LineBuf {
            buf: vec![0; 64 * 1024].into_boxed_slice(),
            start: 0,
            end: 0,
            line: Vec::new(),
            max,
            discarding: false,
            ended: None,
            done: false,
            reader: None,
        }
    }

    /// Whether frames can be had without reading (complete lines, or the end).
    fn has_work(&self) -> bool {
        self.ended.is_some()
            || mcpr_compiler::bytes::find_byte(&self.buf[self.start..self.end], b'\n').is_some()
    }

    /// The next frame from the bytes read so far, or `None` when more must be read.
    fn frame(&mut self) -> Option<Frame> {
        loop {
            if self.start == self.end {
                self.start = 0;
                self.end = 0;
                if self.done {
                    return Some(Frame::Eof);
                }
                let end = self.ended.clone()?;
                self.done = true;
                return Some(match end {
                    StreamEnd::Failed(reason) => Frame::Failed(reason),
                    StreamEnd::Eof if !self.line.is_empty() => {
                        Frame::PartialAtEof(std::mem::take(&mut self.line))
                    }
                    StreamEnd::Eof => Frame::Eof,
                });
            }
            let avail = &self.buf[self.start..self.end];
            let (chunk_len, complete) = match mcpr_compiler::bytes::find_byte(avail, b'\n') {
                Some(i) => (i, true),
                None => (avail.len(), false),
            };
            let mut report = None;
            if self.discarding {
                // The oversized line was reported already; skip it up to its newline.
            } else if self.line.len() + chunk_len > self.max {
                let seen = self.line.len() + chunk_len;
                self.discarding = true;
                self.line = Vec::new();
                report = Some(seen);
            } else if complete && self.line.is_empty() {
                // The usual case, a whole line in one read: one allocation of its size.
                self.line = avail[..chunk_len].to_vec();
            } else {
                self.line.extend_from_slice(&avail[..chunk_len]);
            }
            self.start += if complete { chunk_len + 1 } else { chunk_len };
            if complete && self.discarding && report.is_none() {
                self.discarding = false;
                continue;
            }
            if complete {
                self.discarding = false;
            }
            if let Some(seen) = report {
                // Reported as soon as the limit is passed, not when the line ends.
                return Some(Frame::TooLarge { seen });
            }
            if complete {
                let mut line = std::mem::take(&mut self.line);
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                return Some(Frame::Line(line));
            }
        }
    }

    /// The next line or oversize report from the bytes read so far; never the end of the
    /// stream, which is the reader task's to report.
    fn line(&mut self) -> Option<Frame> {
        if self.ended.is_some() {
            return None;
        }
        self.frame()
    }

    /// Room for the next read (only asked for when every buffered byte is framed).
    fn spare(&mut self) -> &mut [u8] {
        debug_assert_eq!(self.start, self.end);
        &mut self.buf[self.end..]
    }

    /// Notes the outcome of a read into [`LineBuf::spare`].
    fn filled(&mut self, read: std::io::Result<usize>) {
        match read {
            Ok(0) => self.ended = Some(StreamEnd::Eof),
            Ok(n) => self.end += n,
            Err(e) => self.ended = Some(StreamEnd::Failed(e.to_string())),
        }
    }
}

/// The session's reader of a server's stdout, cancellation-safe (the state lives in the
/// shared [`LineBuf`], not in a future).
#[derive(Debug)]
pub struct LineReader {
    buf: Arc<Mutex<LineBuf>>,
    stdout: ChildStdout,
}

impl LineReader {
    /// Reads the next frame.
    pub async fn next(&mut self) -> Frame {
        use std::task::Poll;
        let LineReader { buf, stdout } = self;
        std::future::poll_fn(|cx| {
            // Held only within one poll, never across a suspension.
            let Ok(mut lb) = buf.lock() else {
                return Poll::Ready(Frame::Failed("the reader's buffer was poisoned".into()));
            };
            loop {
                if let Some(frame) = lb.frame() {
                    return Poll::Ready(frame);
                }
                let mut read = tokio::io::ReadBuf::new(lb.spare());
                match std::pin::Pin::new(&mut *stdout).poll_read(cx, &mut read) {
                    Poll::Pending => {
                        if !lb.reader.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                            lb.reader = Some(cx.waker().clone());
                        }
                        return Poll::Pending;
                    }
                    Poll::Ready(outcome) => {
                        let n = read.filled().len();
                        lb.filled(outcome.map(|()| n));
                    }
                }
            }
        })
        .await
    }
}

/// What a foreground read ended with.
#[derive(Debug)]
pub enum Foreground {
    /// A line, or an oversized one's report.
    Frame(Frame),
    /// The alarm rang.
    Alarm,
    /// The stream ended or failed: left to the session's reader task, which reports it.
    Stop,
}

/// Reads a server's stdout on the waiting thread itself: non-blocking reads of a duplicate
/// of the pipe's descriptor and, between them, a wait on an epoll set of its own holding
/// stdout, the waiter's alarm and stderr (drained into the kept tail, so a server that
/// writes much on stderr never blocks on it). On a runtime with one thread this saves the
/// reactor's round (an `epoll_wait` and the hop through the reader task) on every answer,
/// which is most of the client's cost of a fast call. The set is built once: `poll(2)` on
/// the same three descriptors registers and removes a wait on each of them at every call,
/// which costs about as much again as the rest of the wait. The bytes go through the same
/// [`LineBuf`] as the reader task's.
#[derive(Debug)]
pub struct ForegroundReader {
    buf: Arc<Mutex<LineBuf>>,
    stdout: std::fs::File,
    stderr: Option<(std::fs::File, Arc<Mutex<StderrTail>>)>,
    /// Stdout ([`READY_STDOUT`]), the alarm ([`READY_ALARM`]) and, until it ends, stderr
    /// ([`READY_STDERR`]), all level-triggered.
    ready: nix::sys::epoll::Epoll,
    alarm: Arc<Alarm>,
}

/// What an event of [`ForegroundReader::ready`] is about.
const READY_STDOUT: u64 = 0;
const READY_ALARM: u64 = 1;
const READY_STDERR: u64 = 2;

impl ForegroundReader {
    /// A reader over duplicates of `stdout` and `stderr`; `None` when the system refuses
    /// a descriptor.
    fn new(
        buf: Arc<Mutex<LineBuf>>,
        stdout: std::fs::File,
        stderr: Option<(std::fs::File, Arc<Mutex<StderrTail>>)>,
    ) -> Option<ForegroundReader> {
        use nix::sys::epoll::{Epoll, EpollCreateFlags, EpollEvent, EpollFlags};
        let alarm = Alarm::new()?;
        let ready = Epoll::new(EpollCreateFlags::EPOLL_CLOEXEC).ok()?;
        let watch = |fd: std::os::fd::BorrowedFd<'_>, what: u64| {
            ready
                .add(fd, EpollEvent::new(EpollFlags::EPOLLIN, what))
                .ok()
        };
        {
            use std::os::fd::AsFd;
            watch(stdout.as_fd(), READY_STDOUT)?;
            watch(alarm.fd(), READY_ALARM)?;
            if let Some((file, _)) = &stderr {
                watch(file.as_fd(), READY_STDERR)?;
            }
        }
        Some(ForegroundReader {
            buf,
            stdout,
            stderr,
            ready,
            alarm,
        })
    }

    /// The waiter's alarm.
    pub fn alarm(&self) -> &Alarm {
        &self.alarm
    }

    /// Blocks until a frame is read, the alarm rings or the stream ends.
    pub fn next(&self) -> Foreground {
        use nix::sys::epoll::{EpollEvent, EpollTimeout};
        use std::io::Read;
        loop {
            {
                let Ok(mut lb) = self.buf.lock() else {
                    return Foreground::Stop;
                };
                if let Some(frame) = lb.line() {
                    return Foreground::Frame(frame);
                }
                if lb.ended.is_some() {
                    return Foreground::Stop;
                }
            }
            // Wait first, read after: an answer is rarely there the moment a wait begins,
            // and a read that finds nothing would be one more system call per message.
            let mut events = [EpollEvent::empty(); 3];
            let n = match self.ready.wait(&mut events, EpollTimeout::NONE) {
                Ok(n) => n,
                Err(nix::errno::Errno::EINTR) => 0,
                Err(_) => return Foreground::Stop,
            };
            let (mut out, mut alarm) = (false, false);
            for event in &events[..n] {
                match event.data() {
                    READY_STDOUT => out = true,
                    READY_ALARM => alarm = true,
                    _ => self.drain_stderr(),
                }
            }
            if out {
                let Ok(mut lb) = self.buf.lock() else {
                    return Foreground::Stop;
                };
                let read = (&self.stdout).read(lb.spare());
                match read {
                    Err(e)
                        if matches!(
                            e.kind(),
                            std::io::ErrorKind::Interrupted | std::io::ErrorKind::WouldBlock
                        ) => {}
                    other => lb.filled(other),
                }
            }
            if alarm {
                // A line read in the same wake-up goes first; the ring stays readable and
                // ends the next call. (Whatever is left over is the reader task's after
                // `hand_over`.)
                if out
                    && let Ok(mut lb) = self.buf.lock()
                    && let Some(frame) = lb.line()
                {
                    return Foreground::Frame(frame);
                }
                self.alarm.clear();
                return Foreground::Alarm;
            }
        }
    }

    /// A frame already read (a line or an oversize report), without reading more.
    pub fn buffered(&self) -> Option<Frame> {
        self.buf.lock().ok()?.line()
    }

    /// Ends a foreground wait: what it read and left (complete lines, the end of the
    /// stream) is the reader task's now, so the task is woken to take it.
    pub fn hand_over(&self) {
        if let Ok(lb) = self.buf.lock()
            && lb.has_work()
            && let Some(waker) = &lb.reader
        {
            waker.wake_by_ref();
        }
    }

    /// Moves what stderr holds into the tail; notes its end.
    fn drain_stderr(&self) {
        use std::io::Read;
        let Some((file, tail)) = &self.stderr else {
            return;
        };
        let mut chunk = [0u8; 16 * 1024];
        loop {
            match (&*file).read(&mut chunk) {
                Ok(0) => {
                    // Its end is the drain task's to announce; stop watching it.
                    let _ = self.ready.delete(file);
                    return;
                }
                Ok(n) => {
                    if let Ok(mut t) = tail.lock() {
                        t.push(&chunk[..n]);
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return,
                Err(_) => {
                    let _ = self.ready.delete(file);
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The direct writer's descriptor is non-blocking by our own doing: a server that does
    /// not read makes a write return `WouldBlock` (and the line go to the task), never
    /// stall the thread.
    #[tokio::test(flavor = "current_thread")]
    async fn direct_writes_never_block() {
        use nix::fcntl::{FcntlArg, OFlag, fcntl};
        use std::io::Write;
        let mut child = Command::new("sleep")
            .arg("5")
            .stdin(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("sleep starts");
        let stdin = child.stdin.take().expect("piped stdin");
        let direct = nonblocking_duplicate(&stdin).expect("duplicate");
        let flags = OFlag::from_bits_retain(fcntl(&direct, FcntlArg::F_GETFL).expect("flags"));
        assert!(flags.contains(OFlag::O_NONBLOCK));
        let chunk = vec![b'x'; 64 * 1024];
        let mut full = false;
        for _ in 0..64 {
            match (&direct).write(&chunk) {
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    full = true;
                    break;
                }
                Err(e) => panic!("unexpected write error: {e}"),
            }
        }
        assert!(full, "a pipe nobody reads fills up and says so");
        let _ = child.kill().await;
    }

    /// Feeds bytes as reads would, `chunk` at a time, and collects every frame.
    fn frames(max: usize, bytes: &[u8], chunk: usize, eof: bool) -> Vec<String> {
        let mut lb = LineBuf::new(max);
        let mut out = Vec::new();
        let show = |f: Frame| match f {
            Frame::Line(l) => format!("line {}", String::from_utf8_lossy(&l)),
            Frame::TooLarge { seen } => format!("too large {seen}"),
            Frame::PartialAtEof(p) => format!("partial {}", String::from_utf8_lossy(&p)),
            Frame::Eof => "eof".into(),
            Frame::Failed(why) => format!("failed {why}"),
        };
        for piece in bytes.chunks(chunk) {
            while let Some(f) = lb.frame() {
                out.push(show(f));
            }
            lb.spare()[..piece.len()].copy_from_slice(piece);
            lb.filled(Ok(piece.len()));
        }
        while let Some(f) = lb.frame() {
            out.push(show(f));
        }
        if eof {
            lb.filled(Ok(0));
            for _ in 0..2 {
                out.push(show(lb.frame().expect("a frame after the end")));
            }
        }
        out
    }

    #[test]
    fn lines_are_framed_whatever_the_reads() {
        let input = b"{\"a\":1}\r\n{\"b\":2}\n\n{\"c\":3}\n";
        let expected = [
            "line {\"a\":1}",
            "line {\"b\":2}",
            "line ",
            "line {\"c\":3}",
        ];
        for chunk in [1, 2, 3, 7, 64] {
            assert_eq!(frames(100, input, chunk, false), expected, "chunk {chunk}");
        }
    }

    #[test]
    fn an_oversized_line_is_reported_once_and_skipped() {
        let input = b"short\n0123456789abcdef\nafter\n";
        for chunk in [1, 4, 64] {
            let got = frames(10, input, chunk, false);
            assert_eq!(got.len(), 3, "chunk {chunk}: {got:?}");
            assert_eq!(got[0], "line short");
            assert!(got[1].starts_with("too large "), "chunk {chunk}: {got:?}");
            assert_eq!(got[2], "line after", "chunk {chunk}");
        }
    }

    #[test]
    fn the_end_reports_a_partial_line_then_eof() {
        assert_eq!(
            frames(100, b"one\ntw", 3, true),
            ["line one", "partial tw", "eof"]
        );
        assert_eq!(frames(100, b"one\n", 2, true), ["line one", "eof", "eof"]);
        let mut lb = LineBuf::new(100);
        lb.filled(Err(std::io::Error::other("broken")));
        assert!(matches!(lb.frame(), Some(Frame::Failed(w)) if w == "broken"));
        assert!(matches!(lb.frame(), Some(Frame::Eof)));
    }

    /// A foreground reader over a child's stdout, sharing its buffer with `reader`.
    fn pair(script: &str) -> (tokio::process::Child, LineReader, ForegroundReader) {
        let mut child = Command::new("sh")
            .args(["-c", script])
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("sh starts");
        let stdout = child.stdout.take().expect("stdout");
        let buf = Arc::new(Mutex::new(LineBuf::new(1 << 20)));
        let tail = Arc::new(Mutex::new(StderrTail::default()));
        let fg = foreground_reader(&buf, &stdout, None, &tail).expect("foreground reader");
        (child, LineReader { buf, stdout }, fg)
    }

    fn line(f: Foreground) -> String {
        match f {
            Foreground::Frame(Frame::Line(l)) => String::from_utf8_lossy(&l).into_owned(),
            other => panic!("expected a line, got {other:?}"),
        }
    }

    /// A line and the alarm ready at the same wake-up: the line first, then the alarm.
    #[tokio::test(flavor = "current_thread")]
    async fn a_line_read_with_the_alarm_comes_first() {
        let (_child, _reader, fg) = pair("printf 'one\\n'; sleep 5");
        fg.alarm().set(Instant::now());
        // Both are ready before the first poll.
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(line(fg.next()), "one");
        assert!(matches!(fg.next(), Foreground::Alarm));
        fg.alarm().unset();
    }

    /// Stderr is drained into the tail while a wait reads stdout; once it ends it leaves
    /// the epoll set, which would otherwise report its end at every wait from then on.
    #[tokio::test(flavor = "current_thread")]
    async fn stderr_is_drained_and_dropped_from_the_set_at_its_end() {
        let mut child = Command::new("sh")
            .args([
                "-c",
                "echo complaint >&2; exec 2>&-; sleep 0.2; echo one; sleep 5",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("sh starts");
        let stdout = child.stdout.take().expect("stdout");
        let stderr = child.stderr.take().expect("stderr");
        let buf = Arc::new(Mutex::new(LineBuf::new(1 << 20)));
        let tail = Arc::new(Mutex::new(StderrTail::default()));
        let fg = foreground_reader(&buf, &stdout, Some(&stderr), &tail).expect("reader");
        fg.alarm().set(Instant::now() + Duration::from_secs(5));
        assert_eq!(line(fg.next()), "one");
        fg.alarm().unset();
        assert_eq!(tail.lock().expect("tail").text(), "complaint\n");
        let mut events = [nix::sys::epoll::EpollEvent::empty(); 3];
        let ready = fg
            .ready
            .wait(&mut events, nix::sys::epoll::EpollTimeout::ZERO)
            .expect("wait");
        assert_eq!(ready, 0, "something still reports: {:?}", &events[..ready]);
    }

    /// Lines the foreground read and left behind reach the reader task after `hand_over`,
    /// though the pipe is empty by then and the reactor has nothing to report.
    #[tokio::test(flavor = "current_thread")]
    async fn what_the_foreground_leaves_wakes_the_reader_task() {
        let (_child, mut reader, fg) = pair("sleep 0.2; printf 'one\\ntwo\\n'; sleep 5");
        let task = tokio::spawn(async move { reader.next().await });
        // Let the task start waiting for bytes.
        for _ in 0..3 {
            tokio::task::yield_now().await;
        }
        fg.alarm().set(Instant::now() + Duration::from_secs(5));
        assert_eq!(line(fg.next()), "one");
        fg.alarm().unset();
        fg.hand_over();
        let got = tokio::time::timeout(Duration::from_secs(2), task)
            .await
            .expect("the reader task was not woken")
            .expect("reader task");
        assert!(matches!(&got, Frame::Line(l) if l == b"two"), "{got:?}");
    }

    /// Lines sent while the pipe is full wait for the task, and no later line overtakes
    /// them: the reader gets every line in order, then EOF after `close`.
    #[tokio::test(flavor = "current_thread")]
    async fn lines_keep_their_order_when_the_pipe_is_full() {
        // The reader starts late, so the pipe (64 KiB) fills and later lines queue.
        let mut child = Command::new("sh")
            .args(["-c", "sleep 0.3; cat"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("sh starts");
        let writer = StdinWriter::new(child.stdin.take().expect("stdin")).expect("writer");
        let mut stdout = child.stdout.take().expect("stdout");
        let reading = tokio::spawn(async move {
            let mut all = Vec::new();
            stdout.read_to_end(&mut all).await.map(|_| all)
        });
        let mut expected = Vec::new();
        for i in 0..2000 {
            let line = format!("{i:05} {}\n", "x".repeat(i % 300)).into_bytes();
            expected.extend_from_slice(&line);
            writer.send(&line).expect("line accepted");
        }
        assert!(expected.len() > 4 * 65536, "the pipe must fill");
        writer.close();
        assert_eq!(writer.send(b"late\n"), Err(WriteFailure::Closed));
        let got = reading.await.expect("reader").expect("read");
        assert_eq!(got.len(), expected.len());
        assert!(got == expected, "lines out of order");
        child.wait().await.expect("cat exits at EOF");
    }

    /// A server that is gone makes the next line fail with a reason, not hang or vanish.
    #[tokio::test(flavor = "current_thread")]
    async fn a_line_to_an_exited_server_fails() {
        let mut child = Command::new("sh")
            .args(["-c", "exit 0"])
            .stdin(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("sh starts");
        let writer = StdinWriter::new(child.stdin.take().expect("stdin")).expect("writer");
        child.wait().await.expect("exits");
        // A process started at the same moment by another test may hold a copy of the
        // pipe's read end until it execs: the pipe then takes a line or two first.
        let until = Instant::now() + Duration::from_secs(5);
        let failure = loop {
            match writer.send(b"{}\n") {
                Err(f) => break f,
                Ok(()) if Instant::now() < until => {
                    tokio::time::sleep(Duration::from_millis(10)).await
                }
                Ok(()) => panic!("lines to an exited server kept being accepted"),
            }
        };
        match failure {
            WriteFailure::Failed(reason) => assert!(reason.contains("closed"), "{reason}"),
            other => panic!("expected a write failure, got {other:?}"),
        }
    }
}
