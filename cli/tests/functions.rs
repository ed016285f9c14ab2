//! Custom-function modules end to end (docs/functions.md): real `.mjs` and `.cjs` modules run
//! by Node in the function host against the reference server, the refusal without
//! `--allow-custom-code`, a function that throws, one that never finishes and one that spins
//! (stopped at the deadline, the host started again), a value that is not JSON, a host that
//! exits, a module that does not load, no Node at all, and what `check` knows of the names.
//! Node must be installed: these tests fail, never skip, without it.

mod common;
use common::{reference_server, scratch};

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn node_is_installed() {
    let ok = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        ok,
        "Node.js (`node` on PATH) is needed by the custom-function tests"
    );
}

fn mcpr(dir: &Path, args: &[&str]) -> Output {
    common::mcpr_in(dir)
        .env("MCPR_NO_HISTORY", "1")
        .args(args)
        .output()
        .unwrap()
}

fn text(out: &Output) -> String {
    common::output_text(out)
}

/// The module of these tests: sync and async functions taking the object of their named
/// arguments, and functions that fail in each way a function can.
const MODULE: &str = r#"
import { writeFileSync } from "node:fs";

export function calculateTax({ amount, rate }) {
  return Math.round(Number(amount) * Number(rate) * 100) / 100;
}

export const makeLabel = async ({ prefix, value }) => {
  await new Promise((resolve) => setTimeout(resolve, 5));
  return `${prefix}-${value}`;
};

export function describe(args) {
  return { keys: Object.keys(args).sort() };
}

export function nothing() {}

// A module's own output must not disturb the host's protocol.
export function noisy({ value }) {
  console.log("noise on stdout");
  process.stdout.write("more noise\n");
  return value;
}

export function reject({ customer }) {
  throw new Error(`no discount for ${customer}`);
}

export function forever() {
  writeFileSync("host.pid", String(process.pid));
  return new Promise(() => {});
}

export function spin() {
  for (;;) {}
}

export function huge() {
  return 10n;
}

export function quit() {
  process.exit(3);
}

// Overrides the built-in of the same name, as in the first implementation.
export function trim({ value }) {
  return `[${value}]`;
}
"#;

/// A CommonJS module beside it.
const COMMONJS: &str = "module.exports = { twice: ({ n }) => n * 2 };\n";

fn suite(server: &str, body: &str) -> String {
    format!(
        "Suite: \"Custom functions\"\nServer: {server}\nFunctions: ./functions.mjs, ./more.cjs\nDefault timeout: 1 second\n\n{body}"
    )
}

