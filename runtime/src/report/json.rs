//! `--json PATH`: the run as one JSON document (schema in `docs/run-report.md`).

use serde_json::{Value, json};

use crate::schedule::{RunResult, Summary};

/// Version of the JSON report layout.
pub const SCHEMA_VERSION: u32 = 1;

/// The report of one or more suites run by one command.
pub fn report(runs: &[RunResult]) -> Value {
    let mut total = Summary::default();
    let mut duration = 0;
    for r in runs {
        total.passed += r.summary.passed;
        total.failed += r.summary.failed;
        total.errored += r.summary.errored;
        total.skipped += r.summary.skipped;
        total.blocked += r.summary.blocked;
        duration += r.duration_ms;
    }
    let passed = total.failed + total.errored + total.blocked == 0;
    json!({
        "schemaVersion": SCHEMA_VERSION,
        "status": if passed { "passed" } else { "failed" },
        "durationMs": duration,
        "summary": total,
        "suites": runs,
    })
}
