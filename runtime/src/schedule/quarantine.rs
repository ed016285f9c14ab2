//! The quarantine file (`--quarantine FILE`, `MCPR_QUARANTINE`, `quarantine` in
//! `mcpr.toml`): tests known to be unreliable, which still run and are reported, but whose
//! failures do not fail the run.
//!
//! One entry a line: a test id or name, or a glob of them (`*` matches any text, whole
//! entry, case-insensitive, as `--test` matches); text after `#` is a comment, blank lines
//! are ignored. A quarantined test that fails, errors or is blocked is counted as
//! `quarantined`, not as failed; one that passes is reported so its entry can go. A test
//! blocked only by quarantined tests is quarantined too (it had no chance to run).
//!
//! There is no default file: a quarantine changes what fails a run, so it is always named
//! (on the command line, or in the committed `mcpr.toml`); mcpr's own `.mcpr/` folder is
//! ignored by version control and would hide it.

use std::path::Path;

use super::plan::glob_match;

/// The entries of a quarantine file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Quarantine {
    /// Each entry with the line it is on (1-based).
    entries: Vec<(String, usize)>,
    /// The file the entries came from, as shown to people.
    pub file: Option<String>,
}

impl Quarantine {
    /// The entries of the text of a quarantine file.
    pub fn parse(text: &str) -> Quarantine {
        let entries = text
            .lines()
            .enumerate()
            .filter_map(|(n, line)| {
                let entry = line.split('#').next().unwrap_or_default().trim();
                (!entry.is_empty()).then(|| (entry.to_string(), n + 1))
            })
            .collect();
        Quarantine {
            entries,
            file: None,
        }
    }

    /// Reads a quarantine file; a file that is missing or unreadable is an error that
    /// names it (a quarantine that silently lists nothing would fail runs it should not).
    pub fn load(path: &Path) -> Result<Quarantine, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the quarantine file {}: {e}", path.display()))?;
        let mut q = Quarantine::parse(&text);
        q.file = Some(path.display().to_string());
        Ok(q)
    }

    /// Whether the file lists nothing.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether the test with this id and name is quarantined.
    pub fn holds(&self, id: &str, name: &str) -> bool {
        self.entries
            .iter()
            .any(|(p, _)| glob_match(p, id) || glob_match(p, name))
    }

    /// The entries and their lines.
    pub fn entries(&self) -> impl Iterator<Item = (&str, usize)> {
        self.entries.iter().map(|(e, n)| (e.as_str(), *n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_ids_names_or_globs_with_comments() {
        let q = Quarantine::parse("# flaky on CI\nslow-search\n\n  Lists * # upstream bug\n");
        assert_eq!(q.entries().count(), 2);
        assert!(q.holds("slow-search", "Slow search"));
        assert!(q.holds("lists-tools", "lists tools"));
        assert!(!q.holds("search", "Search"));
        assert!(!Quarantine::parse("# nothing\n\n").holds("a", "a"));
    }
}
