//! Reading answers on the waiting thread (a one-thread runtime): an epoll set over
//! stdout, the alarm and stderr, sharing the frame buffer with the reader task.

use std::sync::{Arc, Mutex};

use super::framing::{Frame, LineBuf};
use super::process::StderrTail;
use crate::transport::alarm::Alarm;

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
    pub(super) buf: Arc<Mutex<LineBuf>>,
    pub(super) stdout: std::fs::File,
    pub(super) stderr: Option<(std::fs::File, Arc<Mutex<StderrTail>>)>,
    /// Stdout ([`READY_STDOUT`]), the alarm ([`READY_ALARM`]) and, until it ends, stderr
    /// ([`READY_STDERR`]), all level-triggered.
    pub(super) ready: nix::sys::epoll::Epoll,
    pub(super) alarm: Arc<Alarm>,
}

/// What an event of [`ForegroundReader::ready`] is about.
pub(super) const READY_STDOUT: u64 = 0;
pub(super) const READY_ALARM: u64 = 1;
pub(super) const READY_STDERR: u64 = 2;

impl ForegroundReader {
    /// A reader over duplicates of `stdout` and `stderr`; `None` when the system refuses
    /// a descriptor.
    pub(super) fn new(
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
    pub(super) fn drain_stderr(&self) {
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
    use super::super::*;
    use super::*;
    use std::time::{Duration, Instant};

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
}
