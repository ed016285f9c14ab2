//! The names a custom-function module (`Functions: ./functions.mjs`, `extensions.functions`)
//! declares, read from its text without running it, so `check` can judge `Set … using "NAME"`.
//!
//! A module declares its names statically when every export is one of:
//! `export function NAME(` (also `async`, `function*`), `export const|let|var NAME =`,
//! `export { a, b as c }` (with or without `from "…"`), `exports.NAME =`,
//! `module.exports.NAME =`, or `module.exports = { a, b: …, c() {…} }`. A module that also
//! has `export *`, `export default`, an exported `manifest` (which lists the functions when
//! it runs), `module.exports = ` anything else, a spread in the exported object, or no
//! export at all declares nothing that can be known before it runs: its names are unknown
//! and no call is judged.
//!
//! Comments, strings, template literals and regular-expression literals are skipped; the
//! scan is a token walk, not a parser, and it errs towards "unknown", never towards a false
//! diagnostic: text it cannot read with certainty (an unterminated string, pattern or
//! template) or longer than [`MAX_SCANNED_BYTES`] leaves the names unknown.

use std::collections::BTreeSet;

/// Modules larger than this (bundles) are not scanned: their names are left to the run.
pub const MAX_SCANNED_BYTES: usize = 2 * 1024 * 1024;

use super::imports::{Loader, folder, join};
use crate::diagnostics::{Diagnostic, Problem};
use crate::source::Span;
use crate::syntax::{Document, Stmt};

/// The function modules a suite declares and what `check` knows of their names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FunctionModules {
    /// The modules, as written.
    pub modules: Vec<String>,
    /// The names they declare together: `None` when one of them could not be read or
    /// declares its names only when it runs.
    pub names: Option<BTreeSet<String>>,
    /// MCPLANG908 for each module that could not be read: reported where a step calls a
    /// function that is not built in (a suite that calls none needs no module to check).
    pub unreadable: Vec<Diagnostic>,
}

impl FunctionModules {
    /// Whether `name` may be called: a module declares it, or the names are unknown.
    pub fn may_provide(&self, name: &str) -> bool {
        self.names.as_ref().is_none_or(|n| n.contains(name))
    }
}

/// Reads the modules that `Functions:` lines and the `Extensions:` block of `doc` name,
/// relative to the folder of `shown` (the entry file's path), through `loader`. A module
/// that cannot be read is MCPLANG908 at the path that names it, kept in
/// [`FunctionModules::unreadable`].
pub(crate) fn read_mcpr(
    loader: &dyn Loader,
    file: usize,
    shown: &str,
    doc: &Document,
) -> FunctionModules {
    let mut named: Vec<(String, Span)> = Vec::new();
    for node in &doc.nodes {
        match &node.stmt {
            Stmt::Functions { paths } => {
                for p in paths.iter().filter(|p| !p.value.is_empty()) {
                    named.push((p.value.clone(), p.span));
                }
            }
            Stmt::Extensions => {
                let list = super::mcpr::block_ref(node)
                    .and_then(|b| b.get("functions"))
                    .and_then(|f| f.as_array());
                for p in list.into_iter().flatten().filter_map(|p| p.as_str()) {
                    named.push((p.to_string(), node.span));
                }
            }
            _ => {}
        }
    }
    read(loader, file, shown, &named)
}

/// Reads the modules `named` (each with where it is named), as [`read_mcpr`] does.
pub(crate) fn read(
    loader: &dyn Loader,
    file: usize,
    shown: &str,
    named: &[(String, Span)],
) -> FunctionModules {
    let mut out = FunctionModules {
        modules: Vec::new(),
        names: Some(BTreeSet::new()),
        unreadable: Vec::new(),
    };
    for (path, span) in named {
        if out.modules.contains(path) {
            continue;
        }
        out.modules.push(path.clone());
        let target = if path.starts_with('/') {
            path.clone()
        } else {
            join(folder(shown), path)
        };
        match loader.read(&target) {
            Ok(text) => match (declared_names(&text), out.names.as_mut()) {
                (Some(names), Some(all)) => all.extend(names),
                _ => out.names = None,
            },
            Err(e) => {
                out.names = None;
                out.unreadable.push(Diagnostic::new(
                    Problem::FunctionModuleUnreadable {
                        path: path.clone(),
                        reason: e.reason,
                    },
                    file,
                    *span,
                ));
            }
        }
    }
    out
}

/// A token of a module's text: a word, or one character of punctuation.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok<'t> {
    Word(&'t str),
    Punct(char),
}

