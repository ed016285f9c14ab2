//! The breaking-change diff: every difference between two snapshots, classified BREAKING
//! (a client or agent written against the old definitions may fail) or compatible.
//!
//! Inputs are contravariant, outputs covariant: a parameter may accept more (a wider type,
//! another enum value, a lower minimum) but not less; an output field may promise more
//! but not less (a field removed or no longer required, a wider type, a new enum value
//! are breaking). The rules are listed in docs/lint.md.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::{Map, Value};

use crate::lint::Kind;

/// One difference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    /// True when a client written against the old definitions may fail.
    pub breaking: bool,
    /// What changed: a tool, resource, resource template or prompt.
    pub kind: Kind,
    /// Its name (tool or prompt name, resource URI, uriTemplate).
    pub name: String,
    /// What changed.
    pub message: String,
}

impl Change {
    /// The name as printed: tools bare, others with their kind, as lint prints them.
    pub fn subject(&self) -> String {
        match self.kind {
            Kind::Server | Kind::Tool => self.name.clone(),
            Kind::Resource => format!("resource {}", self.name),
            Kind::ResourceTemplate => format!("template {}", self.name),
            Kind::Prompt => format!("prompt {}", self.name),
        }
    }
}

/// Every change from `old` to `new` (two snapshot values, as `toolsnap::parse` or
/// `toolsnap::from_surface` make them): breaking ones first, then by kind and name, each
/// subject's changes in the order they were found.
pub fn diff(old: &Value, new: &Value) -> Vec<Change> {
    let mut out = Vec::new();
    let lists = [
        (Kind::Tool, "tools", "name"),
        (Kind::Resource, "resources", "uri"),
        (Kind::ResourceTemplate, "resourceTemplates", "uriTemplate"),
        (Kind::Prompt, "prompts", "name"),
    ];
    for (kind, list, key) in lists {
        let before = by_key(&old[list], key);
        let after = by_key(&new[list], key);
        let names: BTreeSet<&str> = before.keys().chain(after.keys()).copied().collect();
        for name in names {
            let mut c = Collector {
                kind,
                name,
                out: &mut out,
            };
            match (before.get(name), after.get(name)) {
                (Some(_), None) => c.breaking(format!("{} was removed", noun(kind))),
                (None, Some(_)) => c.ok(format!("new {}", noun(kind))),
                (Some(o), Some(n)) => match kind {
                    Kind::Tool => tool(o, n, &mut c),
                    Kind::Prompt => prompt(o, n, &mut c),
                    _ => resource(o, n, &mut c),
                },
                (None, None) => {}
            }
        }
    }
    out.sort_by(|a, b| {
        b.breaking
            .cmp(&a.breaking)
            .then(a.kind.cmp(&b.kind))
            .then_with(|| a.name.cmp(&b.name))
    });
    out
}

fn noun(kind: Kind) -> &'static str {
    match kind {
        Kind::Server => "server",
        Kind::Tool => "tool",
        Kind::Resource => "resource",
        Kind::ResourceTemplate => "resource template",
        Kind::Prompt => "prompt",
    }
}

/// The items of a list by their key (the first of a duplicated key wins).
fn by_key<'a>(list: &'a Value, key: &str) -> BTreeMap<&'a str, &'a Value> {
    let mut map = BTreeMap::new();
    for item in list.as_array().into_iter().flatten() {
        if let Some(k) = item.get(key).and_then(Value::as_str) {
            map.entry(k).or_insert(item);
        }
    }
    map
}

struct Collector<'a> {
    kind: Kind,
    name: &'a str,
    out: &'a mut Vec<Change>,
}

impl Collector<'_> {
    fn push(&mut self, breaking: bool, message: String) {
        self.out.push(Change {
            breaking,
            kind: self.kind,
            name: self.name.to_string(),
            message,
        });
    }
    fn breaking(&mut self, message: String) {
        self.push(true, message);
    }
    fn ok(&mut self, message: String) {
        self.push(false, message);
    }
}

/// A value for a message: strings in single quotes, the rest as JSON.
fn show(v: &Value) -> String {
    match v {
        Value::String(s) => format!("'{s}'"),
        other => other.to_string(),
    }
}

