//! Data pipeline throughput and memory: a generated 100,000-row CSV (about 8 MB) through
//! coercion of four columns, two derived columns and a filter keeping 1% of the rows — once
//! filtering on a plain column (checked before deriving) and once on a derived column (every
//! row is derived).
//! Prints the time, the rows per second, the ratio to a bare `csv` crate read of the same file
//! in the same run, and the peak memory above the baseline (Linux: VmHWM after clearing it).
//! Targets: under 1 s and under 64 MB above the baseline in a release build.
//! Run with `cargo bench -p mcpr-runtime --bench data`.

use std::io::Write;
use std::time::{Duration, Instant};

use mcpr_compiler::ir::Suite;
use mcpr_runtime::data::{self, DataOptions};
use serde_json::json;

const ROWS: usize = 100_000;

fn generate(path: &std::path::Path) {
    let file = std::fs::File::create(path).unwrap();
    let mut w = std::io::BufWriter::new(file);
    writeln!(w, "caseId,customer,spend,active,joined,bucket,note").unwrap();
    for i in 0..ROWS {
        writeln!(
            w,
            "case-{i},C-{:06},{}.{:02},{},2024-{:02}-{:02},{},\"free text, with a comma {i}\"",
            i * 7 % 1_000_000,
            i % 5000,
            i % 100,
            if i % 3 == 0 { "yes" } else { "no" },
            i % 12 + 1,
            i % 28 + 1,
            i % 100
        )
        .unwrap();
    }
}

/// (current RSS, peak RSS) in kB from /proc/self/status.
fn memory_kb() -> Option<(u64, u64)> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))?
            .split_whitespace()
            .nth(1)?
            .parse::<u64>()
            .ok()
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

fn raw_read(path: &std::path::Path) -> Duration {
    let start = Instant::now();
    let mut reader = csv::Reader::from_path(path).unwrap();
    let mut record = csv::StringRecord::new();
    let mut n = 0;
    while reader.read_record(&mut record).unwrap() {
        n += record.len();
    }
    std::hint::black_box(n);
    start.elapsed()
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.csv");
    generate(&path);
    let size = std::fs::metadata(&path).unwrap().len();
    let suite_with = |filter: serde_json::Value| -> Suite {
        serde_json::from_value(json!({
            "version": 1,
            "target": {"transport": "stdio", "command": "true"},
            "tests": [{"name": "T", "steps": [{"tool": {"name": "echo"}}], "forEach": {"source": "big"}}],
            "dataSources": {"big": {
                "file": "big.csv",
                "columns": {
                    "spend": {"type": "number", "required": true},
                    "active": {"type": "boolean"},
                    "joined": {"type": "date"},
                    "customer": {"type": "string", "required": true}
                },
                "derive": {"label": "${customer}:${spend}", "key": "${caseId}/${bucket}"},
                "where": filter
            }}
        }))
        .unwrap()
    };
    let opts = DataOptions {
        base_dir: dir.path().to_path_buf(),
        max_rows: 2000,
        ..DataOptions::default()
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    // Warm the page cache and the runtime once.
    let raw = (0..3).map(|_| raw_read(&path)).min().unwrap();
    let cases = [
        (
            "filter on a plain column",
            suite_with(json!({"bucket": 7, "active": {"in": [true, false]}})),
        ),
        (
            "filter on a derived column",
            suite_with(json!({"key": {"matches": "/7$"}})),
        ),
    ];
    rt.block_on(data::load_suite(&cases[0].1, &opts)).unwrap();

    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let before = memory_kb();
    println!(
        "data pipeline: {ROWS} rows ({:.1} MB CSV), 4 coerced columns, 2 derived, a filter keeping 1%; bare csv read {:.0} ms",
        size as f64 / 1e6,
        raw.as_secs_f64() * 1000.0
    );
    for (name, suite) in &cases {
        let mut best = Duration::MAX;
        let mut kept = 0;
        for _ in 0..3 {
            let start = Instant::now();
            let rows = rt.block_on(data::load_suite(suite, &opts)).unwrap();
            best = best.min(start.elapsed());
            kept = rows.by_test[0].as_ref().unwrap().rows.len();
        }
        println!(
            "  {name}: {:.0} ms ({:.0} rows/s, {kept} kept), {:.1}× the bare read (target < 1 s in release)",
            best.as_secs_f64() * 1000.0,
            ROWS as f64 / best.as_secs_f64(),
            best.as_secs_f64() / raw.as_secs_f64()
        );
    }
    let after = memory_kb();
    match (before, after) {
        (Some((base, _)), Some((_, peak))) => println!(
            "  memory: baseline {:.1} MB, peak {:.1} MB, {:.1} MB above the baseline (target < 64 MB)",
            base as f64 / 1024.0,
            peak as f64 / 1024.0,
            peak.saturating_sub(base) as f64 / 1024.0
        ),
        _ => println!("  memory: not measurable on this system (no /proc/self/status)"),
    }
}
