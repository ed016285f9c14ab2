//! Tool-schema snapshots (`mcpr snapshot`) and the breaking-change diff (`mcpr diff`).
//!
//! A snapshot is a JSON file meant to be committed and reviewed: the server's tools,
//! resources, resource templates and prompts, each list sorted by its key (tool and prompt
//! name, resource URI, uriTemplate), every object's keys sorted, `required` lists sorted,
//! pretty-printed with two spaces and a final newline — the same server gives the same
//! bytes (format: docs/lint.md). [`diff::diff`] compares two snapshot values.

pub mod check;
pub mod diff;
pub mod render;

use serde_json::{Map, Value, json};

use crate::surface::Surface;

/// The snapshot format's version (the value of its `mcprSnapshot` key).
pub const FORMAT: u64 = 1;

/// The snapshot of a surface.
pub fn from_surface(surface: &Surface) -> Value {
    json!({
        "mcprSnapshot": FORMAT,
        "server": surface.server,
        "tools": sorted(&surface.tools, "name"),
        "resources": sorted(&surface.resources, "uri"),
        "resourceTemplates": sorted(&surface.resource_templates, "uriTemplate"),
        "prompts": sorted(&surface.prompts, "name"),
    })
}

/// The file text of a snapshot: pretty JSON and a final newline.
pub fn to_text(snapshot: &Value) -> String {
    let mut text = serde_json::to_string_pretty(snapshot).unwrap_or_default();
    text.push('\n');
    text
}

/// Reads a snapshot file's text: an mcpr snapshot, the `{"tools": [...]}` that `mcpr tools`
/// prints (any of `resources`, `resourceTemplates`, `prompts` beside it), or a bare array
/// of tools. Returns it in snapshot form (sorted as [`from_surface`] sorts).
pub fn parse(text: &str) -> Result<Value, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let surface = match &v {
        Value::Array(tools) => Surface {
            tools: tools.clone(),
            ..Surface::default()
        },
        Value::Object(o) => {
            if let Some(version) = o.get("mcprSnapshot")
                && version != &json!(FORMAT)
            {
                return Err(format!(
                    "snapshot format {version} is not known to this mcpr (it reads format {FORMAT})"
                ));
            }
            if !o.contains_key("tools") {
                return Err("no `tools` list: a snapshot is written by `mcpr snapshot`".into());
            }
            Surface {
                server: o
                    .get("server")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .into(),
                tools: list(o, "tools")?,
                resources: list(o, "resources")?,
                resource_templates: list(o, "resourceTemplates")?,
                prompts: list(o, "prompts")?,
            }
        }
        other => {
            return Err(format!(
                "a snapshot is a JSON object (or an array of tools), not {}",
                a_kind(other)
            ));
        }
    };
    Ok(from_surface(&surface))
}

fn list(o: &Map<String, Value>, key: &str) -> Result<Vec<Value>, String> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => Ok(items.clone()),
        Some(other) => Err(format!("`{key}` is {}, not a list", a_kind(other))),
    }
}

/// `a number`, `an object` …
fn a_kind(v: &Value) -> String {
    match crate::protocol::jsonrpc::kind_of(v) {
        k @ ("object" | "array") => format!("an {k}"),
        k => format!("a {k}"),
    }
}

/// Items sorted by `key` (items without it last, in their order), each normalized.
fn sorted(items: &[Value], key: &str) -> Vec<Value> {
    let mut out: Vec<Value> = items.iter().map(normalize).collect();
    out.sort_by(|a, b| {
        match (
            a.get(key).and_then(Value::as_str),
            b.get(key).and_then(Value::as_str),
        ) {
            (Some(x), Some(y)) => x.cmp(y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        }
    });
    out
}

/// Keys sorted at every level; `required` lists of strings sorted (their order means nothing).
pub fn normalize(v: &Value) -> Value {
    match v {
        Value::Object(o) => {
            let mut keys: Vec<&String> = o.keys().collect();
            keys.sort();
            let mut out = Map::new();
            for k in keys {
                let mut item = normalize(&o[k]);
                if k == "required"
                    && let Value::Array(list) = &mut item
                    && list.iter().all(Value::is_string)
                {
                    list.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
                }
                out.insert(k.clone(), item);
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(normalize).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshots_are_sorted_and_stable() {
        let a = Surface {
            server: "s".into(),
            tools: vec![
                json!({"name": "b", "inputSchema": {"type": "object", "required": ["y", "x"], "properties": {"y": {}, "x": {}}}}),
                json!({"name": "a", "description": "first", "inputSchema": {"type": "object"}}),
            ],
            resources: vec![
                json!({"uri": "z://2", "name": "two"}),
                json!({"uri": "z://1", "name": "one"}),
            ],
            ..Surface::default()
        };
        let mut b = a.clone();
        b.tools.reverse();
        b.resources.reverse();
        let text = to_text(&from_surface(&a));
        assert_eq!(text, to_text(&from_surface(&b)));
        assert!(text.ends_with("}\n"));
        let snap = from_surface(&a);
        assert_eq!(snap["tools"][0]["name"], "a");
        assert_eq!(
            snap["tools"][1]["inputSchema"]["required"],
            json!(["x", "y"])
        );
        let keys: Vec<&String> = snap["tools"][0].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["description", "inputSchema", "name"]);
        let top: Vec<&String> = snap.as_object().unwrap().keys().collect();
        assert_eq!(
            top,
            [
                "mcprSnapshot",
                "server",
                "tools",
                "resources",
                "resourceTemplates",
                "prompts"
            ]
        );
        assert_eq!(parse(&text).unwrap(), snap);
    }

    #[test]
    fn reads_tool_lists_and_refuses_the_rest() {
        let tools = r#"{"tools": [{"name": "x", "inputSchema": {"type": "object"}}]}"#;
        assert_eq!(parse(tools).unwrap()["tools"][0]["name"], "x");
        assert_eq!(
            parse(r#"[{"name": "y"}]"#).unwrap()["tools"][0]["name"],
            "y"
        );
        assert!(parse("{").unwrap_err().starts_with("not JSON: "));
        assert_eq!(
            parse("3").unwrap_err(),
            "a snapshot is a JSON object (or an array of tools), not a number"
        );
        assert_eq!(
            parse(r#"{"a": 1}"#).unwrap_err(),
            "no `tools` list: a snapshot is written by `mcpr snapshot`"
        );
        assert_eq!(
            parse(r#"{"mcprSnapshot": 9, "tools": []}"#).unwrap_err(),
            "snapshot format 9 is not known to this mcpr (it reads format 1)"
        );
        assert_eq!(
            parse(r#"{"tools": {}}"#).unwrap_err(),
            "`tools` is an object, not a list"
        );
    }
}
