//! Values, result paths and `${…}` references as the compiler sees them: a leaf the parser
//! (`syntax`), the pattern check (`regexp`), the lowering and the printer all read.
//!
//! Values stay templates in the IR: a string that is exactly one reference keeps the
//! referenced value's JSON type at run time, any other string interpolates to text. The
//! compiler never resolves a reference; it only reads them (to check names) and renames them
//! (to give flow inputs their call's prefix).

use serde_json::Value;

/// Types the rest of a line the way the language types values after `equals`, `contains`
/// and `is`: YAML 1.2 core when it parses, the raw text otherwise.
pub fn typed(text: &str) -> Value {
    simple_scalar(text.trim()).unwrap_or_else(|| crate::yaml::scalar_or_text(text))
}

/// The YAML 1.2 core value of the common one-line forms, decided without the YAML parser:
/// quoted text without escapes, `null`, booleans, decimal integers, and plain text that
/// starts with a letter and holds no YAML indicator. Anything else returns `None`.
fn simple_scalar(t: &str) -> Option<Value> {
    let b = t.as_bytes();
    let first = *b.first()?;
    if first == b'"' {
        let inner = t.strip_prefix('"')?.strip_suffix('"')?;
        return (!inner.contains(['"', '\\'])).then(|| Value::String(inner.to_string()));
    }
    if first == b'\'' {
        let inner = t.strip_prefix('\'')?.strip_suffix('\'')?;
        return (!inner.contains('\'')).then(|| Value::String(inner.to_string()));
    }
    match t {
        "~" | "null" | "Null" | "NULL" => return Some(Value::Null),
        "true" | "True" | "TRUE" => return Some(Value::Bool(true)),
        "false" | "False" | "FALSE" => return Some(Value::Bool(false)),
        _ => {}
    }
    let digits = t.strip_prefix('-').unwrap_or(t);
    if !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit()) {
        if digits == "0" || !digits.starts_with('0') {
            return t.parse::<i64>().ok().map(Value::from);
        }
        return None;
    }
    let plain = first.is_ascii_alphabetic()
        && !t
            .bytes()
            .any(|c| b":#{}[],&*!|>'\"%@`\t\r\n".contains(&c) || c >= 0x80);
    plain.then(|| Value::String(t.to_string()))
}

/// Turns an author's result path into the IR form (§4.3): a leading `result` or `error`
/// word is dropped, a leading `.` removed, empty or `$` is the root, `$.` and `$[` paths
/// are kept, `[…` gets `$` in front and anything else `$.`.
pub fn normalise_path(text: &str) -> String {
    let mut t = text.trim();
    for word in ["result", "error"] {
        if let Some(rest) = t.strip_prefix(word)
            && (rest.is_empty() || rest.starts_with('.') || rest.starts_with('['))
        {
            t = rest;
            break;
        }
    }
    let t = t.strip_prefix('.').unwrap_or(t);
    if t.is_empty() || t == "$" {
        "$".to_string()
    } else if t.starts_with("$.") || t.starts_with("$[") {
        t.to_string()
    } else {
        let lead = if t.starts_with('[') { "$" } else { "$." };
        let mut out = String::with_capacity(lead.len() + t.len());
        out.push_str(lead);
        out.push_str(t);
        out
    }
}

/// Checks a normalised path: `$` followed by `.name` and `[index]` segments. Returns why
/// it cannot be evaluated otherwise.
pub fn check_path(path: &str) -> Result<(), String> {
    let Some(mut rest) = path.strip_prefix('$') else {
        return Err("a result path starts at the result".into());
    };
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            // One pass to the end of the member name, noting a stray `]` on the way.
            let mut stray = false;
            let end = r
                .bytes()
                .position(|b| {
                    stray |= b == b']';
                    b == b'.' || b == b'['
                })
                .unwrap_or(r.len());
            let name = &r[..end];
            if name.is_empty() {
                return Err(
                    "it has an empty member name (two dots in a row, or a dot at the end)".into(),
                );
            }
            if stray {
                return Err(format!("`]` in `{name}` closes no `[`"));
            }
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix('[') {
            let Some(close) = crate::bytes::find_byte(r.as_bytes(), b']') else {
                return Err("a `[` is never closed".into());
            };
            let index = &r[..close];
            if index.is_empty() || !index.bytes().all(|b| b.is_ascii_digit()) {
                return Err(format!(
                    "`[{index}]` is not a list index; indexes are whole numbers from 0, such as `[0]`"
                ));
            }
            rest = &r[close + 1..];
            if !(rest.is_empty() || rest.starts_with('.') || rest.starts_with('[')) {
                return Err("a `.` must follow `]` before the next member name".into());
            }
        } else {
            return Err("members are separated by `.`".into());
        }
    }
    Ok(())
}

