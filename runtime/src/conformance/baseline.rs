//! The expected-failures baseline of `mcpr conformance --baseline FILE`: one check per
//! line, `CHECK` (every version) or `CHECK@VERSION` (that version alone); blank lines and
//! `#` comments are ignored. A listed check that fails (or warns) is an expected failure:
//! shown, not counted. A listed check that succeeds is stale: it fails the run until the
//! line is removed, so the baseline only ever shrinks.

use std::path::Path;

use mcpr_compiler::stdlib::LibraryDoc;

use super::{CheckResult, Verdict};

/// One line of the baseline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The check's id.
    pub check: String,
    /// The version it is about (`None`: every version).
    pub version: Option<String>,
    /// Its line in the file (1-based).
    pub line: usize,
}

impl Entry {
    fn matches(&self, c: &CheckResult) -> bool {
        self.check == c.check && self.version.as_ref().is_none_or(|v| *v == c.version)
    }

    fn shown(&self) -> String {
        match &self.version {
            Some(v) => format!("{}@{v}", self.check),
            None => self.check.clone(),
        }
    }
}

/// A parsed baseline file.
#[derive(Debug, Clone, Default)]
pub struct Baseline {
    /// The file as given.
    pub file: String,
    /// Its entries in file order.
    pub entries: Vec<Entry>,
}

impl Baseline {
    /// Parses the text of `file`.
    pub fn parse(file: &str, text: &str) -> Result<Baseline, String> {
        let mut entries = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            // A `#` starts a comment, on its own line or after the entry (as documented).
            let line = raw.split('#').next().unwrap_or_default().trim();
            if line.is_empty() {
                continue;
            }
            let (check, version) = match line.split_once('@') {
                Some((c, v)) => (c.trim(), Some(v.trim().to_string())),
                None => (line, None),
            };
            if check.is_empty() || check.contains(char::is_whitespace) {
                return Err(format!(
                    "{file}:{}: `{line}` is not a check id (`tools.unknown-tool` or `tools.unknown-tool@2025-11-25`)",
                    i + 1
                ));
            }
            entries.push(Entry {
                check: check.to_string(),
                version,
                line: i + 1,
            });
        }
        Ok(Baseline {
            file: file.to_string(),
            entries,
        })
    }

    /// Reads and parses `path`.
    pub fn read(path: &Path) -> Result<Baseline, String> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the baseline {shown}: {e}"))?;
        Baseline::parse(&shown, &text)
    }

    /// Every entry names a check of the libraries (a typo would silently expect nothing).
    pub fn check_names(&self, libs: &[LibraryDoc]) -> Result<(), String> {
        for e in &self.entries {
            let known = libs
                .iter()
                .flat_map(|l| &l.flows)
                .any(|f| f.check == e.check)
                || super::STDIO_CHECKS
                    .iter()
                    .chain(super::LIBRARY_CHECKS)
                    .any(|c| c.check == e.check)
                || super::http::ids().contains(&e.check.as_str());
            if !known {
                return Err(format!(
                    "{}:{}: `{}` is not a check of the libraries run (see `mcpr conformance --list`)",
                    self.file, e.line, e.check
                ));
            }
        }
        Ok(())
    }

    /// Marks the expected failures and fails the stale entries; returns the entries that
    /// matched no check that ran (another version, a check not applicable).
    pub fn apply(&self, checks: &mut [CheckResult]) -> Vec<String> {
        let mut unused = Vec::new();
        for e in &self.entries {
            let mut used = false;
            for c in checks.iter_mut().filter(|c| e.matches(c)) {
                match c.verdict {
                    Verdict::Failure | Verdict::Warning => {
                        c.expected = true;
                        used = true;
                    }
                    Verdict::Success => {
                        c.verdict = Verdict::Failure;
                        c.detail = Some(format!(
                            "stale baseline entry: the check now passes; remove `{}` from {} (line {})",
                            e.shown(),
                            self.file,
                            e.line
                        ));
                        used = true;
                    }
                    Verdict::Info => {}
                }
            }
            if !used {
                unused.push(e.shown());
            }
        }
        unused
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(id: &str, version: &str, verdict: Verdict) -> CheckResult {
        CheckResult {
            check: id.into(),
            library: "tools".into(),
            flow: "f".into(),
            checks: "c".into(),
            version: version.into(),
            verdict,
            spec: vec![],
            detail: None,
            expected: false,
        }
    }

    #[test]
    fn failures_are_expected_and_passes_are_stale() {
        let b =
            Baseline::parse("b.txt", "# known\ntools.a\ntools.b@2026-07-28\n\ntools.c\n").unwrap();
        let mut checks = vec![
            check("tools.a", "2025-11-25", Verdict::Failure),
            check("tools.b", "2025-11-25", Verdict::Failure),
            check("tools.b", "2026-07-28", Verdict::Success),
            check("tools.c", "2025-11-25", Verdict::Info),
        ];
        let unused = b.apply(&mut checks);
        assert!(checks[0].expected && checks[0].verdict == Verdict::Failure);
        assert!(!checks[1].expected, "the entry names the other version");
        assert_eq!(checks[2].verdict, Verdict::Failure);
        assert!(checks[2].detail.as_deref().unwrap().contains("stale"));
        assert_eq!(unused, vec!["tools.c".to_string()]);
    }

    #[test]
    fn a_line_that_is_no_check_id_is_located() {
        let e = Baseline::parse("b.txt", "ok.one\nnot an id\n").unwrap_err();
        assert!(e.starts_with("b.txt:2:"), "{e}");
    }
}
