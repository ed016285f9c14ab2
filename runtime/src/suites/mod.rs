//! Suite files on disk: which files under a path are suites ([`discover`]), reading and
//! compiling them with imports read from the file system ([`FsLoader`]), and `mcpr check`
//! over many files with their data sources ([`check`]).

pub mod check;
mod data_json;
mod discover;
pub mod fix;
pub mod format;
mod loader;

use std::path::Path;

use mcpr_compiler::SourceMap;
use mcpr_compiler::diagnostics::{Diagnostic, Unshown};
use mcpr_compiler::ir::Suite;
use mcpr_compiler::lower::{self, Options};
use mcpr_compiler::source::SourceFile;

pub use discover::{Found, discover, discover_noting, display_path, is_yaml_suite};
pub use loader::FsLoader;

/// A file compiled to a suite, with what the compiler said about it.
#[derive(Debug)]
pub struct Compiled {
    /// The sources read (the file and its imports), for rendering the diagnostics.
    pub map: SourceMap,
    /// Every diagnostic, sorted; with `Options::keep_diagnostics`, the first of each file.
    pub diagnostics: Vec<Diagnostic>,
    /// The diagnostics past `Options::keep_diagnostics`, unworded ([`check::omitted`]
    /// counts them).
    pub unshown: Vec<Unshown>,
    /// The suite, unless the file holds no tests (a file of flows) or has errors.
    pub suite: Option<Suite>,
}

impl Compiled {
    /// Whether a diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error) || self.unshown.iter().any(|u| u.error)
    }
}

/// The size limit of the files a command compiles: `flag` (a command's `--max-file-size`)
/// when given, else `MCPR_MAX_FILE_SIZE` of the command's environment `env`, else the
/// compiler's default (`None`). The error names the variable whose value is not a size.
pub fn file_limit(
    flag: Option<usize>,
    env: &crate::environment::Environment,
) -> Result<Option<usize>, String> {
    if flag.is_some() {
        return Ok(flag);
    }
    match env.non_empty("MCPR_MAX_FILE_SIZE") {
        Some(v) => mcpr_compiler::size::parse(v)
            .map(Some)
            .map_err(|e| format!("MCPR_MAX_FILE_SIZE: {e}")),
        None => Ok(None),
    }
}

/// Reads and compiles one file (`.mcpr`, `.mcp`, or YAML/JSON — Suite IR JSON included —
/// by its extension); imports are read relative to the working folder, as the file's
/// shown path is. The error says why the file could not be read.
pub fn compile_file(path: &Path, options: &Options) -> Result<Compiled, String> {
    let text = crate::files::read_regular(path)
        .and_then(|bytes| {
            String::from_utf8(bytes)
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
        })
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut map = SourceMap::new();
    let id = map.add(SourceFile::new(display_path(path), text));
    let compiled = lower::compile(&mut map, id, &FsLoader::new("."), options);
    Ok(Compiled {
        map,
        diagnostics: compiled.diagnostics,
        unshown: compiled.unshown,
        suite: compiled.suite,
    })
}
