//! The driver (`mcpr driver`, docs/driver.md): mcpr's engine for bindings in other
//! languages. Requests come as JSON lines, each is worked on in a task of its own, and
//! each response goes out as one line when it is ready; the servers a binding opens are
//! kept in a table by handle (`mcp-1`, …). When the input ends, or on `shutdown`, every
//! server is stopped, so a binding that dies leaves nothing running.
//!
//! - `wire`: request lines, responses and the [`wire::Failure`] of a request;
//! - `servers`: `open` and `close`, and what is kept of an open server;
//! - `calls`: the requests made of an open server (lists, calls, waits, lint, snapshots).

mod calls;
mod servers;
pub mod wire;

use std::collections::BTreeMap;
use std::io::BufRead;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use servers::Open;
use wire::{Failure, MAX_LINE_BYTES, Request};

/// The version of the protocol this driver speaks.
pub const PROTOCOL: u64 = 1;

/// Every method, in the order docs/driver.md lists them.
pub const METHODS: &[&str] = &[
    "hello",
    "open",
    "close",
    "shutdown",
    "listTools",
    "callTool",
    "listResources",
    "listResourceTemplates",
    "readResource",
    "listPrompts",
    "getPrompt",
    "waitNotification",
    "stderr",
    "lint",
    "snapshot",
    "diff",
];

/// What the reader of the input hands the driver.
#[derive(Debug)]
pub enum Input {
    /// One line, without its newline.
    Line(Vec<u8>),
    /// A line longer than [`MAX_LINE_BYTES`], skipped.
    TooLong,
}

/// Reads lines from `reader` on a thread of its own (a blocking read never holds up the
/// async runtime or its shutdown) and hands them over until the input ends.
pub fn read_lines(mut reader: impl BufRead + Send + 'static) -> mpsc::Receiver<Input> {
    let (tx, rx) = mpsc::channel(64);
    std::thread::spawn(move || {
        let mut line = Vec::new();
        loop {
            line.clear();
            let too_long = match read_line(&mut reader, &mut line) {
                Ok(None) | Err(_) => return,
                Ok(Some(too_long)) => too_long,
            };
            let input = if too_long {
                Input::TooLong
            } else {
                Input::Line(std::mem::take(&mut line))
            };
            if tx.blocking_send(input).is_err() {
                return;
            }
        }
    });
    rx
}

/// One line into `line` (at most [`MAX_LINE_BYTES`] kept): `None` at the end of the input,
/// `Some(true)` when the line was longer and its rest was skipped.
fn read_line(reader: &mut impl BufRead, line: &mut Vec<u8>) -> std::io::Result<Option<bool>> {
    let mut too_long = false;
    let mut read_any = false;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(read_any.then_some(too_long));
        }
        read_any = true;
        let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        if !too_long && line.len() + chunk.len() <= MAX_LINE_BYTES {
            line.extend_from_slice(chunk);
        } else {
            too_long = true;
            line.clear();
        }
        let used = done.unwrap_or(buf.len());
        reader.consume(used);
        if done.is_some() {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return Ok(Some(too_long));
        }
    }
}

/// The driver's state: the open servers and whether the binding said hello.
pub(crate) struct Driver {
    servers: Mutex<BTreeMap<String, Arc<Open>>>,
    next: AtomicU64,
    greeted: AtomicBool,
}

impl Driver {
    fn new() -> Driver {
        Driver {
            servers: Mutex::new(BTreeMap::new()),
            next: AtomicU64::new(1),
            greeted: AtomicBool::new(false),
        }
    }

    /// The open server a request names in its `server` param.
    pub(crate) fn server(&self, params: &Value) -> Result<Arc<Open>, Failure> {
        let Some(name) = params.get("server").and_then(Value::as_str) else {
            return Err(Failure::invalid(
                "the request names no `server` (the handle `open` returned)",
            ));
        };
        self.servers
            .lock()
            .expect("servers lock")
            .get(name)
            .cloned()
            .ok_or_else(|| unknown_server(name))
    }

    /// Keeps an opened server under its name; gives it back when the name is taken.
    fn keep(&self, open: Arc<Open>) -> Result<(), Arc<Open>> {
        let mut table = self.servers.lock().expect("servers lock");
        if table.contains_key(&open.name) {
            return Err(open);
        }
        table.insert(open.name.clone(), open);
        Ok(())
    }

    /// Stops every open server, all at once.
    async fn close_all(&self) {
        let open: Vec<Arc<Open>> = std::mem::take(&mut *self.servers.lock().expect("servers lock"))
            .into_values()
            .collect();
        let mut closing = JoinSet::new();
        for server in open {
            closing.spawn(async move {
                server.close().await;
            });
        }
        while closing.join_next().await.is_some() {}
    }
}

fn unknown_server(name: &str) -> Failure {
    Failure::new(
        "unknown-server",
        format!("no open server is called {name:?} (closed, or never opened)"),
    )
    .with("server", json!(name))
}

