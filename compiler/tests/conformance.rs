//! The language conformance corpus (`conformance-tests/compiler/`): files that
//! must check clean, and files whose expected diagnostics are written in them
//! as `# expect: MCPLANG102 8:1` comments. Adding a case needs no Rust.

mod common;

use mcpr_compiler::diagnostics::{Code, Diagnostic, render};
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

/// Checks a case the way `mcpr check` does: imports are read from the repository (the shown
/// paths are relative to its root); `# check:` lines give the options (`--pedantic`,
/// `--max-file-size SIZE`).
fn run_check(path: &Path) -> (SourceMap, usize, Vec<Diagnostic>) {
    let (mut map, id) = load(path);
    let options = common::check_options(map.get(id).text());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let diags = check(&mut map, id, &common::DirLoader(root), &options).worded;
    (map, id, diags)
}

/// `(code, position)` pairs, in file order. The position is `line:column` in the case file,
/// or `path:line:column` (relative to the case's folder) in a file it imports.
fn actual(path: &Path) -> Vec<(String, String)> {
    let (map, id, diags) = run_check(path);
    let folder = format!("{}/", shown(path).rsplit_once('/').unwrap().0);
    diags
        .iter()
        .map(|d| {
            let f = map.get(d.file);
            let p = f.position(d.span.start as usize);
            let pos = if d.file == id {
                format!("{}:{}", p.line, p.column)
            } else {
                let rel = f.path().strip_prefix(&folder).unwrap_or(f.path());
                format!("{rel}:{}:{}", p.line, p.column)
            };
            (d.code.as_str().to_string(), pos)
        })
        .collect()
}

fn expected(path: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.trim().strip_prefix("# expect:") else {
            continue;
        };
        let mut parts = rest.split_whitespace();
        let code = parts.next().expect("code after # expect:").to_string();
        let pos = parts.next().expect("line:column after the code");
        assert!(
            pos.contains(':'),
            "{}: `{pos}` is not line:column",
            path.display()
        );
        out.push((code, pos.to_string()));
    }
    out.sort();
    out
}

/// The case files of the invalid corpus: the `.mcpr` files directly in `invalid/` (its
/// subfolders hold files that cases import).
fn invalid_cases() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus().join("invalid"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "mcpr"))
        .collect();
    files.sort();
    files
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
    let files = invalid_cases();
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

/// The codes expected by the cases of the other surface formats' corpora, which their own
/// tests run: `conformance-tests/yaml/invalid/` (`# expect:` lines in the case, or in
/// `NAME.json.expect` next to a JSON case).
fn other_corpora_codes() -> BTreeSet<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance-tests");
    let mut codes = BTreeSet::new();
    for dir in ["yaml/invalid"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap_or_default();
            for line in text.lines() {
                if let Some(rest) = line.trim().strip_prefix("# expect:")
                    && let Some(code) = rest.split_whitespace().next()
                {
                    codes.insert(code.to_string());
                }
            }
        }
    }
    codes
}

#[test]
fn every_code_has_a_case_and_a_page() {
    let mut files = invalid_cases();
    // Legacy `.mcp` scripts have their own corpus (compiler/tests/legacy.rs runs it).
    let legacy = corpus().join("../legacy/invalid");
    files.extend(
        std::fs::read_dir(&legacy)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "mcp")),
    );
    let mut covered: BTreeSet<String> = files
        .iter()
        .flat_map(|f| expected(f))
        .map(|(c, _)| c)
        .collect();
    covered.extend(other_corpora_codes());
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
            let (map, _, diags) = run_check(path);
            insta::assert_snapshot!(render::human(&diags, &map, false));
        }
    );
}

