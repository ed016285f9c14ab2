//! Reading a crate's sources for `architecture.rs`: the tokens of a Rust file that matter for
//! paths, the `crate::`, `super::` and `self::` paths of its non-test code, and the module
//! graph of a crate they make, and (`functions`) the lengths of its functions. std only.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

pub mod functions;

/// The repository.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

// ---------------------------------------------------------------------------------------
// Tokens

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    /// `::`
    PathSep,
    Punct(char),
}

/// The tokens of a Rust file that matter for paths, with their line numbers: identifiers,
/// `::` and punctuation. Comments, strings, characters, lifetimes and numbers are dropped.
fn tokens(text: &str) -> Vec<(Tok, usize)> {
    let c: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line = 1;
    let ident_start = |ch: char| ch == '_' || ch.is_alphabetic();
    let ident_char = |ch: char| ch == '_' || ch.is_alphanumeric();
    while i < c.len() {
        let ch = c[i];
        match ch {
            '\n' => {
                line += 1;
                i += 1;
            }
            _ if ch.is_whitespace() => i += 1,
            '/' if c.get(i + 1) == Some(&'/') => {
                while i < c.len() && c[i] != '\n' {
                    i += 1;
                }
            }
            '/' if c.get(i + 1) == Some(&'*') => {
                let mut depth = 0;
                while i < c.len() {
                    if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                        depth += 1;
                        i += 2;
                    } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        line += usize::from(c[i] == '\n');
                        i += 1;
                    }
                }
            }
            '"' => i = skip_string(&c, i, &mut line),
            '\'' => i = skip_quote(&c, i),
            _ if ch.is_ascii_digit() => {
                while i < c.len() && ident_char(c[i]) {
                    i += 1;
                }
            }
            _ if ident_start(ch) => {
                let start = i;
                while i < c.len() && ident_char(c[i]) {
                    i += 1;
                }
                let word: String = c[start..i].iter().collect();
                let prefix = matches!(word.as_str(), "r" | "b" | "br" | "c" | "cr");
                if prefix && c.get(i) == Some(&'"') {
                    i = if word.contains('r') {
                        skip_raw(&c, i, 0, &mut line)
                    } else {
                        skip_string(&c, i, &mut line)
                    };
                } else if prefix && word.contains('r') && c.get(i) == Some(&'#') {
                    let mut hashes = 0;
                    while c.get(i + hashes) == Some(&'#') {
                        hashes += 1;
                    }
                    if c.get(i + hashes) == Some(&'"') {
                        i = skip_raw(&c, i + hashes, hashes, &mut line);
                    } else {
                        out.push((Tok::Ident(word), line));
                    }
                } else if word == "b" && c.get(i) == Some(&'\'') {
                    i = skip_quote(&c, i);
                } else {
                    out.push((Tok::Ident(word), line));
                }
            }
            ':' if c.get(i + 1) == Some(&':') => {
                out.push((Tok::PathSep, line));
                i += 2;
            }
            _ => {
                out.push((Tok::Punct(ch), line));
                i += 1;
            }
        }
    }
    out
}

/// Past a `"…"` string that starts at `i`.
fn skip_string(c: &[char], mut i: usize, line: &mut usize) -> usize {
    i += 1;
    while i < c.len() && c[i] != '"' {
        *line += usize::from(c[i] == '\n');
        i += if c[i] == '\\' { 2 } else { 1 };
    }
    i + 1
}

/// Past a raw string whose `"` is at `i`, closed by `"` and `hashes` times `#`.
fn skip_raw(c: &[char], mut i: usize, hashes: usize, line: &mut usize) -> usize {
    i += 1;
    while i < c.len() {
        if c[i] == '"' && (1..=hashes).all(|k| c.get(i + k) == Some(&'#')) {
            return i + 1 + hashes;
        }
        *line += usize::from(c[i] == '\n');
        i += 1;
    }
    i
}

/// Past a character literal, or past the quote of a lifetime or a label.
fn skip_quote(c: &[char], i: usize) -> usize {
    if c.get(i + 1) == Some(&'\\') {
        // Past the escaped character: `'\''` is one literal.
        let mut j = i + 3;
        while j < c.len() && c[j] != '\'' {
            j += 1;
        }
        j + 1
    } else if c.get(i + 2) == Some(&'\'') {
        i + 3
    } else {
        i + 1
    }
}

// ---------------------------------------------------------------------------------------
// Paths

/// What one file of a crate says.
#[derive(Debug, Default)]
pub struct FileFacts {
    /// Every `crate::`, `super::` or `self::` path (and every `use` path that starts with a
    /// child module), made absolute, with its line.
    pub paths: Vec<(Vec<String>, usize)>,
    /// The modules declared `#[cfg(test)] mod NAME;` (absolute).
    pub test_modules: Vec<Vec<String>>,
    /// For a crate root: each name a `use` brings in, and the path it names.
    pub uses: Vec<(String, Vec<String>)>,
}

