//! The project file `mcpr.toml` as a whole: the settings of `mcpr run` (`[run]`,
//! `[profiles.NAME]`, resolved by [`super::config`]) and the defaults every other command
//! reads from it (docs/project.md):
//!
//! ```toml
//! server = "python -m my_server"   # or: url = "http://localhost:8000/mcp"
//!
//! [lint]
//! fail-on = "warning"
//! ignore = ["MCP005"]
//!
//! [snapshot]
//! file = "mcp-tools.json"
//! ```
//!
//! The default target is used by every command when neither the command line nor the suite
//! names a server. A `server` command runs in the project file's folder; relative paths in
//! the file are relative to that folder.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use mcpr_compiler::ir;
use mcpr_compiler::lint_rules::Level;
use serde::Deserialize;

use super::config::Settings;

/// What `mcpr.toml` holds.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ProjectFile {
    /// The default server command.
    #[serde(default)]
    pub server: Option<String>,
    /// The default Streamable HTTP endpoint.
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub run: Settings,
    #[serde(default)]
    pub profiles: BTreeMap<String, Settings>,
    #[serde(default)]
    pub lint: LintDefaults,
    #[serde(default)]
    pub snapshot: SnapshotDefaults,
}

/// Reads and parses a project file; the error names the file (and the key, through toml's
/// own message).
pub(super) fn read_file(path: &Path) -> Result<ProjectFile, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The `[lint]` table: what `mcpr lint`, the Action and `Expect the server is lint clean`
/// use where they are given nothing else.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct LintDefaults {
    /// `error`, `warning` or `info`.
    pub fail_on: Option<String>,
    /// Rule codes never reported.
    #[serde(default)]
    pub ignore: Vec<String>,
}

/// The `[snapshot]` table: what `mcpr snapshot` and `mcpr diff` use where they are given
/// nothing else.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct SnapshotDefaults {
    /// The snapshot file (`mcpr snapshot -o`, `mcpr diff FILE`), relative to the project
    /// file's folder.
    pub file: Option<PathBuf>,
    /// `mcpr diff --strict`: every change fails, compatible ones too.
    pub strict: Option<bool>,
}

/// The server a project names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DefaultTarget {
    /// `server = "CMD ARGS…"`: the words of the command (split as `Server:` lines are),
    /// run in the project's folder.
    Command {
        /// The program and its arguments.
        words: Vec<String>,
        /// The project file's folder.
        dir: PathBuf,
    },
    /// `url = "…"`.
    Url(String),
}

impl DefaultTarget {
    /// The target as the Suite IR writes one.
    pub fn to_ir(&self) -> ir::Target {
        match self {
            DefaultTarget::Command { words, dir } => {
                let mut t = ir::Target::stdio(words[0].clone(), words[1..].to_vec());
                if let ir::Target::Stdio(s) = &mut t {
                    s.cwd = Some(dir.display().to_string());
                }
                t
            }
            DefaultTarget::Url(url) => ir::Target::http(url.clone()),
        }
    }
}

/// The project's defaults for the commands other than `run`'s own settings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Project {
    /// The file read.
    pub file: PathBuf,
    /// `server` or `url`.
    pub target: Option<DefaultTarget>,
    /// `[lint]`.
    pub lint: LintDefaults,
    /// `[snapshot]`, with `file` made relative to the working folder's view (joined to the
    /// project's folder).
    pub snapshot: SnapshotDefaults,
}

/// The project file for `config` (`--config`), else `MCPR_CONFIG` of the command's
/// environment `env`, else the first `mcpr.toml` upward from `cwd`; `None` when there is
/// none.
pub fn load(
    config: Option<&Path>,
    cwd: &Path,
    env: &crate::environment::Environment,
) -> Result<Option<Project>, String> {
    let path = match config
        .map(Path::to_path_buf)
        .or_else(|| env.non_empty("MCPR_CONFIG").map(PathBuf::from))
    {
        Some(p) if !p.is_file() => return Err(format!("--config {}: no such file", p.display())),
        Some(p) => p,
        None => match super::config::find_upward(cwd) {
            Some(p) => p,
            None => return Ok(None),
        },
    };
    let parsed = read_file(&path)?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let dir = std::path::absolute(&dir).unwrap_or(dir);
    let target = match (parsed.server, parsed.url) {
        (Some(_), Some(_)) => {
            return Err(format!(
                "{}: give `server` or `url`, not both",
                path.display()
            ));
        }
        (Some(line), None) => {
            let words = mcpr_compiler::command_line::split(&line)
                .map_err(|e| format!("{}: server {line:?}: {e}", path.display()))?;
            if words.is_empty() {
                return Err(format!("{}: `server` is empty", path.display()));
            }
            Some(DefaultTarget::Command {
                words,
                dir: dir.clone(),
            })
        }
        (None, Some(url)) => Some(DefaultTarget::Url(url)),
        (None, None) => None,
    };
    if let Some(level) = &parsed.lint.fail_on
        && !matches!(level.as_str(), "error" | "warning" | "info")
    {
        return Err(format!(
            "{}: [lint] fail-on {level:?} is not one of error, warning, info",
            path.display()
        ));
    }
    let mut snapshot = parsed.snapshot;
    snapshot.file = snapshot.file.map(|f| dir.join(f));
    Ok(Some(Project {
        file: path,
        target,
        lint: parsed.lint,
        snapshot,
    }))
}

/// Fills what a suite leaves to the project: its target when it names no server, and the
/// `[lint]` defaults of each `Expect the server is lint clean` that sets none.
pub fn apply(project: &Project, suite: &mut ir::Suite) {
    if suite.target.is_none()
        && suite.servers.as_ref().is_none_or(|s| s.is_empty())
        && let Some(t) = &project.target
    {
        suite.target = Some(t.to_ir());
    }
    let level = project.lint.fail_on.as_deref().and_then(|l| match l {
        "error" => Some(Level::Error),
        "warning" => Some(Level::Warning),
        "info" => Some(Level::Info),
        _ => None,
    });
    if level.is_none() && project.lint.ignore.is_empty() {
        return;
    }
    for test in &mut suite.tests {
        for step in &mut test.steps {
            if let ir::StepKind::Native(n) = &mut step.kind
                && let ir::NativeStep::LintClean(a) = n.as_mut()
            {
                if a.fail_on.is_none() {
                    a.fail_on = level;
                }
                if !project.lint.ignore.is_empty() {
                    let ignore = a.ignore.get_or_insert_with(Vec::new);
                    for code in &project.lint.ignore {
                        if !ignore.iter().any(|c| c.eq_ignore_ascii_case(code)) {
                            ignore.push(code.clone());
                        }
                    }
                }
            }
        }
    }
}
