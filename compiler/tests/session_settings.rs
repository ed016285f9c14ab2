//! `Session: shared`, `Shutdown grace:` and `Isolated session` in `.mcpr`, and their YAML
//! spellings: lowered to the same IR, valid against the schema, printed back by the
//! formatter, and a wrong value named at its line.

use mcpr_compiler::SourceMap;
use mcpr_compiler::diagnostics::render;
use mcpr_compiler::fmt;
use mcpr_compiler::ir::SCHEMA_TEXT;
use mcpr_compiler::lower::{self, MemoryLoader, Options};
use mcpr_compiler::source::SourceFile;
use serde_json::{Value, json};

const MCPR: &str = "MCP Test 1
Suite: \"Shared\"
Server: my-server --stdio
Session: shared
Shutdown grace: 250 ms

Test: \"First\"
  Call tool \"echo\" with:
    text: \"a\"

Test: \"Alone\"
  Isolated session
  Call tool \"echo\" with:
    text: \"b\"
";

const YAML: &str = "version: 1
name: Shared
target:
  transport: stdio
  command: my-server
  args: [--stdio]
defaults:
  session: shared
  shutdownGraceMs: 250
tests:
  - name: First
    steps:
      - tool: {name: echo, arguments: {text: a}}
  - name: Alone
    isolated: true
    steps:
      - tool: {name: echo, arguments: {text: b}}
";

fn compile(name: &str, text: &str) -> (SourceMap, lower::Compiled) {
    let mut map = SourceMap::new();
    let id = map.add(SourceFile::new(name, text.to_string()));
    let compiled = lower::compile(&mut map, id, &MemoryLoader::new(), &Options::default());
    (map, compiled)
}

fn ir_of(name: &str, text: &str) -> Value {
    let (map, compiled) = compile(name, text);
    assert!(
        compiled.diagnostics.is_empty(),
        "{}",
        render::short(&compiled.diagnostics, &map)
    );
    serde_json::to_value(compiled.suite.unwrap()).unwrap()
}

#[test]
fn the_session_settings_lower_alike_from_mcpr_and_yaml() {
    let from_mcpr = ir_of("shared.mcpr", MCPR);
    assert_eq!(
        from_mcpr["defaults"],
        json!({"session": "shared", "shutdownGraceMs": 250})
    );
    assert_eq!(from_mcpr["tests"][1]["isolated"], json!(true));
    assert!(from_mcpr["tests"][0].get("isolated").is_none());
    let from_yaml = ir_of("shared.yaml", YAML);
    assert_eq!(from_yaml["defaults"], from_mcpr["defaults"]);
    assert_eq!(from_yaml["tests"][1]["isolated"], json!(true));
    let schema: Value = serde_json::from_str(SCHEMA_TEXT).unwrap();
    let v = jsonschema::draft202012::new(&schema).unwrap();
    let errors: Vec<String> = v.iter_errors(&from_mcpr).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
fn per_test_sessions_are_the_default_and_can_be_said() {
    let text = MCPR.replace("Session: shared", "Session: per test");
    let ir = ir_of("per-test.mcpr", &text);
    assert_eq!(ir["defaults"]["session"], json!("perTest"));
    let ir = ir_of("none.mcpr", &MCPR.replace("Session: shared\n", ""));
    assert!(ir["defaults"].get("session").is_none(), "{ir}");
}

#[test]
fn the_formatter_writes_the_settings_back() {
    let (_, compiled) = compile("shared.mcpr", MCPR);
    let suite = compiled.suite.unwrap();
    let text = fmt::render(&suite, fmt::Format::Mcpr);
    assert!(text.contains("\nSession: shared\n"), "{text}");
    assert!(text.contains("\nShutdown grace: 250 ms\n"), "{text}");
    assert!(text.contains("\n  Isolated session\n"), "{text}");
    let (_, again) = compile("again.mcpr", &text);
    assert_eq!(
        fmt::canonical(&again.suite.unwrap()),
        fmt::canonical(&suite)
    );
}

#[test]
fn a_wrong_session_value_or_grace_is_named_at_its_line() {
    let (map, compiled) = compile(
        "bad.mcpr",
        &MCPR.replace("Session: shared", "Session: reused"),
    );
    let shown = render::short(&compiled.diagnostics, &map);
    assert!(shown.contains("bad.mcpr:4:"), "{shown}");
    assert!(shown.contains("Session: shared"), "{shown}");
    let (map, compiled) = compile(
        "grace.mcpr",
        &MCPR.replace("Shutdown grace: 250 ms", "Shutdown grace: soon"),
    );
    let shown = render::short(&compiled.diagnostics, &map);
    assert!(shown.contains("grace.mcpr:5:"), "{shown}");
    let (map, compiled) = compile(
        "grace.yaml",
        &YAML.replace("shutdownGraceMs: 250", "shutdownGraceMs: -1"),
    );
    let shown = render::short(&compiled.diagnostics, &map);
    assert!(shown.contains("grace.yaml:9:"), "{shown}");
}
