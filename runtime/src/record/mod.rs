//! `mcpr record`: a proxy between a real client and a server, in two kinds. Over stdio
//! (this module) the client starts `mcpr record -o draft.mcpr -- CMD ARGS…` as its server;
//! the recorder starts `CMD` and passes every line both ways unchanged (requests, answers,
//! notifications, the server's own requests). Over Streamable HTTP ([`http`]) mcpr listens
//! and forwards every request to `--url`. Both keep a [`tape::Tape`] of the client's
//! requests and their answers; when the session ends (the client closes its end or ends
//! its session, a signal, the server exits) the tape is written as a draft suite
//! ([`draft::draft`]).

pub mod draft;
#[cfg(feature = "record-http")]
mod forward;
#[cfg(feature = "record-http")]
pub mod headers;
#[cfg(feature = "record-http")]
pub mod http;
pub mod stable;
#[cfg(feature = "record-http")]
pub mod tap;
pub mod tape;

use std::path::{Path, PathBuf};
use std::time::Duration;

use mcpr_compiler::ir::Target;
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

use crate::error::Error;
use crate::interrupt::Interrupt;
use crate::transport::stdio::{Frame, StdinWriter, StdioConfig, StdioProcess};

/// Largest line passed through (the client and the server may send big ones).
const MAX_LINE: usize = 256 * 1024 * 1024;

/// How long the server may keep answering after the client closed its end.
const DRAIN: Duration = Duration::from_secs(2);

/// What `mcpr record` needs.
#[derive(Debug, Clone)]
pub struct RecordOptions {
    /// The server program.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Where the draft goes (written atomically).
    pub output: PathBuf,
    /// Grace of the server's shutdown at each stage.
    pub grace: Duration,
    /// Raised by a signal: the recorder stops as if the client had closed its end.
    pub interrupt: Interrupt,
}

/// How a recording ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    /// The draft written (its steps and what it left out).
    pub draft: draft::Draft,
    /// Requests the client made (the session's own included).
    pub calls: usize,
    /// Notes for the person: a server that exited, lines that were not JSON.
    pub notes: Vec<String>,
}

/// Why the recording ended.
enum End {
    Client,
    Server,
    Signal,
}

