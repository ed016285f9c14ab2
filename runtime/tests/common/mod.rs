//! Shared helpers of the runtime's integration tests: finding (and building once) the test
//! server binaries, and session presets.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use mcpr_runtime::session::{ClientBehaviour, ProtocolChoice, SessionConfig};
use mcpr_runtime::{Client, StdioConfig};

/// The target profile directory the test binary runs from (`target/debug`).
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current exe");
    // target/debug/deps/<test>-<hash>
    exe.parent()
        .and_then(Path::parent)
        .expect("target/<profile>")
        .to_path_buf()
}

/// Builds the server binaries once per test process (a no-op when they are fresh) and
/// returns the path of `name`. `MCPR_REFERENCE_SERVER` / `MCPR_HOSTILE_SERVER` /
/// `MCPR_AUTH_SERVER` override.
pub fn server_bin(name: &str) -> PathBuf {
    let var = match name {
        "mcpr-reference-server" => "MCPR_REFERENCE_SERVER",
        "mcpr-auth-server" => "MCPR_AUTH_SERVER",
        _ => "MCPR_HOSTILE_SERVER",
    };
    if let Ok(p) = std::env::var(var) {
        return PathBuf::from(p);
    }
    static BUILT: OnceLock<Result<(), String>> = OnceLock::new();
    let dir = profile_dir();
    let built = BUILT.get_or_init(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let target_dir = dir.parent().expect("target dir").to_path_buf();
        let mut cmd = Command::new(cargo);
        cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
            .args([
                "build",
                "--quiet",
                "-p",
                "mcpr-reference-server",
                "-p",
                "mcpr-hostile-server",
                "-p",
                "mcpr-auth-server",
                "-p",
                "mcpr-lint-server",
                "-p",
                "mcpr-tester-server",
            ])
            .env("CARGO_TARGET_DIR", &target_dir);
        if dir.file_name().is_some_and(|n| n == "release") {
            cmd.arg("--release");
        }
        match cmd.status() {
            Ok(s) if s.success() => Ok(()),
            Ok(s) => Err(format!("cargo build of the test servers failed: {s}")),
            Err(e) => Err(format!("could not run cargo: {e}")),
        }
    });
    if let Err(e) = built {
        panic!("{e}");
    }
    let path = dir.join(name);
    assert!(path.exists(), "{} was not built", path.display());
    path
}

/// A stdio config for the reference server.
pub fn reference() -> StdioConfig {
    StdioConfig::new(
        server_bin("mcpr-reference-server").display().to_string(),
        Vec::<String>::new(),
    )
}

/// A stdio config for the hostile server in `mode`.
pub fn hostile(mode: &str, extra: &[&str]) -> StdioConfig {
    let mut args = vec![mode.to_string()];
    args.extend(extra.iter().map(|s| s.to_string()));
    StdioConfig::new(
        server_bin("mcpr-hostile-server").display().to_string(),
        args,
    )
}

/// A session config with everything declared and short deadlines.
pub fn config(protocol: Option<&str>) -> SessionConfig {
    SessionConfig {
        request_timeout: Duration::from_secs(10),
        connect_timeout: Duration::from_secs(10),
        protocol: match protocol {
            Some(v) => ProtocolChoice::Pinned(v.into()),
            None => ProtocolChoice::Auto,
        },
        behaviour: ClientBehaviour::everything(),
        ..SessionConfig::default()
    }
}

/// Connects to the reference server.
pub async fn connect_reference(protocol: Option<&str>) -> Client {
    match Client::connect(reference(), config(protocol)).await {
        Ok(c) => c,
        Err(e) => panic!("connect failed: {e}"),
    }
}

/// Asserts that the process group of `pid` is gone (waiting up to 2 s for the kernel).
pub async fn assert_group_gone(pid: i32) {
    for _ in 0..100 {
        if !mcpr_runtime::transport::stdio::group_alive(pid) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("process group {pid} is still alive");
}

/// A test server listening on a free loopback port (it prints its URL as the last word
/// of its first stderr line); killed on drop.
pub struct HttpServer {
    child: std::process::Child,
    /// The endpoint URL.
    pub url: String,
}

impl HttpServer {
    /// Starts `name` (a test server binary) with `args` and waits for its URL.
    pub fn start(name: &str, args: &[&str]) -> HttpServer {
        use std::io::{BufRead, BufReader};
        use std::process::Stdio;
        let mut child = Command::new(server_bin(name))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the test server");
        let mut line = String::new();
        BufReader::new(child.stderr.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line.trim().rsplit(' ').next().unwrap().to_string();
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

/// A test on a runtime of one thread (as `mcpr run` runs each test, where a session's
/// waits read answers in the foreground) and on one of two threads (where they do not).
#[macro_export]
macro_rules! on_both_runtimes {
    ($(#[$attr:meta])* async fn $name:ident() $body:block) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            async fn body() $body

            #[tokio::test(flavor = "current_thread")]
            $(#[$attr])*
            async fn one_thread() {
                body().await
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            $(#[$attr])*
            async fn two_threads() {
                body().await
            }
        }
    };
}
