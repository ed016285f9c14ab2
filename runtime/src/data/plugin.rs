//! Plugin sources: an external `command` (with `args`, run in the suite file's folder) that
//! prints a JSON array of row objects on stdout. It gets `timeoutMs` (default 5000) and at
//! most 10 MiB of output; stdin is empty; without the `environment` permission it sees only
//! `PATH` of the runner's environment. Failures carry the reference's extension codes:
//! `MCP-EXT-104` not a list of rows, `-105` timeout, `-106` not JSON, `-107` the command
//! failed, `-108` it crashed (killed by a signal).

use crate::codes::RunCode;
use std::process::Stdio;
use std::time::Duration;

use mcpr_compiler::ir::{DataSource, Permission};
use tokio::io::AsyncReadExt;

use super::error::{DataError, DataErrors};
use super::{DataOptions, Row};

/// Default time a plugin may take.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(5000);
/// Most bytes a plugin may print (`MCP-DATA-036`).
pub const MAX_OUTPUT_BYTES: usize = 10 * 1024 * 1024;

/// Kills a process group when dropped.
struct GroupGuard(Option<i32>);

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if let Some(pid) = self.0 {
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }
}

fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    lines[lines.len().saturating_sub(10)..].join("\n")
}

/// Runs the plugin and returns its rows and how to name it.
pub async fn run(ds: &DataSource, opts: &DataOptions) -> Result<(Vec<Row>, String), DataErrors> {
    let (value, shown) = output(ds, opts).await?;
    // `path` leads to the rows inside the output, as for JSON files and REST answers.
    let not_rows = |e: DataError| DataError {
        code: RunCode::PluginNotRows,
        ..e
    };
    let value = super::follow_path(value, ds.path.as_deref(), &shown).map_err(not_rows)?;
    let rows = super::rows_of(value, &shown, "The plugin's output").map_err(|mut e| {
        e.errors = e.errors.into_iter().map(not_rows).collect();
        e
    })?;
    Ok((rows, shown))
}

/// Runs the plugin and returns its output as JSON, and how to name it.
async fn output(
    ds: &DataSource,
    opts: &DataOptions,
) -> Result<(serde_json::Value, String), DataError> {
    let (mut cmd, shown, timeout) = command(ds, opts)?;
    let mut child = cmd.spawn().map_err(|e| {
        DataError::new(RunCode::PluginFailed, format!("The plugin command cannot be started: {e}."))
            .in_file(&shown)
            .help("check the command name and that it is installed (relative paths start in the suite's folder)")
    })?;
    let group = child.id().and_then(|id| i32::try_from(id).ok());
    // However this ends (done, failed, timed out, or the run interrupted), nothing the
    // plugin started outlives it.
    let _guard = GroupGuard(group);
    let (out, err, status) = collect(&mut child, group, timeout, &shown).await?;
    let Ok(out) = out else {
        return Err(DataError::new(
            RunCode::PluginOutputTooLarge,
            format!(
                "The plugin printed more than {MAX_OUTPUT_BYTES} bytes (10 MiB) and was stopped."
            ),
        )
        .in_file(&shown));
    };
    let status = status.map_err(|e| {
        DataError::new(
            RunCode::PluginCrashed,
            format!("The plugin could not be waited for: {e}."),
        )
        .in_file(&shown)
    })?;
    let stderr_note = if err.trim().is_empty() {
        String::new()
    } else {
        format!("\nIts stderr ended with:\n{}", tail(&err))
    };
    if !status.success() {
        use std::os::unix::process::ExitStatusExt;
        return Err(match status.code() {
            Some(code) => DataError::new(
                RunCode::PluginFailed,
                format!("The plugin exited with status {code}.{stderr_note}"),
            ),
            None => DataError::new(
                RunCode::PluginCrashed,
                format!(
                    "The plugin was killed by signal {}.{stderr_note}",
                    status.signal().unwrap_or(0)
                ),
            ),
        }
        .in_file(&shown));
    }
    let text = String::from_utf8(out).map_err(|_| {
        DataError::new(
            RunCode::PluginNotJson,
            "The plugin's output is not UTF-8 text.",
        )
        .in_file(&shown)
    })?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        DataError::new(
            RunCode::PluginNotJson,
            format!("The plugin's output is not JSON: {e}.{stderr_note}"),
        )
        .in_file(&shown)
        .help("print exactly one JSON array of row objects on stdout (diagnostics go to stderr)")
    })?;
    Ok((value, shown))
}

