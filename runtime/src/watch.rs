//! `mcpr run --watch`: which files a run depends on (the suites, their imports and their
//! local data files), which suites a change touches (they run first), and waiting for the
//! next change, debounced (the `notify` crate through `notify-debouncer-mini`).
//!
//! Folders holding the files are watched, not the files themselves: editors save by writing
//! a new file and renaming it over the old one, which a watch on the old file would miss.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use notify_debouncer_mini::notify::{RecommendedWatcher, RecursiveMode};
use notify_debouncer_mini::{DebounceEventResult, Debouncer, new_debouncer};

/// How long the files must be quiet before a change counts (one save is several events).
pub const DEBOUNCE: Duration = Duration::from_millis(200);

/// The suites of a run and the files each depends on.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plan {
    /// The suite files, in the order the paths named them.
    pub suites: Vec<PathBuf>,
    /// Every file each suite reads (itself first), made absolute.
    pub inputs: BTreeMap<PathBuf, BTreeSet<PathBuf>>,
    /// Folders named on the command line: a new suite in them counts as a change.
    pub folders: Vec<PathBuf>,
}

fn absolute(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| {
        std::env::current_dir()
            .map(|d| d.join(p))
            .unwrap_or_else(|_| p.to_path_buf())
    })
}

/// The suites under `paths` and what each reads. A suite that does not compile still
/// counts with itself (its fix is a change to watch for).
pub fn plan(paths: &[PathBuf]) -> Result<Plan, String> {
    let suites = crate::suites::discover(paths)?;
    let mut inputs = BTreeMap::new();
    for suite in &suites {
        let mut files = BTreeSet::new();
        files.insert(absolute(suite));
        if let Ok(c) = crate::suites::compile_file(suite, &Default::default()) {
            for f in c.map.files() {
                files.insert(absolute(Path::new(f.path())));
            }
            if let Some(s) = &c.suite {
                let base = suite.parent().unwrap_or(Path::new("."));
                for d in s.data_sources.iter().flat_map(|m| m.iter()).map(|(_, d)| d) {
                    data_files(d, base, &mut files);
                }
            }
        }
        inputs.insert(suite.clone(), files);
    }
    let folders = paths
        .iter()
        .filter(|p| p.is_dir())
        .map(|p| absolute(p))
        .collect();
    Ok(Plan {
        suites,
        inputs,
        folders,
    })
}

/// The local files of a data source (and of what it joins), relative to the working
/// folder or to the suite's folder, whichever exists.
fn data_files(d: &mcpr_compiler::ir::DataSource, base: &Path, out: &mut BTreeSet<PathBuf>) {
    if let Some(f) = &d.file {
        let p = Path::new(f);
        let here = if p.exists() {
            p.to_path_buf()
        } else {
            base.join(p)
        };
        out.insert(absolute(&here));
    }
    if let Some(j) = &d.join {
        data_files(j, base, out);
    }
}

/// The suites in the order of the next run: those reading a changed file first.
pub fn order(plan: &Plan, changed: &[PathBuf]) -> Vec<PathBuf> {
    let touched = |s: &PathBuf| {
        plan.inputs
            .get(s)
            .is_some_and(|files| changed.iter().any(|c| files.contains(c)))
    };
    let (mut first, rest): (Vec<PathBuf>, Vec<PathBuf>) =
        plan.suites.iter().cloned().partition(|s| touched(s));
    first.extend(rest);
    first
}

/// A watch over a plan's files.
pub struct Watch {
    _debouncer: Debouncer<RecommendedWatcher>,
    events: mpsc::Receiver<DebounceEventResult>,
    files: BTreeSet<PathBuf>,
    folders: Vec<PathBuf>,
    /// What each file held when the watch started (or when it last counted as changed):
    /// reading a file is an event too, and so is saving it unchanged; neither is a change.
    seen: BTreeMap<PathBuf, Option<[u8; 32]>>,
}

/// A file's contents as a digest; `None` when it cannot be read (deleted, say).
fn fingerprint(p: &Path) -> Option<[u8; 32]> {
    use sha2::Digest;
    std::fs::read(p)
        .ok()
        .map(|b| sha2::Sha256::digest(&b).into())
}

