//! Newline framing of a server's stdout with a size limit, shared by the reader task and
//! foreground reads.

use std::sync::{Arc, Mutex};

use tokio::io::AsyncRead;
use tokio::process::ChildStdout;

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

/// How a server's stdout stream ended.
#[derive(Debug, Clone)]
pub(super) enum StreamEnd {
    Eof,
    Failed(String),
}

/// Newline framing with a maximum message size over bytes read from a server's stdout.
/// Shared by the session's reader task ([`LineReader`]) and a wait that reads in the
/// foreground ([`ForegroundReader`]); whoever reads next continues where the other stopped.
#[derive(Debug)]
pub(super) struct LineBuf {
    pub(super) buf: Box<[u8]>,
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) line: Vec<u8>,
    pub(super) max: usize,
    pub(super) discarding: bool,
    /// Set when a read saw the end; the frames after the buffered bytes report it.
    pub(super) ended: Option<StreamEnd>,
    pub(super) done: bool,
    /// The reader task's waker while it waits for bytes. A foreground read that leaves
    /// work here must wake it: the reactor will not, because epoll reports an edge only if
    /// the pipe is still readable when the event is collected, and the bytes are gone.
    pub(super) reader: Option<std::task::Waker>,
}

impl LineBuf {
    pub(super) fn new(max: usize) -> LineBuf {
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
    pub(super) fn has_work(&self) -> bool {
        self.ended.is_some()
            || mcpr_compiler::bytes::find_byte(&self.buf[self.start..self.end], b'\n').is_some()
    }

    /// The next frame from the bytes read so far, or `None` when more must be read.
    pub(super) fn frame(&mut self) -> Option<Frame> {
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
    pub(super) fn line(&mut self) -> Option<Frame> {
        if self.ended.is_some() {
            return None;
        }
        self.frame()
    }

    /// Room for the next read (only asked for when every buffered byte is framed).
    pub(super) fn spare(&mut self) -> &mut [u8] {
        debug_assert_eq!(self.start, self.end);
        &mut self.buf[self.end..]
    }

    /// Notes the outcome of a read into [`LineBuf::spare`].
    pub(super) fn filled(&mut self, read: std::io::Result<usize>) {
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
    pub(super) buf: Arc<Mutex<LineBuf>>,
    pub(super) stdout: ChildStdout,
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

#[cfg(test)]
mod tests {

    use super::*;

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
}