#[test]
fn other_renderings() {
    let path = corpus().join("invalid/209-malformed-table.mcpr");
    let (map, _, diags) = run_check(&path);
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
    "serverFromCommandLine",
    "serverOptions",
    "namedServer",
    "serverOptionsFor",
    "compareTarget",
    "targetOptionsFor",
    "defaultTimeout",
    "defaultRetries",
    "budget",
    "redact",
    "snapshots",
    "ignoreSnapshotPaths",
    "clientBehavior",
    "extensions",
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
    "continueOnFailure",
    "retries",
    "logicalName",
    "dataRow",
    "require",
    "requireProtocol",
    "dependsOn",
    "setup",
    "steps",
    "cleanup",
    "callTool",
    "callToolWithProgress",
    "callToolWithValues",
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
    "runStep",
    "forEachRow",
    "forEachRowIn",
    "forEachRowFrom",
    "expectSuccess",
    "expectError",
    "expectErrorCode",
    "expectErrorMessage",
    "expectFinishWithin",
    "expectLintClean",
    "minimumCoverage",
    "expectToolsSnapshot",
    "expectValue",
    "expectExists",
    "expectLength",
    "expectType",
    "expectMatchesSchema",
    "expectSnapshot",
    "save",
    "export",
    "waitUpTo",
    "fault",
    "reconnect",
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
/// (the rules named in the statement table the grammar is built from), so the
/// two stay in step.
#[test]
fn ebnf_names_every_parser_rule() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let ebnf = std::fs::read_to_string(root.join("../grammar/mcpr.ebnf")).unwrap();
    let rules: BTreeSet<String> = mcpr_compiler::syntax::statements::STATEMENTS
        .iter()
        .map(|s| s.rule.to_string())
        .collect();
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

/// `check` keeps neither the syntax tree nor the whole IR (each test is judged as soon as it
/// is lowered, then dropped): on every case, on one thread and on several, it finds exactly
/// what a full compilation finds.
#[test]
fn check_finds_what_a_full_compilation_finds() {
    let mut files = Vec::new();
    mcpr_files(&corpus(), &mut files);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    // Every body in parts as well, of one statement and more, its steps let go one by one
    // and more: as `check` lowers a test of many thousand lines.
    let long = [
        (1, mcpr_compiler::syntax::LongBodies::default()),
        (3, mcpr_compiler::syntax::LongBodies::default()),
        (
            1,
            mcpr_compiler::syntax::LongBodies {
                from_lines: 1,
                part: 1,
                let_go: 1,
            },
        ),
        (
            2,
            mcpr_compiler::syntax::LongBodies {
                from_lines: 2,
                part: 3,
                let_go: 2,
            },
        ),
    ];
    for path in files {
        for (threads, long_bodies) in long {
            let (mut map, id) = load(&path);
            let mut options = common::check_options(map.get(id).text());
            options.threads = threads;
            options.long_bodies = long_bodies;
            let lean = check(&mut map, id, &common::DirLoader(root.clone()), &options).worded;
            let (mut map, id) = load(&path);
            let full = mcpr_compiler::lower::compile(
                &mut map,
                id,
                &common::DirLoader(root.clone()),
                &options,
            )
            .diagnostics;
            assert_eq!(
                format!("{lean:#?}"),
                format!("{full:#?}"),
                "{} on {threads} thread(s), {long_bodies:?}",
                shown(&path)
            );
        }
    }
}

/// `check` parses a large file as an outline, then each test's body as the test is lowered
/// (and, when the file's YAML passes its budget, finds where and parses them again without
/// the values from there on): on every corpus form and mistake in one file of many pieces, on
/// one thread or several, with and without a test or a flow whose packed list passes the
/// budget halfway, and with tables at column 0 that a test body may take or leave, it finds
/// exactly what a full compilation finds.
#[test]
fn check_of_a_large_file_finds_what_a_full_compilation_finds() {
    let mut files = Vec::new();
    mcpr_files(&corpus(), &mut files);
    let mut cases = String::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        // Without its version header (only allowed on the first line) and its options.
        for line in text
            .lines()
            .filter(|l| !l.starts_with("MCP Test") && !l.starts_with("# check:"))
        {
            cases.push_str(line);
            cases.push('\n');
        }
        cases.push('\n');
    }
    // A table row at column 0 after `For each row:` belongs to the test; after a body that
    // ends otherwise, it stands alone.
    cases.push_str(
        "Test: \"Rows at column 0\"\n  For each row:\n| a |\n| 1 |\n  Call tool \"t\"\n\nTest: \"Stray row\"\n  Call tool \"t\"\n| a |\n  Call tool \"t\"\n\n",
    );
    let mut text = String::from("MCP Test 1\n");
    while text.len() < 400 * 1024 {
        text.push_str(&cases);
    }
    let half = text.len() / 2;
    let cut = half + text[half..].find("\nTest: ").unwrap() + 1;
    let zeros = text.len() / 10;
    let packed = format!(
        "Test: \"Packed\"\n  Call tool \"t\" with:\n    v: [{}0]\n\n",
        "0,".repeat(zeros)
    );
    let with_packed = format!("{}{packed}{}", &text[..cut], &text[cut..]);
    let flow = packed.replace("Test: \"Packed\"", "Flow: \"Packed\"");
    let with_packed_flow = format!("{}{flow}{}", &text[..cut], &text[cut..]);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for (what, text) in [
        ("the corpus", &text),
        ("a packed list", &with_packed),
        ("a packed list in a flow", &with_packed_flow),
    ] {
        for threads in [1, 2, 3] {
            let options = mcpr_compiler::lower::Options {
                threads,
                max_file_bytes: Some(text.len()),
                ..Default::default()
            };
            let run = |full: bool| {
                let mut map = SourceMap::new();
                let id = map.add(SourceFile::new(
                    "conformance-tests/compiler/valid/large.mcpr",
                    text.clone(),
                ));
                let loader = common::DirLoader(root.clone());
                if full {
                    mcpr_compiler::lower::compile(&mut map, id, &loader, &options).diagnostics
                } else {
                    check(&mut map, id, &loader, &options).worded
                }
            };
            let (lean, full) = (run(false), run(true));
            assert!(full.len() > 100, "{what}: {} diagnostics", full.len());
            let passed = full.iter().any(|d| d.code.to_string() == "MCPLANG609");
            assert_eq!(passed, what != "the corpus", "{what}");
            assert!(
                format!("{lean:#?}") == format!("{full:#?}"),
                "{what} on {threads} thread(s)"
            );
            // Held to a few worded diagnostics per file, `check` words the first of each
            // file and counts the others, as if it had held them all.
            let mut map = SourceMap::new();
            let shown_path = "conformance-tests/compiler/valid/large.mcpr";
            let id = map.add(SourceFile::new(shown_path, text.clone()));
            let bounded = mcpr_compiler::lower::Options {
                keep_diagnostics: 7,
                ..options
            };
            let found = check(&mut map, id, &common::DirLoader(root.clone()), &bounded);
            let (first, rest) = first_of_each_file(&full, 7);
            assert!(rest > 100, "{what}: {rest} past the limit");
            assert!(
                format!("{:#?}", found.worded) == format!("{first:#?}"),
                "{what} on {threads} thread(s), 7 kept"
            );
            assert_eq!(found.unshown.len(), rest, "{what} on {threads} thread(s)");
            let errors = full.iter().filter(|d| d.is_error()).count();
            let worded_errors = found.worded.iter().filter(|d| d.is_error()).count();
            let unshown_errors = found.unshown.iter().filter(|u| u.error).count();
            assert_eq!(worded_errors + unshown_errors, errors, "{what}");
        }
    }
}

