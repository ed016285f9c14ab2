//! `mcpr lsp` from a scripted client over stdio: one test per request kind, with astral
//! characters (emoji, two UTF-16 units each) before every position that matters.

mod lsp_client;

use lsp_client::{Client, pos, uri};
use serde_json::{Value, json};
use std::path::Path;

const LIB: &str = "MCP Test 1\n# 😀 flows shared by the suites\nFlow: \"Sum 😀\"\n  Inputs: a, b=1\n  Call tool \"add\" with:\n    a: \"${a}\"\n    b: \"${b}\"\n";

const MAIN: &str = r#"MCP Test 1
Server: node server.js
Import flows from "lib.mcpr"

Test: "First 😀 test"
  Id: first
  Use flow "Sum 😀" with:
    a: 2
  Export "structuredContent.sum" as "total"

Test: "Second 😀"
  Depends on: first
  Variables:
    greeting: "hi 😀"
  Call tool "echo" with:
    text: "😀 ${deps.first.total} ${greeting}"
  Expect "content" exists
  Expect the tools match snapshot "tools.json"
"#;

const SNAPSHOT: &str = r#"{"tools": [{"name": "echo", "description": "Says it back", "inputSchema": {"type": "object", "properties": {"text": {"type": "string", "description": "What to say"}}, "required": ["text"]}}]}"#;

/// A folder with the suite, its flow library and a tool snapshot.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("lib.mcpr"), LIB).expect("write");
    std::fs::write(dir.path().join("main.mcpr"), MAIN).expect("write");
    std::fs::write(dir.path().join("tools.json"), SNAPSHOT).expect("write");
    dir
}

/// The server with both files open, their first diagnostics taken.
fn started(dir: &Path) -> (Client, String, String) {
    let mut c = Client::start(dir);
    let lib = uri(&dir.join("lib.mcpr"));
    let main = uri(&dir.join("main.mcpr"));
    c.open(&lib, LIB);
    assert_eq!(c.diagnostics(&lib), Vec::<Value>::new());
    c.open(&main, MAIN);
    assert_eq!(
        c.diagnostics(&main),
        Vec::<Value>::new(),
        "the suite is clean"
    );
    (c, lib, main)
}

fn labels(items: &Value) -> Vec<String> {
    items
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|i| i["label"].as_str().map(String::from))
        .collect()
}

#[test]
fn diagnostics_follow_incremental_edits_and_imports() {
    let dir = project();
    let (mut c, lib, main) = started(dir.path());
    // Break the step after the emoji line: `Expect "content" exists` → a misspelt keyword.
    let at = pos(MAIN, "Expect \"content\"", 0, 0);
    let end = pos(MAIN, "Expect \"content\"", 0, 6);
    c.edit(&main, 2, at.clone(), end, "Expcet");
    let diags = c.diagnostics(&main);
    assert_eq!(diags.len(), 1, "{diags:?}");
    let d = &diags[0];
    assert_eq!(d["range"]["start"]["line"], at["line"], "{d}");
    let code = d["code"].as_str().expect("a code");
    assert!(code.starts_with("MCPLANG"), "{d}");
    let href = d["codeDescription"]["href"]
        .as_str()
        .expect("a link to the code's page");
    assert!(
        href.starts_with("file://") && href.ends_with(&format!("/docs/diagnostics/{code}.md")),
        "{href}"
    );
    assert_eq!(d["source"], "mcpr");
    // An edit on the emoji line itself, in UTF-16 columns: `😀 ` is three units.
    let before = pos(MAIN, "${deps.first.total}", 0, 0);
    c.edit(&main, 3, before.clone(), before, "x");
    let diags = c.diagnostics(&main);
    assert_eq!(
        diags.len(),
        1,
        "the edit lands inside the string: {diags:?}"
    );
    // Fix the keyword again: clean.
    let fixed_at = pos(MAIN, "Expect \"content\"", 0, 0);
    let fixed_end = pos(MAIN, "Expect \"content\"", 0, 6);
    c.edit(&main, 4, fixed_at, fixed_end, "Expect");
    assert_eq!(c.diagnostics(&main), Vec::<Value>::new());
    // Renaming the flow in the imported file re-checks its importer.
    let name = pos(LIB, "Sum 😀", 0, 0);
    let name_end = pos(LIB, "Sum 😀", 0, 6);
    c.edit(&lib, 2, name, name_end, "Total 😀");
    assert_eq!(c.diagnostics(&lib), Vec::<Value>::new());
    let diags = c.diagnostics(&main);
    assert_eq!(
        diags.len(),
        1,
        "the suite uses a flow that is gone: {diags:?}"
    );
    assert_eq!(
        diags[0]["range"]["start"],
        pos(MAIN, "Sum 😀", 0, 0),
        "{diags:?}"
    );
    c.stop();
}

