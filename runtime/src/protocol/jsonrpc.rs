//! JSON-RPC 2.0 messages as MCP uses them: classification of whatever a server wrote,
//! ids, and error objects.

use serde_json::{Map, Value, json};

/// A request id reduced to something hashable. Ids are compared strictly: the integer `1`
/// and the string `"1"` are different ids.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum IdKey {
    /// An integer id (the only kind this client issues).
    Int(i64),
    /// A string id.
    Str(String),
    /// Anything else (a float, null, an object): never a valid id.
    Invalid(String),
}

impl IdKey {
    /// Reads an id from its JSON value.
    pub fn from_value(value: &Value) -> IdKey {
        match value {
            Value::Number(n) => match n.as_i64() {
                Some(i) => IdKey::Int(i),
                None => IdKey::Invalid(n.to_string()),
            },
            Value::String(s) => IdKey::Str(s.clone()),
            other => IdKey::Invalid(other.to_string()),
        }
    }
}

/// A JSON-RPC error object as a server sent it.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    /// The numeric code.
    pub code: i64,
    /// The message text.
    pub message: String,
    /// The optional `data` member.
    pub data: Option<Value>,
}

impl RpcError {
    /// Builds the error object of a response.
    pub fn to_value(&self) -> Value {
        let mut obj = Map::new();
        obj.insert("code".into(), json!(self.code));
        obj.insert("message".into(), json!(self.message));
        if let Some(data) = &self.data {
            obj.insert("data".into(), data.clone());
        }
        Value::Object(obj)
    }

    /// Reads an error object; a malformed one is described in `Err`.
    pub fn from_value(value: &Value) -> Result<RpcError, String> {
        let obj = value.as_object().ok_or("`error` is not an object")?;
        let code = obj
            .get("code")
            .and_then(Value::as_i64)
            .ok_or("`error.code` is missing or not an integer")?;
        let message = obj
            .get("message")
            .and_then(Value::as_str)
            .ok_or("`error.message` is missing or not a string")?
            .to_string();
        Ok(RpcError {
            code,
            message,
            data: obj.get("data").cloned(),
        })
    }
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.code, self.message)?;
        if let Some(data) = &self.data {
            write!(f, " (data: {data})")?;
        }
        Ok(())
    }
}

/// One message read from a server, classified.
#[derive(Debug, Clone)]
pub enum Incoming {
    /// A request from the server (legacy era: ping, roots, sampling, elicitation…).
    Request {
        /// Its id, as sent.
        id: Value,
        /// Its method.
        method: String,
        /// Its params (`Null` when absent).
        params: Value,
    },
    /// A notification.
    Notification {
        /// Its method.
        method: String,
        /// Its params (`Null` when absent).
        params: Value,
    },
    /// A response carrying `result`.
    Result {
        /// The id it answers.
        id: IdKey,
        /// The result value.
        result: Value,
    },
    /// A response carrying `error`.
    Error {
        /// The id it answers (`None` when the server sent `null` or nothing).
        id: Option<IdKey>,
        /// The error.
        error: RpcError,
    },
    /// A JSON array of messages (a batch; legal only in 2025-03-26).
    Batch(Vec<Value>),
    /// Valid JSON that is not a JSON-RPC message; the text says why.
    Invalid(String),
}

/// Classifies one parsed message. Missing or wrong `"jsonrpc":"2.0"` makes it invalid.
pub fn classify(value: Value) -> Incoming {
    match value {
        Value::Object(obj) => Members::from_map(obj).classify(),
        Value::Array(items) => Incoming::Batch(items),
        other => Incoming::Invalid(format!(
            "a JSON {} is not a JSON-RPC message",
            kind_of(&other)
        )),
    }
}

/// Parses and classifies one line of text. A message object is read member by member
/// into the members JSON-RPC gives a meaning to, without building a map of its top
/// level (which would hash and copy every key only to take the members out again);
/// anything else is parsed as a value and classified by [`classify`]. Every value is
/// built at its exact size ([`super::compact::Compact`]).
pub fn parse(text: &str) -> Result<Incoming, serde_json::Error> {
    let first = text
        .bytes()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
    if first == Some(b'{') {
        serde_json::from_str::<Members>(text).map(Members::classify)
    } else {
        super::compact::from_str(text).map(classify)
    }
}

