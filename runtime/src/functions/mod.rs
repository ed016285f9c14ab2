//! Custom-function modules (`Functions: ./functions.mjs`, `extensions.functions`): custom code
//! in a separate process, only with `--allow-custom-code`, as plugin data sources are.
//!
//! A suite's modules are loaded by one **function host**: Node.js running the script
//! `host.mjs` (embedded in mcpr, passed with `-e`), in a process group of its own, in the
//! suite file's folder, with only `PATH` of the runner's environment unless the suite grants
//! the `environment` permission. The host imports every module, answers with the names of
//! their functions, then takes one JSON line per call (`{id, function, args}`) and answers
//! `{id, result}` or `{id, error}` (docs/functions.md). A function receives one argument, the
//! object of its named arguments, and may return a value or a promise, as in the first
//! implementation.
//!
//! Every way it can go wrong is named: no Node (`MCP-EXT-007`), a module that does not load
//! (`MCP-EXT-006`), a manifest that is invalid (`MCP-EXT-100`) or asks for permissions the
//! suite does not grant (`MCP-EXT-101`), a function that throws (`MCP-EXT-005`, with its message), returns what is
//! not JSON (`MCP-EXT-004`) or does not finish by its deadline (`MCP-EXT-003`: the host is
//! stopped and started again for the next call), a host that exits or breaks the protocol
//! (`MCP-EXT-008`). The host never outlives its suite: it is killed with its group when the
//! suite ends or the [`FunctionHost`] is dropped. Calls are answered one at a time.

use std::collections::{BTreeMap, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcpr_compiler::ir::{self, Permission, StepKind};
use mcpr_compiler::lower::BUILT_IN_FUNCTIONS;
use serde_json::{Value, json};

use crate::codes::RunCode;

/// The host script, run by Node.
const HOST: &str = include_str!("host.mjs");
/// How long a call may take when neither the step nor the suite sets a deadline (the first
/// implementation's default).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(5000);
/// How long the modules may take to load.
pub const LOAD_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest line the host may answer with.
pub const MAX_LINE_BYTES: usize = 10 * 1024 * 1024;
/// Lines of the host's stderr kept for messages.
const STDERR_LINES: usize = 10;

/// A failure of custom code, with its run-time code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionError {
    /// `MCP-EXT-001` … `MCP-EXT-008`.
    pub code: RunCode,
    /// What happened.
    pub message: String,
}

impl FunctionError {
    fn new(code: RunCode, message: impl Into<String>) -> FunctionError {
        FunctionError {
            code,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for FunctionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

/// How to start a suite's host.
#[derive(Debug, Clone)]
struct Spec {
    /// The modules, as written and as absolute paths.
    modules: Vec<(String, PathBuf)>,
    /// The suite file's folder: the host's working folder.
    base_dir: PathBuf,
    /// The permissions the suite grants (`environment`, `filesystem-read`, `network`);
    /// `environment` gives the host the runner's whole environment.
    granted: Vec<String>,
    /// The `PATH` of the run's environment, which the host gets without `environment`.
    path: Option<String>,
}

/// A line the host printed on stdout.
enum Line {
    Json(Value),
    /// Longer than [`MAX_LINE_BYTES`]: the reader stopped.
    TooLong,
}

/// A running host.
struct Live {
    child: Child,
    group: i32,
    stdin: ChildStdin,
    lines: Receiver<Line>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    next_id: u64,
}

impl Live {
    /// Ends the host and everything it started, and reaps it.
    fn kill(&mut self) {
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(self.group),
            nix::sys::signal::Signal::SIGKILL,
        );
        let _ = self.child.wait();
    }

    /// How the host ended (it has closed its stdout), with the end of its stderr.
    fn ended(&mut self) -> String {
        // Its stdout is closed; give it a moment to exit before it is made to.
        let deadline = Instant::now() + Duration::from_millis(500);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(s)) => break Some(s),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10))
                }
                _ => break None,
            }
        };
        self.kill();
        let how = match status {
            Some(s) => {
                use std::os::unix::process::ExitStatusExt;
                match (s.code(), s.signal()) {
                    (Some(c), _) => format!("exited with status {c}"),
                    (None, Some(sig)) => format!("was killed by signal {sig}"),
                    _ => "ended".to_string(),
                }
            }
            None => "closed its output".to_string(),
        };
        format!("the function host {how}{}", self.stderr_note())
    }

    fn stderr_note(&self) -> String {
        // The reader may still be taking the last lines in.
        std::thread::sleep(Duration::from_millis(20));
        let lines = self.stderr.lock().map(|l| l.clone()).unwrap_or_default();
        if lines.is_empty() {
            String::new()
        } else {
            let text: Vec<String> = lines.into_iter().collect();
            format!("; its stderr ended with:\n{}", text.join("\n"))
        }
    }
}

