//! The reporters of `run` and `report merge`, from the outputs asked for: which report goes
//! to stdout (at most one), and then where the terminal lines go (stderr when stdout
//! carries a report) and whether a progress bar is drawn.

use mcpr_runtime::context::RunContext;
use std::io::Write;
use std::path::PathBuf;

use mcpr_runtime::exec::StepStatus;
use mcpr_runtime::report::github::GithubAnnotations;
use mcpr_runtime::report::html::HtmlFile;
use mcpr_runtime::report::json::JsonFile;
use mcpr_runtime::report::junit::JunitFile;
use mcpr_runtime::report::progress::WithProgress;
use mcpr_runtime::report::terminal::{Terminal, Verbosity};
use mcpr_runtime::report::{Report, Reporter};
use mcpr_runtime::report::{Reporters, StderrNotes};
use mcpr_runtime::run::config::{OutputFormat, Resolved};
use mcpr_runtime::schedule::RunResult;
use serde_json::{Value, json};

use crate::args::ColorArg;
use crate::output;

/// What a command was asked to write.
#[derive(Debug, Clone)]
pub struct Outputs {
    /// The JSON reports to write (`-`: stdout).
    pub json: Vec<PathBuf>,
    /// The JUnit XML files to write (`-`: stdout).
    pub junit: Vec<PathBuf>,
    /// The HTML report (`-`: stdout).
    pub html: Option<PathBuf>,
    /// GitHub annotations and the job summary.
    pub github: bool,
    /// Colour on the terminal.
    pub color: ColorArg,
    /// How much the terminal shows.
    pub verbosity: Verbosity,
    /// No progress bar.
    pub no_progress: bool,
    /// Print test lines as they finish (`run`), or only the summary (`report merge`).
    pub live: bool,
    /// `--durations N`: the slowest tests after the summary.
    pub durations: Option<usize>,
    /// `--format json` of a run of mcp-tester scripts: stdout carries only their summary
    /// ([`ScriptSummary`]).
    pub script_summary: bool,
}

impl Outputs {
    /// The reports of a run's resolved settings: `--format json|junit` puts that report on
    /// stdout, `--format github` (or `GITHUB_ACTIONS=true`) adds the annotations.
    pub fn for_run(s: &Resolved, color: ColorArg, verbosity: Verbosity) -> Outputs {
        let format = s.format.value.unwrap_or_default();
        let mut json: Vec<_> = s.json.value.clone().into_iter().collect();
        let mut junit: Vec<_> = s.junit.value.clone().into_iter().collect();
        let stdout = PathBuf::from("-");
        match format {
            OutputFormat::Json if !json.contains(&stdout) => json.push(stdout),
            OutputFormat::Junit if !junit.contains(&stdout) => junit.push(stdout),
            _ => {}
        }
        Outputs {
            json,
            junit,
            html: s.html.value.clone(),
            github: format == OutputFormat::Github || in_github_actions(),
            color,
            verbosity,
            no_progress: s.no_progress.value == Some(true),
            live: true,
            durations: None,
            script_summary: false,
        }
    }

    fn all(&self) -> impl Iterator<Item = &PathBuf> {
        self.json.iter().chain(&self.junit).chain(&self.html)
    }

    /// Whether a report goes to stdout.
    pub fn stdout_taken(&self) -> bool {
        self.script_summary || self.all().any(|p| on_stdout(p))
    }

    /// `--format json` over scripts only: the script summary goes to stdout instead of the
    /// run report (which `--json PATH` still writes).
    pub fn summarise_scripts(&mut self) {
        let stdout = PathBuf::from("-");
        if self.json.contains(&stdout) {
            self.json.retain(|p| p != &stdout);
            self.script_summary = true;
        }
    }

    /// The reporters of the run whose context is `context` (its environment, CI and learned
    /// secrets); an error when two reports would go to stdout.
    pub fn reporters(&self, context: &RunContext) -> Result<Reporters, String> {
        one_on_stdout(self.all(), false)?;
        let mut reporters = Reporters::new();
        let (out, color): (Box<dyn Write + Send>, bool) = if self.stdout_taken() {
            (
                Box::new(std::io::stderr()),
                output::use_stderr_color(self.color),
            )
        } else {
            (Box::new(std::io::stdout()), output::use_color(self.color))
        };
        let terminal = Terminal::new(out, color)
            .with_context(context)
            .with_verbosity(self.verbosity)
            .with_durations(self.durations);
        if self.live {
            let no_bar = self.no_progress || self.stdout_taken();
            reporters.push(WithProgress::new(terminal, no_bar, context.ci));
        } else {
            reporters.push(SummaryOnly(terminal));
        }
        reporters.push(StderrNotes);
        if self.github {
            let github = GithubAnnotations::from_env(&context.env);
            reporters.push(if self.stdout_taken() {
                github.on_stderr()
            } else {
                github
            });
        }
        for path in &self.json {
            reporters.push(JsonFile::new(path.clone()));
        }
        for path in &self.junit {
            reporters.push(JunitFile::new(path.clone()));
        }
        if let Some(path) = &self.html {
            reporters.push(HtmlFile::new(path.clone()));
        }
        if self.script_summary {
            reporters.push(ScriptSummary::default());
        }
        Ok(reporters)
    }
}

