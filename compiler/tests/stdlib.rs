//! The standard flow library (`stdlib-flows/`): every file compiles when imported, every
//! flow is documented and check ids are unique. That `docs/stdlib.md` is made from the
//! files is checked, with the other generated files, by `generated.rs`.

use std::collections::BTreeSet;
use std::path::Path;

use mcpr_compiler::SourceMap;
use mcpr_compiler::diagnostics::render::short;
use mcpr_compiler::lower::{self, MemoryLoader, Options};
use mcpr_compiler::source::SourceFile;
use mcpr_compiler::stdlib::{self, LIBRARIES};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

/// Compiles `text` as `suite.mcpr`; the diagnostics in short form.
fn compile(text: &str) -> (Option<mcpr_compiler::ir::Suite>, String) {
    let mut map = SourceMap::new();
    let id = map.add(SourceFile::new("suite.mcpr", text));
    let out = lower::compile(&mut map, id, &MemoryLoader::new(), &Options::default());
    let shown = short(&out.diagnostics, &map);
    (out.suite, shown)
}

#[test]
fn every_top_level_file_is_a_library() {
    let mut files: Vec<String> = std::fs::read_dir(root().join("stdlib-flows"))
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            name.strip_suffix(".mcpr").map(String::from)
        })
        .collect();
    files.sort();
    let mut known: Vec<String> = LIBRARIES.iter().map(|l| l.name.to_string()).collect();
    known.sort();
    assert_eq!(
        files, known,
        "stdlib-flows/*.mcpr and stdlib::LIBRARIES differ"
    );
}

#[test]
fn every_flow_compiles_when_imported_and_used() {
    for doc in stdlib::documents().unwrap() {
        let mut text = format!(
            "Server: mcpr-reference-server\nImport flows from \"std:{}\"\n",
            doc.library.name
        );
        for (i, flow) in doc.flows.iter().enumerate() {
            text.push_str(&format!("\nTest: \"t{i}\"\n  Use flow \"{}\"", flow.name));
            if flow.inputs.is_empty() {
                text.push('\n');
            } else {
                text.push_str(" with:\n");
                for input in &flow.inputs {
                    text.push_str(&format!("    {}: x\n", input.name));
                }
            }
        }
        let (suite, diags) = compile(&text);
        assert!(
            diags.trim().is_empty(),
            "std:{}:\n{diags}",
            doc.library.name
        );
        let suite = suite.unwrap();
        assert_eq!(suite.tests.len(), doc.flows.len());
        assert!(suite.tests.iter().all(|t| !t.steps.is_empty()));
    }
}

#[test]
fn a_library_imported_twice_is_read_once_and_names_its_flows_by_std_path() {
    let (suite, diags) = compile(
        "Server: s\nImport flows from \"std:protocol\"\nImport flows from \"std:protocol\"\n\nTest: \"p\"\n  Use flow \"Ping is answered\"\n",
    );
    assert!(diags.trim().is_empty(), "{diags}");
    let ir = serde_json::to_string(&suite.unwrap()).unwrap();
    assert!(
        ir.contains("std:protocol"),
        "the flow frame names its file: {ir}"
    );
}

#[test]
fn an_unknown_library_lists_the_known_ones_and_suggests_the_closest() {
    let (_, diags) =
        compile("Server: s\nImport flows from \"std:tool\"\n\nTest: \"p\"\n  Send \"ping\"\n");
    assert!(diags.contains("MCPLANG308"), "{diags}");
    let mut map = SourceMap::new();
    let id = map.add(SourceFile::new(
        "suite.mcpr",
        "Server: s\nImport flows from \"std:tool\"\n\nTest: \"p\"\n  Send \"ping\"\n",
    ));
    let out = lower::compile(&mut map, id, &MemoryLoader::new(), &Options::default());
    let human = mcpr_compiler::diagnostics::render::human(&out.diagnostics, &map, false);
    assert!(human.contains("`std:protocol`, `std:tools`"), "{human}");
    assert!(human.contains("did you mean `std:tools`?"), "{human}");
}

#[test]
fn checks_are_documented_and_unique() {
    let mut seen = BTreeSet::new();
    for doc in stdlib::documents().unwrap() {
        assert!(
            !doc.flows.is_empty(),
            "std:{} has no flow",
            doc.library.name
        );
        for f in &doc.flows {
            assert!(
                f.check.starts_with(&format!("{}.", doc.library.name)),
                "{} should start with `{}.`",
                f.check,
                doc.library.name
            );
            assert!(seen.insert(f.check.clone()), "{} twice", f.check);
            assert!(
                f.checks.ends_with('.'),
                "{}: `Checks:` is a sentence",
                f.check
            );
            if let Some(v) = &f.era {
                assert!(
                    [
                        "2024-11-05",
                        "2025-03-26",
                        "2025-06-18",
                        "2025-11-25",
                        "2026-07-28"
                    ]
                    .contains(&v.as_str()),
                    "{}: Era {v}",
                    f.check
                );
            }
        }
    }
}

#[test]
fn a_flow_without_its_documentation_is_refused_with_its_line() {
    static BAD: stdlib::Library = stdlib::Library {
        name: "bad",
        text: "# Library: std:bad\n# Summary: s.\n\n# Check: bad.x\n# Spec: s\nFlow: \"X\"\n  Send \"ping\"\n",
    };
    let e = stdlib::document(&BAD).unwrap_err();
    assert!(e.contains("line 6") && e.contains("has no `# "), "{e}");
}
