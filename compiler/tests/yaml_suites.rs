//! The YAML/JSON suite corpus (`conformance-tests/yaml/`): files in `valid/` must lower clean
//! to an IR that validates against the schema and keeps every member the file wrote; files
//! in `invalid/` report exactly the diagnostics written in them as `# expect: CODE line:col`
//! comments (in a `.json` file, which cannot hold comments, in a `.expect` file next to it).
//! Adding a case needs no Rust.

mod common;

use mcpr_compiler::SourceMap;
use mcpr_compiler::diagnostics::{Diagnostic, render};
use mcpr_compiler::ir::{SCHEMA_TEXT, Suite};
use mcpr_compiler::lower::{self, MemoryLoader, Options};
use mcpr_compiler::source::SourceFile;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../conformance-tests/yaml")
        .canonicalize()
        .unwrap()
}

fn is_suite_file(p: &Path) -> bool {
    p.is_file()
        && p.extension()
            .is_some_and(|e| e == "yaml" || e == "yml" || e == "json")
}

fn files(dir: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(corpus().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| is_suite_file(p))
        .collect();
    out.sort();
    out
}

fn shown(path: &Path) -> String {
    let rel = path.strip_prefix(corpus()).unwrap();
    format!(
        "conformance-tests/yaml/{}",
        rel.to_string_lossy().replace('\\', "/")
    )
}

/// Compiles a case with the options of its `# check:` lines.
fn compile(path: &Path) -> (SourceMap, lower::Compiled) {
    let text = std::fs::read_to_string(path).unwrap();
    let options = common::check_options(&text);
    let mut map = SourceMap::new();
    let id = map.add(SourceFile::new(shown(path), text));
    let compiled = lower::compile(&mut map, id, &MemoryLoader::new(), &options);
    (map, compiled)
}

fn positions(map: &SourceMap, diags: &[Diagnostic]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = diags
        .iter()
        .map(|d| {
            let p = map.get(d.file).position(d.span.start as usize);
            (
                d.code.as_str().to_string(),
                format!("{}:{}", p.line, p.column),
            )
        })
        .collect();
    out.sort();
    out
}

/// The `# expect:` lines of a case (for `.json` cases, of `NAME.json.expect`).
fn expected(path: &Path) -> Vec<(String, String)> {
    let text = if path.extension().is_some_and(|e| e == "json") {
        let mut side = path.as_os_str().to_owned();
        side.push(".expect");
        std::fs::read_to_string(PathBuf::from(side))
            .unwrap_or_else(|_| panic!("{} needs a .expect file", shown(path)))
    } else {
        std::fs::read_to_string(path).unwrap()
    };
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.trim().strip_prefix("# expect:") else {
            continue;
        };
        let mut parts = rest.split_whitespace();
        let code = parts.next().expect("code after # expect:").to_string();
        let pos = parts
            .next()
            .expect("line:column after the code")
            .to_string();
        out.push((code, pos));
    }
    out.sort();
    out
}

fn validator() -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(SCHEMA_TEXT).unwrap();
    jsonschema::draft202012::new(&schema).unwrap()
}

/// The document as plain JSON, read straight with serde-saphyr (YAML 1.2 booleans, as the
/// compiler reads it) rather than through the compiler's located tree.
fn document(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    let mut options = serde_saphyr::Options::default();
    options.strict_booleans = true;
    serde_saphyr::from_str_with_options::<Value>(&text, options).unwrap()
}

