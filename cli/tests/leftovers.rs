//! Nothing outlives a run: a server whose SIGTERM handler starts a `setsid` child (with its
//! environment, or with an empty one) leaves no process behind, and a temporary report file
//! of a writer that was killed (`.NAME.<pid>.tmp`) is removed by the next write beside it.
//! A healthy neighbour test passes in the same run. Real binaries, real signals.

mod common;
use common::{hostile_server, mcpr_in, reference_server, scratch};

use std::path::Path;
use std::time::{Duration, Instant};

/// Whether process `pid` is gone (or a zombie, which holds nothing).
fn gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
    }
}

fn run_fork_on_term(dir: &Path, extra: &str) -> serde_json::Value {
    let pidfile = dir.join("child.pid");
    let suite = format!(
        "MCP Test 1\nSuite: \"Leftovers\"\nServer: {hostile} fork-on-term {pidfile}{extra}\n\
         Named server \"good\": {reference}\n\n\
         Test: \"Forks on SIGTERM\"\n  Call tool \"echo\" with:\n    text: hi\n\n\
         Test: \"Neighbour\"\n  On server \"good\"\n  Call tool \"echo\" with:\n    text: still here\n  \
         Expect \"content[0].text\" equals \"still here\"\n",
        hostile = hostile_server(),
        pidfile = pidfile.display(),
        reference = reference_server()
    );
    std::fs::write(dir.join("l.mcpr"), suite).unwrap();
    let out = mcpr_in(dir)
        .args(["run", "l.mcpr", "--no-history", "--json", "r.json"])
        .output()
        .expect("mcpr runs");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    serde_json::from_str(&std::fs::read_to_string(dir.join("r.json")).unwrap()).unwrap()
}

#[test]
fn a_setsid_child_started_on_sigterm_does_not_outlive_the_run() {
    for extra in ["", " clean-env"] {
        let dir = scratch(&[]);
        let report = run_fork_on_term(dir.path(), extra);
        assert_eq!(report["status"], "passed", "{report:#}");
        let pid: u32 = std::fs::read_to_string(dir.path().join("child.pid"))
            .unwrap_or_else(|e| panic!("the server was not sent SIGTERM ({extra}): {e}"))
            .trim()
            .parse()
            .unwrap();
        let start = Instant::now();
        while !gone(pid) && start.elapsed() < Duration::from_secs(3) {
            std::thread::sleep(Duration::from_millis(20));
        }
        if !gone(pid) {
            let _ = std::process::Command::new("kill")
                .args(["-9", &pid.to_string()])
                .status();
            panic!("the setsid child {pid} outlived the run ({extra:?})");
        }
    }
}

#[test]
fn stale_temporary_reports_are_removed_by_the_next_write() {
    let suite = format!(
        "MCP Test 1\nSuite: \"T\"\nServer: {}\n\nTest: \"Echo\"\n  Call tool \"echo\" with:\n    text: hi\n",
        reference_server()
    );
    let dir = scratch(&[("t.mcpr", &suite)]);
    // The pid of a process that has exited and been reaped: no process has it now.
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    let stale = dir.path().join(format!(".r.json.{dead}.tmp"));
    std::fs::write(&stale, "{\"half\": ").unwrap();
    let stale_xml = dir.path().join(format!(".r.xml.{dead}.tmp"));
    std::fs::write(&stale_xml, "<testsuites").unwrap();
    let out = mcpr_in(dir.path())
        .args([
            "run",
            "t.mcpr",
            "--no-history",
            "--json",
            "r.json",
            "--junit",
            "r.xml",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        !stale.exists() && !stale_xml.exists(),
        "stale temporaries stay"
    );
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["r.json", "r.xml", "t.mcpr"]);
}
