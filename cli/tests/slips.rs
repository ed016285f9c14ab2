//! Protocol slips that do not decide a test's outcome are recorded as warnings in its
//! report (JSON `warnings`, the terminal, JUnit's step log): a second answer after the last
//! request, progress for a token never sent, a wrong `Content-Type` and an `Mcp-Session-Id`
//! that changes on every response (Streamable HTTP), and an outputSchema whose `$ref`
//! resolves nowhere (a tool listed, not called). A healthy neighbour has no warning. Real servers
//! over real pipes and sockets.

mod common;
use common::{hostile_server, mcpr_in, reference_server, scratch};

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `mcpr-hostile-server http-MODE`; its URL is the last word of its first stderr line.
fn http_server(mode: &str) -> (Server, String) {
    let mut child = Command::new(hostile_server())
        .arg(mode)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line.split_whitespace().last().unwrap().to_string();
    (Server(child), url)
}

fn test<'r>(report: &'r serde_json::Value, name: &str) -> &'r serde_json::Value {
    report["suites"][0]["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no test {name}: {report:#}"))
}

fn codes(t: &serde_json::Value) -> Vec<String> {
    t["warnings"]
        .as_array()
        .map(|w| {
            w.iter()
                .map(|w| w["code"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn slips_are_warnings_in_every_report_and_the_tests_still_pass() {
    let (_http, url) = http_server("http-slips");
    let hostile = hostile_server();
    let call = "  Call tool \"echo\" with:\n    text: hi\n";
    let suite = format!(
        "MCP Test 1\nSuite: \"Slips\"\nServer: {reference}\n\
         Named server \"twice\": {hostile} duplicate-call\n\
         Named server \"progress\": {hostile} stray-progress\n\
         Named server \"dangling\": {hostile} dangling-ref\n\
         Named server \"http\": {url}\n\n\
         Test: \"Answered twice\"\n  On server \"twice\"\n{call}\n\
         Test: \"Stray progress\"\n  On server \"progress\"\n{call}\n\
         Test: \"Sloppy HTTP\"\n  On server \"http\"\n{call}{call}\n\
         Test: \"Dangling ref\"\n  On server \"dangling\"\n{call}\n\
         Test: \"Neighbour\"\n{call}  Expect \"content[0].text\" equals \"hi\"\n",
        reference = reference_server(),
    );
    let dir = scratch(&[("s.mcpr", &suite)]);
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
        .expect("mcpr runs");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    for (name, code) in [
        ("Answered twice", "MCP-PROTOCOL-004"),
        ("Stray progress", "MCP-PROTOCOL-006"),
    ] {
        let t = test(&report, name);
        assert_eq!(t["status"], "passed", "{t:#}");
        assert_eq!(codes(t), [code], "{t:#}");
    }
    let http = test(&report, "Sloppy HTTP");
    assert_eq!(http["status"], "passed", "{http:#}");
    assert_eq!(
        codes(http),
        ["MCP-PROTOCOL-011", "MCP-PROTOCOL-011"],
        "{http:#}"
    );
    let text = http["warnings"].to_string();
    assert!(
        text.contains("Content-Type") && text.contains("Mcp-Session-Id"),
        "{text}"
    );
    // `sum`'s outputSchema points nowhere: listed before `echo` is called, it is a warning.
    let dangling = test(&report, "Dangling ref");
    assert_eq!(dangling["status"], "passed", "{dangling:#}");
    assert_eq!(codes(dangling), ["MCP-PROTOCOL-011"], "{dangling:#}");
    assert!(
        dangling["warnings"].to_string().contains("#/$defs/missing"),
        "the reference is named: {dangling:#}"
    );
    let neighbour = test(&report, "Neighbour");
    assert_eq!(neighbour["status"], "passed", "{neighbour:#}");
    assert!(codes(neighbour).is_empty(), "{neighbour:#}");
    let terminal = String::from_utf8_lossy(&out.stdout);
    assert!(terminal.contains("warning MCP-PROTOCOL-004"), "{terminal}");
    let junit = std::fs::read_to_string(dir.path().join("r.xml")).unwrap();
    assert!(junit.contains("warning MCP-PROTOCOL-006"), "{junit}");
}
