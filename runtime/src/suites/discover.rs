//! Which files are suites: a file named on the command line is one, whatever its name; a
//! folder holds every `.mcpr` file, every legacy `.mcp` script and every `.yaml`, `.yml`
//! or `.json` file whose top level has `version` and `tests`, searched recursively.

use std::path::{Path, PathBuf};

/// The suite files of `paths` (files as they are, folders searched), sorted and without
/// duplicates. The error names a path that cannot be read.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for p in paths {
        collect(p, &mut files)?;
    }
    files.sort();
    files.dedup();
    Ok(files)
}

/// Adds a file, or every suite below a folder (sorted).
fn collect(path: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let meta =
        std::fs::metadata(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if meta.is_file() {
        out.push(path.to_path_buf());
        return Ok(());
    }
    let mut entries: Vec<_> = std::fs::read_dir(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, out)?;
        } else if p.extension().is_some_and(|e| e == "mcpr" || e == "mcp") || is_yaml_suite(&p) {
            out.push(p);
        }
    }
    Ok(())
}

/// Whether a file found in a folder is a YAML/JSON suite (unreadable files are not).
pub fn is_yaml_suite(path: &Path) -> bool {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    if !matches!(ext.as_deref(), Some("yaml" | "yml" | "json")) {
        return false;
    }
    std::fs::read_to_string(path).is_ok_and(|t| mcpr_compiler::lower::yaml::is_suite(&t))
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
