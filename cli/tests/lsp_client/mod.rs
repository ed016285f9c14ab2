//! A scripted LSP client for the tests: it starts the real `mcpr lsp`, speaks JSON-RPC with
//! `Content-Length` framing over its stdin and stdout, and keeps the notifications the
//! server sends. Every wait has a deadline; the server is ended when the client is dropped.

#![allow(dead_code)]

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// How long any one answer may take.
pub const DEADLINE: Duration = Duration::from_secs(20);

/// A running `mcpr lsp` and the conversation with it.
pub struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    inbox: Receiver<Value>,
    next_id: i64,
    /// Notifications received and not yet taken.
    pub notifications: Vec<Value>,
}

/// The file URI of an absolute path (spaces and `%` escaped as editors do).
pub fn uri(path: &std::path::Path) -> String {
    let p = path.to_string_lossy();
    let mut out = String::from("file://");
    for b in p.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// The LSP position (line, UTF-16 column) of the `nth` occurrence of `needle` in `text`,
/// plus `shift` UTF-16 units.
pub fn pos(text: &str, needle: &str, nth: usize, shift: u32) -> Value {
    let at = text
        .match_indices(needle)
        .nth(nth)
        .unwrap_or_else(|| panic!("{needle:?} #{nth} not in the text"))
        .0;
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = text[..line_start].matches('\n').count();
    let col: usize = text[line_start..at].encode_utf16().count();
    json!({"line": line, "character": col as u32 + shift})
}

impl Client {
    /// Starts `mcpr lsp` and completes the handshake.
    pub fn start(root: &std::path::Path) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mcpr"))
            .arg("lsp")
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("mcpr lsp starts");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            while let Some(msg) = read_frame(&mut r) {
                if tx.send(msg).is_err() {
                    break;
                }
            }
        });
        let mut c = Client {
            stdin: child.stdin.take(),
            child,
            inbox: rx,
            next_id: 1,
            notifications: Vec::new(),
        };
        let init = c.request(
            "initialize",
            json!({"processId": null, "rootUri": uri(root), "capabilities": {}}),
        );
        assert_eq!(
            init["capabilities"]["textDocumentSync"]["change"],
            json!(2),
            "incremental sync: {init}"
        );
        c.notify("initialized", json!({}));
        c
    }

    fn write(&mut self, msg: &Value) {
        let body = serde_json::to_string(msg).expect("json");
        let stdin = self.stdin.as_mut().expect("stdin open");
        write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write");
        stdin.flush().expect("flush");
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str, params: Value) {
        self.write(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and returns its result (panics on an error answer or the deadline).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let answer = self.request_raw(method, params);
        assert!(answer.get("error").is_none(), "{method} failed: {answer}");
        answer["result"].clone()
    }

    /// Sends a request and returns the whole answer.
    pub fn request_raw(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.write(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let until = Instant::now() + DEADLINE;
        loop {
            let msg = self.next_message(until, method);
            if msg["id"] == json!(id) && msg.get("method").is_none() {
                return msg;
            }
            if msg.get("method").is_some() && msg.get("id").is_none() {
                self.notifications.push(msg);
            }
        }
    }

    fn next_message(&mut self, until: Instant, waiting_for: &str) -> Value {
        let left = until.saturating_duration_since(Instant::now());
        match self.inbox.recv_timeout(left) {
            Ok(m) => m,
            Err(RecvTimeoutError::Timeout) => panic!("no answer to {waiting_for} in time"),
            Err(RecvTimeoutError::Disconnected) => panic!("mcpr lsp went away ({waiting_for})"),
        }
    }

    /// Waits for the next `publishDiagnostics` of a URI and returns its diagnostics.
    pub fn diagnostics(&mut self, uri: &str) -> Vec<Value> {
        let until = Instant::now() + DEADLINE;
        loop {
            if let Some(i) = self.notifications.iter().position(|n| {
                n["method"] == "textDocument/publishDiagnostics" && n["params"]["uri"] == uri
            }) {
                let n = self.notifications.remove(i);
                return n["params"]["diagnostics"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
            }
            let msg = self.next_message(until, "publishDiagnostics");
            if msg.get("method").is_some() {
                self.notifications.push(msg);
            }
        }
    }

    /// Opens a document.
    pub fn open(&mut self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "mcpr", "version": 1, "text": text}}),
        );
    }

    /// Replaces a range (UTF-16 positions) of a document.
    pub fn edit(&mut self, uri: &str, version: i32, start: Value, end: Value, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"range": {"start": start, "end": end}, "text": text}],
            }),
        );
    }

    /// A request at a position of a document.
    pub fn at(&mut self, method: &str, uri: &str, position: Value) -> Value {
        let mut params = json!({"textDocument": {"uri": uri}, "position": position});
        if method == "textDocument/references" {
            params["context"] = json!({"includeDeclaration": true});
        }
        self.request(method, params)
    }

    /// `shutdown` then `exit`; the server must end by itself with status 0.
    pub fn stop(mut self) {
        self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        self.stdin.take();
        let until = Instant::now() + DEADLINE;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                assert!(status.success(), "mcpr lsp exited with {status}");
                return;
            }
            assert!(Instant::now() < until, "mcpr lsp did not exit after `exit`");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Reads one `Content-Length` frame.
fn read_frame(r: &mut impl BufRead) -> Option<Value> {
    let mut len = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length: ") {
            len = v.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; len?];
    r.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// The byte offset of an LSP position (line, UTF-16 column) in `text`.
pub fn byte_at(text: &str, p: &Value) -> usize {
    let line = p["line"].as_u64().expect("line") as usize;
    let col = p["character"].as_u64().expect("character") as usize;
    let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
    let mut units = 0;
    for (i, ch) in text[start..].char_indices() {
        if units >= col || ch == '\n' {
            return start + i;
        }
        units += ch.len_utf16();
    }
    text.len()
}

/// `text` with LSP text edits applied (positions of the original text).
pub fn apply(text: &str, edits: &[Value]) -> String {
    let mut spans: Vec<(usize, usize, String)> = edits
        .iter()
        .map(|e| {
            (
                byte_at(text, &e["range"]["start"]),
                byte_at(text, &e["range"]["end"]),
                e["newText"].as_str().expect("newText").to_string(),
            )
        })
        .collect();
    spans.sort_by_key(|s| std::cmp::Reverse(s.0));
    let mut out = text.to_string();
    for (s, e, t) in spans {
        out.replace_range(s..e, &t);
    }
    out
}
