//! The language conformance corpus (`conformance-tests/compiler/`): files that
//! must check clean, and files whose expected diagnostics are written in them
//! as `# expect: MCPLANG102 8:1` comments. Adding a case needs no Rust.

use mcpr_compiler::diagnostics::{Code, render};
use mcpr_compiler::source::SourceFile;
use mcpr_compiler::{SourceMap, check};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../conformance-tests/compiler")
        .canonicalize()
        .unwrap()
}

fn mcpr_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            mcpr_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "mcpr") {
            out.push(p);
        }
    }
}

/// Display name relative to the repository, stable on every machine.
fn shown(path: &Path) -> String {
    let rel = path.canonicalize().unwrap();
    let rel = rel.strip_prefix(corpus()).unwrap();
    format!(
        "conformance-tests/compiler/{}",
        rel.to_string_lossy().replace('\\', "/")
    )
}

fn load(path: &Path) -> (SourceMap, usize) {
    let mut map = SourceMap::new();
    let text = std::fs::read_to_string(path).unwrap();
    let id = map.add(SourceFile::new(shown(path), text));
    (map, id)
}

/// `(code, line, column)` triples, in file order.
fn actual(path: &Path) -> Vec<(String, u32, u32)> {
    let (map, id) = load(path);
    check(&map, id)
        .iter()
        .map(|d| {
            let p = map.get(d.file).position(d.span.start as usize);
            (d.code.as_str().to_string(), p.line, p.column)
        })
        .collect()
}

fn expected(path: &Path) -> Vec<(String, u32, u32)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.trim().strip_prefix("# expect:") else {
            continue;
        };
        let mut parts = rest.split_whitespace();
        let code = parts.next().expect("code after # expect:").to_string();
        let pos = parts.next().expect("line:column after the code");
        let (l, c) = pos.split_once(':').expect("line:column");
        out.push((code, l.parse().unwrap(), c.parse().unwrap()));
    }
    out.sort();
    out
}

#[test]
fn valid_files_check_clean() {
    let mut files = Vec::new();
    mcpr_files(&corpus().join("valid"), &mut files);
    assert!(files.len() >= 10, "the valid corpus is missing");
    let mut failures = Vec::new();
    for f in &files {
        let got = actual(f);
        if !got.is_empty() {
            failures.push(format!("{}: {got:?}", shown(f)));
        }
    }
    assert!(
        failures.is_empty(),
        "valid files with diagnostics:\n{}",
        failures.join("\n")
    );
}

#[test]
fn invalid_files_report_exactly_their_expectations() {
    let mut files = Vec::new();
    mcpr_files(&corpus().join("invalid"), &mut files);
    let mut failures = Vec::new();
    for f in &files {
        let want = expected(f);
        assert!(!want.is_empty(), "{} has no `# expect:` lines", shown(f));
        let mut got = actual(f);
        got.sort();
        if got != want {
            failures.push(format!(
                "{}\n  expected {want:?}\n  actual   {got:?}",
                shown(f)
            ));
        }
    }
    assert!(failures.is_empty(), "mismatches:\n{}", failures.join("\n"));
}

#[test]
fn every_code_has_a_case_and_a_page() {
    let mut files = Vec::new();
    mcpr_files(&corpus().join("invalid"), &mut files);
    let covered: BTreeSet<String> = files
        .iter()
        .flat_map(|f| expected(f))
        .map(|(c, _, _)| c)
        .collect();
    let missing: Vec<_> = Code::ALL
        .iter()
        .filter(|c| !covered.contains(c.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "codes without a conformance case: {missing:?}"
    );

    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/diagnostics");
    for code in Code::ALL {
        let page = code.doc();
        assert!(
            page.starts_with(&format!("# {}: {}", code.as_str(), code.title())),
            "{code}: page must start with `# {code}: {}`",
            code.title()
        );
    }
    for entry in std::fs::read_dir(docs).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().to_string();
        if let Some(stem) = name
            .strip_suffix(".md")
            .filter(|s| s.starts_with("MCPLANG"))
        {
            assert!(
                stem.parse::<Code>().is_ok(),
                "docs/diagnostics/{name} documents no registered code"
            );
        }
    }
}

#[test]
fn human_renderings() {
    insta::glob!(
        "../../conformance-tests/compiler",
        "invalid/*.mcpr",
        |path| {
            let (map, id) = load(path);
            let diags = check(&map, id);
            insta::assert_snapshot!(render::human(&diags, &map, false));
        }
    );
}

