//! Latency budgets and the run history they are measured on.
//!
//! Every run appends one line to a history file (JSON Lines, default
//! `.mcpr/history.jsonl` in the working folder): the suite's path, when it ran, and each
//! test's id, name, outcome, duration and the latency of each of its calls to the server.
//! After a run, each of the suite's `budgets` ("p95 500 ms over 20 calls") takes the
//! latencies of the calls of the passed runs of its test (`*`: every test of the current
//! run), newest first, up to its window (default 20 calls) — the current run counted once —
//! and compares the nearest-rank percentile with its limit. A call is a step that talks to the
//! server (a tool call, a read, a request, a native request or wait); starting the server,
//! the handshake and local steps (`Set`, `echo`, checks) are not part of it. Fewer than
//! `min(3, window)` samples leave a budget pending: a verdict on one or two measurements
//! would be noise.
//!
//! The history also flags unsteady tests ([`flips`]): a test whose outcome changed between
//! passing and not passing (failed, errored, flaky) at least twice in its last ten runs.
//!
//! `--fail-on-regression` compares each passed test with its own history: with at least five
//! earlier passed samples (window 50) a duration over `max(1.5 × median, median + 50 ms)` is a
//! regression.

use std::collections::BTreeSet;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use mcpr_compiler::ir::Budget;
use serde::{Deserialize, Serialize};

use crate::exec::{Outcome, TestResult};

/// The history file used when none is given.
pub const DEFAULT_HISTORY: &str = ".mcpr/history.jsonl";
/// Samples a budget looks at when it names no window.
pub const DEFAULT_WINDOW: usize = 20;
/// Samples of its own past a test needs before it can regress.
pub const REGRESSION_MIN_SAMPLES: usize = 5;
/// Past samples a regression check looks at.
pub const REGRESSION_WINDOW: usize = 50;
/// Version of a history line's layout.
const HISTORY_VERSION: u32 = 1;

/// One run as the history keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunRecord {
    /// Layout version (1).
    pub version: u32,
    /// The suite file, as given on the command line.
    pub suite: String,
    /// Milliseconds since the Unix epoch when the run ended.
    pub finished_at: u64,
    /// Every test of the run.
    pub tests: Vec<TestRecord>,
}

/// One test of a recorded run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TestRecord {
    /// Test id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Outcome (`passed`, `failed`, …).
    pub status: String,
    /// Milliseconds.
    pub duration_ms: u64,
    /// Milliseconds of each call to the server, in order (absent in lines written before
    /// calls were recorded: those give budgets no samples).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calls_ms: Vec<u64>,
}

impl RunRecord {
    /// The record of a run of the suite at `suite`.
    pub fn new(suite: &str, tests: &[TestResult]) -> RunRecord {
        let finished_at = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0);
        RunRecord {
            version: HISTORY_VERSION,
            suite: suite.to_string(),
            finished_at,
            tests: tests
                .iter()
                .map(|t| TestRecord {
                    id: t.id.clone(),
                    name: t.name.clone(),
                    status: t.status.as_str().to_string(),
                    duration_ms: t.duration_ms,
                    calls_ms: t.call_durations(),
                })
                .collect(),
        }
    }
}

/// The runs recorded in a history file.
#[derive(Debug, Clone, Default)]
pub struct History {
    runs: Vec<RunRecord>,
    /// The length in bytes of each run's line, newline included (same order as `runs`).
    sizes: Vec<usize>,
    /// Lines that could not be read (a torn write, a hand edit), skipped.
    pub skipped_lines: usize,
}

/// Runs of one suite the history keeps: more than budgets, flips (the last
/// [`FLIP_WINDOW`]) and `--last-failed` (the last one) look at.
pub const KEEP_RUNS: usize = 50;
/// Bytes the history file keeps at most: older runs go first (the last run of each suite
/// always stays), so reading it at every start costs the same however long a project has
/// run.
pub const MAX_HISTORY_BYTES: usize = 8 << 20;

