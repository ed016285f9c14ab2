//! `--html PATH`: one self-contained HTML file (inline CSS and script, nothing fetched, so
//! it works opened from a CI artifact). The page is drawn by its script from the run's
//! data, embedded as JSON: the counts with filters by status and a filter box (test name,
//! status, failure text; `#q=` in the link), a timeline with one lane per job (each
//! session's spawn, handshake, steps and close), and the tests of each suite, failures
//! first (data rows grouped under their test) with, for each failure, its location, the
//! expected/actual diff, the last and the exchanged MCP messages and the server's stderr.
//! Everything in it comes from results that are already redacted.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::diff::failure_diff;
use super::{Report, Reporter, test_location};
use crate::schedule::{RunResult, RunStatus, Summary};

/// The page; the script reads the data from the element `mcpr-data`.
const TEMPLATE: &str = include_str!("report.html");

/// Where the data goes in the template.
const SLOT: &str = "{{MCPR_DATA}}";

/// Writes the HTML report of a run when the command ends (a parity run has none).
#[derive(Debug)]
pub struct HtmlFile {
    path: PathBuf,
}

impl HtmlFile {
    /// A reporter writing `path` (`-`: stdout).
    pub fn new(path: PathBuf) -> HtmlFile {
        HtmlFile { path }
    }
}

impl Reporter for HtmlFile {
    fn finish(&mut self, report: Report<'_>) -> Result<(), String> {
        let Report::Run(runs) = report else {
            return Ok(());
        };
        super::write_output(&self.path, &render(runs))
    }
}

/// The data the page draws: the JSON report of the runs, with each test's location and
/// each failure's diff worked out.
pub fn data(runs: &[RunResult]) -> Value {
    let (total, duration) = Summary::of_runs(runs);
    let suites: Vec<Value> = runs
        .iter()
        .map(|r| {
            let mut suite = serde_json::to_value(r).unwrap_or(Value::Null);
            if let Some(tests) = suite.get_mut("tests").and_then(Value::as_array_mut) {
                for (t, result) in tests.iter_mut().zip(&r.tests) {
                    if let Some(l) = test_location(result) {
                        t["at"] = json!(format!("{}:{}:{}", l.file, l.line, l.column));
                    }
                    if let Some(d) = result.failure.as_deref().and_then(failure_diff) {
                        t["diff"] = json!(d);
                    }
                }
            }
            suite
        })
        .collect();
    let interrupted = runs.iter().find_map(|r| r.interrupted.as_deref());
    json!({
        "generator": format!("mcpr {}", env!("CARGO_PKG_VERSION")),
        "status": RunStatus::of(&total, interrupted.is_some()).as_str(),
        "interrupted": interrupted,
        "durationMs": duration,
        "summary": total,
        "suites": suites,
    })
}

/// JSON text that is safe inside a `<script>` element: no `<`, `>` or `&` can end the
/// element or open a comment (inside JSON strings they become `\u003c` …).
fn script_safe(json: &str) -> String {
    json.replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}

/// The whole page of one or more runs.
pub fn render(runs: &[RunResult]) -> String {
    let text = serde_json::to_string(&data(runs)).unwrap_or_else(|_| "{}".into());
    TEMPLATE.replacen(SLOT, &script_safe(&text), 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_data_cannot_close_its_script_element() {
        let text = script_safe(r#"{"a":"</script><!-- & -->"}"#);
        assert!(!text.contains('<') && !text.contains('>') && !text.contains('&'));
        let back: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["a"], "</script><!-- & -->");
    }

    #[test]
    fn the_page_is_self_contained() {
        let page = render(&[]);
        assert_eq!(page.matches(SLOT).count(), 0);
        assert!(page.contains(r#"<script type="application/json" id="mcpr-data">"#));
        for remote in ["http://", "https://", "src=", "href=\"http", "@import"] {
            assert!(
                !page.contains(remote),
                "the page must fetch nothing: {remote}"
            );
        }
    }
}
