//! The tool rules MCP001–MCP015, with mcptest's levels and conditions.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::text::{describe_invisible, poison_phrases};
use super::{
    Finding, Kind, LintRule, description_problem, finding, repeats_name, shown, valid_name,
};
use crate::surface::Surface;

/// More characters of tool definitions than this is MCP010 (about 8k tokens per turn).
pub const DEFINITIONS_LIMIT: usize = 32_000;

/// Keywords that give a parameter a type for MCP009: `type`, or a schema that fixes the
/// type another way (a union, a reference, an enumeration, a constant).
const TYPING_KEYWORDS: &[&str] = &["type", "anyOf", "oneOf", "allOf", "$ref", "enum", "const"];

pub(super) fn check(surface: &Surface, chars: usize, out: &mut Vec<Finding>) {
    let names: Vec<String> = surface
        .tools
        .iter()
        .enumerate()
        .map(|(i, t)| display_name(t, i))
        .collect();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for (t, n) in surface.tools.iter().zip(&names) {
        if t.get("name").is_some_and(Value::is_string) {
            *counts.entry(n.as_str()).or_default() += 1;
        }
    }
    for (name, n) in &counts {
        if *n > 1 {
            out.push(finding(
                LintRule::Mcp002,
                Kind::Tool,
                name,
                format!("{n} tools are named '{name}'"),
            ));
        }
    }
    let mut first_of: BTreeMap<String, &str> = BTreeMap::new();
    for (i, tool) in surface.tools.iter().enumerate() {
        let name = names[i].as_str();
        let push = |out: &mut Vec<Finding>, code, message: String| {
            out.push(finding(code, Kind::Tool, name, message));
        };
        match tool.get("name") {
            Some(Value::String(n)) if !valid_name(n) => {
                push(out, LintRule::Mcp001, format!("invalid tool name '{n}'"));
            }
            Some(Value::String(_)) => {}
            None | Some(Value::Null) => push(out, LintRule::Mcp001, "tool has no name".into()),
            Some(other) => push(out, LintRule::Mcp001, format!("invalid tool name {other}")),
        }
        if let Some(Value::String(n)) = tool.get("name") {
            let key = confusable_key(n);
            match first_of.get(&key) {
                Some(first) if *first != n.as_str() => {
                    push(
                        out,
                        LintRule::Mcp011,
                        format!("easily confused with '{first}'"),
                    );
                }
                Some(_) => {}
                None => {
                    first_of.insert(key, n.as_str());
                }
            }
        }
        if !is_object_schema(tool.get("inputSchema")) {
            push(
                out,
                LintRule::Mcp003,
                "inputSchema must be an object schema with \"type\": \"object\"".into(),
            );
        }
        if let Some((code, message)) = description_problem(tool.get("description")) {
            push(out, code, message);
        }
        if let Some(Value::Object(schema)) = tool.get("inputSchema") {
            parameters(schema, &mut |code, m| push(out, code, m));
        }
        if tool.get("outputSchema").is_some() && !is_object_schema(tool.get("outputSchema")) {
            push(
                out,
                LintRule::Mcp014,
                "outputSchema must be an object schema with \"type\": \"object\"".into(),
            );
        }
        text_fields(tool, &mut |label, text| {
            let phrases = poison_phrases(text);
            if !phrases.is_empty() {
                let quoted: Vec<String> = phrases.iter().map(|p| format!("'{p}'")).collect();
                push(
                    out,
                    LintRule::Mcp012,
                    format!("{label} says {}", quoted.join(", ")),
                );
            }
            let hidden = describe_invisible(text);
            if !hidden.is_empty() {
                push(out, LintRule::Mcp013, format!("{label} contains {hidden}"));
            }
        });
    }
    if chars > DEFINITIONS_LIMIT {
        let name = if surface.server.is_empty() {
            "server"
        } else {
            surface.server.as_str()
        };
        out.push(finding(
            LintRule::Mcp010,
            Kind::Server,
            name,
            format!(
                "{} {chars} characters (about {} tokens per turn), over 32,000",
                match surface.tools.len() {
                    1 => "the one tool definition is".to_string(),
                    n => format!("all {n} tool definitions together are"),
                },
                super::estimate_tokens(chars)
            ),
        ));
    }
}

/// The tool's name for the report: its name, or `(tool N)` when it has none.
fn display_name(tool: &Value, index: usize) -> String {
    match tool.get("name") {
        Some(Value::String(n)) => n.clone(),
        _ => format!("(tool {})", index + 1),
    }
}