impl History {
    /// Reads a history file; a missing file is an empty history. Unreadable lines are
    /// skipped and counted, so one torn line never costs the rest.
    pub fn load(path: &Path) -> Result<History, String> {
        let file = match std::fs::File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(History::default()),
            Err(e) => return Err(format!("cannot read history {}: {e}", path.display())),
        };
        let mut h = History::default();
        for line in std::io::BufReader::new(file).lines() {
            let line = line.map_err(|e| format!("cannot read history {}: {e}", path.display()))?;
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<RunRecord>(&line) {
                Ok(r) if r.version == HISTORY_VERSION => {
                    h.runs.push(r);
                    h.sizes.push(line.len() + 1);
                }
                _ => h.skipped_lines += 1,
            }
        }
        Ok(h)
    }

    /// A history of the given runs, oldest first.
    pub fn from_runs(runs: Vec<RunRecord>) -> History {
        let sizes = runs
            .iter()
            .map(|r| serde_json::to_string(r).map_or(0, |l| l.len() + 1))
            .collect();
        History {
            runs,
            sizes,
            skipped_lines: 0,
        }
    }

    /// Durations of the passed runs of test `name` of `suite`, newest first.
    fn samples(&self, suite: &str, name: &str) -> Vec<u64> {
        self.passed(suite, name).map(|t| t.duration_ms).collect()
    }

    /// Latencies of the calls of the passed runs of test `name` of `suite`, newest first.
    fn call_samples(&self, suite: &str, name: &str) -> Vec<u64> {
        self.passed(suite, name)
            .flat_map(|t| t.calls_ms.iter().rev().copied())
            .collect()
    }

    /// The ids of the tests of `suite` that did not pass (failed, errored, blocked or
    /// interrupted) in its last recorded run; `None` when the suite never ran.
    pub fn failed_last(&self, suite: &str) -> Option<BTreeSet<String>> {
        let last = self.runs.iter().rev().find(|r| r.suite == suite)?;
        Some(
            last.tests
                .iter()
                .filter(|t| {
                    matches!(
                        t.status.as_str(),
                        "failed" | "errored" | "blocked" | "interrupted"
                    )
                })
                .map(|t| t.id.clone())
                .collect(),
        )
    }

    /// The passed runs of test `name` of `suite`, newest first.
    fn passed<'h>(&'h self, suite: &'h str, name: &'h str) -> impl Iterator<Item = &'h TestRecord> {
        self.runs
            .iter()
            .rev()
            .filter(move |r| r.suite == suite)
            .flat_map(|r| r.tests.iter())
            .filter(move |t| t.name == name && t.status == "passed")
    }
}

/// Runs a flip count looks at, the current one included.
pub const FLIP_WINDOW: usize = 10;
/// Flips within the window that mark a test unsteady (one flip is a fix or a breakage).
pub const FLIP_THRESHOLD: usize = 2;

/// A test whose outcome changed between passing and not passing several times in its
/// recent runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Flip {
    /// The test's id.
    pub id: String,
    /// The test's name.
    pub test: String,
    /// Changes between passing and not passing, oldest run to newest.
    pub flips: usize,
    /// Runs looked at (at most [`FLIP_WINDOW`]), the current one included.
    pub runs: usize,
}

/// Whether a recorded outcome counts as a pass (`Some(true)`), a failure (`Some(false)`) or
/// says nothing (skipped, blocked: the test did not run). A flaky run counts as a failure:
/// the test did fail before it passed.
fn verdict(status: &str) -> Option<bool> {
    match status {
        "passed" => Some(true),
        "failed" | "errored" | "flaky" => Some(false),
        _ => None,
    }
}