/// The file extensions of suites (a new one in a watched folder is a change).
fn suite_like(p: &Path) -> bool {
    p.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| ["mcpr", "mcp", "yaml", "yml", "json"].contains(&e))
}

impl Watch {
    /// Starts watching every file of `plan` (through its folder) and its folders.
    pub fn new(plan: &Plan) -> Result<Watch, String> {
        let (tx, events) = mpsc::channel();
        let mut debouncer =
            new_debouncer(DEBOUNCE, tx).map_err(|e| format!("cannot watch files: {e}"))?;
        let files: BTreeSet<PathBuf> = plan.inputs.values().flatten().cloned().collect();
        let mut dirs: BTreeSet<PathBuf> = files
            .iter()
            .filter_map(|f| f.parent().map(Path::to_path_buf))
            .collect();
        for f in &plan.folders {
            dirs.remove(f);
        }
        for d in &dirs {
            debouncer
                .watcher()
                .watch(d, RecursiveMode::NonRecursive)
                .map_err(|e| format!("cannot watch {}: {e}", d.display()))?;
        }
        for d in &plan.folders {
            debouncer
                .watcher()
                .watch(d, RecursiveMode::Recursive)
                .map_err(|e| format!("cannot watch {}: {e}", d.display()))?;
        }
        let seen = files.iter().map(|f| (f.clone(), fingerprint(f))).collect();
        Ok(Watch {
            _debouncer: debouncer,
            events,
            files,
            folders: plan.folders.clone(),
            seen,
        })
    }

    /// The changed files seen so far (empty when none), without waiting.
    pub fn changed(&mut self) -> Vec<PathBuf> {
        let mut out = BTreeSet::new();
        while let Ok(batch) = self.events.try_recv() {
            for e in batch.into_iter().flatten() {
                let p = absolute(&e.path);
                let relevant = self.files.contains(&p)
                    || (suite_like(&p) && self.folders.iter().any(|f| p.starts_with(f)));
                if !relevant || out.contains(&p) {
                    continue;
                }
                let now = fingerprint(&p);
                if self.seen.get(&p) != Some(&now) {
                    self.seen.insert(p.clone(), now);
                    out.insert(p);
                }
            }
        }
        out.into_iter().collect()
    }

    /// Waits (polling, so a signal handler on the same thread still runs) until a file
    /// changes; the changed files.
    pub async fn next(&mut self) -> Vec<PathBuf> {
        loop {
            let changed = self.changed();
            if !changed.is_empty() {
                return changed;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_suites_of_a_changed_file_run_first() {
        let a = PathBuf::from("a.mcpr");
        let b = PathBuf::from("b.mcpr");
        let shared = PathBuf::from("/x/flows.mcpr");
        let mut plan = Plan {
            suites: vec![a.clone(), b.clone()],
            ..Plan::default()
        };
        plan.inputs.insert(
            a.clone(),
            [PathBuf::from("/x/a.mcpr")].into_iter().collect(),
        );
        plan.inputs.insert(
            b.clone(),
            [PathBuf::from("/x/b.mcpr"), shared.clone()]
                .into_iter()
                .collect(),
        );
        assert_eq!(order(&plan, &[]), [a.clone(), b.clone()]);
        assert_eq!(order(&plan, &[shared]), [b.clone(), a.clone()]);
    }

    #[tokio::test]
    async fn an_edit_of_a_watched_file_is_seen() {
        let dir = tempfile::tempdir().unwrap();
        let suite = dir.path().join("a.mcpr");
        std::fs::write(&suite, "MCP Test 1\n").unwrap();
        let plan = plan(std::slice::from_ref(&suite)).unwrap();
        let mut w = Watch::new(&plan).unwrap();
        std::fs::write(dir.path().join("other.txt"), "x").unwrap();
        // Read and saved unchanged: no change.
        let _ = std::fs::read(&suite).unwrap();
        std::fs::write(&suite, "MCP Test 1\n").unwrap();
        tokio::time::sleep(DEBOUNCE * 3).await;
        assert!(w.changed().is_empty());
        std::fs::write(&suite, "MCP Test 1\n# edited\n").unwrap();
        let changed = tokio::time::timeout(Duration::from_secs(20), w.next())
            .await
            .expect("the edit is seen");
        assert_eq!(changed, [absolute(&suite)]);
    }
}