/// The function host of one suite: the names its modules export, and the process that runs
/// them (started again after a call that had to be stopped).
pub struct FunctionHost {
    spec: Spec,
    /// Function name → the module that exports it, as written.
    names: BTreeMap<String, String>,
    live: Mutex<Option<Live>>,
    /// The process group of the live host (0: none), apart from `live`, which a call holds
    /// while it waits: [`FunctionHost::kill_now`] reaches the host through it at once. It
    /// is cleared before the host is reaped, so a group id is never signalled once free.
    group: Mutex<i32>,
}

impl std::fmt::Debug for FunctionHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FunctionHost")
            .field("names", &self.names)
            .finish_non_exhaustive()
    }
}

impl FunctionHost {
    /// Starts the host of `modules` (relative to `base_dir`) with the permissions `granted`
    /// and waits until they are loaded and their manifests are checked.
    pub fn start(
        modules: &[String],
        base_dir: &Path,
        granted: &[Permission],
        env: &crate::environment::Environment,
    ) -> Result<FunctionHost, FunctionError> {
        let spec = Spec {
            modules: modules
                .iter()
                .map(|m| (m.clone(), base_dir.join(m)))
                .collect(),
            base_dir: base_dir.to_path_buf(),
            granted: granted
                .iter()
                .filter_map(|p| serde_json::to_value(p).ok())
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
            path: env.get("PATH").map(str::to_string),
        };
        let (live, names) = spawn(&spec)?;
        Ok(FunctionHost {
            spec,
            names,
            group: Mutex::new(live.group),
            live: Mutex::new(Some(live)),
        })
    }

    /// Whether a module of the host exports `name`.
    pub fn provides(&self, name: &str) -> bool {
        self.names.contains_key(name)
    }

