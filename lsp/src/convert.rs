//! Compiler diagnostics as LSP diagnostics, and byte spans as UTF-16 ranges.

use lsp_types::{
    CodeDescription, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString,
    Range, Uri,
};
use mcpr_compiler::diagnostics::{Diagnostic, Severity};
use mcpr_compiler::source::{SourceFile, Span};

use crate::store;

/// A byte offset of a file as an LSP position, through the file's line index.
pub fn position(file: &SourceFile, byte: usize) -> lsp_types::Position {
    let p = file.position(byte);
    lsp_types::Position::new(p.line - 1, p.column - 1)
}

/// A byte span of a file as an LSP range (UTF-16 columns).
pub fn range(file: &SourceFile, span: Span) -> Range {
    Range {
        start: position(file, span.start as usize),
        end: position(file, span.end as usize),
    }
}

/// The byte offset of an LSP position in a file: a line past the end is the end of the
/// file, a column past the end of its line the end of the line, a column inside a surrogate
/// pair the start of its character.
pub fn offset(file: &SourceFile, pos: lsp_types::Position) -> usize {
    let line = pos.line as usize;
    if line >= file.line_count() {
        return file.text().len();
    }
    let span = file.line_span(line);
    let mut units = 0u32;
    for (i, ch) in file.line_text(line).char_indices() {
        let w = ch.len_utf16() as u32;
        if units + w > pos.character {
            return span.start as usize + i;
        }
        units += w;
    }
    span.end as usize
}

/// The address of a code's page: `{docs}/CODE.md` when a docs folder is known.
pub fn code_page(docs: Option<&str>, code: &str) -> Option<Uri> {
    let base = docs?;
    let page = format!("{}/{code}.md", base.trim_end_matches('/'));
    if page.contains("://") {
        page.parse().ok()
    } else {
        store::path_to_uri(&page)
    }
}

/// One compiler diagnostic of `file` (the document at `uri`) as the editor shows it: the
/// message with its `Try:` fix, the code with a link to its page, the secondary labels as
/// related information.
pub fn diagnostic(
    d: &Diagnostic,
    file: &SourceFile,
    uri: &Uri,
    docs: Option<&str>,
) -> lsp_types::Diagnostic {
    let mut message = d.message.clone();
    if !d.label.is_empty() && !message.contains(&d.label) {
        message = format!("{}: {message}", d.label);
    }
    if let Some(help) = &d.help {
        message.push_str("\nTry: ");
        message.push_str(help);
    }
    let related: Vec<_> = d
        .secondary
        .iter()
        .map(|l| DiagnosticRelatedInformation {
            location: Location {
                uri: uri.clone(),
                range: range(file, l.span),
            },
            message: l.message.clone(),
        })
        .collect();
    lsp_types::Diagnostic {
        range: range(file, d.span),
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            _ => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(d.code.as_str().to_string())),
        code_description: code_page(docs, d.code.as_str()).map(|href| CodeDescription { href }),
        source: Some("mcpr".into()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        tags: None,
        data: None,
    }
}