/// Proxies between the client (`client_in`, `client_out`) and the server until either side
/// ends, then writes the draft. The error is a server that cannot start, or a draft that
/// cannot be written (nothing recorded, or the file).
pub async fn record<R, W>(
    opts: &RecordOptions,
    client_in: R,
    mut client_out: W,
) -> Result<Recorded, Error>
where
    R: std::io::Read + Send + 'static,
    W: AsyncWrite + Unpin,
{
    let mut config = StdioConfig::new(opts.command.clone(), opts.args.clone());
    // The client chose what the server sees; the proxy hides nothing of it.
    config.inherit = crate::redact::Inherit::All;
    config.max_message_bytes = MAX_LINE;
    let mut process = StdioProcess::spawn(&config)?;
    let writer = process
        .stdin
        .take()
        .and_then(|s| StdinWriter::new(s, MAX_LINE).ok());
    let mut stdout = process.stdout.take();
    drop(process.foreground.take());
    let (tx, mut rx) = mpsc::channel::<Vec<u8>>(64);
    // A thread of its own, not the runtime's blocking pool: a read of the client's stdin
    // that never returns must not hold the runtime's shutdown (a signal ends the proxy).
    std::thread::spawn(move || {
        use std::io::BufRead;
        let mut r = std::io::BufReader::new(client_in);
        loop {
            let mut line = Vec::new();
            match r.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if tx.blocking_send(line).is_err() {
                        break;
                    }
                }
            }
        }
    });
    let mut tape = tape::Tape::default();
    let mut notes = Vec::new();
    let mut client_gone = false;
    let mut stopped_reading = false;
    let end = loop {
        let Some(out) = stdout.as_mut() else {
            break End::Server;
        };
        tokio::select! {
            line = rx.recv() => match line {
                Some(line) => {
                    let body = trim_newline(&line);
                    tape.from_client(body);
                    let mut bytes = body.to_vec();
                    bytes.push(b'\n');
                    if let Some(w) = &writer
                        && w.send(&bytes).is_err()
                        && !stopped_reading
                    {
                        stopped_reading = true;
                        notes.push("the server stopped reading its stdin".to_string());
                    }
                }
                None => break End::Client,
            },
            frame = out.next() => match frame {
                Frame::Line(l) => {
                    tape.from_server(&l);
                    client_gone |= forward(&mut client_out, &l, client_gone).await;
                }
                Frame::TooLarge { seen } => notes.push(format!(
                    "the server wrote a line of more than {seen} bytes; it was not passed on"
                )),
                Frame::PartialAtEof(l) => {
                    tape.from_server(&l);
                    client_gone |= forward(&mut client_out, &l, client_gone).await;
                    break End::Server;
                }
                Frame::Eof | Frame::Failed(_) => break End::Server,
            },
            _ = opts.interrupt.wait() => break End::Signal,
        }
    };
    drop(rx);
    if let Some(w) = &writer {
        w.close();
    }
    if !matches!(end, End::Server)
        && let Some(out) = stdout.as_mut()
    {
        // The server may still be answering what the client sent last.
        let _ = tokio::time::timeout(DRAIN, async {
            loop {
                match out.next().await {
                    Frame::Line(l) | Frame::PartialAtEof(l) => {
                        tape.from_server(&l);
                        client_gone |= forward(&mut client_out, &l, client_gone).await;
                    }
                    Frame::TooLarge { .. } => {}
                    Frame::Eof | Frame::Failed(_) => break,
                }
            }
        })
        .await;
    }
    drop(writer);
    let report = process
        .handle
        .shutdown(crate::transport::ShutdownGrace::Fixed(opts.grace))
        .await;
    if matches!(end, End::Server) {
        let status = report.status.unwrap_or_else(|| "its stdout closed".into());
        let mut note = format!("the server ended the session ({status})");
        let tail = process.handle.stderr_tail();
        if let Some(last) = tail.lines().rev().find(|l| !l.trim().is_empty()) {
            note.push_str(&format!("; its last stderr line: {}", last.trim()));
        }
        notes.push(note);
    }
    for (from_client, line) in &tape.not_json {
        let who = if *from_client { "client" } else { "server" };
        notes.push(format!(
            "the {who} sent a line that is not JSON-RPC: {line}"
        ));
    }
    let target = Target::stdio(opts.command.clone(), opts.args.clone());
    let written = write_draft(&tape, target, &[], &opts.output)?;
    Ok(Recorded {
        draft: written,
        calls: tape.calls.len(),
        notes,
    })
}

/// The draft of `tape` for `target`, written whole to `output` (or not at all).
fn write_draft(
    tape: &tape::Tape,
    target: Target,
    comments: &[String],
    output: &Path,
) -> Result<draft::Draft, Error> {
    let written = draft::draft(tape, target, comments).map_err(|e| usage(&e))?;
    crate::files::write_atomic(
        output,
        written.text.as_bytes(),
        crate::files::Access::Shared,
    )
    .map_err(|e| usage(&e))?;
    Ok(written)
}

fn usage(msg: &str) -> Error {
    Error::new(crate::error::ErrorKind::Usage(msg.to_string()))
}

fn trim_newline(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Writes one line to the client; true when the client is gone (its later lines are
/// dropped: the server still gets to finish).
async fn forward<W: AsyncWrite + Unpin>(out: &mut W, line: &[u8], gone: bool) -> bool {
    if gone {
        return true;
    }
    let mut bytes = Vec::with_capacity(line.len() + 1);
    bytes.extend_from_slice(line);
    bytes.push(b'\n');
    out.write_all(&bytes).await.is_err() || out.flush().await.is_err()
}
