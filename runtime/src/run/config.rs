//! The settings of `mcpr run` that may come from three places, resolved in one order:
//! a command-line flag, else an `MCPR_*` environment variable, else the project file
//! `mcpr.toml` (its `[run]` table, overlaid by the selected `[profiles.NAME]`), else mcpr's
//! default. The project file is `--config PATH` (`MCPR_CONFIG`), else the first `mcpr.toml`
//! found in the working folder or one of its parents, as ruff and nextest find theirs.
//! Paths in the file are relative to the file's folder.
//!
//! ```toml
//! [run]
//! jobs = 4
//! timeout = "20s"
//!
//! [profiles.ci]
//! junit = "target/mcpr/junit.xml"
//! html = "target/mcpr/report.html"
//! ```

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use super::project::read_file;
use crate::session::ShutdownGrace;

/// The project file's name, looked for upward from the working folder.
pub const FILE_NAME: &str = "mcpr.toml";

/// The output format of `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputFormat {
    /// The terminal lines on stdout.
    #[default]
    Human,
    /// The JSON report on stdout (as `--json -`), the terminal lines on stderr.
    Json,
    /// The JUnit XML on stdout (as `--junit -`), the terminal lines on stderr.
    Junit,
    /// The terminal lines, then GitHub annotations and the job summary (as under
    /// `GITHUB_ACTIONS=true`).
    Github,
}

impl OutputFormat {
    /// Parses `human`, `json`, `junit` or `github`.
    pub fn parse(text: &str) -> Result<OutputFormat, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "human" => Ok(OutputFormat::Human),
            "json" => Ok(OutputFormat::Json),
            "junit" => Ok(OutputFormat::Junit),
            "github" => Ok(OutputFormat::Github),
            other => Err(format!(
                "format {other:?} is not one of human, json, junit, github"
            )),
        }
    }

    /// The name as written.
    pub fn as_str(self) -> &'static str {
        match self {
            OutputFormat::Human => "human",
            OutputFormat::Json => "json",
            OutputFormat::Junit => "junit",
            OutputFormat::Github => "github",
        }
    }
}

/// The settings as given in one place (every one optional).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Settings {
    /// Most tests at once.
    pub jobs: Option<usize>,
    /// The default step timeout: `30s`, `500ms`, `2m`, or seconds.
    pub timeout: Option<String>,
    /// How long a server may take to exit after its stdin closes, and after SIGTERM.
    pub shutdown_grace: Option<String>,
    /// The protocol version every session speaks.
    pub protocol: Option<String>,
    /// The JSON report's path (`-`: stdout).
    pub json: Option<PathBuf>,
    /// The JUnit XML's path.
    pub junit: Option<PathBuf>,
    /// The HTML report's path.
    pub html: Option<PathBuf>,
    /// `human`, `json`, `junit` or `github`.
    pub format: Option<String>,
    /// Stop starting tests after the first failure.
    pub fail_fast: Option<bool>,
    /// No live progress bar.
    pub no_progress: Option<bool>,
    /// Neither read nor append the run history (`false`: `--history PATH` was given).
    pub no_history: Option<bool>,
    /// Tests on the same server share one session per job.
    pub reuse_server: Option<bool>,
    /// The least coverage in percent (`--min-coverage`): `80`, or text `"72.5%"`.
    pub min_coverage: Option<Percent>,
    /// How many times a failed or errored test runs again (`--retries`).
    pub retries: Option<u32>,
    /// The quarantine file (`--quarantine`).
    pub quarantine: Option<PathBuf>,
}

/// A percentage as `mcpr.toml` may write it: a whole number, or text (`"72.5%"`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum Percent {
    /// `min-coverage = 80`.
    Whole(u32),
    /// `min-coverage = "72.5%"`, and what flags and variables give.
    Text(String),
}

impl Percent {
    /// The value, from 0 to 100.
    pub fn value(&self) -> Result<f64, String> {
        let text = match self {
            Percent::Whole(n) => n.to_string(),
            Percent::Text(t) => t.clone(),
        };
        match text.trim().trim_end_matches('%').parse::<f64>() {
            Ok(p) if (0.0..=100.0).contains(&p) => Ok(p),
            _ => Err(format!("{text:?} is not a percentage from 0 to 100")),
        }
    }
}