/// The inside of every `${…}` in a string, with its byte offset in the string.
pub fn refs(s: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut from = 0;
    std::iter::from_fn(move || {
        loop {
            let at = find_open(s, from)?;
            // A reference never spans lines (an unclosed one is MCPLANG105): one pass finds
            // the `}` or the end of the line, whichever comes first.
            let rest = &s.as_bytes()[at + 2..];
            let stop = rest.iter().position(|&b| b == b'}' || b == b'\n')?;
            if rest[stop] == b'}' {
                from = at + 2 + stop + 1;
                return Some((at, &s[at + 2..at + 2 + stop]));
            }
            from = at + 2;
        }
    })
}

/// Byte offset of the first `${` at or after `from`. A byte search for `$` (memchr) then a
/// look at the next byte: much cheaper than a substring search, which sets up a two-way
/// searcher on every call, on the short strings templates are.
pub fn find_open(s: &str, from: usize) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut i = from;
    while i < bytes.len() {
        let at = crate::bytes::find_from(s, i, b'$')?;
        if bytes.get(at + 1) == Some(&b'{') {
            return Some(at);
        }
        i = at + 1;
    }
    None
}

/// Whether a string holds a `${` (a template with at least one reference, or an unclosed one).
pub fn has_open(s: &str) -> bool {
    find_open(s, 0).is_some()
}

/// The first segment of a reference (`row` for `row.email`).
pub fn head(reference: &str) -> &str {
    reference.split('.').next().unwrap_or(reference)
}

/// Whether a reference into one of the namespaces (`env`, `row`, `deps`, `state`) lacks a
/// name: an empty segment (`${state.}`, `${deps..x}`), or `env` alone (the others alone
/// are the whole row, outputs or state).
pub fn incomplete_namespace_ref(reference: &str) -> bool {
    let reference = reference.trim();
    let head = head(reference);
    ["env", "row", "deps", "state"].contains(&head)
        && (reference == "env" || reference.split('.').any(str::is_empty))
}

/// Whether `reference` reads the variable `name`: it is the name, or the name followed by a
/// member (`.x`) or index (`[0]`). Variable names may hold dots (`flow0.a`).
pub fn names(reference: &str, name: &str) -> bool {
    reference
        .strip_prefix(name)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
}

/// Every name `reference` reads in the sense of [`names`]: each of its prefixes followed by
/// a member, an index or nothing (`a`, `a.b`, `a.b[0]` of `a.b[0]`), so that the names read
/// by many references can be looked up rather than compared with each.
pub fn named(reference: &str) -> impl Iterator<Item = &str> {
    reference
        .match_indices(['.', '['])
        .map(|(at, _)| &reference[..at])
        .chain(std::iter::once(reference))
}

/// Calls `f` with every reference found in the strings of a value (keys excluded).
pub fn each_ref<'v>(value: &'v Value, f: &mut dyn FnMut(&'v str)) {
    match value {
        Value::String(s) => refs(s).for_each(|(_, r)| f(r)),
        Value::Array(items) => items.iter().for_each(|v| each_ref(v, f)),
        Value::Object(map) => map.values().for_each(|v| each_ref(v, f)),
        _ => {}
    }
}

/// Rewrites every reference in a string with `f`, which writes the new inside to the
/// output and returns `true`, or writes nothing and returns `false` to keep the reference.
pub fn rename_in_str(s: &str, f: &dyn Fn(&str, &mut String) -> bool) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let mut last = 0;
    for (at, inner) in refs(s) {
        out.push_str(&s[last..at]);
        out.push_str("${");
        if !f(inner, &mut out) {
            out.push_str(inner);
        }
        out.push('}');
        last = at + 2 + inner.len() + 1;
    }
    out.push_str(&s[last..]);
    out
}

