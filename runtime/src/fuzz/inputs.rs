//! Inputs made from a tool's `inputSchema`: valid ones (random values the schema allows),
//! boundary ones (a valid input with one value at an edge: limits, empty and long strings,
//! unicode, big numbers, empty arrays) and invalid ones (a wrong type, a missing required
//! member, a value out of range or outside its enum, an unknown member). Everything comes
//! from one seeded generator, so the same seed gives the same inputs.

use rand_core::{Rng, SeedableRng};
use rand_xorshift::XorShiftRng;
use serde_json::{Map, Value, json};

/// What kind of input a case is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Allowed by the schema.
    Valid,
    /// Allowed, at an edge.
    Boundary,
    /// Not allowed by the schema: a proper server answers with an error.
    Invalid,
}

impl Kind {
    /// The kind's name.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Valid => "valid",
            Kind::Boundary => "boundary",
            Kind::Invalid => "invalid",
        }
    }
}

/// One input of a tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// Its kind.
    pub kind: Kind,
    /// What is special about it (`"b" = 0`, `missing "a"`), empty for a plain valid one.
    pub what: String,
    /// The arguments.
    pub arguments: Value,
}

/// The generator of one tool: seeded from the run's seed and the tool's name, so a tool's
/// inputs do not depend on which other tools are fuzzed.
pub fn rng_for(seed: u64, tool: &str) -> XorShiftRng {
    // FNV-1a: stable across platforms and Rust versions, unlike the standard hasher.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in tool.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    XorShiftRng::seed_from_u64(seed ^ h)
}

fn below(rng: &mut XorShiftRng, n: usize) -> usize {
    if n == 0 {
        0
    } else {
        (rng.next_u64() % n as u64) as usize
    }
}

/// Text at the edges of what servers handle: accents, CJK, emoji, a right-to-left mark,
/// combining characters.
const UNICODE: &str = "h\u{e9}llo \u{4e16}\u{754c} \u{1f980} \u{202e}abc e\u{301}";

/// `n` cases for `schema` (valid first, then boundary, invalid and valid in turn).
pub fn cases(schema: Option<&Value>, n: usize, rng: &mut XorShiftRng) -> Vec<Case> {
    let empty = json!({"type": "object"});
    let schema = schema.filter(|s| s.is_object()).unwrap_or(&empty);
    let base = valid(schema, rng, 0);
    let mut boundary = Vec::new();
    let mut invalid = Vec::new();
    edges(schema, &base, rng, &mut boundary, &mut invalid);
    shuffle(&mut boundary, rng);
    shuffle(&mut invalid, rng);
    let mut out = vec![Case {
        kind: Kind::Valid,
        what: String::new(),
        arguments: base,
    }];
    let (mut b, mut i) = (boundary.into_iter(), invalid.into_iter());
    let mut turn = 0;
    let mut dry = 0;
    while out.len() < n && dry < 3 {
        let next = match turn % 3 {
            0 => b.next(),
            1 => i.next(),
            _ => Some(Case {
                kind: Kind::Valid,
                what: String::new(),
                arguments: valid(schema, rng, 0),
            }),
        };
        turn += 1;
        match next {
            Some(c) => {
                dry = 0;
                out.push(c);
            }
            None => dry += usize::from(turn % 3 != 0),
        }
        // Once both lists are spent, the rest are random valid inputs.
        if dry >= 2 {
            while out.len() < n {
                let arguments = valid(schema, rng, 0);
                out.push(Case {
                    kind: Kind::Valid,
                    what: String::new(),
                    arguments,
                });
            }
        }
    }
    out.truncate(n);
    out
}

fn shuffle<T>(items: &mut [T], rng: &mut XorShiftRng) {
    for i in (1..items.len()).rev() {
        let j = below(rng, i + 1);
        items.swap(i, j);
    }
}

/// The schema's type: its `type` (the first non-null one of a list), else what its other
/// keywords imply.
fn type_of(schema: &Value) -> &str {
    match &schema["type"] {
        Value::String(t) => t,
        Value::Array(ts) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null"),
        _ if schema.get("properties").is_some() => "object",
        _ if schema.get("items").is_some() => "array",
        _ if schema.get("minimum").is_some() || schema.get("maximum").is_some() => "number",
        _ => "string",
    }
}