/// The words and punctuation of JavaScript text, without comments, strings, template
/// literals (their `${…}` parts included) and regular-expression literals. `None` when the
/// text is not read with certainty (a string or a pattern that does not end on its line, a
/// template that does not end): its names are then unknown rather than wrongly missed.
fn tokens(text: &str) -> Option<Vec<Tok<'_>>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i = find(b, i + 2, b"*/")? + 2;
        } else if c == b'"' || c == b'\'' {
            i = end_of_string(b, i)?;
            // A string stands for a value: `a: "x"` keeps its shape.
            out.push(Tok::Word(""));
        } else if c == b'`' {
            i = end_of_template(b, i)?;
            out.push(Tok::Word(""));
        } else if c == b'/' && starts_pattern(out.last()) {
            i = end_of_pattern(b, i)?;
            out.push(Tok::Word(""));
        } else if is_word(c) {
            let start = i;
            while i < b.len() && is_word(b[i]) {
                i += 1;
            }
            out.push(Tok::Word(&text[start..i]));
        } else {
            if !c.is_ascii_whitespace() {
                out.push(Tok::Punct(c as char));
            }
            i += 1;
        }
    }
    Some(out)
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80
}

/// Where `needle` starts at or after `from`.
fn find(b: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    b.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// The index after the quote that closes the string opened at `at`, on the same line.
fn end_of_string(b: &[u8], at: usize) -> Option<usize> {
    let quote = b[at];
    let mut i = at + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'\n' => return None,
            c if c == quote => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// The index after the backtick that closes the template opened at `at`, its `${…}` parts
/// skipped as code (strings, templates and braces inside them included).
fn end_of_template(b: &[u8], at: usize) -> Option<usize> {
    let mut i = at + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'`' => return Some(i + 1),
            b'$' if b.get(i + 1) == Some(&b'{') => i = end_of_code(b, i + 2)?,
            _ => i += 1,
        }
    }
    None
}

/// The index after the `}` that closes code starting at `from` (inside `${`).
fn end_of_code(b: &[u8], from: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = from;
    while i < b.len() {
        match b[i] {
            b'"' | b'\'' => i = end_of_string(b, i)?,
            b'`' => i = end_of_template(b, i)?,
            b'{' => {
                depth += 1;
                i += 1;
            }
            b'}' if depth == 0 => return Some(i + 1),
            b'}' => {
                depth -= 1;
                i += 1;
            }
            _ => i += 1,
        }
    }
    None
}

/// Whether a `/` after `previous` starts a regular expression rather than a division: at
/// the start, or after punctuation other than a closing bracket, or after a keyword that
/// takes an expression.
fn starts_pattern(previous: Option<&Tok<'_>>) -> bool {
    match previous {
        None => true,
        Some(Tok::Punct(c)) => !matches!(c, ')' | ']' | '}'),
        Some(Tok::Word(w)) => matches!(
            *w,
            "return"
                | "typeof"
                | "case"
                | "do"
                | "else"
                | "in"
                | "of"
                | "new"
                | "delete"
                | "void"
                | "throw"
                | "yield"
                | "await"
        ),
    }
}

/// The index after the flags of the pattern opened at `at`, on the same line (a `/` in a
/// character class does not end it).
fn end_of_pattern(b: &[u8], at: usize) -> Option<usize> {
    let mut i = at + 1;
    let mut class = false;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'\n' => return None,
            b'[' => {
                class = true;
                i += 1;
            }
            b']' => {
                class = false;
                i += 1;
            }
            b'/' if !class => {
                i += 1;
                while i < b.len() && is_word(b[i]) {
                    i += 1;
                }
                return Some(i);
            }
            _ => i += 1,
        }
    }
    None
}

/// The names a module's text declares, or `None` when they can be known only by running
/// it (see the module documentation) or the text is longer than [`MAX_SCANNED_BYTES`].
pub fn declared_names(text: &str) -> Option<BTreeSet<String>> {
    if text.len() > MAX_SCANNED_BYTES {
        return None;
    }
    let t = tokens(text)?;
    let mut names = BTreeSet::new();
    let mut found = false;
    let w = |i: usize| match t.get(i) {
        Some(Tok::Word(s)) => Some(*s),
        _ => None,
    };
    let p = |i: usize, c: char| t.get(i) == Some(&Tok::Punct(c));
    let mut i = 0;
    while i < t.len() {
        // `module.exports` / `exports` at the start of a member chain.
        let after_dot = i > 0 && p(i - 1, '.');
        if w(i) == Some("export") && !after_dot {
            found = true;
            let mut j = i + 1;
            match w(j) {
                Some("default") => return None,
                Some("async") if w(j + 1) == Some("function") => j += 1,
                _ => {}
            }
            match w(j) {
                Some("function") => {
                    j += 1;
                    if p(j, '*') {
                        j += 1;
                    }
                    names.insert(w(j)?.to_string());
                }
                Some("const" | "let" | "var") => {
                    names.insert(w(j + 1)?.to_string());
                }
                Some("class") => {
                    names.insert(w(j + 1)?.to_string());
                }
                _ if p(j, '*') => return None,
                _ if p(j, '{') => {
                    j += 1;
                    while !p(j, '}') {
                        let local = w(j)?;
                        let exported = if w(j + 1) == Some("as") {
                            j += 2;
                            w(j)?
                        } else {
                            local
                        };
                        match exported {
                            "" | "default" => {}
                            n => {
                                names.insert(n.to_string());
                            }
                        }
                        j += 1;
                        if p(j, ',') {
                            j += 1;
                        }
                    }
                }
                _ => return None,
            }
            i = j + 1;
            continue;
        }
        let chain = if w(i) == Some("module") && p(i + 1, '.') && w(i + 2) == Some("exports") {
            Some(i + 3)
        } else if w(i) == Some("exports") && !after_dot {
            Some(i + 1)
        } else {
            None
        };
        if let Some(j) = chain {
            found = true;
            if p(j, '.') && p(j + 2, '=') && !p(j + 3, '=') {
                names.insert(w(j + 1)?.to_string());
                i = j + 3;
                continue;
            }
            if p(j, '=') && !p(j + 1, '=') && w(i) == Some("module") {
                if !p(j + 1, '{') {
                    return None;
                }
                let end = object_keys(&t, j + 2, &mut names)?;
                i = end + 1;
                continue;
            }
            if !p(j, '.') && !p(j, '[') {
                // `exports` read or passed somewhere: what it gets is not written here.
                return None;
            }
        }
        i += 1;
    }
    if names.contains("manifest") || !found {
        return None;
    }
    Some(names)
}

