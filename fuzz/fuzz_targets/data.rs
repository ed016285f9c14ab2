//! Fuzz target: the input as data rows, through the loading and coercion of the data
//! pipeline (docs/data-sources.md). The bytes are read as a CSV file under a header of
//! five columns, and as a JSON file, each with the columns typed `string`, `number`,
//! `boolean`, `date` and `json`; every line is also converted as one cell to each type.
//! Problems with the rows are the expected outcome; a panic, a hang or a runaway
//! allocation is a finding.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use mcpr_compiler::ir::{ColumnType, DataSource};
use mcpr_runtime::data::{Locator, Rows, coerce, csv, date, file, pipeline};
use serde_json::{Value, json};

/// The columns, one of each type (the CSV header names them in this order).
const COLUMNS: [(&str, ColumnType); 5] = [
    ("a", ColumnType::String),
    ("b", ColumnType::Number),
    ("c", ColumnType::Boolean),
    ("d", ColumnType::Date),
    ("e", ColumnType::Json),
];

/// A folder of this process for the data files (the providers read files).
fn folder() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("mcpr-fuzz-data-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        dir
    })
}

/// The data source of the rows: every column typed, one of them required.
fn source() -> &'static pipeline::Spec {
    static SPEC: OnceLock<pipeline::Spec> = OnceLock::new();
    SPEC.get_or_init(|| {
        let columns: serde_json::Map<String, Value> = COLUMNS
            .iter()
            .map(|(name, kind)| {
                let column = json!({ "type": kind, "required": *name == "b" });
                (name.to_string(), column)
            })
            .collect();
        let ds: DataSource =
            serde_json::from_value(json!({ "rows": [], "columns": columns })).expect("a source");
        pipeline::Spec::new(&ds).expect("the columns compile")
    })
}

/// The rows through the pipeline: coercion, then the row limit.
fn run(rows: Rows<'_>, locator: &Locator) {
    let _ = pipeline::run(source(), rows, locator, None, Some(1000));
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let dir = folder();
    // As CSV, under a header naming the columns.
    let csv_path = dir.join("rows.csv");
    let mut text = b"a,b,c,d,e\n".to_vec();
    text.extend_from_slice(data);
    if std::fs::write(&csv_path, &text).is_ok()
        && let Ok((rows, locator)) = csv::open(&csv_path, "rows.csv")
    {
        run(rows, &locator);
    }
    // As JSON: rows of any shape, the typed columns converted where they are present.
    let json_path = dir.join("rows.json");
    if std::fs::write(&json_path, data).is_ok()
        && let Ok((items, locator)) = file::load(&json_path, "rows.json", false, None)
    {
        run(Box::new(items.into_iter()), &locator);
    }
    // Each line as one cell of each type, and as a date in the text form.
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for line in text.lines().take(64) {
        let cell = Value::String(line.to_string());
        for (_, kind) in COLUMNS {
            let _ = coerce::convert(&cell, kind);
        }
        let _ = coerce::infer_scalar(line);
        let _ = date::parse_date_text(line);
    }
});
