//! Expected against actual as a line diff, for the reports that show one (the HTML report,
//! the GitHub job summary): pretty JSON when the failure carries values, else its texts.

use serde::Serialize;
use serde_json::Value;

use crate::exec::Failure;
use mcpr_compiler::style;

/// One line of a diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiffLine {
    /// `=` in both, `-` expected only, `+` actual only.
    pub tag: char,
    /// The line, without its newline.
    pub text: String,
}

/// The diff of a failure's expected and actual, when it has both.
pub fn failure_diff(f: &Failure) -> Option<Vec<DiffLine>> {
    let (expected, actual) = match (&f.expected_value, &f.actual_value) {
        (Some(e), Some(a)) => (pretty(e), pretty(a)),
        _ => (f.expected.clone()?, f.actual.clone()?),
    };
    Some(lines(&expected, &actual))
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string())
}

/// The line diff of two texts.
pub fn lines(expected: &str, actual: &str) -> Vec<DiffLine> {
    let diff = similar::TextDiff::from_lines(expected, actual);
    diff.iter_all_changes()
        .map(|c| DiffLine {
            tag: match c.tag() {
                similar::ChangeTag::Equal => '=',
                similar::ChangeTag::Delete => '-',
                similar::ChangeTag::Insert => '+',
            },
            text: c.value().trim_end_matches(['\n', '\r']).to_string(),
        })
        .collect()
}

/// A diff in the unified style, `-`/`+`/` ` before each line.
pub fn unified(lines: &[DiffLine]) -> String {
    lines
        .iter()
        .map(|l| {
            let mark = if l.tag == '=' { ' ' } else { l.tag };
            format!("{mark} {}\n", l.text)
        })
        .collect()
}

/// One difference between an expected and an actual JSON value.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// Both have the path, with different values.
    Changed(String, Value, Value),
    /// Only the expected value has the path.
    Missing(String, Value),
    /// Only the actual value has the path.
    Extra(String, Value),
}

/// The paths where two JSON values differ, in document order: objects key by key, arrays
/// index by index; scalars, and values of different kinds, differ as a whole.
pub fn structural(expected: &Value, actual: &Value) -> Vec<Change> {
    enum Work<'v> {
        Compare(String, &'v Value, &'v Value),
        Found(Change),
    }
    let mut out = Vec::new();
    // An explicit stack: a deep value never deepens the call stack.
    let mut stack = vec![Work::Compare("$".into(), expected, actual)];
    while let Some(work) = stack.pop() {
        let (path, e, a) = match work {
            Work::Found(c) => {
                out.push(c);
                continue;
            }
            Work::Compare(path, e, a) => (path, e, a),
        };
        let mut next = Vec::new();
        match (e, a) {
            (Value::Object(eo), Value::Object(ao)) => {
                for (k, ev) in eo {
                    let p = format!("{path}{}", key_step(k));
                    next.push(match ao.get(k) {
                        Some(av) => Work::Compare(p, ev, av),
                        None => Work::Found(Change::Missing(p, ev.clone())),
                    });
                }
                for (k, av) in ao.iter().filter(|(k, _)| !eo.contains_key(*k)) {
                    let p = format!("{path}{}", key_step(k));
                    next.push(Work::Found(Change::Extra(p, av.clone())));
                }
            }
            (Value::Array(ea), Value::Array(aa)) => {
                for i in 0..ea.len().max(aa.len()) {
                    let p = format!("{path}[{i}]");
                    next.push(match (ea.get(i), aa.get(i)) {
                        (Some(ev), Some(av)) => Work::Compare(p, ev, av),
                        (Some(ev), None) => Work::Found(Change::Missing(p, ev.clone())),
                        (None, Some(av)) => Work::Found(Change::Extra(p, av.clone())),
                        (None, None) => continue,
                    });
                }
            }
            _ if e != a => out.push(Change::Changed(path, e.clone(), a.clone())),
            _ => {}
        }
        stack.extend(next.into_iter().rev());
    }
    out
}

fn key_step(k: &str) -> String {
    if !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        format!(".{k}")
    } else {
        format!("[{}]", Value::String(k.to_string()))
    }
}

/// Values longer than this are cut in a diff line.
const SHOWN_CHARS: usize = 80;

