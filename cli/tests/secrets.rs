//! No secret reaches any output: a value planted in the runner's environment, in HTTP
//! headers, in a stdio server's environment and in `Redact:` is echoed back by a real
//! reference server in every encoding, and then searched for — plain, URL-encoded, base64
//! (standard, unpadded, URL-safe) and JSON-escaped — in stdout, stderr, the JSON report
//! (with transcripts), JUnit, GitHub annotations, snapshots, the state file and the history.

mod common;
use common::{reference_server, scratch};

use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;

/// Secrets with characters that change under every encoding.
const HEADER_SECRET: &str = "hdr/S3cret+value=1";
const ENV_SECRET: &str = "env/S3cret+value=2";
const REDACT_SECRET: &str = "red/S3cret+value=3";
const TOKEN_SECRET: &str = "tok/S3cret+value=4";

fn forms(secret: &str) -> Vec<String> {
    let url: String = secret
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    let b64 = base64::engine::general_purpose::STANDARD.encode(secret);
    vec![
        secret.to_string(),
        url,
        b64.clone(),
        b64.trim_end_matches('=').to_string(),
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(secret),
        serde_json::to_string(secret)
            .unwrap()
            .trim_matches('"')
            .to_string(),
    ]
}

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn http_server() -> (Server, u16) {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(reference_server())
        .args(["--http", &format!("127.0.0.1:{port}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "the HTTP reference server did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    (Server(child), port)
}

/// Every way a suite can make the server say a secret back.
fn echo_steps(secret: &str, check: &str) -> String {
    let mut out = String::new();
    for (i, f) in forms(secret).iter().enumerate() {
        out.push_str(&format!(
            "  Call tool \"echo\" with:\n    text: \"{}\"\n  Save \"content[0].text\" as \"v{i}\"\n",
            f.replace('\\', "\\\\").replace('"', "\\\"")
        ));
    }
    out.push_str(check);
    out
}

fn suite(port: u16) -> String {
    let server = reference_server();
    let mut s = format!(
        "MCP Test 1\nSuite: \"Secrets\"\nMCP URL: http://127.0.0.1:{port}/mcp\n\
         Server options:\n  headers:\n    X-Custom: \"${{env.PLAIN_HEADER_VALUE}}\"\n    \
         Authorization: \"Bearer {TOKEN_SECRET}\"\n\
         Named server \"http\": http://127.0.0.1:{port}/mcp\n\
         Named server \"stdio\": {server}\n\
         Server options for \"stdio\":\n  env:\n    PLAIN_VALUE: \"{ENV_SECRET}\"\n\
         Redact: \"{REDACT_SECRET}\"\n\
         Snapshots: snaps.json\n\n"
    );
    for (i, secret) in [HEADER_SECRET, TOKEN_SECRET, REDACT_SECRET]
        .iter()
        .enumerate()
    {
        s.push_str(&format!(
            "Test: \"Echo over HTTP {i}\"\n  On server \"http\"\n"
        ));
        s.push_str(&echo_steps(
            secret,
            &format!(
                "  Call tool \"echo\" with:\n    text: \"{secret}\"\n  Expect \"content[0].text\" matches snapshot \"echo{i}\"\n  Export \"content[0].text\" as \"said\"\n"
            ),
        ));
        s.push('\n');
    }
    s.push_str(
        "Test: \"Environment over stdio\"\n  On server \"stdio\"\n  Call tool \"environment\" with:\n    name: PLAIN_VALUE\n  Export \"content[0].text\" as \"env\"\n\n",
    );
    s
}

fn failing_suite(port: u16) -> String {
    let mut s = suite(port);
    // Failures quote expected and actual values, and the server's last message.
    for (i, secret) in [HEADER_SECRET, TOKEN_SECRET, REDACT_SECRET, ENV_SECRET]
        .iter()
        .enumerate()
    {
        s.push_str(&format!(
            "Test: \"Fails showing {i}\"\n  On server \"http\"\n  Call tool \"echo\" with:\n    text: \"{secret}\"\n  Expect \"content[0].text\" equals \"not {secret}\"\n\n"
        ));
    }
    s.push_str(
        "Test: \"Fails over stdio\"\n  On server \"stdio\"\n  Call tool \"environment\" with:\n    name: PLAIN_VALUE\n  Expect \"content[0].text\" contains \"nothing like it\"\n",
    );
    s
}

fn mcpr(dir: &Path, args: &[&str]) -> Output {
    common::mcpr_bin()
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("PLAIN_HEADER_VALUE", HEADER_SECRET)
        .env("GITHUB_ACTIONS", "true")
        .args(args)
        .output()
        .unwrap()
}

fn assert_clean(what: &str, text: &str) {
    for secret in [HEADER_SECRET, ENV_SECRET, REDACT_SECRET, TOKEN_SECRET] {
        for f in forms(secret) {
            assert!(
                !text.contains(&f),
                "{what} contains the secret {secret:?} as {f:?}:\n{text}"
            );
        }
    }
}

#[test]
fn no_secret_in_any_output_in_any_encoding() {
    let (_server, port) = http_server();
    let dir = scratch(&[
        ("ok.mcpr", &suite(port)),
        ("bad.mcpr", &failing_suite(port)),
    ]);

    let ok = mcpr(
        dir.path(),
        &[
            "run",
            "ok.mcpr",
            "--state-out",
            "state.json",
            "--json",
            "ok.json",
            "--transcript",
        ],
    );
    let ok_text = format!(
        "{}{}",
        String::from_utf8_lossy(&ok.stdout),
        String::from_utf8_lossy(&ok.stderr)
    );
    assert_eq!(ok.status.code(), Some(0), "{ok_text}");
    assert!(ok_text.contains("[REDACTED]") || ok_text.contains("passed"));
    assert_clean("the passing run's terminal output", &ok_text);

    let bad = mcpr(
        dir.path(),
        &[
            "run",
            "bad.mcpr",
            "--json",
            "bad.json",
            "--junit",
            "bad.xml",
            "--transcript",
        ],
    );
    let bad_text = format!(
        "{}{}",
        String::from_utf8_lossy(&bad.stdout),
        String::from_utf8_lossy(&bad.stderr)
    );
    assert_eq!(bad.status.code(), Some(1), "{bad_text}");
    assert!(
        bad_text.contains("::error"),
        "annotations expected: {bad_text}"
    );
    assert!(bad_text.contains("[REDACTED]"), "{bad_text}");
    assert_clean(
        "the failing run's terminal output and annotations",
        &bad_text,
    );

    for file in [
        "ok.json",
        "bad.json",
        "bad.xml",
        "snaps.json",
        "state.json",
        ".mcpr/history.jsonl",
    ] {
        let text = std::fs::read_to_string(dir.path().join(file))
            .unwrap_or_else(|e| panic!("{file} was not written: {e}"));
        assert_clean(file, &text);
    }
    // The transcripts really were there to be redacted.
    let report = std::fs::read_to_string(dir.path().join("bad.json")).unwrap();
    assert!(report.contains("\"transcript\""), "{report}");
}