fn obj(v: Option<&Value>) -> Map<String, Value> {
    v.and_then(Value::as_object).cloned().unwrap_or_default()
}

/// Reports a changed text field (`description`, `title`) as compatible.
fn texts(o: &Map<String, Value>, n: &Map<String, Value>, prefix: &str, c: &mut Collector<'_>) {
    for field in ["title", "description"] {
        if o.get(field) != n.get(field) {
            c.ok(format!("{prefix}{field} changed"));
        }
    }
}

/// Reports keys outside `known` that differ, as compatible.
fn others(
    o: &Map<String, Value>,
    n: &Map<String, Value>,
    known: &[&str],
    prefix: &str,
    c: &mut Collector<'_>,
) {
    let keys: BTreeSet<&String> = o.keys().chain(n.keys()).collect();
    for k in keys {
        if !known.contains(&k.as_str()) && o.get(k) != n.get(k) {
            c.ok(format!("{prefix}'{k}' changed"));
        }
    }
}

fn tool(o: &Value, n: &Value, c: &mut Collector<'_>) {
    let (o, n) = (obj(Some(o)), obj(Some(n)));
    input_object(o.get("inputSchema"), n.get("inputSchema"), "", c);
    match (o.get("outputSchema"), n.get("outputSchema")) {
        (Some(_), None) => c.breaking("outputSchema was removed".into()),
        (None, Some(_)) => c.ok("outputSchema was added".into()),
        (Some(a), Some(b)) => output_value(a, b, None, c),
        (None, None) => {}
    }
    let task = |m: &Map<String, Value>| {
        m.get("execution")
            .and_then(|e| e.get("taskSupport"))
            .and_then(Value::as_str)
            .unwrap_or("forbidden")
            .to_string()
    };
    let (ta, tb) = (task(&o), task(&n));
    if ta != tb {
        c.push(
            tb == "required",
            format!("taskSupport changed {ta} -> {tb}"),
        );
    }
    texts(&o, &n, "", c);
    let (ao, an) = (obj(o.get("annotations")), obj(n.get("annotations")));
    let keys: BTreeSet<&String> = ao.keys().chain(an.keys()).collect();
    for k in keys {
        if ao.get(k) != an.get(k) {
            let side = |v: Option<&Value>| v.map_or("absent".to_string(), show);
            c.ok(format!(
                "annotation '{k}' changed {} -> {}",
                side(ao.get(k)),
                side(an.get(k))
            ));
        }
    }
    let known = [
        "name",
        "inputSchema",
        "outputSchema",
        "execution",
        "title",
        "description",
        "annotations",
    ];
    others(&o, &n, &known, "", c);
    if o.get("execution") != n.get("execution") && ta == tb {
        c.ok("'execution' changed".into());
    }
}

// --- types -------------------------------------------------------------------------------

const ALL_TYPES: &[&str] = &[
    "array", "boolean", "integer", "null", "number", "object", "string",
];