/// The plugin's command as the source gives it: the program (a relative path with a folder
/// starts in the suite's folder, a bare name is looked up on PATH), its arguments, the
/// suite's folder as working folder, no stdin, its own process group, and only `PATH` of
/// the environment unless the source has the `environment` permission. With it, how the
/// plugin is shown and its deadline.
fn command(
    ds: &DataSource,
    opts: &DataOptions,
) -> Result<(tokio::process::Command, String, Duration), DataError> {
    let Some(command) = ds.command.clone().filter(|c| !c.trim().is_empty()) else {
        return Err(DataError::new(
            RunCode::PluginCommand,
            if ds.module.is_some() {
                "This plugin names a JavaScript `module`; mcpr runs plugins as commands."
            } else {
                "A plugin source needs a `command`."
            },
        )
        .help("give `command:` (and `args:`), a program that prints a JSON array of rows, e.g. `command: node` with `args: [rows.mjs]`"));
    };
    let shown = format!("plugin {command}");
    let timeout = ds.timeout_ms.map_or(DEFAULT_TIMEOUT, Duration::from_millis);
    // A relative path with a folder (`./rows.sh`, `tools/rows`) starts in the suite's folder;
    // a bare name is looked up on PATH.
    let program = if command.contains('/') && std::path::Path::new(&command).is_relative() {
        opts.base_dir.join(&command)
    } else {
        std::path::PathBuf::from(&command)
    };
    let mut cmd = tokio::process::Command::new(&program);
    cmd.args(ds.args.iter().flatten())
        .current_dir(&opts.base_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let env_allowed = ds
        .permissions
        .as_ref()
        .is_some_and(|p| p.contains(&Permission::Environment));
    if !env_allowed {
        cmd.env_clear();
        if let Some(path) = opts.env.get("PATH") {
            cmd.env("PATH", path);
        }
    }
    Ok((cmd, shown, timeout))
}

/// Reads the plugin's stdout (at most 10 MiB: more stops it) and the end of its stderr and
/// waits for it to exit, within `timeout` (past it the whole process group is killed).
/// `Err(())` in the first item: the output was too large.
async fn collect(
    child: &mut tokio::process::Child,
    group: Option<i32>,
    timeout: Duration,
    shown: &str,
) -> Result<
    (
        Result<Vec<u8>, ()>,
        String,
        std::io::Result<std::process::ExitStatus>,
    ),
    DataError,
> {
    let mut stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let read_out = async {
        let mut buf = Vec::new();
        let mut chunk = vec![0u8; 64 * 1024];
        loop {
            let n = stdout.read(&mut chunk).await.unwrap_or(0);
            if n == 0 {
                return Ok(buf);
            }
            if buf.len() + n > MAX_OUTPUT_BYTES {
                // Stop the plugin now: it would block on a full pipe until the timeout.
                if let Some(pid) = group {
                    let _ = nix::sys::signal::killpg(
                        nix::unistd::Pid::from_raw(pid),
                        nix::sys::signal::Signal::SIGKILL,
                    );
                }
                return Err(());
            }
            buf.extend_from_slice(&chunk[..n]);
        }
    };
    let read_err = async {
        let mut buf = Vec::new();
        let _ = (&mut stderr).take(1024 * 1024).read_to_end(&mut buf).await;
        String::from_utf8_lossy(&buf).into_owned()
    };
    let work = async {
        let (out, err) = tokio::join!(read_out, read_err);
        let status = child.wait().await;
        (out, err, status)
    };
    let (out, err, status) = match tokio::time::timeout(timeout, work).await {
        Ok(done) => done,
        Err(_) => {
            // The whole process group: a shell's children go too.
            if let Some(pid) = group {
                let _ = nix::sys::signal::killpg(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
            return Err(DataError::new(
                RunCode::PluginTimeout,
                format!(
                    "The plugin did not finish within {} ms and was stopped.",
                    timeout.as_millis()
                ),
            )
            .in_file(shown)
            .help("raise `timeoutMs`, or make the plugin faster"));
        }
    };
    Ok((out, err, status))
}
