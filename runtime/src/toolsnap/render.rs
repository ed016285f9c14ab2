//! The output formats of `mcpr diff`.

use serde_json::{Value, json};

use super::diff::Change;
use crate::lint::render::{escape_data, escape_property};

/// What `mcpr diff` decides from the changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Policy {
    /// Every change fails, compatible ones too (`--strict`).
    pub strict: bool,
    /// Breaking changes are reported as warnings and do not fail (`--allow-breaking`).
    pub allow_breaking: bool,
}

impl Policy {
    /// True when the changes fail the check.
    pub fn fails(&self, changes: &[Change]) -> bool {
        if self.strict {
            !changes.is_empty()
        } else {
            !self.allow_breaking && changes.iter().any(|c| c.breaking)
        }
    }
}

fn counts(changes: &[Change]) -> (usize, usize) {
    let breaking = changes.iter().filter(|c| c.breaking).count();
    (breaking, changes.len() - breaking)
}

/// One change as mcptest prints it: `  BREAKING add: new required parameter 'c'` or
/// `  ok       add: parameter 'a' type changed integer -> number`.
pub fn line(c: &Change) -> String {
    format!(
        "  {:<8} {}: {}",
        if c.breaking { "BREAKING" } else { "ok" },
        c.subject(),
        c.message
    )
}

/// The human format: the heading `MCP tools differ from snapshot FILE (B breaking, C
/// compatible):`, one line per change, and how to accept them; `MCP tools match snapshot
/// FILE` when nothing changed.
pub fn human(changes: &[Change], snapshot: &str, policy: Policy) -> String {
    if changes.is_empty() {
        return format!("MCP tools match snapshot {snapshot}\n");
    }
    let (b, c) = counts(changes);
    let mut out =
        format!("MCP tools differ from snapshot {snapshot} ({b} breaking, {c} compatible):\n");
    for change in changes {
        out.push_str(&line(change));
        out.push('\n');
    }
    if policy.allow_breaking && b > 0 {
        out.push_str("Breaking changes are allowed (--allow-breaking): reported, not failed.\n");
    }
    out.push_str(&format!(
        "Run mcpr snapshot -o {snapshot} against the same server to accept these changes.\n"
    ));
    out
}

/// The JSON format (docs/lint.md).
pub fn json(changes: &[Change], snapshot: &str, policy: Policy) -> Value {
    let (b, c) = counts(changes);
    json!({
        "version": 1,
        "snapshot": snapshot,
        "breaking": b,
        "compatible": c,
        "changes": changes,
        "strict": policy.strict,
        "allowBreaking": policy.allow_breaking,
        "failed": policy.fails(changes),
    })
}

/// GitHub annotations: `::error` for a breaking change (`::warning` with
/// `--allow-breaking`), `::notice` for a compatible one (`::error` with `--strict`), then the
/// heading line.
pub fn github(changes: &[Change], snapshot: &str, policy: Policy) -> String {
    let mut out = String::new();
    for c in changes {
        let (command, title) = match (c.breaking, policy) {
            (
                true,
                Policy {
                    allow_breaking: true,
                    ..
                },
            ) => ("warning", "breaking MCP change"),
            (true, _) => ("error", "breaking MCP change"),
            (false, Policy { strict: true, .. }) => ("error", "MCP change"),
            (false, _) => ("notice", "compatible MCP change"),
        };
        out.push_str(&format!(
            "::{command} title={}::{}\n",
            escape_property(&format!("{title} ({snapshot})")),
            escape_data(&format!("{}: {}", c.subject(), c.message))
        ));
    }
    out.push_str(
        human(changes, snapshot, policy)
            .lines()
            .next()
            .unwrap_or_default(),
    );
    out.push('\n');
    out
}
