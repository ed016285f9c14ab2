//! Suite files for the commands that run them: compiled (any surface format), their
//! diagnostics printed on stderr.

use std::path::{Path, PathBuf};

use mcpr_compiler::diagnostics::render;
use mcpr_compiler::ir::Suite;
use mcpr_compiler::lower::Options;
use mcpr_runtime::environment::Environment;
use mcpr_runtime::run::SuiteFile;
use mcpr_runtime::suites::check::{DEFAULT_MAX_DIAGNOSTICS, omitted};
use mcpr_runtime::suites::{compile_file, discover, display_path, file_limit};

use crate::args::SizeLimitArg;

/// The compiler's options for the files of a command: its `--max-file-size`, else
/// `MCPR_MAX_FILE_SIZE`, else the default limit.
pub fn options(size: SizeLimitArg) -> Result<Options, String> {
    Ok(Options {
        max_file_bytes: file_limit(size.max_file_size, &Environment::of_process())?,
        ..Options::default()
    })
}

/// The options of a command that runs suites: as `check` does, it prints at most the
/// first [`DEFAULT_MAX_DIAGNOSTICS`] of each file and counts the others (a generated suite
/// of 300,000 tests that save and never read would print 300,000 warnings).
fn bounded(options: &Options) -> Options {
    Options {
        keep_diagnostics: DEFAULT_MAX_DIAGNOSTICS,
        ..*options
    }
}

/// Reads one file into a suite, printing its diagnostics; an error when it cannot be run.
pub fn load(path: &Path, options: &Options) -> Result<Suite, String> {
    suite_of(path, compile_file(path, &bounded(options))?)
}

/// The suite of a compiled file, its diagnostics printed; an error when it cannot be run.
fn suite_of(path: &Path, mut compiled: mcpr_runtime::suites::Compiled) -> Result<Suite, String> {
    let failed = compiled.has_errors();
    if !compiled.diagnostics.is_empty() {
        eprint!("{}", render::short(&compiled.diagnostics, &compiled.map));
    }
    let all = format!(
        "`mcpr check --max-diagnostics 0 {}` shows all",
        display_path(path)
    );
    let unshown = std::mem::take(&mut compiled.unshown);
    for o in omitted(unshown, &compiled.diagnostics, &compiled.map) {
        eprintln!("{}", o.line_with(&all));
    }
    if failed {
        return Err(format!("{}: the suite has errors", display_path(path)));
    }
    compiled.suite.ok_or_else(|| {
        format!(
            "{}: no tests to run (a file of flows is imported by suites, not run)",
            display_path(path)
        )
    })
}

/// A suite with the file's display path and folder (relative data paths start there).
fn file_of(path: &Path, suite: Suite) -> Result<SuiteFile, String> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => ".".into(),
    };
    Ok(SuiteFile {
        suite,
        shown: display_path(path),
        dir,
        lines: Vec::new(),
    })
}

/// `FILE:LINE` when `path` does not exist as given but names an existing file and a line.
fn split_line(path: &Path) -> Option<(PathBuf, u32)> {
    if path.exists() {
        return None;
    }
    let text = path.to_str()?;
    let (file, line) = text.rsplit_once(':')?;
    let line: u32 = line.parse().ok().filter(|n| *n > 0)?;
    let file = PathBuf::from(file);
    file.is_file().then_some((file, line))
}

/// The suites of files and folders, in command-line order (a folder's suites sorted, as
/// `check` finds them); a folder's files of flows alone (imported by suites) are left out.
pub fn load_paths(paths: &[PathBuf], options: &Options) -> Result<Vec<SuiteFile>, String> {
    let mut out: Vec<SuiteFile> = Vec::new();
    // Each file once, at its first place; `whole` when some argument named it without a
    // line (then its lines select nothing less than every test).
    let mut seen: std::collections::HashMap<PathBuf, (usize, bool)> = Default::default();
    for given in paths {
        let (p, line) = match split_line(given) {
            Some((file, line)) => (file, Some(line)),
            None => (given.clone(), None),
        };
        let in_folder = p.is_dir();
        let files = discover(std::slice::from_ref(&p))?;
        if in_folder && files.is_empty() {
            return Err(format!("{}: no suite in this folder", display_path(&p)));
        }
        for f in files {
            if let Some((at, whole)) = seen.get_mut(&f) {
                match line {
                    Some(n) if !*whole => out[*at].lines.push(n),
                    Some(_) => {}
                    None => {
                        *whole = true;
                        out[*at].lines.clear();
                    }
                }
                continue;
            }
            // Each file is compiled once: a folder's file of flows alone (imported by
            // suites) is left out, anything else is a suite or an error.
            let compiled = compile_file(&f, &bounded(options))?;
            if in_folder && !compiled.has_errors() && compiled.suite.is_none() {
                continue;
            }
            seen.insert(f.clone(), (out.len(), line.is_none()));
            let mut file = file_of(&f, suite_of(&f, compiled)?)?;
            file.lines.extend(line);
            out.push(file);
        }
    }
    Ok(out)
}