/// The JSON types a schema allows (all of them when it says nothing).
fn types(s: &Value) -> BTreeSet<String> {
    match s.get("type") {
        Some(Value::String(t)) => [t.clone()].into(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => {
            let branches = s
                .get("anyOf")
                .or_else(|| s.get("oneOf"))
                .and_then(Value::as_array);
            match branches {
                Some(bs) if !bs.is_empty() => bs.iter().flat_map(types).collect(),
                _ => ALL_TYPES.iter().map(|t| t.to_string()).collect(),
            }
        }
    }
}

/// True when every type of `small` is allowed by `big` (an integer is a number).
fn covers(big: &BTreeSet<String>, small: &BTreeSet<String>) -> bool {
    small
        .iter()
        .all(|t| big.contains(t) || (t == "integer" && big.contains("number")))
}

fn show_types(t: &BTreeSet<String>) -> String {
    if t.len() == ALL_TYPES.len() {
        "any".into()
    } else {
        t.iter().cloned().collect::<Vec<_>>().join("|")
    }
}

/// The values an `enum` or `const` limits a schema to.
fn allowed(s: &Value) -> Option<Vec<Value>> {
    match (s.get("enum"), s.get("const")) {
        (Some(Value::Array(v)), _) => Some(v.clone()),
        (_, Some(v)) => Some(vec![v.clone()]),
        _ => None,
    }
}

fn show_list(v: &[Value]) -> String {
    v.iter().map(show).collect::<Vec<_>>().join(", ")
}

// --- inputs ------------------------------------------------------------------------------

/// Parameters of an object schema (`prefix` names the enclosing parameter, `a.`).
fn input_object(o: Option<&Value>, n: Option<&Value>, prefix: &str, c: &mut Collector<'_>) {
    let empty = Value::Object(Map::new());
    let (o, n) = (o.unwrap_or(&empty), n.unwrap_or(&empty));
    let (po, pn) = (obj(o.get("properties")), obj(n.get("properties")));
    let req = |s: &Value| -> BTreeSet<String> {
        s.get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect()
    };
    let (ro, rn) = (req(o), req(n));
    let names: BTreeSet<&String> = po.keys().chain(pn.keys()).chain(rn.iter()).collect();
    for name in names {
        let label = format!("{prefix}{name}");
        match (po.get(name), pn.get(name)) {
            (Some(_), None) => c.breaking(format!("parameter '{label}' was removed")),
            (None, Some(_)) if rn.contains(name) => {
                c.breaking(format!("new required parameter '{label}'"));
            }
            (None, Some(_)) => c.ok(format!("new optional parameter '{label}'")),
            (Some(a), Some(b)) => {
                if rn.contains(name) && !ro.contains(name) {
                    c.breaking(format!("parameter '{label}' is now required"));
                } else if ro.contains(name) && !rn.contains(name) {
                    c.ok(format!("parameter '{label}' is no longer required"));
                }
                input_value(a, b, &label, c);
            }
            // `required` names a parameter that neither version defines.
            (None, None) if !ro.contains(name) => {
                c.breaking(format!("new required parameter '{label}'"));
            }
            (None, None) => {}
        }
    }
    let closed = |s: &Value| s.get("additionalProperties") == Some(&Value::Bool(false));
    let what = if prefix.is_empty() {
        "other parameters".to_string()
    } else {
        format!("other properties in '{}'", prefix.trim_end_matches('.'))
    };
    match (closed(o), closed(n)) {
        (false, true) => c.breaking(format!("{what} are no longer accepted")),
        (true, false) => c.ok(format!("{what} are now accepted")),
        _ => {}
    }
}

/// Lower bounds: raising one (or adding it) rejects inputs that were valid.
const LOWER: &[&str] = &[
    "minimum",
    "exclusiveMinimum",
    "minLength",
    "minItems",
    "minProperties",
];
/// Upper bounds: lowering one (or adding it) rejects inputs that were valid.
const UPPER: &[&str] = &[
    "maximum",
    "exclusiveMaximum",
    "maxLength",
    "maxItems",
    "maxProperties",
];

fn input_value(o: &Value, n: &Value, label: &str, c: &mut Collector<'_>) {
    let p = format!("parameter '{label}'");
    let (to, tn) = (types(o), types(n));
    if to != tn {
        c.push(
            !covers(&tn, &to),
            format!(
                "{p} type changed {} -> {}",
                show_types(&to),
                show_types(&tn)
            ),
        );
    }
    match (allowed(o), allowed(n)) {
        (Some(a), Some(b)) => {
            for v in a.iter().filter(|v| !b.contains(v)) {
                c.breaking(format!("{p} enum value {} was removed", show(v)));
            }
            for v in b.iter().filter(|v| !a.contains(v)) {
                c.ok(format!("{p} enum value {} was added", show(v)));
            }
        }
        (None, Some(b)) => c.breaking(format!("{p} now only accepts {}", show_list(&b))),
        (Some(a), None) => c.ok(format!("{p} is no longer limited to {}", show_list(&a))),
        (None, None) => {}
    }
    for (keys, tighter) in [(LOWER, true), (UPPER, false)] {
        for k in keys {
            let (a, b) = (
                o.get(*k).and_then(Value::as_f64),
                n.get(*k).and_then(Value::as_f64),
            );
            if a == b {
                continue;
            }
            let (ra, rb) = (o.get(*k), n.get(*k));
            let breaking = match (a, b) {
                (None, Some(_)) => true,
                (Some(_), None) => false,
                (Some(x), Some(y)) => (y > x) == tighter,
                (None, None) => false,
            };
            let side = |v: Option<&Value>| v.map_or("none".to_string(), Value::to_string);
            c.push(
                breaking,
                format!("{p} {k} changed {} -> {}", side(ra), side(rb)),
            );
        }
    }
    for k in ["pattern", "format"] {
        match (o.get(k), n.get(k)) {
            (a, b) if a == b => {}
            (Some(a), None) => c.ok(format!("{p} {k} {} was dropped", show(a))),
            (a, Some(b)) => c.breaking(match a {
                Some(a) => format!("{p} {k} changed {} -> {}", show(a), show(b)),
                None => format!("{p} now has {k} {}", show(b)),
            }),
            _ => {}
        }
    }
    if o.get("default") != n.get("default") {
        let side = |v: Option<&Value>| v.map_or("none".to_string(), show);
        c.ok(format!(
            "{p} default changed {} -> {}",
            side(o.get("default")),
            side(n.get("default"))
        ));
    }
    let (mo, mn) = (obj(Some(o)), obj(Some(n)));
    texts(&mo, &mn, &format!("{p} "), c);
    if o.get("properties").is_some() || n.get("properties").is_some() {
        input_object(Some(o), Some(n), &format!("{label}."), c);
    }
    if let (Some(a), Some(b)) = (o.get("items"), n.get("items")) {
        input_value(a, b, &format!("{label}[]"), c);
    }
    let mut known: Vec<&str> = vec![
        "type",
        "enum",
        "const",
        "pattern",
        "format",
        "default",
        "title",
        "description",
        "properties",
        "required",
        "additionalProperties",
        "items",
    ];
    known.extend(LOWER);
    known.extend(UPPER);
    unlisted(&mo, &mn, &known, to != tn, &p, c);
}

/// Reports the keywords of a schema outside `known` that differ, as compatible; `anyOf`
/// and `oneOf` too, unless the type change they make was reported (`typed`).
fn unlisted(
    o: &Map<String, Value>,
    n: &Map<String, Value>,
    known: &[&str],
    typed: bool,
    p: &str,
    c: &mut Collector<'_>,
) {
    let keys: BTreeSet<&String> = o.keys().chain(n.keys()).collect();
    for k in keys {
        if o.get(k) == n.get(k) || known.contains(&k.as_str()) {
            continue;
        }
        if typed && matches!(k.as_str(), "anyOf" | "oneOf") {
            continue;
        }
        c.ok(format!("{p} '{k}' changed"));
    }
}

// --- outputs -----------------------------------------------------------------------------

/// An output schema or field (`label` `None` for the outputSchema itself).
fn output_value(o: &Value, n: &Value, label: Option<&str>, c: &mut Collector<'_>) {
    let p = match label {
        Some(l) => format!("output field '{l}'"),
        None => "outputSchema".to_string(),
    };
    let (to, tn) = (types(o), types(n));
    if to != tn {
        c.push(
            !covers(&to, &tn),
            format!(
                "{p} type changed {} -> {}",
                show_types(&to),
                show_types(&tn)
            ),
        );
    }
    match (allowed(o), allowed(n)) {
        (Some(a), Some(b)) => {
            for v in b.iter().filter(|v| !a.contains(v)) {
                c.breaking(format!("{p} may now be {}", show(v)));
            }
            for v in a.iter().filter(|v| !b.contains(v)) {
                c.ok(format!("{p} is no longer {}", show(v)));
            }
        }
        (Some(a), None) => c.breaking(format!("{p} is no longer limited to {}", show_list(&a))),
        (None, Some(b)) => c.ok(format!("{p} is now limited to {}", show_list(&b))),
        (None, None) => {}
    }
    let (mo, mn) = (obj(Some(o)), obj(Some(n)));
    if label.is_some() {
        texts(&mo, &mn, &format!("{p} "), c);
    }
    let prefix = label.map(|l| format!("{l}.")).unwrap_or_default();
    let (po, pn) = (obj(o.get("properties")), obj(n.get("properties")));
    let req = |s: &Value, k: &str| {
        s.get("required")
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().any(|x| x.as_str() == Some(k)))
    };
    let names: BTreeSet<&String> = po.keys().chain(pn.keys()).collect();
    for name in names {
        let field = format!("{prefix}{name}");
        match (po.get(name), pn.get(name)) {
            (Some(_), None) => c.breaking(format!("output field '{field}' was removed")),
            (None, Some(_)) => c.ok(format!("new output field '{field}'")),
            (Some(a), Some(b)) => {
                match (req(o, name), req(n, name)) {
                    (true, false) => {
                        c.breaking(format!(
                            "output field '{field}' is no longer always present"
                        ));
                    }
                    (false, true) => c.ok(format!("output field '{field}' is now always present")),
                    _ => {}
                }
                output_value(a, b, Some(&field), c);
            }
            (None, None) => {}
        }
    }
    if let (Some(a), Some(b)) = (o.get("items"), n.get("items")) {
        output_value(a, b, Some(&format!("{}[]", label.unwrap_or(""))), c);
    }
    let known = [
        "type",
        "enum",
        "const",
        "title",
        "description",
        "properties",
        "required",
        "items",
    ];
    unlisted(&mo, &mn, &known, to != tn, &p, c);
}

