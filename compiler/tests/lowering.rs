//! The lowering corpus (`conformance-tests/lowering/<case>/`): each folder holds `main.mcpr`
//! (plus any files it imports) and `expected.ir.json`, the Suite IR it must compile to.
//! Adding a case needs no Rust: write the input, run with `MCPR_BLESS=1` to write the
//! expectation, review it, commit both.
//!
//! Every IR the corpus produces (this one and the valid files of the diagnostics corpus)
//! must also validate against `docs/schema/suite.schema.json`.

use mcpr_compiler::SourceMap;
use mcpr_compiler::lower::{self, MemoryLoader, Options};
use mcpr_compiler::source::SourceFile;
use serde_json::Value;
use std::path::{Path, PathBuf};

mod common;

const SCHEMA_TEXT: &str = include_str!("../../docs/schema/suite.schema.json");

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn validator() -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(SCHEMA_TEXT).unwrap();
    jsonschema::draft202012::new(&schema).unwrap()
}

fn schema_errors(v: &jsonschema::Validator, ir: &Value) -> Vec<String> {
    v.iter_errors(ir)
        .map(|e| format!("{}: {e}", e.instance_path().as_str()))
        .collect()
}

fn cases() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root().join("conformance-tests/lowering"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// Compiles `main.mcpr` of a case folder; paths are shown relative to the folder.
fn compile_case(dir: &Path) -> (SourceMap, lower::Compiled) {
    let text = std::fs::read_to_string(dir.join("main.mcpr")).unwrap();
    let mut map = SourceMap::new();
    let id = map.add(SourceFile::new("main.mcpr", text));
    let compiled = lower::compile(
        &mut map,
        id,
        &common::DirLoader(dir.to_path_buf()),
        &Options::default(),
    );
    (map, compiled)
}

#[test]
fn cases_compile_to_their_expected_ir() {
    let bless = std::env::var_os("MCPR_BLESS").is_some_and(|v| v == "1");
    let cases = cases();
    assert!(cases.len() >= 20, "the lowering corpus is missing");
    let validator = validator();
    let mut failures = Vec::new();
    for dir in &cases {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let (map, compiled) = compile_case(dir);
        if !compiled.diagnostics.is_empty() {
            failures.push(format!(
                "{name}: diagnostics\n{}",
                mcpr_compiler::diagnostics::render::short(&compiled.diagnostics, &map)
            ));
            continue;
        }
        let Some(suite) = compiled.suite else {
            failures.push(format!("{name}: no suite"));
            continue;
        };
        let ir = serde_json::to_value(&suite).unwrap();
        let errors = schema_errors(&validator, &ir);
        if !errors.is_empty() {
            failures.push(format!("{name}: IR does not fit the schema: {errors:#?}"));
        }
        let text = serde_json::to_string_pretty(&suite).unwrap() + "\n";
        let path = dir.join("expected.ir.json");
        if bless {
            std::fs::write(&path, &text).unwrap();
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(want) if want == text => {}
            Ok(want) => failures.push(format!(
                "{name}: IR differs from expected.ir.json (MCPR_BLESS=1 rewrites it)\n{}",
                first_difference(&want, &text)
            )),
            Err(_) => failures.push(format!(
                "{name}: no expected.ir.json (run with MCPR_BLESS=1)"
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

fn first_difference(want: &str, got: &str) -> String {
    for (i, (a, b)) in want.lines().zip(got.lines()).enumerate() {
        if a != b {
            return format!("line {}:\n  expected {a}\n  actual   {b}", i + 1);
        }
    }
    format!(
        "lengths differ: expected {} lines, actual {}",
        want.lines().count(),
        got.lines().count()
    )
}

/// Every valid file of the diagnostics corpus that has tests compiles to schema-valid IR.
#[test]
fn valid_corpus_lowers_to_schema_valid_ir() {
    let dir = root().join("conformance-tests/compiler/valid");
    let validator = validator();
    let mut compiled_any = 0;
    let mut failures = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "mcpr") {
            continue;
        }
        let shown = format!(
            "conformance-tests/compiler/valid/{}",
            path.file_name().unwrap().to_string_lossy()
        );
        let mut map = SourceMap::new();
        let id = map.add(SourceFile::new(
            shown.clone(),
            std::fs::read_to_string(&path).unwrap(),
        ));
        let compiled = lower::compile(
            &mut map,
            id,
            &common::DirLoader(root()),
            &Options::default(),
        );
        let Some(suite) = compiled.suite else {
            failures.push(format!("{shown}: no suite"));
            continue;
        };
        compiled_any += 1;
        let errors = schema_errors(&validator, &serde_json::to_value(&suite).unwrap());
        if !errors.is_empty() {
            failures.push(format!("{shown}: {errors:#?}"));
        }
    }
    assert!(compiled_any >= 10);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Imports are read through the loader only: an in-memory loader compiles a suite whose
/// flows live in another folder, and positions stay those of each file.
#[test]
fn memory_loader_imports_across_folders() {
    let mut loader = MemoryLoader::new();
    loader.insert("suite/main.mcpr", "");
    loader.insert(
        "suite/lib/flows.mcpr",
        "Flow: \"Ping twice\"\n  Send \"ping\"\n  Send \"ping\"\n",
    );
    let main = "Server: node s.js\nImport flows from \"./lib/flows.mcpr\"\n\nTest: \"t\"\n  Use flow \"Ping twice\"\n";
    let mut map = SourceMap::new();
    let id = map.add(SourceFile::new("suite/main.mcpr", main));
    let compiled = lower::compile(&mut map, id, &loader, &Options::default());
    assert!(
        compiled.diagnostics.is_empty(),
        "{:?}",
        compiled.diagnostics
    );
    let suite = compiled.suite.unwrap();
    let step = &suite.tests[0].steps[1];
    let source = step.source.as_ref().unwrap();
    assert_eq!(
        (&*source.file, source.line, source.column),
        ("suite/lib/flows.mcpr", 3, 3)
    );
    assert_eq!(step.flow[0].call_site.line, 5);
}

/// Files the loader cannot provide are MCPLANG302, reported at the import line.
#[test]
fn memory_loader_missing_file() {
    let loader = MemoryLoader::new();
    let mut map = SourceMap::new();
    let id = map.add(SourceFile::new(
        "main.mcpr",
        "Server: x\nImport flows from \"./nope.mcpr\"\nTest: \"t\"\n  Send \"ping\"\n",
    ));
    let compiled = lower::compile(&mut map, id, &loader, &Options::default());
    let codes: Vec<_> = compiled
        .diagnostics
        .iter()
        .map(|d| d.code.as_str())
        .collect();
    assert_eq!(codes, ["MCPLANG302"]);
    assert!(compiled.suite.is_none());
}

/// The statement forms (the `form` tag of the tree) used by the `.mcpr` files below a folder.
fn forms_in(dir: &Path, out: &mut std::collections::BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            forms_in(&path, out);
        } else if path.extension().is_some_and(|e| e == "mcpr") {
            let file = SourceFile::new("x.mcpr", std::fs::read_to_string(&path).unwrap());
            for node in mcpr_compiler::syntax::parse(&file, 0).document.walk() {
                let v = serde_json::to_value(&node.stmt).unwrap();
                out.insert(v["form"].as_str().unwrap().to_string());
            }
        }
    }
}

/// Every statement form has a lowering case: the lowering corpus uses every form the valid
/// diagnostics corpus uses (which `conformance.rs` checks is all of them).
#[test]
fn every_statement_form_has_a_lowering_case() {
    let mut all = std::collections::BTreeSet::new();
    forms_in(&root().join("conformance-tests/compiler/valid"), &mut all);
    let mut lowered = std::collections::BTreeSet::new();
    forms_in(&root().join("conformance-tests/lowering"), &mut lowered);
    let missing: Vec<_> = all.difference(&lowered).collect();
    assert!(
        missing.is_empty(),
        "forms without a lowering case: {missing:?}"
    );
}

/// With an in-memory loader the entry's folder is the root too: `../` escapes it (307), and
/// a file imported twice (a diamond, not a cycle) is read once.
#[test]
fn memory_loader_containment_and_diamonds() {
    let mut loader = MemoryLoader::new();
    loader.insert("../outside.mcpr", "Flow: \"Out\"\n  Send \"ping\"\n");
    loader.insert("a.mcpr", "Import flows from \"./c.mcpr\"\n");
    loader.insert("b.mcpr", "Import flows from \"./c.mcpr\"\n");
    loader.insert("c.mcpr", "Flow: \"C\"\n  Send \"ping\"\n");
    let main = "Server: x\nImport flows from \"../outside.mcpr\"\nImport flows from \"./a.mcpr\"\nImport flows from \"./b.mcpr\"\nTest: \"t\"\n  Use flow \"C\"\n";
    let mut map = SourceMap::new();
    let id = map.add(SourceFile::new("main.mcpr", main));
    let compiled = lower::compile(&mut map, id, &loader, &Options::default());
    let found: Vec<_> = compiled
        .diagnostics
        .iter()
        .map(|d| {
            (
                d.code.as_str(),
                map.get(d.file).position(d.span.start as usize).line,
            )
        })
        .collect();
    assert_eq!(found, [("MCPLANG307", 2)]);
    assert_eq!(map.files().len(), 4, "c.mcpr is read once");
}

/// Lines that make generated files exercise every part of lowering, valid or not.
fn line() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    prop_oneof![
        Just("Server: node s.js\n"),
        Just("Named server \"a\": node a.js\n"),
        Just("Server options:\n  cwd: x\n  headers:\n    A: b\n"),
        Just("Import flows from \"./lib.mcpr\"\n"),
        Just("Import flows from \"../x.mcpr\"\n"),
        Just("Flow: \"f\"\n"),
        Just("Flow: \"g\"\n"),
        Just("  Inputs: a, b=1\n"),
        Just("  Use flow \"f\" with:\n    a: \"${x}\"\n"),
        Just("  Use flow \"g\"\n"),
        Just("Test: \"t\"\n"),
        Just("Test: \"u\"\n"),
        Just("  Id: t\n"),
        Just("  Depends on: t, u, v\n"),
        Just("  Skip\n"),
        Just("  Variables:\n    x: 1\n"),
        Just("  Call tool \"c\" with:\n    a: \"${a}\"\n    d: \"${deps.t.k}\"\n"),
        Just("  Expect \"a..b\" equals 2\n"),
        Just("  Expect \"x\" contains [1, 2]\n"),
        Just("  Save \"id\" as \"x\"\n"),
        Just("  Export \"id\" as \"k\"\n"),
        Just("  Set \"y\" using \"trimm\" with:\n    value: \"${x}\"\n"),
        Just("  Cleanup:\n"),
        Just("  For each row:\n    | a | b |\n    | 1 | 2 |\n"),
        Just("  For each row from \"d\"\n"),
        Just(
            "Data source: \"d\"\n  From CSV \"d.csv\"\n  Keep rows where \"a\" is greater than x\n"
        ),
        Just("Data source: \"e\"\n  provider: nope\n"),
        Just("  ${\n"),
        Just("\t\n"),
        Just("   odd\n"),
    ]
    .prop_map(str::to_string)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// Lowering never panics, and every diagnostic points inside its file.
    #[test]
    fn lowering_never_panics(lines in proptest::collection::vec(line(), 0..30)) {
        let text = lines.concat();
        let mut loader = MemoryLoader::new();
        loader.insert("lib.mcpr", "Import flows from \"./main.mcpr\"\nFlow: \"g\"\n  Use flow \"f\"\n");
        loader.insert("main.mcpr", text.clone());
        let mut map = SourceMap::new();
        let id = map.add(SourceFile::new("main.mcpr", text));
        let compiled = lower::compile(&mut map, id, &loader, &Options { pedantic: true, ..Options::default() });
        for d in &compiled.diagnostics {
            let len = map.get(d.file).text().len();
            proptest::prop_assert!(d.span.end as usize <= len, "{d:?}");
        }
        if let Some(suite) = compiled.suite {
            let ir = serde_json::to_value(&suite).unwrap();
            let errors = schema_errors(&validator(), &ir);
            proptest::prop_assert!(errors.is_empty(), "{errors:#?}");
        }
    }
}

/// The example files of a page section: its ```mcpr, ```yaml, ```json and ```js blocks, each
/// with its file name (a `` `name`: `` line before the block, else `suite.mcpr`, `suite.yaml`
/// or `suite.json` by the block's language; a function module is always named).
fn page_files(page: &str, from: &str, to: &str) -> Vec<(String, String)> {
    let Some(start) = page.find(from) else {
        return Vec::new();
    };
    let section = &page[start..];
    let section = &section[..section.find(to).unwrap_or(section.len())];
    let mut out = Vec::new();
    let mut name: Option<String> = None;
    let mut lines = section.lines();
    while let Some(l) = lines.next() {
        if let Some(n) = l.strip_prefix('`').and_then(|r| r.strip_suffix("`:")) {
            name = Some(n.to_string());
        } else if let Some(lang @ ("mcpr" | "mcp" | "yaml" | "json" | "js")) = l.strip_prefix("```")
        {
            let body: Vec<&str> = lines.by_ref().take_while(|l| *l != "```").collect();
            let file = name.take().unwrap_or_else(|| format!("suite.{lang}"));
            out.push((file, body.join("\n") + "\n"));
        }
    }
    out
}

fn page_codes(files: &[(String, String)]) -> Vec<&'static str> {
    let mut loader = MemoryLoader::new();
    for (name, text) in files {
        loader.insert(name, text.clone());
    }
    let is_main = |n: &str| {
        n.rsplit('/')
            .next()
            .is_some_and(|b| b.starts_with("suite."))
    };
    let Some((main, text)) = files.iter().find(|(n, _)| is_main(n)) else {
        return Vec::new();
    };
    let mut map = SourceMap::new();
    let id = map.add(SourceFile::new(main.clone(), text.clone()));
    let options = Options {
        pedantic: true,
        ..Options::default()
    };
    lower::compile(&mut map, id, &loader, &options)
        .diagnostics
        .iter()
        .map(|d| d.code.as_str())
        .collect()
}

/// The pages of the lowering codes (3xx and up) show an example that triggers the code and a
/// fix that does not, files of several-file examples included.
#[test]
fn lowering_pages_show_a_real_example_and_a_real_fix() {
    use mcpr_compiler::diagnostics::Code;
    let mut failures = Vec::new();
    // 305, 306, 607 and 609 need a large file, 65 files or a size-limit option; their cases
    // are in the corpora.
    for code in Code::ALL
        .iter()
        .filter(|c| c.number() >= 300 && ![305, 306, 607, 609].contains(&c.number()))
    {
        let page = code.doc();
        let example = page_files(page, "## Example", "## What mcpr prints");
        if !page_codes(&example).contains(&code.as_str()) {
            failures.push(format!("{code}: the example does not trigger it"));
        }
        let mut fixed = example.clone();
        for (name, text) in page_files(page, "## How to fix it", "## Replaces") {
            match fixed.iter_mut().find(|(n, _)| *n == name) {
                Some(slot) => slot.1 = text,
                None => fixed.push((name, text)),
            }
        }
        if page_codes(&fixed).contains(&code.as_str()) {
            failures.push(format!("{code}: the fix still triggers it"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every `.mcpr` file of the corpora compiles to the same IR and the same diagnostics on
/// one thread and on several (large files are parsed and lowered in parts).
#[test]
fn compiling_in_parts_gives_the_same_result() {
    let files = common::mcpr_files(
        &root(),
        &[
            "conformance-tests/lowering",
            "conformance-tests/compiler",
            "examples",
        ],
    );
    assert!(files.len() > 50, "found only {} files", files.len());
    let mut tests_seen = 0;
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let loader = common::DirLoader(path.parent().unwrap().to_path_buf());
        let run = |threads: usize| {
            let mut map = SourceMap::new();
            let id = map.add(SourceFile::new("main.mcpr", text.clone()));
            let options = Options {
                threads,
                ..Options::default()
            };
            let c = lower::compile(&mut map, id, &loader, &options);
            let ir = c.suite.map(|s| serde_json::to_value(&s).unwrap());
            (ir, c.diagnostics)
        };
        let one = run(1);
        if let Some(ir) = &one.0 {
            tests_seen += ir["tests"].as_array().map_or(0, Vec::len);
        }
        for threads in [2, 3, 8] {
            let many = run(threads);
            assert_eq!(one.0, many.0, "{} on {threads} threads", path.display());
            assert_eq!(one.1, many.1, "{} on {threads} threads", path.display());
        }
    }
    assert!(tests_seen > 50, "only {tests_seen} tests compiled");
}
