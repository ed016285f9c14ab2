//! Compiler diagnostics as LSP diagnostics, and byte spans as UTF-16 ranges.

use lsp_types::{
    CodeDescription, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString,
    Range, Uri,
};
use mcpr_compiler::diagnostics::{Diagnostic, Severity};
use mcpr_compiler::source::{SourceFile, Span};

use crate::store;

/// A byte span of a file as an LSP range (UTF-16 columns).
pub fn range(file: &SourceFile, span: Span) -> Range {
    store::range_of(file.text(), span.range())
}

/// The byte offset of an LSP position in a file.
pub fn offset(file: &SourceFile, pos: lsp_types::Position) -> usize {
    store::byte_of(file.text(), pos)
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