/// The tests of `current` whose outcome flipped at least [`FLIP_THRESHOLD`] times over their
/// last [`FLIP_WINDOW`] runs of `suite` (the current one included; runs in which the test
/// did not run are left out).
pub fn flips(suite: &str, current: &[TestResult], history: &History) -> Vec<Flip> {
    let mut out = Vec::new();
    for t in current {
        let Some(now) = verdict(t.status.as_str()) else {
            continue;
        };
        let mut seen: Vec<bool> = history
            .runs
            .iter()
            .rev()
            .filter(|r| r.suite == suite)
            .filter_map(|r| r.tests.iter().find(|p| p.id == t.id))
            .filter_map(|p| verdict(&p.status))
            .take(FLIP_WINDOW - 1)
            .collect();
        seen.reverse();
        seen.push(now);
        let flips = seen.windows(2).filter(|w| w[0] != w[1]).count();
        if flips >= FLIP_THRESHOLD {
            out.push(Flip {
                id: t.id.clone(),
                test: t.name.clone(),
                flips,
                runs: seen.len(),
            });
        }
    }
    out
}

/// Appends one run to a history file, creating its folder (with a `.gitignore` keeping the
/// folder out of version control, when mcpr creates it). One `write` per line, so runs
/// finishing at the same time never interleave within a line.
pub fn append(path: &Path, record: &RunRecord) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
        && !dir.exists()
    {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        if dir.file_name().is_some_and(|n| n == ".mcpr") {
            let _ = std::fs::write(dir.join(".gitignore"), "# written by mcpr\n*\n");
        }
    }
    let mut line = serde_json::to_string(record).map_err(|e| e.to_string())?;
    line.push('\n');
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| format!("cannot write history {}: {e}", path.display()))?;
    f.write_all(line.as_bytes())
        .map_err(|e| format!("cannot write history {}: {e}", path.display()))
}

/// Adds `record` to `history` and to its file: appended as one line while the history
/// stays within its caps ([`KEEP_RUNS`] per suite, [`MAX_HISTORY_BYTES`]), else the file
/// is written again with only what it keeps, atomically (a run killed meanwhile leaves the
/// previous file whole). The caps are passed by a quarter before compacting, so a history
/// at its cap is not rewritten at every run. A run that finished between this run's start
/// and its compaction loses its line.
pub fn record(path: &Path, history: &mut History, record: RunRecord) -> Result<(), String> {
    let line = serde_json::to_string(&record).map_err(|e| e.to_string())?;
    history.runs.push(record);
    history.sizes.push(line.len() + 1);
    let over_runs = {
        let mut per_suite: std::collections::HashMap<&str, usize> = Default::default();
        history.runs.iter().any(|r| {
            let n = per_suite.entry(r.suite.as_str()).or_default();
            *n += 1;
            *n > KEEP_RUNS + KEEP_RUNS / 4
        })
    };
    let bytes: usize = history.sizes.iter().sum();
    if !over_runs && bytes <= MAX_HISTORY_BYTES + MAX_HISTORY_BYTES / 4 {
        return append(path, history.runs.last().expect("just pushed"));
    }
    history.compact();
    let mut text = String::with_capacity(history.sizes.iter().sum());
    for r in &history.runs {
        text.push_str(&serde_json::to_string(r).map_err(|e| e.to_string())?);
        text.push('\n');
    }
    crate::files::write_atomic(path, text.as_bytes(), crate::files::Access::Shared)
        .map_err(|e| format!("cannot write history: {e}"))
}

impl History {
    /// Keeps the newest [`KEEP_RUNS`] runs of each suite within [`MAX_HISTORY_BYTES`] (the
    /// newest run of each suite kept whatever its size), oldest first as before.
    fn compact(&mut self) {
        let mut per_suite: std::collections::HashMap<String, usize> = Default::default();
        let mut bytes = 0usize;
        let mut keep = vec![false; self.runs.len()];
        for i in (0..self.runs.len()).rev() {
            let n = per_suite.entry(self.runs[i].suite.clone()).or_default();
            let newest = *n == 0;
            if *n < KEEP_RUNS && (newest || bytes + self.sizes[i] <= MAX_HISTORY_BYTES) {
                keep[i] = true;
                *n += 1;
                bytes += self.sizes[i];
            }
        }
        let mut k = keep.iter();
        self.runs.retain(|_| *k.next().expect("one flag per run"));
        let mut k = keep.iter();
        self.sizes.retain(|_| *k.next().expect("one flag per run"));
    }

    /// How many runs the history holds.
    pub fn len(&self) -> usize {
        self.runs.len()
    }

