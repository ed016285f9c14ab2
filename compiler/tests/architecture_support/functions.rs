//! The lengths of a crate's production functions, for `architecture.rs`: every `fn` with a
//! body (free functions, methods of `impl` and `trait` blocks, functions inside functions),
//! counted from the line of its `fn` to the line of the brace that closes its body. Items
//! under `#[cfg(test)]`, files under `#![cfg(test)]` and the files of test modules are left
//! out. It reads the tokens [`super::tokens`] gives, so braces in comments, strings and
//! characters do not count. std only.

use std::path::Path;

use super::{Tok, group_end, ident, item_end, module_of, punct, read_file, root, rust_files};

/// One function with a body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    /// The line of its `fn`.
    pub line: usize,
    /// Lines from its `fn` to its closing brace, both included.
    pub lines: usize,
}

/// One function of a crate's sources, with its file relative to the repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub file: String,
    pub function: Function,
}

/// Whether the attribute whose `[` is at `open` is `cfg(test)`.
fn is_cfg_test(toks: &[(Tok, usize)], open: usize) -> bool {
    matches!(ident(toks.get(open + 1)), Some("cfg"))
        && punct(toks.get(open + 2), '(')
        && matches!(ident(toks.get(open + 3)), Some("test"))
        && punct(toks.get(open + 4), ')')
}

/// The `{` of the body of the function whose name is at `i`, or `None` for a declaration
/// without one (`fn f();` in a trait or an `extern` block).
fn body_start(toks: &[(Tok, usize)], mut i: usize) -> Option<usize> {
    let mut depth = 0usize;
    while i < toks.len() {
        match &toks[i].0 {
            Tok::Punct('(' | '[') => depth += 1,
            Tok::Punct(')' | ']') => depth = depth.saturating_sub(1),
            Tok::Punct('{') if depth == 0 => return Some(i),
            Tok::Punct(';') if depth == 0 => return None,
            _ => {}
        }
        i += 1;
    }
    None
}

/// The functions with a body of one file's non-test code.
pub fn functions(text: &str) -> Vec<Function> {
    let toks = &super::tokens(text)[..];
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        match &toks[i].0 {
            Tok::Punct('#') => {
                let inner = punct(toks.get(i + 1), '!');
                let open = i + 1 + usize::from(inner);
                if !punct(toks.get(open), '[') {
                    i += 1;
                    continue;
                }
                let test = is_cfg_test(toks, open);
                i = group_end(toks, open);
                if test && inner {
                    // `#![cfg(test)]`: the whole file is test code.
                    return Vec::new();
                }
                if test {
                    // Further attributes of the same item, then the item.
                    while punct(toks.get(i), '#') && punct(toks.get(i + 1), '[') {
                        i = group_end(toks, i + 1);
                    }
                    i = item_end(toks, i);
                }
            }
            Tok::Ident(f) if f == "fn" => {
                // `fn(…)` is a pointer type, `$name` a macro's fragment: no name follows.
                if let Some(name) = ident(toks.get(i + 1))
                    && let Some(open) = body_start(toks, i + 2)
                {
                    let close = group_end(toks, open);
                    let last = toks.get(close - 1).map_or(toks[i].1, |t| t.1);
                    out.push(Function {
                        name: name.to_string(),
                        line: toks[i].1,
                        lines: last - toks[i].1 + 1,
                    });
                }
                // On into the body: functions inside functions are counted too.
                i += 1;
            }
            _ => i += 1,
        }
    }
    out
}

/// The functions of the production code under `src` (a crate's sources), by file; files
/// that are test modules (`#[cfg(test)] mod NAME;`) are left out.
pub fn crate_functions(src: &Path) -> Vec<Found> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut read = Vec::new();
    for f in files {
        let rel = f.strip_prefix(src).expect("under src");
        let module = module_of(rel);
        let text = std::fs::read_to_string(&f).expect("a source file");
        let facts = read_file(&text, &module);
        let shown = format!(
            "{}/{}",
            src.strip_prefix(root()).unwrap_or(src).display(),
            rel.display()
        );
        read.push((shown, module, facts.test_modules, text));
    }
    let tests: Vec<Vec<String>> = read.iter().flat_map(|(_, _, t, _)| t.clone()).collect();
    let mut out = Vec::new();
    for (file, module, _, text) in &read {
        if tests.iter().any(|t| module.starts_with(t)) {
            continue;
        }
        for function in functions(text) {
            out.push(Found {
                file: file.clone(),
                function,
            });
        }
    }
    out
}
