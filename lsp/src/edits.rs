//! Edits the server proposes: the canonical layout of `mcpr fmt` (formatting) and the
//! machine-applicable fixes of diagnostics (code actions: one quick fix per diagnostic, and
//! every safe fix of the file at once). A quick fix carries its applicability in `data`
//! (`{"applicability": "safe"}` or `"unsafe"`); only safe ones are preferred, and the
//! fix-all action leaves the unsafe ones out, as `check --fix` does.

use std::collections::HashMap;

use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, Range, TextEdit, Uri, WorkspaceEdit,
};
use mcpr_compiler::diagnostics::fix::{self, Applicability};
use mcpr_compiler::fmt::format_source;
use mcpr_compiler::source::{SourceFile, Span};

use crate::convert;
use crate::open::Open;

/// The edit that turns `old` into `new`: the part between their common start and end.
pub fn minimal_edit(file: &SourceFile, new: &str) -> Option<TextEdit> {
    let old = file.text();
    if old == new {
        return None;
    }
    let mut start = old
        .bytes()
        .zip(new.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(start) || !new.is_char_boundary(start) {
        start -= 1;
    }
    let max_tail = old.len().min(new.len()) - start;
    let mut tail = old
        .bytes()
        .rev()
        .zip(new.bytes().rev())
        .take(max_tail)
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(old.len() - tail) || !new.is_char_boundary(new.len() - tail) {
        tail -= 1;
    }
    Some(TextEdit {
        range: convert::range(file, Span::new(start, old.len() - tail)),
        new_text: new[start..new.len() - tail].to_string(),
    })
}

/// The document in `mcpr fmt`'s layout: no edit when it already is; the error says why a
/// file cannot be formatted (syntax errors, not a `.mcpr` file).
pub(crate) fn format(open: &Open) -> Result<Vec<TextEdit>, String> {
    let file = open.analysis.entry();
    let formatted = format_source(file.path(), file.text()).map_err(|e| e.to_string())?;
    Ok(minimal_edit(file, &formatted).into_iter().collect())
}

fn overlaps(a: Range, b: Range) -> bool {
    let key = |p: lsp_types::Position| (p.line, p.character);
    key(a.start) <= key(b.end) && key(b.start) <= key(a.end)
}

/// The quick fixes of the diagnostics touching `range`, and a fix-all action of the file's
/// safe fixes when it has more than one.
pub(crate) fn actions(
    open: &Open,
    uri: &Uri,
    range: Range,
    only: Option<&[CodeActionKind]>,
    docs: Option<&str>,
) -> Vec<CodeActionOrCommand> {
    let file = open.analysis.entry();
    let wants = |k: &CodeActionKind| {
        only.is_none_or(|o| o.iter().any(|w| k.as_str().starts_with(w.as_str())))
    };
    let fixable: Vec<_> = open
        .analysis
        .diagnostics
        .iter()
        .filter(|d| d.file == 0)
        .filter_map(|d| d.fix.as_ref().map(|f| (d, f)))
        .collect();
    let mut out = Vec::new();
    if wants(&CodeActionKind::QUICKFIX) {
        for (d, f) in &fixable {
            let shown = convert::diagnostic(d, file, uri, docs);
            if !overlaps(shown.range, range) {
                continue;
            }
            let edits = f
                .edits
                .iter()
                .map(|e| TextEdit {
                    range: convert::range(file, e.span),
                    new_text: e.replacement.clone(),
                })
                .collect();
            out.push(action(
                f.message.clone(),
                CodeActionKind::QUICKFIX,
                uri,
                edits,
                vec![shown],
                Some(f.applicability),
            ));
        }
    }
    let fixes: Vec<_> = fixable
        .iter()
        .map(|(_, f)| *f)
        .filter(|f| fix::applies(f, false))
        .collect();
    if fixes.len() > 1 && wants(&CodeActionKind::SOURCE_FIX_ALL) {
        let applied = fix::apply(file.text(), &fixes);
        if let Some(edit) = minimal_edit(file, &applied.text) {
            let title = format!("Apply {} mcpr fixes", applied.applied.len());
            out.push(action(
                title,
                CodeActionKind::SOURCE_FIX_ALL,
                uri,
                vec![edit],
                Vec::new(),
                None,
            ));
        }
    }
    out
}

fn action(
    title: String,
    kind: CodeActionKind,
    uri: &Uri,
    edits: Vec<TextEdit>,
    diagnostics: Vec<lsp_types::Diagnostic>,
    applicability: Option<Applicability>,
) -> CodeActionOrCommand {
    let preferred = kind == CodeActionKind::QUICKFIX && applicability == Some(Applicability::Safe);
    CodeActionOrCommand::CodeAction(CodeAction {
        title,
        kind: Some(kind),
        diagnostics: (!diagnostics.is_empty()).then_some(diagnostics),
        edit: Some(WorkspaceEdit {
            changes: Some(HashMap::from([(uri.clone(), edits)])),
            ..WorkspaceEdit::default()
        }),
        is_preferred: preferred.then_some(true),
        data: applicability.map(|a| serde_json::json!({ "applicability": a.as_str() })),
        ..CodeAction::default()
    })
}
