//! Large answers: one message stays within the memory of a run, whatever it holds. A
//! server answers with fifteen megabytes of seven million small values (refused unparsed,
//! `MCP-PROTOCOL-013`), or lists 100,000 tools (read and used); each time a healthy
//! neighbour test in the same run passes, and `mcpr run` stays under 300 MB resident
//! (its `VmHWM`, read from `/proc` while it runs; the child is killed past the ceiling).

mod common;
use common::{hostile_server, mcpr_in, scratch};

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

/// Most resident memory `mcpr run` may use with one large message at a time.
const MEMORY_CEILING_KB: u64 = 300 * 1024;

fn peak_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Runs `mcpr run suite.mcpr --json report.json ARGS` in `dir` one test at a time under the
/// memory ceiling; returns the JSON report and the peak in kB.
fn run_within_ceiling(dir: &Path, args: &[&str]) -> (serde_json::Value, u64) {
    // One at a time: each measurement is of one run alone.
    static ONE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let mut child = mcpr_in(dir)
        .args(["run", "suite.mcpr", "--jobs", "1", "--json", "report.json"])
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("mcpr starts");
    let pid = child.id();
    let mut peak = 0;
    loop {
        if let Some(kb) = peak_kb(pid) {
            peak = peak.max(kb);
        }
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        if peak > MEMORY_CEILING_KB {
            let _ = child.kill();
            let _ = child.wait();
            panic!("mcpr run needed more than the ceiling: {peak} kB resident");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let text = std::fs::read_to_string(dir.join("report.json")).expect("the JSON report");
    (serde_json::from_str(&text).expect("JSON"), peak)
}

/// The suite: the large answer's tests, then a neighbour on a correct server.
fn suite(mode: &str, tests: &str) -> String {
    let server = hostile_server();
    format!(
        "MCP Test 1\nSuite: \"Large answers\"\nServer: {server} {mode}\n\
         Named server \"good\": {server} instant\n\n{tests}\n\
         Test: \"Neighbour\"\n  On server \"good\"\n  Call tool \"echo\" with:\n    text: \"still here\"\n  \
         Expect \"content[0].text\" equals \"still here\"\n"
    )
}

fn test<'r>(report: &'r serde_json::Value, name: &str) -> &'r serde_json::Value {
    report["suites"][0]["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no test {name}: {report:#}"))
}

#[test]
fn seven_million_values_are_refused_unparsed_and_the_neighbour_passes() {
    let tests = "Test: \"Many values\"\n  Call tool \"echo\"\n";
    let dir = scratch(&[("suite.mcpr", &suite("many-values", tests))]);
    let (report, peak) = run_within_ceiling(dir.path(), &[]);
    let many = test(&report, "Many values");
    assert_eq!(many["status"], "failed", "{many:#}");
    assert_eq!(many["failure"]["code"], "MCP-PROTOCOL-013", "{many:#}");
    let message = many["failure"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("7400010 JSON values, more than the limit of 1000000"),
        "{message}"
    );
    assert_eq!(test(&report, "Neighbour")["status"], "passed", "{report:#}");
    eprintln!("many-values: peak {peak} kB");

    // The limit is the run's to set: 300,000 values are read under the default and refused
    // under a limit of 100,000.
    let dir = scratch(&[(
        "suite.mcpr",
        &suite("many-values 300000", tests).replace(
            "Call tool \"echo\"\n",
            "Call tool \"echo\"\n  Expect \"structuredContent.values[299999]\" equals 9\n",
        ),
    )]);
    let (report, _) = run_within_ceiling(dir.path(), &[]);
    assert_eq!(
        test(&report, "Many values")["status"],
        "passed",
        "{report:#}"
    );
    let (report, _) = run_within_ceiling(dir.path(), &["--max-message-values", "100000"]);
    let many = test(&report, "Many values");
    assert_eq!(many["failure"]["code"], "MCP-PROTOCOL-013", "{many:#}");
    let message = many["failure"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("more than the limit of 100000"),
        "{message}"
    );
}

#[test]
fn a_hundred_thousand_tools_are_listed_and_called_within_the_ceiling() {
    let tests = "Test: \"Many tools\"\n  Send \"tools/list\"\n  \
                 Expect \"tools[99999].name\" equals \"tool_99999\"\n\n\
                 Test: \"Call among many\"\n  Call tool \"echo\" with:\n    text: \"hi\"\n";
    let dir = scratch(&[("suite.mcpr", &suite("many-tools", tests))]);
    let (report, peak) = run_within_ceiling(dir.path(), &[]);
    assert_eq!(
        test(&report, "Many tools")["status"],
        "passed",
        "{report:#}"
    );
    assert_eq!(
        test(&report, "Call among many")["status"],
        "passed",
        "{report:#}"
    );
    assert_eq!(test(&report, "Neighbour")["status"], "passed", "{report:#}");
    eprintln!("many-tools: peak {peak} kB");
}
