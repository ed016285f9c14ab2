//! Which files are suites: a file named on the command line is one, whatever its name; a
//! folder holds every `.mcpr` file, every legacy `.mcp` script and every `.yaml`, `.yml`
//! or `.json` file whose top level has `version` and `tests`, searched recursively as ruff
//! and ripgrep search (the `ignore` crate): what `.gitignore` (and `.ignore`) files ignore
//! is left out, and so are hidden files and folders and the folders other tools fill
//! (`node_modules`, `target`, `__pycache__`, `.venv`). Links are followed; a folder a link
//! leads back to is named once.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Folders never searched: what package managers and build tools fill. Hidden folders
/// (`.git`, `.venv`, …) are left out as hidden.
const SKIPPED_FOLDERS: &[&str] = &["node_modules", "target", "__pycache__", "venv"];

/// The suite files of `paths` (files as they are, folders searched), sorted and without
/// duplicates. The error names a path that cannot be read.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    discover_noting(paths).map(|found| found.files)
}

/// What a search for suite files found.
#[derive(Debug, Default)]
pub struct Found {
    /// The suite files, sorted and without duplicates.
    pub files: Vec<PathBuf>,
    /// What the search passed over in folders, one sentence each: a file with a suite's
    /// name that is no regular file (a named pipe would be waited on forever), a folder
    /// reached again through a link.
    pub notes: Vec<String>,
}

/// [`discover`], with notes of what the search of folders passed over. A file named on the
/// command line that is not a regular file is an error naming it; one found in a folder is
/// passed over with a note. A folder a link leads back to is named once in a note rather
/// than followed until the path is too long.
pub fn discover_noting(paths: &[PathBuf]) -> Result<Found, String> {
    let mut found = Found::default();
    let mut searched = HashSet::new();
    for p in paths {
        collect(p, &mut found, &mut searched)?;
    }
    found.files.sort();
    found.files.dedup();
    Ok(found)
}

/// Adds a file, or every suite below a folder.
fn collect(path: &Path, out: &mut Found, searched: &mut HashSet<PathBuf>) -> Result<(), String> {
    let meta =
        std::fs::metadata(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if meta.is_file() {
        out.files.push(path.to_path_buf());
        return Ok(());
    }
    if !meta.is_dir() {
        return Err(format!(
            "cannot read {}: it is {}, and only regular files are read as suites",
            path.display(),
            crate::files::kind_of(&meta)
        ));
    }
    // A folder named twice (or inside another one named) is searched once.
    let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    if !searched.insert(key) {
        return Ok(());
    }
    let walk = ignore::WalkBuilder::new(path)
        .standard_filters(true)
        // A project's .gitignore counts whether or not the folder is a git checkout, and
        // the machine's own git settings do not change what a run finds.
        .require_git(false)
        .git_global(false)
        .follow_links(true)
        .sort_by_file_path(|a, b| a.cmp(b))
        .filter_entry(|e| {
            e.depth() == 0
                || !e.file_type().is_some_and(|t| t.is_dir())
                || !SKIPPED_FOLDERS.contains(&e.file_name().to_string_lossy().as_ref())
        })
        .build();
    for entry in walk {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => match looped(&e) {
                Some((child, ancestor)) => {
                    out.notes.push(format!(
                        "{} was not searched again: it leads to {}, which was searched already",
                        child.display(),
                        ancestor.display()
                    ));
                    continue;
                }
                None => return Err(format!("cannot search {}: {e}", path.display())),
            },
        };
        if entry.depth() == 0 || entry.file_type().is_some_and(|t| t.is_dir()) {
            continue;
        }
        let p = entry.path();
        let suite_name = p.extension().is_some_and(|e| {
            let e = e.to_string_lossy().to_ascii_lowercase();
            matches!(e.as_str(), "mcpr" | "mcp" | "yaml" | "yml" | "json")
        });
        if !suite_name {
            continue;
        }
        let Ok(meta) = std::fs::metadata(p) else {
            continue;
        };
        if !meta.is_file() {
            out.notes.push(format!(
                "{} was passed over: it is {}, and only regular files are read as suites",
                p.display(),
                crate::files::kind_of(&meta)
            ));
        } else if p.extension().is_some_and(|e| e == "mcpr" || e == "mcp") || is_yaml_suite(p) {
            out.files.push(p.to_path_buf());
        }
    }
    Ok(())
}

/// The link and the folder it leads back to, when the search error is a loop.
fn looped(e: &ignore::Error) -> Option<(PathBuf, PathBuf)> {
    match e {
        ignore::Error::Loop { ancestor, child } => Some((child.clone(), ancestor.clone())),
        ignore::Error::WithPath { err, .. }
        | ignore::Error::WithDepth { err, .. }
        | ignore::Error::WithLineNumber { err, .. } => looped(err),
        _ => None,
    }
}

/// Whether a file found in a folder is a YAML/JSON suite (unreadable files are not).
pub fn is_yaml_suite(path: &Path) -> bool {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    if !matches!(ext.as_deref(), Some("yaml" | "yml" | "json")) {
        return false;
    }
    crate::files::read_regular(path)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .is_some_and(|t| mcpr_compiler::lower::yaml::is_suite(&t))
}

/// The path as shown to people: relative to the working directory when the file lies
/// below it, with `/` separators.
pub fn display_path(path: &Path) -> String {
    let cwd = std::env::current_dir().ok();
    let shown = match (&cwd, path.canonicalize()) {
        (Some(cwd), Ok(abs)) => match abs.strip_prefix(cwd.canonicalize().unwrap_or(cwd.clone())) {
            Ok(rel) => rel.to_path_buf(),
            Err(_) => path.to_path_buf(),
        },
        _ => path.to_path_buf(),
    };
    shown.to_string_lossy().replace('\\', "/")
}
