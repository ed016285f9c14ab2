//! `mcpr run` and the processes around it: SIGTERM, SIGHUP and SIGINT end every server and
//! still write the reports of the tests that finished; `--jobs` bounds live servers, a
//! closing one included. Real binaries, real signals.

mod common;
use common::{mcpr_in, reference_server, scratch};

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

fn hostile_server() -> PathBuf {
    Path::new(&reference_server())
        .with_file_name("mcpr-hostile-server")
        .to_path_buf()
}

/// Three tests run one at a time: a quick one, one that sleeps 30 s, one after it.
fn slow_suite() -> String {
    format!(
        "Suite: \"Signals\"\nServer: {}\nDefault timeout: 60 seconds\n\nTest: \"Quick\"\n  Call tool \"echo\" with:\n    text: hi\n  Expect it succeeds\n\nTest: \"Slow\"\n  Call tool \"slow\" with:\n    ms: 30000\n  Expect it succeeds\n\nTest: \"After\"\n  Call tool \"echo\" with:\n    text: bye\n  Expect it succeeds\n",
        reference_server()
    )
}

/// The processes `pid` started that are still its children.
fn children(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return out;
    };
    for t in tasks.flatten() {
        if let Ok(text) = std::fs::read_to_string(t.path().join("children")) {
            out.extend(
                text.split_whitespace()
                    .filter_map(|p| p.parse::<u32>().ok()),
            );
        }
    }
    out
}

/// Whether process `pid` is gone (or a zombie nobody reaped, which holds nothing).
fn gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
    }
}