    /// Whether the history holds no run.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }
}

/// The history path for a command line value (`None`: the default).
pub fn history_path(given: Option<&Path>) -> PathBuf {
    given.map_or_else(|| PathBuf::from(DEFAULT_HISTORY), Path::to_path_buf)
}

/// The nearest-rank percentile: the `ceil(p/100 × n)`-th smallest sample.
pub fn percentile(samples: &[u64], p: u32) -> Option<u64> {
    if samples.is_empty() || p == 0 || p > 100 {
        return None;
    }
    let mut sorted = samples.to_vec();
    sorted.sort_unstable();
    let rank = (u64::from(p) * sorted.len() as u64).div_ceil(100).max(1) as usize;
    sorted.get(rank - 1).copied()
}

/// How one budget of one test came out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetResult {
    /// The test's name.
    pub test: String,
    /// The percentile measured.
    pub percentile: u32,
    /// The limit in milliseconds.
    pub max_ms: u64,
    /// Samples looked at (newest first, at most the window).
    pub samples: usize,
    /// Samples needed for a verdict.
    pub needed: usize,
    /// The measured percentile, when there were enough samples.
    pub measured_ms: Option<u64>,
    /// `within`, `exceeded` or `pending`.
    pub verdict: Verdict,
}

/// The verdict on a budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The percentile is at or under the limit.
    Within,
    /// The percentile is over the limit.
    Exceeded,
    /// Too few samples yet.
    Pending,
}

/// Evaluates `budgets` for a run of `suite` whose results are `current`, on `history`
/// (which must not contain the current run yet: it is counted here, once).
pub fn evaluate(
    budgets: &[Budget],
    suite: &str,
    current: &[TestResult],
    history: &History,
) -> Vec<BudgetResult> {
    let mut out = Vec::new();
    for b in budgets {
        let names: Vec<&str> = if b.test == "*" {
            current
                .iter()
                .filter(|t| t.status == Outcome::Passed)
                .map(|t| t.name.as_str())
                .collect()
        } else {
            vec![b.test.as_str()]
        };
        let window = b.window.map_or(DEFAULT_WINDOW, |w| w.max(1) as usize);
        let needed = window.min(3);
        for name in names {
            let mut samples: Vec<u64> = current
                .iter()
                .filter(|t| t.name == name && t.status == Outcome::Passed)
                .flat_map(|t| t.call_durations().into_iter().rev())
                .collect();
            samples.extend(history.call_samples(suite, name));
            samples.truncate(window);
            let (measured_ms, verdict) = if samples.len() < needed {
                (None, Verdict::Pending)
            } else {
                let m = percentile(&samples, b.percentile);
                let v = match m {
                    Some(m) if m > b.max_ms => Verdict::Exceeded,
                    Some(_) => Verdict::Within,
                    None => Verdict::Pending,
                };
                (m, v)
            };
            out.push(BudgetResult {
                test: name.to_string(),
                percentile: b.percentile,
                max_ms: b.max_ms,
                samples: samples.len(),
                needed,
                measured_ms,
                verdict,
            });
        }
    }
    out
}

/// A passed test that took markedly longer than it used to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Regression {
    /// The test's name.
    pub test: String,
    /// This run's duration.
    pub duration_ms: u64,
    /// Median of its earlier passed runs.
    pub median_ms: u64,
    /// The threshold it crossed: `max(1.5 × median, median + 50)`.
    pub threshold_ms: u64,
    /// Earlier samples looked at.
    pub samples: usize,
}