#[test]
fn related_information_points_at_the_first_declaration() {
    let dir = project();
    let mut c = Client::start(dir.path());
    let text =
        "MCP Test 1\nServer: x\nTest: \"😀 a\"\n  Send \"ping\"\nTest: \"😀 a\"\n  Send \"ping\"\n";
    let u = uri(&dir.path().join("dup.mcpr"));
    c.open(&u, text);
    let diags = c.diagnostics(&u);
    assert_eq!(diags.len(), 1, "{diags:?}");
    let related = &diags[0]["relatedInformation"][0];
    assert_eq!(related["location"]["uri"], json!(u));
    assert_eq!(
        related["location"]["range"]["start"],
        pos(text, "😀 a", 0, 0)
    );
    assert_eq!(diags[0]["range"]["start"], pos(text, "😀 a", 1, 0));
    c.stop();
}

#[test]
fn hover_explains_statements_references_keys_and_codes() {
    let dir = project();
    let (mut c, _lib, main) = started(dir.path());
    let h = c.at(
        "textDocument/hover",
        &main,
        pos(MAIN, "Call tool \"echo\"", 0, 2),
    );
    let v = h["contents"]["value"].as_str().expect("markdown");
    assert!(
        v.contains("Call tool \"NAME\" with:") && v.contains("call a tool"),
        "{v}"
    );
    let h = c.at(
        "textDocument/hover",
        &main,
        pos(MAIN, "deps.first.total", 0, 12),
    );
    let v = h["contents"]["value"].as_str().expect("markdown");
    assert!(
        v.contains("Export \"structuredContent.sum\" as \"total\""),
        "{v}"
    );
    assert_eq!(h["range"]["start"], pos(MAIN, "deps.first.total", 0, 0));
    let h = c.at("textDocument/hover", &main, pos(MAIN, "greeting}", 0, 1));
    let v = h["contents"]["value"].as_str().expect("markdown");
    assert!(v.contains("variable") && v.contains("hi 😀"), "{v}");
    // A key of a `with:` block: the flow's input, the tool's argument.
    let h = c.at("textDocument/hover", &main, pos(MAIN, "a: 2", 0, 0));
    let v = h["contents"]["value"].as_str().expect("markdown");
    assert!(v.contains("required input of flow \"Sum 😀\""), "{v}");
    let h = c.at("textDocument/hover", &main, pos(MAIN, "text: \"😀", 0, 1));
    let v = h["contents"]["value"].as_str().expect("markdown");
    assert!(
        v.contains("required argument of tool \"echo\"") && v.contains("What to say"),
        "{v}"
    );
    // A diagnostic: the same text as `mcpr explain`.
    let at = pos(MAIN, "Expect \"content\"", 0, 0);
    let end = pos(MAIN, "Expect \"content\"", 0, 6);
    c.edit(&main, 2, at.clone(), end, "Expcet");
    let diags = c.diagnostics(&main);
    let code = diags[0]["code"].as_str().expect("code").to_string();
    let h = c.at("textDocument/hover", &main, at);
    let v = h["contents"]["value"].as_str().expect("markdown");
    let explained = std::process::Command::new(env!("CARGO_BIN_EXE_mcpr"))
        .args(["explain", &code])
        .output()
        .expect("mcpr explain");
    let page = String::from_utf8_lossy(&explained.stdout);
    assert!(
        !page.trim().is_empty() && v.contains(page.trim()),
        "{v}\n---\n{page}"
    );
    c.stop();
}