// --- resources and prompts ---------------------------------------------------------------

fn resource(o: &Value, n: &Value, c: &mut Collector<'_>) {
    let (o, n) = (obj(Some(o)), obj(Some(n)));
    if o.get("mimeType") != n.get("mimeType") {
        let side = |v: Option<&Value>| v.map_or("none".to_string(), show);
        c.breaking(format!(
            "mimeType changed {} -> {}",
            side(o.get("mimeType")),
            side(n.get("mimeType"))
        ));
    }
    if o.get("name") != n.get("name") {
        let side = |v: Option<&Value>| v.map_or("none".to_string(), show);
        c.ok(format!(
            "name changed {} -> {}",
            side(o.get("name")),
            side(n.get("name"))
        ));
    }
    texts(&o, &n, "", c);
    others(
        &o,
        &n,
        &[
            "uri",
            "uriTemplate",
            "mimeType",
            "name",
            "title",
            "description",
        ],
        "",
        c,
    );
}

fn prompt(o: &Value, n: &Value, c: &mut Collector<'_>) {
    let args = |v: &Value| -> BTreeMap<String, Value> {
        v.get("arguments")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|a| Some((a.get("name")?.as_str()?.to_string(), a.clone())))
            .collect()
    };
    let (ao, an) = (args(o), args(n));
    let required = |a: &Value| a.get("required") == Some(&Value::Bool(true));
    let names: BTreeSet<&String> = ao.keys().chain(an.keys()).collect();
    for name in names {
        match (ao.get(name), an.get(name)) {
            (Some(_), None) => c.breaking(format!("argument '{name}' was removed")),
            (None, Some(b)) if required(b) => c.breaking(format!("new required argument '{name}'")),
            (None, Some(_)) => c.ok(format!("new optional argument '{name}'")),
            (Some(a), Some(b)) => {
                match (required(a), required(b)) {
                    (false, true) => c.breaking(format!("argument '{name}' became required")),
                    (true, false) => c.ok(format!("argument '{name}' is no longer required")),
                    _ => {}
                }
                let (ma, mb) = (obj(Some(a)), obj(Some(b)));
                texts(&ma, &mb, &format!("argument '{name}' "), c);
                others(
                    &ma,
                    &mb,
                    &["name", "required", "title", "description"],
                    &format!("argument '{name}' "),
                    c,
                );
            }
            (None, None) => {}
        }
    }
    let (o, n) = (obj(Some(o)), obj(Some(n)));
    texts(&o, &n, "", c);
    others(
        &o,
        &n,
        &["name", "arguments", "title", "description"],
        "",
        c,
    );
}

#[cfg(test)]
mod tests;