#[test]
fn custom_functions_compute_values_sent_to_the_reference_server() {
    node_is_installed();
    let server = reference_server();
    let body = r#"Test: "Values from custom functions"
  Set "tax" using "calculateTax" with:
    amount: 100
    rate: 0.2
  Set "label" using "makeLabel" with:
    prefix: "INV"
    value: "${tax}"
  Set "seen" using "describe" with:
    b: 1
    a: "x"
  Set "none" using "nothing"
  Set "loud" using "noisy" with:
    value: "quiet"
  Set "n" using "twice" with:
    n: 21
  Set "wrapped" using "trim" with:
    value: "  x "
  Set "upper" using "uppercase" with:
    value: "${label}"
  Call tool "echo" with:
    text: "${label} ${seen.keys} ${none} ${loud} ${n} ${wrapped} ${upper}"
  Expect "content[0].text" equals "INV-20 [\"a\",\"b\"] null quiet 42 [  x ] INV-20"
  Call tool "add" with:
    a: "${tax}"
    b: "${n}"
  Expect "structuredContent.sum" equals 62
"#;
    let dir = scratch(&[
        ("suite.mcpr", &suite(&server, body)),
        ("functions.mjs", MODULE),
        ("more.cjs", COMMONJS),
    ]);
    let out = mcpr(dir.path(), &["run", "suite.mcpr", "--allow-custom-code"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("1 passed"), "{}", text(&out));

    // The same module from a YAML suite.
    let yaml = format!(
        "version: 1\nname: YAML\ntarget:\n  transport: stdio\n  command: {server}\nextensions:\n  functions: [./functions.mjs]\ntests:\n  - name: Tax\n    steps:\n      - set: {{variable: tax, function: calculateTax, arguments: {{amount: 50, rate: 0.1}}}}\n      - tool: {{name: echo, arguments: {{text: \"tax=${{tax}}\"}}}}\n        assert:\n          json:\n            - path: $.content[0].text\n              equals: tax=5\n"
    );
    std::fs::write(dir.path().join("suite.yaml"), yaml).unwrap();
    let out = mcpr(dir.path(), &["run", "suite.yaml", "--allow-custom-code"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

#[test]
fn without_allow_custom_code_the_suite_is_refused_before_any_test() {
    let server = reference_server();
    let body = r#"Test: "Built-ins only"
  Set "v" using "lowercase" with:
    value: "A"
  Send "ping"

Test: "Tax"
  Send "ping"
  Set "tax" using "calculateTax" with:
    amount: 100
    rate: 0.2
"#;
    let dir = scratch(&[
        ("suite.mcpr", &suite(&server, body)),
        ("functions.mjs", MODULE),
        ("more.cjs", COMMONJS),
    ]);
    let out = mcpr(dir.path(), &["run", "suite.mcpr"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(2), "{all}");
    assert!(all.contains("MCP-EXT-001"), "{all}");
    assert!(
        all.contains("suite.mcpr:13:3"),
        "located at the step: {all}"
    );
    assert!(all.contains("--allow-custom-code"), "{all}");
    assert!(!all.contains("passed"), "no test ran: {all}");

    // A suite that declares modules and calls only built-ins runs without them.
    let only_builtins = suite(&server, &body[..body.find("Test: \"Tax\"").unwrap()]);
    std::fs::write(dir.path().join("builtins.mcpr"), only_builtins).unwrap();
    let out = mcpr(dir.path(), &["run", "builtins.mcpr"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

#[test]
fn each_failure_of_a_function_is_named_and_none_hangs() {
    node_is_installed();
    let server = reference_server();
    let body = r#"Test: "Throws"
  Set "v" using "reject" with:
    customer: "Ada"
  Send "ping"

Test: "Never settles"
  Set "v" using "forever"
  Send "ping"

Test: "Spins"
  Set "v" using "spin"
  Send "ping"

Test: "After the host was stopped"
  Set "tax" using "calculateTax" with:
    amount: 10
    rate: 0.5
  Call tool "echo" with:
    text: "tax=${tax}"
  Expect "content[0].text" equals "tax=5"

Test: "Not JSON"
  Set "v" using "huge"
  Send "ping"

Test: "Ends the host"
  Set "v" using "quit"
  Send "ping"

Test: "Works again"
  Set "n" using "twice" with:
    n: 2
  Send "ping"
"#;
    let dir = scratch(&[
        ("suite.mcpr", &suite(&server, body)),
        ("functions.mjs", MODULE),
        ("more.cjs", COMMONJS),
    ]);
    let started = Instant::now();
    let out = mcpr(
        dir.path(),
        &["run", "suite.mcpr", "--allow-custom-code", "--jobs", "1"],
    );
    let elapsed = started.elapsed();
    let all = text(&out);
    // An errored test (the host ended) gives exit 3.
    assert_eq!(out.status.code(), Some(3), "{all}");
    for needle in [
        "MCP-EXT-005: reject: no discount for Ada",
        "MCP-EXT-003: “forever” did not finish within 1s",
        "MCP-EXT-003: “spin” did not finish within 1s",
        "MCP-EXT-004: “huge” returned a value that cannot be saved as JSON",
        "MCP-EXT-008: the function host exited with status 3 while “quit” ran",
        "2 passed, 4 failed, 0 skipped, 0 blocked, 1 errored",
    ] {
        assert!(all.contains(needle), "{needle:?} missing:\n{all}");
    }
    // Two deadlines of one second, not the default five, and no wait beyond them.
    assert!(elapsed < Duration::from_secs(8), "took {elapsed:?}:\n{all}");
    // The host stopped at the deadline is gone.
    let pid: i32 = std::fs::read_to_string(dir.path().join("host.pid"))
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists(),
        "the stopped host {pid} is still alive"
    );
}

#[test]
fn a_module_that_does_not_load_stops_the_run_before_its_tests() {
    node_is_installed();
    let server = reference_server();
    let body = "Test: \"Tax\"\n  Set \"v\" using \"broken\"\n  Send \"ping\"\n";
    let text_of = |module: &str| {
        let dir = scratch(&[
            ("suite.mcpr", &suite(&server, body)),
            ("functions.mjs", module),
            ("more.cjs", COMMONJS),
        ]);
        let out = mcpr(dir.path(), &["run", "suite.mcpr", "--allow-custom-code"]);
        (out.status.code(), text(&out))
    };
    let (code, all) = text_of("export const broken = ;\n");
    assert_eq!(code, Some(2), "{all}");
    assert!(
        all.contains(
            "MCP-EXT-006: the function module ./functions.mjs cannot be loaded: SyntaxError"
        ),
        "{all}"
    );
    let (code, all) = text_of("throw new Error('not today');\nexport function broken() {}\n");
    assert_eq!(code, Some(2), "{all}");
    assert!(all.contains("Error: not today"), "{all}");
    let (code, all) = text_of("process.exit(0);\nexport function broken() {}\n");
    assert_eq!(code, Some(2), "{all}");
    assert!(all.contains("MCP-EXT-006"), "{all}");
    assert!(!all.contains("passed"), "no test ran: {all}");
}

#[test]
fn a_module_outside_the_allowlist_is_refused() {
    let server = reference_server();
    let body = "Extensions:\n  allowlist: [./functions.mjs]\n\nTest: \"Tax\"\n  Set \"v\" using \"calculateTax\"\n  Send \"ping\"\n";
    let dir = scratch(&[
        ("suite.mcpr", &suite(&server, body)),
        ("functions.mjs", MODULE),
        ("more.cjs", COMMONJS),
    ]);
    let out = mcpr(dir.path(), &["run", "suite.mcpr", "--allow-custom-code"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(2), "{all}");
    assert!(
        all.contains("MCP-EXT-109: the function module ./more.cjs is not in the suite's allowlist"),
        "{all}"
    );
}

#[test]
fn without_node_the_run_says_so() {
    let server = reference_server();
    let body = "Test: \"Tax\"\n  Set \"v\" using \"calculateTax\"\n  Send \"ping\"\n";
    let dir = scratch(&[
        ("suite.mcpr", &suite(&server, body)),
        ("functions.mjs", MODULE),
        ("more.cjs", COMMONJS),
        ("bin/.keep", ""),
    ]);
    let out = common::mcpr_in(dir.path())
        .env("MCPR_NO_HISTORY", "1")
        .env("PATH", dir.path().join("bin"))
        .args(["run", "suite.mcpr", "--allow-custom-code"])
        .output()
        .unwrap();
    let all = text(&out);
    assert_eq!(out.status.code(), Some(3), "{all}");
    assert!(all.contains("MCP-EXT-007"), "{all}");
    assert!(all.contains("not installed or not on PATH"), "{all}");
}

#[test]
fn check_knows_the_names_a_module_declares() {
    let body = r#"Test: "Names"
  Set "a" using "calculateTx" with:
    amount: 1
  Set "b" using "twice" with:
    n: 1
  Set "c" using "makeLabel"
  Send "ping"
"#;
    let dir = scratch(&[
        ("suite.mcpr", &suite("node server.js", body)),
        ("functions.mjs", MODULE),
        ("more.cjs", COMMONJS),
    ]);
    let out = mcpr(dir.path(), &["check", "suite.mcpr"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(2), "{all}");
    assert!(all.contains("MCPLANG414 suite.mcpr:7:18"), "{all}");
    assert!(all.contains("did you mean `calculateTax`?"), "{all}");
    assert!(
        all.contains("none of the modules `./functions.mjs`, `./more.cjs` exports it"),
        "{all}"
    );
    assert!(
        all.contains("1 error and 0 warnings"),
        "only the misspelt name: {all}"
    );

    // A module that cannot be read is a warning at the path; names are then not judged.
    std::fs::remove_file(dir.path().join("more.cjs")).unwrap();
    let out = mcpr(dir.path(), &["check", "suite.mcpr"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(all.contains("MCPLANG908 suite.mcpr:3:29"), "{all}");
    assert!(all.contains("0 errors and "), "{all}");

    // A module that makes its exports when it runs leaves the names to the run.
    std::fs::write(
        dir.path().join("more.cjs"),
        "module.exports = require('./impl.cjs');\n",
    )
    .unwrap();
    let out = mcpr(dir.path(), &["check", "suite.mcpr"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

#[test]
fn an_interrupted_run_ends_the_function_host_at_once() {
    node_is_installed();
    let server = reference_server();
    let text = format!(
        "Suite: \"Interrupted\"\nServer: {server}\nFunctions: ./functions.mjs\nDefault timeout: 60 seconds\n\nTest: \"Never settles\"\n  Set \"v\" using \"forever\"\n  Send \"ping\"\n"
    );
    let dir = scratch(&[("suite.mcpr", &text), ("functions.mjs", MODULE)]);
    let mut child = common::mcpr_in(dir.path())
        .env("MCPR_NO_HISTORY", "1")
        .args(["run", "suite.mcpr", "--allow-custom-code"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // The function writes the host's pid, then never settles.
    let pid_file = dir.path().join("host.pid");
    let start = Instant::now();
    while !pid_file.exists() && start.elapsed() < Duration::from_secs(15) {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(100));
    let pid: i32 = std::fs::read_to_string(&pid_file)
        .expect("the function ran")
        .parse()
        .unwrap();
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let signalled = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if signalled.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("mcpr did not end within 10 s of SIGINT (the call's deadline is 60 s)");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(130));
    assert!(
        signalled.elapsed() < Duration::from_secs(8),
        "took {:?}",
        signalled.elapsed()
    );
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists(),
        "the function host {pid} outlived the run"
    );
}

#[test]
fn a_manifest_is_checked_as_the_first_implementation_checked_it() {
    node_is_installed();
    let server = reference_server();
    let module = |manifest: &str| {
        format!(
            "export const manifest = {manifest};\nexport function calculateTax({{ amount, rate }}) {{\n  return amount * rate;\n}}\nexport function hidden() {{\n  return 1;\n}}\n"
        )
    };
    let suite = |extensions: &str, function: &str| {
        format!(
            "Suite: \"Manifests\"\nServer: {server}\nExtensions:\n  functions: [./functions.mjs]\n{extensions}\nTest: \"Tax\"\n  Set \"v\" using \"{function}\" with:\n    amount: 10\n    rate: 0.5\n  Call tool \"echo\" with:\n    text: \"v=${{v}}\"\n  Expect \"content[0].text\" equals \"v=5\"\n"
        )
    };
    let run = |manifest: &str, extensions: &str, function: &str| {
        let dir = scratch(&[
            ("suite.mcpr", &suite(extensions, function)),
            ("functions.mjs", &module(manifest)),
        ]);
        let out = mcpr(dir.path(), &["run", "suite.mcpr", "--allow-custom-code"]);
        (out.status.code(), text(&out))
    };
    let network = r#"{ schemaVersion: 1, name: "money", version: "1.0.0", permissions: ["network"], functions: ["calculateTax"] }"#;

    let (code, all) = run(network, "", "calculateTax");
    assert_eq!(code, Some(2), "{all}");
    assert!(
        all.contains("MCP-EXT-101: the function module ./functions.mjs (“money”) needs permissions the suite does not grant: network"),
        "{all}"
    );

    let (code, all) = run(network, "  permissions: [network]\n", "calculateTax");
    assert_eq!(code, Some(0), "granted: {all}");

    // The manifest's `functions` list says which exports count.
    let (code, all) = run(network, "  permissions: [network]\n", "hidden");
    assert_eq!(code, Some(1), "{all}");
    assert!(all.contains("MCP-EXT-002"), "{all}");

    let (code, all) = run(
        r#"{ schemaVersion: 2, name: "money", version: "1.0.0" }"#,
        "",
        "calculateTax",
    );
    assert_eq!(code, Some(2), "{all}");
    assert!(all.contains("MCP-EXT-100"), "{all}");
    assert!(all.contains("`schemaVersion` 2, not 1"), "{all}");
}
