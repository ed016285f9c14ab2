//! `mcpr fmt` over files and folders: each `.mcpr` file laid out by the compiler's
//! [`format_source`], written back atomically, checked (`--check`) or shown as a unified
//! diff (`--diff`).

use std::path::{Path, PathBuf};

use mcpr_compiler::SourceMap;
use mcpr_compiler::diagnostics::render;
use mcpr_compiler::fmt::{FormatError, format_source};
use mcpr_compiler::source::SourceFile;

use super::{discover, display_path};
use crate::files::{Access, write_atomic};

/// What `mcpr fmt` does with a file that is not in canonical layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FormatMode {
    /// Write the canonical layout back.
    #[default]
    Write,
    /// Only say which files would change.
    Check,
    /// Print a unified diff of each change.
    Diff,
}

/// What happened to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileOutcome {
    /// Already in canonical layout.
    Unchanged,
    /// Not in canonical layout: written back ([`FormatMode::Write`]), or would be, with the
    /// unified diff in [`FormatMode::Diff`].
    Changed {
        /// The unified diff (empty unless asked for).
        diff: String,
    },
    /// Not formatted: the rendered diagnostics or the reason.
    Refused(String),
}

/// Every file `fmt` looked at, in order.
#[derive(Debug, Default)]
pub struct FormatReport {
    /// Each file as shown to people, with its outcome.
    pub files: Vec<(String, FileOutcome)>,
}

impl FormatReport {
    /// Files that changed (or would).
    pub fn changed(&self) -> usize {
        self.count(|o| matches!(o, FileOutcome::Changed { .. }))
    }

    /// Files that could not be formatted.
    pub fn refused(&self) -> usize {
        self.count(|o| matches!(o, FileOutcome::Refused(_)))
    }

    fn count(&self, f: impl Fn(&FileOutcome) -> bool) -> usize {
        self.files.iter().filter(|(_, o)| f(o)).count()
    }
}

/// Formats the `.mcpr` files of `paths`: a file as named (any extension but `.yaml`,
/// `.yml`, `.json`, `.mcp`, which are refused), every `.mcpr` file below a folder. The error
/// names a path that cannot be read; a file that cannot be written is refused.
pub fn format_paths(paths: &[PathBuf], mode: FormatMode) -> Result<FormatReport, String> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let found = discover(std::slice::from_ref(p))?;
            files.extend(
                found
                    .into_iter()
                    .filter(|f| f.extension().is_some_and(|e| e == "mcpr")),
            );
        } else {
            files.push(p.clone());
        }
    }
    files.sort();
    files.dedup();
    let mut report = FormatReport::default();
    for path in &files {
        let shown = display_path(path);
        let outcome = format_file(path, &shown, mode)?;
        report.files.push((shown, outcome));
    }
    Ok(report)
}

fn format_file(path: &Path, shown: &str, mode: FormatMode) -> Result<FileOutcome, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let Ok(text) = String::from_utf8(bytes) else {
        return Ok(FileOutcome::Refused(format!("{shown} is not UTF-8 text")));
    };
    let formatted = match format_text(shown, &text) {
        Ok(f) => f,
        Err(why) => return Ok(FileOutcome::Refused(why)),
    };
    if formatted == text {
        return Ok(FileOutcome::Unchanged);
    }
    let diff = match mode {
        FormatMode::Diff => unified_diff(shown, &text, &formatted),
        _ => String::new(),
    };
    if mode == FormatMode::Write
        && let Err(e) = write_atomic(path, formatted.as_bytes(), Access::Kept)
    {
        return Ok(FileOutcome::Refused(e));
    }
    Ok(FileOutcome::Changed { diff })
}

/// One text (a file as shown, or `-` for standard input) in canonical layout; the error is
/// the reason as printed, with the syntax errors rendered against the text.
pub fn format_text(shown: &str, text: &str) -> Result<String, String> {
    format_source(shown, text).map_err(|e| match &e {
        FormatError::Syntax(diags) => {
            let mut map = SourceMap::new();
            map.add(SourceFile::new(shown, text));
            format!(
                "{}{shown}: not formatted: {e}",
                render::human(diags, &map, false)
            )
        }
        other => format!("{shown}: not formatted: {other}"),
    })
}

/// A unified diff of a file's text and its formatted text, three lines of context.
pub fn unified_diff(shown: &str, old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(shown, shown)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_checks_and_diffs_a_folder() {
        let dir = tempfile::tempdir().unwrap();
        let messy = dir.path().join("a.mcpr");
        let clean = dir.path().join("b.mcpr");
        let broken = dir.path().join("c.mcpr");
        std::fs::write(
            &messy,
            "Server:  node s.js\ntest: \"x\"\n    call TOOL \"add\"\n",
        )
        .unwrap();
        std::fs::write(
            &clean,
            "Server: node s.js\n\nTest: \"x\"\n  Call tool \"add\"\n",
        )
        .unwrap();
        std::fs::write(&broken, "Test: x\n  Frobnicate\n").unwrap();
        std::fs::write(dir.path().join("d.yaml"), "version: 1\ntests: []\n").unwrap();
        let paths = vec![dir.path().to_path_buf()];

        let checked = format_paths(&paths, FormatMode::Check).unwrap();
        assert_eq!(checked.files.len(), 3, "{checked:?}");
        assert_eq!((checked.changed(), checked.refused()), (1, 1));
        assert!(std::fs::read_to_string(&messy).unwrap().contains("TOOL"));

        let diffed = format_paths(&paths, FormatMode::Diff).unwrap();
        let FileOutcome::Changed { diff } = &diffed.files[0].1 else {
            panic!("{diffed:?}")
        };
        assert!(diff.contains("\n-    call TOOL \"add\"\n"), "{diff}");
        assert!(diff.contains("\n+  Call tool \"add\"\n"), "{diff}");

        let written = format_paths(&paths, FormatMode::Write).unwrap();
        assert_eq!(written.changed(), 1);
        assert_eq!(
            std::fs::read_to_string(&messy).unwrap(),
            "Server: node s.js\n\nTest: \"x\"\n  Call tool \"add\"\n"
        );
        let again = format_paths(&paths, FormatMode::Check).unwrap();
        assert_eq!(again.changed(), 0);
        match &again.files[2].1 {
            FileOutcome::Refused(why) => assert!(why.contains("MCPLANG204"), "{why}"),
            other => panic!("{other:?}"),
        }
    }
}