/// The first `keep` of each file of the sorted `all`, and how many others there are.
fn first_of_each_file(all: &[Diagnostic], keep: usize) -> (Vec<Diagnostic>, usize) {
    let mut first = Vec::new();
    let mut rest = 0;
    let mut file = None;
    let mut count = 0;
    for d in all {
        if file != Some(d.file) {
            file = Some(d.file);
            count = 0;
        }
        count += 1;
        if count <= keep {
            first.push(d.clone());
        } else {
            rest += 1;
        }
    }
    (first, rest)
}

/// `check` lowers a long test's body in parts and lets go of the steps it has judged (what
/// the checks on variables need of them is kept): a body of many thousand lines whose saves,
/// reads, `Variables:`, sections, flows, iterations and mistakes lie in different parts, with
/// the default parts and with parts of a few statements, finds what a full compilation
/// finds; so does a body with a step the schema refuses (lowered again whole to word it).
#[test]
fn long_test_bodies_check_as_a_full_compilation() {
    use mcpr_compiler::syntax::LongBodies;
    let unit = |i: usize| {
        format!(
            r#"  Call tool "add" with:
    a: {i}
    b: 2
  Expect "structuredContent.sum" equals {sum}
  Save "structuredContent.sum" as "s{v}"
  Call tool "echo" with values text="${{s{v}}} ${{later}} ${{tenant}}"
  Expect "result" matches "^p.*$"
  Send "ping"
  Use flow "twice"
  Expect "result" equals "${{s{w}}}"
"#,
            sum = i + 2,
            v = i % 5,
            w = (i + 1) % 5,
        )
    };
    let head = "MCP Test 1\nSuite: \"Long\"\nServer: node server.js\n\nFlow: \"twice\"\n  Send \"ping\"\n  Save \"result\" as \"echoed\"\n  Send \"ping\"\n\n";
    let mut clean = String::from("Test: \"Long\"\n  Setup:\n  Send \"ping\"\n  Steps:\n");
    for i in 0..1_700 {
        clean.push_str(&unit(i));
    }
    clean.push_str("  Save \"result\" as \"later\"\n  Cleanup:\n  Send \"ping\"\n  Variables:\n    tenant: acme\n    unread: x\n");
    // Mistakes spread over the body: a second iteration, an expectation with nothing to
    // attach to, an unknown variable, a bad pattern, an answer that cannot be, a save never
    // read, a line that is no statement.
    let mut mistakes = clean.replace("Test: \"Long\"", "Test: \"Long with mistakes\"");
    for (at, line) in [
        (
            7_000,
            "  For each row:\n    | a |\n    | 1 |\n  For each row:\n    | b |\n    | 2 |\n",
        ),
        (9_000, "  Steps:\n  Expect \"result\" equals 1\n"),
        (
            11_000,
            "  Call tool \"echo\" with values text=\"${unknwn}\"\n",
        ),
        (
            13_000,
            "  Send \"ping\"\n  Expect \"result\" matches \"(\"\n",
        ),
        (
            15_000,
            "  When the server asks for input, respond \"maybe\"\n",
        ),
        (
            17_000,
            "  Send \"ping\"\n  Save \"result\" as \"never_read\"\n",
        ),
        (19_000, "  Sned \"ping\"\n"),
    ] {
        let cut = mistakes[..mistakes.len().min(at * 20)]
            .rfind("\n  Call tool")
            .unwrap()
            + 1;
        mistakes.insert_str(cut, line);
    }
    // A value the schema refuses, in the first part.
    // A step the schema refuses (and no error before it), halfway.
    let mut refused = clean.replace("equals \"${s", "equals \"{s");
    let half = refused[..refused.len() / 2].rfind("\n  Call tool").unwrap() + 1;
    refused.insert_str(half, "  Run step with:\n    tool:\n      name: \"\"\n");
    let cases = [
        ("reads", &clean),
        ("mistakes", &mistakes),
        ("refused", &refused),
    ];
    // The suite's first test is judged with the suite: first, and after another.
    let before = ["", "Test: \"Before\"\n  Send \"ping\"\n\n"];
    for ((what, body), before) in cases.into_iter().flat_map(|c| before.map(|b| (c, b))) {
        let text = format!("{head}{before}{body}\nTest: \"After\"\n  Send \"ping\"\n");
        assert!(
            text.lines().count() > LongBodies::default().from_lines,
            "{what}"
        );
        let run = |long| check_or_compile("long.mcpr", &text, long);
        let full = run(None);
        let codes: BTreeSet<String> = full.iter().map(|d| d.code.to_string()).collect();
        match what {
            // Reads of names saved later on (MCPLANG419), in the first units only.
            "reads" => assert_eq!(codes.len(), 1, "{what}: {codes:?}"),
            "mistakes" => assert!(codes.len() >= 6, "{what}: {codes:?}"),
            _ => assert!(full.iter().any(|d| d.is_error()), "{what}: {codes:?}"),
        }
        for long in [
            LongBodies::default(),
            LongBodies {
                from_lines: 1,
                part: 3,
                let_go: 2,
            },
            LongBodies {
                from_lines: 100,
                part: 50,
                let_go: 7,
            },
        ] {
            assert!(
                format!("{:#?}", run(Some(long))) == format!("{full:#?}"),
                "{what} with {long:?}"
            );
        }
    }
}