fn ident(t: Option<&(Tok, usize)>) -> Option<&str> {
    match t {
        Some((Tok::Ident(s), _)) => Some(s),
        _ => None,
    }
}

fn punct(t: Option<&(Tok, usize)>, p: char) -> bool {
    matches!(t, Some((Tok::Punct(q), _)) if *q == p)
}

/// One past the bracket that closes the one at `i`.
fn group_end(toks: &[(Tok, usize)], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < toks.len() {
        match &toks[i].0 {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// Where the item that starts at `i` ends (one past its last token): at its `;`, or at the
/// `}` of its body.
fn item_end(toks: &[(Tok, usize)], mut i: usize) -> usize {
    let mut k = i;
    while matches!(ident(toks.get(k)), Some("pub")) {
        k += 1;
        if punct(toks.get(k), '(') {
            while k < toks.len() && !punct(toks.get(k), ')') {
                k += 1;
            }
            k += 1;
        }
    }
    let ends_at_semicolon = matches!(
        ident(toks.get(k)),
        Some("use" | "const" | "static" | "type" | "extern")
    );
    let mut depth = 0usize;
    while i < toks.len() {
        match &toks[i].0 {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']') => depth = depth.saturating_sub(1),
            Tok::Punct('}') => {
                depth = depth.saturating_sub(1);
                if depth == 0 && !ends_at_semicolon {
                    return i + 1;
                }
            }
            Tok::Punct(';') if depth == 0 => return i + 1,
            _ => {}
        }
        i += 1;
    }
    i
}

/// The paths of a `use` tree that starts at `i`, each with the name it brings in; returns
/// where the tree ends.
fn use_tree(
    toks: &[(Tok, usize)],
    mut i: usize,
    prefix: &[String],
    out: &mut Vec<(Vec<String>, String)>,
) -> usize {
    let mut path = prefix.to_vec();
    loop {
        match toks.get(i).map(|t| &t.0) {
            Some(Tok::Ident(s)) if s == "as" => {
                let alias = ident(toks.get(i + 1)).unwrap_or("_").to_string();
                out.push((path, alias));
                return i + 2;
            }
            Some(Tok::Ident(s)) => {
                path.push(s.clone());
                i += 1;
            }
            Some(Tok::PathSep) => i += 1,
            Some(Tok::Punct('{')) => {
                i += 1;
                while i < toks.len() && !punct(toks.get(i), '}') {
                    i = use_tree(toks, i, &path, out);
                    if punct(toks.get(i), ',') {
                        i += 1;
                    }
                }
                return i + 1;
            }
            Some(Tok::Punct('*')) => {
                out.push((path, "*".to_string()));
                return i + 1;
            }
            _ => {
                // `self` in a group names the module of the group.
                if path.last().is_some_and(|s| s == "self") {
                    path.pop();
                }
                let name = path.last().cloned().unwrap_or_default();
                out.push((path, name));
                return i;
            }
        }
    }
}

/// Makes a path that starts with `crate`, `super`, `self` or a child module of `module`
/// absolute; `None` for any other path (a crate's, std's, a local name's).
fn absolute(
    path: &[String],
    module: &[String],
    children: &BTreeSet<String>,
) -> Option<Vec<String>> {
    let first = path.first()?;
    match first.as_str() {
        "crate" => Some(path[1..].to_vec()),
        "self" => Some([module, &path[1..]].concat()),
        "super" => {
            let mut base = module.to_vec();
            let mut rest = path;
            while rest.first().is_some_and(|s| s == "super") {
                base.pop()?;
                rest = &rest[1..];
            }
            Some([&base[..], rest].concat())
        }
        _ if children.contains(first) => Some([module, path].concat()),
        _ => None,
    }
}

/// The modules a file declares (`mod NAME;` or `mod NAME { … }`), by the module that
/// declares them: what `use NAME::…` may start with there.
fn declared_modules(
    toks: &[(Tok, usize)],
    module: &[String],
) -> BTreeMap<Vec<String>, BTreeSet<String>> {
    let mut children: BTreeMap<Vec<String>, BTreeSet<String>> = BTreeMap::new();
    let mut stack = vec![(module.to_vec(), 0usize)];
    let mut depth = 0usize;
    let mut i = 0;
    while i < toks.len() {
        match (&toks[i].0, ident(toks.get(i + 1))) {
            (Tok::Ident(m), Some(name)) if m == "mod" => {
                let here = stack.last().expect("a module").0.clone();
                children
                    .entry(here.clone())
                    .or_default()
                    .insert(name.to_string());
                if punct(toks.get(i + 2), '{') {
                    depth += 1;
                    stack.push(([&here[..], &[name.to_string()]].concat(), depth));
                    i += 3;
                    continue;
                }
            }
            (Tok::Punct('{'), _) => depth += 1,
            (Tok::Punct('}'), _) => {
                if stack.len() > 1 && stack.last().expect("a module").1 == depth {
                    stack.pop();
                }
                depth = depth.saturating_sub(1);
            }
            _ => {}
        }
        i += 1;
    }
    children
}

/// Reads one file whose module is `module`.
pub fn read_file(text: &str, module: &[String]) -> FileFacts {
    let toks = &tokens(text)[..];
    let mut facts = FileFacts::default();
    let children = declared_modules(toks, module);
    let no_children = BTreeSet::new();
    let mut stack = vec![(module.to_vec(), 0usize)];
    let mut depth = 0usize;
    let mut i = 0;
    while i < toks.len() {
        let here = stack.last().expect("a module").0.clone();
        let kids = children.get(&here).unwrap_or(&no_children);
        let (tok, line) = &toks[i];
        match tok {
            Tok::Punct('#') => {
                let inner = punct(toks.get(i + 1), '!');
                let open = i + 1 + usize::from(inner);
                if !punct(toks.get(open), '[') {
                    i += 1;
                    continue;
                }
                let close = group_end(toks, open);
                let is_test = matches!(ident(toks.get(open + 1)), Some("cfg"))
                    && punct(toks.get(open + 2), '(')
                    && matches!(ident(toks.get(open + 3)), Some("test"))
                    && punct(toks.get(open + 4), ')');
                i = close;
                if !is_test {
                    continue;
                }
                if inner {
                    // `#![cfg(test)]`: the whole file is test code.
                    return FileFacts {
                        test_modules: vec![module.to_vec()],
                        ..FileFacts::default()
                    };
                }
                // Further attributes of the same item.
                while punct(toks.get(i), '#') && punct(toks.get(i + 1), '[') {
                    i = group_end(toks, i + 1);
                }
                let mut k = i;
                if matches!(ident(toks.get(k)), Some("pub")) {
                    k += 1;
                    if punct(toks.get(k), '(') {
                        k += 3;
                    }
                }
                if matches!(ident(toks.get(k)), Some("mod"))
                    && let Some(name) = ident(toks.get(k + 1))
                    && punct(toks.get(k + 2), ';')
                {
                    facts
                        .test_modules
                        .push([&here[..], &[name.to_string()]].concat());
                }
                i = item_end(toks, i);
                continue;
            }
            Tok::Ident(m) if m == "mod" && punct(toks.get(i + 2), '{') => {
                let name = ident(toks.get(i + 1)).expect("a name").to_string();
                depth += 1;
                stack.push(([&here[..], &[name]].concat(), depth));
                i += 3;
                continue;
            }
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                if stack.len() > 1 && stack.last().expect("a module").1 == depth {
                    stack.pop();
                }
                depth = depth.saturating_sub(1);
            }
            Tok::Ident(u) if u == "use" => {
                let mut found = Vec::new();
                let start = if matches!(toks.get(i + 1).map(|t| &t.0), Some(Tok::PathSep)) {
                    // `use ::name` is always another crate.
                    i = item_end(toks, i);
                    continue;
                } else {
                    i + 1
                };
                i = use_tree(toks, start, &[], &mut found);
                for (path, name) in found {
                    if let Some(abs) = absolute(&path, &here, kids) {
                        facts.paths.push((abs.clone(), *line));
                        if here.is_empty() {
                            facts.uses.push((name, abs));
                        }
                    }
                }
                continue;
            }
            Tok::Ident(w)
                if matches!(w.as_str(), "crate" | "super" | "self")
                    && matches!(toks.get(i + 1).map(|t| &t.0), Some(Tok::PathSep))
                    && !matches!(
                        toks.get(i.wrapping_sub(1)).map(|t| &t.0),
                        Some(Tok::PathSep)
                    ) =>
            {
                let mut path = vec![w.clone()];
                let mut k = i + 1;
                while matches!(toks.get(k).map(|t| &t.0), Some(Tok::PathSep))
                    && let Some(s) = ident(toks.get(k + 1))
                {
                    path.push(s.to_string());
                    k += 2;
                }
                if let Some(abs) = absolute(&path, &here, kids) {
                    facts.paths.push((abs, *line));
                }
                i = k;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    facts
}

// ---------------------------------------------------------------------------------------
// A crate's module graph

/// The modules of a crate and the imports between them.
#[derive(Debug, Default)]
pub struct Graph {
    pub modules: BTreeSet<String>,
    /// `from -> to` with the first place (`file:line`) that makes it.
    pub arrows: BTreeMap<String, BTreeMap<String, String>>,
}

/// The module path of a source file (`a/b.rs` and `a/b/mod.rs` are `a::b`).
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs");
    if !matches!(stem, "mod" | "lib" | "main") || !parts.is_empty() && stem != "mod" {
        parts.push(stem.to_string());
    }
    parts
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("an entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The child modules of a folder: its `.rs` files (but `mod.rs`, `lib.rs`, `main.rs`) and
/// its folders.
fn child_modules(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("an entry").path())
        .filter_map(|p| {
            let name = p.file_name()?.to_string_lossy().into_owned();
            if p.is_dir() {
                Some(name)
            } else {
                let stem = name.strip_suffix(".rs")?;
                (!matches!(stem, "mod" | "lib" | "main")).then(|| stem.to_string())
            }
        })
        .collect()
}

/// The graph of the crate whose sources are in `src`. `split` names the top-level modules
/// whose children are modules of the graph of their own (`commands` in the CLI).
pub fn crate_graph(src: &Path, split: &BTreeSet<String>) -> Graph {
    let mut graph = Graph::default();
    for top in child_modules(src) {
        if split.contains(&top) {
            for child in child_modules(&src.join(&top)) {
                graph.modules.insert(format!("{top}::{child}"));
            }
        }
        graph.modules.insert(top);
    }
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut read: Vec<(String, Vec<String>, FileFacts)> = Vec::new();
    for f in files {
        let rel = f.strip_prefix(src).expect("under src");
        let module = module_of(rel);
        let text = std::fs::read_to_string(&f).expect("a source file");
        let shown = format!(
            "{}/{}",
            src.strip_prefix(root()).unwrap_or(src).display(),
            rel.display()
        );
        read.push((shown, module.clone(), read_file(&text, &module)));
    }
    let tests: Vec<Vec<String>> = read
        .iter()
        .flat_map(|(_, _, f)| f.test_modules.clone())
        .collect();
    // Names the crate root brings in with `use`, which `crate::NAME` reaches.
    let root_names: BTreeMap<String, Vec<String>> = read
        .iter()
        .filter(|(_, m, _)| m.is_empty())
        .flat_map(|(_, _, f)| f.uses.clone())
        .collect();
    let unit = |abs: &[String]| -> Option<String> {
        let first = abs.first()?;
        if graph.modules.contains(first) {
            if let Some(second) = abs.get(1) {
                let child = format!("{first}::{second}");
                if graph.modules.contains(&child) {
                    return Some(child);
                }
            }
            return Some(first.clone());
        }
        let target = root_names.get(first)?;
        let first = target.first()?;
        graph.modules.contains(first).then(|| {
            target
                .get(1)
                .map(|s| format!("{first}::{s}"))
                .filter(|c| graph.modules.contains(c))
                .unwrap_or_else(|| first.clone())
        })
    };
    for (shown, module, facts) in &read {
        if module.is_empty() || tests.iter().any(|t| module.starts_with(t)) {
            continue;
        }
        let from = unit(module).expect("a file of a module");
        for (path, line) in &facts.paths {
            if tests.iter().any(|t| path.starts_with(t)) {
                continue;
            }
            if let Some(to) = unit(path)
                && to != from
            {
                graph
                    .arrows
                    .entry(from.clone())
                    .or_default()
                    .entry(to)
                    .or_insert_with(|| format!("{shown}:{line}"));
            }
        }
    }
    graph
}

/// The cycles of a graph: its strongly connected components of more than one module.
pub fn cycles(
    modules: &BTreeSet<String>,
    arrows: &BTreeMap<String, BTreeSet<String>>,
) -> Vec<Vec<String>> {
    // Kosaraju: the finishing order on the graph, then the components on the reversed graph.
    fn visit<'a>(
        m: &'a str,
        next: &BTreeMap<&'a str, Vec<&'a str>>,
        seen: &mut BTreeSet<&'a str>,
        out: &mut Vec<&'a str>,
    ) {
        if !seen.insert(m) {
            return;
        }
        for n in next.get(m).into_iter().flatten() {
            visit(n, next, seen, out);
        }
        out.push(m);
    }
    let mut forward: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut backward: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (from, to) in arrows {
        for t in to {
            forward.entry(from).or_default().push(t);
            backward.entry(t).or_default().push(from);
        }
    }
    let mut seen = BTreeSet::new();
    let mut finished = Vec::new();
    for m in modules {
        visit(m, &forward, &mut seen, &mut finished);
    }
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for m in finished.into_iter().rev() {
        let mut component = Vec::new();
        visit(m, &backward, &mut seen, &mut component);
        if component.len() > 1 {
            let mut c: Vec<String> = component.into_iter().map(String::from).collect();
            c.sort();
            out.push(c);
        }
    }
    out
}