/// Serves requests from `input` and writes the responses to `output` until the input ends
/// or a `shutdown` request; then stops every server it opened.
pub async fn serve(
    mut input: mpsc::Receiver<Input>,
    output: impl AsyncWrite + Unpin + Send + 'static,
) -> std::io::Result<()> {
    let driver = Arc::new(Driver::new());
    let (tx, mut rx) = mpsc::unbounded_channel::<String>();
    let writer = tokio::spawn(async move {
        let mut output = output;
        while let Some(mut line) = rx.recv().await {
            line.push('\n');
            output.write_all(line.as_bytes()).await?;
            output.flush().await?;
        }
        Ok::<(), std::io::Error>(())
    });
    let mut working: JoinSet<()> = JoinSet::new();
    while let Some(input) = input.recv().await {
        while working.try_join_next().is_some() {}
        let request = match input {
            Input::TooLong => {
                let f = Failure::invalid(format!(
                    "the line is longer than {} MiB",
                    MAX_LINE_BYTES / 1024 / 1024
                ));
                let _ = tx.send(wire::error_line(&Value::Null, &f));
                continue;
            }
            Input::Line(line) if line.iter().all(u8::is_ascii_whitespace) => continue,
            Input::Line(line) => match wire::parse_request(&line) {
                Ok(r) => r,
                Err(refused) => {
                    let _ = tx.send(wire::error_line(&refused.id, &refused.failure));
                    continue;
                }
            },
        };
        // `hello` is answered here, before the next line is read, so that a binding may
        // write its next requests right behind it.
        if request.method == "hello" {
            let line = match hello(&driver, request.params) {
                Ok(result) => wire::result_line(&request.id, result),
                Err(f) => wire::error_line(&request.id, &f),
            };
            let _ = tx.send(line);
            continue;
        }
        if request.method == "shutdown" && driver.greeted.load(Ordering::Relaxed) {
            working.abort_all();
            driver.close_all().await;
            let _ = tx.send(wire::result_line(&request.id, json!({})));
            break;
        }
        let driver = driver.clone();
        let tx = tx.clone();
        working.spawn(async move {
            let Request { id, method, params } = request;
            let line = match handle(&driver, &method, params).await {
                Ok(result) => wire::result_line(&id, result),
                Err(f) => wire::error_line(&id, &f),
            };
            let _ = tx.send(line);
        });
    }
    // The input ended (or `shutdown`): nothing more will be asked, so requests still
    // waiting are dropped with the servers they wait on.
    working.abort_all();
    while working.join_next().await.is_some() {}
    driver.close_all().await;
    drop(tx);
    writer.await.unwrap_or(Ok(()))
}

/// Works on one request.
async fn handle(driver: &Driver, method: &str, params: Value) -> Result<Value, Failure> {
    if !driver.greeted.load(Ordering::Relaxed) {
        return Err(Failure::new(
            "no-hello",
            format!("{method}: the first request must be `hello` (docs/driver.md)"),
        ));
    }
    match method {
        "open" => {
            let n = driver.next.fetch_add(1, Ordering::Relaxed);
            let (open, result) = servers::open(params, n).await?;
            match driver.keep(Arc::new(open)) {
                Ok(()) => Ok(result),
                Err(twin) => {
                    twin.close().await;
                    Err(Failure::invalid(format!(
                        "open: a server called {:?} is already open",
                        twin.name
                    )))
                }
            }
        }
        "close" => {
            let server = driver.server(&params)?;
            let removed = driver
                .servers
                .lock()
                .expect("servers lock")
                .remove(&server.name);
            match removed {
                Some(server) => Ok(server.close().await),
                None => Err(unknown_server(&server.name)),
            }
        }
        _ => {
            let server = driver.server(&params)?;
            calls::call(&server, method, params).await
        }
    }
}

/// `hello`: the protocol version both sides speak.
fn hello(driver: &Driver, params: Value) -> Result<Value, Failure> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Hello {
        protocol: u64,
        #[serde(default)]
        #[allow(dead_code)]
        client: Option<String>,
    }
    let p: Hello = wire::params("hello", params)?;
    if p.protocol != PROTOCOL {
        return Err(Failure::new(
            "unsupported-protocol",
            format!(
                "this driver (mcpr {}) speaks protocol {PROTOCOL}, not {}",
                env!("CARGO_PKG_VERSION"),
                p.protocol
            ),
        )
        .with("supported", json!([PROTOCOL])));
    }
    driver.greeted.store(true, Ordering::Relaxed);
    Ok(json!({
        "protocol": PROTOCOL,
        "version": env!("CARGO_PKG_VERSION"),
        "methods": METHODS,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &[u8]) -> Vec<(Vec<u8>, bool)> {
        let mut r = std::io::BufReader::with_capacity(4, text);
        let mut out = Vec::new();
        loop {
            let mut line = Vec::new();
            match read_line(&mut r, &mut line).unwrap() {
                None => return out,
                Some(too_long) => out.push((line, too_long)),
            }
        }
    }

    #[test]
    fn lines_end_at_newlines_whatever_the_buffer_size() {
        let got = lines(b"{\"a\": 1}\r\nsecond line\nlast without newline");
        let texts: Vec<&[u8]> = got.iter().map(|(l, _)| l.as_slice()).collect();
        assert_eq!(
            texts,
            [&b"{\"a\": 1}"[..], b"second line", b"last without newline"]
        );
        assert!(got.iter().all(|(_, too_long)| !too_long));
        assert!(lines(b"").is_empty());
    }
}
