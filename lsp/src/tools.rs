//! The tools of the snapshot files a suite names (`Expect the tools match snapshot "F"`,
//! written by `mcpr snapshot`): their names, descriptions and arguments.

use mcpr_runtime::toolsnap;
use serde_json::Value;

use crate::open::Open;

/// One tool of a snapshot.
#[derive(Debug, Clone)]
pub struct Tool {
    /// Its name.
    pub name: String,
    /// Its description.
    pub description: String,
    /// Its arguments: name, whether required, JSON type and description.
    pub arguments: Vec<Argument>,
}

/// One argument of a tool.
#[derive(Debug, Clone)]
pub struct Argument {
    /// Its name.
    pub name: String,
    /// Whether the tool requires it.
    pub required: bool,
    /// Its JSON type, as the schema says.
    pub kind: String,
    /// Its description.
    pub description: String,
}

/// The tools of every snapshot the entry names that can be read (the editor's text of an
/// open snapshot file is not consulted: snapshots are written by `mcpr snapshot`).
pub fn tools(open: &Open) -> Vec<Tool> {
    let mut out: Vec<Tool> = Vec::new();
    for path in &open.index.snapshots {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let Ok(snapshot) = toolsnap::parse(&text) else {
            continue;
        };
        for t in snapshot["tools"].as_array().into_iter().flatten() {
            let Some(name) = t["name"].as_str() else {
                continue;
            };
            if out.iter().any(|o| o.name == name) {
                continue;
            }
            out.push(tool(name, t));
        }
    }
    out
}

fn tool(name: &str, t: &Value) -> Tool {
    let schema = &t["inputSchema"];
    let required: Vec<&str> = schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let arguments = schema["properties"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, p)| Argument {
            name: k.clone(),
            required: required.contains(&k.as_str()),
            kind: match &p["type"] {
                Value::String(s) => s.clone(),
                Value::Array(a) => a
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(" | "),
                _ => "any".into(),
            },
            description: p["description"].as_str().unwrap_or_default().to_string(),
        })
        .collect();
    Tool {
        name: name.to_string(),
        description: t["description"].as_str().unwrap_or_default().to_string(),
        arguments,
    }
}
