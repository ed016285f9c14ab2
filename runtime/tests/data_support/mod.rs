//! What the data-source tests share: a one-test suite over a source, the options, loading
//! it, its rows as JSON, and writing a fixture file.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use mcpr_compiler::ir::Suite;
use mcpr_runtime::data::{self, DataError, DataOptions, RowSet};
use serde_json::{Value, json};

pub fn suite(sources: Value, for_each: Value) -> Suite {
    serde_json::from_value(json!({
        "version": 1,
        "target": {"transport": "stdio", "command": "true"},
        "tests": [{"name": "T", "steps": [{"tool": {"name": "echo"}}], "forEach": for_each}],
        "dataSources": sources,
    }))
    .unwrap()
}

pub fn opts(dir: &Path) -> DataOptions {
    DataOptions {
        base_dir: dir.to_path_buf(),
        // What a command hands the run: the environment it was started in.
        env: mcpr_runtime::environment::Environment::of_process(),
        ..DataOptions::default()
    }
}

pub async fn load_with(ds: Value, o: &DataOptions) -> Result<RowSet, DataError> {
    let s = suite(json!({"s": ds}), json!({"source": "s"}));
    data::load_suite(&s, o)
        .await
        .map(|r| (*r.by_test[0].clone().unwrap()).clone())
        .map_err(|e| e.first().clone())
}

pub async fn load(dir: &Path, ds: Value) -> Result<RowSet, DataError> {
    load_with(ds, &opts(dir)).await
}

pub fn rows(set: &RowSet) -> Value {
    Value::Array(set.rows.iter().cloned().map(Value::Object).collect())
}

pub fn write(dir: &Path, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}
