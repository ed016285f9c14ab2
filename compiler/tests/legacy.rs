//! The legacy `.mcp` corpus (`conformance-tests/legacy/`): every script of `valid/` lowers
//! without diagnostics to the Suite IR checked in next to it (`NAME.ir.json`; `MCPR_BLESS=1`
//! rewrites them), and that IR fits the schema; every script of `invalid/` reports exactly the
//! diagnostics written in it as `# expect: MCPLANG701 3:6` comments. Adding a case needs no
//! Rust.

use mcpr_compiler::SourceMap;
use mcpr_compiler::diagnostics::render;
use mcpr_compiler::lower::{self, MemoryLoader, Options};
use mcpr_compiler::source::SourceFile;
use serde_json::Value;
use std::path::{Path, PathBuf};

const SCHEMA_TEXT: &str = include_str!("../../docs/schema/suite.schema.json");

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance-tests/legacy")
}

fn scripts(folder: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus().join(folder))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mcp"))
        .collect();
    files.sort();
    files
}

fn compile(path: &Path) -> (SourceMap, lower::Compiled) {
    let name = format!(
        "{}/{}",
        path.parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy(),
        path.file_name().unwrap().to_string_lossy()
    );
    let mut map = SourceMap::new();
    let id = map.add(SourceFile::new(
        name,
        std::fs::read_to_string(path).unwrap(),
    ));
    let compiled = lower::compile(&mut map, id, &MemoryLoader::new(), &Options::default());
    (map, compiled)
}

