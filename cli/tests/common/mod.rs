//! Helpers shared by the CLI's integration tests (each test crate uses some of them).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The folder of the test servers (reference, hostile, OAuth, lint and mcp-tester's), built once per test
/// process in one `cargo build`, so feature resolution is the same for all of them and one
/// build serves the runtime's tests too.
fn test_servers() -> &'static Path {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT.get_or_init(|| {
        let dir = Path::new(env!("CARGO_BIN_EXE_mcpr"))
            .parent()
            .unwrap()
            .to_path_buf();
        let mut build = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
        build
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["build", "--quiet"]);
        for package in [
            "mcpr-reference-server",
            "mcpr-hostile-server",
            "mcpr-auth-server",
            "mcpr-lint-server",
            "mcpr-tester-server",
        ] {
            build.args(["-p", package]);
        }
        let status = build
            .env("CARGO_TARGET_DIR", dir.parent().unwrap())
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building the test servers failed");
        dir
    })
}

/// The reference server binary (`MCPR_REFERENCE_SERVER` overrides).
pub fn reference_server() -> String {
    std::env::var("MCPR_REFERENCE_SERVER").unwrap_or_else(|_| {
        test_servers()
            .join("mcpr-reference-server")
            .display()
            .to_string()
    })
}

/// The hostile server binary (`mcpr-hostile-server MODE`), built with the other test
/// servers.
pub fn hostile_server() -> String {
    test_servers()
        .join("mcpr-hostile-server")
        .display()
        .to_string()
}

/// The lint server binary (`MCPR_LINT_SERVER` overrides).
pub fn lint_server() -> String {
    std::env::var("MCPR_LINT_SERVER").unwrap_or_else(|_| {
        test_servers()
            .join("mcpr-lint-server")
            .display()
            .to_string()
    })
}

/// The server that answers as mcp-tester's test server does (`mcpr-tester-server`).
pub fn tester_server() -> String {
    test_servers()
        .join("mcpr-tester-server")
        .display()
        .to_string()
}

/// The repository's root folder (the CLI crate's parent).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// A scratch folder holding `files` (sub-folders created as needed).
pub fn scratch(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

/// Variables through which the machine running the tests (a CI service, a
/// user's shell) would change what `mcpr` does: CI mode refuses to write
/// snapshots, GitHub mode adds annotations, NO_COLOR changes the output.
/// Each test starts from none of them and sets what it tests.
pub const AMBIENT: &[&str] = &[
    "CI",
    "GITHUB_ACTIONS",
    "GITHUB_STEP_SUMMARY",
    "NO_COLOR",
    // The settings of `mcpr run` (docs/run-report.md): a developer's own must not change
    // what the tests see.
    "MCPR_JOBS",
    "MCPR_TIMEOUT",
    "MCPR_PROTOCOL",
    "MCPR_JSON",
    "MCPR_JUNIT",
    "MCPR_HTML",
    "MCPR_FORMAT",
    "MCPR_FAIL_FAST",
    "MCPR_NO_PROGRESS",
    "MCPR_CONFIG",
    "MCPR_CONFIG_PROFILE",
    "MCPR_RETRIES",
    "MCPR_QUARANTINE",
];

/// The `mcpr` binary under test, with the ambient variables removed.
pub fn mcpr_bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_mcpr"));
    for v in AMBIENT {
        c.env_remove(v);
    }
    // The machine's own credentials (a CI token, a cloud key) would be named in the
    // terminal header; tests that need such variables set them themselves.
    for (name, value) in mcpr_runtime::redact::runner_env() {
        if mcpr_runtime::redact::looks_like_credential_var(&name, &value) {
            c.env_remove(name);
        }
    }
    c
}

/// `mcpr` run in `dir`, without colour.
pub fn mcpr_in(dir: &Path) -> Command {
    let mut c = mcpr_bin();
    c.current_dir(dir).env("NO_COLOR", "1");
    c
}

/// A recorded draft (`draft.mcpr` in `dir`) checks clean and `mcpr run draft.mcpr ARGS`
/// passes against the server it was recorded from; `draft` is its text, for the messages.
pub fn assert_draft_replays(dir: &Path, draft: &str, run_args: &[&str]) {
    for args in [
        &["check", "draft.mcpr"][..],
        &[&["run", "draft.mcpr", "--no-progress"][..], run_args].concat(),
    ] {
        let out = mcpr_in(dir).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{draft}\n{}", output_text(&out));
    }
}

/// Both output streams of a finished command, labelled, for assertion messages.
pub fn output_text(out: &Output) -> String {
    format!(
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Asserts that `out` exited with `code` and that its stderr holds `needle`; both streams
/// are shown when it did not.
pub fn assert_exit_with(out: &Output, code: i32, needle: &str) {
    assert_eq!(out.status.code(), Some(code), "{}", output_text(out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(needle),
        "{needle:?} not in stderr\n{}",
        output_text(out)
    );
}

/// A test server listening on 127.0.0.1 that prints its URL as the last word of its first
/// stderr line (the reference server with `--http`, the hostile server's HTTP modes, the
/// auth server); killed when dropped.
pub struct HttpServer {
    /// The server process.
    pub child: std::process::Child,
    /// The URL it printed.
    pub url: String,
}

impl HttpServer {
    /// Starts `program` with `args` and waits for its URL.
    pub fn start(program: impl AsRef<std::ffi::OsStr>, args: &[&str]) -> HttpServer {
        use std::io::BufRead;
        let mut child = Command::new(program)
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the test server starts");
        let mut line = String::new();
        std::io::BufReader::new(child.stderr.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .trim()
            .rsplit(' ')
            .next()
            .unwrap_or_default()
            .to_string();
        assert!(url.starts_with("http://127.0.0.1:"), "{line}");
        HttpServer { child, url }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Where `conformance-tests/interop/install.sh` put the public servers (`MCPR_INTEROP_DIR`,
/// else the temporary folder's `mcpr-interop`); fails when they are not installed.
pub fn interop_dir() -> PathBuf {
    let dir = std::env::var("MCPR_INTEROP_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| std::env::temp_dir().join("mcpr-interop"));
    assert!(
        dir.join("node_modules").is_dir() && dir.join("venv").is_dir(),
        "the interop servers are not installed in {} (run conformance-tests/interop/install.sh)",
        dir.display()
    );
    dir
}
