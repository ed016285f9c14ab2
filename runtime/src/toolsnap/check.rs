//! A tool snapshot checked from a suite (`Expect the tools match snapshot "FILE"`): the
//! file is read as `mcpr diff` reads it and compared with the live definitions by
//! [`super::diff::diff`]. As response snapshots do, a missing file is written (and fails
//! under `CI=true`), and `--update-snapshots` rewrites a file that differs.

use std::path::Path;

use mcpr_compiler::names::count;
use serde_json::Value;

use super::diff::{Change, diff};
use super::render::line;
use crate::codes::RunCode;
use crate::compare::Mismatch;

/// How the snapshot may change and what the run may write.
#[derive(Debug, Clone, Copy, Default)]
pub struct CheckMode {
    /// Only breaking changes fail (`allowing compatible changes`).
    pub allow_compatible: bool,
    /// Rewrite a snapshot that differs (`--update-snapshots`).
    pub update: bool,
    /// `CI=true`: a missing snapshot fails instead of being written.
    pub ci: bool,
}

/// A check that held.
#[derive(Debug, Clone, Default)]
pub struct Checked {
    /// The file was written (it was missing, or it was updated).
    pub written: bool,
    /// The changes found (compatible ones that were allowed, or the ones written).
    pub changes: Vec<Change>,
    /// What to tell the person running the suite.
    pub note: Option<String>,
}

/// Compares the snapshot `live` with the file at `path` (`shown` as written in the suite).
pub fn check_file(
    path: &Path,
    shown: &str,
    live: &Value,
    mode: CheckMode,
) -> Result<Checked, Mismatch> {
    let text = match std::fs::read_to_string(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if mode.ci && !mode.update {
                return Err(Mismatch::new(
                    format!(
                        "tool snapshot {shown} is missing (CI=true: snapshots are not written in CI; run the suite locally, or `mcpr snapshot -o {shown}`, and commit the file)"
                    ),
                    None,
                    None,
                )
                .code(RunCode::SnapshotMissing)
                .values(None, Some(live)));
            }
            write(path, live)?;
            return Ok(Checked {
                written: true,
                changes: Vec::new(),
                note: Some(format!("wrote tool snapshot {shown} ({})", counts(live))),
            });
        }
        Err(e) => return Err(store_error(format!("cannot read {shown}: {e}"))),
        Ok(text) => text,
    };
    let old = super::parse(&text).map_err(|e| store_error(format!("{shown}: {e}")))?;
    let changes = diff(&old, live);
    if changes.is_empty() {
        return Ok(Checked::default());
    }
    let breaking = changes.iter().filter(|c| c.breaking).count();
    if mode.update {
        write(path, live)?;
        return Ok(Checked {
            written: true,
            note: Some(format!(
                "updated tool snapshot {shown} ({} change{}, {breaking} breaking)",
                changes.len(),
                if changes.len() == 1 { "" } else { "s" }
            )),
            changes,
        });
    }
    let listed = listing(&changes, shown);
    if breaking > 0 || !mode.allow_compatible {
        let why = if mode.allow_compatible {
            "compatible changes are allowed, breaking ones are not"
        } else {
            "any change fails unless the statement says `allowing compatible changes`"
        };
        return Err(Mismatch::new(
            format!(
                "{listed}\n({why}; run with --update-snapshots, or `mcpr snapshot -o {shown}`, to accept them)"
            ),
            None,
            None,
        )
        .code(RunCode::ToolsChanged)
        .values(Some(&old), Some(live)));
    }
    Ok(Checked {
        written: false,
        note: Some(listed),
        changes,
    })
}

/// The heading and one line per change, as `mcpr diff` prints them.
fn listing(changes: &[Change], shown: &str) -> String {
    let breaking = changes.iter().filter(|c| c.breaking).count();
    let mut out = format!(
        "MCP tools differ from snapshot {shown} ({breaking} breaking, {} compatible):",
        changes.len() - breaking
    );
    for c in changes {
        out.push('\n');
        out.push_str(&line(c));
    }
    out
}

fn counts(snap: &Value) -> String {
    let n = |k: &str| snap[k].as_array().map_or(0, Vec::len);
    format!(
        "{}, {}, {}, {}",
        count(n("tools"), "tool"),
        count(n("resources"), "resource"),
        count(n("resourceTemplates"), "resource template"),
        count(n("prompts"), "prompt")
    )
}

fn write(path: &Path, live: &Value) -> Result<(), Mismatch> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| store_error(format!("cannot create {}: {e}", dir.display())))?;
    }
    crate::files::write_atomic(
        path,
        super::to_text(live).as_bytes(),
        crate::files::Access::Shared,
    )
    .map_err(store_error)
}

fn store_error(message: String) -> Mismatch {
    Mismatch::new(format!("tool snapshot: {message}"), None, None).code(RunCode::SnapshotStore)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surface::Surface;
    use serde_json::json;

    fn snap(tools: Vec<Value>) -> Value {
        super::super::from_surface(&Surface {
            server: "s".into(),
            tools,
            ..Surface::default()
        })
    }

    #[test]
    fn written_compared_classified_updated() {
        let dir = std::env::temp_dir().join(format!("mcpr-toolsnap-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("snaps/tools.json");
        let v1 = snap(vec![
            json!({"name": "a", "inputSchema": {"type": "object"}}),
        ]);
        let ci = CheckMode {
            ci: true,
            ..CheckMode::default()
        };
        let e = check_file(&path, "tools.json", &v1, ci).unwrap_err();
        assert_eq!(e.code, RunCode::SnapshotMissing);
        assert!(!path.exists());
        let first = check_file(&path, "tools.json", &v1, CheckMode::default()).unwrap();
        assert!(first.written && path.exists());
        assert!(
            check_file(&path, "tools.json", &v1, ci)
                .unwrap()
                .changes
                .is_empty()
        );
        // A new tool is compatible; removing one is breaking.
        let added = snap(vec![
            json!({"name": "a", "inputSchema": {"type": "object"}}),
            json!({"name": "b", "inputSchema": {"type": "object"}}),
        ]);
        let strict = check_file(&path, "tools.json", &added, CheckMode::default()).unwrap_err();
        assert_eq!(strict.code, RunCode::ToolsChanged);
        assert!(
            strict.message.contains("  ok       b: new tool"),
            "{}",
            strict.message
        );
        let allow = CheckMode {
            allow_compatible: true,
            ..CheckMode::default()
        };
        let ok = check_file(&path, "tools.json", &added, allow).unwrap();
        assert_eq!(ok.changes.len(), 1);
        assert!(!ok.written);
        let removed = snap(Vec::new());
        let e = check_file(&path, "tools.json", &removed, allow).unwrap_err();
        assert!(
            e.message.contains("BREAKING a: tool was removed"),
            "{}",
            e.message
        );
        let update = CheckMode {
            update: true,
            ..CheckMode::default()
        };
        assert!(
            check_file(&path, "tools.json", &removed, update)
                .unwrap()
                .written
        );
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            super::super::to_text(&removed)
        );
        std::fs::write(&path, "{").unwrap();
        let e = check_file(&path, "tools.json", &removed, allow).unwrap_err();
        assert_eq!(e.code, RunCode::SnapshotStore);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
