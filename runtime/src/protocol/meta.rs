//! The reserved `_meta` keys and the client's own description of itself.

use serde_json::{Map, Value, json};

/// `_meta` key of the protocol version (2026 envelope, required).
pub const ENVELOPE_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of the client capabilities (2026 envelope, required).
pub const ENVELOPE_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of the client implementation (2026 envelope).
pub const ENVELOPE_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key opting a single request into log messages (2026).
pub const ENVELOPE_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// `_meta` key of the server implementation on 2026 results.
pub const ENVELOPE_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// `_meta` key tagging messages of a `subscriptions/listen` stream.
pub const ENVELOPE_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
/// `_meta` key linking a message to a 2025-11-25 task.
pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";
/// Extension id of tasks (2026).
pub const EXT_TASKS: &str = "io.modelcontextprotocol/tasks";
/// Extension id of MCP Apps.
pub const EXT_UI: &str = "io.modelcontextprotocol/ui";
/// Extension id of skills.
pub const EXT_SKILLS: &str = "io.modelcontextprotocol/skills";

/// The name and version the client announces.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientInfo {
    /// `name`.
    pub name: String,
    /// `version`.
    pub version: String,
}

impl Default for ClientInfo {
    fn default() -> Self {
        ClientInfo {
            name: "mcpr".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        }
    }
}

impl ClientInfo {
    /// The `Implementation` object.
    pub fn to_value(&self) -> Value {
        json!({"name": self.name, "version": self.version})
    }
}

/// Inserts `key: value` into `params._meta`, creating both objects as needed. Keys the
/// caller already set are kept.
pub fn insert_meta(params: &mut Value, key: &str, value: Value) {
    if !params.is_object() {
        *params = Value::Object(Map::new());
    }
    let obj = params.as_object_mut().expect("made an object above");
    let meta = obj
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if !meta.is_object() {
        *meta = Value::Object(Map::new());
    }
    let meta = meta.as_object_mut().expect("made an object above");
    meta.entry(key.to_string()).or_insert(value);
}

/// Reads `_meta[key]` of a params or result object.
pub fn get_meta<'a>(value: &'a Value, key: &str) -> Option<&'a Value> {
    value.get("_meta").and_then(|m| m.get(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_keeps_caller_keys() {
        let mut p = json!({"name": "x", "_meta": {"progressToken": 1}});
        insert_meta(&mut p, "progressToken", json!(2));
        insert_meta(&mut p, ENVELOPE_PROTOCOL_VERSION, json!("2026-07-28"));
        assert_eq!(p["_meta"]["progressToken"], 1);
        assert_eq!(p["_meta"][ENVELOPE_PROTOCOL_VERSION], "2026-07-28");
        let mut n = Value::Null;
        insert_meta(&mut n, "k", json!(true));
        assert_eq!(n, json!({"_meta": {"k": true}}));
    }
}
