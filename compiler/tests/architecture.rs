//! The walls of the house: the imports between the modules of each crate, and between the
//! crates, are the ones `docs/architecture.md` lists in its `walls` blocks, and they form no
//! cycle.
//!
//! The test reads the Rust sources itself (std only): every `crate::…`, `super::…` and
//! `self::…` path of a crate's non-test code (items under `#[cfg(test)]` and the files of test
//! modules are left out), `use` trees included, and the names the crate root re-exports
//! (`crate::Error` is the `error` module's). Comments and string literals are skipped. Each
//! path is charged to the top-level module it names (or, where the page lists a module's
//! children one by one, as it does for `commands` in the CLI, to the child). The page says
//! how to read its blocks ("The walls, as a test reads them"); a failure lists every problem
//! with its place and then the code's arrows in the blocks' own form.
//!
//! Beside the walls, a rule of every room: no production function of the four crates runs
//! over [`MAX_FUNCTION_LINES`] lines, from its `fn` to its closing brace.

mod architecture_support;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use architecture_support::functions::{Function, crate_functions, functions};
use architecture_support::{Graph, crate_graph, cycles, read_file, root};

// ---------------------------------------------------------------------------------------
// The page

/// One `walls` block of the page: the modules of a crate, top first.
#[derive(Debug, Default)]
struct Walls {
    /// Each module and the modules it imports, in the order of the page.
    order: Vec<String>,
    imports: BTreeMap<String, BTreeSet<String>>,
    /// Arrows the page forbids outright.
    never: BTreeMap<String, BTreeSet<String>>,
    /// The line of the page each module is listed on.
    line: BTreeMap<String, usize>,
}

/// The `walls NAME` blocks of the page, by name, with the problems of their form.
fn read_page(page: &str) -> (BTreeMap<String, Walls>, Vec<String>) {
    let mut blocks: BTreeMap<String, Walls> = BTreeMap::new();
    let mut problems = Vec::new();
    let mut current: Option<String> = None;
    for (n, line) in page.lines().enumerate() {
        let n = n + 1;
        let t = line.trim();
        if let Some(name) = t.strip_prefix("```walls ") {
            let name = name.trim().to_string();
            if blocks.contains_key(&name) {
                problems.push(format!(
                    "docs/architecture.md:{n}: a second `walls {name}` block"
                ));
            }
            blocks.entry(name.clone()).or_default();
            current = Some(name);
            continue;
        }
        let Some(name) = &current else { continue };
        if t.starts_with("```") {
            current = None;
            continue;
        }
        let t = t.split('#').next().unwrap_or("").trim();
        if t.is_empty() {
            continue;
        }
        let walls = blocks.get_mut(name).expect("the block");
        let (module, list, never) = if let Some((m, l)) = t.split_once("!->") {
            (m.trim(), l, true)
        } else if let Some((m, l)) = t.split_once("->") {
            (m.trim(), l, false)
        } else {
            problems.push(format!(
                "docs/architecture.md:{n}: `{t}` is neither `module -> imports` nor `module !-> forbidden`"
            ));
            continue;
        };
        let list: BTreeSet<String> = list
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        if never {
            walls
                .never
                .entry(module.to_string())
                .or_default()
                .extend(list);
        } else if walls.line.insert(module.to_string(), n).is_some() {
            problems.push(format!(
                "docs/architecture.md:{n}: `{module}` is listed twice"
            ));
        } else {
            walls.order.push(module.to_string());
            walls.imports.insert(module.to_string(), list);
        }
    }
    (blocks, problems)
}

// ---------------------------------------------------------------------------------------
// The judge

/// The graph as a `walls` block would list it, modules that import others first.
fn as_block(modules: &BTreeSet<String>, arrows: &BTreeMap<String, BTreeSet<String>>) -> String {
    // Longest path to a module that imports nothing: the higher, the earlier.
    fn height(
        m: &str,
        arrows: &BTreeMap<String, BTreeSet<String>>,
        memo: &mut BTreeMap<String, usize>,
        depth: usize,
    ) -> usize {
        if let Some(h) = memo.get(m) {
            return *h;
        }
        let h = if depth > arrows.len() + 1 {
            0
        } else {
            arrows.get(m).map_or(0, |to| {
                to.iter()
                    .map(|t| 1 + height(t, arrows, memo, depth + 1))
                    .max()
                    .unwrap_or(0)
            })
        };
        memo.insert(m.to_string(), h);
        h
    }
    let mut memo = BTreeMap::new();
    let mut order: Vec<&String> = modules.iter().collect();
    order.sort_by_key(|m| {
        (
            std::cmp::Reverse(height(m, arrows, &mut memo, 0)),
            (*m).clone(),
        )
    });
    let mut out = String::new();
    for m in order {
        let to: Vec<&str> = arrows
            .get(m)
            .map(|s| s.iter().map(String::as_str).collect())
            .unwrap_or_default();
        let _ = writeln!(out, "{m} -> {}", to.join(", "));
    }
    out
}

