//! `mcpr check --fix`: the machine-applicable fixes of the diagnostics (the mechanical `Try:`
//! suggestions, `Diagnostic::fix`) applied to the files, each file written atomically, then
//! checked again, until no fix is left (at most [`ROUNDS`] times: a fix can reveal another).
//! Unsafe fixes (a name the user declared replaced by another) are applied only when asked
//! for (`--unsafe-fixes`); otherwise they are counted in what is left.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use mcpr_compiler::diagnostics::fix::{Fix, applies, apply};

use super::check::{CheckOptions, CheckReport, check};
use crate::files::{Access, write_atomic};

/// Most rounds of fixing and checking again.
pub const ROUNDS: usize = 8;

/// One applied fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fixed {
    /// The file as shown.
    pub file: String,
    /// 1-based line of the diagnostic, in the file as it was before the fix.
    pub line: u32,
    /// The diagnostic's code.
    pub code: String,
    /// What the fix did.
    pub message: String,
}

/// What `check --fix` did: the fixes applied, in order, and the check of the fixed files.
#[derive(Debug)]
pub struct FixOutcome {
    /// Every fix applied.
    pub fixed: Vec<Fixed>,
    /// The last check: what remains.
    pub report: CheckReport,
    /// Unsafe fixes of what remains, not applied because they were not asked for.
    pub unsafe_left: usize,
}

/// Checks `paths`, applies every machine-applicable fix (the unsafe ones only when
/// `unsafe_fixes`), and checks again. The error names a file that cannot be read or written.
/// Every diagnostic's fix is applied, those past `max_diagnostics` too; the report that
/// remains shows at most `max_diagnostics` per file.
pub fn check_and_fix(
    paths: &[PathBuf],
    opts: &CheckOptions,
    unsafe_fixes: bool,
) -> Result<FixOutcome, String> {
    let shown = opts;
    let opts = &CheckOptions {
        max_diagnostics: 0,
        ..shown.clone()
    };
    let mut fixed = Vec::new();
    let mut report = check(paths, opts)?;
    for _ in 0..ROUNDS {
        let mut by_file: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (i, d) in report.diagnostics.iter().enumerate() {
            if d.fix.as_ref().is_some_and(|f| applies(f, unsafe_fixes)) {
                by_file.entry(d.file).or_default().push(i);
            }
        }
        let mut wrote = false;
        for (file, indexes) in by_file {
            let source = report.map.get(file);
            let path = Path::new(source.path());
            if !path.is_file() {
                continue;
            }
            let fixes: Vec<&Fix> = indexes
                .iter()
                .filter_map(|&i| report.diagnostics[i].fix.as_ref())
                .collect();
            let result = apply(source.text(), &fixes);
            if result.applied.is_empty() || result.text == source.text() {
                continue;
            }
            write_atomic(path, result.text.as_bytes(), Access::Kept)?;
            wrote = true;
            for &k in &result.applied {
                let d = &report.diagnostics[indexes[k]];
                fixed.push(Fixed {
                    file: source.path().to_string(),
                    line: source.position(d.span.start as usize).line,
                    code: d.code.as_str().to_string(),
                    message: fixes[k].message.clone(),
                });
            }
        }
        if !wrote {
            break;
        }
        report = check(paths, opts)?;
    }
    let unsafe_left = report
        .diagnostics
        .iter()
        .filter(|d| d.fix.as_ref().is_some_and(|f| !applies(f, unsafe_fixes)))
        .count();
    report.limit(shown.max_diagnostics);
    Ok(FixOutcome {
        fixed,
        report,
        unsafe_left,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixes_are_applied_and_what_remains_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.mcpr");
        std::fs::write(
            &file,
            "Server: node s.js\n\nFlow: \"Add\"\n  Call tool \"add\"\n\nTest: \"one\"\n\tCal tool \"x\"\n  Use flow \"Ad\"\n  Set \"v\" using \"lowercse\" with:\n    value: a\n  Frobnicate\n",
        )
        .unwrap();
        let safe_only =
            check_and_fix(std::slice::from_ref(&file), &CheckOptions::default(), false).unwrap();
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(
            text.contains("Use flow \"Ad\""),
            "a flow name is not safe: {text}"
        );
        assert!(text.contains("using \"lowercase\""), "{text}");
        assert_eq!(safe_only.unsafe_left, 1);
        let out =
            check_and_fix(std::slice::from_ref(&file), &CheckOptions::default(), true).unwrap();
        assert_eq!(out.unsafe_left, 0);
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains("  Call tool \"x\"\n"), "{text}");
        assert!(text.contains("Use flow \"Add\""), "{text}");
        assert!(text.contains("using \"lowercase\""), "{text}");
        let codes: Vec<&str> = (safe_only.fixed.iter().chain(&out.fixed))
            .map(|f| f.code.as_str())
            .collect();
        for code in ["MCPLANG101", "MCPLANG204"] {
            assert!(codes.contains(&code), "{codes:?}");
        }
        assert!(out.report.has_errors(), "`Frobnicate` has no fix");
        let remaining: Vec<&str> = out
            .report
            .diagnostics
            .iter()
            .map(|d| d.code.as_str())
            .collect();
        assert_eq!(remaining, vec!["MCPLANG204"], "{remaining:?}");
    }
}
