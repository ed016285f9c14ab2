//! Conversion round trips over every corpus of suites.
//!
//! For each source file: IR(file) == IR(print(IR(file))), the same through JSON and YAML text
//! (`mcpr convert --to json|yaml` output compiled back, which must check clean), the printed
//! file checks clean (but for the "never read" warnings, see [`UNREAD`]), and
//! printing is idempotent: print(IR(print(x))) == print(x). IRs are compared after
//! [`fmt::canonical`]: source positions, flow frames and `irVersion` removed, and the defaults
//! a YAML suite may leave unwritten spelled out as the runtime applies them (an absent test id
//! is the slug of the name, an absent phase is the test phase, …). Everything the runtime acts
//! on must be equal.
//!
//! The corpora are listed in [`corpora`]: every `.mcpr` corpus, the YAML/JSON suites of
//! `conformance-tests/yaml/valid` and `conformance-tests/convert`, and the legacy `.mcp`
//! scripts of `conformance-tests/legacy/valid`; each is compiled by [`lower::compile`], as
//! `mcpr convert` compiles its input.

use mcpr_compiler::SourceMap;
use mcpr_compiler::fmt;
use mcpr_compiler::ir::Suite;
use mcpr_compiler::lower::{self, MemoryLoader, Options};
use mcpr_compiler::source::SourceFile;
use std::path::{Path, PathBuf};

mod common;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Files with extension `ext` directly in `dir` (relative to the repository root), sorted.
fn files(dir: &str, ext: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == ext))
        .collect();
    out.sort();
    out
}

/// `main.mcpr` of every case folder below `dir`.
fn case_mains(dir: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path().join("main.mcpr"))
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    out
}

/// Every suite file whose IR must survive conversion.
fn corpora() -> Vec<PathBuf> {
    let mut all = Vec::new();
    all.extend(files("conformance-tests/compiler/valid", "mcpr"));
    all.extend(case_mains("conformance-tests/lowering"));
    all.extend(files("conformance-tests/runtime", "mcpr"));
    all.extend(files("examples", "mcpr"));
    all.extend(files("conformance-tests/convert", "yaml"));
    for ext in ["yaml", "yml", "json"] {
        all.extend(files("conformance-tests/yaml/valid", ext));
    }
    all.extend(files("conformance-tests/legacy/valid", "mcp"));
    all
}