/// Where a resolved setting came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A command-line flag.
    Flag,
    /// An environment variable (its name).
    Env(&'static str),
    /// The project file (`[run]`, or the profile's table).
    File(String),
    /// mcpr's default.
    Default,
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Flag => f.write_str("flag"),
            Source::Env(name) => f.write_str(name),
            Source::File(table) => write!(f, "{FILE_NAME} {table}"),
            Source::Default => f.write_str("default"),
        }
    }
}

/// A setting with where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sourced<T> {
    /// The value (`None`: not set anywhere, mcpr's default applies).
    pub value: Option<T>,
    /// Where it came from.
    pub source: Source,
}

/// The settings of a run after resolution.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The project file read, if any.
    pub file: Option<PathBuf>,
    /// The profile selected, if any.
    pub profile: Option<String>,
    /// Most tests at once.
    pub jobs: Sourced<usize>,
    /// The default step timeout.
    pub timeout: Sourced<Duration>,
    /// The shutdown grace of each server.
    pub shutdown_grace: Sourced<ShutdownGrace>,
    /// The protocol version.
    pub protocol: Sourced<String>,
    /// The JSON report.
    pub json: Sourced<PathBuf>,
    /// The JUnit XML.
    pub junit: Sourced<PathBuf>,
    /// The HTML report.
    pub html: Sourced<PathBuf>,
    /// The output format.
    pub format: Sourced<OutputFormat>,
    /// `--fail-fast`.
    pub fail_fast: Sourced<bool>,
    /// `--no-progress`.
    pub no_progress: Sourced<bool>,
    /// `--no-history`.
    pub no_history: Sourced<bool>,
    /// `--reuse-server`.
    pub reuse_server: Sourced<bool>,
    /// `--min-coverage`.
    pub min_coverage: Sourced<f64>,
    /// `--retries`.
    pub retries: Sourced<u32>,
    /// `--quarantine`.
    pub quarantine: Sourced<PathBuf>,
}

/// What the command line gave, besides the settings themselves.
#[derive(Debug, Clone, Default)]
pub struct Lookup {
    /// `--config PATH`.
    pub config: Option<PathBuf>,
    /// `--config-profile NAME`.
    pub profile: Option<String>,
    /// Where to look for `mcpr.toml` upward from (the working folder).
    pub cwd: PathBuf,
}

/// The environment variable of each setting.
pub const ENV: &[(&str, &str)] = &[
    ("MCPR_JOBS", "--jobs"),
    ("MCPR_TIMEOUT", "--timeout"),
    ("MCPR_SHUTDOWN_GRACE", "--shutdown-grace"),
    ("MCPR_PROTOCOL", "--protocol"),
    ("MCPR_JSON", "--json"),
    ("MCPR_JUNIT", "--junit"),
    ("MCPR_HTML", "--html"),
    ("MCPR_FORMAT", "--format"),
    ("MCPR_FAIL_FAST", "--fail-fast"),
    ("MCPR_NO_PROGRESS", "--no-progress"),
    ("MCPR_NO_HISTORY", "--no-history"),
    ("MCPR_REUSE_SERVER", "--reuse-server"),
    ("MCPR_MIN_COVERAGE", "--min-coverage"),
    ("MCPR_RETRIES", "--retries"),
    ("MCPR_QUARANTINE", "--quarantine"),
    ("MCPR_CONFIG", "--config"),
    ("MCPR_CONFIG_PROFILE", "--config-profile"),
];

