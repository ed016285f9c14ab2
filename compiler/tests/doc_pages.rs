//! The documentation page of every code is checked against the compiler: its
//! example must trigger the code, and its fix must not.

use mcpr_compiler::diagnostics::Code;
use mcpr_compiler::source::SourceFile;
use mcpr_compiler::{SourceMap, syntax};

/// The first ```mcpr block after a heading.
fn block_after<'p>(page: &'p str, heading: &str) -> Option<&'p str> {
    let rest = &page[page.find(heading)?..];
    let start = rest.find("```mcpr\n")? + "```mcpr\n".len();
    let len = rest[start..].find("\n```")? + 1;
    Some(&rest[start..start + len])
}

fn codes_of(text: &str) -> Vec<&'static str> {
    let mut map = SourceMap::new();
    let id = map.add(SourceFile::new("page.mcpr", text));
    syntax::parse(map.get(id), id)
        .diagnostics
        .iter()
        .map(|d| d.code.as_str())
        .collect()
}

#[test]
fn syntax_pages_show_a_real_example_and_a_real_fix() {
    let mut failures = Vec::new();
    // Codes of the frontend (1xx, 2xx) are decided by the parser alone.
    for code in Code::ALL.iter().filter(|c| c.number() < 300) {
        let page = code.doc();
        let Some(example) = block_after(page, "## Example") else {
            failures.push(format!("{code}: no ```mcpr example"));
            continue;
        };
        if !codes_of(example).contains(&code.as_str()) {
            failures.push(format!(
                "{code}: the example does not trigger it: {:?}",
                codes_of(example)
            ));
        }
        match block_after(page, "## How to fix it") {
            Some(fix) if codes_of(fix).contains(&code.as_str()) => {
                failures.push(format!("{code}: the fix still triggers it"))
            }
            Some(_) => {}
            None => failures.push(format!("{code}: no ```mcpr fix")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The index of `docs/diagnostics/README.md` lists every code, with its severity and title.
#[test]
fn the_index_lists_every_code() {
    let index = include_str!("../../docs/diagnostics/README.md");
    let mut missing = Vec::new();
    for code in Code::ALL {
        let row = format!("| [{code}]({code}.md) |");
        if !index.contains(&row) {
            missing.push(code.to_string());
        }
    }
    assert!(missing.is_empty(), "not in the index: {missing:?}");
}
