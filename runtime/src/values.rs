//! Values at run time: the variable map of a test, `${…}` interpolation, result paths and the
//! built-in functions of `Set … using` (mcp-test-language-1.md §1.9, §3.8, §4.3, §4.4).

use base64::Engine as _;
use serde_json::{Map, Value};
use sha2::Digest;

use crate::environment::Environment;

/// Most links followed when an exact placeholder resolves to another exact placeholder.
const MAX_CHAIN: usize = 16;

/// The flat variable map of one test: `state`, `deps`, the test's variables, then whatever
/// `capture` and `set` steps write. Keys may contain dots (`flow0.a` is one variable).
#[derive(Debug, Clone, Default)]
pub struct Vars {
    map: Map<String, Value>,
    /// What `${env.NAME}` reads: the environment the run was started in.
    env: Environment,
}

impl Vars {
    /// An empty map whose `${env.…}` finds nothing.
    pub fn new() -> Vars {
        Vars::default()
    }

    /// An empty map whose `${env.NAME}` reads `env`.
    pub fn with_env(env: &Environment) -> Vars {
        Vars {
            map: Map::new(),
            env: env.clone(),
        }
    }

    /// Sets (or replaces) a variable.
    pub fn set(&mut self, name: impl Into<String>, value: Value) {
        self.map.insert(name.into(), value);
    }

    /// The raw value of a variable, if set.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.map.get(name)
    }

    /// Resolves a reference (the text inside `${…}`): `env.NAME` reads the run's
    /// environment; otherwise the longest dotted prefix that is a variable, then a walk
    /// through object members and array indexes.
    pub fn resolve(&self, reference: &str) -> Result<Value, String> {
        let reference = reference.trim();
        if let Some(name) = reference.strip_prefix("env.") {
            return self
                .env
                .get(name)
                .map(|v| Value::String(v.to_string()))
                .ok_or_else(|| format!("environment variable not found: {name}"));
        }
        if let Some(v) = self.map.get(reference) {
            return Ok(v.clone());
        }
        let parts: Vec<&str> = reference.split('.').collect();
        for cut in (1..parts.len()).rev() {
            let head = parts[..cut].join(".");
            if let Some(root) = self.map.get(&head) {
                let mut cur = root;
                for seg in &parts[cut..] {
                    match step_into(cur, seg) {
                        Some(next) => cur = next,
                        None => return Err(format!("variable not found: {reference}")),
                    }
                }
                return Ok(cur.clone());
            }
        }
        Err(format!("variable not found: {reference}"))
    }

    /// Interpolates every string leaf of a template (never keys). A string that is exactly
    /// one `${…}` keeps the referenced value's JSON type; other strings become text.
    pub fn interpolate(&self, template: &Value) -> Result<Value, String> {
        match template {
            Value::String(s) => self.interpolate_str(s),
            Value::Array(items) => items
                .iter()
                .map(|v| self.interpolate(v))
                .collect::<Result<Vec<_>, _>>()
                .map(Value::Array),
            Value::Object(obj) => {
                let mut out = Map::new();
                for (k, v) in obj {
                    out.insert(k.clone(), self.interpolate(v)?);
                }
                Ok(Value::Object(out))
            }
            other => Ok(other.clone()),
        }
    }

    /// Interpolates one string template.
    pub fn interpolate_str(&self, s: &str) -> Result<Value, String> {
        if let Some(reference) = exact_placeholder(s) {
            let mut value = self.resolve(reference)?;
            let mut seen = vec![reference.to_string()];
            for _ in 0..MAX_CHAIN {
                let Some(next) = value.as_str().and_then(exact_placeholder) else {
                    break;
                };
                if seen.iter().any(|r| r == next) {
                    break;
                }
                seen.push(next.to_string());
                value = self.resolve(next)?;
            }
            // A variable holding a template with embedded placeholders is resolved as text.
            if let Value::String(text) = &value
                && text.contains("${")
                && exact_placeholder(text).is_none()
            {
                return self.interpolate_text(text).map(Value::String);
            }
            return Ok(value);
        }
        if !s.contains("${") {
            return Ok(Value::String(s.to_string()));
        }
        self.interpolate_text(s).map(Value::String)
    }

    /// Interpolates `${…}` occurrences as text.
    pub fn interpolate_text(&self, s: &str) -> Result<String, String> {
        let mut out = String::with_capacity(s.len());
        let mut rest = s;
        while let Some(start) = rest.find("${") {
            let after = &rest[start + 2..];
            let Some(end) = after.find('}') else {
                break;
            };
            if end == 0 {
                out.push_str(&rest[..start + 3]);
                rest = &after[1..];
                continue;
            }
            out.push_str(&rest[..start]);
            let value = self.resolve(&after[..end])?;
            out.push_str(&as_text(&value));
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }
}