/// Compares a crate's graph with its block; the problems, each on a line.
fn judge(name: &str, graph: &Graph, walls: &Walls) -> Vec<String> {
    let mut problems = Vec::new();
    let actual: BTreeMap<String, BTreeSet<String>> = graph
        .arrows
        .iter()
        .map(|(m, to)| (m.clone(), to.keys().cloned().collect()))
        .collect();
    for c in cycles(&graph.modules, &actual) {
        let mut places = Vec::new();
        for m in &c {
            for (t, at) in graph.arrows.get(m).into_iter().flatten() {
                if c.contains(t) {
                    places.push(format!("    {m} -> {t} ({at})"));
                }
            }
        }
        problems.push(format!(
            "{name}: a cycle of {} modules: {}\n{}",
            c.len(),
            c.join(", "),
            places.join("\n")
        ));
    }
    for m in &graph.modules {
        if !walls.imports.contains_key(m) {
            problems.push(format!(
                "{name}: module `{m}` is missing from the `walls {name}` block"
            ));
        }
    }
    let position: BTreeMap<&str, usize> = walls
        .order
        .iter()
        .enumerate()
        .map(|(i, m)| (m.as_str(), i))
        .collect();
    for (m, listed) in &walls.imports {
        let line = walls.line[m];
        if !graph.modules.contains(m) {
            problems.push(format!(
                "docs/architecture.md:{line}: `walls {name}` lists `{m}`, which is not a module of the crate"
            ));
            continue;
        }
        let real = graph.arrows.get(m);
        for (to, at) in real.into_iter().flatten() {
            if !listed.contains(to) {
                problems.push(format!(
                    "{at}: `{m}` imports `{to}`, an arrow docs/architecture.md:{line} does not allow"
                ));
            }
        }
        for to in listed {
            if !real.is_some_and(|r| r.contains_key(to)) {
                problems.push(format!(
                    "docs/architecture.md:{line}: `{m} -> {to}` is listed but `{m}` no longer imports `{to}`; drop it from the line"
                ));
            }
            match position.get(to.as_str()) {
                Some(p) if *p > position[m.as_str()] => {}
                Some(_) => problems.push(format!(
                    "docs/architecture.md:{line}: `{m} -> {to}` points up: `{to}` is listed above `{m}`"
                )),
                None => problems.push(format!(
                    "docs/architecture.md:{line}: `{m} -> {to}` names a module the block does not list"
                )),
            }
        }
    }
    for (m, forbidden) in &walls.never {
        for to in forbidden {
            if let Some(at) = graph.arrows.get(m).and_then(|r| r.get(to)) {
                problems.push(format!(
                    "{at}: `{m}` imports `{to}`, which docs/architecture.md forbids (`{m} !-> {to}`)"
                ));
            }
            if walls.imports.get(m).is_some_and(|l| l.contains(to)) {
                problems.push(format!(
                    "docs/architecture.md:{}: `{m} -> {to}` is both listed and forbidden",
                    walls.line[m]
                ));
            }
        }
    }
    if !problems.is_empty() {
        problems.push(format!(
            "{name}: the code's arrows, as a `walls {name}` block would list them:\n{}",
            as_block(&graph.modules, &actual)
        ));
    }
    problems
}

/// The crates whose modules are walled, and where their sources are.
const CRATES: [(&str, &str); 4] = [
    ("compiler", "compiler/src"),
    ("runtime", "runtime/src"),
    ("lsp", "lsp/src"),
    ("cli", "cli/src"),
];

fn page() -> String {
    std::fs::read_to_string(root().join("docs/architecture.md")).expect("docs/architecture.md")
}

#[test]
fn module_imports_are_the_ones_the_architecture_page_allows_and_form_no_cycle() {
    let (blocks, mut problems) = read_page(&page());
    for (name, src) in CRATES {
        let Some(walls) = blocks.get(name) else {
            problems.push(format!("docs/architecture.md has no `walls {name}` block"));
            continue;
        };
        let split: BTreeSet<String> = walls
            .order
            .iter()
            .filter_map(|m| m.split_once("::").map(|(top, _)| top.to_string()))
            .collect();
        let graph = crate_graph(&root().join(src), &split);
        assert!(
            graph.modules.len() >= 5 && !graph.arrows.is_empty(),
            "{name}: read too little: {graph:?}"
        );
        problems.extend(judge(name, &graph, walls));
    }
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n"));
}

