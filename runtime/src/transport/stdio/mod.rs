//! The stdio transport: a child process in its own process group, newline-delimited
//! messages on stdin/stdout with a size limit, stderr drained continuously, and a shutdown
//! that leaves nothing behind (stdin EOF, grace, SIGTERM, grace, SIGKILL, on the whole group).
//!
//! Lines are written from the calling thread when the pipe takes them ([`StdinWriter`]).
//! Stdout is read by the session's reader task ([`LineReader`]) and, on a runtime of one
//! thread, also by the waiting call itself for a short slice ([`ForegroundReader`]): both
//! frame bytes through one shared buffer, so neither ever sees a line out of order.
//!
//! One file per part: `process` (the child's group, stderr tail, shutdown), `idle` (whether a
//! server asked to exit is still busy), `writer` (stdin), `framing` (stdout lines),
//! `foreground` (reading answers on the waiting thread).

mod descendants;
mod foreground;
mod framing;
mod idle;
mod process;
mod writer;

pub use descendants::{end_unclaimed, sweep_strays};

pub use foreground::{Foreground, ForegroundReader};
pub use framing::{Frame, LineReader};
pub use process::{
    ProcessHandle, ShutdownGrace, ShutdownReport, ShutdownStage, StderrTail, describe_status,
    group_alive, kill_all_process_groups,
};
pub use writer::{StdinWriter, WriteFailure};

use framing::LineBuf;
use process::registry;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::io::AsyncReadExt;
use tokio::process::{ChildStdin, ChildStdout, Command};
use tokio::sync::watch;

use crate::error::{Error, ErrorKind};
use crate::redact;

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
    /// Which of the runner's variables pass besides the base set (`redact::BASE_VARS`).
    pub inherit: redact::Inherit,
    /// Largest accepted stdout message, in bytes.
    pub max_message_bytes: usize,
}

impl StdioConfig {
    /// A configuration with defaults: the minimal environment, 16 MiB messages.
    pub fn new(
        command: impl Into<String>,
        args: impl IntoIterator<Item = impl Into<String>>,
    ) -> StdioConfig {
        StdioConfig {
            command: command.into(),
            args: args.into_iter().map(Into::into).collect(),
            cwd: None,
            env: BTreeMap::new(),
            inherit: redact::Inherit::Base,
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

impl StdioProcess {
    /// Starts a server in its own process group.
    pub fn spawn(config: &StdioConfig) -> Result<StdioProcess, Error> {
        let env = redact::server_env(redact::runner_env(), &config.env, &config.inherit);
        let mark = descendants::next_mark();
        let mut cmd = Command::new(&config.command);
        cmd.args(&config.args)
            .env_clear()
            .envs(&env.vars)
            .env(descendants::SESSION_MARK, &mark)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .process_group(0);
        if let Some(cwd) = &config.cwd {
            cmd.current_dir(cwd);
        }
        // The registry is held from before the spawn until the server is in it: a sweep of
        // unclaimed children (`descendants::end_unclaimed`) never sees it unregistered.
        let mut registered = registry().lock();
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
            && let Ok(g) = registered.as_mut()
        {
            g.insert(pid);
        }
        drop(registered);
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
                mark,
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