/// Whether anything in `value` as JSON holds `${`, i.e. whether interpolation could change
/// it; looked for while serialising, without building the text.
pub fn mentions_template(value: &impl serde::Serialize) -> bool {
    struct Scan {
        last: u8,
        found: bool,
    }
    impl std::io::Write for Scan {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            for &b in buf {
                if self.last == b'$' && b == b'{' {
                    self.found = true;
                }
                self.last = b;
            }
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut scan = Scan {
        last: 0,
        found: false,
    };
    // A value that cannot be serialised goes the long way, which reports it.
    serde_json::to_writer(&mut scan, value).is_err() || scan.found
}

/// The reference inside a string that is exactly one `${…}` placeholder.
pub fn exact_placeholder(s: &str) -> Option<&str> {
    let inner = s.strip_prefix("${")?.strip_suffix('}')?;
    (!inner.is_empty() && !inner.contains('}') && !inner.contains("${")).then_some(inner)
}

/// A value as text inside a longer string: strings as they are, everything else as JSON.
pub fn as_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn step_into<'a>(cur: &'a Value, seg: &str) -> Option<&'a Value> {
    match cur {
        Value::Object(o) => o.get(seg),
        Value::Array(a) => seg.parse::<usize>().ok().and_then(|i| a.get(i)),
        _ => None,
    }
}

/// One segment of a result path.
#[derive(Debug, Clone, PartialEq)]
enum Seg {
    Key(String),
    Index(usize),
}

fn parse_path(path: &str) -> Result<Vec<Seg>, String> {
    let path = path.trim();
    let Some(mut rest) = path.strip_prefix('$') else {
        return Err(format!("result path {path:?} does not start with `$`"));
    };
    let mut segs = Vec::new();
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            if end == 0 {
                return Err(format!("result path {path:?} has an empty member name"));
            }
            segs.push(Seg::Key(r[..end].to_string()));
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix('[') {
            let Some(end) = r.find(']') else {
                return Err(format!("result path {path:?} has an unclosed `[`"));
            };
            let inner = r[..end].trim();
            if let Ok(i) = inner.parse::<usize>() {
                segs.push(Seg::Index(i));
            } else if inner.len() >= 2
                && ((inner.starts_with('"') && inner.ends_with('"'))
                    || (inner.starts_with('\'') && inner.ends_with('\'')))
            {
                segs.push(Seg::Key(inner[1..inner.len() - 1].to_string()));
            } else {
                return Err(format!(
                    "result path {path:?}: `[{inner}]` is neither an index nor a quoted key"
                ));
            }
            rest = &r[end + 1..];
        } else {
            return Err(format!(
                "result path {path:?}: expected `.` or `[` before {rest:?}"
            ));
        }
    }
    Ok(segs)
}

/// The value at a result path (`$`, `$.a.b`, `$.items[0].name`, `$[0]`, `$["a.b"]`);
/// `Ok(None)` when it is absent. A numeric member name also indexes an array.
pub fn lookup<'a>(root: &'a Value, path: &str) -> Result<Option<&'a Value>, String> {
    let segs = parse_path(path)?;
    let mut cur = root;
    for seg in &segs {
        let next = match (seg, cur) {
            (Seg::Key(k), Value::Object(o)) => o.get(k),
            (Seg::Key(k), Value::Array(a)) => k.parse::<usize>().ok().and_then(|i| a.get(i)),
            (Seg::Index(i), Value::Array(a)) => a.get(*i),
            (Seg::Index(i), Value::Object(o)) => o.get(&i.to_string()),
            _ => None,
        };
        match next {
            Some(n) => cur = n,
            None => return Ok(None),
        }
    }
    Ok(Some(cur))
}

/// Removes the value at a result path (array elements are spliced out); `Ok(false)` when
/// nothing was there.
pub fn remove(root: &mut Value, path: &str) -> Result<bool, String> {
    let segs = parse_path(path)?;
    let Some((last, parents)) = segs.split_last() else {
        return Ok(false);
    };
    let mut cur = root;
    for seg in parents {
        let next = match (seg, cur) {
            (Seg::Key(k), Value::Object(o)) => o.get_mut(k),
            (Seg::Key(k), Value::Array(a)) => k.parse::<usize>().ok().and_then(|i| a.get_mut(i)),
            (Seg::Index(i), Value::Array(a)) => a.get_mut(*i),
            (Seg::Index(i), Value::Object(o)) => o.get_mut(&i.to_string()),
            _ => None,
        };
        match next {
            Some(n) => cur = n,
            None => return Ok(false),
        }
    }
    Ok(match (last, cur) {
        (Seg::Key(k), Value::Object(o)) => o.shift_remove(k).is_some(),
        (Seg::Index(i), Value::Array(a)) if *i < a.len() => {
            a.remove(*i);
            true
        }
        (Seg::Key(k), Value::Array(a)) => match k.parse::<usize>() {
            Ok(i) if i < a.len() => {
                a.remove(i);
                true
            }
            _ => false,
        },
        _ => false,
    })
}