/// The crates' own arrows: the `mcpr-…` crates each crate's `[dependencies]` names.
#[test]
fn crate_dependencies_are_the_ones_the_architecture_page_allows() {
    let (blocks, mut problems) = read_page(&page());
    let walls = blocks.get("crates").expect("a `walls crates` block");
    let mut graph = Graph::default();
    for (name, _) in CRATES {
        graph.modules.insert(name.to_string());
        let toml =
            std::fs::read_to_string(root().join(name).join("Cargo.toml")).expect("Cargo.toml");
        let mut section = "";
        for (n, line) in toml.lines().enumerate() {
            let t = line.trim();
            if t.starts_with('[') {
                section = t;
            } else if section == "[dependencies]"
                && let Some(dep) = t.strip_prefix("mcpr-")
            {
                let dep: String = dep
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric())
                    .collect();
                graph
                    .arrows
                    .entry(name.to_string())
                    .or_default()
                    .insert(dep, format!("{name}/Cargo.toml:{}", n + 1));
            }
        }
    }
    problems.extend(judge("crates", &graph, walls));
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n"));
}

/// The reader finds what it must and skips what it must: grouped `use` trees, `super::`
/// chains, paths in code, child modules, the root's re-exports, and neither comments,
/// strings nor test code.
#[test]
fn the_reader_sees_paths_and_skips_tests_comments_and_strings() {
    let text = r####"
        //! Not this: crate::doc::x
        use crate::{alpha::{self, A}, beta as b};
        use super::gamma::G;
        use child::C;
        mod child;
        fn f() -> &'static str {
            let _ = crate::delta::d();
            let _ = 'x';
            let _ = b'y';
            /* crate::comment::x /* nested */ crate::comment::y */
            let _ = "crate::string::x \" crate::string::y";
            r#"crate::raw::x"#
        }
        mod inline {
            use super::super::epsilon;
        }
        #[cfg(test)]
        mod tests {
            use crate::test_only::X;
        }
        #[cfg(test)]
        mod more_tests;
        #[cfg(test)]
        use crate::test_use::{a, b};
        pub(crate) fn g() { crate::zeta::z() }
    "####;
    let facts = read_file(text, &["m".to_string(), "n".to_string()]);
    let paths: BTreeSet<String> = facts.paths.iter().map(|(p, _)| p.join("::")).collect();
    let want = [
        "alpha",
        "alpha::A",
        "beta",
        "m::gamma::G",
        "m::n::child::C",
        "delta::d",
        "m::epsilon",
        "zeta::z",
    ];
    assert_eq!(
        paths,
        want.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>()
    );
    assert_eq!(facts.test_modules, [vec!["m", "n", "more_tests"]]);
    let root = read_file(
        "pub use error::{Error, ErrorKind as Kind};\nmod error;",
        &[],
    );
    let names: Vec<&str> = root.uses.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["Error", "Kind"]);
}

/// The judge finds a cycle, an import the page does not allow, a module it does not list, an
/// arrow that points up and an arrow it forbids.
#[test]
fn the_judge_fails_what_the_page_forbids() {
    let (blocks, problems) =
        read_page("```walls t\ntop -> low\nlow -> bottom\nbottom ->\nbottom !-> top\n```\n");
    assert!(problems.is_empty(), "{problems:?}");
    let walls = &blocks["t"];
    let mut graph = Graph::default();
    for m in ["top", "low", "bottom", "new"] {
        graph.modules.insert(m.to_string());
    }
    for (from, to) in [("top", "low"), ("low", "bottom"), ("bottom", "top")] {
        graph
            .arrows
            .entry(from.to_string())
            .or_default()
            .insert(to.to_string(), "x.rs:1".to_string());
    }
    let found = judge("t", &graph, walls).join("\n");
    for want in [
        "a cycle of 3 modules: bottom, low, top",
        "`bottom` imports `top`, an arrow",
        "`bottom` imports `top`, which docs/architecture.md forbids",
        "module `new` is missing",
    ] {
        assert!(found.contains(want), "{want:?} not in:\n{found}");
    }
    let (blocks, _) = read_page("```walls t\ntop ->\nlow -> top\n```\n");
    let mut graph = Graph::default();
    graph.modules.extend(["low".to_string(), "top".to_string()]);
    graph
        .arrows
        .entry("low".to_string())
        .or_default()
        .insert("top".to_string(), "x.rs:1".to_string());
    assert!(
        judge("t", &graph, &blocks["t"])
            .join("\n")
            .contains("points up")
    );
}