/// Resolves the settings: `flags` over the environment (read through `env`, so tests need
/// not change the process's) over the project file over the defaults. The error says
/// which value is wrong and where it was given.
pub fn resolve(
    flags: &Settings,
    lookup: &Lookup,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Resolved, String> {
    let env = |name: &str| env(name).filter(|v| !v.trim().is_empty());
    let from_env = env_settings(&env)?;
    let Layers {
        file,
        profile,
        base,
        overlay,
    } = project_layers(lookup, &env)?;
    let dir = file
        .as_deref()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let selected = profile.clone();
    let table = |in_profile: bool| match (&selected, in_profile) {
        (Some(p), true) => Source::File(format!("[profiles.{p}]")),
        _ => Source::File("[run]".into()),
    };
    // One setting: flag, env, profile, [run].
    macro_rules! pick {
        ($field:ident, $env:literal) => {{
            if let Some(v) = &flags.$field {
                (Some(v.clone()), Source::Flag)
            } else if let Some(v) = &from_env.$field {
                (Some(v.clone()), Source::Env($env))
            } else if let Some(v) = overlay.as_ref().and_then(|o| o.$field.clone()) {
                (Some(v), table(true))
            } else if let Some(v) = base.$field.clone() {
                (Some(v), table(false))
            } else {
                (None, Source::Default)
            }
        }};
    }
    let in_file = |p: (Option<PathBuf>, Source)| -> Sourced<PathBuf> {
        let value = match (&p.1, p.0) {
            (Source::File(_), Some(v)) if v.is_relative() && v.as_os_str() != "-" => {
                Some(dir.join(v))
            }
            (_, v) => v,
        };
        Sourced { value, source: p.1 }
    };
    let (jobs, jobs_src) = pick!(jobs, "MCPR_JOBS");
    if jobs == Some(0) {
        return Err(format!("jobs must be at least 1 ({jobs_src})"));
    }
    let (timeout, timeout_src) = pick!(timeout, "MCPR_TIMEOUT");
    let timeout = timeout
        .map(|t| parse_duration(&t).map_err(|e| format!("timeout {t:?} ({timeout_src}): {e}")))
        .transpose()?;
    let (grace, grace_src) = pick!(shutdown_grace, "MCPR_SHUTDOWN_GRACE");
    let grace = grace
        .map(|t| parse_grace(&t).map_err(|e| format!("shutdown grace {t:?} ({grace_src}): {e}")))
        .transpose()?;
    let (format, format_src) = pick!(format, "MCPR_FORMAT");
    let format = format
        .map(|f| OutputFormat::parse(&f).map_err(|e| format!("{e} ({format_src})")))
        .transpose()?;
    let (protocol, protocol_src) = pick!(protocol, "MCPR_PROTOCOL");
    let (fail_fast, fail_fast_src) = pick!(fail_fast, "MCPR_FAIL_FAST");
    let (no_progress, no_progress_src) = pick!(no_progress, "MCPR_NO_PROGRESS");
    let (no_history, no_history_src) = pick!(no_history, "MCPR_NO_HISTORY");
    let (reuse_server, reuse_server_src) = pick!(reuse_server, "MCPR_REUSE_SERVER");
    let (retries, retries_src) = pick!(retries, "MCPR_RETRIES");
    if let Some(n) = retries.filter(|n| *n > crate::schedule::MAX_RETRIES) {
        return Err(format!(
            "retries {n} is too many: at most {} ({retries_src})",
            crate::schedule::MAX_RETRIES
        ));
    }
    let (coverage, coverage_src) = pick!(min_coverage, "MCPR_MIN_COVERAGE");
    let coverage = coverage
        .map(|p| {
            p.value()
                .map_err(|e| format!("min-coverage: {e} ({coverage_src})"))
        })
        .transpose()?;
    Ok(Resolved {
        file,
        profile,
        jobs: sourced(jobs, jobs_src),
        timeout: sourced(timeout, timeout_src),
        shutdown_grace: sourced(grace, grace_src),
        protocol: sourced(protocol, protocol_src),
        json: in_file(pick!(json, "MCPR_JSON")),
        junit: in_file(pick!(junit, "MCPR_JUNIT")),
        html: in_file(pick!(html, "MCPR_HTML")),
        format: sourced(format, format_src),
        fail_fast: sourced(fail_fast, fail_fast_src),
        no_progress: sourced(no_progress, no_progress_src),
        no_history: sourced(no_history, no_history_src),
        reuse_server: sourced(reuse_server, reuse_server_src),
        min_coverage: sourced(coverage, coverage_src),
        retries: sourced(retries, retries_src),
        quarantine: in_file(pick!(quarantine, "MCPR_QUARANTINE")),
    })
}

/// The project file's layers under the flags and the environment: the file (`--config`,
/// else `MCPR_CONFIG`, else the first mcpr.toml upward), the profile asked for, its `[run]`
/// table and the profile's table.
struct Layers {
    file: Option<PathBuf>,
    profile: Option<String>,
    base: Settings,
    overlay: Option<Settings>,
}

/// Finds and reads the project file and the profile `lookup` and `env` ask for.
fn project_layers(lookup: &Lookup, env: &dyn Fn(&str) -> Option<String>) -> Result<Layers, String> {
    let file = match lookup
        .config
        .clone()
        .or_else(|| env("MCPR_CONFIG").map(Into::into))
    {
        Some(p) if !p.is_file() => {
            return Err(format!("--config {}: no such file", p.display()));
        }
        Some(p) => Some(p),
        None => find_upward(&lookup.cwd),
    };
    let profile = lookup
        .profile
        .clone()
        .or_else(|| env("MCPR_CONFIG_PROFILE"));
    let (base, overlay) = match &file {
        Some(path) => {
            let project = read_file(path)?;
            let overlay = match &profile {
                Some(name) => Some(project.profiles.get(name).cloned().ok_or_else(|| {
                    let known: Vec<&str> = project.profiles.keys().map(String::as_str).collect();
                    format!(
                        "{}: no profile {name:?} (profiles: {})",
                        path.display(),
                        if known.is_empty() {
                            "none".to_string()
                        } else {
                            known.join(", ")
                        }
                    )
                })?),
                None => None,
            };
            (project.run.clone(), overlay)
        }
        None if profile.is_some() => {
            return Err(format!(
                "--config-profile {:?}: no {FILE_NAME} in {} or a folder above it",
                profile.as_deref().unwrap_or_default(),
                lookup.cwd.display()
            ));
        }
        None => (Settings::default(), None),
    };
    Ok(Layers {
        file,
        profile,
        base,
        overlay,
    })
}

/// A value and where it came from.
fn sourced<T>(value: Option<T>, source: Source) -> Sourced<T> {
    Sourced { value, source }
}

/// The settings of the `MCPR_*` variables.
fn env_settings(env: &dyn Fn(&str) -> Option<String>) -> Result<Settings, String> {
    let flag = |name: &'static str| -> Result<Option<bool>, String> {
        env(name)
            .map(|v| match v.trim().to_ascii_lowercase().as_str() {
                "1" | "true" | "yes" | "on" => Ok(true),
                "0" | "false" | "no" | "off" => Ok(false),
                other => Err(format!("{name}={other:?} is not true or false")),
            })
            .transpose()
    };
    Ok(Settings {
        jobs: env("MCPR_JOBS")
            .map(|v| {
                v.trim()
                    .parse()
                    .map_err(|_| format!("MCPR_JOBS={v:?} is not a number"))
            })
            .transpose()?,
        timeout: env("MCPR_TIMEOUT"),
        shutdown_grace: env("MCPR_SHUTDOWN_GRACE"),
        protocol: env("MCPR_PROTOCOL"),
        json: env("MCPR_JSON").map(Into::into),
        junit: env("MCPR_JUNIT").map(Into::into),
        html: env("MCPR_HTML").map(Into::into),
        format: env("MCPR_FORMAT"),
        fail_fast: flag("MCPR_FAIL_FAST")?,
        no_progress: flag("MCPR_NO_PROGRESS")?,
        no_history: flag("MCPR_NO_HISTORY")?,
        reuse_server: flag("MCPR_REUSE_SERVER")?,
        min_coverage: env("MCPR_MIN_COVERAGE").map(Percent::Text),
        retries: env("MCPR_RETRIES")
            .map(|v| {
                v.trim()
                    .parse()
                    .map_err(|_| format!("MCPR_RETRIES={v:?} is not a whole number"))
            })
            .transpose()?,
        quarantine: env("MCPR_QUARANTINE").map(Into::into),
    })
}

