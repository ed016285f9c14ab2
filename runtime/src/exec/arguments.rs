//! Tool arguments checked and typed from the tool's input schema: values without a name
//! (`positional`) given to the free properties, and text converted to the property's type
//! (`coerce`).

use serde_json::{Map, Value};

use crate::client::Client;
use crate::codes::RunCode;

use super::{StepFail, fail};

/// The JSON types a schema property allows, `null` last.
pub(super) fn schema_types(prop: &Value) -> Vec<String> {
    let mut types: Vec<String> = match prop.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    };
    if types.is_empty() {
        for key in ["anyOf", "oneOf"] {
            for alt in prop
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                types.extend(schema_types(alt));
            }
        }
    }
    types.sort_by_key(|t| t == "null");
    types
}

/// A text value converted to the first type of the property it fits; text that fits none
/// stays text (the server then reports the mismatch).
pub(super) fn coerce(value: Value, prop: &Value) -> Value {
    let Value::String(text) = &value else {
        return value;
    };
    for t in schema_types(prop) {
        let converted = match t.as_str() {
            "string" => return value,
            "integer" => text.trim().parse::<i64>().ok().map(Value::from),
            "number" => match text.trim().parse::<i64>() {
                Ok(i) => Some(Value::from(i)),
                Err(_) => text
                    .trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|f| f.is_finite())
                    .map(Value::from),
            },
            "boolean" => match text.trim() {
                "true" => Some(Value::Bool(true)),
                "false" => Some(Value::Bool(false)),
                _ => None,
            },
            "array" => serde_json::from_str::<Value>(text)
                .ok()
                .filter(Value::is_array),
            "object" => serde_json::from_str::<Value>(text)
                .ok()
                .filter(Value::is_object),
            "null" => (text == "null").then_some(Value::Null),
            _ => None,
        };
        if let Some(v) = converted {
            return v;
        }
    }
    value
}

/// Builds the arguments of a tool step with `positional` and/or `coerce`: named values
/// first, positional values in alphabetical order of the remaining schema properties, each
/// string typed from its property. Fails with the list of valid names on an unknown name or
/// a value too many.
pub(super) async fn tool_arguments(
    client: &Client,
    name: &str,
    named: Map<String, Value>,
    positional: Vec<Value>,
    coerce_values: bool,
) -> Result<Value, StepFail> {
    let definition = match client.tool_definition(name).await {
        Ok(d) => d,
        Err(e) if e.rpc_error().is_some() => None,
        Err(e) => return Err(super::broke(e)),
    };
    let Some(tool) = definition else {
        // Unknown tool: the call is sent all the same, and the server reports it (what
        // `expect_error call_tool nosuch 1` checks). Positional values have no names to
        // go by, so only the named ones travel, as with mcp-tester.
        let _ = positional;
        return Ok(Value::Object(named));
    };
    let props: Map<String, Value> = tool
        .get("inputSchema")
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut names: Vec<&String> = props.keys().collect();
    names.sort();
    let valid = || {
        if names.is_empty() {
            "it takes no arguments".to_string()
        } else {
            format!(
                "valid names: {}",
                names
                    .iter()
                    .map(|n| n.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    };
    let mut out = Map::new();
    for (key, value) in named {
        let Some(prop) = props.get(&key) else {
            return Err(fail(
                RunCode::ToolArguments,
                format!("tool {name:?} has no argument {key:?}; {}", valid()),
            ));
        };
        let v = if coerce_values {
            coerce(value, prop)
        } else {
            value
        };
        out.insert(key, v);
    }
    let free: Vec<&String> = names
        .iter()
        .copied()
        .filter(|n| !out.contains_key(n.as_str()))
        .collect();
    if positional.len() > free.len() {
        return Err(fail(
            RunCode::ToolArguments,
            format!(
                "tool {name:?} got {} positional values but has only {} free {} ({}); {}",
                positional.len(),
                free.len(),
                if free.len() == 1 {
                    "property"
                } else {
                    "properties"
                },
                free.iter()
                    .map(|n| n.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                valid()
            ),
        ));
    }
    for (key, value) in free.into_iter().zip(positional) {
        let v = if coerce_values {
            coerce(value, &props[key.as_str()])
        } else {
            value
        };
        out.insert(key.clone(), v);
    }
    Ok(Value::Object(out))
}
