//! What passed through the proxy, in order: the client's requests and the server's answers
//! to them, paired by id within a scope (the stdio pipe, one Streamable HTTP session, or one
//! HTTP exchange of a client without a session).
//! Messages are read as JSON-RPC but never changed; a line that is not JSON is forwarded
//! and noted. Both proxies (stdio and HTTP) feed the same tape.

use std::collections::HashMap;

use serde_json::Value;

use crate::protocol::meta::{ENVELOPE_PROTOCOL_VERSION, ENVELOPE_SERVER_INFO};

/// The server's answer to a request.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// A result.
    Result(Value),
    /// A JSON-RPC error.
    Error {
        /// Its code.
        code: i64,
        /// Its message.
        message: String,
    },
}

/// One request of the client.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// Its method.
    pub method: String,
    /// Its params, as sent.
    pub params: Option<Value>,
    /// The answer, when one came.
    pub answer: Option<Answer>,
}

/// Everything a draft is written from.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Tape {
    /// The client's requests, in the order it sent them.
    pub calls: Vec<Call>,
    /// `serverInfo.name` from the answer to `initialize`.
    pub server: Option<String>,
    /// The protocol version the server answered `initialize` with.
    pub protocol: Option<String>,
    /// Methods of the requests the server sent the client (sampling, elicitation, roots…).
    pub server_requests: Vec<String>,
    /// Lines that were not JSON-RPC messages: `(from the client?, the start of the line)`;
    /// the first [`MAX_NOT_JSON`] only.
    pub not_json: Vec<(bool, String)>,
    /// Index into `calls` of each request awaiting its answer, by its scope and its id as
    /// JSON text.
    pending: HashMap<(String, String), usize>,
}

/// Most lines kept in [`Tape::not_json`].
pub const MAX_NOT_JSON: usize = 20;

impl Tape {
    /// A line the client sent the server (over stdio: one scope).
    pub fn from_client(&mut self, line: &[u8]) {
        self.from_client_in("", line);
    }

    /// A line the server sent the client (over stdio: one scope).
    pub fn from_server(&mut self, line: &[u8]) {
        self.from_server_in("", line);
    }

    /// A message the client sent in `scope` (a Streamable HTTP session id, or `""`): ids
    /// are paired with answers in the same scope only.
    pub fn from_client_in(&mut self, scope: &str, line: &[u8]) {
        let Some(msg) = parse(line) else {
            self.note_not_json(true, line);
            return;
        };
        for m in messages(&msg) {
            let (Some(method), Some(id)) = (m.get("method").and_then(Value::as_str), m.get("id"))
            else {
                // A notification, or an answer to one of the server's requests.
                continue;
            };
            // 2026-07-28 has no handshake: each request names its version in `_meta`.
            if self.protocol.is_none()
                && let Some(v) = m
                    .get("params")
                    .and_then(|p| crate::protocol::meta::get_meta(p, ENVELOPE_PROTOCOL_VERSION))
                    .and_then(Value::as_str)
            {
                self.protocol = Some(v.to_string());
            }
            self.pending
                .insert((scope.to_string(), id.to_string()), self.calls.len());
            self.calls.push(Call {
                method: method.to_string(),
                params: m.get("params").cloned(),
                answer: None,
            });
        }
    }

    /// A message the server sent the client in `scope`.
    pub fn from_server_in(&mut self, scope: &str, line: &[u8]) {
        let Some(msg) = parse(line) else {
            self.note_not_json(false, line);
            return;
        };
        for m in messages(&msg) {
            if let Some(method) = m.get("method").and_then(Value::as_str) {
                if m.get("id").is_some() && !self.server_requests.iter().any(|r| r == method) {
                    self.server_requests.push(method.to_string());
                }
                continue;
            }
            let Some(id) = m.get("id") else { continue };
            let Some(i) = self.pending.remove(&(scope.to_string(), id.to_string())) else {
                continue;
            };
            let answer = if let Some(e) = m.get("error") {
                Answer::Error {
                    code: e.get("code").and_then(Value::as_i64).unwrap_or(0),
                    message: e
                        .get("message")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string(),
                }
            } else {
                Answer::Result(m.get("result").cloned().unwrap_or(Value::Null))
            };
            if self.calls[i].method == "initialize"
                && let Answer::Result(r) = &answer
            {
                self.server = r["serverInfo"]["name"].as_str().map(str::to_string);
                self.protocol = r["protocolVersion"].as_str().map(str::to_string);
            }
            // 2026-07-28 results name the server in `_meta`.
            if self.server.is_none()
                && let Answer::Result(r) = &answer
                && let Some(name) = crate::protocol::meta::get_meta(r, ENVELOPE_SERVER_INFO)
                    .and_then(|i| i.get("name"))
                    .and_then(Value::as_str)
            {
                self.server = Some(name.to_string());
            }
            self.calls[i].answer = Some(answer);
        }
    }