/// The members of a message object that JSON-RPC gives a meaning to; a member given
/// twice counts with its last value, as when the object is read as a map.
#[derive(Default)]
struct Members {
    jsonrpc: Option<Value>,
    method: Option<Value>,
    params: Option<Value>,
    id: Option<Value>,
    result: Option<Value>,
    error: Option<Value>,
}

/// A member name of a message object.
enum Member {
    Jsonrpc,
    Method,
    Params,
    Id,
    Result,
    Error,
    Other,
}

impl<'de> serde::Deserialize<'de> for Member {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Member, D::Error> {
        struct Name;
        impl serde::de::Visitor<'_> for Name {
            type Value = Member;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a member name")
            }
            fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<Member, E> {
                Ok(match name {
                    "jsonrpc" => Member::Jsonrpc,
                    "method" => Member::Method,
                    "params" => Member::Params,
                    "id" => Member::Id,
                    "result" => Member::Result,
                    "error" => Member::Error,
                    _ => Member::Other,
                })
            }
        }
        d.deserialize_identifier(Name)
    }
}

impl<'de> serde::Deserialize<'de> for Members {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Members, D::Error> {
        struct Object;
        impl<'de> serde::de::Visitor<'de> for Object {
            type Value = Members;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON-RPC message object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Members, A::Error> {
                let mut m = Members::default();
                while let Some(member) = map.next_key::<Member>()? {
                    let slot = match member {
                        Member::Jsonrpc => &mut m.jsonrpc,
                        Member::Method => &mut m.method,
                        Member::Params => &mut m.params,
                        Member::Id => &mut m.id,
                        Member::Result => &mut m.result,
                        Member::Error => &mut m.error,
                        Member::Other => {
                            map.next_value::<serde::de::IgnoredAny>()?;
                            continue;
                        }
                    };
                    *slot = Some(map.next_value_seed(super::compact::Compact)?);
                }
                Ok(m)
            }
        }
        d.deserialize_map(Object)
    }
}

impl Members {
    /// One pass over the members of a parsed object: no key is hashed, nothing is
    /// removed from the map.
    fn from_map(obj: Map<String, Value>) -> Members {
        let mut m = Members::default();
        for (key, value) in obj {
            match key.as_str() {
                "jsonrpc" => m.jsonrpc = Some(value),
                "method" => m.method = Some(value),
                "params" => m.params = Some(value),
                "id" => m.id = Some(value),
                "result" => m.result = Some(value),
                "error" => m.error = Some(value),
                _ => {}
            }
        }
        m
    }

    fn classify(self) -> Incoming {
        let Members {
            jsonrpc,
            method,
            params,
            id,
            result,
            error,
        } = self;
        match &jsonrpc {
            Some(Value::String(v)) if v == "2.0" => {}
            Some(other) => return Incoming::Invalid(format!("`jsonrpc` is {other}, not \"2.0\"")),
            None => return Incoming::Invalid("the `jsonrpc` member is missing".into()),
        }
        if let Some(method) = method {
            let Value::String(method) = method else {
                return Incoming::Invalid("`method` is not a string".into());
            };
            let params = params.unwrap_or(Value::Null);
            if !(params.is_null() || params.is_object() || params.is_array()) {
                return Incoming::Invalid(format!(
                    "`params` of {method} is neither object nor array"
                ));
            }
            return match id {
                None => Incoming::Notification { method, params },
                Some(id @ (Value::Number(_) | Value::String(_))) => {
                    Incoming::Request { id, method, params }
                }
                Some(other) => {
                    Incoming::Invalid(format!("request {method} has an invalid id {other}"))
                }
            };
        }
        match (result, error) {
            (Some(_), Some(_)) => {
                Incoming::Invalid("a response has both `result` and `error`".into())
            }
            (Some(result), None) => {
                let Some(id) = id else {
                    return Incoming::Invalid("a result response has no `id`".into());
                };
                let id = IdKey::from_value(&id);
                if let IdKey::Invalid(text) = &id {
                    return Incoming::Invalid(format!(
                        "a result response has an invalid id {text}"
                    ));
                }
                if !result.is_object() {
                    return Incoming::Invalid(format!(
                        "`result` is a JSON {}, not an object",
                        kind_of(&result)
                    ));
                }
                Incoming::Result { id, result }
            }
            (None, Some(error)) => {
                let error = match RpcError::from_value(&error) {
                    Ok(e) => e,
                    Err(why) => return Incoming::Invalid(why),
                };
                let id = match id {
                    None | Some(Value::Null) => None,
                    Some(v) => Some(IdKey::from_value(&v)),
                };
                Incoming::Error { id, error }
            }
            (None, None) => {
                Incoming::Invalid("neither a request, a notification nor a response".into())
            }
        }
    }
}