fn short(v: &Value) -> String {
    let text = v.to_string();
    match text.char_indices().nth(SHOWN_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

/// The lines the terminal prints under a failure's expected and actual, when a diff says
/// more than the two values: a structural diff of two objects or arrays (at most
/// `MAX_CHANGES` paths), a character diff of two one-line strings (`[-gone-]{+new+}`, or
/// red and green with `color`), a line diff of two multi-line strings. `None` otherwise.
pub fn terminal(f: &Failure, color: bool) -> Option<Vec<String>> {
    let (e, a) = (f.expected_value.as_ref()?, f.actual_value.as_ref()?);
    match (e, a) {
        (Value::Object(_), Value::Object(_)) | (Value::Array(_), Value::Array(_)) => {
            let changes = structural(e, a);
            if changes.is_empty() {
                return None;
            }
            let mut lines: Vec<String> = changes
                .iter()
                .take(MAX_CHANGES)
                .map(|c| match c {
                    Change::Changed(p, e, a) => format!("{p}: {} → {}", short(e), short(a)),
                    Change::Missing(p, e) => format!("{p}: missing (expected {})", short(e)),
                    Change::Extra(p, a) => format!("{p}: not expected ({})", short(a)),
                })
                .collect();
            if changes.len() > MAX_CHANGES {
                lines.push(format!("… and {} more", changes.len() - MAX_CHANGES));
            }
            Some(lines)
        }
        (Value::String(e), Value::String(a)) if e.contains('\n') || a.contains('\n') => Some(
            lines(e, a)
                .iter()
                .filter(|l| l.tag != '=')
                .take(MAX_CHANGES)
                .map(|l| paint_line(l, color))
                .collect(),
        ),
        (Value::String(e), Value::String(a))
            if e.len() <= MAX_CHAR_DIFF && a.len() <= MAX_CHAR_DIFF =>
        {
            chars(e, a, color).map(|line| vec![line])
        }
        _ => None,
    }
}

/// At most this many paths or lines of a diff are printed; the rest are counted.
pub const MAX_CHANGES: usize = 20;

/// Strings longer than this get no character diff (its cost grows with the product of
/// the lengths).
const MAX_CHAR_DIFF: usize = 4096;

fn paint_line(l: &DiffLine, color: bool) -> String {
    let look = if l.tag == '-' {
        style::RED
    } else {
        style::GREEN
    };
    style::paint(color, look, &format!("{} {}", l.tag, l.text))
}

/// One line marking what the actual string lost and gained against the expected one;
/// `None` when the two have too little in common for the marks to help (`"y"` and `"x"`):
/// less than half of the shorter one, or fewer than three characters.
fn chars(expected: &str, actual: &str, color: bool) -> Option<String> {
    let diff = similar::TextDiff::from_chars(expected, actual);
    // Neighbouring characters of one kind are marked together: `[-nope-]{+hi+}`.
    let mut runs: Vec<(similar::ChangeTag, String)> = Vec::new();
    for c in diff.iter_all_changes() {
        match runs.last_mut() {
            Some((tag, text)) if *tag == c.tag() => text.push_str(c.value()),
            _ => runs.push((c.tag(), c.value().to_string())),
        }
    }
    let same: usize = runs
        .iter()
        .filter(|(tag, _)| *tag == similar::ChangeTag::Equal)
        .map(|(_, t)| t.chars().count())
        .sum();
    let shorter = expected.chars().count().min(actual.chars().count());
    if same < 3 || same * 2 < shorter {
        return None;
    }
    let mut out = String::new();
    for (tag, v) in runs {
        let v = v.as_str();
        match (tag, color) {
            (similar::ChangeTag::Equal, _) => out.push_str(v),
            (similar::ChangeTag::Delete, true) => {
                out.push_str(&style::paint(true, style::STRUCK_RED, v))
            }
            (similar::ChangeTag::Insert, true) => {
                out.push_str(&style::paint(true, style::UNDERLINED_GREEN, v))
            }
            (similar::ChangeTag::Delete, false) => out.push_str(&format!("[-{v}-]")),
            (similar::ChangeTag::Insert, false) => out.push_str(&format!("{{+{v}+}}")),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_compared_line_by_line() {
        let mut f = Failure::new(crate::codes::RunCode::Assertion, "differs");
        f.expected_value = Some(serde_json::json!({"a": 1, "b": 2}));
        f.actual_value = Some(serde_json::json!({"a": 1, "b": 3}));
        let d = failure_diff(&f).unwrap();
        let tags: String = d.iter().map(|l| l.tag).collect();
        assert_eq!(tags, "==-+=");
        assert_eq!(unified(&d[2..4]), "-   \"b\": 2\n+   \"b\": 3\n");
        f.expected_value = None;
        assert_eq!(failure_diff(&f), None, "no texts either");
    }

    #[test]
    fn objects_differ_path_by_path_in_document_order() {
        let e = serde_json::json!({"a": 1, "b": {"c": [1, 2, 3]}, "x y": true});
        let a = serde_json::json!({"a": 2, "b": {"c": [1, 3]}, "z": null});
        let shown: Vec<String> = structural(&e, &a)
            .into_iter()
            .map(|c| match c {
                Change::Changed(p, ..) => format!("~{p}"),
                Change::Missing(p, _) => format!("-{p}"),
                Change::Extra(p, _) => format!("+{p}"),
            })
            .collect();
        assert_eq!(
            shown,
            ["~$.a", "~$.b.c[1]", "-$.b.c[2]", "-$[\"x y\"]", "+$.z"]
        );
    }

    #[test]
    fn the_terminal_shows_what_changed() {
        let mut f = Failure::new(crate::codes::RunCode::Assertion, "differs");
        f.expected_value = Some(serde_json::json!("Hello, world"));
        f.actual_value = Some(serde_json::json!("Hello, w0rld!"));
        assert_eq!(
            terminal(&f, false).expect("a diff"),
            ["Hello, w[-o-]{+0+}rld{+!+}"]
        );
        f.expected_value = Some(serde_json::json!({"n": 1, "s": "a"}));
        f.actual_value = Some(serde_json::json!({"n": 2, "s": "a", "t": [1]}));
        assert_eq!(
            terminal(&f, false).expect("a diff"),
            ["$.n: 1 → 2", "$.t: not expected ([1])"]
        );
        f.expected_value = Some(serde_json::json!(1));
        f.actual_value = Some(serde_json::json!(2));
        assert_eq!(terminal(&f, false), None, "two numbers say it all");
        f.expected_value = Some(serde_json::json!("nope"));
        f.actual_value = Some(serde_json::json!("hi"));
        assert_eq!(terminal(&f, false), None, "nothing in common");
    }
}
