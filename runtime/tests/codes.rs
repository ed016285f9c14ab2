//! The registry of run-time codes against the sources and the pages: every code written
//! anywhere in `compiler/src`, `runtime/src`, `cli/src` (and in the project's docs) is
//! registered; every registered code has a page in `docs/errors/` with the sections its
//! class needs; every page belongs to a registered code; the index lists every code.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use mcpr_compiler::diagnostics::Code;
use mcpr_runtime::codes::{RunClass, RunCode};
use regex::Regex;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn files_under(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files_under(&p, ext, out);
        } else if p.extension().is_some_and(|e| e == ext) {
            out.push(p);
        }
    }
}

/// Every `MCP-…-NNN` or `QA-…-NNN` literal of the files, with the first place it is written.
fn literals(files: &[PathBuf]) -> Vec<(String, String)> {
    let re = Regex::new(r"\b(?:MCP|QA)-[A-Z]+-[0-9]+\b").unwrap();
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            for m in re.find_iter(line) {
                if seen.insert(m.as_str().to_string()) {
                    let at = f.strip_prefix(root()).unwrap_or(f).display();
                    out.push((m.as_str().to_string(), format!("{at}:{}", n + 1)));
                }
            }
        }
    }
    out
}

#[test]
fn every_code_in_the_sources_and_docs_is_registered() {
    let mut files = Vec::new();
    for dir in ["compiler/src", "runtime/src", "cli/src"] {
        files_under(&root().join(dir), "rs", &mut files);
    }
    let sources = files.len();
    // The project's own prose (not the pages themselves, which the other tests check).
    for entry in std::fs::read_dir(root().join("docs")).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_some_and(|e| e == "md") {
            files.push(p);
        }
    }
    files.push(root().join("README.md"));
    assert!(sources > 50, "only {sources} source files found");
    let found = literals(&files);
    assert!(found.len() > 100, "only {} codes found", found.len());
    let missing: Vec<String> = found
        .iter()
        .filter(|(code, _)| code.parse::<RunCode>().is_err())
        .map(|(code, at)| format!("{code} (first at {at})"))
        .collect();
    assert!(
        missing.is_empty(),
        "codes not registered in runtime/src/codes/mod.rs:\n{}",
        missing.join("\n")
    );
}

#[test]
fn every_replaced_code_of_the_compiler_is_registered() {
    for c in Code::ALL {
        let r = c.replaces();
        if !r.is_empty() && !r.starts_with("MCPLANG") {
            assert!(
                r.parse::<RunCode>().is_ok(),
                "{c} replaces {r}, which is not registered"
            );
        }
    }
}

/// The text of one `## Heading` section (up to the next `## `), if the page has it.
fn section<'p>(page: &'p str, heading: &str) -> Option<&'p str> {
    let start = page.find(&format!("\n## {heading}\n"))? + heading.len() + 5;
    let rest = &page[start..];
    Some(&rest[..rest.find("\n## ").unwrap_or(rest.len())])
}

fn page_problems(code: RunCode) -> Vec<String> {
    let page = code.doc();
    let mut problems = Vec::new();
    let title = format!("# {code}: {}\n", code.title());
    if !page.starts_with(&title) {
        problems.push(format!("does not start with {title:?}"));
    }
    let class = format!("\nClass: {}", code.class());
    if !page.contains(&class) {
        problems.push(format!("has no line starting {:?}", class.trim()));
    }
    let required: &[&str] = if code.class() == RunClass::Retired {
        &["What it meant", "Replaced by", "What to do"]
    } else {
        &[
            "What causes it",
            "Example",
            "What mcpr prints",
            "What to do",
        ]
    };
    for heading in required {
        match section(page, heading) {
            Some(text) if text.trim().len() >= 40 => {}
            Some(_) => problems.push(format!("section `## {heading}` is (nearly) empty")),
            None => problems.push(format!("has no section `## {heading}`")),
        }
    }
    if code.class() != RunClass::Retired {
        for (heading, fence) in [("Example", "```"), ("What mcpr prints", "```")] {
            if section(page, heading).is_some_and(|s| !s.contains(fence)) {
                problems.push(format!("section `## {heading}` shows no code block"));
            }
        }
    }
    if code.has_first_implementation_meaning() {
        let heading = if code.class() == RunClass::Retired {
            "Replaced by"
        } else {
            "In the first implementation"
        };
        match section(page, heading) {
            None => problems.push(format!("has no section `## {heading}`")),
            Some(text) => {
                for by in code.replaced_by() {
                    if !text.contains(by) {
                        problems.push(format!("section `## {heading}` does not name {by}"));
                    }
                }
            }
        }
    }
    problems
}

#[test]
fn every_registered_code_has_a_complete_page() {
    let mut failures = Vec::new();
    for code in RunCode::ALL {
        for p in page_problems(*code) {
            failures.push(format!("docs/errors/{code}.md {p}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_page_belongs_to_a_registered_code_and_its_links_resolve() {
    let dir = root().join("docs/errors");
    let link = Regex::new(r"\]\(([^)#\s]+\.md)(#[^)]*)?\)").unwrap();
    let mut failures = Vec::new();
    let mut pages = Vec::new();
    files_under(&dir, "md", &mut pages);
    for p in &pages {
        let name = p.file_stem().unwrap().to_string_lossy().to_string();
        if name != "README" && name.parse::<RunCode>().map(|c| c.as_str()) != Ok(&name) {
            failures.push(format!("{name}.md: no registered code {name}"));
        }
        let text = std::fs::read_to_string(p).unwrap();
        for m in link.captures_iter(&text) {
            let target = dir.join(&m[1]);
            if !target.is_file() {
                failures.push(format!(
                    "{name}.md links to {}, which does not exist",
                    &m[1]
                ));
            }
        }
    }
    assert!(
        pages.len() > RunCode::ALL.len(),
        "only {} pages",
        pages.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_index_lists_every_code_with_its_class_and_title() {
    let index = std::fs::read_to_string(root().join("docs/errors/README.md")).unwrap();
    let mut missing = Vec::new();
    for code in RunCode::ALL {
        let row = format!(
            "| [{code}]({code}.md) | {} | {} |",
            code.class(),
            code.title()
        );
        if !index.contains(&row) {
            missing.push(row);
        }
    }
    assert!(
        missing.is_empty(),
        "rows missing from docs/errors/README.md:\n{}",
        missing.join("\n")
    );
}

/// The enforcement itself must be able to fail: a code that is not registered is found.
#[test]
fn an_unregistered_literal_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("x.rs");
    std::fs::write(&f, "fail(\"MCP-NOPE-042\", \"…\"); // and MCP-EXIT-001\n").unwrap();
    let found = literals(&[f]);
    let codes: Vec<&str> = found.iter().map(|(c, _)| c.as_str()).collect();
    assert_eq!(codes, ["MCP-NOPE-042", "MCP-EXIT-001"]);
    assert!("MCP-NOPE-042".parse::<RunCode>().is_err());
    assert!(
        !page_problems(RunCode::ServerExited)
            .iter()
            .any(|p| p.contains("MCP-NOPE"))
    );
}
