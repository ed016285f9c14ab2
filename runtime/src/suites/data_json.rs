//! Data errors in `mcpr check --data --format json`: the fields of a compile diagnostic
//! (code, severity, title, file, line and column, end, UTF-16 offsets, LSP range, label,
//! message, help, related, replaces) plus where in the data (`source`, `test`, `row`,
//! `field`, `cell`). Positions in a text file are computed from the file itself, as the
//! compiler computes them for suites (docs/diagnostics-json.md).

use std::collections::HashMap;

use mcpr_compiler::source::SourceFile;
use serde_json::{Value, json};

use crate::data::{DataError, DataLocation};

/// The text files data errors point into, read once each.
#[derive(Default)]
pub struct DataFiles {
    files: HashMap<String, Option<SourceFile>>,
}

impl DataFiles {
    fn get(&mut self, shown: &str) -> Option<&SourceFile> {
        self.files
            .entry(shown.to_string())
            .or_insert_with(|| {
                let bytes = std::fs::read(shown).ok()?;
                let text = String::from_utf8(bytes).ok()?;
                Some(SourceFile::new(shown, text))
            })
            .as_ref()
    }

    /// One data error as a JSON diagnostic.
    pub fn diagnostic(&mut self, e: &DataError) -> Value {
        let at = e.at.as_deref().cloned().unwrap_or_default();
        let position = self.position(&at);
        let label = at
            .snippet
            .as_ref()
            .map(|s| s.label.clone())
            .unwrap_or_default();
        let mut v = json!({
            "code": e.code.as_str(),
            "severity": "error",
            "title": e.code.title(),
            "file": at.file,
        });
        let obj = v.as_object_mut().expect("an object");
        for (k, val) in position {
            obj.insert(k.into(), val);
        }
        let more = json!({
            "label": label,
            "message": e.message,
            "help": e.help,
            "related": [],
            "replaces": "",
            "fix": null,
            "source": e.source_name.as_ref().and_then(|s| s.name()),
            "test": e.source_name.as_ref().and_then(|s| s.test()),
            "row": at.row,
            "field": at.field,
            "cell": at.cell,
        });
        if let Value::Object(m) = more {
            obj.extend(m);
        }
        v
    }

    /// `line` … `range`: from the text file when the span is known; for a workbook cell the
    /// sheet's row and column (offsets `null`); otherwise the line alone, or all `null`.
    fn position(&mut self, at: &DataLocation) -> Vec<(&'static str, Value)> {
        if let (Some((start, end)), false) = (at.span, at.file.is_empty())
            && let Some(f) = self.get(&at.file)
        {
            let s = f.position(start as usize);
            let e = f.position(end as usize);
            return fields(
                (s.line.into(), s.column.into()),
                (e.line.into(), e.column.into()),
                Some((s.offset.into(), e.offset.into())),
            );
        }
        match (at.line, at.column) {
            (Some(l), Some(c)) => fields((l, c), (l, c + 1), None),
            (Some(l), None) => fields((l, 1), (l, 1), None),
            _ => [
                "line",
                "column",
                "endLine",
                "endColumn",
                "offset",
                "endOffset",
                "range",
            ]
            .into_iter()
            .map(|k| (k, Value::Null))
            .collect(),
        }
    }
}

fn fields(
    (line, column): (u64, u64),
    (end_line, end_column): (u64, u64),
    offsets: Option<(u64, u64)>,
) -> Vec<(&'static str, Value)> {
    let (offset, end_offset) = match offsets {
        Some((a, b)) => (json!(a), json!(b)),
        None => (Value::Null, Value::Null),
    };
    vec![
        ("line", json!(line)),
        ("column", json!(column)),
        ("endLine", json!(end_line)),
        ("endColumn", json!(end_column)),
        ("offset", offset),
        ("endOffset", end_offset),
        (
            "range",
            json!({
                "start": {"line": line.saturating_sub(1), "character": column.saturating_sub(1)},
                "end": {"line": end_line.saturating_sub(1), "character": end_column.saturating_sub(1)},
            }),
        ),
    ]
}
