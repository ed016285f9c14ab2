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
            "--html",
            "bad.html",
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
        "bad.html",
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

/// Credentials the suite never names, in the runner's environment: by name (a password, a
/// JWT, a webhook, a personal access token) and by value alone (a token under a plain name,
/// a URL with a password).
const NAMELESS: &[(&str, &str)] = &[
    (
        "DATABASE_URL",
        "postgres://app:Pg-pass-7781@db.internal:5432/app",
    ),
    ("DB_PASS", "db-pass-value-5521"),
    ("MY_PASSWD", "my-passwd-value-9034"),
    (
        "CI_JOB_JWT",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjaS1qb2IifQ.c2lnbmF0dXJlLXBhcnQ",
    ),
    (
        "SLACK_WEBHOOK_URL",
        "https://hooks.slack.com/services/T0AAA/B0BBB/w3bh00kS3cretValue",
    ),
    ("GH_PAT", "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"),
    ("BUILD_LABEL", "glpat-Zz9Yy8Xx7Ww6Vv5Uu4Tt"),
];

fn nameless_suite() -> String {
    let server = reference_server();
    let mut s = format!(
        "Suite: \"Name-less secrets\"\n\
         Named server \"plain\": {server}\n\
         Named server \"inheriting\": {server}\n\
         Server options for \"inheriting\":\n  inherit env: [DATABASE_URL, \"*_PASS\", MY_PASSWD, CI_JOB_JWT, SLACK_WEBHOOK_URL, GH_PAT, BUILD_LABEL]\n\
         Snapshots: snaps.json\n\n"
    );
    for (name, _) in NAMELESS {
        // The default server never sees them…
        s.push_str(&format!(
            "Test: \"Minimal {name}\"\n  On server \"plain\"\n  Call tool \"environment\" with:\n    name: {name}\n  Expect \"content[0].text\" contains \"\\\"value\\\":null\"\n\n"
        ));
        // …a server told to inherit them does, and every output masks them.
        s.push_str(&format!(
            "Test: \"Inherited {name}\"\n  On server \"inheriting\"\n  Call tool \"environment\" with:\n    name: {name}\n  Expect \"content[0].text\" matches snapshot \"{name}\"\n  Export \"content[0].text\" as \"seen\"\n\n"
        ));
        s.push_str(&format!(
            "Test: \"Fails quoting {name}\"\n  On server \"inheriting\"\n  Call tool \"environment\" with:\n    name: {name}\n  Expect \"content[0].text\" equals \"nothing\"\n\n"
        ));
    }
    s
}

