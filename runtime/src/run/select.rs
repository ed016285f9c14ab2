//! The selection of one suite's tests that depends on the suite itself: `FILE:LINE`
//! (the test whose `Test:` block holds the line) and `--last-failed` / `--failed-first`
//! (the tests that did not pass in the suite's last recorded run).

use std::collections::BTreeSet;
use std::path::Path;

use mcpr_compiler::source::SourceFile;

use crate::budget::History;
use crate::schedule::Selection;

/// What the command line asked for, before it is applied to each suite.
#[derive(Debug, Clone, Default)]
pub struct Asked {
    /// `-k EXPR`.
    pub keyword: Option<crate::schedule::keyword::Keyword>,
    /// `--last-failed`: only the tests that did not pass last time (all when none failed,
    /// or the suite never ran).
    pub last_failed: bool,
    /// `--failed-first`: those tests first, then the rest.
    pub failed_first: bool,
}

/// The names of the tests at `lines` of the `.mcpr` file at `path`: each line selects the
/// test whose block it is in (from its `Test:` header to the line before the next one).
pub fn tests_at_lines(path: &Path, shown: &str, lines: &[u32]) -> Result<BTreeSet<String>, String> {
    if path.extension().is_none_or(|e| e != "mcpr") {
        return Err(format!(
            "{shown}:{}: a line selects a test in a .mcpr file only; select by name with --test or -k",
            lines[0]
        ));
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    let headers = mcpr_compiler::syntax::test_headers(&SourceFile::new(shown, text));
    let mut names = BTreeSet::new();
    for &line in lines {
        match headers.iter().rev().find(|(_, at)| *at <= line) {
            Some((name, _)) => {
                names.insert(name.clone());
            }
            None => {
                return Err(match headers.first() {
                    Some((_, first)) => format!(
                        "{shown}:{line}: no test there (the first test starts at line {first})"
                    ),
                    None => format!("{shown}:{line}: the file has no test"),
                });
            }
        }
    }
    Ok(names)
}

/// The selection of one suite: the run's `-k`, the tests at `lines`, and what the history
/// says failed. The note, when there is one, says why every test runs after all.
pub fn for_suite(
    asked: &Asked,
    at_lines: Option<BTreeSet<String>>,
    history: &History,
    shown: &str,
) -> (Selection, Option<String>) {
    let mut selection = Selection {
        keyword: asked.keyword.clone(),
        names: at_lines,
        first: BTreeSet::new(),
    };
    let mut note = None;
    if asked.last_failed || asked.failed_first {
        let failed = history.failed_last(shown).unwrap_or_default();
        if failed.is_empty() {
            if asked.last_failed {
                note = Some(format!(
                    "note: {shown}: no test failed in its last recorded run; running every test"
                ));
            }
        } else if asked.last_failed {
            selection.names = Some(match selection.names.take() {
                Some(lines) => lines.union(&failed).cloned().collect(),
                None => failed,
            });
        } else {
            selection.first = failed;
        }
    }
    (selection, note)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::{RunRecord, TestRecord};

    fn record(suite: &str, tests: &[(&str, &str)]) -> RunRecord {
        RunRecord {
            version: 1,
            suite: suite.into(),
            finished_at: 0,
            tests: tests
                .iter()
                .map(|(id, status)| TestRecord {
                    id: (*id).into(),
                    name: (*id).into(),
                    status: (*status).into(),
                    duration_ms: 1,
                    calls_ms: Vec::new(),
                })
                .collect(),
        }
    }

    #[test]
    fn lines_select_the_enclosing_test() {
        let dir = tempfile::tempdir().expect("a folder");
        let path = dir.path().join("s.mcpr");
        std::fs::write(
            &path,
            "MCP Test 1\nSuite: \"s\"\nServer: x\n\nTest: \"one\"\n  Send \"ping\"\n\n# between\nTest: \"two\"\n  Send \"ping\"\n",
        )
        .expect("written");
        let names = tests_at_lines(&path, "s.mcpr", &[5, 6, 7]).expect("selects");
        assert_eq!(names.into_iter().collect::<Vec<_>>(), ["one"]);
        let names = tests_at_lines(&path, "s.mcpr", &[9, 40]).expect("selects");
        assert_eq!(names.into_iter().collect::<Vec<_>>(), ["two"]);
        assert_eq!(
            tests_at_lines(&path, "s.mcpr", &[2]).unwrap_err(),
            "s.mcpr:2: no test there (the first test starts at line 5)"
        );
        let yaml = dir.path().join("s.yaml");
        assert!(
            tests_at_lines(&yaml, "s.yaml", &[3])
                .unwrap_err()
                .contains("--test or -k")
        );
    }

    #[test]
    fn the_last_run_of_the_suite_decides_what_failed() {
        let history = History::from_runs(vec![
            record("a.mcpr", &[("x", "failed"), ("y", "passed")]),
            record("b.mcpr", &[("z", "failed")]),
            record(
                "a.mcpr",
                &[("x", "passed"), ("y", "errored"), ("w", "blocked")],
            ),
        ]);
        let asked = Asked {
            last_failed: true,
            ..Asked::default()
        };
        let (s, note) = for_suite(&asked, None, &history, "a.mcpr");
        assert_eq!(note, None);
        assert_eq!(
            s.names.expect("selected").into_iter().collect::<Vec<_>>(),
            ["w", "y"]
        );
        let (s, note) = for_suite(&asked, None, &history, "new.mcpr");
        assert!(s.names.is_none(), "a suite that never ran runs whole");
        assert!(note.expect("a note").contains("running every test"));
        let first = Asked {
            failed_first: true,
            ..Asked::default()
        };
        let (s, note) = for_suite(&first, None, &history, "a.mcpr");
        assert!(s.names.is_none() && note.is_none());
        assert_eq!(s.first.into_iter().collect::<Vec<_>>(), ["w", "y"]);
    }
}