const EXPECTATIONS: &str = r#"MCP Test 1
Server: node server.js

Test: "Expectations 😀"
  Call tool "echo" with:
    text: "😀"
  Expect "content[0].text" contains "😀"
  Expect "structuredContent.n" equals 2
  Then "content" contains "x"
  Expect the "content" is not empty
  Expect "content" does not contain "error"
  Expect "n" is greater than 1
  Expect "content" matches schema:
    type: array
  Expect the server is lint clean
  Expect the tools match snapshot "tools.json"
"#;

/// Hovering an expectation shows the row of the language reference for its own operator,
/// not the first row of some other form that also opens with `Expect`.
#[test]
fn hover_on_each_expectation_shows_its_own_row() {
    let dir = project();
    let mut c = Client::start(dir.path());
    let file = uri(&dir.path().join("expectations.mcpr"));
    c.open(&file, EXPECTATIONS);
    for (line, row, usage) in [
        (
            "Expect \"content[0].text\" contains",
            "containment",
            "Expect \"PATH\"",
        ),
        (
            "Expect \"structuredContent.n\" equals",
            "equality",
            "Expect \"PATH\"",
        ),
        (
            "Then \"content\" contains",
            "containment",
            "Expect \"PATH\"",
        ),
        (
            "Expect the \"content\" is not empty",
            "emptiness",
            "Expect \"PATH\"",
        ),
        (
            "Expect \"content\" does not contain",
            "absence",
            "Expect \"PATH\"",
        ),
        ("Expect \"n\" is greater", "comparison", "Expect \"PATH\""),
        (
            "Expect \"content\" matches schema",
            "JSON Schema (block)",
            "Expect \"PATH\"",
        ),
        (
            "Expect the server is lint clean",
            "lint the server",
            "lint clean",
        ),
        (
            "Expect the tools match",
            "compare with a tool snapshot",
            "match snapshot",
        ),
    ] {
        let h = c.at("textDocument/hover", &file, pos(EXPECTATIONS, line, 0, 3));
        let v = h["contents"]["value"].as_str().expect("markdown");
        assert!(v.contains(usage), "{line}: {v}");
        assert!(
            v.contains(&format!("\n\n{row} — `")),
            "{line}: want the {row} row:\n{v}"
        );
        if row != "lint the server" {
            assert!(!v.contains("lint the server"), "{line}: {v}");
        }
    }
    c.stop();
}