/// Whether a report path means stdout (`-`).
pub fn on_stdout(path: &std::path::Path) -> bool {
    path.as_os_str() == "-"
}

/// The one rule of which report goes to stdout: at most one, counting the command's own
/// printing there (`printing`: `--format json` of a command that prints its report itself).
pub fn one_on_stdout<'p>(
    paths: impl IntoIterator<Item = &'p PathBuf>,
    printing: bool,
) -> Result<(), String> {
    let asked = paths.into_iter().filter(|p| on_stdout(p)).count() + usize::from(printing);
    if asked > 1 {
        return Err("only one report can go to stdout (`-`); write the others to files".into());
    }
    Ok(())
}

/// The report files of a command that prints its own lines (`mcpr conformance`): JSON,
/// JUnit and HTML (`-`: stdout, at most one), and the run's notes on stderr.
pub fn report_files(
    json: &[PathBuf],
    junit: &[PathBuf],
    html: Option<&PathBuf>,
) -> Result<Reporters, String> {
    one_on_stdout(json.iter().chain(junit).chain(html), false)?;
    let mut reporters = Reporters::new();
    reporters.push(StderrNotes);
    for path in json {
        reporters.push(JsonFile::new(path.clone()));
    }
    for path in junit {
        reporters.push(JunitFile::new(path.clone()));
    }
    if let Some(path) = html {
        reporters.push(HtmlFile::new(path.clone()));
    }
    Ok(reporters)
}

/// The terminal's summary and recap alone (a merged report has no live events).
struct SummaryOnly(Terminal<Box<dyn Write + Send>>);

impl Reporter for SummaryOnly {
    fn finish(&mut self, report: Report<'_>) -> Result<(), String> {
        self.0.finish(report)
    }
}

/// Whether GitHub Actions runs us (`GITHUB_ACTIONS=true`).
pub fn in_github_actions() -> bool {
    std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true")
}

/// Whether every path of a run names an mcp-tester script (`.mcp`, any case).
pub fn all_scripts(files: &[PathBuf]) -> bool {
    !files.is_empty()
        && files
            .iter()
            .all(|f| f.extension().is_some_and(|e| e.eq_ignore_ascii_case("mcp")))
}

/// `mcpr run SCRIPT.mcp --format json`: the summary mcp-tester prints for its scripts (seed
/// 000): how many commands ran, passed and failed, and each failure with its line and error.
/// Collects the scripts' commands as they finish and prints the summary at the end.
#[derive(Debug, Default)]
pub struct ScriptSummary {
    executed: usize,
    passed: usize,
    failed: usize,
    failures: Vec<(Option<String>, Value)>,
    not_run: Vec<Value>,
}

impl Reporter for ScriptSummary {
    fn suite_finished(&mut self, run: &RunResult) {
        for test in &run.tests {
            for step in &test.steps {
                self.executed += 1;
                if step.status == StepStatus::Passed {
                    self.passed += 1;
                    continue;
                }
                self.failed += 1;
                let line = step
                    .failure
                    .as_ref()
                    .and_then(|f| f.location.as_ref())
                    .or(step.source.as_ref())
                    .map(|s| s.line);
                let error = step
                    .failure
                    .as_ref()
                    .map(|f| f.message.clone())
                    .unwrap_or_default();
                self.failures
                    .push((run.file.clone(), json!({"line": line, "error": error})));
            }
            for n in &test.not_run {
                self.not_run
                    .push(json!({"line": n.source.as_ref().map(|s| s.line), "command": n.name}));
            }
        }
    }

    fn finish(&mut self, _report: Report<'_>) -> Result<(), String> {
        let several = self
            .failures
            .iter()
            .map(|(f, _)| f)
            .collect::<std::collections::HashSet<_>>()
            .len()
            > 1;
        let failures: Vec<Value> = self
            .failures
            .drain(..)
            .map(|(file, mut f)| {
                if several && let Some(file) = file {
                    f["script"] = json!(file);
                }
                f
            })
            .collect();
        let mut summary = json!({
            "executed": self.executed,
            "passed": self.passed,
            "failed": self.failed,
            "failures": failures,
        });
        if !self.not_run.is_empty() {
            summary["notRun"] = json!(self.not_run);
        }
        let text = serde_json::to_string_pretty(&summary).map_err(|e| e.to_string())?;
        let mut out = std::io::stdout().lock();
        writeln!(out, "{text}").map_err(|e| format!("cannot write the summary: {e}"))
    }
}
