//! The mcpr compiler: MCP Test Language 1 (`.mcpr`) source → located syntax
//! tree → Suite IR, and YAML/JSON suites → located YAML tree → Suite IR, with every problem
//! reported as a located diagnostic. The crate does no I/O of its own: text comes in through
//! the caller.

pub mod bytes;
pub mod command_line;
pub mod diagnostics;
pub mod fmt;
pub mod github;
pub mod ir;
pub mod lint_rules;
pub mod lower;
pub mod names;
pub mod profiles;
pub mod regexp;
pub mod size;
pub mod source;
pub mod stdlib;
pub mod style;
pub mod syntax;
pub mod values;
pub mod yaml;

use source::SourceFile;

/// A set of source files, indexed by the `file` field of diagnostics.
#[derive(Debug, Default, Clone)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a file and returns its index.
    pub fn add(&mut self, file: SourceFile) -> usize {
        self.files.push(file);
        self.files.len() - 1
    }

    /// The file at an index.
    pub fn get(&self, id: usize) -> &SourceFile {
        &self.files[id]
    }

    /// Every file, in insertion order.
    pub fn files(&self) -> &[SourceFile] {
        &self.files
    }
}

/// Checks one suite file of `map` in the format its extension names (`.yaml`, `.yml`,
/// `.json`: a YAML/JSON suite; anything else: `.mcpr`): parses it, reads the imports of a
/// `.mcpr` file through `loader` (adding them to `map`), lowers it to the Suite IR and returns
/// every diagnostic, sorted: with [`lower::Options::keep_diagnostics`], the first of each
/// file worded and the rest as keys to count.
pub fn check(
    map: &mut SourceMap,
    file_id: usize,
    loader: &dyn lower::Loader,
    options: &lower::Options,
) -> diagnostics::Found {
    lower::diagnostics(map, file_id, loader, options)
}