/// A flow of more statements than a test may take in is never expanded, so `check` keeps
/// only what the checks of flows read of it (calls, saves, blocks, `${…}`) and counts the
/// rest: with its mistakes, calls in and out of it, a cycle through it, a test that uses it
/// and one that uses a flow of just under the limit, it finds what a full compilation finds.
#[test]
fn long_flows_check_as_a_full_compilation() {
    use mcpr_compiler::syntax::LongBodies;
    let limit = mcpr_compiler::lower::MAX_FLOW_STATEMENTS;
    let body = |statements: usize, extra: &str| {
        let mut body = String::new();
        let mut n = 0;
        while n < statements {
            body.push_str(match n % 10 {
                0 => "  Send \"ping\"\n",
                1 => "  Expect \"result\" equals 1\n",
                2 => "  # a comment\n  Save \"result\" as \"x\"\n",
                3 => "  Call tool \"echo\" with values text=\"${x}\"\n",
                4 => "  Call tool \"add\" with:\n    a: 1\n    b: 2\n",
                5 => "  Expect \"structuredContent.sum\" equals \"${nope}\"\n",
                _ => "  Call tool \"t\"\n",
            });
            n += 1;
        }
        body.push_str(extra);
        body
    };
    let mut text = String::from("MCP Test 1\nSuite: \"Flows\"\nServer: node server.js\n\n");
    // Past the limit, with mistakes halfway and at the end, calling a flow that calls it back.
    let mut huge = body(
        limit / 2,
        "  Sned \"ping\"\n  Steps:\n  Expect \"result\" equals 2\n  Use flow \"small\"\n  Use flow \"back\"\n",
    );
    huge.push_str(&body(
        limit / 2 + 10,
        "  When the server asks for input, respond \"maybe\"\n",
    ));
    text.push_str(&format!("Flow: \"huge\"\n{huge}\n"));
    text.push_str("Flow: \"back\"\n  Send \"ping\"\n  Use flow \"huge\"\n\n");
    text.push_str(&format!("Flow: \"unused\"\n{}\n", body(limit + 1, "")));
    text.push_str(&format!(
        "Flow: \"big\"\n{}\n",
        body(limit + 1, "  Use flow \"small\"\n")
    ));
    text.push_str(&format!("Flow: \"just under\"\n{}\n", body(limit - 2, "")));
    text.push_str("Flow: \"small\"\n  Send \"ping\"\n  Save \"result\" as \"y\"\n\n");
    text.push_str("Test: \"Uses huge\"\n  Use flow \"huge\"\n\nTest: \"Uses under\"\n  Use flow \"just under\"\n\nTest: \"Uses big\"\n  Use flow \"big\"\n");
    let run = |long| check_or_compile("flows.mcpr", &text, long);
    let full = run(None);
    let codes: BTreeSet<String> = full.iter().map(|d| d.code.to_string()).collect();
    for code in [
        "MCPLANG204",
        "MCPLANG213",
        "MCPLANG402",
        "MCPLANG419",
        "MCPLANG426",
    ] {
        assert!(codes.contains(code), "{code} in {codes:?}");
    }
    for long in [
        LongBodies::default(),
        LongBodies {
            from_lines: 1000,
            part: 64,
            let_go: 8,
        },
        LongBodies {
            from_lines: 1,
            part: 1,
            let_go: 1,
        },
    ] {
        assert!(
            format!("{:#?}", run(Some(long))) == format!("{full:#?}"),
            "{long:?}"
        );
    }
}

/// The diagnostics of `text` as a file `name` of the repository: `check`'s, its long bodies
/// handed on as `long` says, or (`None`) a full compilation's.
fn check_or_compile(
    name: &str,
    text: &str,
    long: Option<mcpr_compiler::syntax::LongBodies>,
) -> Vec<Diagnostic> {
    let mut map = SourceMap::new();
    let id = map.add(SourceFile::new(name, text.to_string()));
    let loader = common::DirLoader(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."));
    let mut options = mcpr_compiler::lower::Options::default();
    match long {
        Some(long) => {
            options.long_bodies = long;
            check(&mut map, id, &loader, &options).worded
        }
        None => mcpr_compiler::lower::compile(&mut map, id, &loader, &options).diagnostics,
    }
}