/// MCP011 compares names without case and without the separators `_ - .` and space.
fn confusable_key(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '_' | '-' | '.' | ' '))
        .flat_map(char::to_lowercase)
        .collect()
}

/// True for an object with `"type": "object"`.
fn is_object_schema(v: Option<&Value>) -> bool {
    v.and_then(|s| s.get("type")).and_then(Value::as_str) == Some("object")
}

/// MCP007, MCP008, MCP009 and MCP015 over the top-level parameters.
fn parameters(schema: &Map<String, Value>, push: &mut dyn FnMut(LintRule, String)) {
    let empty = Map::new();
    let props = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    for (p, s) in props {
        let description = s
            .get("description")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|d| !d.is_empty());
        match description {
            None => push(
                LintRule::Mcp007,
                format!("parameter '{p}' has no description"),
            ),
            Some(d) if repeats_name(p, d) => push(
                LintRule::Mcp015,
                format!("parameter '{p}' description just repeats its name: '{d}'"),
            ),
            Some(_) => {}
        }
        let typed = s
            .as_object()
            .is_some_and(|o| TYPING_KEYWORDS.iter().any(|k| o.contains_key(*k)));
        if !typed {
            push(LintRule::Mcp009, format!("parameter '{p}' has no type"));
        }
    }
    if let Some(Value::Array(required)) = schema.get("required") {
        for r in required {
            let defined = r.as_str().is_some_and(|name| props.contains_key(name));
            if !defined {
                push(
                    LintRule::Mcp008,
                    format!("required parameter '{}' is not in properties", shown(r)),
                );
            }
        }
    }
}

/// Calls `f(label, text)` for every string of a definition a model reads (all of it but
/// `_meta`), property names included; `label` names the field (`description`, `parameter
/// 'path' description`, or a JSON pointer such as `/inputSchema/properties/mode/enum/0`).
pub(super) fn text_fields(def: &Value, f: &mut dyn FnMut(&str, &str)) {
    fn walk(def: &Value, v: &Value, path: &mut Vec<String>, f: &mut dyn FnMut(&str, &str)) {
        match v {
            Value::String(s) => f(&label(def, path), s),
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    path.push(i.to_string());
                    walk(def, item, path, f);
                    path.pop();
                }
            }
            Value::Object(map) => {
                for (k, item) in map {
                    if k == "_meta" {
                        continue;
                    }
                    path.push(k.clone());
                    f(&format!("name of {}", pointer(path)), k);
                    walk(def, item, path, f);
                    path.pop();
                }
            }
            _ => {}
        }
    }
    walk(def, def, &mut Vec::new(), f);
}

fn pointer(path: &[String]) -> String {
    path.iter()
        .map(|s| format!("/{}", s.replace('~', "~0").replace('/', "~1")))
        .collect()
}

/// How a finding names a field: the common ones in words, the rest as a JSON pointer.
fn label(def: &Value, path: &[String]) -> String {
    let p: Vec<&str> = path.iter().map(String::as_str).collect();
    match p.as_slice() {
        [field] => (*field).to_string(),
        ["annotations", "title"] => "annotations title".into(),
        [
            "inputSchema",
            "properties",
            name,
            field @ ("description" | "title"),
        ] => {
            format!("parameter '{name}' {field}")
        }
        ["arguments", i, field @ ("description" | "title")] => {
            let arg = i
                .parse::<usize>()
                .ok()
                .and_then(|i| def["arguments"].get(i));
            match arg.and_then(|a| a.get("name")).and_then(Value::as_str) {
                Some(name) => format!("argument '{name}' {field}"),
                None => pointer(path),
            }
        }
        _ => pointer(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_name_common_fields_in_words() {
        let def = serde_json::json!({"arguments": [{"name": "code"}]});
        let l = |p: &[&str]| label(&def, &p.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(l(&["description"]), "description");
        assert_eq!(
            l(&["inputSchema", "properties", "path", "description"]),
            "parameter 'path' description"
        );
        assert_eq!(
            l(&["inputSchema", "properties", "a/b", "enum", "0"]),
            "/inputSchema/properties/a~1b/enum/0"
        );
        assert_eq!(
            l(&["arguments", "0", "description"]),
            "argument 'code' description"
        );
    }

    #[test]
    fn confusable_names_ignore_case_and_separators() {
        assert_eq!(confusable_key("Get-File"), confusable_key("get_file"));
        assert_ne!(confusable_key("get_files"), confusable_key("get_file"));
    }
}
