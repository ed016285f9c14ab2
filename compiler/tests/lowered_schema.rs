//! A `.mcpr` file's lowered suite is checked against the suite schema a test at a time (the
//! whole document of a large suite is many times its text); a problem in any test is still
//! found and placed at the line that wrote it, by `compile` and by `check` alike (which lets
//! go of each test it judged alone and valid, and names the others by their own indexes).

use mcpr_compiler::SourceMap;
use mcpr_compiler::diagnostics::render;
use mcpr_compiler::lower::{self, MemoryLoader, Options};
use mcpr_compiler::source::SourceFile;

fn shown(text: &str) -> (bool, String) {
    let mut map = SourceMap::new();
    let id = map.add(SourceFile::new("later.mcpr", text.to_string()));
    let compiled = lower::compile(&mut map, id, &MemoryLoader::new(), &Options::default());
    (
        compiled.suite.is_some(),
        render::short(&compiled.diagnostics, &map),
    )
}

/// The diagnostics `check` finds in `text`, shown.
fn checked(text: &str) -> String {
    let mut map = SourceMap::new();
    let id = map.add(SourceFile::new("later.mcpr", text.to_string()));
    let diagnostics = lower::diagnostics(&mut map, id, &MemoryLoader::new(), &Options::default());
    render::short(&diagnostics.worded, &map)
}

fn suite(bad_test: usize) -> String {
    let mut text = String::from("MCP Test 1\nSuite: \"Schema\"\nServer: my-server\n");
    for i in 0..4 {
        let timeout = if i == bad_test { 0 } else { 500 };
        text.push_str(&format!(
            "\nTest: \"T{i}\"\n  Run step with:\n    tool:\n      name: echo\n    timeoutMs: {timeout}\n"
        ));
    }
    text
}

#[test]
fn a_schema_problem_is_found_in_the_first_test_and_in_a_later_one() {
    let (ok, out) = shown(&suite(usize::MAX));
    assert!(ok, "{out}");
    for bad in [0, 2, 3] {
        let text = suite(bad);
        let (ok, out) = shown(&text);
        assert!(!ok, "{out}");
        let line = text
            .lines()
            .position(|l| l == format!("Test: \"T{bad}\""))
            .unwrap()
            + 2;
        assert!(
            out.contains(&format!("later.mcpr:{line}:3: error MCPLANG608")),
            "test {bad}: {out}"
        );
        assert!(
            out.contains(&format!("tests[{bad}].steps[0].timeoutMs")),
            "{out}"
        );
        assert_eq!(checked(&text), out, "check of test {bad}");
    }
}