#[test]
fn other_renderings() {
    let path = corpus().join("invalid/209-malformed-table.mcpr");
    let (map, id) = load(&path);
    let diags = check(&map, id);
    insta::assert_snapshot!("short", render::short(&diags, &map));
    insta::assert_snapshot!("github", render::github(&diags, &map));
    insta::assert_json_snapshot!("json", render::json(&diags, &map, 1));
}

/// Every statement form of the language (the `form` tag of the tree), which
/// the valid corpus must exercise at least once.
const FORMS: &[&str] = &[
    "versionHeader",
    "suite",
    "server",
    "mcpUrl",
    "serverOptions",
    "namedServer",
    "serverOptionsFor",
    "compareTarget",
    "targetOptionsFor",
    "defaultTimeout",
    "budget",
    "redact",
    "snapshots",
    "ignoreSnapshotPaths",
    "clientBehavior",
    "functions",
    "importFlows",
    "flowHeader",
    "dataSourceHeader",
    "testHeader",
    "inputs",
    "outputs",
    "id",
    "onServer",
    "skip",
    "variables",
    "require",
    "requireProtocol",
    "dependsOn",
    "setup",
    "steps",
    "cleanup",
    "callTool",
    "callToolWithProgress",
    "readResource",
    "getPrompt",
    "send",
    "subscribe",
    "unsubscribe",
    "waitForNotification",
    "setLogLevel",
    "listAll",
    "getTask",
    "listTasks",
    "cancelTask",
    "respondToElicitation",
    "respondToSampling",
    "setUsing",
    "useFlow",
    "forEachRow",
    "forEachRowIn",
    "forEachRowFrom",
    "expectSuccess",
    "expectError",
    "expectErrorCode",
    "expectErrorMessage",
    "expectFinishWithin",
    "expectValue",
    "expectExists",
    "expectLength",
    "expectType",
    "expectMatchesSchema",
    "expectSnapshot",
    "save",
    "export",
    "waitUpTo",
    "from",
    "fromRest",
    "column",
    "derive",
    "keepRowsWhere",
    "sample",
    "sampleSeeded",
    "cache",
    "comment",
];

#[test]
fn valid_corpus_exercises_every_form() {
    let mut files = Vec::new();
    mcpr_files(&corpus().join("valid"), &mut files);
    let mut seen = BTreeSet::new();
    for f in &files {
        let (map, id) = load(f);
        let parsed = mcpr_compiler::syntax::parse(map.get(id), id);
        for node in parsed.document.walk() {
            let v = serde_json::to_value(&node.stmt).unwrap();
            seen.insert(v["form"].as_str().unwrap().to_string());
        }
    }
    let missing: Vec<_> = FORMS.iter().filter(|f| !seen.contains(**f)).collect();
    assert!(missing.is_empty(), "forms no valid file uses: {missing:?}");
    let unknown: Vec<_> = seen
        .iter()
        .filter(|f| !FORMS.contains(&f.as_str()))
        .collect();
    assert!(
        unknown.is_empty(),
        "forms missing from this test's list: {unknown:?}"
    );
}

/// `grammar/mcpr.ebnf` has a rule for every statement rule of the parser
/// (the functions registered in `Grammar::new`), so the two stay in step.
#[test]
fn ebnf_names_every_parser_rule() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let grammar_rs = std::fs::read_to_string(root.join("src/syntax/grammar.rs")).unwrap();
    let ebnf = std::fs::read_to_string(root.join("../grammar/mcpr.ebnf")).unwrap();
    let table = &grammar_rs[grammar_rs.find("pub fn new(src").expect("Grammar::new")..];
    let table = &table[..table.find("let groups").expect("end of the rule table")];
    // Rule constructors are the calls `name()` / `name(src)` that are not
    // method calls (`.clone()`) or paths (`HashMap::new()`).
    let mut rules = BTreeSet::new();
    for pat in ["(src)", "()"] {
        let mut from = 0;
        while let Some(at) = table[from..].find(pat) {
            let end = from + at;
            let name: String = table[..end]
                .chars()
                .rev()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            let before = table[..end - name.len()].chars().next_back();
            if !name.is_empty() && !matches!(before, Some('.') | Some(':')) {
                rules.insert(name);
            }
            from = end + pat.len();
        }
    }
    assert!(
        rules.len() >= 60,
        "found only {} parser rules: {rules:?}",
        rules.len()
    );
    let defined: BTreeSet<String> = ebnf
        .lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let (name, rest) = l.split_once('=')?;
            let name = name.trim();
            (!name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !rest.starts_with('='))
            .then(|| name.to_string())
        })
        .collect();
    let missing: Vec<_> = rules.iter().filter(|r| !defined.contains(*r)).collect();
    assert!(
        missing.is_empty(),
        "grammar/mcpr.ebnf lacks rules for: {missing:?}"
    );
}