#[test]
fn nameless_credentials_stay_with_the_runner_and_out_of_every_output() {
    let dir = scratch(&[("nameless.mcpr", &nameless_suite())]);
    let mut cmd = common::mcpr_bin();
    cmd.current_dir(dir.path())
        .env("NO_COLOR", "1")
        .env("GITHUB_ACTIONS", "true")
        .args(["run", "nameless.mcpr", "--transcript"])
        .args(["--json", "report.json", "--junit", "report.xml"]);
    for (name, value) in NAMELESS {
        cmd.env(name, value);
    }
    let out = cmd.output().unwrap();
    let terminal = common::output_text(&out);
    assert_eq!(out.status.code(), Some(1), "{terminal}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    let suite = &report["suites"][0];
    for t in suite["tests"].as_array().unwrap() {
        let name = t["name"].as_str().unwrap();
        let want = if name.starts_with("Fails") {
            "failed"
        } else {
            "passed"
        };
        assert_eq!(t["status"], want, "{t:#}");
    }
    // The header and the report name what was withheld, names only.
    let withheld: Vec<&str> = suite["withheldEnv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    for (name, _) in NAMELESS {
        assert!(withheld.contains(name), "{name} not named: {withheld:?}");
        assert!(
            terminal.contains(name),
            "{name} not in the header:\n{terminal}"
        );
    }
    assert!(terminal.contains("[REDACTED]"), "{terminal}");
    let mut outputs = vec![("the terminal".to_string(), terminal)];
    for file in [
        "report.json",
        "report.xml",
        "snaps.json",
        ".mcpr/history.jsonl",
    ] {
        let text = std::fs::read_to_string(dir.path().join(file))
            .unwrap_or_else(|e| panic!("{file} was not written: {e}"));
        outputs.push((file.to_string(), text));
    }
    for (what, text) in &outputs {
        for (name, value) in NAMELESS {
            let secret = match *name {
                "DATABASE_URL" => "Pg-pass-7781",
                "SLACK_WEBHOOK_URL" => "w3bh00kS3cretValue",
                _ => value,
            };
            assert!(
                !text.contains(secret),
                "{what} shows {name}'s value:\n{text}"
            );
        }
    }
}

/// A `sensitive` export written by `--state-out` keeps its real value for the next run,
/// which sends it, while every printed form is masked.
#[test]
fn sensitive_exports_survive_the_state_file() {
    const TOKEN: &str = "session-token-4471-real";
    let server = reference_server();
    let producer = format!(
        "Suite: \"Login\"\nServer: {server}\n\nTest: \"Login\"\n  Id: login\n  Call tool \"echo\" with:\n    text: {TOKEN}\n  Export \"content[0].text\" as \"token\" sensitive\n"
    );
    let consumer = format!(
        "Suite: \"Login\"\nServer: {server}\n\nTest: \"Use the token\"\n  Call tool \"echo\" with:\n    text: \"${{state.login.token}}\"\n  Expect \"content[0].text\" equals \"{TOKEN}\"\n"
    );
    let dir = scratch(&[("login.mcpr", &producer), ("use.mcpr", &consumer)]);
    let first = mcpr(
        dir.path(),
        &["run", "login.mcpr", "--state-out", "state.json"],
    );
    assert_eq!(
        first.status.code(),
        Some(0),
        "{}",
        common::output_text(&first)
    );
    let state = std::fs::read_to_string(dir.path().join("state.json")).unwrap();
    assert!(
        state.contains(TOKEN),
        "the state file keeps the real value: {state}"
    );
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(dir.path().join("state.json"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    let second = mcpr(
        dir.path(),
        &[
            "run",
            "use.mcpr",
            "--state-in",
            "state.json",
            "--json",
            "use.json",
            "--transcript",
        ],
    );
    let text = common::output_text(&second);
    // The server got the real value, not a placeholder.
    assert_eq!(second.status.code(), Some(0), "{text}");
    let report = std::fs::read_to_string(dir.path().join("use.json")).unwrap();
    assert!(report.contains("[REDACTED]"), "{report}");
    for (what, out) in [("the terminal", &text), ("the report", &report)] {
        assert!(!out.contains(TOKEN), "{what} shows the token:\n{out}");
    }
}

/// Seed 004: the server inherits the runner's environment minus its credentials, and the
/// header names exactly what was withheld; `inherit env: false` is the minimal environment.
#[test]
fn the_server_inherits_all_but_credentials_and_the_header_names_what_was_withheld() {
    let server = reference_server();
    let suite = format!(
        "Suite: \"Inherited\"\nNamed server \"default\": {server}\nNamed server \"minimal\": {server}\n\
         Server options for \"minimal\":\n  inherit env: false\n\n\
         Test: \"Plain variables pass\"\n  On server \"default\"\n  Call tool \"environment\" with:\n    name: MCPR_PLAIN_SETTING\n  Expect \"content[0].text\" contains \"plain-value-42\"\n\n\
         Test: \"Credentials do not\"\n  On server \"default\"\n  Call tool \"environment\" with:\n    name: MCPR_DEPLOY_TOKEN\n  Expect \"content[0].text\" contains \"\\\"value\\\":null\"\n\n\
         Test: \"The minimal environment\"\n  On server \"minimal\"\n  Call tool \"environment\" with:\n    name: MCPR_PLAIN_SETTING\n  Expect \"content[0].text\" contains \"\\\"value\\\":null\"\n"
    );
    let dir = scratch(&[("inherit.mcpr", &suite)]);
    let out = common::mcpr_bin()
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .env("MCPR_PLAIN_SETTING", "plain-value-42")
        .env("MCPR_DEPLOY_TOKEN", "t-0123")
        .args(["run", "inherit.mcpr", "--json", "report.json"])
        .output()
        .unwrap();
    let terminal = common::output_text(&out);
    assert_eq!(out.status.code(), Some(0), "{terminal}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    let withheld = report["suites"][0]["withheldEnv"].to_string();
    // The credential is withheld and named; the plain variable passed, so it is not named.
    assert!(withheld.contains("MCPR_DEPLOY_TOKEN"), "{withheld}");
    assert!(!withheld.contains("MCPR_PLAIN_SETTING"), "{withheld}");
    assert!(terminal.contains("MCPR_DEPLOY_TOKEN"), "{terminal}");
    assert!(!terminal.contains("t-0123"), "{terminal}");
}
