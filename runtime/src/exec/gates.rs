//! The server quality gates as steps: `lint-clean` (the lint rules over what the test's
//! session lists) and `tools-snapshot` (what it lists against a committed tool snapshot,
//! classified by the breaking-change diff). Both read the surface through
//! [`crate::surface::list`], the same lists `mcpr lint`, `mcpr snapshot` and `mcpr diff`
//! read, and reuse their rules and renderers.

use std::sync::{Arc, Mutex};

use mcpr_compiler::ir::{LintCleanAction, ToolsSnapshotAction};
use serde_json::json;

use crate::client::Client;
use crate::codes::RunCode;
use crate::lint::{self, Level, render};
use crate::snapshot::SnapshotStore;

use super::extensions::verify_error;
use super::{Reply, StepFail, fail};

/// What a gate step hands back: its reply and what it prints (warnings below the failing
/// level, a snapshot written).
pub(super) struct Gate {
    pub reply: Reply,
    pub output: Option<String>,
}

/// `lint-clean`: fails with every finding at `failOn` (default error) or worse; the
/// others are printed.
pub(super) async fn lint_clean(client: &Client, a: &LintCleanAction) -> Result<Gate, StepFail> {
    let surface = crate::surface::list(client).await.map_err(verify_error)?;
    let ignore: Vec<String> = a
        .ignore
        .iter()
        .flatten()
        .map(|c| c.trim().to_ascii_uppercase())
        .collect();
    if let Some(unknown) = ignore.iter().find(|c| lint::rule_of(c).is_none()) {
        return Err(fail(
            RunCode::NativeStep,
            format!("`{unknown}` is not a lint rule (see `mcpr lint --rules`)"),
        ));
    }
    // Warnings fail by default, as seed 002's `assert_lint_clean` fails on them.
    let fail_on = a.fail_on.unwrap_or(Level::Warning);
    let report = lint::lint(
        &surface,
        &lint::Options {
            ignore: ignore.clone(),
        },
    );
    let lines = |failing: bool| -> Vec<String> {
        report
            .findings
            .iter()
            .filter(|f| (f.level >= fail_on) == failing)
            .map(render::line)
            .collect()
    };
    if report.fails(fail_on) {
        let failing = lines(true);
        let mut message = format!(
            "the server is not lint clean: {} finding{} at {} level or worse:\n  {}",
            failing.len(),
            if failing.len() == 1 { "" } else { "s" },
            fail_on.as_str(),
            failing.join("\n  ")
        );
        let others = lines(false);
        if !others.is_empty() {
            message.push_str(&format!("\nalso (not failing):\n  {}", others.join("\n  ")));
        }
        message.push_str(&format!("\n{}", render::summary(&report)));
        let mut f = fail(RunCode::LintNotClean, message);
        f.failure.actual_value = Some(render::json(&report, fail_on, &ignore));
        return Err(f);
    }
    let shown = lines(false);
    Ok(Gate {
        reply: Reply::Ok(render::json(&report, fail_on, &ignore)),
        output: (!shown.is_empty())
            .then(|| format!("{}\n{}", shown.join("\n"), render::summary(&report))),
    })
}

/// `tools-snapshot`: the live definitions against the snapshot file, through the run's
/// snapshot store (its folder, `--update-snapshots`, `CI=true` and its redactor).
pub(super) async fn tools_snapshot(
    client: &Client,
    a: &ToolsSnapshotAction,
    store: Option<&Arc<Mutex<SnapshotStore>>>,
) -> Result<Gate, StepFail> {
    let Some(file) = a.file.as_deref() else {
        return Err(fail(RunCode::NativeStep, "this native step needs `file`"));
    };
    let Some(store) = store else {
        return Err(fail(
            RunCode::SnapshotStore,
            format!("tool snapshot {file:?}: no snapshot store in this run"),
        ));
    };
    let surface = crate::surface::list(client).await.map_err(verify_error)?;
    let live = crate::toolsnap::from_surface(&surface);
    let checked = store
        .lock()
        .map_err(|_| {
            fail(
                RunCode::Internal,
                "the snapshot store is unusable after a panic",
            )
        })?
        .check_tools(file, &live, a.allow_compatible == Some(true))
        .map_err(StepFail::from)?;
    Ok(Gate {
        reply: Reply::Ok(json!({
            "snapshot": file,
            "written": checked.written,
            "changes": checked.changes,
        })),
        output: checked.note,
    })
}
