//! Expectations: `Expect …` lines from a step's `assert`.

use super::*;

pub(super) fn expectations(a: &Assert) -> Option<Vec<String>> {
    // Named member by member, so a new one must be handled here.
    let Assert {
        status: _,
        error: _,
        max_duration_ms: _,
        json: _,
        // A position, not a setting: nothing to print.
        source: _,
    } = a;
    if let Some(ErrorExpectation {
        code: _,
        message: _,
        matches: _,
    }) = &a.error
    {}
    let mut lines = Vec::new();
    match (a.status, &a.error) {
        (None, None) => {}
        (Some(Status::Success), None) => lines.push("Expect it succeeds".to_string()),
        (Some(Status::Error), None) => lines.push("Expect an error".to_string()),
        (Some(Status::Error), Some(e)) => {
            if e.code.is_none() && e.message.is_none() && e.matches.is_none() {
                return None;
            }
            if let Some(code) = e.code {
                lines.push(format!("Expect error code {code}"));
            }
            if let Some(m) = &e.message {
                lines.push(format!("Expect error message equals {}", rest_text(m)?));
            }
            if let Some(re) = &e.matches {
                match literal_of(re) {
                    Some(text) => lines.push(format!(
                        "Expect error message contains {}",
                        rest_text(&text)?
                    )),
                    None => lines.push(format!("Expect error message matches {}", rest_text(re)?)),
                }
            }
        }
        _ => return None,
    }
    if let Some(ms) = a.max_duration_ms {
        lines.push(format!(
            "Expect the call to finish within {}",
            duration(ms)?
        ));
    }
    match &a.json {
        None => {}
        Some(JsonAssertions::List(list)) if !list.is_empty() => {
            for x in list {
                lines.extend(assertion(x)?);
            }
        }
        _ => return None,
    }
    if lines.is_empty() {
        return None;
    }
    Some(lines)
}

/// A numeric bound as `is greater than …` reads it back: a number, or one `${…}` reference.
fn bound_text(v: &Value) -> Option<String> {
    match v {
        Value::Number(_) => typed_text(v),
        Value::String(s)
            if s.starts_with("${") && s.ends_with('}') && values::refs(s).count() == 1 =>
        {
            typed_text(v)
        }
        _ => None,
    }
}

/// The text `contains T` was lowered from, when `re` is exactly `regex_escape(T)`.
pub(super) fn literal_of(re: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = re.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            let next = chars.next()?;
            if !"\\^$.|?*+()[]{}".contains(next) {
                return None;
            }
            out.push(next);
        } else if "\\^$.|?*+()[]{}".contains(c) {
            return None;
        } else {
            out.push(c);
        }
    }
    (values::regex_escape(&out) == re).then_some(out)
}

/// One assertion object as one `Expect` line (and its schema block), when it holds a path and
/// exactly one check.
pub(super) fn assertion(x: &Assertion) -> Option<Vec<String>> {
    let path = path_text(x.path.as_deref()?)?;
    let mut only = x.clone();
    only.path = None;
    // Where the assertion was written is not printed: the printed line is its place.
    only.source = None;
    let one = |f: &dyn Fn(&mut Assertion)| {
        let mut probe = only.clone();
        f(&mut probe);
        probe == Assertion::default()
    };
    let tail = if let Some(v) = &x.equals {
        if !one(&|p| p.equals = None) {
            return None;
        }
        format!("equals {}", typed_text(v)?)
    } else if let Some(v) = &x.not_equals {
        if !one(&|p| p.not_equals = None) {
            return None;
        }
        format!("does not equal {}", typed_text(v)?)
    } else if let Some(v) = &x.contains {
        if !one(&|p| p.contains = None) {
            return None;
        }
        format!("contains {}", typed_text(v)?)
    } else if let Some(v) = &x.not_contains {
        if !one(&|p| p.not_contains = None) {
            return None;
        }
        format!("does not contain {}", typed_text(v)?)
    } else if x.exists == Some(true) && one(&|p| p.exists = None) {
        "exists".into()
    } else if x.exists == Some(false) && one(&|p| p.exists = None) {
        "does not exist".into()
    } else if let Some(k) = x.kind {
        if !one(&|p| p.kind = None) {
            return None;
        }
        match k {
            JsonType::Array => "is an array",
            JsonType::Null => "is a null",
            JsonType::Object => "is an object",
            JsonType::String => "is a string",
            JsonType::Number => "is a number",
            JsonType::Boolean => "is a boolean",
        }
        .into()
    } else if let Some(n) = x.length {
        if !one(&|p| p.length = None) || i64::try_from(n).is_err() {
            return None;
        }
        format!("has {n} {}", if n == 1 { "item" } else { "items" })
    } else if let (Some(low), Some(high)) = (&x.at_least, &x.at_most) {
        if !one(&|p| {
            p.at_least = None;
            p.at_most = None;
        }) || low.as_f64().zip(high.as_f64()).is_some_and(|(l, h)| l > h)
        {
            return None;
        }
        format!("is between {} and {}", bound_text(low)?, bound_text(high)?)
    } else if let Some((words, v)) = [
        ("is greater than", &x.greater_than),
        ("is less than", &x.less_than),
        ("is at least", &x.at_least),
        ("is at most", &x.at_most),
    ]
    .into_iter()
    .find_map(|(words, v)| Some((words, v.as_ref()?)))
    {
        let mut probe = only.clone();
        probe.greater_than = None;
        probe.less_than = None;
        probe.at_least = None;
        probe.at_most = None;
        if probe != Assertion::default()
            || [&x.greater_than, &x.less_than, &x.at_least, &x.at_most]
                .iter()
                .filter(|b| b.is_some())
                .count()
                != 1
        {
            return None;
        }
        format!("{words} {}", bound_text(v)?)
    } else if x.min_length == Some(1) && one(&|p| p.min_length = None) {
        "is not empty".into()
    } else if let Some(re) = &x.matches {
        if !one(&|p| p.matches = None) {
            return None;
        }
        format!("matches {}", rest_text(re)?)
    } else if let Some(schema) = &x.schema {
        if !one(&|p| p.schema = None) || schema.is_empty() {
            return None;
        }
        let mut out = String::new();
        emit::mapping(&mut out, schema, 2);
        let mut lines = vec![format!("Expect {path} matches schema:")];
        lines.extend(out.lines().map(str::to_string));
        return Some(lines);
    } else if let Some(snap) = &x.snapshot {
        if !one(&|p| p.snapshot = None) {
            return None;
        }
        let ignoring = match &snap.ignore {
            None => String::new(),
            Some(list) if list.is_empty() => return None,
            Some(list) => {
                let mut seen = Vec::new();
                for p in list {
                    if seen.contains(&p) {
                        return None;
                    }
                    seen.push(p);
                }
                let items: Option<Vec<String>> = list.iter().map(|p| path_text(p)).collect();
                format!(" ignoring {}", items?.join(", "))
            }
        };
        format!("matches snapshot {}{ignoring}", qname(&snap.name)?)
    } else {
        return None;
    };
    Some(vec![format!("Expect {path} {tail}")])
}
