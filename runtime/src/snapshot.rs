//! The snapshot store (mcp-test-language-1.md §4.12): one JSON file
//! `{"schemaVersion": 1, "snapshots": {"<testId>.<name>": value}}`, written with sorted keys,
//! 2-space indentation and a trailing newline, only when something changed. Ignored paths are
//! removed before comparing. A missing snapshot is recorded, except under `CI=true`, where it
//! fails (`MCP-SNAPSHOT-002`); a different value fails with a semantic diff
//! (`MCP-SNAPSHOT-003`) unless updating (`--update-snapshots`), which overwrites it.

use crate::codes::RunCode;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::compare::{Mismatch, deep_equal};
use crate::values;

/// Default store file when neither `--snapshot` nor the suite names one.
pub const DEFAULT_FILE: &str = "mcpr.snap.json";

/// A loaded snapshot file.
#[derive(Debug)]
pub struct SnapshotStore {
    path: PathBuf,
    entries: BTreeMap<String, Value>,
    ignore: Vec<String>,
    update: bool,
    ci: bool,
    changed: bool,
    redactor: Option<crate::redact::Redactor>,
    base_dir: Option<PathBuf>,
}

impl SnapshotStore {
    /// Loads `path` (an absent file is an empty store). `ignore` holds the suite-wide
    /// ignored paths; `update` overwrites differing snapshots; `ci` fails missing ones.
    pub fn load(
        path: &Path,
        ignore: Vec<String>,
        update: bool,
        ci: bool,
    ) -> Result<SnapshotStore, String> {
        let entries = match std::fs::read_to_string(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
            Err(e) => {
                return Err(format!(
                    "{}: cannot read {}: {e}",
                    RunCode::SnapshotStore,
                    path.display()
                ));
            }
            Ok(text) => {
                let v: Value = serde_json::from_str(&text).map_err(|e| {
                    format!(
                        "{}: {} is not JSON: {e}",
                        RunCode::SnapshotStore,
                        path.display()
                    )
                })?;
                match v.get("snapshots") {
                    Some(Value::Object(o)) => {
                        o.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
                    }
                    _ => {
                        return Err(format!(
                            "{}: {} has no `snapshots` object",
                            RunCode::SnapshotStore,
                            path.display()
                        ));
                    }
                }
            }
        };
        Ok(SnapshotStore {
            path: path.to_path_buf(),
            entries,
            ignore,
            update,
            ci,
            changed: false,
            redactor: None,
            base_dir: None,
        })
    }

    /// Masks these secrets in every value before it is compared or stored.
    pub fn set_redactor(&mut self, redactor: crate::redact::Redactor) {
        self.redactor = Some(redactor);
    }

    /// The folder tool snapshot files are relative to (the suite file's folder).
    pub fn set_base_dir(&mut self, dir: PathBuf) {
        self.base_dir = Some(dir);
    }

    /// Compares the live definitions `live` (a tool snapshot value) with the tool snapshot
    /// `file` (relative to the suite's folder), with this run's update and CI modes; the
    /// redactor masks secrets before anything is compared or written.
    pub fn check_tools(
        &self,
        file: &str,
        live: &Value,
        allow_compatible: bool,
    ) -> Result<crate::toolsnap::check::Checked, Mismatch> {
        let mut live = live.clone();
        if let Some(r) = &self.redactor {
            r.value(&mut live);
        }
        let path = match &self.base_dir {
            Some(dir) => dir.join(file),
            None => PathBuf::from(file),
        };
        let mode = crate::toolsnap::check::CheckMode {
            allow_compatible,
            update: self.update,
            ci: self.ci,
        };
        crate::toolsnap::check::check_file(&path, file, &live, mode)
    }

    /// Compares `value` with the snapshot `key`, recording or updating it as the mode says,
    /// and tells which it did.
    pub fn check(
        &mut self,
        key: &str,
        value: &Value,
        ignore: &[String],
    ) -> Result<Written, Mismatch> {
        let mut v = value.clone();
        for p in self.ignore.iter().chain(ignore) {
            values::remove(&mut v, p).map_err(|e| {
                Mismatch::new(format!("snapshot {key}: ignored path {e}"), None, None)
                    .code(RunCode::SnapshotStore)
            })?;
        }
        if let Some(r) = &self.redactor {
            r.value(&mut v);
        }
        let v = sorted(&v);
        match self.entries.get(key) {
            None if self.ci && !self.update => Err(Mismatch::new(
                format!(
                    "snapshot {key} is missing from {} (CI=true: snapshots are not written in CI; run with --update-snapshots locally)",
                    self.path.display()
                ),
                None,
                Some(crate::compare::show(&v)),
            )
            .code(RunCode::SnapshotMissing)
            .values(None, Some(&v))),
            None => {
                self.entries.insert(key.to_string(), v);
                self.changed = true;
                Ok(Written::Recorded)
            }
            Some(stored) if deep_equal(stored, &v) => Ok(Written::Matched),
            Some(_) if self.update => {
                self.entries.insert(key.to_string(), v);
                self.changed = true;
                Ok(Written::Updated)
            }
            Some(stored) => {
                let mut lines = Vec::new();
                diff("$", stored, &v, &mut lines);
                Err(Mismatch::new(
                    format!(
                        "snapshot {key} differs ({} stored, + now):\n{}",
                        "-",
                        lines.join("\n")
                    ),
                    Some(crate::compare::show(stored)),
                    Some(crate::compare::show(&v)),
                )
                .code(RunCode::SnapshotChanged)
                .values(Some(stored), Some(&v)))
            }
        }
    }

