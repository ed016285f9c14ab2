//! `Import flows from "…"`: the loader the compiler reads files through, and the
//! resolution of imports with their limits (MCPLANG301–308).
//!
//! Paths are `/`-separated text as shown to users. An import is resolved lexically against
//! the folder of the importing file's shown path, so an imported file is shown the way the
//! user would name it from where mcpr started. The loader says what a path really is
//! (`canonical`, symbolic links resolved), which decides cycles and the containment rule.

use super::Ctx;
use crate::diagnostics::{Diagnostic, Problem};
use crate::source::{SourceFile, Span};
use crate::syntax::{self, Document, Stmt};
use std::collections::BTreeMap;

/// Imports may be nested at most this many levels minus one.
pub const MAX_DEPTH: usize = 8;
/// At most this many distinct files may be imported.
pub const MAX_FILES: usize = 64;

/// Why a file could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// A short reason, e.g. `no such file`.
    pub reason: String,
}

/// Where the compiler reads imported files from: the compiler itself does no I/O. The CLI
/// implements it on the file system, tests and editors hand text from memory
/// ([`MemoryLoader`]). Paths are `/`-separated, as shown to users.
pub trait Loader {
    /// The identity of the file at `path`: the same for every way of naming one file
    /// (symbolic links resolved). Fails when there is no such file.
    fn canonical(&self, path: &str) -> Result<String, LoadError>;
    /// The text of the file at `path`.
    fn read(&self, path: &str) -> Result<String, LoadError>;
}

/// Files held in memory, keyed by normalised path (for tests and editors).
#[derive(Debug, Clone, Default)]
pub struct MemoryLoader {
    files: BTreeMap<String, String>,
}

impl MemoryLoader {
    /// An empty set of files.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) a file.
    pub fn insert(&mut self, path: &str, text: impl Into<String>) {
        self.files.insert(normalise(path), text.into());
    }
}

impl Loader for MemoryLoader {
    fn canonical(&self, path: &str) -> Result<String, LoadError> {
        let key = normalise(path);
        if self.files.contains_key(&key) {
            Ok(key)
        } else {
            Err(LoadError {
                reason: "there is no such file".into(),
            })
        }
    }

    fn read(&self, path: &str) -> Result<String, LoadError> {
        self.files
            .get(&normalise(path))
            .cloned()
            .ok_or_else(|| LoadError {
                reason: "there is no such file".into(),
            })
    }
}

/// Lexical normalisation of a `/` path: `.` dropped, `a/..` folded, `\` read as `/`.
pub fn normalise(path: &str) -> String {
    let path = path.replace('\\', "/");
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|p| *p != "..") {
                    parts.pop();
                } else if !absolute {
                    parts.push("..");
                }
            }
            p => parts.push(p),
        }
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else {
        joined
    }
}

/// The folder part of a `/` path (empty for a bare file name).
pub fn folder(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..i])
}

/// `folder` + `rel`, normalised.
pub fn join(folder: &str, rel: &str) -> String {
    if folder.is_empty() {
        normalise(rel)
    } else {
        normalise(&format!("{folder}/{rel}"))
    }
}

/// Whether an import path is absolute on any platform (`/x`, `\x`, `C:\x`, `C:/x`).
fn is_absolute(path: &str) -> bool {
    let b = path.as_bytes();
    path.starts_with('/')
        || path.starts_with('\\')
        || (b.len() >= 3
            && b[0].is_ascii_alphabetic()
            && b[1] == b':'
            && (b[2] == b'\\' || b[2] == b'/'))
}

/// One file reached through imports: its id in the source map and its parsed tree.
pub(crate) struct Imported {
    /// Index in the source map.
    pub file: usize,
    /// The parsed file.
    pub document: Document,
}

/// Reads every file the entry imports, transitively. Returns the imported files in the order
/// they were first reached (depth first), each once.
pub(crate) fn resolve(ctx: &mut Ctx<'_>, entry: &Document) -> Vec<Imported> {
    let entry_path = ctx.map.get(ctx.entry).path().to_string();
    let entry_canonical = ctx
        .loader
        .canonical(&entry_path)
        .unwrap_or_else(|_| normalise(&entry_path));
    let root = folder(&entry_canonical).to_string();
    let mut r = Resolver {
        root,
        seen: BTreeMap::new(),
        out: Vec::new(),
    };
    let mut stack = vec![(entry_canonical, entry_path.clone())];
    r.visit(ctx, ctx.entry, &entry_path, entry, &mut stack);
    r.out
}

struct Resolver {
    /// Canonical folder of the entry file.
    root: String,
    /// Canonical path → index in `out` of files already read.
    seen: BTreeMap<String, usize>,
    out: Vec<Imported>,
}

impl Resolver {
    /// Whether a canonical path lies inside the entry file's folder.
    fn inside(&self, canonical: &str) -> bool {
        if self.root.is_empty() {
            // The entry is named relative to an unknown folder (an in-memory file).
            !(canonical == ".." || canonical.starts_with("../") || canonical.starts_with('/'))
        } else {
            canonical.starts_with(&format!("{}/", self.root))
        }
    }

