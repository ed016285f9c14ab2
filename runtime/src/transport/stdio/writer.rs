//! Writing lines to a server's stdin: directly from the calling thread when the pipe
//! takes them, through a task otherwise, always in order.

use std::sync::{Arc, Mutex};

use tokio::process::ChildStdin;

/// Writes lines to a server's stdin. A line is written at once, from the calling thread,
/// when nothing is waiting before it and the pipe takes all of it; otherwise it (or what
/// the pipe did not take) goes to a task that waits until the pipe has room. The direct
/// write saves the hop to that task and lets the server start on a request while the
/// client is still filing it.
pub struct StdinWriter {
    pub(super) open: Mutex<Option<OpenStdin>>,
}

pub(super) struct OpenStdin {
    /// Lines (or their unwritten rest) for the task, in order.
    pub(super) tx: tokio::sync::mpsc::UnboundedSender<Vec<u8>>,
    /// A duplicate of the pipe's descriptor for direct writes, set non-blocking (see
    /// [`nonblocking_duplicate`]), so a write never blocks; being a descriptor of our own,
    /// it stays valid whatever the task does.
    pub(super) direct: std::fs::File,
    /// Lines handed to the task and not yet written: a direct write must wait for them.
    pub(super) queued: Arc<std::sync::atomic::AtomicUsize>,
    /// Bytes of those lines.
    pub(super) queued_bytes: Arc<std::sync::atomic::AtomicUsize>,
    /// Most bytes that may wait for the server to read them.
    pub(super) max_queued_bytes: usize,
}

/// The reason given when the server no longer reads its stdin.
pub(super) const STDIN_CLOSED: &str = "the server's stdin is closed";

/// Why a line could not be written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteFailure {
    /// The writer was closed (the session is ending).
    Closed,
    /// The server's stdin is gone, or the write failed.
    Failed(String),
    /// The server has not read so much of what was written that the writer's byte budget
    /// would be passed.
    Budget {
        /// The budget in bytes.
        limit: usize,
    },
}

impl StdinWriter {
    /// Takes the child's stdin; starts the writing task on the current runtime. At most
    /// `max_queued_bytes` may wait for a server that does not read.
    pub fn new(stdin: ChildStdin, max_queued_bytes: usize) -> std::io::Result<StdinWriter> {
        let direct = nonblocking_duplicate(&stdin)?;
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let queued = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let queued_bytes = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        tokio::spawn(write_queued(
            stdin,
            rx,
            queued.clone(),
            queued_bytes.clone(),
        ));
        Ok(StdinWriter {
            open: Mutex::new(Some(OpenStdin {
                tx,
                direct,
                queued,
                queued_bytes,
                max_queued_bytes,
            })),
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
        let rest = line.len() - written;
        if open.queued_bytes.load(Acquire) + rest > open.max_queued_bytes {
            return Err(WriteFailure::Budget {
                limit: open.max_queued_bytes,
            });
        }
        open.queued.fetch_add(1, AcqRel);
        open.queued_bytes.fetch_add(rest, AcqRel);
        open.tx.send(line[written..].to_vec()).map_err(|_| {
            open.queued.fetch_sub(1, AcqRel);
            open.queued_bytes.fetch_sub(rest, AcqRel);
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
pub(super) fn nonblocking_duplicate(stdin: &ChildStdin) -> std::io::Result<std::fs::File> {
    use nix::fcntl::{FcntlArg, OFlag, fcntl};
    use std::os::fd::AsFd;
    let fd = stdin.as_fd().try_clone_to_owned()?;
    let flags = fcntl(&fd, FcntlArg::F_GETFL).map_err(std::io::Error::from)?;
    let flags = OFlag::from_bits_retain(flags) | OFlag::O_NONBLOCK;
    fcntl(&fd, FcntlArg::F_SETFL(flags)).map_err(std::io::Error::from)?;
    Ok(std::fs::File::from(fd))
}

pub(super) async fn write_queued(
    mut stdin: ChildStdin,
    mut rx: tokio::sync::mpsc::UnboundedReceiver<Vec<u8>>,
    queued: Arc<std::sync::atomic::AtomicUsize>,
    queued_bytes: Arc<std::sync::atomic::AtomicUsize>,
) {
    use std::sync::atomic::Ordering::AcqRel;
    use tokio::io::AsyncWriteExt;
    while let Some(chunk) = rx.recv().await {
        let ok = stdin.write_all(&chunk).await.is_ok() && stdin.flush().await.is_ok();
        queued.fetch_sub(1, AcqRel);
        queued_bytes.fetch_sub(chunk.len(), AcqRel);
        if !ok {
            // The pipe is broken: later lines fail when they are sent (the direct write
            // sees the broken pipe; the channel is closed when this task ends).
            break;
        }
    }
    // Dropping stdin here is the EOF of the shutdown.
}

#[cfg(test)]
mod tests {
    use super::super::*;
    use super::*;
    use std::time::{Duration, Instant};

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
        let writer =
            StdinWriter::new(child.stdin.take().expect("stdin"), 64 << 20).expect("writer");
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
        let writer =
            StdinWriter::new(child.stdin.take().expect("stdin"), 64 << 20).expect("writer");
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
