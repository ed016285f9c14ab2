//! One suite of a run: its `Token from` commands, its data sources, its snapshot store,
//! the scheduler, then its latency budgets and a record in the run history.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::{DataFlags, HistorySettings, RunError, RunRequest, SnapshotSettings, SuiteFile};
use crate::auth::{TokenCache, resolve_credentials};
use crate::budget::{self, History};
use crate::codes::RunClass;
use crate::data::{self, DataOptions};
use crate::redact::Redactor;
use crate::report::Reporter;
use crate::schedule::{self, RunOptions, RunResult};
use crate::snapshot::{DEFAULT_FILE as SNAPSHOT_DEFAULT, SnapshotStore};

/// Runs the suites of one request in turn, with what they share: the scheduler settings,
/// the tokens of `Token from` commands (each runs once per run), the run history.
pub(super) struct SuiteRunner<'r> {
    opts: RunOptions,
    data: DataFlags,
    snapshots: SnapshotSettings,
    coverage: super::CoverageSettings,
    history_settings: HistorySettings,
    history_file: PathBuf,
    history: History,
    tokens: TokenCache,
    select: super::select::Asked,
    reporter: &'r mut dyn Reporter,
}

impl<'r> SuiteRunner<'r> {
    /// Reads the run history (a history that cannot be read is a warning: budgets then see
    /// this run alone).
    pub(super) fn new(
        req: &RunRequest,
        opts: RunOptions,
        reporter: &'r mut dyn Reporter,
    ) -> SuiteRunner<'r> {
        let history_file = budget::history_path(req.history.file.as_deref());
        let history = if req.history.enabled {
            History::load(&history_file).unwrap_or_else(|e| {
                reporter.note(&format!("warning: {e}; budgets see this run alone"));
                History::default()
            })
        } else {
            History::default()
        };
        SuiteRunner {
            opts,
            data: req.data,
            snapshots: req.snapshots.clone(),
            coverage: req.coverage,
            history_settings: req.history.clone(),
            history_file,
            history,
            tokens: TokenCache::new(),
            select: req.select.clone(),
            reporter,
        }
    }

    /// Runs one suite and evaluates its budgets. Returns as soon as its results are in, with
    /// its sessions still closing.
    pub(super) async fn run(
        &mut self,
        file: SuiteFile,
    ) -> Result<(RunResult, schedule::Closing), RunError> {
        let SuiteFile {
            mut suite,
            shown,
            dir,
            lines,
        } = file;
        let at_lines = if lines.is_empty() {
            None
        } else {
            let path = dir.join(std::path::Path::new(&shown).file_name().unwrap_or_default());
            Some(super::select::tests_at_lines(&path, &shown, &lines).map_err(RunError::Usage)?)
        };
        let (selection, note) =
            super::select::for_suite(&self.select, at_lines, &self.history, &shown);
        if let Some(note) = note {
            self.reporter.note(&note);
        }
        // `Token from` commands run once per run, before any test; tokens and resolved
        // header and env values join the suite's secrets before any redactor is made.
        resolve_credentials(
            &mut suite,
            &self.opts.state,
            &mut self.tokens,
            &self.opts.context.env,
        )
        .await
        .map_err(|e| RunError::Usage(e.to_string()))?;
        let data_opts = DataOptions {
            base_dir: dir,
            allow_remote_data: self.data.allow_remote_data,
            allow_custom_code: self.data.allow_custom_code,
            allow_private_network: self.data.allow_private_network,
            max_rows: self.data.max_rows,
            local_only: false,
            env: self.opts.context.env.clone(),
        };
        // Data loads before any test starts; a bad value stops the run with a diagnostic
        // that points into the data.
        let rows = data::load_suite(&suite, &data_opts)
            .await
            .map_err(|e| RunError::Data(Box::new(e)))?;
        // Custom functions: refused without --allow-custom-code, else their host started
        // (the modules loaded) before any test.
        let functions = crate::functions::for_suite(
            &suite,
            &data_opts.base_dir,
            self.data.allow_custom_code,
            &self.opts.context.env,
        )
        .map_err(|e| match e.code.class() {
            RunClass::Setup => RunError::Usage(e.to_string()),
            _ => RunError::Failure(e.to_string()),
        })?;
        let mut store = self.snapshot_store(&suite, &data_opts.base_dir)?;
        store.set_base_dir(data_opts.base_dir.clone());
        let store = Arc::new(Mutex::new(store));
        let mut opts = self.opts.clone();
        opts.snapshots = Some(Arc::clone(&store));
        opts.data = data_opts;
        opts.rows = Some(Arc::new(rows));
        opts.selection = selection;
        opts.functions = functions.clone();
        self.reporter.suite_started(&suite);
        let budgets = suite.budgets.clone().unwrap_or_default();
        let reporter = &mut *self.reporter;
        let mut on_event = |e: &schedule::Event| reporter.event(e);
        let suite = Arc::new(suite);
        let result =
            schedule::run_suite_closing(Arc::clone(&suite), opts.clone(), &mut on_event).await;
        // The host ends with the suite's tests, before the sweep of what the servers left.
        if let Some(host) = &functions {
            host.shutdown();
        }
        opts.functions = None;
        // A snapshot file that cannot be written fails the tests that recorded into it;
        // the run and its other reports go on.
        let unsaved = store
            .lock()
            .map_err(|_| "the snapshot store is unusable".to_string())
            .and_then(|s| s.save())
            .err();
        let (mut run, closing) = match result {
            Ok((r, _)) if r.tests.is_empty() && self.opts.filter.is_some() => {
                return Err(RunError::Usage(format!(
                    "no test of {} matches --test {:?}",
                    r.suite_name,
                    self.opts.filter.as_deref().unwrap_or_default()
                )));
            }
            Ok((r, _)) if r.tests.is_empty() && opts.selection.keyword.is_some() => {
                return Err(RunError::Usage(format!(
                    "no test of {} matches -k",
                    r.suite_name
                )));
            }
            Ok(r) => r,
            Err(e) if e.code.class() == RunClass::Internal => {
                return Err(RunError::Failure(e.to_string()));
            }
            Err(e) => return Err(RunError::Usage(e.to_string())),
        };
        run.file = Some(shown.clone());
        if let Some(why) = unsaved {
            self.reporter.note(&format!("error: {why}"));
            snapshots_not_kept(&mut run, &why);
        }
        let closing = if super::coverage::asked(&suite, self.coverage) {
            // The coverage listing starts the servers again: the suite's are gone first.
            closing.wait().await;
            schedule::Closing::default()
        } else {
            closing
        };
        run.coverage = super::coverage::measure(&suite, &run, &opts, self.coverage).await;
        run.budgets = budget::evaluate(&budgets, &shown, &run.tests, &self.history);
        if self.history_settings.fail_on_regression {
            run.regressions = budget::regressions(&shown, &run.tests, &self.history);
        }
        if self.history_settings.enabled {
            run.flips = budget::flips(&shown, &run.tests, &self.history);
        }
        self.reporter.suite_finished(&run);
        if self.history_settings.enabled {
            let record = budget::RunRecord::new(&shown, &run.tests);
            if let Err(e) = budget::record(&self.history_file, &mut self.history, record) {
                self.reporter.note(&format!("warning: {e}"));
            }
        }
        Ok((run, closing))
    }

    /// A remark for the person running mcpr.
    pub(super) fn note(&mut self, text: &str) {
        self.reporter.note(text);
    }

    /// The snapshot store of a suite: `--snapshot`, else the suite's `Snapshots:` file (from
    /// the suite file's folder `dir`, as data files and tool snapshots are), else the default
    /// file.
    fn snapshot_store(
        &self,
        suite: &mcpr_compiler::ir::Suite,
        dir: &std::path::Path,
    ) -> Result<SnapshotStore, RunError> {
        let path = self
            .snapshots
            .file
            .clone()
            .or_else(|| {
                suite
                    .snapshots
                    .as_ref()
                    .and_then(|s| s.file.as_deref())
                    .map(|f| dir.join(f))
            })
            .unwrap_or_else(|| SNAPSHOT_DEFAULT.into());
        let ignore = suite
            .snapshots
            .as_ref()
            .and_then(|s| s.ignore.clone())
            .unwrap_or_default();
        let mut store =
            SnapshotStore::load(&path, ignore, self.snapshots.update, self.opts.context.ci)
                .map_err(RunError::Usage)?;
        let mut redactor =
            Redactor::for_suite(suite, &self.opts.context.env, self.opts.context.secrets());
        self.opts.secrets.iter().for_each(|s| redactor.add(s));
        store.set_redactor(redactor);
        Ok(store)
    }
}

/// Fails each test that recorded or updated a snapshot the store could not write, at the
/// step that did (`MCP-SNAPSHOT-001`), and counts the run again.
fn snapshots_not_kept(run: &mut RunResult, why: &str) {
    use crate::codes::{Outcome, RunCode};
    use crate::exec::Failure;
    for t in &mut run.tests {
        if !t.status.is_pass() {
            continue;
        }
        let wrote = t.steps.iter().find(|s| {
            s.output.as_deref().is_some_and(|o| {
                o.lines().any(|l| {
                    l.starts_with("recorded new snapshot") || l.starts_with("updated snapshot")
                })
            })
        });
        let Some(step) = wrote else {
            continue;
        };
        let mut f = Failure::new(
            RunCode::SnapshotStore,
            format!("the snapshot this test recorded was not kept: {why}"),
        );
        f.location = step.source.clone();
        f.step = Some(step.name.clone());
        t.status = Outcome::Failed;
        t.failure = Some(Box::new(f));
    }
    run.summary = RunResult::summarise(&run.tests);
    run.status = schedule::RunStatus::of(&run.summary, run.interrupted.is_some());
}