/// The JSON type of a value with its article ("a string", "an object", "null"), for
/// messages.
pub fn described(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Names the JSON type of a value for messages.
pub fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Builds a request line body.
pub fn request(id: i64, method: &str, params: Option<Value>) -> Value {
    let mut obj = Map::with_capacity(4);
    obj.insert("jsonrpc".into(), json!("2.0"));
    obj.insert("id".into(), json!(id));
    obj.insert("method".into(), json!(method));
    if let Some(p) = params {
        obj.insert("params".into(), p);
    }
    Value::Object(obj)
}

/// The text of a request line, written directly: the same bytes as serializing
/// [`request`], without building the message as a value first. `meta`, when given, is the
/// text of a `_meta` object added as the last member of the params (which must then be an
/// object without `_meta`, or absent): the same bytes as inserting it into the params first.
pub fn request_text(id: i64, method: &str, params: Option<&Value>, meta: Option<&str>) -> String {
    // Room for the envelope and small params at once: growing the buffer while the params
    // are written would copy it again.
    let mut out = Vec::with_capacity(256 + meta.map_or(0, str::len));
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    // Writing JSON values into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut out, &id);
    out.extend_from_slice(br#","method":"#);
    let _ = serde_json::to_writer(&mut out, method);
    match (params, meta) {
        (Some(p), None) => {
            out.extend_from_slice(br#","params":"#);
            let _ = serde_json::to_writer(&mut out, p);
        }
        (None, None) => {}
        (p, Some(meta)) => {
            out.extend_from_slice(br#","params":"#);
            match p {
                Some(p @ Value::Object(members)) if !members.is_empty() => {
                    let _ = serde_json::to_writer(&mut out, p);
                    // Reopen the object for one more member.
                    out.pop();
                    out.push(b',');
                }
                _ => out.push(b'{'),
            }
            out.extend_from_slice(br#""_meta":"#);
            out.extend_from_slice(meta.as_bytes());
            out.push(b'}');
        }
    }
    out.push(b'}');
    String::from_utf8(out).unwrap_or_default()
}

/// Builds a notification body.
pub fn notification(method: &str, params: Option<Value>) -> Value {
    let mut obj = Map::new();
    obj.insert("jsonrpc".into(), json!("2.0"));
    obj.insert("method".into(), json!(method));
    if let Some(p) = params {
        obj.insert("params".into(), p);
    }
    Value::Object(obj)
}

/// Builds a response to a server request.
pub fn response(id: &Value, outcome: Result<Value, RpcError>) -> Value {
    match outcome {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error.to_value()}),
    }
}

/// Standard error codes.
pub mod codes {
    /// Parse error.
    pub const PARSE_ERROR: i64 = -32700;
    /// Invalid request.
    pub const INVALID_REQUEST: i64 = -32600;
    /// Method not found (also: capability not supported).
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Invalid params.
    pub const INVALID_PARAMS: i64 = -32602;
    /// Internal error.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// Legacy resource not found.
    pub const RESOURCE_NOT_FOUND: i64 = -32002;
    /// 2026: missing required client capability.
    pub const MISSING_CLIENT_CAPABILITY: i64 = -32021;
    /// 2026-07-28 Streamable HTTP: a required header is missing or does not match the body.
    pub const HEADER_MISMATCH: i64 = -32020;
    /// 2026: unsupported protocol version.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
    /// The May-2026 release-candidate number of unsupported protocol version.
    pub const RC_UNSUPPORTED_PROTOCOL_VERSION: i64 = -32004;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_text_is_the_serialized_request() {
        for (id, method, params) in [
            (
                1,
                "tools/call",
                Some(json!({"name": "echo", "arguments": {"text": "hé \"q\" \n ☃"}})),
            ),
            (-7, "ping", None),
            (
                i64::MAX,
                "we\"ird/\u{1}method",
                Some(json!([1, 2.5, null, {"b": true}])),
            ),
        ] {
            let text = request_text(id, method, params.as_ref(), None);
            let value = request(id, method, params);
            assert_eq!(text, serde_json::to_string(&value).unwrap());
            assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), value);
        }
    }

    /// A `_meta` given as text lands where inserting it into the params would put it.
    #[test]
    fn request_text_adds_meta_as_inserting_it_would() {
        let meta =
            json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "k": {"a": [1]}});
        let meta_text = meta.to_string();
        for params in [
            None,
            Some(json!({})),
            Some(json!({"name": "echo", "arguments": {"text": "x}"}})),
        ] {
            let text = request_text(3, "tools/call", params.as_ref(), Some(&meta_text));
            let mut with = params.unwrap_or(Value::Null);
            for (k, v) in meta.as_object().unwrap() {
                crate::protocol::meta::insert_meta(&mut with, k, v.clone());
            }
            assert_eq!(text, request_text(3, "tools/call", Some(&with), None));
            assert_eq!(
                serde_json::from_str::<Value>(&text).unwrap(),
                request(3, "tools/call", Some(with))
            );
        }
    }

    #[test]
    fn parsing_a_line_classifies_as_the_parsed_value_does() {
        for text in [
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#,
            r#" {"id":7,"jsonrpc":"2.0","error":{"code":-1,"message":"no"},"extra":[1,{"a":2}]}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}"#,
            r#"{"jsonrpc":"2.0","id":"s","method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1,"id":2,"result":{}}"#,
            r#"{"jsonrpc":"2.0","\u0069d":3,"result":{}}"#,
            r#"{"jsonrpc":"1.0","id":1,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{}}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":3}"#,
            r#"{"jsonrpc":"2.0"}"#,
            r#"{}"#,
            r#"[{"jsonrpc":"2.0","method":"a"}]"#,
            r#""text""#,
            "\t{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\r",
        ] {
            let direct = format!("{:?}", parse(text).unwrap());
            let via_value = format!(
                "{:?}",
                classify(serde_json::from_str::<Value>(text).unwrap())
            );
            assert_eq!(direct, via_value, "{text}");
        }
        for bad in [
            r#"{"jsonrpc":"2.0","id":1,"result":{}"#,
            r#"{"id":}"#,
            "{} x",
            "",
        ] {
            let direct = parse(bad).map(|_| ()).unwrap_err().to_string();
            let via_value = serde_json::from_str::<Value>(bad).unwrap_err().to_string();
            assert_eq!(direct, via_value, "{bad}");
        }
    }

    #[test]
    fn classifies_each_kind() {
        assert!(matches!(
            classify(json!({"jsonrpc":"2.0","id":1,"result":{}})),
            Incoming::Result {
                id: IdKey::Int(1),
                ..
            }
        ));
        assert!(matches!(
            classify(json!({"jsonrpc":"2.0","id":"a","method":"ping"})),
            Incoming::Request { .. }
        ));
        assert!(matches!(
            classify(json!({"jsonrpc":"2.0","method":"x"})),
            Incoming::Notification { .. }
        ));
        assert!(matches!(
            classify(json!({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}})),
            Incoming::Error { id: None, .. }
        ));
        assert!(matches!(classify(json!([1, 2])), Incoming::Batch(_)));
        assert!(matches!(
            classify(json!({"id":1,"result":{}})),
            Incoming::Invalid(_)
        ));
        assert!(matches!(
            classify(json!({"jsonrpc":"2.0","id":1,"result":{},"error":{}})),
            Incoming::Invalid(_)
        ));
        assert!(matches!(
            classify(json!({"jsonrpc":"2.0","id":1.5,"result":{}})),
            Incoming::Invalid(_)
        ));
        assert!(matches!(classify(json!("text")), Incoming::Invalid(_)));
        assert!(matches!(
            classify(json!({"jsonrpc":"2.0","id":1,"result":3})),
            Incoming::Invalid(_)
        ));
    }

    #[test]
    fn ids_compare_strictly() {
        assert_ne!(IdKey::from_value(&json!(1)), IdKey::from_value(&json!("1")));
        assert_eq!(IdKey::from_value(&json!(7)), IdKey::Int(7));
    }
}