    /// The names the modules export, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.names.keys().map(String::as_str)
    }

    /// Calls `name` with `args` and waits for its value, at most `deadline`. Blocks the
    /// calling thread; calls are answered one at a time.
    pub fn call(
        &self,
        name: &str,
        args: &Value,
        deadline: Duration,
    ) -> Result<Value, FunctionError> {
        let started = Instant::now();
        let mut slot = self.live.lock().map_err(|_| {
            FunctionError::new(RunCode::FunctionHost, "the function host is unusable")
        })?;
        if slot.is_none() {
            let live = spawn(&self.spec)?.0;
            self.set_group(live.group);
            *slot = Some(live);
        }
        let live = slot.as_mut().expect("a live host");
        live.next_id += 1;
        let id = live.next_id;
        let mut line = serde_json::to_vec(&json!({"id": id, "function": name, "args": args}))
            .map_err(|e| FunctionError::new(RunCode::FunctionFailed, e.to_string()))?;
        line.push(b'\n');
        if live
            .stdin
            .write_all(&line)
            .and_then(|_| live.stdin.flush())
            .is_err()
        {
            let why = live.ended();
            *slot = None;
            return Err(FunctionError::new(
                RunCode::FunctionHost,
                format!("{why} before “{name}” could be called"),
            ));
        }
        loop {
            let left = deadline.saturating_sub(started.elapsed());
            match live.lines.recv_timeout(left) {
                Ok(Line::Json(v)) if v.get("id").and_then(Value::as_u64) == Some(id) => {
                    return answer(name, v);
                }
                // A stray line (an answer to a call given up on): not this call's.
                Ok(Line::Json(_)) => continue,
                Ok(Line::TooLong) => {
                    self.set_group(0);
                    live.kill();
                    *slot = None;
                    return Err(FunctionError::new(
                        RunCode::FunctionHost,
                        format!(
                            "the function host answered “{name}” with a line longer than {} MiB and was stopped",
                            MAX_LINE_BYTES / (1024 * 1024)
                        ),
                    ));
                }
                Err(RecvTimeoutError::Timeout) => {
                    self.set_group(0);
                    live.kill();
                    *slot = None;
                    return Err(FunctionError::new(
                        RunCode::FunctionTimeout,
                        format!(
                            "“{name}” did not finish within {}; the function host was stopped (it starts again for the next call)",
                            crate::error::fmt_duration(deadline)
                        ),
                    ));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    self.set_group(0);
                    let why = live.ended();
                    *slot = None;
                    return Err(FunctionError::new(
                        RunCode::FunctionHost,
                        format!("{why} while “{name}” ran"),
                    ));
                }
            }
        }
    }

    /// Ends the host now and reaps it (it is started again by the next call). A call that
    /// is waiting ends first: it sees the host gone.
    pub fn shutdown(&self) {
        self.kill_now();
        if let Ok(mut slot) = self.live.lock()
            && let Some(mut live) = slot.take()
        {
            live.kill();
        }
    }

    /// Kills the live host's process group at once, without waiting for a call under way
    /// (an interrupted run); whoever holds the host reaps it.
    pub fn kill_now(&self) {
        if let Ok(mut group) = self.group.lock() {
            if *group > 0 {
                let _ = nix::sys::signal::killpg(
                    nix::unistd::Pid::from_raw(*group),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
            *group = 0;
        }
    }

    /// Records the live host's group (0: none is live, or it is about to be reaped).
    fn set_group(&self, group: i32) {
        if let Ok(mut g) = self.group.lock() {
            *g = group;
        }
    }
}

impl Drop for FunctionHost {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// The value or the failure of one answer of the host.
fn answer(name: &str, v: Value) -> Result<Value, FunctionError> {
    if let Some(result) = v.get("result") {
        return Ok(result.clone());
    }
    let error = v.get("error").cloned().unwrap_or(Value::Null);
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("the function failed without a message")
        .to_string();
    let kind = error.get("kind").and_then(Value::as_str).unwrap_or("threw");
    Err(match kind {
        "not-json" => FunctionError::new(
            RunCode::FunctionNotJson,
            format!("“{name}” returned a value that cannot be saved as JSON: {message}"),
        ),
        "unknown" => FunctionError::new(RunCode::UnknownFunction, message),
        _ => FunctionError::new(RunCode::FunctionFailed, format!("{name}: {message}")),
    })
}

/// Starts Node with the host script and waits for the modules to load.
fn spawn(spec: &Spec) -> Result<(Live, BTreeMap<String, String>), FunctionError> {
    let mut cmd = Command::new("node");
    cmd.arg("--input-type=module")
        .arg("-e")
        .arg(HOST)
        .args(spec.modules.iter().map(|(_, abs)| abs))
        .current_dir(&spec.base_dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    if !spec.granted.iter().any(|p| p == "environment") {
        cmd.env_clear();
        if let Some(path) = &spec.path {
            cmd.env("PATH", path);
        }
    }
    let mut child = cmd.spawn().map_err(|e| {
        let why = match e.kind() {
            std::io::ErrorKind::NotFound => {
                "Node.js (`node`) is not installed or not on PATH".to_string()
            }
            _ => format!("Node.js (`node`) cannot be started: {e}"),
        };
        FunctionError::new(
            RunCode::NoFunctionHost,
            format!("{why}; custom functions run in it"),
        )
    })?;
    let group = child.id() as i32;
    let stdin = child.stdin.take().expect("piped stdin");
    let stdout = child.stdout.take().expect("piped stdout");
    let stderr = child.stderr.take().expect("piped stderr");
    let lines = read_lines(stdout);
    let tail = keep_stderr_tail(stderr);
    let mut live = Live {
        child,
        group,
        stdin,
        lines,
        stderr: tail,
        next_id: 0,
    };
    let shown = |abs: &str| {
        spec.modules
            .iter()
            .find(|(_, a)| a.to_string_lossy() == abs)
            .map_or_else(|| abs.to_string(), |(m, _)| m.clone())
    };
    let started = Instant::now();
    loop {
        let left = LOAD_TIMEOUT.saturating_sub(started.elapsed());
        match live.lines.recv_timeout(left) {
            Ok(Line::Json(v)) if v.get("ready") == Some(&Value::Bool(true)) => {
                let manifests = v.get("manifests").and_then(Value::as_object);
                for (module, manifest) in manifests.into_iter().flatten() {
                    if let Err(e) = check_manifest(&shown(module), manifest, &spec.granted) {
                        live.kill();
                        return Err(e);
                    }
                }
                let names = v
                    .get("functions")
                    .and_then(Value::as_object)
                    .map(|m| {
                        m.iter()
                            .map(|(k, v)| (k.clone(), shown(v.as_str().unwrap_or_default())))
                            .collect()
                    })
                    .unwrap_or_default();
                return Ok((live, names));
            }
            Ok(Line::Json(v)) if v.get("ready") == Some(&Value::Bool(false)) => {
                live.kill();
                let module = shown(v.get("module").and_then(Value::as_str).unwrap_or_default());
                let error = v.get("error").cloned().unwrap_or(Value::Null);
                let text = |k: &str| {
                    error
                        .get(k)
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string()
                };
                return Err(FunctionError::new(
                    RunCode::FunctionModule,
                    format!(
                        "the function module {module} cannot be loaded: {}: {}",
                        text("name"),
                        text("message")
                    ),
                ));
            }
            Ok(Line::Json(_)) => continue,
            Ok(Line::TooLong) | Err(RecvTimeoutError::Disconnected) => {
                let why = live.ended();
                return Err(FunctionError::new(
                    RunCode::FunctionModule,
                    format!("{why} while it loaded the function modules"),
                ));
            }
            Err(RecvTimeoutError::Timeout) => {
                live.kill();
                return Err(FunctionError::new(
                    RunCode::FunctionModule,
                    format!(
                        "the function modules did not load within {}",
                        crate::error::fmt_duration(LOAD_TIMEOUT)
                    ),
                ));
            }
        }
    }
}

/// The host's stdout as protocol lines, read on a thread of its own: each JSON object (what
/// is not one is not the protocol's and is left out), or `TooLong` and the end past
/// [`MAX_LINE_BYTES`].
fn read_lines(stdout: std::process::ChildStdout) -> Receiver<Line> {
    let (tx, lines) = sync_channel(16);
    std::thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        loop {
            let mut buf = Vec::new();
            let limit = (MAX_LINE_BYTES + 1) as u64;
            match (&mut reader).take(limit).read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => return,
                Ok(_) if buf.len() > MAX_LINE_BYTES => {
                    let _ = tx.send(Line::TooLong);
                    return;
                }
                Ok(_) => {
                    // What is not a JSON object is not the protocol's: left out.
                    if let Ok(v @ Value::Object(_)) = serde_json::from_slice::<Value>(&buf)
                        && tx.send(Line::Json(v)).is_err()
                    {
                        return;
                    }
                }
            }
        }
    });
    lines
}