/// The first `mcpr.toml` in `dir` or a folder above it.
pub fn find_upward(dir: &Path) -> Option<PathBuf> {
    let start = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    start
        .ancestors()
        .map(|d| d.join(FILE_NAME))
        .find(|p| p.is_file())
}

/// A shutdown grace: a duration as [`parse_duration`] reads it; zero (`0`, `0ms`): the
/// server is ended as soon as its stdin is closed; or `auto`, mcpr's default (up to a
/// second, less once the server sits idle: [`ShutdownGrace::Auto`]).
pub fn parse_grace(text: &str) -> Result<ShutdownGrace, String> {
    if text.trim().eq_ignore_ascii_case("auto") {
        return Ok(ShutdownGrace::Auto);
    }
    let digits = text
        .trim()
        .trim_end_matches(|c: char| c.is_ascii_alphabetic());
    if !digits.is_empty() && digits.trim().parse::<f64>().is_ok_and(|n| n == 0.0) {
        return Ok(ShutdownGrace::Fixed(Duration::ZERO));
    }
    parse_duration(text)
        .map(ShutdownGrace::Fixed)
        .map_err(|e| format!("{e}, or auto"))
}

/// `30s`, `1500ms`, `2m`, or a number of seconds (`2.5`); more than zero.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let (number, unit) = match t.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => (t[..i].trim(), t[i..].trim()),
        None => (t, "s"),
    };
    let n: f64 = number
        .parse()
        .map_err(|_| "not a duration such as 30s, 500ms or 2m".to_string())?;
    let secs = match unit {
        "ms" => n / 1000.0,
        "s" => n,
        "m" | "min" => n * 60.0,
        other => return Err(format!("unknown unit {other:?} (ms, s or m)")),
    };
    if !secs.is_finite() || secs <= 0.0 || secs > 86_400.0 {
        return Err("must be more than 0 and at most a day".into());
    }
    Ok(Duration::from_secs_f64(secs))
}