#[test]
fn completion_offers_forms_names_keys_and_references() {
    let dir = project();
    let (mut c, _lib, main) = started(dir.path());
    // A new indented line in the second test: the forms of a test body, as snippets.
    let end_of_greeting = pos(MAIN, "Call tool \"echo\"", 0, 0);
    c.edit(&main, 2, end_of_greeting.clone(), end_of_greeting, "Ca\n  ");
    c.diagnostics(&main);
    let items = c.at(
        "textDocument/completion",
        &main,
        pos(MAIN, "Call tool \"echo\"", 0, 2),
    );
    let call = items
        .as_array()
        .and_then(|a| a.iter().find(|i| i["label"] == "Call tool \"NAME\" with:"))
        .unwrap_or_else(|| panic!("Call tool offered: {items}"));
    assert_eq!(call["insertTextFormat"], 2);
    assert_eq!(call["textEdit"]["newText"], "Call tool \"${1:NAME}\" with:");
    assert!(
        !labels(&items).iter().any(|l| l.starts_with("Suite:")),
        "no document settings in a test"
    );
    // Column 0: document settings and block headers.
    let items = c.at(
        "textDocument/completion",
        &main,
        json!({"line": 3, "character": 0}),
    );
    let l = labels(&items);
    assert!(
        l.iter().any(|l| l == "Suite: NAME") && l.iter().any(|l| l == "Test: NAME"),
        "{l:?}"
    );
    assert!(!l.iter().any(|l| l.starts_with("Call tool")), "{l:?}");
    c.stop();

    let dir = project();
    let (mut c, _lib, main) = started(dir.path());
    // After `Use flow "`: the flows of the file and its imports.
    let items = c.at(
        "textDocument/completion",
        &main,
        pos(MAIN, "Sum 😀\" with", 0, 0),
    );
    assert_eq!(labels(&items), vec!["Sum 😀"]);
    // A flow's inputs in its `with:` block.
    let items = c.at("textDocument/completion", &main, pos(MAIN, "a: 2", 0, 0));
    assert_eq!(labels(&items), vec!["a", "b"]);
    // Test ids after `Depends on:` (not the test itself).
    let items = c.at(
        "textDocument/completion",
        &main,
        pos(MAIN, "first\n  Var", 0, 0),
    );
    assert_eq!(labels(&items), vec!["first"]);
    // `${` names in scope: the variable, the export of the dependency, the functions.
    let items = c.at(
        "textDocument/completion",
        &main,
        pos(MAIN, "deps.first.total", 0, 0),
    );
    let l = labels(&items);
    assert!(
        l.contains(&"deps.first.total".to_string()) && l.contains(&"greeting".to_string()),
        "{l:?}"
    );
    assert!(l.contains(&"lowercase()".to_string()), "{l:?}");
    // Inside the flow library: the flow's inputs.
    // Tool names and arguments from the snapshot the suite names.
    let items = c.at(
        "textDocument/completion",
        &main,
        pos(MAIN, "echo\" with", 0, 0),
    );
    assert_eq!(labels(&items), vec!["echo"]);
    let items = c.at(
        "textDocument/completion",
        &main,
        pos(MAIN, "text: \"😀", 0, 0),
    );
    assert_eq!(labels(&items), vec!["text"]);
    c.stop();
}

#[test]
fn definition_jumps_to_flows_exports_tests_and_files() {
    let dir = project();
    let (mut c, lib, main) = started(dir.path());
    let d = c.at("textDocument/definition", &main, pos(MAIN, "Sum 😀", 0, 4));
    assert_eq!(d["uri"], json!(lib));
    assert_eq!(d["range"]["start"], pos(LIB, "Sum 😀", 0, 0));
    let d = c.at("textDocument/definition", &main, pos(MAIN, "total}", 0, 2));
    assert_eq!(d["uri"], json!(main));
    assert_eq!(d["range"]["start"], pos(MAIN, "total\"", 0, 0));
    let d = c.at(
        "textDocument/definition",
        &main,
        pos(MAIN, "first\n  Var", 0, 1),
    );
    assert_eq!(d["range"]["start"], pos(MAIN, "first\n", 0, 0));
    let d = c.at(
        "textDocument/definition",
        &main,
        pos(MAIN, "lib.mcpr", 0, 1),
    );
    assert_eq!(d["uri"], json!(lib));
    c.stop();
}

#[test]
fn references_list_every_use_with_the_declaration() {
    let dir = project();
    let (mut c, _lib, main) = started(dir.path());
    let refs = c.at("textDocument/references", &main, pos(MAIN, "first\n", 0, 0));
    let starts: Vec<Value> = refs
        .as_array()
        .expect("list")
        .iter()
        .map(|l| l["range"]["start"].clone())
        .collect();
    assert_eq!(
        starts,
        vec![
            pos(MAIN, "first\n", 0, 0),
            pos(MAIN, "first\n", 1, 0),
            pos(MAIN, "first.total", 0, 0)
        ]
    );
    c.stop();
}