#[test]
fn valid_files_lower_clean_and_keep_every_member() {
    let files = files("valid");
    assert!(files.len() >= 8, "the valid YAML corpus is missing");
    let v = validator();
    let mut failures = Vec::new();
    for f in &files {
        let (map, compiled) = compile(f);
        if !compiled.diagnostics.is_empty() {
            failures.push(format!(
                "{}:\n{}",
                shown(f),
                render::short(&compiled.diagnostics, &map)
            ));
            continue;
        }
        let Some(suite) = compiled.suite else {
            failures.push(format!("{}: no suite", shown(f)));
            continue;
        };
        let ir = serde_json::to_value(&suite).unwrap();
        let errors: Vec<String> = v
            .iter_errors(&ir)
            .map(|e| format!("{}: {e}", e.instance_path().as_str()))
            .collect();
        if !errors.is_empty() {
            failures.push(format!("{}: IR breaks the schema: {errors:?}", shown(f)));
        }
        // The IR is the file: nothing dropped, nothing added but the position of each step
        // that has none (the line of its first key) ...
        let doc = document(f);
        let text = map.get(0).text();
        let mut ir = ir;
        // ... and the IR's layout version, which the compiler always writes (docs/ir.md).
        assert_eq!(ir["irVersion"], 1, "{}: no irVersion", shown(f));
        if doc.get("irVersion").is_none() {
            ir.as_object_mut().unwrap().remove("irVersion");
        }
        for (i, t) in ir["tests"].as_array_mut().unwrap().iter_mut().enumerate() {
            for (j, step) in t["steps"].as_array_mut().unwrap().iter_mut().enumerate() {
                if doc["tests"][i]["steps"][j].get("source").is_some() {
                    continue;
                }
                let source = step.as_object_mut().unwrap().remove("source").unwrap();
                assert_eq!(source["file"], shown(f), "{}", shown(f));
                let line = text
                    .lines()
                    .nth(source["line"].as_u64().unwrap() as usize - 1)
                    .unwrap();
                let first_key = doc["tests"][i]["steps"][j]
                    .as_object()
                    .unwrap()
                    .keys()
                    .next()
                    .unwrap()
                    .clone();
                // At the first key of a block mapping, or at the `{` of a flow mapping.
                let column = source["column"].as_u64().unwrap() as usize;
                let at: String = line.chars().skip(column - 1).collect();
                assert!(
                    at.starts_with(&first_key)
                        || at.starts_with(&format!("\"{first_key}\""))
                        || at.starts_with('{'),
                    "{}: step {i}.{j} is located at {at:?}",
                    shown(f)
                );
            }
        }
        if ir != doc {
            failures.push(format!(
                "{}: the IR differs from the document:\n{}",
                shown(f),
                serde_json::to_string_pretty(&ir).unwrap()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn invalid_files_report_exactly_their_expectations() {
    let files = files("invalid");
    assert!(files.len() >= 8, "the invalid YAML corpus is missing");
    let mut failures = Vec::new();
    for f in &files {
        let want = expected(f);
        assert!(!want.is_empty(), "{} has no `# expect:` lines", shown(f));
        let (map, compiled) = compile(f);
        let got = positions(&map, &compiled.diagnostics);
        if got != want {
            failures.push(format!(
                "{}\n  expected {want:?}\n  actual   {got:?}\n{}",
                shown(f),
                render::short(&compiled.diagnostics, &map)
            ));
        }
        if compiled.diagnostics.iter().any(Diagnostic::is_error) && compiled.suite.is_some() {
            failures.push(format!("{}: a suite despite errors", shown(f)));
        }
    }
    assert!(failures.is_empty(), "mismatches:\n{}", failures.join("\n"));
}

/// `check` judges each test as it is read and drops its steps; it reports what a whole
/// compile reports, for every suite of the corpus, valid or not, and for the corpus's
/// suites with their tests repeated (so a test past the first is judged the same).
#[test]
fn check_reports_what_a_whole_compile_reports() {
    let mut compared = 0;
    for f in files("valid").iter().chain(&files("invalid")) {
        let text = std::fs::read_to_string(f).unwrap();
        let options = common::check_options(&text);
        let mut texts = vec![text.clone()];
        // The same tests again after the first ones: a YAML block sequence at the top.
        if let Some(at) = text.find("\ntests:\n") {
            let tests = &text[at + "\ntests:\n".len()..];
            // The items end at the first line at the left margin that is not an item.
            let mut end = 0;
            for line in tests.split_inclusive('\n') {
                if !line.starts_with([' ', '-', '#', '\n']) {
                    break;
                }
                end += line.len();
            }
            let (items, rest) = tests.split_at(end);
            let doubled = format!("{}{items}{items}{rest}", &text[..at + "\ntests:\n".len()]);
            texts.push(doubled);
        }
        for text in texts {
            let mut map = SourceMap::new();
            let id = map.add(SourceFile::new(shown(f), text.clone()));
            let whole = lower::compile(&mut map, id, &MemoryLoader::new(), &options);
            let checked = mcpr_compiler::check(&mut map, id, &MemoryLoader::new(), &options);
            assert_eq!(
                positions(&map, &checked.worded),
                positions(&map, &whole.diagnostics),
                "{}\n{text}",
                shown(f)
            );
            compared += 1;
        }
    }
    assert!(compared > 40, "{compared} suites compared");
}

/// Every IR the `.mcpr` lowering corpus expects is itself a valid JSON suite: read back
/// through the YAML/JSON lowering it is the same IR (this is how `mcpr run` reads
/// `mcpr compile --emit ir` output).
#[test]
fn compiled_ir_reads_back_unchanged() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance-tests/lowering");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("expected.ir.json").is_file())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 5);
    for d in dirs {
        let path = d.join("expected.ir.json");
        let text = std::fs::read_to_string(&path).unwrap();
        let mut map = SourceMap::new();
        let id = map.add(SourceFile::new("expected.ir.json", text.clone()));
        let compiled = lower::compile(&mut map, id, &MemoryLoader::new(), &Options::default());
        assert!(
            compiled.diagnostics.is_empty(),
            "{}: {}",
            path.display(),
            render::short(&compiled.diagnostics, &map)
        );
        let want: Suite = serde_json::from_str(&text).unwrap();
        assert_eq!(compiled.suite.as_ref(), Some(&want), "{}", path.display());
    }
}

/// The same IRs written as YAML by a YAML serializer (quoting `${…}`, `$.…`, `yes`, `007`
/// wherever YAML needs it) read back to the same IR.
#[test]
fn compiled_ir_as_yaml_reads_back_unchanged() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance-tests/lowering");
    let mut count = 0;
    for entry in std::fs::read_dir(&root).unwrap() {
        let path = entry.unwrap().path().join("expected.ir.json");
        if !path.is_file() {
            continue;
        }
        let want: Suite = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let yaml = serde_saphyr::to_string(&want).unwrap();
        let mut map = SourceMap::new();
        let id = map.add(SourceFile::new("suite.yaml", yaml.clone()));
        let compiled = lower::compile(&mut map, id, &MemoryLoader::new(), &Options::default());
        assert!(
            compiled.diagnostics.is_empty(),
            "{}:\n{yaml}\n{}",
            path.display(),
            render::short(&compiled.diagnostics, &map)
        );
        assert_eq!(
            compiled.suite.as_ref(),
            Some(&want),
            "{}:\n{yaml}",
            path.display()
        );
        count += 1;
    }
    assert!(count >= 5);
}

#[test]
fn human_renderings() {
    insta::glob!(
        "../../conformance-tests/yaml",
        "invalid/*.{yaml,yml,json}",
        |path| {
            let (map, compiled) = compile(path);
            insta::assert_snapshot!(render::human(&compiled.diagnostics, &map, false));
        }
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// Any text — YAML-like fragments glued at random — lowers without panicking, every
    /// diagnostic lies inside the text, and a suite comes out only without errors.
    #[test]
    fn arbitrary_text_never_panics(
        parts in proptest::collection::vec(
            proptest::sample::select(vec![
                "version: 1\n", "target:\n", "  transport: stdio\n", "  command: node\n",
                "tests:\n", "  - name: a\n", "    steps:\n", "      - tool: {name: x}\n",
                "      - request:\n", "          method: ping\n", "        assert:\n",
                "          json: [{path: $.a, equals: 1}]\n", "    dependsOn: [a]\n",
                "&a ", "*a ", "<<: ", "{", "}", "[", "]", ",", ": ", "- ", "\"", "'", "#x",
                "\t", "é", "\n", "  ", "---\n", "null", "~", "1e9", "-", "?", ":",
            ]),
            0..40,
        ),
        json in proptest::bool::ANY,
    ) {
        let text: String = parts.concat();
        let name = if json { "fuzz.json" } else { "fuzz.yaml" };
        let mut map = SourceMap::new();
        let id = map.add(SourceFile::new(name, text.clone()));
        let compiled = lower::compile(&mut map, id, &MemoryLoader::new(), &Options::default());
        for d in &compiled.diagnostics {
            proptest::prop_assert!(d.span.start <= d.span.end, "{d:?}");
            proptest::prop_assert!(d.span.end as usize <= text.len(), "{d:?}");
            proptest::prop_assert!(text.is_char_boundary(d.span.start as usize), "{d:?}");
            proptest::prop_assert!(text.is_char_boundary(d.span.end as usize), "{d:?}");
        }
        let failed = compiled.diagnostics.iter().any(Diagnostic::is_error);
        proptest::prop_assert!(!(failed && compiled.suite.is_some()));
    }
}