impl Resolved {
    /// The resolved settings as lines for `-v`, each with where it came from.
    pub fn describe(&self) -> String {
        fn line<T>(
            name: &str,
            s: &Sourced<T>,
            show: impl Fn(&T) -> String,
            default: &str,
        ) -> String {
            match &s.value {
                Some(v) => format!("  {name:<9} {} ({})\n", show(v), s.source),
                None => format!("  {name:<9} {default} (default)\n"),
            }
        }
        let path = |p: &PathBuf| p.display().to_string();
        let mut out = String::from("settings (flag > MCPR_* variable > mcpr.toml > default):\n");
        out.push_str(&match (&self.file, &self.profile) {
            (Some(f), Some(p)) => format!("  config    {} (profile {p})\n", f.display()),
            (Some(f), None) => format!("  config    {}\n", f.display()),
            (None, _) => "  config    none found\n".to_string(),
        });
        out.push_str(&line(
            "jobs",
            &self.jobs,
            ToString::to_string,
            "the number of cores",
        ));
        out.push_str(&line(
            "timeout",
            &self.timeout,
            |d| crate::error::fmt_duration(*d),
            "the suite's default, else 10s",
        ));
        out.push_str(&line(
            "grace",
            &self.shutdown_grace,
            |g| match g {
                ShutdownGrace::Auto => "auto".into(),
                ShutdownGrace::Fixed(d) => crate::error::fmt_duration(*d),
            },
            "the suite's Shutdown grace, else auto",
        ));
        out.push_str(&line("protocol", &self.protocol, Clone::clone, "probed"));
        out.push_str(&line(
            "format",
            &self.format,
            |f| f.as_str().into(),
            "human",
        ));
        out.push_str(&line("json", &self.json, path, "none"));
        out.push_str(&line("junit", &self.junit, path, "none"));
        out.push_str(&line("html", &self.html, path, "none"));
        out.push_str(&line(
            "fail-fast",
            &self.fail_fast,
            ToString::to_string,
            "false",
        ));
        out.push_str(&line(
            "progress",
            &self.no_progress,
            |off| if *off { "off".into() } else { "on".into() },
            "on a terminal",
        ));
        out.push_str(&line(
            "history",
            &self.no_history,
            |off| if *off { "off".into() } else { "on".into() },
            "on",
        ));
        out.push_str(&line(
            "sessions",
            &self.reuse_server,
            |on| {
                if *on {
                    "shared".into()
                } else {
                    "the suite's setting".into()
                }
            },
            "the suite's setting, else one per test",
        ));
        out.push_str(&line(
            "min-cov",
            &self.min_coverage,
            |p| format!("{}%", crate::coverage::shown(*p)),
            "none",
        ));
        out.push_str(&line(
            "retries",
            &self.retries,
            ToString::to_string,
            "the test's, else the suite's Default retries, else 0",
        ));
        out.push_str(&line("quarantine", &self.quarantine, path, "none"));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(toml: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(FILE_NAME), toml).unwrap();
        std::fs::create_dir_all(dir.path().join("a/b")).unwrap();
        dir
    }

