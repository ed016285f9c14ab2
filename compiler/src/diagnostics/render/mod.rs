//! One renderer per output format. Each takes the diagnostics and the source
//! map and returns text; none of them decides colour or prints by itself.

mod excerpt;
mod github;
mod human;
mod json;
mod short;

pub use github::github;
pub use human::human;
pub use json::json;
pub use short::short;

use super::{Diagnostic, Severity};

/// The output formats of `mcpr check --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Source line, caret, explanation and fix (ariadne).
    Human,
    /// One line per diagnostic.
    Short,
    /// Stable JSON with UTF-16 ranges.
    Json,
    /// GitHub Actions workflow annotations.
    Github,
}

/// Counts of errors and warnings, for summary lines.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    /// Number of files checked.
    pub files: usize,
    /// Number of errors.
    pub errors: usize,
    /// Number of warnings.
    pub warnings: usize,
}

impl Summary {
    /// Counts the diagnostics of a run over `files` files.
    pub fn of(diags: &[Diagnostic], files: usize) -> Self {
        let errors = diags
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count();
        Summary {
            files,
            errors,
            warnings: diags.len() - errors,
        }
    }

    /// `2 errors and 1 warning in 3 files`, or the all-clear line.
    pub fn line(&self) -> String {
        let files = plural(self.files, "file");
        if self.errors == 0 && self.warnings == 0 {
            return format!("{files} checked: no problems found");
        }
        format!(
            "{} and {} in {files}",
            plural(self.errors, "error"),
            plural(self.warnings, "warning")
        )
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}