/// The last [`STDERR_LINES`] lines of the host's stderr (each cut to 1,000 bytes), kept by a
/// thread of its own.
fn keep_stderr_tail(stderr: std::process::ChildStderr) -> Arc<Mutex<VecDeque<String>>> {
    let tail = Arc::new(Mutex::new(VecDeque::new()));
    let keep = Arc::clone(&tail);
    std::thread::spawn(move || {
        let reader = BufReader::new(stderr);
        for line in reader.split(b'\n').map_while(Result::ok) {
            let mut text = String::from_utf8_lossy(&line).into_owned();
            let mut cut = text.len().min(1000);
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
            if let Ok(mut t) = keep.lock() {
                if t.len() == STDERR_LINES {
                    t.pop_front();
                }
                t.push_back(text);
            }
        }
    });
    tail
}

/// Checks the manifest a module exports, as the first implementation did: `schemaVersion`
/// 1 with a `name` and a `version` (`MCP-EXT-100`), and `permissions` the suite grants
/// (`MCP-EXT-101`).
fn check_manifest(module: &str, manifest: &Value, granted: &[String]) -> Result<(), FunctionError> {
    let text = |k: &str| {
        manifest
            .get(k)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    let (Some(name), Some(_)) = (text("name"), text("version")) else {
        return Err(FunctionError::new(
            RunCode::FunctionManifest,
            format!("the manifest of the function module {module} has no `name` or no `version`"),
        ));
    };
    if manifest.get("schemaVersion") != Some(&json!(1)) {
        return Err(FunctionError::new(
            RunCode::FunctionManifest,
            format!(
                "the manifest of the function module {module} has `schemaVersion` {}, not 1",
                manifest.get("schemaVersion").unwrap_or(&Value::Null)
            ),
        ));
    }
    let denied: Vec<&str> = manifest
        .get("permissions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|p| !granted.iter().any(|g| g == p))
        .collect();
    if !denied.is_empty() {
        return Err(FunctionError::new(
            RunCode::ManifestPermissions,
            format!(
                "the function module {module} (“{name}”) needs permissions the suite does not grant: {}\nTry: grant them in the Extensions block (`permissions: [{}]`) after reviewing the module",
                denied.join(", "),
                denied.join(", ")
            ),
        ));
    }
    Ok(())
}

/// The first step of `suite` that calls a function that is not built in, with the function.
fn first_custom_call(suite: &ir::Suite) -> Option<(&ir::Step, &str)> {
    suite
        .tests
        .iter()
        .flat_map(|t| t.steps.iter())
        .find_map(|s| match &s.kind {
            StepKind::Set(set) if !BUILT_IN_FUNCTIONS.contains(&set.function.as_str()) => {
                Some((s, set.function.as_str()))
            }
            _ => None,
        })
}

/// The function host a suite needs, started, or `None` when it needs none: the suite
/// declares no modules, or no step computes a value. Without `allow_custom_code`, a suite
/// whose steps call a function that is not built in is refused (`MCP-EXT-001`, located at
/// the first such step); one that calls only built-ins runs without its modules. With it, a
/// module outside the suite's `allowlist` is refused (`MCP-EXT-109`). `unsafeLegacy` has
/// no effect: the modules always run in the host.
pub fn for_suite(
    suite: &ir::Suite,
    base_dir: &Path,
    allow_custom_code: bool,
    env: &crate::environment::Environment,
) -> Result<Option<Arc<FunctionHost>>, FunctionError> {
    let Some(ext) = &suite.extensions else {
        return Ok(None);
    };
    let modules = ext.functions.clone().unwrap_or_default();
    if modules.is_empty() {
        return Ok(None);
    }
    if !allow_custom_code {
        let Some((step, name)) = first_custom_call(suite) else {
            return Ok(None);
        };
        let at = step
            .source
            .as_ref()
            .map(|s| format!("{}:{}:{}: ", s.file, s.line, s.column))
            .unwrap_or_default();
        return Err(FunctionError::new(
            RunCode::CustomCodeOff,
            format!(
                "{at}the step calls “{name}”, a custom function of {}: custom functions run JavaScript, which is turned off\nTry: run with --allow-custom-code to let this suite run its function modules",
                modules.join(", ")
            ),
        ));
    }
    // `allowlist:` names the only modules that may be loaded (reviewed ones).
    if let Some(allowed) = &ext.allowlist
        && let Some(other) = modules.iter().find(|m| !allowed.contains(m))
    {
        return Err(FunctionError::new(
            RunCode::NotAllowlisted,
            format!(
                "the function module {other} is not in the suite's allowlist ({})\nTry: review the module and add it to `allowlist:`, or remove it from the modules",
                if allowed.is_empty() {
                    "empty".to_string()
                } else {
                    allowed.join(", ")
                }
            ),
        ));
    }
    let computes = suite
        .tests
        .iter()
        .flat_map(|t| t.steps.iter())
        .any(|s| matches!(s.kind, StepKind::Set(_)));
    if !computes {
        return Ok(None);
    }
    let granted = ext.permissions.clone().unwrap_or_default();
    FunctionHost::start(&modules, base_dir, &granted, env).map(|h| Some(Arc::new(h)))
}

/// The deadline of a call: the step's own, else `default` when the suite or the run set one
/// (it is not the runner's own default), else [`DEFAULT_TIMEOUT`].
pub fn deadline(
    step_timeout_ms: Option<u64>,
    default: Duration,
    runner_default: Duration,
) -> Duration {
    match step_timeout_ms {
        Some(ms) => Duration::from_millis(ms),
        None if default != runner_default => default,
        None => DEFAULT_TIMEOUT,
    }
}
