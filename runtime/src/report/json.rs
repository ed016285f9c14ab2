//! `--json PATH`: the run as one JSON document (schema in `docs/run-report.md`), or the
//! parity of each suite (`{schemaVersion, suites}` of parity reports).

use std::path::PathBuf;

use serde_json::{Value, json};

use super::{Report, Reporter};
use crate::files::{Access, write_atomic};
use crate::schedule::{RunResult, Summary};

/// Version of the JSON report layout.
pub const SCHEMA_VERSION: u32 = 1;

/// The report of one or more suites run by one command.
pub fn report(runs: &[RunResult]) -> Value {
    let (total, duration) = Summary::of_runs(runs);
    json!({
        "schemaVersion": SCHEMA_VERSION,
        "status": if total.passed() { "passed" } else { "failed" },
        "durationMs": duration,
        "summary": total,
        "suites": runs,
    })
}

/// Writes the JSON report to a file when the command ends.
#[derive(Debug)]
pub struct JsonFile {
    path: PathBuf,
}

impl JsonFile {
    /// A reporter writing `path`.
    pub fn new(path: PathBuf) -> JsonFile {
        JsonFile { path }
    }
}

impl Reporter for JsonFile {
    fn finish(&mut self, report: Report<'_>) -> Result<(), String> {
        let doc = match report {
            Report::Run(runs) => self::report(runs),
            Report::Parity(suites) => json!({ "schemaVersion": 1, "suites": suites }),
        };
        let text = serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n";
        write_atomic(&self.path, text.as_bytes(), Access::Shared)
    }
}
