//! Suite files for the commands that run them: compiled (any surface format), their
//! diagnostics printed on stderr.

use std::path::Path;

use mcpr_compiler::diagnostics::render;
use mcpr_compiler::ir::Suite;
use mcpr_compiler::lower::Options;
use mcpr_runtime::run::SuiteFile;
use mcpr_runtime::suites::{compile_file, display_path};

/// Reads one file into a suite, printing its diagnostics; an error when it cannot be run.
pub fn load(path: &Path) -> Result<Suite, String> {
    let compiled = compile_file(path, &Options::default())?;
    if !compiled.diagnostics.is_empty() {
        eprint!("{}", render::short(&compiled.diagnostics, &compiled.map));
    }
    if compiled.has_errors() {
        return Err(format!("{}: the suite has errors", display_path(path)));
    }
    compiled.suite.ok_or_else(|| {
        format!(
            "{}: no tests to run (a file of flows is imported by suites, not run)",
            display_path(path)
        )
    })
}

/// [`load`], with the file's display path and folder (relative data paths start there).
pub fn load_file(path: &Path) -> Result<SuiteFile, String> {
    let suite = load(path)?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => ".".into(),
    };
    Ok(SuiteFile {
        suite,
        shown: display_path(path),
        dir,
    })
}