/// Runs a built-in function of `Set … using` (§3.8) on interpolated arguments.
pub fn builtin(function: &str, args: &Map<String, Value>) -> Result<Value, String> {
    let arg = |k: &str| args.get(k).cloned().unwrap_or(Value::Null);
    let text = |k: &str| -> String {
        match args.get(k) {
            None => String::new(),
            Some(v) => as_text(v),
        }
    };
    Ok(match function {
        "lowercase" => Value::String(text("value").to_lowercase()),
        "uppercase" => Value::String(text("value").to_uppercase()),
        "trim" => Value::String(text("value").trim().to_string()),
        "join" => match arg("values") {
            Value::Array(items) => Value::String(
                items
                    .iter()
                    .map(|v| {
                        if v.is_null() {
                            String::new()
                        } else {
                            as_text(v)
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(&text("separator")),
            ),
            _ => Value::String(String::new()),
        },
        "replace" => {
            let find = text("find");
            let value = text("value");
            if find.is_empty() {
                Value::String(value)
            } else {
                Value::String(value.replace(&find, &text("replacement")))
            }
        }
        "length" => Value::from(match arg("value") {
            Value::String(s) => s.encode_utf16().count(),
            Value::Array(a) => a.len(),
            Value::Object(o) => o.len(),
            _ => 0,
        }),
        "number" => {
            let n = match arg("value") {
                Value::Number(n) => n.as_f64(),
                Value::Bool(b) => Some(if b { 1.0 } else { 0.0 }),
                Value::Null => Some(0.0),
                Value::String(s) if s.trim().is_empty() => Some(0.0),
                Value::String(s) => s.trim().parse::<f64>().ok(),
                _ => None,
            };
            match n {
                Some(f) if f.is_finite() => number(f),
                _ => return Err(format!("number: {} is not a number", arg("value"))),
            }
        }
        "text" => Value::String(as_text(&arg("value"))),
        "json" => match arg("value") {
            Value::String(s) => serde_json::from_str(&s)
                .map_err(|e| format!("json: the value is not JSON text: {e}"))?,
            other => other,
        },
        "round" => {
            let value = match arg("value") {
                Value::Number(n) => n.as_f64(),
                Value::String(s) => s.trim().parse::<f64>().ok(),
                _ => None,
            }
            .ok_or_else(|| format!("round: {} is not a number", arg("value")))?;
            let digits = match args.get("digits") {
                None | Some(Value::Null) => 0,
                Some(d) => d
                    .as_i64()
                    .or_else(|| d.as_str().and_then(|s| s.trim().parse().ok()))
                    .ok_or_else(|| format!("round: digits {d} is not an integer"))?,
            };
            let factor = 10f64.powi(digits.clamp(-15, 15) as i32);
            number((value * factor + 0.5).floor() / factor)
        }
        "urlEncode" => Value::String(url_encode(&text("value"))),
        "base64" => Value::String(base64::engine::general_purpose::STANDARD.encode(text("value"))),
        "hash" => {
            let value = text("value");
            let algorithm = match args.get("algorithm") {
                None | Some(Value::Null) => "sha256".to_string(),
                Some(v) => as_text(v).to_lowercase(),
            };
            let digest: Vec<u8> = match algorithm.as_str() {
                "sha256" => sha2::Sha256::digest(value.as_bytes()).to_vec(),
                "sha224" => sha2::Sha224::digest(value.as_bytes()).to_vec(),
                "sha384" => sha2::Sha384::digest(value.as_bytes()).to_vec(),
                "sha512" => sha2::Sha512::digest(value.as_bytes()).to_vec(),
                other => {
                    return Err(format!(
                        "hash: unsupported algorithm {other:?} (sha224, sha256, sha384, sha512)"
                    ));
                }
            };
            Value::String(digest.iter().map(|b| format!("{b:02x}")).collect())
        }
        other => return Err(format!("unknown function {other:?}")),
    })
}

/// A number as JSON: an integer when it has no fraction.
fn number(f: f64) -> Value {
    if f.fract() == 0.0 && f.abs() < 9.0e15 {
        Value::from(f as i64)
    } else {
        serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)
    }
}

/// What JavaScript's `encodeURIComponent` leaves as it is: `A-Z a-z 0-9 - _ . ! ~ * ' ( )`.
const URI_COMPONENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'!')
    .remove(b'~')
    .remove(b'*')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')');