/// The keys of the object literal whose body starts at token `start` (after its `{`),
/// added to `names`; returns the index of its closing `}`. `None` for a spread or a
/// computed key.
fn object_keys(t: &[Tok<'_>], start: usize, names: &mut BTreeSet<String>) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = start;
    // At the start of a member: the next word is a key.
    let mut at_key = true;
    while i < t.len() {
        match &t[i] {
            Tok::Punct('{' | '(' | '[') if depth == 0 && at_key => return None,
            Tok::Punct('{' | '(' | '[') => depth += 1,
            Tok::Punct('}') if depth == 0 => return Some(i),
            Tok::Punct('}' | ')' | ']') => depth = depth.saturating_sub(1),
            Tok::Punct(',') if depth == 0 => at_key = true,
            Tok::Punct('.') if depth == 0 && at_key => return None,
            Tok::Word(w) if depth == 0 && at_key => {
                // `async name(`, `get name(`: the key is the second word.
                let key = match (&t.get(i + 1), *w) {
                    (Some(Tok::Word(next)), "async" | "get" | "set") if !next.is_empty() => {
                        i += 1;
                        *next
                    }
                    _ => *w,
                };
                if key.is_empty() {
                    // A quoted key: its name is not kept by the tokens.
                    return None;
                }
                names.insert(key.to_string());
                at_key = false;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::declared_names;

    fn names(text: &str) -> Option<Vec<String>> {
        declared_names(text).map(|n| n.into_iter().collect())
    }

    #[test]
    fn esm_exports_are_declared() {
        let text = "export function calculateTax({ amount, rate }) {\n  return 1;\n}\n\
                    export async function later() {}\nexport const makeLabel = ({ prefix }) => `${prefix}-x`;\n\
                    function hidden() {}\nexport { hidden as shown, other };\n// export function commented() {}\n\
                    const s = \"export function inString() {}\";";
        assert_eq!(
            names(text).unwrap(),
            ["calculateTax", "later", "makeLabel", "other", "shown"]
        );
    }

    #[test]
    fn quotes_in_patterns_and_nested_templates_hide_no_export() {
        let text = "export const strip = ({ value }) => value.replace(/['\"`]/g, \"\");\n\
                    export const ratio = (a, b) => a / b / 2;\n\
                    export const label = ({ p, v }) => `${p}-${v ? `[${v}]` : '{none}'}`;\n\
                    export function last() {}";
        assert_eq!(names(text).unwrap(), ["label", "last", "ratio", "strip"]);
        // What cannot be read with certainty leaves the names unknown.
        assert_eq!(
            names("export const a = 'unclosed;\nexport function b() {}"),
            None
        );
        assert_eq!(names("export const a = `never closed"), None);
    }

    #[test]
    fn commonjs_exports_are_declared() {
        let text = "function a() {}\nmodule.exports = { a, b: (x) => ({ y: x }), async c(args) { return { z: 1 }; }, d() {} };\nexports.e = () => 1;\nmodule.exports.f = function () {};";
        assert_eq!(names(text).unwrap(), ["a", "b", "c", "d", "e", "f"]);
    }

    #[test]
    fn dynamic_exports_are_unknown() {
        for text in [
            "export default { functions: { a() {} } };",
            "export * from './other.mjs';",
            "export const manifest = { functions: ['a'] };\nexport function a() {}",
            "module.exports = require('./impl');",
            "module.exports = { ...base, a() {} };",
            "Object.assign(exports, { a });",
            "function nothingExported() {}",
            &format!(
                "export function big() {{}}\n{}",
                " ".repeat(super::MAX_SCANNED_BYTES)
            ),
        ] {
            assert_eq!(names(text), None, "{text}");
        }
    }
}