/// One branch of `anyOf`/`oneOf`, or the first of `allOf`, else the schema itself.
fn branch<'a>(schema: &'a Value, rng: &mut XorShiftRng) -> &'a Value {
    for key in ["anyOf", "oneOf"] {
        if let Some(list) = schema[key].as_array().filter(|l| !l.is_empty()) {
            return &list[below(rng, list.len())];
        }
    }
    if let Some(first) = schema["allOf"].as_array().and_then(|l| l.first())
        && schema.get("type").is_none()
    {
        return first;
    }
    schema
}

fn int(schema: &Value, key: &str) -> Option<i64> {
    schema[key]
        .as_i64()
        .or_else(|| schema[key].as_f64().map(|f| f as i64))
}

fn length(schema: &Value, min: &str, max: &str, default_max: usize) -> (usize, usize) {
    // A huge least length would only make a huge input: it is capped.
    let lo = schema[min].as_u64().unwrap_or(0).min(10_000) as usize;
    let hi = schema[max]
        .as_u64()
        .map(|m| m as usize)
        .unwrap_or(lo + default_max)
        .max(lo);
    (lo, hi.min(lo + default_max))
}

/// A value `schema` allows.
pub fn valid(schema: &Value, rng: &mut XorShiftRng, depth: usize) -> Value {
    let schema = branch(schema, rng);
    if let Some(c) = schema.get("const") {
        return c.clone();
    }
    if let Some(list) = schema["enum"].as_array().filter(|l| !l.is_empty()) {
        return list[below(rng, list.len())].clone();
    }
    match type_of(schema) {
        "object" => {
            let mut out = Map::new();
            let required: Vec<&str> = schema["required"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            if let Some(props) = schema["properties"].as_object() {
                for (k, s) in props {
                    if required.contains(&k.as_str())
                        || (depth < 3 && rng.next_u32().is_multiple_of(2))
                    {
                        out.insert(k.clone(), valid(s, rng, depth + 1));
                    }
                }
            }
            Value::Object(out)
        }
        "array" => {
            let (lo, hi) = length(schema, "minItems", "maxItems", 3);
            let n = lo + below(rng, hi - lo + 1);
            let items = schema.get("items").cloned().unwrap_or(json!({}));
            Value::Array((0..n).map(|_| valid(&items, rng, depth + 1)).collect())
        }
        "integer" => {
            let (lo, hi) = range(schema, -1000.0, 1000.0);
            let (lo, hi) = (lo.ceil() as i64, hi.floor() as i64);
            if hi < lo {
                return json!(lo);
            }
            let span = (i128::from(hi) - i128::from(lo) + 1) as u128;
            let pick = i128::from(lo) + (u128::from(rng.next_u64()) % span) as i128;
            json!(i64::try_from(pick).unwrap_or(lo))
        }
        "number" => {
            let (lo, hi) = range(schema, -1000.0, 1000.0);
            let f = rng.next_u64() as f64 / u64::MAX as f64;
            let x = lo + (hi - lo) * f;
            json!((x * 100.0).round() / 100.0)
        }
        "boolean" => json!(rng.next_u32().is_multiple_of(2)),
        "null" => Value::Null,
        _ => json!(text(schema, rng)),
    }
}

/// The range of a number schema, exclusive bounds nudged inward.
fn range(schema: &Value, lo: f64, hi: f64) -> (f64, f64) {
    let mut l = schema["minimum"].as_f64().unwrap_or(lo);
    let mut h = schema["maximum"].as_f64().unwrap_or(hi);
    if let Some(x) = schema["exclusiveMinimum"].as_f64() {
        l = l.max(x + 1.0);
    }
    if let Some(x) = schema["exclusiveMaximum"].as_f64() {
        h = h.min(x - 1.0);
    }
    if schema.get("minimum").is_some() && schema.get("maximum").is_none() {
        h = l + (hi - lo);
    }
    if schema.get("maximum").is_some() && schema.get("minimum").is_none() {
        l = h - (hi - lo);
    }
    (l, h.max(l))
}

/// A string: an example, a value of its format, or letters within its length limits.
fn text(schema: &Value, rng: &mut XorShiftRng) -> String {
    if let Some(ex) = schema["examples"]
        .as_array()
        .and_then(|e| e.first())
        .and_then(Value::as_str)
    {
        return ex.to_string();
    }
    if let Some(d) = schema["default"].as_str() {
        return d.to_string();
    }
    match schema["format"].as_str() {
        Some("email") => return "fuzz@example.com".into(),
        Some("uri") | Some("url") => return "https://example.com/fuzz".into(),
        Some("date-time") => return "2024-01-02T03:04:05Z".into(),
        Some("date") => return "2024-01-02".into(),
        Some("uuid") => return "00000000-0000-4000-8000-000000000000".into(),
        _ => {}
    }
    let (lo, hi) = length(schema, "minLength", "maxLength", 12);
    let n = lo + below(rng, hi - lo + 1);
    const LETTERS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789 ";
    (0..n)
        .map(|_| LETTERS[below(rng, LETTERS.len())] as char)
        .collect()
}

/// The edge values of one schema: `(value, what, is it allowed?)`.
fn edge_values(schema: &Value) -> Vec<(Value, String, bool)> {
    let mut out = Vec::new();
    let t = type_of(schema);
    if let Some(list) = schema["enum"].as_array() {
        out.push((
            json!("__not_in_enum__"),
            "a value outside its enum".into(),
            false,
        ));
        if !list.is_empty() {
            return out;
        }
    }
    match t {
        "string" => {
            let min = schema["minLength"].as_u64();
            let max = schema["maxLength"].as_u64();
            out.push((json!(""), "an empty string".into(), min.unwrap_or(0) == 0));
            out.push((
                json!("   "),
                "only spaces".into(),
                min.unwrap_or(0) <= 3 && max.unwrap_or(3) >= 3,
            ));
            let fits = |s: &str| {
                let n = s.chars().count() as u64;
                max.is_none_or(|m| n <= m) && min.is_none_or(|m| n >= m)
            };
            let control = "quote \" back\\slash\nnew line\ttab \u{0} nul";
            out.push((json!(UNICODE), "unicode text".into(), fits(UNICODE)));
            out.push((json!(control), "control characters".into(), fits(control)));
            match max {
                Some(m) if m <= 100_000 => {
                    out.push((
                        json!("x".repeat(m as usize)),
                        format!("{m} characters (maxLength)"),
                        true,
                    ));
                    out.push((
                        json!("x".repeat(m as usize + 1)),
                        format!("{} characters (over maxLength)", m + 1),
                        false,
                    ));
                }
                _ => out.push((json!("x".repeat(10_000)), "10000 characters".into(), true)),
            }
            if let Some(m) = min.filter(|m| *m > 0 && *m <= 100_000) {
                out.push((
                    json!("x".repeat(m as usize)),
                    format!("{m} characters (minLength)"),
                    true,
                ));
                out.push((
                    json!("x".repeat(m as usize - 1)),
                    format!("{} characters (under minLength)", m - 1),
                    false,
                ));
            }
        }
        "integer" | "number" => {
            let integer = t == "integer";
            let min = int(schema, "minimum");
            let max = int(schema, "maximum");
            let inside = |x: i64| min.is_none_or(|m| x >= m) && max.is_none_or(|m| x <= m);
            for x in [0i64, -1, 1] {
                out.push((json!(x), format!("{x}"), inside(x)));
            }
            if let Some(m) = min {
                out.push((json!(m), format!("{m} (minimum)"), true));
                out.push((
                    json!(m.saturating_sub(1)),
                    format!("{} (under minimum)", m.saturating_sub(1)),
                    false,
                ));
            }
            if let Some(m) = max {
                out.push((json!(m), format!("{m} (maximum)"), true));
                out.push((
                    json!(m.saturating_add(1)),
                    format!("{} (over maximum)", m.saturating_add(1)),
                    false,
                ));
            }
            out.push((
                json!(i64::MAX),
                "the largest 64-bit integer".into(),
                inside(i64::MAX),
            ));
            out.push((
                json!(i64::MIN),
                "the smallest 64-bit integer".into(),
                inside(i64::MIN),
            ));
            out.push((
                json!(9_007_199_254_740_993u64),
                "2^53 + 1".into(),
                inside(i64::MAX),
            ));
            if integer {
                out.push((json!(1.5), "a fraction".into(), false));
            } else {
                out.push((json!(1e308), "1e308".into(), max.is_none()));
                out.push((json!(-1e308), "-1e308".into(), min.is_none()));
                out.push((
                    json!(5e-324),
                    "the smallest positive double".into(),
                    inside(0) && inside(1),
                ));
            }
        }
        "array" => {
            let min = schema["minItems"].as_u64().unwrap_or(0);
            let max = schema["maxItems"].as_u64();
            out.push((json!([]), "an empty array".into(), min == 0));
            if max.is_none() {
                let item = schema.get("items").map(|s| {
                    let mut r = XorShiftRng::seed_from_u64(0);
                    valid(s, &mut r, 2)
                });
                let item = item.unwrap_or(json!("x"));
                out.push((Value::Array(vec![item; 1000]), "1000 items".into(), true));
            }
        }
        "object" => out.push((
            json!({}),
            "an empty object".into(),
            schema["required"].as_array().is_none_or(Vec::is_empty),
        )),
        _ => {}
    }
    let wrong: Value = match t {
        "string" => json!(12345),
        "integer" | "number" => json!("12"),
        "boolean" => json!("true"),
        "array" => json!({"0": 1}),
        "object" => json!([1]),
        _ => json!([]),
    };
    out.push((wrong, format!("a wrong type (not {t})"), false));
    if !schema["type"]
        .as_array()
        .is_some_and(|ts| ts.iter().any(|t| t == "null"))
    {
        out.push((Value::Null, "null".into(), false));
    }
    out
}

/// The boundary and invalid cases of `schema` around the valid input `base`.
fn edges(
    schema: &Value,
    base: &Value,
    rng: &mut XorShiftRng,
    boundary: &mut Vec<Case>,
    invalid: &mut Vec<Case>,
) {
    let Some(props) = schema["properties"].as_object() else {
        return;
    };
    if !base.is_object() {
        return;
    }
    let required: Vec<&str> = schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    for (k, s) in props {
        let s = branch(s, rng);
        for (v, what, allowed) in edge_values(s) {
            let mut args = base.clone();
            args[k] = v;
            let case = Case {
                kind: if allowed {
                    Kind::Boundary
                } else {
                    Kind::Invalid
                },
                what: format!("{k:?} = {what}"),
                arguments: args,
            };
            if allowed {
                boundary.push(case);
            } else {
                invalid.push(case);
            }
        }
        if required.contains(&k.as_str()) {
            let mut args = base.clone();
            if let Some(o) = args.as_object_mut() {
                o.shift_remove(k);
            }
            invalid.push(Case {
                kind: Kind::Invalid,
                what: format!("missing the required {k:?}"),
                arguments: args,
            });
        }
    }
    let mut extra = base.clone();
    extra["__mcpr_fuzz_extra"] = json!(1);
    let closed = schema["additionalProperties"] == json!(false);
    let case = Case {
        kind: if closed {
            Kind::Invalid
        } else {
            Kind::Boundary
        },
        what: "an unknown member \"__mcpr_fuzz_extra\"".into(),
        arguments: extra,
    };
    if closed {
        invalid.push(case);
    } else {
        boundary.push(case);
    }
    if !required.is_empty() {
        invalid.push(Case {
            kind: Kind::Invalid,
            what: "no arguments at all".into(),
            arguments: json!({}),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> Value {
        json!({"type": "object", "required": ["a", "b"], "properties": {
            "a": {"type": "integer", "minimum": 0, "maximum": 10},
            "b": {"type": "string", "maxLength": 5},
            "c": {"type": "array", "items": {"type": "boolean"}},
            "d": {"enum": ["x", "y"]}
        }})
    }

    #[test]
    fn the_same_seed_gives_the_same_inputs_and_another_seed_others() {
        let a = cases(Some(&schema()), 60, &mut rng_for(7, "t"));
        let b = cases(Some(&schema()), 60, &mut rng_for(7, "t"));
        let c = cases(Some(&schema()), 60, &mut rng_for(8, "t"));
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(a.len(), 60);
    }

    #[test]
    fn valid_inputs_respect_the_schema_and_every_kind_is_made() {
        let s = schema();
        let validator = jsonschema::validator_for(&s).unwrap();
        let all = cases(Some(&s), 80, &mut rng_for(1, "t"));
        for c in &all {
            let ok = validator.is_valid(&c.arguments);
            match c.kind {
                Kind::Valid | Kind::Boundary => assert!(ok, "{c:?}"),
                Kind::Invalid => assert!(!ok, "{c:?}"),
            }
        }
        for kind in [Kind::Valid, Kind::Boundary, Kind::Invalid] {
            assert!(all.iter().any(|c| c.kind == kind), "{kind:?}");
        }
        assert!(all.iter().any(|c| c.what == "\"a\" = 0"), "{all:#?}");
        assert!(
            all.iter()
                .any(|c| c.what.contains("missing the required \"b\""))
        );
    }
}