    #[test]
    fn retries_and_quarantine_come_from_every_place() {
        let dir = project("[run]\nretries = 2\nquarantine = \"q.txt\"\n");
        let lookup = Lookup {
            cwd: dir.path().into(),
            ..Lookup::default()
        };
        let none = |_: &str| None;
        let r = resolve(&Settings::default(), &lookup, &none).unwrap();
        assert_eq!(r.retries.value, Some(2));
        assert_eq!(r.quarantine.value, Some(dir.path().join("q.txt")));
        let env = |n: &str| (n == "MCPR_RETRIES").then(|| "1".to_string());
        let r = resolve(&Settings::default(), &lookup, &env).unwrap();
        assert_eq!(r.retries.value, Some(1));
        assert_eq!(r.retries.source, Source::Env("MCPR_RETRIES"));
        let flags = Settings {
            retries: Some(0),
            ..Settings::default()
        };
        let r = resolve(&flags, &lookup, &env).unwrap();
        assert_eq!((r.retries.value, r.retries.source), (Some(0), Source::Flag));
        let bad = |n: &str| (n == "MCPR_RETRIES").then(|| "many".to_string());
        assert!(
            resolve(&Settings::default(), &lookup, &bad)
                .unwrap_err()
                .contains("MCPR_RETRIES")
        );
        let flags = Settings {
            retries: Some(101),
            ..Settings::default()
        };
        assert!(
            resolve(&flags, &lookup, &none)
                .unwrap_err()
                .contains("at most 100")
        );
    }

    #[test]
    fn a_shutdown_grace_may_be_zero_and_reuse_server_comes_from_every_place() {
        let fixed = |d| Ok(ShutdownGrace::Fixed(d));
        assert_eq!(parse_grace("0"), fixed(Duration::ZERO));
        assert_eq!(parse_grace("0ms"), fixed(Duration::ZERO));
        assert_eq!(parse_grace("250ms"), fixed(Duration::from_millis(250)));
        assert_eq!(parse_grace(" Auto "), Ok(ShutdownGrace::Auto));
        assert!(parse_grace("-1s").is_err());
        assert!(parse_grace("soon").is_err());
        let dir = project("[run]\nreuse-server = true\nshutdown-grace = \"0\"\n");
        let lookup = Lookup {
            cwd: dir.path().to_path_buf(),
            ..Lookup::default()
        };
        let none = |_: &str| None;
        let r = resolve(&Settings::default(), &lookup, &none).unwrap();
        assert_eq!(r.reuse_server.value, Some(true));
        assert_eq!(
            r.shutdown_grace.value,
            Some(ShutdownGrace::Fixed(Duration::ZERO))
        );
        let off = |name: &str| (name == "MCPR_REUSE_SERVER").then(|| "off".to_string());
        let r = resolve(&Settings::default(), &lookup, &off).unwrap();
        assert_eq!(r.reuse_server.value, Some(false));
        assert_eq!(r.reuse_server.source, Source::Env("MCPR_REUSE_SERVER"));
    }

    #[test]
    fn the_history_is_turned_off_from_every_place_and_history_path_turns_it_on() {
        let dir = project("[run]\nno-history = true\n");
        let lookup = Lookup {
            cwd: dir.path().to_path_buf(),
            ..Lookup::default()
        };
        let none = |_: &str| None;
        let r = resolve(&Settings::default(), &lookup, &none).unwrap();
        assert_eq!(r.no_history.value, Some(true));
        assert_eq!(r.no_history.source, Source::File("[run]".into()));
        let on = |name: &str| (name == "MCPR_NO_HISTORY").then(|| "0".to_string());
        let r = resolve(&Settings::default(), &lookup, &on).unwrap();
        assert_eq!(r.no_history.value, Some(false));
        assert_eq!(r.no_history.source, Source::Env("MCPR_NO_HISTORY"));
        // What `--history PATH` gives: the flag wins over the variable.
        let off = |name: &str| (name == "MCPR_NO_HISTORY").then(|| "1".to_string());
        let flags = Settings {
            no_history: Some(false),
            ..Settings::default()
        };
        let r = resolve(&flags, &lookup, &off).unwrap();
        assert_eq!(r.no_history.value, Some(false));
        assert_eq!(r.no_history.source, Source::Flag);
    }

    const FILE: &str = "[run]\njobs = 3\ntimeout = \"20s\"\njunit = \"out/j.xml\"\n\n[profiles.ci]\njobs = 2\nhtml = \"out/r.html\"\n";