fn wait_with_deadline(child: &mut Child, deadline: Duration) -> ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > deadline {
            let _ = child.kill();
            panic!("mcpr did not end within {deadline:?} of the signal");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Starts the slow suite, waits until "Quick" is reported and "Slow" has its server,
/// sends `signal`, and returns the exit status, the folder and the server's pid.
fn interrupted_run(signal: &str) -> (ExitStatus, tempfile::TempDir, Vec<u32>, String) {
    let dir = scratch(&[("signals.mcpr", &slow_suite())]);
    let mut child = mcpr_in(dir.path())
        .args(["run", "signals.mcpr", "--jobs", "1", "--no-history"])
        .args(["--json", "report.json", "--junit", "report.xml"])
        .args(["--html", "report.html", "--format", "github"])
        .env("GITHUB_STEP_SUMMARY", dir.path().join("summary.md"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen = String::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        seen.push_str(&line);
        seen.push('\n');
        if line.contains("Quick") {
            break;
        }
    }
    assert!(seen.contains("Quick"), "no line for Quick:\n{seen}");
    // The slow test's server is up once mcpr has a child again.
    let start = Instant::now();
    let servers = loop {
        let c = children(child.id());
        if !c.is_empty() || start.elapsed() > Duration::from_secs(15) {
            break c;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(!servers.is_empty(), "the slow test's server did not start");
    std::thread::sleep(Duration::from_millis(300));
    let sent = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert!(sent.success());
    let status = wait_with_deadline(&mut child, Duration::from_secs(5));
    for line in lines {
        seen.push_str(&line.unwrap());
        seen.push('\n');
    }
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    (
        status,
        dir,
        servers,
        format!("stdout:\n{seen}\nstderr:\n{err}"),
    )
}

fn report(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap()
}

#[test]
fn sigterm_ends_the_servers_and_writes_the_reports() {
    let (status, dir, servers, out) = interrupted_run("TERM");
    assert_eq!(status.code(), Some(143), "{out}");
    assert!(out.contains("SIGTERM"), "{out}");
    for pid in &servers {
        let start = Instant::now();
        while !gone(*pid) && start.elapsed() < Duration::from_secs(2) {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(gone(*pid), "server {pid} outlived the run");
    }
    assert_interrupted_everywhere(dir.path(), "SIGTERM");
    // Written by rename: no temporary file is left beside the reports.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 5, "{names:?}");
}

/// Every report of an interrupted run says so: the JSON report's top-level and suite
/// `status` are `interrupted` and its summary counts the two unfinished tests as such,
/// JUnit has them as errors, the HTML report's data and the GitHub job summary say
/// interrupted; the test that finished stays passed.
fn assert_interrupted_everywhere(dir: &Path, signal: &str) {
    let r = report(dir);
    assert_eq!(r["status"], "interrupted", "{r:#}");
    assert_eq!(r["summary"]["interrupted"], 2, "{:#}", r["summary"]);
    assert_eq!(r["summary"]["passed"], 1, "{:#}", r["summary"]);
    assert_eq!(r["summary"]["skipped"], 0, "{:#}", r["summary"]);
    let suite = &r["suites"][0];
    assert_eq!(suite["interrupted"], signal, "{suite:#}");
    assert_eq!(suite["status"], "interrupted", "{suite:#}");
    let tests = suite["tests"].as_array().unwrap();
    let by_name = |n: &str| tests.iter().find(|t| t["name"] == n).unwrap();
    assert_eq!(by_name("Quick")["status"], "passed");
    for (name, why) in [("Slow", "interrupted while running"), ("After", "not run")] {
        let t = by_name(name);
        assert_eq!(t["status"], "interrupted", "{t:#}");
        assert_eq!(t["failure"]["code"], "MCP-INTERRUPT-001", "{t:#}");
        let message = t["failure"]["message"].as_str().unwrap();
        assert!(message.starts_with(why), "{message}");
    }
    let junit = std::fs::read_to_string(dir.join("report.xml")).unwrap();
    assert_eq!(junit.matches("<testcase").count(), 3, "{junit}");
    assert!(junit.contains("MCP-INTERRUPT-001"), "{junit}");
    assert!(junit.contains(r#"errors="2""#), "{junit}");
    assert_eq!(junit.matches(r#"<error message="#).count(), 2, "{junit}");
    assert!(junit.contains(r#"type="interrupted""#), "{junit}");
    assert!(!junit.contains("<skipped"), "{junit}");
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains(r#""status":"interrupted""#), "HTML data");
    assert!(
        html.contains(&format!(r#""interrupted":"{signal}""#)),
        "HTML data"
    );
    let summary = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    assert!(
        summary.contains(&format!("mcpr: interrupted by {signal}")),
        "{summary}"
    );
    assert!(summary.contains("2 interrupted"), "{summary}");
    assert!(!summary.contains('✅'), "{summary}");
}

#[test]
fn sighup_and_sigint_give_their_own_exit_codes() {
    for (signal, code, name) in [("HUP", 129, "SIGHUP"), ("INT", 130, "SIGINT")] {
        let (status, dir, _, out) = interrupted_run(signal);
        assert_eq!(status.code(), Some(code), "{out}");
        assert_interrupted_everywhere(dir.path(), name);
    }
}

/// Four tests whose servers each hold the same lock file while they live and take 300 ms
/// to exit (or less: SIGTERM makes them let go at once): at `--jobs 1` the next server may
/// only start once the last one is gone, under the default grace (which sends SIGTERM to a
/// server that sits idle) and under a fixed one (which waits out the 300 ms).
#[test]
fn jobs_bound_live_servers_including_closing_ones() {
    let dir = scratch(&[]);
    let lock = dir.path().join("server.lock");
    // Two suites: the second starts its first server once the first suite's last is gone.
    for file in ["lock.mcpr", "lock-again.mcpr"] {
        let mut suite = format!(
            "Suite: \"Lock\"\nServer: {} lock-file {}\n",
            hostile_server().display(),
            lock.display()
        );
        for n in 1..=4 {
            suite.push_str(&format!(
                "\nTest: \"Echo {n}\"\n  Call tool \"echo\" with:\n    text: \"{n}\"\n  Expect it succeeds\n"
            ));
        }
        std::fs::write(dir.path().join(file), suite).unwrap();
    }
    for grace in [None, Some("1s")] {
        let out = mcpr_in(dir.path())
            .args([
                "run",
                "lock.mcpr",
                "lock-again.mcpr",
                "--jobs",
                "1",
                "--no-history",
            ])
            .args(grace.map(|g| ["--shutdown-grace", g]).into_iter().flatten())
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{grace:?}: {}",
            common::output_text(&out)
        );
        assert!(
            !lock.exists(),
            "{grace:?}: the last server did not remove its lock"
        );
    }
}

/// The reports are written while the last server shuts down, and the run still ends only
/// once it is gone. The server here (a shell around the reference server) waits, after its
/// stdin closes, for the JSON report to appear before it exits; were the report written
/// after the shutdown, it would wait out the grace and be ended by SIGTERM, never seeing it.
#[test]
fn reports_are_written_while_the_last_server_shuts_down() {
    let dir = scratch(&[]);
    let script = format!(
        "{}; while [ ! -e report.json ]; do sleep 0.02; done; touch saw-report",
        reference_server()
    );
    let suite = format!(
        "Suite: \"Overlap\"\nServer: sh -c '{script}'\n\nTest: \"Echo\"\n  Call tool \"echo\" with:\n    text: hi\n  Expect it succeeds\n"
    );
    std::fs::write(dir.path().join("overlap.mcpr"), suite).unwrap();
    let mut child = mcpr_in(dir.path())
        .args([
            "run",
            "overlap.mcpr",
            "--no-history",
            "--json",
            "report.json",
        ])
        .args(["--shutdown-grace", "20s"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status = wait_with_deadline(&mut child, Duration::from_secs(30));
    let mut out = String::new();
    let _ = std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut out);
    assert_eq!(status.code(), Some(0), "{out}");
    assert!(
        dir.path().join("saw-report").exists(),
        "the server never saw the report before it was ended"
    );
    assert_eq!(report(dir.path())["summary"]["passed"], 1);
}

/// Servers that flood the session with huge notifications (stdio) and huge SSE events
/// (HTTP) meet the session's byte budget, even under a 1 GiB address-space limit, and a
/// healthy test of the same run (`--jobs 2`) passes and is reported. Without the budget the
/// runner grows until the allocator aborts and nothing is reported.
#[test]
fn flooding_servers_meet_the_byte_budget_under_a_memory_limit() {
    if Command::new("prlimit").arg("--version").output().is_err() {
        panic!("prlimit (util-linux) is needed for the memory test");
    }
    let http = common::HttpServer::start(hostile_server(), &["http-sse-hog"]);
    let suite = format!(
        "version: 1\nname: Memory\nservers:\n  stdio-hog:\n    transport: stdio\n    command: {hostile}\n    args: [notification-hog]\n  http-hog:\n    transport: streamable-http\n    url: {url}\n  healthy:\n    transport: stdio\n    command: {reference}\ndefaults:\n  timeoutMs: 20000\ntests:\n  - name: Flooded over stdio\n    server: stdio-hog\n    steps:\n      - tool: {{name: echo, arguments: {{text: x}}}}\n  - name: Flooded over HTTP\n    server: http-hog\n    steps:\n      - tool: {{name: echo, arguments: {{text: x}}}}\n  - name: Healthy\n    server: healthy\n    steps:\n      - tool: {{name: echo, arguments: {{text: fine}}}}\n",
        hostile = hostile_server().display(),
        url = http.url,
        reference = reference_server(),
    );
    let dir = scratch(&[("memory.yaml", &suite)]);
    let mcpr = env!("CARGO_BIN_EXE_mcpr");
    let out = Command::new("prlimit")
        .arg(format!("--as={}", 1024u64 << 20))
        .arg(mcpr)
        .args(["run", "memory.yaml", "--jobs", "2", "--no-history"])
        .args(["--json", "report.json"])
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let text = common::output_text(&out);
    assert_eq!(out.status.code(), Some(3), "{text}");
    let r = report(dir.path());
    let tests = r["suites"][0]["tests"].as_array().unwrap();
    let by_name = |n: &str| tests.iter().find(|t| t["name"] == n).unwrap();
    assert_eq!(by_name("Healthy")["status"], "passed", "{text}");
    for name in ["Flooded over stdio", "Flooded over HTTP"] {
        let t = by_name(name);
        assert_eq!(t["status"], "errored", "{t:#}");
        let code = t["failure"]["code"].as_str().unwrap();
        assert!(
            code == "MCP-PROTOCOL-012" || code == "MCP-PROTOCOL-003",
            "{name}: {t:#}"
        );
    }
}

/// The processes whose environment holds `NAME=VALUE`.
fn processes_with_env(name: &str, value: &str) -> Vec<u32> {
    let needle = format!("{name}={value}");
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(env) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        if env.split(|b| *b == 0).any(|v| v == needle.as_bytes()) && !gone(pid) {
            out.push(pid);
        }
    }
    out
}

/// Every hostile stdio mode in one run at `--jobs 2` next to a healthy server: each failure
/// is named within its deadline (2 s) + 2 s, the healthy test passes and is reported, and
/// no process of the run (a `setsid` grandchild included) is left.
#[test]
fn hostile_servers_are_named_in_time_and_a_healthy_test_still_passes() {
    let run_mark = format!("lifecycle-{}", std::process::id());
    let server = |mode: &str| {
        format!(
            "    transport: stdio\n    command: {}\n    args: [{mode}]\n    env: {{MCPR_TEST_RUN: {run_mark}}}\n",
            hostile_server().display()
        )
    };
    let suite = format!(
        "version: 1\nname: Hostile\ndefaults:\n  timeoutMs: 2000\nservers:\n  hang:\n{}  exits:\n{}  orphans:\n{}  stubborn:\n{}  healthy:\n    transport: stdio\n    command: {}\ntests:\n{}",
        server("hang-initialize"),
        server("setsid-exit"),
        server("setsid-orphan"),
        server("ignore-sigterm-in-call"),
        reference_server(),
        ["hang", "exits", "orphans", "stubborn", "healthy"]
            .iter()
            .map(|s| format!(
                "  - name: On {s}\n    server: {s}\n    steps:\n      - tool: {{name: echo, arguments: {{text: x}}}}\n"
            ))
            .collect::<String>()
    );
    let dir = scratch(&[("hostile.yaml", &suite)]);
    let out = mcpr_in(dir.path())
        .args(["run", "hostile.yaml", "--jobs", "2", "--no-history"])
        .args(["--json", "report.json"])
        .output()
        .unwrap();
    let text = common::output_text(&out);
    assert_eq!(out.status.code(), Some(3), "{text}");
    let r = report(dir.path());
    let tests = r["suites"][0]["tests"].as_array().unwrap();
    let by_name = |n: &str| tests.iter().find(|t| t["name"] == n).unwrap();
    for (name, status, codes) in [
        (
            "On hang",
            "errored",
            &["MCP-TIMEOUT-001", "MCP-INIT-001"][..],
        ),
        ("On exits", "errored", &["MCP-EXIT-001"][..]),
        ("On orphans", "passed", &[][..]),
        ("On stubborn", "failed", &["MCP-TIMEOUT-001"][..]),
        ("On healthy", "passed", &[][..]),
    ] {
        let t = by_name(name);
        assert_eq!(t["status"], status, "{t:#}\n{text}");
        if let Some(code) = t["failure"]["code"].as_str() {
            assert!(codes.contains(&code), "{name}: {t:#}");
        }
        let ms = t["durationMs"].as_u64().unwrap();
        assert!(ms < 4_000, "{name} took {ms} ms to be named");
    }
    // A process mcpr killed as it ended may take a moment to be gone.
    let start = Instant::now();
    let mut left = processes_with_env("MCPR_TEST_RUN", &run_mark);
    while !left.is_empty() && start.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(50));
        left = processes_with_env("MCPR_TEST_RUN", &run_mark);
    }
    let shown: Vec<String> = left
        .iter()
        .map(|p| {
            let cmd = std::fs::read(format!("/proc/{p}/cmdline")).unwrap_or_default();
            format!("{p}: {}", String::from_utf8_lossy(&cmd).replace('\0', " "))
        })
        .collect();
    assert!(left.is_empty(), "processes left behind: {shown:?}");
}

/// `--shutdown-grace` is how long a server may take to exit after its stdin closes, and
/// again after SIGTERM: a server that ignores both is killed after twice the grace. The
/// default waits up to a second at each stage, but not for a server that sits idle after
/// its stdin closed: this one gets SIGTERM at once and SIGKILL a second later.
#[test]
fn the_shutdown_grace_is_the_wait_before_sigterm_and_sigkill() {
    let suite = format!(
        "Suite: \"Grace\"\nServer: {} ignore-sigterm\n\nTest: \"Echo\"\n  Call tool \"echo\" with:\n    text: hi\n  Expect it succeeds\n",
        hostile_server().display()
    );
    let dir = scratch(&[("grace.mcpr", &suite)]);
    let timed = |extra: &[&str]| {
        let start = Instant::now();
        let out = mcpr_in(dir.path())
            .args(["run", "grace.mcpr", "--no-history", "-v"])
            .args(extra)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", common::output_text(&out));
        (
            start.elapsed(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (fixed, _) = timed(&["--shutdown-grace", "1s"]);
    assert!(
        fixed >= Duration::from_secs(2),
        "{fixed:?}: 1 s after EOF, 1 s after SIGTERM"
    );
    let (default, settings) = timed(&[]);
    assert!(settings.contains("auto"), "{settings}");
    assert!(
        default >= Duration::from_secs(1) && default + Duration::from_millis(500) < fixed,
        "{default:?} vs {fixed:?}: SIGTERM once idle, 1 s after it"
    );
    let (short, settings) = timed(&["--shutdown-grace", "100ms"]);
    assert!(
        settings.contains("grace") && settings.contains("100ms"),
        "{settings}"
    );
    assert!(
        short + Duration::from_millis(1500) < fixed,
        "{short:?} vs {fixed:?}"
    );
}