/// Passed tests of `current` over their regression threshold (see the module docs).
pub fn regressions(suite: &str, current: &[TestResult], history: &History) -> Vec<Regression> {
    let mut out = Vec::new();
    for t in current.iter().filter(|t| t.status == Outcome::Passed) {
        let mut past = history.samples(suite, &t.name);
        past.truncate(REGRESSION_WINDOW);
        if past.len() < REGRESSION_MIN_SAMPLES {
            continue;
        }
        past.sort_unstable();
        let n = past.len();
        let median = if n % 2 == 1 {
            past[n / 2]
        } else {
            (past[n / 2 - 1] + past[n / 2]).div_ceil(2)
        };
        let threshold = (median * 3).div_ceil(2).max(median + 50);
        if t.duration_ms > threshold {
            out.push(Regression {
                test: t.name.clone(),
                duration_ms: t.duration_ms,
                median_ms: median,
                threshold_ms: threshold,
                samples: n,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Map;

    fn step(method: &str, ms: u64) -> crate::exec::StepResult {
        crate::exec::StepResult {
            name: method.into(),
            method: method.into(),
            phase: mcpr_compiler::ir::Phase::Test,
            status: crate::exec::StepStatus::Passed,
            duration_ms: ms,
            start_us: 0,
            source: None,
            failure: None,
            response: None,
            error: None,
            output: None,
        }
    }

    /// A test of one call of `ms`.
    fn result(name: &str, status: Outcome, ms: u64) -> TestResult {
        TestResult {
            id: name.to_lowercase(),
            name: name.into(),
            status,
            duration_ms: ms,
            steps: vec![step("tools/call", ms)],
            not_run: Vec::new(),
            outputs: Map::new(),
            failure: None,
            protocol_version: None,
            transcript: None,
            data: None,
            logical_name: None,
            source: None,
            timing: None,
            stderr: None,
            session: None,
            attempts: 0,
            previous_attempts: Vec::new(),
            quarantined: false,
            exercised: Default::default(),
            warnings: Vec::new(),
        }
    }

    fn run(suite: &str, tests: &[(&str, Outcome, u64)]) -> RunRecord {
        let results: Vec<TestResult> = tests.iter().map(|(n, s, ms)| result(n, *s, *ms)).collect();
        RunRecord::new(suite, &results)
    }

    fn budget(test: &str, p: u32, max: u64, window: Option<u32>) -> Budget {
        Budget {
            test: test.into(),
            percentile: p,
            max_ms: max,
            window,
        }
    }

    #[test]
    fn nearest_rank_percentiles() {
        let s = [15, 20, 35, 40, 50];
        assert_eq!(percentile(&s, 5), Some(15));
        assert_eq!(percentile(&s, 30), Some(20));
        assert_eq!(percentile(&s, 40), Some(20));
        assert_eq!(percentile(&s, 50), Some(35));
        assert_eq!(percentile(&s, 100), Some(50));
        assert_eq!(percentile(&[], 50), None);
        assert_eq!(percentile(&s, 0), None);
    }

    #[test]
    fn budgets_count_the_current_run_once_and_wait_for_three_samples() {
        let h = History::from_runs(vec![run("s.mcpr", &[("A", Outcome::Passed, 100)])]);
        let cur = [result("A", Outcome::Passed, 120)];
        let r = evaluate(&[budget("A", 95, 110, None)], "s.mcpr", &cur, &h);
        assert_eq!(r[0].verdict, Verdict::Pending);
        assert_eq!((r[0].samples, r[0].needed), (2, 3));

        let h = History::from_runs(vec![
            run("s.mcpr", &[("A", Outcome::Passed, 100)]),
            run("s.mcpr", &[("A", Outcome::Failed, 9000)]),
            run("other.mcpr", &[("A", Outcome::Passed, 9000)]),
            run("s.mcpr", &[("A", Outcome::Passed, 105)]),
        ]);
        let r = evaluate(&[budget("A", 95, 110, None)], "s.mcpr", &cur, &h);
        assert_eq!(r[0].samples, 3, "failed runs and other suites do not count");
        assert_eq!(r[0].measured_ms, Some(120));
        assert_eq!(r[0].verdict, Verdict::Exceeded);
        let r = evaluate(&[budget("A", 50, 110, None)], "s.mcpr", &cur, &h);
        assert_eq!(
            (r[0].measured_ms, r[0].verdict),
            (Some(105), Verdict::Within)
        );
    }

    #[test]
    fn windows_keep_the_newest_samples_and_star_means_every_passed_test() {
        let h = History::from_runs(vec![
            run(
                "s",
                &[("A", Outcome::Passed, 1000), ("B", Outcome::Passed, 5)],
            ),
            run(
                "s",
                &[("A", Outcome::Passed, 10), ("B", Outcome::Passed, 5)],
            ),
        ]);
        let cur = [
            result("A", Outcome::Passed, 10),
            result("B", Outcome::Passed, 5),
            result("C", Outcome::Failed, 5),
        ];
        let r = evaluate(&[budget("*", 100, 50, Some(2))], "s", &cur, &h);
        let names: Vec<_> = r.iter().map(|b| b.test.as_str()).collect();
        assert_eq!(names, ["A", "B"]);
        assert!(r.iter().all(|b| b.verdict == Verdict::Within), "{r:?}");
        let r = evaluate(&[budget("A", 100, 50, Some(3))], "s", &cur, &h);
        assert_eq!(r[0].verdict, Verdict::Exceeded);
        // A window of one needs one sample.
        let r = evaluate(
            &[budget("A", 50, 50, Some(1))],
            "s",
            &cur,
            &History::default(),
        );
        assert_eq!((r[0].needed, r[0].verdict), (1, Verdict::Within));
    }

    #[test]
    fn budgets_measure_the_calls_not_the_test() {
        // A slow server start (2.9 s of a 3 s test) and local steps are not call latency.
        let mut t = result("Search", Outcome::Passed, 40);
        t.duration_ms = 3000;
        t.steps.push(step("utility/lowercase", 900));
        t.steps.push(step("native/echo", 900));
        t.steps.push(step("resources/read", 60));
        t.steps.push(step("native/await-notification", 50));
        assert_eq!(t.call_durations(), [40, 60, 50]);
        let r = evaluate(
            &[budget("Search", 95, 100, None)],
            "s",
            std::slice::from_ref(&t),
            &History::default(),
        );
        assert_eq!((r[0].samples, r[0].measured_ms), (3, Some(60)));
        assert_eq!(r[0].verdict, Verdict::Within);
        // The history keeps the calls; a line written before calls were kept has none.
        let line = serde_json::to_string(&RunRecord::new("s", &[t])).unwrap();
        assert!(line.contains("\"callsMs\":[40,60,50]"), "{line}");
        let old: RunRecord = serde_json::from_str(
            r#"{"version":1,"suite":"s","finishedAt":0,"tests":[{"id":"a","name":"A","status":"passed","durationMs":5}]}"#,
        )
        .unwrap();
        let h = History::from_runs(vec![old]);
        let r = evaluate(&[budget("A", 50, 10, Some(1))], "s", &[], &h);
        assert_eq!(r[0].samples, 0);
    }

    #[test]
    fn regressions_need_five_samples_and_a_clear_margin() {
        let past: Vec<RunRecord> = [100, 100, 110, 90, 100]
            .iter()
            .map(|ms| run("s", &[("A", Outcome::Passed, *ms)]))
            .collect();
        let h = History::from_runs(past[..4].to_vec());
        assert!(regressions("s", &[result("A", Outcome::Passed, 900)], &h).is_empty());
        let h = History::from_runs(past);
        assert!(regressions("s", &[result("A", Outcome::Passed, 150)], &h).is_empty());
        let r = regressions("s", &[result("A", Outcome::Passed, 151)], &h);
        assert_eq!(r.len(), 1);
        assert_eq!((r[0].median_ms, r[0].threshold_ms), (100, 150));
        assert!(regressions("s", &[result("A", Outcome::Failed, 900)], &h).is_empty());
    }

    #[test]
    fn flips_count_changes_over_the_last_ten_runs() {
        use Outcome::*;
        let outcomes = [Passed, Failed, Passed, Skipped, Passed, Passed];
        let h = History::from_runs(
            outcomes
                .iter()
                .map(|o| run("s", &[("A", *o, 5), ("B", Passed, 5)]))
                .chain([run("other", &[("A", Failed, 5)])])
                .collect(),
        );
        let cur = [result("A", Flaky, 5), result("B", Passed, 5)];
        let f = flips("s", &cur, &h);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!((f[0].test.as_str(), f[0].flips, f[0].runs), ("A", 3, 6));
        // A single change is a fix or a breakage, not a flip-flop.
        let h = History::from_runs(vec![run("s", &[("A", Failed, 5)])]);
        assert!(flips("s", &[result("A", Passed, 5)], &h).is_empty());
        // Only the last ten runs count.
        let mut runs: Vec<RunRecord> = (0..4)
            .map(|i| run("s", &[("A", if i % 2 == 0 { Passed } else { Failed }, 5)]))
            .collect();
        runs.extend((0..9).map(|_| run("s", &[("A", Passed, 5)])));
        assert!(flips("s", &[result("A", Passed, 5)], &History::from_runs(runs)).is_empty());
    }

    #[test]
    fn history_round_trips_and_survives_a_torn_line() {
        let dir = std::env::temp_dir().join(format!("mcpr-history-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join(".mcpr").join("history.jsonl");
        let rec = run("s.mcpr", &[("A", Outcome::Passed, 7)]);
        append(&path, &rec).unwrap();
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(b"{\"version\":1,\"sui\n").unwrap();
        append(&path, &rec).unwrap();
        let h = History::load(&path).unwrap();
        assert_eq!(h.runs, vec![rec.clone(), rec]);
        assert_eq!(h.skipped_lines, 1);
        assert!(dir.join(".mcpr/.gitignore").exists());
        assert!(
            History::load(&dir.join("missing.jsonl"))
                .unwrap()
                .runs
                .is_empty()
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_history_keeps_its_caps_and_compacts_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".mcpr/history.jsonl");
        let mut h = History::default();
        for i in 0..(KEEP_RUNS + KEEP_RUNS / 4) {
            let suite = if i % 2 == 0 { "a.mcpr" } else { "b.mcpr" };
            record(&path, &mut h, run(suite, &[("A", Outcome::Passed, 10)])).unwrap();
        }
        // Below the cap (with its quarter): every run was appended.
        assert_eq!(
            History::load(&path).unwrap().len(),
            KEEP_RUNS + KEEP_RUNS / 4
        );
        for _ in 0..KEEP_RUNS {
            record(&path, &mut h, run("a.mcpr", &[("A", Outcome::Failed, 10)])).unwrap();
        }
        let loaded = History::load(&path).unwrap();
        let count = |s: &str| loaded.runs.iter().filter(|r| r.suite == s).count();
        assert!(
            count("a.mcpr") <= KEEP_RUNS + KEEP_RUNS / 4,
            "{}",
            count("a.mcpr")
        );
        assert!(count("b.mcpr") > 0, "the other suite keeps its runs");
        assert_eq!(loaded.skipped_lines, 0);
        assert_eq!(
            loaded
                .failed_last("a.mcpr")
                .unwrap()
                .into_iter()
                .collect::<Vec<_>>(),
            ["a"],
            "the newest run is kept"
        );
        let leftovers: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n != "history.jsonl" && n != ".gitignore")
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }

    #[test]
    fn a_large_history_is_cut_to_its_bytes_keeping_each_suites_last_run() {
        let big: Vec<(String, Outcome, u64)> = (0..3_000)
            .map(|i| {
                (
                    format!("a test with a long name number {i}"),
                    Outcome::Passed,
                    1,
                )
            })
            .collect();
        let tests: Vec<(&str, Outcome, u64)> =
            big.iter().map(|(n, o, d)| (n.as_str(), *o, *d)).collect();
        let mut runs: Vec<RunRecord> = (0..45).map(|_| run("big.mcpr", &tests)).collect();
        runs.insert(0, run("small.mcpr", &[("A", Outcome::Passed, 1)]));
        let mut h = History::from_runs(runs);
        h.compact();
        let bytes: usize = h.sizes.iter().sum();
        assert!(bytes <= MAX_HISTORY_BYTES, "{bytes}");
        assert!(h.runs.iter().any(|r| r.suite == "small.mcpr"));
        assert!(h.runs.len() < 46, "{}", h.runs.len());
    }
}