#[test]
fn symbols_and_folding_ranges_outline_the_file() {
    let dir = project();
    let (mut c, _lib, main) = started(dir.path());
    let syms = c.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": main}}),
    );
    let names = labels(&json!(
        syms.as_array()
            .expect("list")
            .iter()
            .map(|s| json!({"label": s["name"]}))
            .collect::<Vec<_>>()
    ));
    assert_eq!(names, vec!["lib.mcpr", "First 😀 test", "Second 😀"]);
    assert_eq!(
        syms[1]["selectionRange"]["start"],
        pos(MAIN, "First 😀 test", 0, 0)
    );
    let folds = c.request(
        "textDocument/foldingRange",
        json!({"textDocument": {"uri": main}}),
    );
    let spans: Vec<(u64, u64)> = folds
        .as_array()
        .expect("list")
        .iter()
        .map(|f| {
            (
                f["startLine"].as_u64().unwrap_or(0),
                f["endLine"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert!(spans.contains(&(4, 8)), "the first test: {spans:?}");
    assert!(spans.contains(&(12, 13)), "the Variables block: {spans:?}");
    c.stop();
}

#[test]
fn bad_requests_get_errors_and_the_server_goes_on() {
    let dir = project();
    let (mut c, _lib, main) = started(dir.path());
    let a = c.request_raw("textDocument/hover", json!({"nonsense": true}));
    assert_eq!(a["error"]["code"], -32602, "{a}");
    let a = c.request_raw("mcpr/unknown", json!({}));
    assert_eq!(a["error"]["code"], -32601, "{a}");
    // A position far past the end, an unknown document: no answer, no crash.
    let h = c.at(
        "textDocument/hover",
        &main,
        json!({"line": 9999, "character": 9999}),
    );
    assert_eq!(h, Value::Null);
    let h = c.at(
        "textDocument/hover",
        "file:///nowhere.mcpr",
        json!({"line": 0, "character": 0}),
    );
    assert_eq!(h, Value::Null);
    c.stop();
}

#[test]
fn yaml_suites_are_checked_by_their_extension() {
    let dir = project();
    let mut c = Client::start(dir.path());
    let case = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../conformance-tests/yaml/invalid/108-patterns.yaml");
    let text = std::fs::read_to_string(case).expect("corpus case");
    let want: Vec<(String, u64)> = text
        .lines()
        .filter_map(|l| l.strip_prefix("# expect: "))
        .filter_map(|r| {
            let (code, at) = r.split_once(' ')?;
            Some((
                code.to_string(),
                at.split(':').next()?.parse::<u64>().ok()? - 1,
            ))
        })
        .collect();
    let u = uri(&dir.path().join("patterns.yaml"));
    c.open(&u, &text);
    let got: Vec<(String, u64)> = c
        .diagnostics(&u)
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap_or_default().to_string(),
                d["range"]["start"]["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(got, want);
    c.stop();
}

#[test]
fn formatting_gives_the_layout_of_mcpr_fmt() {
    let dir = project();
    let mut c = Client::start(dir.path());
    let text = "MCP Test 1\nServer:   node server.js\n\n\n\nTest:   \"😀 spaced\"\n  call tool  \"add\"   with:\n      a:    1\n  Expect \"sum\"  equals 1\n";
    let path = dir.path().join("messy.mcpr");
    let u = uri(&path);
    c.open(&u, text);
    c.diagnostics(&u);
    let edits = c.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": u}, "options": {"tabSize": 2, "insertSpaces": true}}),
    );
    let edits = edits.as_array().cloned().expect("edits");
    assert!(!edits.is_empty(), "the file is not in the canonical layout");
    let formatted = lsp_client::apply(text, &edits);
    let want = mcpr_compiler::fmt::format_source(&path.to_string_lossy(), text).expect("formats");
    assert_eq!(formatted, want);
    // Formatted already: no edit.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 2}, "contentChanges": [{"text": formatted}]}),
    );
    c.diagnostics(&u);
    let again = c.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": u}, "options": {"tabSize": 2, "insertSpaces": true}}),
    );
    assert_eq!(again, json!([]));
    // A file with syntax errors is refused with the reason.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 3}, "contentChanges": [{"text": "Test: x\n\tCall tool \"a\"\n"}]}),
    );
    c.diagnostics(&u);
    let refused = c.request_raw(
        "textDocument/formatting",
        json!({"textDocument": {"uri": u}, "options": {"tabSize": 2, "insertSpaces": true}}),
    );
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("syntax error")),
        "{refused}"
    );
    c.stop();
}

