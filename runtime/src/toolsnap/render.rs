//! The output formats of `mcpr diff`.

use serde_json::{Value, json};

use super::diff::Change;
use crate::lint::Kind;
use mcpr_compiler::github::{Annotation, Level};

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
/// heading line. Each names the snapshot file (`file=`), and the line of the changed
/// definition in it (`text`, the file's text) when the file holds it.
pub fn github(changes: &[Change], snapshot: &str, text: &str, policy: Policy) -> String {
    let mut out = String::new();
    for c in changes {
        let (command, title) = match (c.breaking, policy) {
            (
                true,
                Policy {
                    allow_breaking: true,
                    ..
                },
            ) => (Level::Warning, "breaking MCP change"),
            (true, _) => (Level::Error, "breaking MCP change"),
            (false, Policy { strict: true, .. }) => (Level::Error, "MCP change"),
            (false, _) => (Level::Notice, "compatible MCP change"),
        };
        let mut annotation =
            Annotation::new(command, format!("{}: {}", c.subject(), c.message)).file(snapshot);
        if let Some(n) = line_in(text, c).and_then(|n| u64::try_from(n).ok()) {
            annotation = annotation.line(n);
        }
        let annotation = annotation.title(format!("{title} ({snapshot})"));
        out.push_str(&format!("{annotation}\n"));
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

/// Adds to each change of `json`'s document the `line` of its definition in the snapshot's
/// text, where the file holds it (as the GitHub annotations point at it).
pub fn add_lines(doc: &mut Value, changes: &[Change], text: &str) {
    let Some(items) = doc.get_mut("changes").and_then(Value::as_array_mut) else {
        return;
    };
    for (item, c) in items.iter_mut().zip(changes) {
        if let Some(n) = line_in(text, c) {
            item["line"] = json!(n);
        }
    }
}

/// The line (from 1) of a change's definition in a snapshot's text: the line of its `name`
/// (`uri` for a resource, `uriTemplate` for a template) among the entries of its list, laid
/// out one member a line as `mcpr snapshot` writes it, or of `server` for the server. None
/// for what the snapshot does not hold (a new tool) or a text laid out otherwise.
pub fn line_in(text: &str, c: &Change) -> Option<usize> {
    let indent = |l: &str| l.len() - l.trim_start().len();
    let lines: Vec<&str> = text.lines().collect();
    let (list, key) = match c.kind {
        Kind::Server => {
            return lines
                .iter()
                .position(|l| indent(l) == 2 && l.trim_start().starts_with("\"server\":"))
                .map(|i| i + 1);
        }
        Kind::Tool => ("tools", "name"),
        Kind::Resource => ("resources", "uri"),
        Kind::ResourceTemplate => ("resourceTemplates", "uriTemplate"),
        Kind::Prompt => ("prompts", "name"),
    };
    let opening = format!("\"{list}\": [");
    let start = lines.iter().position(|l| l.trim() == opening)?;
    let member = indent(lines[start]) + 4;
    let wanted = format!("\"{key}\": {}", Value::String(c.name.clone()));
    lines[start + 1..]
        .iter()
        .take_while(|l| indent(l) > indent(lines[start]))
        .position(|l| indent(l) == member && l.trim().trim_end_matches(',') == wanted)
        .map(|i| start + 1 + i + 1)
}
