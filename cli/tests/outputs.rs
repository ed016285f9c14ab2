//! Outputs survive each other: a `Snapshots:` file in a folder that does not exist gets the
//! folder; one that cannot be written (its folder a link to nowhere) fails the tests that recorded into it, at the
//! statement that did (`MCP-SNAPSHOT-001`), and the JSON and JUnit reports are still written.
//! Real binary, real reference server.

mod common;
use common::{mcpr_in, reference_server, scratch};

fn suite(snapshots: &str) -> String {
    format!(
        "MCP Test 1\nSuite: \"Snaps\"\nServer: {}\nSnapshots: {snapshots}\n\n\
         Test: \"Recorded\"\n  Call tool \"echo\" with:\n    text: hi\n  \
         Expect \"content[0].text\" matches snapshot \"echo\"\n\n\
         Test: \"Plain\"\n  Call tool \"echo\" with:\n    text: hi\n  Expect \"content[0].text\" equals \"hi\"\n",
        reference_server()
    )
}

fn report(dir: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("r.json")).expect("the JSON report"))
        .unwrap()
}

#[test]
fn a_snapshot_file_in_a_missing_folder_gets_its_folder() {
    let dir = scratch(&[("s.mcpr", &suite("snaps/deep/api.json"))]);
    let out = mcpr_in(dir.path())
        .args(["run", "s.mcpr", "--no-history", "--json", "r.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let saved = std::fs::read_to_string(dir.path().join("snaps/deep/api.json")).unwrap();
    assert!(saved.contains("\"hi\""), "{saved}");
    assert_eq!(report(dir.path())["status"], "passed");
}

#[test]
fn a_snapshot_file_that_cannot_be_written_fails_its_test_and_loses_no_report() {
    // The folder is a link to nowhere: reading finds no snapshots, and it cannot be made.
    let dir = scratch(&[("s.mcpr", &suite("blocker/api.json"))]);
    std::os::unix::fs::symlink("/nonexistent/mcpr-snapshots", dir.path().join("blocker")).unwrap();
    let out = mcpr_in(dir.path())
        .args([
            "run",
            "s.mcpr",
            "--no-history",
            "--json",
            "r.json",
            "--junit",
            "r.xml",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let r = report(dir.path());
    assert_eq!(r["status"], "failed", "{r:#}");
    let tests = r["suites"][0]["tests"].as_array().unwrap();
    let recorded = tests.iter().find(|t| t["name"] == "Recorded").unwrap();
    assert_eq!(recorded["status"], "failed", "{recorded:#}");
    assert_eq!(
        recorded["failure"]["code"], "MCP-SNAPSHOT-001",
        "{recorded:#}"
    );
    assert_eq!(recorded["failure"]["location"]["line"], 7, "{recorded:#}");
    assert!(
        recorded["failure"]["message"]
            .as_str()
            .unwrap()
            .contains("blocker"),
        "{recorded:#}"
    );
    let plain = tests.iter().find(|t| t["name"] == "Plain").unwrap();
    assert_eq!(plain["status"], "passed", "{plain:#}");
    let junit = std::fs::read_to_string(dir.path().join("r.xml")).unwrap();
    assert!(junit.contains("MCP-SNAPSHOT-001"), "{junit}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("blocker"), "{err}");
}
