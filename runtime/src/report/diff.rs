//! Expected against actual as a line diff, for the reports that show one (the HTML report,
//! the GitHub job summary): pretty JSON when the failure carries values, else its texts.

use serde::Serialize;
use serde_json::Value;

use crate::exec::Failure;

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
}