    /// The snapshot file, as the suite's folder names it when it is inside it.
    pub fn shown_path(&self) -> String {
        let inside = self
            .base_dir
            .as_deref()
            .and_then(|b| self.path.strip_prefix(b).ok());
        inside.unwrap_or(&self.path).display().to_string()
    }

    /// Writes the file when something changed.
    pub fn save(&self) -> Result<bool, String> {
        if !self.changed {
            return Ok(false);
        }
        let snapshots: Map<String, Value> = self
            .entries
            .iter()
            .map(|(k, v)| (k.clone(), sorted(v)))
            .collect();
        let doc = json!({"schemaVersion": 1, "snapshots": snapshots});
        let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())? + "\n";
        // `Snapshots: snaps/api.json` in a folder that does not exist yet: it is made.
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create the folder {}: {e}", dir.display()))?;
        }
        crate::files::write_atomic(&self.path, text.as_bytes(), crate::files::Access::Shared)?;
        Ok(true)
    }
}

/// What [`SnapshotStore::check`] did with a value that matched or was taken as the new
/// snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    /// The stored snapshot equals it.
    Matched,
    /// There was none: it is recorded (written when the run ends).
    Recorded,
    /// It differed and `--update-snapshots` replaced it.
    Updated,
}

/// The value with every object's keys sorted.
fn sorted(v: &Value) -> Value {
    match v {
        Value::Object(o) => {
            let mut keys: Vec<&String> = o.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), sorted(&o[k])))
                    .collect(),
            )
        }
        Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// Semantic diff: `- PATH: json` for what was stored, `+ PATH: json` for what came back.
pub fn diff(path: &str, old: &Value, new: &Value, out: &mut Vec<String>) {
    match (old, new) {
        (Value::Object(a), Value::Object(b)) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let p = format!("{path}.{k}");
                match (a.get(k), b.get(k)) {
                    (Some(x), Some(y)) => diff(&p, x, y, out),
                    (Some(x), None) => out.push(format!("- {p}: {x}")),
                    (None, Some(y)) => out.push(format!("+ {p}: {y}")),
                    (None, None) => {}
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            for i in 0..a.len().max(b.len()) {
                let p = format!("{path}[{i}]");
                match (a.get(i), b.get(i)) {
                    (Some(x), Some(y)) => diff(&p, x, y, out),
                    (Some(x), None) => out.push(format!("- {p}: {x}")),
                    (None, Some(y)) => out.push(format!("+ {p}: {y}")),
                    (None, None) => {}
                }
            }
        }
        (a, b) if deep_equal(a, b) => {}
        (a, b) => {
            out.push(format!("- {path}: {a}"));
            out.push(format!("+ {path}: {b}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_compare_update_and_ci() {
        let dir = std::env::temp_dir().join(format!("mcpr-snap-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.json");
        let _ = std::fs::remove_file(&path);
        let mut s = SnapshotStore::load(&path, vec!["$.at".into()], false, false).unwrap();
        s.check("t.a", &json!({"b": 1, "a": [1, 2], "at": "now"}), &[])
            .unwrap();
        assert!(s.save().unwrap());
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.ends_with("}\n") && text.find("\"a\"") < text.find("\"b\""),
            "{text}"
        );
        assert!(!text.contains("now"));
        let mut s = SnapshotStore::load(&path, vec![], false, false).unwrap();
        let mut r = crate::redact::Redactor::new();
        r.add("hush-hush-1");
        s.set_redactor(r);
        s.check("t.secret", &json!({"token": "hush-hush-1"}), &[])
            .unwrap();
        s.save().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            !text.contains("hush-hush-1") && text.contains("[REDACTED]"),
            "{text}"
        );
        let mut s = SnapshotStore::load(&path, vec!["$.at".into()], false, true).unwrap();
        s.check("t.a", &json!({"a": [1, 2], "b": 1, "at": "later"}), &[])
            .unwrap();
        let e = s.check("t.a", &json!({"a": [1], "b": 2}), &[]).unwrap_err();
        assert_eq!(e.code, RunCode::SnapshotChanged);
        assert!(
            e.message.contains("- $.a[1]: 2") && e.message.contains("- $.b: 1\n+ $.b: 2"),
            "{}",
            e.message
        );
        assert_eq!(
            s.check("t.new", &json!(1), &[]).unwrap_err().code,
            RunCode::SnapshotMissing
        );
        assert!(!s.save().unwrap(), "nothing changed");
        let mut s = SnapshotStore::load(&path, vec![], true, true).unwrap();
        s.check("t.a", &json!({"a": [1], "b": 2}), &[]).unwrap();
        assert!(s.save().unwrap());
        std::fs::write(&path, "not json").unwrap();
        assert!(
            SnapshotStore::load(&path, vec![], false, false)
                .unwrap_err()
                .starts_with(RunCode::SnapshotStore.as_str())
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
