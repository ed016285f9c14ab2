//! Example arguments from a tool's `inputSchema`: the required properties, each with its
//! `default`, else its first `examples` entry, else its `const` or first `enum` value, else
//! a placeholder that fits its type, format and bounds.

use serde_json::{Map, Value, json};

/// Deepest nesting (and `$ref` chain) followed.
const MAX_DEPTH: usize = 8;

/// The example arguments for a tool: always an object.
pub fn arguments(input_schema: Option<&Value>) -> Value {
    match input_schema {
        Some(s) => match example(s, s, 0) {
            v @ Value::Object(_) => v,
            _ => json!({}),
        },
        None => json!({}),
    }
}

/// An example value for `schema` (`root` resolves local `$ref`s).
fn example(schema: &Value, root: &Value, depth: usize) -> Value {
    let Some(s) = schema.as_object() else {
        return json!("example");
    };
    if depth > MAX_DEPTH {
        return Value::Null;
    }
    if let Some(Value::String(r)) = s.get("$ref") {
        return match resolve(root, r) {
            Some(target) => example(target, root, depth + 1),
            None => json!("example"),
        };
    }
    if let Some(d) = s.get("default") {
        return d.clone();
    }
    if let Some(Value::Array(ex)) = s.get("examples")
        && let Some(first) = ex.first()
    {
        return first.clone();
    }
    if let Some(e) = s.get("example") {
        return e.clone();
    }
    if let Some(c) = s.get("const") {
        return c.clone();
    }
    if let Some(Value::Array(values)) = s.get("enum")
        && let Some(first) = values.iter().find(|v| !v.is_null()).or(values.first())
    {
        return first.clone();
    }
    for union in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = s.get(union) {
            let non_null = branches
                .iter()
                .find(|b| b.get("type").and_then(Value::as_str) != Some("null"));
            if let Some(b) = non_null.or(branches.first()) {
                return example(b, root, depth + 1);
            }
        }
    }
    if let Some(Value::Array(parts)) = s.get("allOf") {
        let mut merged = Map::new();
        for p in parts {
            match example(p, root, depth + 1) {
                Value::Object(o) => merged.extend(o),
                other if parts.len() == 1 => return other,
                _ => {}
            }
        }
        return Value::Object(merged);
    }
    let ty = match s.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null"),
        _ if s.contains_key("properties") => "object",
        _ => "string",
    };
    match ty {
        "object" => object(s, root, depth),
        "array" => {
            let n = s
                .get("minItems")
                .and_then(Value::as_u64)
                .unwrap_or(0)
                .min(3) as usize;
            let item = s
                .get("items")
                .map_or(json!("example"), |i| example(i, root, depth + 1));
            Value::Array(vec![item; n])
        }
        "integer" | "number" => number(s, ty == "integer"),
        "boolean" => json!(false),
        "null" => Value::Null,
        _ => string(s),
    }
}

fn object(s: &Map<String, Value>, root: &Value, depth: usize) -> Value {
    let mut out = Map::new();
    let props = s.get("properties").and_then(Value::as_object);
    for name in s
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        let value = match props.and_then(|p| p.get(name)) {
            Some(p) => example(p, root, depth + 1),
            None => json!("example"),
        };
        out.insert(name.to_string(), value);
    }
    Value::Object(out)
}

/// The smallest value the bounds allow from 1 up (the maximum when it is below 1).
fn number(s: &Map<String, Value>, integer: bool) -> Value {
    let get = |k: &str| s.get(k).and_then(Value::as_f64);
    let mut v = 1.0_f64;
    if let Some(min) = get("minimum") {
        v = v.max(min);
    } else if let Some(min) = get("exclusiveMinimum") {
        v = v.max(if integer {
            min.floor() + 1.0
        } else {
            min + 1.0
        });
    }
    if let Some(max) = get("maximum")
        && v > max
    {
        v = max;
    }
    if let Some(max) = get("exclusiveMaximum")
        && v >= max
    {
        v = max - 1.0;
    }
    if integer {
        let n = v.ceil();
        if n.fract() == 0.0 && n.abs() < 9.0e15 {
            return json!(n as i64);
        }
    } else if v.fract() == 0.0 && v.abs() < 9.0e15 {
        return json!(v as i64);
    }
    json!(v)
}

fn string(s: &Map<String, Value>) -> Value {
    let by_format = match s.get("format").and_then(Value::as_str) {
        Some("date-time") => "2026-01-01T00:00:00Z",
        Some("date") => "2026-01-01",
        Some("time") => "12:00:00",
        Some("email" | "idn-email") => "user@example.com",
        Some("uri" | "url" | "iri" | "uri-reference" | "iri-reference") => "https://example.com",
        Some("uuid") => "00000000-0000-4000-8000-000000000000",
        Some("ipv4") => "192.0.2.1",
        Some("ipv6") => "2001:db8::1",
        Some("hostname" | "idn-hostname") => "example.com",
        _ => "example",
    };
    let mut text = by_format.to_string();
    if let Some(min) = s.get("minLength").and_then(Value::as_u64) {
        while (text.chars().count() as u64) < min.min(256) {
            text.push('x');
        }
    }
    if let Some(max) = s.get("maxLength").and_then(Value::as_u64) {
        text = text.chars().take(max as usize).collect();
    }
    Value::String(text)
}

/// A local reference (`#/$defs/Item`, `#/definitions/x`) in `root`.
fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    root.pointer(pointer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn required_fields_with_defaults_examples_enums_and_placeholders() {
        let schema = json!({"type": "object", "required": ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"],
            "properties": {
                "a": {"type": "string", "default": "dflt"},
                "b": {"type": "integer", "examples": [42]},
                "c": {"type": "string", "enum": ["fast", "slow"]},
                "d": {"type": "integer", "minimum": 5, "maximum": 9},
                "e": {"type": "number", "exclusiveMinimum": 1.5},
                "f": {"type": "string", "format": "date"},
                "g": {"anyOf": [{"type": "null"}, {"type": "boolean"}]},
                "h": {"type": "array", "minItems": 2, "items": {"type": "string", "minLength": 9}},
                "i": {"$ref": "#/$defs/Item"},
                "j": {"type": "string", "maxLength": 3},
                "k": {"type": "integer", "minimum": 0},
                "optional": {"type": "string"}},
            "$defs": {"Item": {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer", "maximum": 0}}}}
        });
        assert_eq!(
            arguments(Some(&schema)),
            json!({"a": "dflt", "b": 42, "c": "fast", "d": 5, "e": 2.5, "f": "2026-01-01", "g": false,
                   "h": ["examplexx", "examplexx"], "i": {"id": 0}, "j": "exa", "k": 1})
        );
        assert_eq!(arguments(None), json!({}));
        assert_eq!(arguments(Some(&json!({"type": "object"}))), json!({}));
        assert_eq!(arguments(Some(&json!("weird"))), json!({}));
    }

    #[test]
    fn reference_cycles_end() {
        let schema = json!({"type": "object", "required": ["n"], "properties": {"n": {"$ref": "#/$defs/N"}},
            "$defs": {"N": {"type": "object", "required": ["next"], "properties": {"next": {"$ref": "#/$defs/N"}}}}});
        let v = arguments(Some(&schema));
        assert!(v["n"]["next"]["next"].is_object());
    }
}