/// Rewrites every reference in the strings of a value (keys are never templates).
pub fn rename(value: &mut Value, f: &dyn Fn(&str, &mut String) -> bool) {
    match value {
        Value::String(s) if has_open(s) => *s = rename_in_str(s, f),
        Value::Array(items) => items.iter_mut().for_each(|v| rename(v, f)),
        Value::Object(map) => map.values_mut().for_each(|v| rename(v, f)),
        _ => {}
    }
}

/// Escapes a text so that a regular expression matches it literally.
pub fn regex_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 4);
    for c in text.chars() {
        if "\\^$.|?*+()[]{}".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_normalise_as_the_language_says() {
        for (from, to) in [
            ("structuredContent.total", "$.structuredContent.total"),
            ("content[0].text", "$.content[0].text"),
            ("$", "$"),
            ("", "$"),
            ("$.x", "$.x"),
            ("result.x", "$.x"),
            ("result", "$"),
            ("error.message", "$.message"),
            ("resultCount", "$.resultCount"),
            (".items", "$.items"),
            ("[0]", "$[0]"),
            ("$[0].a", "$[0].a"),
        ] {
            assert_eq!(normalise_path(from), to, "{from}");
        }
    }

    #[test]
    fn paths_are_checked() {
        for ok in ["$", "$.a", "$.a[0].b", "$[1][2]", "$.my key"] {
            assert!(check_path(ok).is_ok(), "{ok}");
        }
        for bad in [
            "$.a..b", "$.a.", "$.a[x]", "$.a[0", "$.a[-1]", "$.a[0]b", "$.a]",
        ] {
            assert!(check_path(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn namespace_references_need_a_name() {
        for r in [
            "env",
            "env.",
            "state.",
            "state.a.",
            "deps..x",
            "row.",
            " state.a..b ",
        ] {
            assert!(incomplete_namespace_ref(r), "{r}");
        }
        for r in [
            "env.HOME",
            "row",
            "deps",
            "state",
            "state.a.b",
            "row.email",
            "x..y",
            "flow0.a",
        ] {
            assert!(!incomplete_namespace_ref(r), "{r}");
        }
    }

    #[test]
    fn references_are_found_and_renamed() {
        let found: Vec<_> = refs("a ${x} b ${row.y}").map(|(_, r)| r).collect();
        assert_eq!(found, ["x", "row.y"]);
        let found: Vec<_> = refs("a ${open\nb ${y}").map(|(_, r)| r).collect();
        assert_eq!(found, ["y"]);
        let found: Vec<_> = refs("${a\n}${b} ${} ${c").collect();
        assert_eq!(found, [(5, "b"), (10, "")]);
        let mut v = json!({"a": "${x}", "b": ["${env.HOME}/${x.y}"], "${x}": 1});
        rename(&mut v, &|r, out| {
            let hit = head(r) == "x";
            if hit {
                out.push_str("flow0.");
                out.push_str(r);
            }
            hit
        });
        assert_eq!(
            v,
            json!({"a": "${flow0.x}", "b": ["${env.HOME}/${flow0.x.y}"], "${x}": 1})
        );
    }

    #[test]
    fn simple_scalars_match_the_yaml_parser() {
        for text in [
            "2",
            "-7",
            "0",
            "007",
            "\"2\"",
            "'x y'",
            "true",
            "False",
            "NULL",
            "~",
            "yes",
            "plain words here",
            "a-b_c.d",
            "Customer 1",
            "\"${row.input}\"",
            "4.5",
            "1e3",
            "0x1F",
            ".inf",
            "[1, 2]",
            "{a: 1}",
            "a: b",
            "x # c",
            "\"a\\\"b\"",
            "'it''s'",
            "\"complete\"",
            "-",
            "",
        ] {
            let full = crate::yaml::scalar_or_text(text);
            if let Some(fast) = simple_scalar(text) {
                assert_eq!(fast, full, "{text}");
            }
            assert_eq!(typed(text), full, "{text}");
        }
    }

    #[test]
    fn regexes_escape_their_metacharacters() {
        assert_eq!(regex_escape("a.b (c)"), r"a\.b \(c\)");
    }
}
#[cfg(test)]
mod fast_path {
    #[test]
    fn common_values_skip_the_yaml_parser() {
        for t in ["\"Customer 1\"", "\"${expected}\"", "2", "gold", "true"] {
            assert!(super::simple_scalar(t).is_some(), "{t}");
        }
    }
}
