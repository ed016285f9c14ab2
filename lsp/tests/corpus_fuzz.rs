//! No panic and no hang on any input: every file of the compiler's corpus
//! (conformance-tests/compiler, valid and invalid), and truncations of each, fed to a server
//! in this process through open, incremental changes, hover, completion, definition,
//! references, code actions, symbols, folding and formatting, at many positions. Every
//! answer has a deadline.

use lsp_server::{Connection, Message, Notification, Request, RequestId};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Duration;

const DEADLINE: Duration = Duration::from_secs(10);

fn corpus() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance-tests/compiler");
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).expect("corpus folder").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "mcpr") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

struct Harness {
    client: Connection,
    next: i32,
}

impl Harness {
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = RequestId::from(self.next);
        let sent = self.client.sender.send(Message::Request(Request {
            id: id.clone(),
            method: method.into(),
            params: params.clone(),
        }));
        assert!(sent.is_ok(), "the server stopped before {method}");
        loop {
            match self.client.receiver.recv_timeout(DEADLINE) {
                Ok(Message::Response(r)) if r.id == id => match r.response_result {
                    Ok(v) => return v,
                    // Only bad parameters may be refused; an internal error is a panic.
                    Err(e) => {
                        assert_ne!(e.code, -32603, "{method} {params}: {}", e.message);
                        return Value::Null;
                    }
                },
                Ok(_) => {}
                Err(e) => panic!("{method} {params}: no answer ({e})"),
            }
        }
    }

    fn notify(&mut self, method: &str, params: Value) {
        let sent = self
            .client
            .sender
            .send(Message::Notification(Notification::new(
                method.into(),
                params,
            )));
        assert!(sent.is_ok(), "the server stopped before {method}");
    }

    /// Every request kind at a position.
    fn probe(&mut self, uri: &str, line: usize, character: usize) {
        let at = json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}});
        for m in [
            "textDocument/hover",
            "textDocument/completion",
            "textDocument/definition",
        ] {
            self.request(m, at.clone());
        }
        let mut refs = at.clone();
        refs["context"] = json!({"includeDeclaration": true});
        self.request("textDocument/references", refs);
        let p = at["position"].clone();
        self.request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": {"start": p, "end": p},
                   "context": {"diagnostics": []}}),
        );
    }
}

/// Positions to probe in a text: every line at its start, its middle and past its end.
fn positions(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (i, line) in text.split('\n').enumerate() {
        let n = line.encode_utf16().count();
        for c in [0, n / 2, n + 3] {
            out.push((i, c));
        }
    }
    out.dedup();
    // A large file (the corpus has one of a megabyte) is probed at about 600 places.
    let step = (out.len() / 600).max(1);
    out.into_iter().step_by(step).collect()
}

#[test]
fn every_corpus_file_and_its_truncations_are_served_without_a_panic_or_a_hang() {
    let (server, client) = Connection::memory();
    let thread =
        std::thread::spawn(move || mcpr_lsp::serve(&server, mcpr_lsp::Settings { docs: None }));
    let mut h = Harness { client, next: 0 };
    h.request("initialize", json!({"capabilities": {}}));
    h.notify("initialized", json!({}));
    let files = corpus();
    let started = std::time::Instant::now();
    assert!(files.len() > 100, "the corpus is there: {}", files.len());
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance-tests/compiler");
    for (n, path) in files.iter().enumerate() {
        let text = std::fs::read_to_string(path).expect("corpus file");
        let uri = format!(
            "file://{}",
            path.canonicalize().unwrap_or(path.clone()).display()
        );
        let uri = uri.replace(' ', "%20");
        h.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "mcpr", "version": 1, "text": text}}),
        );
        for (line, c) in positions(&text) {
            h.probe(&uri, line, c);
        }
        h.request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri}}),
        );
        h.request(
            "textDocument/foldingRange",
            json!({"textDocument": {"uri": uri}}),
        );
        // Truncations (whole-text changes) and incremental edits that cut a line in two,
        // insert astral characters and delete across lines.
        let chars: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
        let cuts = 4.min(chars.len());
        for k in 1..=cuts {
            let cut = chars[chars.len() * k / (cuts + 1)];
            let part = &text[..cut];
            h.notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": uri, "version": 1 + k},
                       "contentChanges": [{"text": part}]}),
            );
            let lines = part.split('\n').count();
            let last = part
                .rsplit('\n')
                .next()
                .unwrap_or("")
                .encode_utf16()
                .count();
            h.probe(&uri, lines - 1, last);
            h.probe(&uri, lines / 2, 2);
        }
        h.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": 100},
                   "contentChanges": [
                       {"text": text},
                       {"range": {"start": {"line": 1, "character": 3}, "end": {"line": 1, "character": 3}},
                        "text": "😀${\n  "},
                       {"range": {"start": {"line": 0, "character": 1}, "end": {"line": 3, "character": 1}},
                        "text": "𝄞"},
                       {"range": {"start": {"line": 2, "character": 1}, "end": {"line": 2, "character": 2}},
                        "text": "\"Use flow \""},
                   ]}),
        );
        for (line, c) in positions(&text).into_iter().step_by(7) {
            h.probe(&uri, line, c);
        }
        h.notify(
            "textDocument/didClose",
            json!({"textDocument": {"uri": uri}}),
        );
        if n % 20 == 0 {
            eprintln!(
                "{n}/{} files, {} requests, {:?}",
                files.len(),
                h.next,
                started.elapsed()
            );
        }
        let _ = &dir;
    }
    h.request("shutdown", Value::Null);
    h.notify("exit", Value::Null);
    drop(h);
    let served = thread.join().expect("the server thread ends");
    assert!(served.is_ok(), "{served:?}");
}