/// Compiles a file from disk through [`lower::compile`], whatever its format (`.mcpr` with
/// its imports next to it, YAML/JSON suites, legacy `.mcp` scripts); `None` for a flow
/// library.
fn compile_file(path: &Path) -> Option<Suite> {
    let text = std::fs::read_to_string(path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let mut map = SourceMap::new();
    let id = map.add(SourceFile::new(name, text));
    let dir = path.parent().unwrap().to_path_buf();
    let compiled = lower::compile(&mut map, id, &common::DirLoader(dir), &Options::default());
    assert!(
        !compiled.diagnostics.iter().any(|d| d.is_error()),
        "{}: {}",
        path.display(),
        mcpr_compiler::diagnostics::render::short(&compiled.diagnostics, &map)
    );
    compiled.suite
}

/// "Never read" warnings: a variable the suite declares (MCPLANG903) or saves (MCPLANG902)
/// that no later step reads. They describe the suite, not the printing: a YAML suite that
/// captures a value nobody reads gets them once it is `.mcpr` (YAML lowering does not run
/// that check), and the printer must not drop the capture to silence them.
const UNREAD: [u16; 2] = [902, 903];

/// Compiles printed text; every diagnostic (warnings too) is a failure, except the "never
/// read" warnings ([`UNREAD`]) about what the suite itself saves or declares.
fn compile_text(label: &str, text: &str) -> Result<Suite, String> {
    let mut map = SourceMap::new();
    let id = map.add(SourceFile::new("printed.mcpr", text.to_string()));
    let compiled = lower::compile(&mut map, id, &MemoryLoader::default(), &Options::default());
    if compiled
        .diagnostics
        .iter()
        .any(|d| d.is_error() || !UNREAD.contains(&d.code.number()))
    {
        return Err(format!(
            "{label}: the printed file does not check clean:\n{}\n--- printed ---\n{text}",
            mcpr_compiler::diagnostics::render::short(&compiled.diagnostics, &map)
        ));
    }
    compiled
        .suite
        .ok_or_else(|| format!("{label}: the printed file has no suite"))
}

/// Compiles a converted YAML or JSON document (`name` gives the format); any diagnostic is a
/// failure.
fn compile_document(label: &str, name: &str, text: &str) -> Result<Suite, String> {
    let mut map = SourceMap::new();
    let id = map.add(SourceFile::new(name, text.to_string()));
    let compiled = lower::compile(&mut map, id, &MemoryLoader::default(), &Options::default());
    if !compiled.diagnostics.is_empty() {
        return Err(format!(
            "{label}: the converted {name} does not check clean:\n{}\n--- converted ---\n{text}",
            mcpr_compiler::diagnostics::render::short(&compiled.diagnostics, &map)
        ));
    }
    compiled
        .suite
        .ok_or_else(|| format!("{label}: the converted {name} has no suite"))
}

/// Compares two IRs after [`fmt::canonical`].
fn same(label: &str, how: &str, want: &Suite, got: &Suite) -> Result<(), String> {
    let (a, b) = (fmt::canonical(want), fmt::canonical(got));
    if a == b {
        return Ok(());
    }
    let a = serde_json::to_string_pretty(&a).unwrap();
    let b = serde_json::to_string_pretty(&b).unwrap();
    let first = a
        .lines()
        .zip(b.lines())
        .position(|(x, y)| x != y)
        .unwrap_or(0);
    Err(format!(
        "{label}: IR changed through {how}; first difference at line {}:\n  want: {}\n  got:  {}",
        first + 1,
        a.lines().nth(first).unwrap_or(""),
        b.lines().nth(first).unwrap_or("")
    ))
}

fn round_trip(path: &Path) -> Result<(), String> {
    let label = path
        .strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string();
    let Some(ir) = compile_file(path) else {
        return Ok(());
    };
    // .mcpr (the checked printer also proves the round trip itself)
    let printed = fmt::to_mcpr_checked(&ir)
        .map_err(|e| format!("{label}: {e}\n--- printed ---\n{}", fmt::print::suite(&ir)))?;
    let reprinted_ir = compile_text(&label, &printed)?;
    same(&label, ".mcpr", &ir, &reprinted_ir)
        .map_err(|e| format!("{e}\n--- printed ---\n{printed}"))?;
    let again = fmt::print::suite(&reprinted_ir);
    if again != printed {
        return Err(format!(
            "{label}: printing is not idempotent\n--- first ---\n{printed}\n--- second ---\n{again}"
        ));
    }
    // JSON and YAML, each compiled as `mcpr check` and `mcpr run` read them (strict YAML,
    // schema, located diagnostics): the converted file must check clean.
    let json = fmt::to_json(&ir);
    let from_json = compile_document(&label, "converted.json", &json)?;
    same(&label, "JSON", &ir, &from_json)?;
    let yaml = fmt::to_yaml(&ir);
    let from_yaml = compile_document(&label, "converted.yaml", &yaml)?;
    same(&label, "YAML", &ir, &from_yaml).map_err(|e| format!("{e}\n--- yaml ---\n{yaml}"))?;
    // The suite read back from YAML prints the same as the original.
    if fmt::print::suite(&from_yaml) != printed {
        return Err(format!("{label}: printing the YAML-read suite differs"));
    }
    Ok(())
}

#[test]
fn every_corpus_file_survives_every_conversion() {
    let files = corpora();
    assert!(files.len() >= 40, "corpora missing: {}", files.len());
    let failures: Vec<String> = files.iter().filter_map(|f| round_trip(f).err()).collect();
    assert!(
        failures.is_empty(),
        "{} of {} files failed:\n\n{}",
        failures.len(),
        files.len(),
        failures.join("\n\n")
    );
}

/// What `.mcpr` cannot write is refused with the reason, never dropped silently.
#[test]
fn what_mcpr_cannot_carry_is_refused() {
    let suite = |test: &str| {
        let yaml =
            format!("version: 1\ntarget: {{transport: stdio, command: srv}}\ntests:\n{test}");
        // Built straight from the document: the YAML lowering would rightly reject some of
        // these IRs itself, and the point is what the printer does with them.
        let value = mcpr_compiler::yaml::parse_full(&yaml).unwrap();
        serde_json::from_value::<Suite>(value).unwrap()
    };
    for (test, needle) in [
        // A test name over two lines: no rest-of-line text holds it.
        (
            "  - name: \"two\\nlines\"\n    steps:\n      - tool: {name: a}\n",
            "does not compile",
        ),
        // An unclosed `${` is a malformed reference in .mcpr (MCPLANG105).
        (
            "  - name: t\n    steps:\n      - tool: {name: a, arguments: {v: \"${x\"}}\n",
            "MCPLANG105",
        ),
    ] {
        match fmt::to_mcpr_checked(&suite(test)) {
            Ok(text) => panic!("expected a refusal for {test:?}, printed:\n{text}"),
            Err(e) => assert!(e.contains("cannot carry") && e.contains(needle), "{e}"),
        }
    }
    // A named server whose name holds both kinds of quote: no quoted name holds it.
    let mut s = suite("  - name: t\n    steps:\n      - tool: {name: a}\n");
    let both = "it's \"both\"".to_string();
    s.servers = Some(
        [
            (both.clone(), s.target.clone().unwrap()),
            ("other".to_string(), s.target.clone().unwrap()),
        ]
        .into_iter()
        .collect(),
    );
    s.tests[0].server = Some(both);
    let e = fmt::to_mcpr_checked(&s).unwrap_err();
    assert!(e.contains("cannot carry"), "{e}");
}

/// A legacy script converts as `mcpr convert` converts it: each command a phrase does exactly
/// is written as that phrase below a comment holding its script line, the rest as `Run step
/// with:`. The text compiles to the script's suite but for those steps' names, and printing
/// that suite again gives the same text without the comments.
#[test]
fn legacy_scripts_convert_to_phrases_with_their_lines_as_comments() {
    let options = fmt::print::Options {
        names_as_comments: true,
    };
    let mut phrases = 0;
    for path in files("conformance-tests/legacy/valid", "mcp") {
        let label = path.file_name().unwrap().to_string_lossy().to_string();
        let ir = compile_file(&path).unwrap();
        let printed = fmt::to_mcpr_checked_with(&ir, options)
            .unwrap_or_else(|e| panic!("{label}: {e}\n{}", fmt::print::suite_with(&ir, options)));
        let back = compile_text(&label, &printed).unwrap();
        let uncommented: String = printed
            .lines()
            .filter(|l| !l.trim_start().starts_with('#'))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(fmt::print::suite(&back), uncommented, "{label}");
        // Every comment stands above a phrase, and names the script line of its step.
        let lines: Vec<&str> = printed.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(comment) = line.strip_prefix("  # ") else {
                continue;
            };
            let next = lines[i + 1..]
                .iter()
                .find(|l| !l.trim_start().starts_with('#'))
                .unwrap();
            assert!(!next.contains("Run step with:"), "{label}: {comment}");
            let step = ir.tests[0]
                .steps
                .iter()
                .find(|s| {
                    s.name
                        .as_deref()
                        .is_some_and(|n| n.lines().next() == Some(comment))
                })
                .unwrap_or_else(|| panic!("{label}: no step named {comment:?}"));
            assert!(step.name.is_some());
            phrases += 1;
        }
    }
    // ping, logging, call_tool_raw, complete, subscribe, wait_notification, get/cancel_task
    assert!(phrases >= 10, "only {phrases} commands became phrases");
}
