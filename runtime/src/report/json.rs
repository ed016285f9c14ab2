//! `--json PATH` (`-` for stdout): the run as one JSON document (schema in
//! `docs/run-report.md`), or the parity of each suite (`{schemaVersion, suites}` of parity
//! reports). [`read`] reads a run's document back (`mcpr report merge`).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{Report, Reporter};
use crate::schedule::{RunResult, RunStatus, Summary};

/// Version of the JSON report layout (2: `expected`, `actual` and `lastMessage` are JSON
/// values; suites name their file; tests carry their location and timing).
pub const SCHEMA_VERSION: u32 = 2;

/// The report of one or more suites run by one command.
pub fn report(runs: &[RunResult]) -> Value {
    serde_json::to_value(RunDocument::of(runs)).unwrap_or_default()
}

/// The run's document as it is serialised: the suites borrowed, so the report is written
/// as it is serialised and a run of many tests never holds a second copy of their results.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RunDocument<'r> {
    schema_version: u32,
    status: &'static str,
    duration_ms: u64,
    summary: Summary,
    suites: &'r [RunResult],
}

impl RunDocument<'_> {
    fn of(runs: &[RunResult]) -> RunDocument<'_> {
        let (total, duration) = Summary::of_runs(runs);
        let interrupted = runs.iter().any(|r| r.interrupted.is_some());
        RunDocument {
            schema_version: SCHEMA_VERSION,
            status: RunStatus::of(&total, interrupted).as_str(),
            duration_ms: duration,
            summary: total,
            suites: runs,
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Document {
    schema_version: u32,
    suites: Vec<RunResult>,
}

/// The suites of a run's JSON report (as [`report`] writes it). The error says why the
/// text is not one.
pub fn read(text: &str) -> Result<Vec<RunResult>, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    match v.get("schemaVersion").and_then(Value::as_u64) {
        Some(n) if n == u64::from(SCHEMA_VERSION) => {}
        Some(n) => {
            return Err(format!(
                "a report of schemaVersion {n}; this mcpr reads version {SCHEMA_VERSION} (run the suites again with this mcpr)"
            ));
        }
        None => return Err("no schemaVersion: not a report of `mcpr run --json`".into()),
    }
    if v.get("rows").is_some() || v["suites"].get(0).is_some_and(|s| s.get("rows").is_some()) {
        return Err("a parity report, not a run report".into());
    }
    let doc: Document = serde_json::from_value(v).map_err(|e| format!("not a run report: {e}"))?;
    debug_assert_eq!(doc.schema_version, SCHEMA_VERSION);
    Ok(doc.suites)
}

/// Writes the JSON report to a file (or stdout) when the command ends.
#[derive(Debug)]
pub struct JsonFile {
    path: PathBuf,
}

impl JsonFile {
    /// A reporter writing `path` (`-`: stdout).
    pub fn new(path: PathBuf) -> JsonFile {
        JsonFile { path }
    }
}

impl Reporter for JsonFile {
    fn finish(&mut self, report: Report<'_>) -> Result<(), String> {
        match report {
            Report::Run(runs) => super::write_output_with(&self.path, &mut |w| {
                serde_json::to_writer_pretty(&mut *w, &RunDocument::of(runs))?;
                w.write_all(b"\n")
            }),
            Report::Parity(suites) => {
                let doc = json!({ "schemaVersion": 1, "suites": suites });
                let text = serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n";
                super::write_output(&self.path, &text)
            }
        }
    }
}
