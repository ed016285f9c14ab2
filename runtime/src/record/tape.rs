//! What passed through the proxy, in order: the client's requests and the server's answers
//! to them, paired by id. Lines are read as JSON-RPC but never changed; a line that is not
//! JSON is forwarded and noted.

use std::collections::HashMap;

use serde_json::Value;

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
    /// Lines that were not JSON-RPC messages: `(from the client?, the start of the line)`.
    pub not_json: Vec<(bool, String)>,
    /// Index into `calls` of each request awaiting its answer, by its id as JSON text.
    pending: HashMap<String, usize>,
}

impl Tape {
    /// A line the client sent the server.
    pub fn from_client(&mut self, line: &[u8]) {
        let Some(msg) = parse(line) else {
            self.not_json.push((true, start(line)));
            return;
        };
        for m in messages(&msg) {
            let (Some(method), Some(id)) = (m.get("method").and_then(Value::as_str), m.get("id"))
            else {
                // A notification, or an answer to one of the server's requests.
                continue;
            };
            self.pending.insert(id.to_string(), self.calls.len());
            self.calls.push(Call {
                method: method.to_string(),
                params: m.get("params").cloned(),
                answer: None,
            });
        }
    }

    /// A line the server sent the client.
    pub fn from_server(&mut self, line: &[u8]) {
        let Some(msg) = parse(line) else {
            self.not_json.push((false, start(line)));
            return;
        };
        for m in messages(&msg) {
            if let Some(method) = m.get("method").and_then(Value::as_str) {
                if m.get("id").is_some() {
                    self.server_requests.push(method.to_string());
                }
                continue;
            }
            let Some(id) = m.get("id") else { continue };
            let Some(i) = self.pending.remove(&id.to_string()) else {
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
            self.calls[i].answer = Some(answer);
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
}
