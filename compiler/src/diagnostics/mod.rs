//! Diagnostics: the one `Diagnostic` type, the registry of codes, the data of
//! every problem (`Problem`) kept apart from its wording (`describe`), and one
//! renderer per output format.

pub mod codes;
pub mod collected;
pub mod fix;
pub mod problem;
pub mod render;
mod wording;

pub use codes::{Code, Severity};
pub use collected::{Collected, Found, Sink, Unshown};
pub use fix::{Applicability, Edit, Fix};
pub use problem::{FlowExcess, Problem, Surface};
pub use wording::Wording;

use crate::source::Span;
use serde::Serialize;

/// A secondary place in the source that helps explain a diagnostic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Label {
    /// Where.
    pub span: Span,
    /// What to say there.
    pub message: String,
}

/// A located problem report: code, severity, primary span with a short label,
/// secondary labels, an explanation and a `Try:` fix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// The registered code.
    pub code: Code,
    /// Error or warning.
    pub severity: Severity,
    /// Index of the file in the `SourceMap` the diagnostic belongs to.
    pub file: usize,
    /// The exact span the caret points at.
    pub span: Span,
    /// Short text shown at the caret.
    pub label: String,
    /// The explanation sentence.
    pub message: String,
    /// The suggested fix, printed after `Try:`.
    pub help: Option<String>,
    /// Other places that matter.
    pub secondary: Vec<Label>,
    /// The `Try:` suggestion as edits a tool may apply without asking (`mcpr check --fix`,
    /// an editor's quick fix), when it is mechanical.
    pub fix: Option<Fix>,
}

impl Diagnostic {
    /// Builds a diagnostic from the data of a problem and its location.
    pub fn new(problem: Problem, file: usize, span: Span) -> Self {
        let w = problem.describe();
        let fix = problem.rename().map(|(written, suggested, applicability)| {
            Fix::rename(span, written, suggested, applicability)
        });
        Diagnostic {
            code: w.code,
            severity: w.code.severity(),
            file,
            span,
            label: w.label,
            message: w.message,
            help: w.help,
            secondary: Vec::new(),
            fix,
        }
    }

    /// Sets the machine-applicable fix.
    pub fn with_fix(mut self, fix: Fix) -> Self {
        self.fix = Some(fix);
        self
    }

    /// Adds a secondary label.
    pub fn with_secondary(mut self, span: Span, message: impl Into<String>) -> Self {
        self.secondary.push(Label {
            span,
            message: message.into(),
        });
        self
    }

    /// Whether this diagnostic is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Sorts diagnostics by file, position and code, and drops exact repeats, so
/// every problem is reported once and in reading order.
pub fn sort(diags: &mut Vec<Diagnostic>) {
    diags.sort_by(|a, b| {
        (a.file, a.span.start, a.span.end, a.code).cmp(&(b.file, b.span.start, b.span.end, b.code))
    });
    diags.dedup_by(|a, b| a.file == b.file && a.span == b.span && a.code == b.code);
}
