//! OAuth from the command line against the test authorization server
//! (conformance-tests/auth-server): `mcpr tools|call --oauth …` and `mcpr run` of a suite
//! whose target has `oauth:`, and no token, code, verifier or secret in any output.

mod common;

use std::path::Path;
use std::process::Output;

use serde_json::Value;

/// The test authorization server (and protected MCP server), ended when dropped.
struct AuthServer {
    _server: common::HttpServer,
    url: String,
}

impl AuthServer {
    fn start(args: &[&str]) -> AuthServer {
        let bin = Path::new(&common::reference_server()).with_file_name("mcpr-auth-server");
        let server = common::HttpServer::start(bin, args);
        AuthServer {
            url: server.url.clone(),
            _server: server,
        }
    }

    /// Every secret value the server issued or received.
    fn secrets(&self) -> Vec<String> {
        self.events()
            .iter()
            .filter(|e| e["kind"] == "issued")
            .flat_map(|e| e["values"].as_array().cloned().unwrap_or_default())
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect()
    }

    /// What the server saw (`/events`).
    fn events(&self) -> Vec<Value> {
        use std::io::{Read, Write};
        let addr = self
            .url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp");
        let mut conn = std::net::TcpStream::connect(addr).unwrap();
        write!(
            conn,
            "GET /events HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut answer = String::new();
        conn.read_to_string(&mut answer).unwrap();
        let text = answer.split_once("\r\n\r\n").unwrap().1;
        serde_json::from_str(text).unwrap()
    }
}

fn assert_clean(secrets: &[String], what: &str, text: &str) {
    assert!(!secrets.is_empty());
    for s in secrets {
        assert!(
            !text.contains(s.as_str()),
            "{what} shows secret {s}:\n{text}"
        );
    }
}

fn mcpr(dir: &Path, args: &[&str]) -> Output {
    common::mcpr_in(dir)
        .args(args)
        .env("MCPR_TOKEN_CACHE", dir.join("token-cache"))
        .env("CI_BOT_SECRET", "s3cret-of-the-ci-bot")
        .output()
        .unwrap()
}

#[test]
fn adhoc_commands_authorize_with_pkce_and_with_client_credentials() {
    let server = AuthServer::start(&["--client", "ci-bot:s3cret-of-the-ci-bot"]);
    let dir = common::scratch(&[]);
    let out = mcpr(
        dir.path(),
        &["tools", "--url", &server.url, "--oauth", "--no-token-cache"],
    );
    let text = common::output_text(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("\"whoami\""), "{text}");
    assert!(
        !dir.path().join("token-cache").exists(),
        "--no-token-cache wrote a cache"
    );
    let call = [
        "call",
        "whoami",
        "--url",
        &server.url,
        "--oauth-setting",
        "grant=client_credentials",
        "--oauth-setting",
        "clientId=ci-bot",
        "--oauth-setting",
        "clientSecret=${env.CI_BOT_SECRET}",
    ];
    let out = mcpr(dir.path(), &call);
    let text = common::output_text(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("client ci-bot scope mcp"), "{text}");
    // The token went to the cache, a private file.
    let cached: Vec<_> = std::fs::read_dir(dir.path().join("token-cache"))
        .expect("the cache folder")
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(cached.len(), 1, "{cached:?}");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&cached[0]).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let mut secrets = server.secrets();
    secrets.push("s3cret-of-the-ci-bot".into());
    assert_clean(&secrets, "mcpr call", &text);
    // A second run with the same settings takes the cached token: no token request.
    let again = mcpr(dir.path(), &call);
    assert_eq!(
        again.status.code(),
        Some(0),
        "{}",
        common::output_text(&again)
    );
    let grants = server
        .events()
        .iter()
        .filter(|e| e["kind"] == "token" && e["grant"] == "client_credentials")
        .count();
    assert_eq!(grants, 1, "the cache was not used");
    let out = mcpr(
        dir.path(),
        &[
            "call",
            "whoami",
            "--url",
            &server.url,
            "--oauth-setting",
            "grant=password",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", common::output_text(&out));
}

#[test]
fn a_suite_with_oauth_runs_and_no_output_shows_a_secret() {
    let server = AuthServer::start(&["--token-lifetime", "1"]);
    let suite = format!(
        "version: 1
name: Protected
target:
  transport: streamable-http
  url: {url}
  oauth:
    scope: mcp
tests:
  - name: Who am I
    steps:
      - tool:
          name: whoami
          arguments: {{}}
        assert:
          status: success
  - name: Admin after step-up, wrong expectation
    steps:
      - tool:
          name: admin_report
          arguments: {{}}
        assert:
          json:
            - path: $.content[0].text
              equals: nobody
",
        url = server.url
    );
    let dir = common::scratch(&[("suite.yaml", &suite)]);
    let out = mcpr(
        dir.path(),
        &[
            "run",
            "suite.yaml",
            "--json",
            "report.json",
            "--junit",
            "report.xml",
            "--no-history",
            "--no-token-cache",
        ],
    );
    let text = common::output_text(&out);
    assert_eq!(out.status.code(), Some(1), "one test fails: {text}");
    assert!(
        text.contains("scope mcp admin"),
        "the failure shows the answer: {text}"
    );
    let json = std::fs::read_to_string(dir.path().join("report.json")).unwrap();
    let xml = std::fs::read_to_string(dir.path().join("report.xml")).unwrap();
    let secrets = server.secrets();
    assert_clean(&secrets, "the terminal", &text);
    assert_clean(&secrets, "the JSON report", &json);
    assert_clean(&secrets, "the JUnit report", &xml);
}

#[test]
fn auth_check_reports_the_challenge_metadata_and_a_flow() {
    let server = AuthServer::start(&[]);
    let dir = common::scratch(&[]);
    let out = mcpr(dir.path(), &["auth-check", &server.url]);
    let text = common::output_text(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("401"), "{text}");
    assert!(text.contains("S256"), "{text}");
    let out = mcpr(
        dir.path(),
        &[
            "auth-check",
            &server.url,
            "--oauth",
            "--no-token-cache",
            "--json",
        ],
    );
    let text = common::output_text(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(report["tools"], 2, "{report}");
    assert_eq!(report["token"]["scope"], "mcp", "{report}");
    assert_clean(&server.secrets(), "mcpr auth-check", &text);
    let gone = mcpr(
        dir.path(),
        &["auth-check", "http://127.0.0.1:9/mcp", "--timeout", "2"],
    );
    assert_eq!(
        gone.status.code(),
        Some(1),
        "{}",
        common::output_text(&gone)
    );
}