    fn note_not_json(&mut self, from_client: bool, line: &[u8]) {
        if self.not_json.len() < MAX_NOT_JSON {
            self.not_json.push((from_client, start(line)));
        }
    }
}

fn parse(line: &[u8]) -> Option<Value> {
    let v: Value = serde_json::from_slice(line).ok()?;
    (v.is_object() || v.is_array()).then_some(v)
}

/// The messages of a line: one object, or each object of a batch.
fn messages(v: &Value) -> Vec<&serde_json::Map<String, Value>> {
    match v {
        Value::Object(o) => vec![o],
        Value::Array(a) => a.iter().filter_map(Value::as_object).collect(),
        _ => Vec::new(),
    }
}

fn start(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    crate::error::shorten(text.trim(), 80)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn requests_are_paired_with_their_answers_by_id() {
        let mut t = Tape::default();
        let line = |v: Value| v.to_string().into_bytes();
        t.from_client(&line(
            json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}),
        ));
        t.from_server(&line(json!({"jsonrpc":"2.0","id":1,"result":{
            "protocolVersion":"2025-06-18","serverInfo":{"name":"demo","version":"1"}}})));
        t.from_client(&line(
            json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        ));
        t.from_client(&line(
            json!({"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x"}}),
        ));
        t.from_client(&line(json!({"jsonrpc":"2.0","id":2,"method":"ping"})));
        t.from_server(&line(
            json!({"jsonrpc":"2.0","id":9,"method":"sampling/createMessage","params":{}}),
        ));
        t.from_client(&line(json!({"jsonrpc":"2.0","id":9,"result":{}})));
        t.from_server(&line(json!({"jsonrpc":"2.0","id":2,"result":{}})));
        t.from_server(&line(
            json!({"jsonrpc":"2.0","id":"a","error":{"code":-32602,"message":"bad"}}),
        ));
        t.from_server(b"not json");
        assert_eq!(t.server.as_deref(), Some("demo"));
        assert_eq!(t.protocol.as_deref(), Some("2025-06-18"));
        assert_eq!(t.server_requests, ["sampling/createMessage"]);
        assert_eq!(t.calls.len(), 3);
        assert_eq!(
            t.calls[1].answer,
            Some(Answer::Error {
                code: -32602,
                message: "bad".into()
            })
        );
        assert_eq!(t.calls[2].answer, Some(Answer::Result(json!({}))));
        assert_eq!(t.not_json, [(false, "not json".to_string())]);
    }

    #[test]
    fn scopes_keep_equal_ids_apart_and_2026_names_come_from_meta() {
        let mut t = Tape::default();
        let line = |v: Value| v.to_string().into_bytes();
        let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
        t.from_client_in(
            "a",
            &line(json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta": meta}})),
        );
        t.from_client_in("b", &line(json!({"jsonrpc":"2.0","id":1,"method":"ping"})));
        t.from_server_in("b", &line(json!({"jsonrpc":"2.0","id":1,"result":{}})));
        t.from_server_in(
            "a",
            &line(json!({"jsonrpc":"2.0","id":1,"result":{"tools":[],
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"modern"}}}})),
        );
        assert_eq!(t.protocol.as_deref(), Some("2026-07-28"));
        assert_eq!(t.server.as_deref(), Some("modern"));
        assert_eq!(t.calls[0].method, "tools/list");
        assert_eq!(
            t.calls[0].answer,
            Some(Answer::Result(json!({"tools":[],
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"modern"}}})))
        );
        assert_eq!(t.calls[1].answer, Some(Answer::Result(json!({}))));
        for _ in 0..100 {
            t.from_server_in("a", b"garbage");
        }
        assert_eq!(t.not_json.len(), MAX_NOT_JSON);
    }
}