    fn visit(
        &mut self,
        ctx: &mut Ctx<'_>,
        file: usize,
        shown: &str,
        doc: &Document,
        stack: &mut Vec<(String, String)>,
    ) {
        for node in &doc.nodes {
            let Stmt::ImportFlows { path } = &node.stmt else {
                continue;
            };
            let written = path.value.as_str();
            let report = |ctx: &mut Ctx<'_>, p: Problem| {
                ctx.diags.push(Diagnostic::new(p, file, path.span));
            };
            if let Some(name) = written.strip_prefix("std:") {
                match crate::stdlib::library(name) {
                    Some(lib) => {
                        let shown = format!("std:{}", lib.name);
                        self.load(
                            ctx,
                            file,
                            path.span,
                            shown.clone(),
                            shown,
                            || Ok(lib.text.to_string()),
                            stack,
                        );
                    }
                    None => report(
                        ctx,
                        Problem::UnknownStdLibrary {
                            name: name.to_string(),
                            known: crate::stdlib::known_names(),
                        },
                    ),
                }
                continue;
            }
            if shown.starts_with("std:") {
                report(
                    ctx,
                    Problem::ImportUnreadable {
                        path: written.to_string(),
                        reason: "a standard library imports only other `std:` libraries".into(),
                    },
                );
                continue;
            }
            if is_absolute(written) {
                report(
                    ctx,
                    Problem::AbsoluteImport {
                        path: written.to_string(),
                    },
                );
                continue;
            }
            let target = join(folder(shown), written);
            let canonical = match ctx.loader.canonical(&target) {
                Ok(c) => c,
                Err(e) => {
                    report(
                        ctx,
                        Problem::ImportUnreadable {
                            path: target,
                            reason: e.reason,
                        },
                    );
                    continue;
                }
            };
            if !self.inside(&canonical) {
                report(
                    ctx,
                    Problem::ImportOutsideFolder {
                        path: written.to_string(),
                    },
                );
                continue;
            }
            let loader: &dyn Loader = ctx.loader;
            let read = || loader.read(&target);
            self.load(ctx, file, path.span, canonical, target.clone(), read, stack);
        }
    }

    /// Reads one imported file (unless a cycle, a limit or an earlier import forbids it),
    /// parses it and visits its own imports.
    #[allow(clippy::too_many_arguments)]
    fn load(
        &mut self,
        ctx: &mut Ctx<'_>,
        file: usize,
        span: Span,
        canonical: String,
        target: String,
        read: impl FnOnce() -> Result<String, LoadError>,
        stack: &mut Vec<(String, String)>,
    ) {
        let report = |ctx: &mut Ctx<'_>, p: Problem| {
            ctx.diags.push(Diagnostic::new(p, file, span));
        };
        if let Some(at) = stack.iter().position(|(c, _)| *c == canonical) {
            let mut chain: Vec<String> = stack[at..].iter().map(|(_, s)| s.clone()).collect();
            chain.push(stack[at].1.clone());
            report(ctx, Problem::ImportCycle { chain });
            return;
        }
        if stack.len() >= MAX_DEPTH {
            report(ctx, Problem::ImportTooDeep { limit: MAX_DEPTH });
            return;
        }
        if self.seen.contains_key(&canonical) {
            return;
        }
        if self.seen.len() >= MAX_FILES {
            report(ctx, Problem::TooManyImports { limit: MAX_FILES });
            return;
        }
        let text = match read() {
            Ok(t) => t,
            Err(e) => {
                report(
                    ctx,
                    Problem::ImportUnreadable {
                        path: target,
                        reason: e.reason,
                    },
                );
                return;
            }
        };
        if text.len() > ctx.file_limit {
            let limit = ctx.file_limit;
            report(
                ctx,
                Problem::ImportTooLarge {
                    path: target,
                    bytes: text.len(),
                    limit,
                },
            );
            return;
        }
        let id = ctx.map.add(SourceFile::new(target.clone(), text));
        let text_len = ctx.map.get(id).text().len();
        let budget = crate::yaml::file_node_budget(ctx.file_limit);
        let parsed =
            syntax::parse_within(ctx.map.get(id), id, syntax::threads_for(text_len), budget);
        ctx.diags.extend(parsed.diagnostics);
        self.seen.insert(canonical.clone(), self.out.len());
        stack.push((canonical, target.clone()));
        self.visit(ctx, id, &target, &parsed.document, stack);
        stack.pop();
        self.out.push(Imported {
            file: id,
            document: parsed.document,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_join_lexically() {
        assert_eq!(join("suite", "./shared/f.mcpr"), "suite/shared/f.mcpr");
        assert_eq!(join("suite/a", "../b/f.mcpr"), "suite/b/f.mcpr");
        assert_eq!(join("", "../f.mcpr"), "../f.mcpr");
        assert_eq!(join("/abs/x", "./f.mcpr"), "/abs/x/f.mcpr");
        assert!(is_absolute("C:\\x") && is_absolute("/x") && !is_absolute("x/y"));
    }
}