/// The normal (non-dev, non-build) dependencies of `package`, by crate name, as Cargo
/// resolves them for this package alone (the lockfile's versions; no network, no build).
fn linked_crates(package: &str) -> BTreeSet<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args([
            "tree",
            "--locked",
            "--offline",
            "-e",
            "normal",
            "--prefix",
            "none",
        ])
        .args(["--format", "{p}", "-p", package])
        .current_dir(root())
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo tree -p {package}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

#[test]
fn each_crate_links_what_it_uses() {
    // docs/architecture.md, "What links what": the runtime's optional parts (http-body is
    // not among them: the HTTP client links it anyway).
    let heavy = [
        "rusqlite",
        "tokio-postgres",
        "calamine",
        "axum",
        "notify-debouncer-mini",
    ];
    let lsp = linked_crates("mcpr-lsp");
    assert!(lsp.contains("mcpr-runtime"), "{lsp:?}");
    let linked: Vec<&str> = heavy.into_iter().filter(|c| lsp.contains(*c)).collect();
    assert!(
        linked.is_empty(),
        "the language server links {linked:?}: name mcpr-runtime without those features in lsp/Cargo.toml"
    );
    let cli = linked_crates("mcpr");
    let missing: Vec<&str> = heavy.into_iter().filter(|c| !cli.contains(*c)).collect();
    assert!(
        missing.is_empty(),
        "the mcpr binary lacks {missing:?}: it turns on every feature of mcpr-runtime"
    );
}

// ---------------------------------------------------------------------------------------
// Long functions

/// The most lines a production function may run, from its `fn` line to its closing brace
/// (`docs/architecture.md`, rules of the house): longer, it is split into named pieces.
const MAX_FUNCTION_LINES: usize = 150;

/// No production function of the compiler, the runtime, the language server or the CLI runs
/// over [`MAX_FUNCTION_LINES`] lines.
#[test]
fn no_production_function_runs_over_150_lines() {
    let mut problems = Vec::new();
    for krate in ["compiler", "runtime", "lsp", "cli"] {
        for found in crate_functions(&root().join(krate).join("src")) {
            let f = &found.function;
            if f.lines <= MAX_FUNCTION_LINES {
                continue;
            }
            problems.push(format!(
                "{}:{}: `{}` runs {} lines (at most {MAX_FUNCTION_LINES}): split it into named \
                 pieces that each do one thing",
                found.file, f.line, f.name, f.lines
            ));
        }
    }
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n"));
}

/// The function reader counts from `fn` to the closing brace, sees methods of `impl` and
/// `trait` blocks and functions inside functions, whatever their qualifiers, and skips test
/// code, declarations without a body, pointer types and braces in comments and strings.
#[test]
fn the_function_reader_measures_bodies_and_skips_tests() {
    let long_body = "    let _ = 1;\n".repeat(MAX_FUNCTION_LINES);
    let text = format!(
        r####"//! A file.
pub(crate) async fn long() {{
{long_body}}}
const fn small() -> usize {{ 1 }}
pub unsafe extern "C" fn ffi(f: fn(u8) -> u8) {{
    let _ = "}}}}"; // }}
    /* }} */
    let _ = '}}';
}}
trait T {{
    fn declared(&self);
    fn provided(&self) {{
        fn inner() {{}}
    }}
}}
impl T for () {{
    fn declared(&self) where Self: Sized {{
        let _ = [0; 2];
    }}
}}
#[cfg(test)]
mod tests {{
    #[test]
    fn not_counted() {{}}
}}
#[cfg(test)]
#[allow(dead_code)]
fn test_only() {{}}
"####
    );
    let got: Vec<Function> = functions(&text);
    let want = [
        ("long", 2, MAX_FUNCTION_LINES + 2),
        ("small", MAX_FUNCTION_LINES + 4, 1),
        ("ffi", MAX_FUNCTION_LINES + 5, 5),
        ("provided", MAX_FUNCTION_LINES + 12, 3),
        ("inner", MAX_FUNCTION_LINES + 13, 1),
        ("declared", MAX_FUNCTION_LINES + 17, 3),
    ];
    let want: Vec<Function> = want
        .into_iter()
        .map(|(name, line, lines)| Function {
            name: name.to_string(),
            line,
            lines,
        })
        .collect();
    assert_eq!(got, want);
    assert!(functions("#![cfg(test)]\nfn f() {\n}\n").is_empty());
}