    #[test]
    fn flag_over_env_over_profile_over_file() {
        let dir = project(FILE);
        let lookup = Lookup {
            cwd: dir.path().join("a/b"),
            profile: Some("ci".into()),
            ..Lookup::default()
        };
        let none = |_: &str| None;
        let r = resolve(&Settings::default(), &lookup, &none).unwrap();
        assert_eq!(r.jobs.value, Some(2));
        assert_eq!(r.jobs.source, Source::File("[profiles.ci]".into()));
        assert_eq!(r.timeout.value, Some(Duration::from_secs(20)));
        assert_eq!(r.timeout.source, Source::File("[run]".into()));
        // Paths in the file are relative to its folder.
        assert_eq!(r.junit.value, Some(dir.path().join("out/j.xml")));
        assert_eq!(r.html.value, Some(dir.path().join("out/r.html")));
        let env = |n: &str| (n == "MCPR_JOBS").then(|| "5".to_string());
        let r = resolve(&Settings::default(), &lookup, &env).unwrap();
        assert_eq!(r.jobs.source, Source::Env("MCPR_JOBS"));
        assert_eq!(r.jobs.value, Some(5));
        let flags = Settings {
            jobs: Some(7),
            ..Settings::default()
        };
        let r = resolve(&flags, &lookup, &env).unwrap();
        assert!(
            r.describe().contains("jobs      7 (flag)"),
            "{}",
            r.describe()
        );
        assert_eq!((r.jobs.value, r.jobs.source), (Some(7), Source::Flag));
    }

    #[test]
    fn bad_values_and_missing_profiles_are_named() {
        let dir = project(FILE);
        let mut lookup = Lookup {
            cwd: dir.path().to_path_buf(),
            profile: Some("nightly".into()),
            ..Lookup::default()
        };
        let none = |_: &str| None;
        let e = resolve(&Settings::default(), &lookup, &none).unwrap_err();
        assert!(e.contains("no profile \"nightly\" (profiles: ci)"), "{e}");
        lookup.profile = None;
        let env = |n: &str| (n == "MCPR_TIMEOUT").then(|| "soon".to_string());
        let e = resolve(&Settings::default(), &lookup, &env).unwrap_err();
        assert!(e.contains("MCPR_TIMEOUT"), "{e}");
        let bad = project("[run]\njbos = 3\n");
        lookup.cwd = bad.path().to_path_buf();
        let e = resolve(&Settings::default(), &lookup, &none).unwrap_err();
        assert!(e.contains("mcpr.toml") && e.contains("jbos"), "{e}");
        let empty = tempfile::tempdir().unwrap();
        lookup.cwd = empty.path().to_path_buf();
        lookup.profile = Some("ci".into());
        if find_upward(empty.path()).is_none() {
            let e = resolve(&Settings::default(), &lookup, &none).unwrap_err();
            assert!(e.contains("no mcpr.toml"), "{e}");
        }
    }

    #[test]
    fn minimum_coverage_from_each_place() {
        let none = |_: &str| None;
        let dir = project("[run]\nmin-coverage = 80\n\n[profiles.ci]\nmin-coverage = \"72.5%\"\n");
        let mut lookup = Lookup {
            cwd: dir.path().to_path_buf(),
            ..Lookup::default()
        };
        let r = resolve(&Settings::default(), &lookup, &none).unwrap();
        assert_eq!(r.min_coverage.value, Some(80.0));
        assert!(
            r.describe().contains("min-cov   80% (mcpr.toml [run])"),
            "{}",
            r.describe()
        );
        lookup.profile = Some("ci".into());
        let r = resolve(&Settings::default(), &lookup, &none).unwrap();
        assert_eq!(r.min_coverage.value, Some(72.5));
        let env = |n: &str| (n == "MCPR_MIN_COVERAGE").then(|| "50".to_string());
        let r = resolve(&Settings::default(), &lookup, &env).unwrap();
        assert_eq!(r.min_coverage.value, Some(50.0));
        let bad = |n: &str| (n == "MCPR_MIN_COVERAGE").then(|| "150".to_string());
        let e = resolve(&Settings::default(), &lookup, &bad).unwrap_err();
        assert!(
            e.contains("min-coverage") && e.contains("MCPR_MIN_COVERAGE"),
            "{e}"
        );
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1.5"), Ok(Duration::from_millis(1500)));
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("3h").is_err());
        assert!(parse_duration("x").is_err());
    }
}