#[test]
fn valid_scripts_lower_to_their_expected_ir() {
    let bless = std::env::var_os("MCPR_BLESS").is_some_and(|v| v == "1");
    let schema: Value = serde_json::from_str(SCHEMA_TEXT).unwrap();
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    let files = scripts("valid");
    assert!(files.len() >= 6, "the legacy corpus is missing");
    let mut failures = Vec::new();
    for path in &files {
        let shown = path.file_name().unwrap().to_string_lossy().to_string();
        let (map, compiled) = compile(path);
        if !compiled.diagnostics.is_empty() {
            failures.push(format!(
                "{shown}: diagnostics\n{}",
                render::short(&compiled.diagnostics, &map)
            ));
            continue;
        }
        let Some(suite) = compiled.suite else {
            failures.push(format!("{shown}: no suite"));
            continue;
        };
        let ir = serde_json::to_value(&suite).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&ir)
            .map(|e| format!("{}: {e}", e.instance_path().as_str()))
            .collect();
        if !errors.is_empty() {
            failures.push(format!("{shown}: IR does not fit the schema: {errors:#?}"));
        }
        let text = serde_json::to_string_pretty(&suite).unwrap() + "\n";
        let expected = path.with_extension("ir.json");
        if bless {
            std::fs::write(&expected, &text).unwrap();
            continue;
        }
        match std::fs::read_to_string(&expected) {
            Ok(want) if want == text => {}
            Ok(want) => {
                let line = want
                    .lines()
                    .zip(text.lines())
                    .position(|(a, b)| a != b)
                    .map_or(want.lines().count().min(text.lines().count()), |i| i + 1);
                failures.push(format!(
                    "{shown}: IR differs from {} from line {line} (MCPR_BLESS=1 rewrites it)",
                    expected.file_name().unwrap().to_string_lossy()
                ));
            }
            Err(_) => failures.push(format!("{shown}: no expected IR (run with MCPR_BLESS=1)")),
        }
        // The IR reads back into the same suite.
        let back: mcpr_compiler::ir::Suite = serde_json::from_str(&text).unwrap();
        assert_eq!(back, suite, "{shown}: the IR does not round-trip");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// `(code, line:column)` pairs written as `# expect:` comments.
fn expected(path: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out: Vec<(String, String)> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("# expect:"))
        .map(|rest| {
            let mut parts = rest.split_whitespace();
            (
                parts.next().unwrap().to_string(),
                parts.next().unwrap().to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn invalid_scripts_report_exactly_their_expectations() {
    let files = scripts("invalid");
    assert!(files.len() >= 10, "the invalid legacy corpus is missing");
    let mut failures = Vec::new();
    for path in &files {
        let want = expected(path);
        assert!(
            !want.is_empty(),
            "{} has no `# expect:` lines",
            path.display()
        );
        let (map, compiled) = compile(path);
        let mut got: Vec<(String, String)> = compiled
            .diagnostics
            .iter()
            .map(|d| {
                let p = map.get(d.file).position(d.span.start as usize);
                (
                    d.code.as_str().to_string(),
                    format!("{}:{}", p.line, p.column),
                )
            })
            .collect();
        got.sort();
        if got != want {
            failures.push(format!(
                "{}\n  expected {want:?}\n  actual   {got:?}",
                path.file_name().unwrap().to_string_lossy()
            ));
        }
        assert!(
            compiled.suite.is_none(),
            "{}: an invalid script lowered",
            path.display()
        );
    }
    assert!(failures.is_empty(), "mismatches:\n{}", failures.join("\n"));
}

#[test]
fn human_renderings_of_invalid_scripts() {
    insta::glob!("../../conformance-tests/legacy", "invalid/*.mcp", |path| {
        let (map, compiled) = compile(path);
        insta::assert_snapshot!(render::human(&compiled.diagnostics, &map, false));
    });
}

/// Scripts are told apart by their extension only; the same text as `.mcpr` is no script.
#[test]
fn the_extension_picks_the_format() {
    let text = "call_tool echo text:hi\nassert_contains \"hi\"\n";
    let mut map = SourceMap::new();
    let script = map.add(SourceFile::new("a/t.MCP", text));
    let plain = map.add(SourceFile::new("a/t.mcpr", text));
    let loader = MemoryLoader::new();
    let lowered = lower::compile(&mut map, script, &loader, &Options::default());
    assert!(lowered.diagnostics.is_empty(), "{:?}", lowered.diagnostics);
    let suite = lowered.suite.unwrap();
    assert_eq!(suite.tests[0].name, "t");
    assert!(suite.target.is_none());
    let other = lower::compile(&mut map, plain, &loader, &Options::default());
    assert!(other.diagnostics.iter().any(|d| d.is_error()));
}

/// Substitution happens per argument after splitting: a variable is one argument however it
/// is written, and text around it stays in the same argument.
#[test]
fn variables_become_templates_per_argument() {
    let text =
        "set_var who rawResponse\ncall_tool echo \"$who and $who\" $who\necho 'x${y}' $who\n";
    let mut map = SourceMap::new();
    let id = map.add(SourceFile::new("v.mcp", text));
    let c = lower::compile(&mut map, id, &MemoryLoader::new(), &Options::default());
    let ir = serde_json::to_value(c.suite.unwrap()).unwrap();
    let steps = &ir["tests"][0]["steps"];
    assert_eq!(
        steps[1]["tool"]["positional"],
        serde_json::json!(["${who} and ${who}", "${who}"])
    );
    assert_eq!(steps[2]["native"]["message"], "x${$}{y} ${who}");
    assert_eq!(ir["tests"][0]["variables"]["$"], "$");
}

/// Pieces that make generated scripts exercise every part of the lexer and the lowering.
fn piece() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    prop_oneof![
        Just("call_tool add 2 3".to_string()),
        Just("call_tool echo text:\"a b\" x:'y' http://h".to_string()),
        Just("call_tool_raw echo '{\"a\": $v}'".to_string()),
        Just("set_var v $.a.0".to_string()),
        Just("assert_equals $v \"\"".to_string()),
        Just("expect_error timeout 5 call_tool".to_string()),
        Just("timeout".to_string()),
        Just("wait_notification tools/list_changed x 2s".to_string()),
        Just("complete prompt:p a".to_string()),
        Just("elicit_response accept '{}'".to_string()),
        Just("call_tool x <<EOF".to_string()),
        Just("EOF".to_string()),
        Just("<<".to_string()),
        Just("\"".to_string()),
        Just("'".to_string()),
        Just("# c".to_string()),
        Just("// c".to_string()),
        Just("$".to_string()),
        Just("${x}".to_string()),
        "[ -~äé\t]{0,12}",
    ]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// Any text lowers without panicking; diagnostics point inside the file, and a suite comes
    /// out only without errors, fitting the schema.
    #[test]
    fn scripts_never_panic(lines in proptest::collection::vec(
        proptest::collection::vec(piece(), 1..4), 0..12)) {
        let text: String = lines.iter().map(|l| l.join(" ") + "\n").collect();
        let mut map = SourceMap::new();
        let id = map.add(SourceFile::new("p.mcp", text.clone()));
        let c = lower::compile(&mut map, id, &MemoryLoader::new(), &Options::default());
        for d in &c.diagnostics {
            proptest::prop_assert!(d.span.end as usize <= text.len(), "{d:?}");
            proptest::prop_assert!(text.is_char_boundary(d.span.start as usize));
        }
        if let Some(suite) = c.suite {
            proptest::prop_assert!(!c.diagnostics.iter().any(|d| d.is_error()));
            let schema: Value = serde_json::from_str(SCHEMA_TEXT).unwrap();
            let v = jsonschema::draft202012::new(&schema).unwrap();
            let ir = serde_json::to_value(&suite).unwrap();
            proptest::prop_assert!(v.is_valid(&ir), "{ir}");
        }
    }
}