/// `encodeURIComponent`: every other byte of the UTF-8 text percent-encoded (the
/// `urlEncode` function, and the URL-encoded form of a secret that redaction masks).
pub fn url_encode(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, URI_COMPONENT).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn vars() -> Vars {
        let mut v = Vars::new();
        v.set("n", json!(2));
        v.set("obj", json!({"a": {"b": [10, 20]}}));
        v.set("flow0.a", json!("x"));
        v.set("chain", json!("${n}"));
        v
    }

    /// The fast path of interpolation: only what holds `${` may change, and what does not is
    /// left as it is (interpolating it gives the same value).
    #[test]
    fn templates_are_found_wherever_they_are() {
        for v in [
            json!("${x}"),
            json!({"a": {"b": ["1", "n=${n}"]}}),
            json!({"${k}": 1}),
            json!(["$", "${"]),
        ] {
            assert!(mentions_template(&v), "{v}");
        }
        let vars = Vars::new();
        for v in [
            json!({"a": "$ {x}", "b": "{$}", "c": ["a$", "{b"], "d": 1.5, "e": null}),
            json!("cost: $5 {approx}"),
            json!([]),
        ] {
            assert!(!mentions_template(&v), "{v}");
            assert_eq!(vars.interpolate(&v).unwrap(), v);
        }
    }

    #[test]
    fn exact_keeps_type_and_embedded_is_text() {
        let v = vars();
        assert_eq!(v.interpolate(&json!("${n}")).unwrap(), json!(2));
        assert_eq!(v.interpolate(&json!("n=${n}")).unwrap(), json!("n=2"));
        assert_eq!(v.interpolate(&json!("${obj.a.b.1}")).unwrap(), json!(20));
        assert_eq!(v.interpolate(&json!("${flow0.a}")).unwrap(), json!("x"));
        assert_eq!(v.interpolate(&json!("${chain}")).unwrap(), json!(2));
        assert_eq!(
            v.interpolate(&json!({"k": ["${n}", "${obj.a}"]})).unwrap(),
            json!({"k": [2, {"b": [10, 20]}]})
        );
        assert!(v.interpolate(&json!("${missing}")).is_err());
        assert!(v.interpolate(&json!("${obj.zz}")).is_err());
    }

    #[test]
    fn paths() {
        let r = json!({"content": [{"text": "hi"}], "a.b": 1, "n": null});
        assert_eq!(lookup(&r, "$.content[0].text").unwrap(), Some(&json!("hi")));
        assert_eq!(lookup(&r, "$.content.0.text").unwrap(), Some(&json!("hi")));
        assert_eq!(lookup(&r, "$[\"a.b\"]").unwrap(), Some(&json!(1)));
        assert_eq!(lookup(&r, "$.n").unwrap(), Some(&Value::Null));
        assert_eq!(lookup(&r, "$.nope").unwrap(), None);
        assert_eq!(lookup(&json!([5]), "$[0]").unwrap(), Some(&json!(5)));
        assert!(lookup(&r, "content").is_err());
    }

    #[test]
    fn builtins() {
        let a = |v: Value| v.as_object().cloned().unwrap();
        assert_eq!(
            builtin("uppercase", &a(json!({"value": "ab"}))).unwrap(),
            json!("AB")
        );
        assert_eq!(
            builtin("join", &a(json!({"values": [1, "b"], "separator": "-"}))).unwrap(),
            json!("1-b")
        );
        assert_eq!(
            builtin(
                "replace",
                &a(json!({"value": "a.a", "find": ".", "replacement": "/"}))
            )
            .unwrap(),
            json!("a/a")
        );
        assert_eq!(
            builtin("length", &a(json!({"value": {"x": 1}}))).unwrap(),
            json!(1)
        );
        assert_eq!(
            builtin("number", &a(json!({"value": " 4.5"}))).unwrap(),
            json!(4.5)
        );
        assert!(builtin("number", &a(json!({"value": "x"}))).is_err());
        assert_eq!(
            builtin("round", &a(json!({"value": 2.345, "digits": 2}))).unwrap(),
            json!(2.35)
        );
        assert_eq!(
            builtin("urlEncode", &a(json!({"value": "a b/é"}))).unwrap(),
            json!("a%20b%2F%C3%A9")
        );
        assert_eq!(
            builtin("base64", &a(json!({"value": "hi"}))).unwrap(),
            json!("aGk=")
        );
        assert_eq!(
            builtin("hash", &a(json!({"value": "abc"}))).unwrap(),
            json!("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        );
        assert_eq!(
            builtin("json", &a(json!({"value": "[1]"}))).unwrap(),
            json!([1])
        );
        assert_eq!(
            builtin("text", &a(json!({"value": [1]}))).unwrap(),
            json!("[1]")
        );
        assert!(builtin("nope", &Map::new()).is_err());
    }
}
