//! The reporters of `run` and `report merge`, from the outputs asked for: which report goes
//! to stdout (at most one), and then where the terminal lines go (stderr when stdout
//! carries a report) and whether a progress bar is drawn.

use std::io::Write;
use std::path::PathBuf;

use mcpr_runtime::report::github::GithubAnnotations;
use mcpr_runtime::report::html::HtmlFile;
use mcpr_runtime::report::json::JsonFile;
use mcpr_runtime::report::junit::JunitFile;
use mcpr_runtime::report::progress::WithProgress;
use mcpr_runtime::report::terminal::{Terminal, Verbosity};
use mcpr_runtime::report::{Reporters, StderrNotes};
use mcpr_runtime::run::config::{OutputFormat, Resolved};

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
        }
    }

    fn all(&self) -> impl Iterator<Item = &PathBuf> {
        self.json.iter().chain(&self.junit).chain(&self.html)
    }

    /// Whether a report goes to stdout.
    pub fn stdout_taken(&self) -> bool {
        self.all().any(|p| p.as_os_str() == "-")
    }

    /// The reporters; an error when two reports would go to stdout.
    pub fn reporters(&self) -> Result<Reporters, String> {
        let on_stdout = self.all().filter(|p| p.as_os_str() == "-").count();
        if on_stdout > 1 {
            return Err("only one report can go to stdout (`-`); write the others to files".into());
        }
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
            .with_verbosity(self.verbosity)
            .with_durations(self.durations);
        if self.live {
            let no_bar = self.no_progress || self.stdout_taken();
            reporters.push(WithProgress::new(terminal, no_bar));
        } else {
            reporters.push(SummaryOnly(terminal));
        }
        reporters.push(StderrNotes);
        if self.github {
            let github = GithubAnnotations::from_env();
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
        Ok(reporters)
    }
}

/// The report files of a command that prints its own lines (`mcpr conformance`): JSON,
/// JUnit and HTML (`-`: stdout, at most one), and the run's notes on stderr.
pub fn report_files(
    json: &[PathBuf],
    junit: &[PathBuf],
    html: Option<&PathBuf>,
) -> Result<Reporters, String> {
    let all = json.iter().chain(junit).chain(html);
    if all.filter(|p| p.as_os_str() == "-").count() > 1 {
        return Err("only one report can go to stdout (`-`); write the others to files".into());
    }
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

impl mcpr_runtime::report::Reporter for SummaryOnly {
    fn finish(&mut self, report: mcpr_runtime::report::Report<'_>) -> Result<(), String> {
        self.0.finish(report)
    }
}

/// Whether GitHub Actions runs us (`GITHUB_ACTIONS=true`).
pub fn in_github_actions() -> bool {
    std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true")
}
