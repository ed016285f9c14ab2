//! JSON rendering. The shape is documented in `docs/diagnostics-json.md` and
//! is stable: fields are only ever added. Ranges are given the way editors
//! (LSP) want them — 0-based line and UTF-16 character — and also as 1-based
//! line/column for people, plus UTF-16 offsets.

use super::Summary;
use crate::SourceMap;
use crate::diagnostics::Diagnostic;
use serde_json::{Value, json};

/// The whole report as a JSON value.
pub fn json(diags: &[Diagnostic], map: &SourceMap, files: usize) -> Value {
    let items: Vec<Value> = diags.iter().map(|d| one(d, map)).collect();
    json!({
        "version": 1,
        "diagnostics": items,
        "summary": Summary::of(diags, files),
    })
}

fn range(map: &SourceMap, file: usize, span: crate::source::Span) -> Value {
    let f = map.get(file);
    let s = f.position(span.start as usize);
    let e = f.position(span.end as usize);
    json!({
        "start": { "line": s.line - 1, "character": s.column - 1 },
        "end": { "line": e.line - 1, "character": e.column - 1 },
    })
}

fn one(d: &Diagnostic, map: &SourceMap) -> Value {
    let f = map.get(d.file);
    let s = f.position(d.span.start as usize);
    let e = f.position(d.span.end as usize);
    let related: Vec<Value> = d
        .secondary
        .iter()
        .map(|l| json!({ "file": f.path(), "range": range(map, d.file, l.span), "message": l.message }))
        .collect();
    json!({
        "code": d.code.as_str(),
        "severity": d.severity.as_str(),
        "title": d.code.title(),
        "file": f.path(),
        "line": s.line,
        "column": s.column,
        "endLine": e.line,
        "endColumn": e.column,
        "offset": s.offset,
        "endOffset": e.offset,
        "range": range(map, d.file, d.span),
        "label": d.label,
        "message": d.message,
        "help": d.help,
        "related": related,
        "replaces": d.code.replaces(),
        "fix": d.fix.as_ref().map(|fix| fix_json(fix, d.file, map)),
    })
}

/// A machine-applicable fix: its message, whether `check --fix` applies it without
/// `--unsafe-fixes` (`applicability`: `safe` or `unsafe`) and its edits, each with its LSP range and UTF-16
/// offsets, ready to be an LSP `TextEdit`.
fn fix_json(fix: &crate::diagnostics::Fix, file: usize, map: &SourceMap) -> Value {
    let f = map.get(file);
    let edits: Vec<Value> = fix
        .edits
        .iter()
        .map(|e| {
            json!({
                "range": range(map, file, e.span),
                "offset": f.utf16_offset(e.span.start as usize),
                "endOffset": f.utf16_offset(e.span.end as usize),
                "newText": e.replacement,
            })
        })
        .collect();
    json!({
        "message": fix.message,
        "applicability": fix.applicability.as_str(),
        "edits": edits,
    })
}