#[test]
fn code_actions_apply_the_fixes_of_diagnostics() {
    let dir = project();
    let mut c = Client::start(dir.path());
    let text = "MCP Test 1\nServer: node server.js\nTest: \"😀 typos\"\n  Cal tool \"add\"\n  Expcet \"x\" equals 1\n";
    let u = uri(&dir.path().join("typos.mcpr"));
    c.open(&u, text);
    let diags = c.diagnostics(&u);
    assert_eq!(diags.len(), 2, "{diags:?}");
    let at = pos(text, "Cal tool", 0, 1);
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": u}, "range": {"start": at, "end": at},
               "context": {"diagnostics": [diags[0]]}}),
    );
    let quick: Vec<&Value> = actions
        .as_array()
        .expect("actions")
        .iter()
        .filter(|a| a["kind"] == "quickfix")
        .collect();
    assert_eq!(quick.len(), 1, "{actions}");
    assert_eq!(quick[0]["diagnostics"][0]["code"], diags[0]["code"]);
    let edits = quick[0]["edit"]["changes"][&u]
        .as_array()
        .cloned()
        .expect("edits");
    let fixed = lsp_client::apply(text, &edits);
    assert!(fixed.contains("\n  Call tool \"add\"\n"), "{fixed}");
    // Every fix at once.
    let all = actions
        .as_array()
        .expect("actions")
        .iter()
        .find(|a| a["kind"] == "source.fixAll")
        .cloned()
        .unwrap_or_else(|| panic!("a fix-all action: {actions}"));
    let edits = all["edit"]["changes"][&u]
        .as_array()
        .cloned()
        .expect("edits");
    let fixed = lsp_client::apply(text, &edits);
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 2}, "contentChanges": [{"text": fixed}]}),
    );
    assert_eq!(c.diagnostics(&u), Vec::<Value>::new(), "every fix applied");
    c.stop();
}

#[test]
fn an_unsafe_fix_is_a_quick_fix_but_not_part_of_fix_all() {
    let dir = project();
    let mut c = Client::start(dir.path());
    let text = "MCP Test 1\nServer: node server.js\nFlow: \"Add\"\n  Send \"ping\"\nTest: \"t\"\n  Cal tool \"add\"\n  Use flow \"Ad\"\n  Expcet \"x\" equals 1\n";
    let u = uri(&dir.path().join("names.mcpr"));
    c.open(&u, text);
    let diags = c.diagnostics(&u);
    assert_eq!(diags.len(), 3, "{diags:?}");
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": u},
               "range": {"start": {"line": 0, "character": 0}, "end": pos(text, "Expcet", 0, 6)},
               "context": {"diagnostics": diags}}),
    );
    let actions = actions.as_array().expect("actions");
    let quick: Vec<&Value> = actions.iter().filter(|a| a["kind"] == "quickfix").collect();
    assert_eq!(quick.len(), 3, "{actions:?}");
    let rename = quick
        .iter()
        .find(|a| a["title"] == "replace `Ad` with `Add`")
        .unwrap_or_else(|| panic!("the flow's quick fix: {actions:?}"));
    assert_eq!(rename["data"]["applicability"], "unsafe");
    assert!(rename.get("isPreferred").is_none(), "{rename}");
    let keyword = quick
        .iter()
        .find(|a| a["diagnostics"][0]["range"]["start"]["line"] == 5)
        .unwrap_or_else(|| panic!("the keyword's quick fix: {actions:?}"));
    assert_eq!(keyword["data"]["applicability"], "safe");
    assert_eq!(keyword["isPreferred"], true);
    let all = actions
        .iter()
        .find(|a| a["kind"] == "source.fixAll")
        .unwrap_or_else(|| panic!("a fix-all action: {actions:?}"));
    let edits = all["edit"]["changes"][&u]
        .as_array()
        .cloned()
        .expect("edits");
    let fixed = lsp_client::apply(text, &edits);
    assert!(fixed.contains("Use flow \"Ad\"\n"), "{fixed}");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 2}, "contentChanges": [{"text": fixed}]}),
    );
    let left = c.diagnostics(&u);
    assert_eq!(left.len(), 1, "only the unsafe rename is left: {left:?}");
    c.stop();
}
