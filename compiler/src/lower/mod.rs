//! Lowering: the located tree of a `.mcpr` file (and the flows of the files it imports)
//! becomes one Suite IR, with every semantic problem reported as a located MCPLANG
//! diagnostic in the file the user wrote.
//!
//! The compiler reads imported files only through a [`Loader`]; the CLI implements it on the
//! file system, tests and editors hand text from memory ([`MemoryLoader`]).

mod data;
mod deps;
mod flows;
pub mod imports;
pub mod legacy;
mod mcpr;
pub mod values;

pub use imports::{LoadError, Loader, MemoryLoader};
pub use mcpr::BUILT_IN_FUNCTIONS;

use crate::SourceMap;
use crate::diagnostics::{Diagnostic, Problem};
use crate::ir::Suite;
use crate::source::Span;
use crate::syntax;

/// Choices of a compilation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// Also report warnings that are often intended (an export nobody reads).
    pub pedantic: bool,
}

/// What a compilation produced.
#[derive(Debug)]
pub struct Compiled {
    /// The suite, when the file has no errors and has tests (a flow library has none).
    pub suite: Option<Suite>,
    /// Every diagnostic (syntax and semantics, of the entry and its imports), sorted.
    pub diagnostics: Vec<Diagnostic>,
    /// The parsed entry file (empty for formats other than `.mcpr`).
    pub document: syntax::Document,
}

/// The surface formats the compiler reads, told apart by the file extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// MCP Test Language 1 (`.mcpr`, and any unknown extension).
    Mcpr,
    /// A legacy mcp-tester script (`.mcp`).
    Legacy,
}

impl Format {
    /// The format of a file, from its path.
    pub fn of(path: &str) -> Format {
        let ext = path
            .rsplit(['/', '\\'])
            .next()
            .and_then(|base| base.rsplit_once('.'))
            .map(|(_, e)| e.to_ascii_lowercase());
        match ext.as_deref() {
            Some("mcp") => Format::Legacy,
            _ => Format::Mcpr,
        }
    }
}

/// State of the import stage.
pub(crate) struct Ctx<'a> {
    pub map: &'a mut SourceMap,
    pub entry: usize,
    pub loader: &'a dyn Loader,
    pub diags: Vec<Diagnostic>,
}

/// State of the lowering walk (after every file is loaded).
pub struct Lower<'a> {
    map: &'a SourceMap,
    entry: usize,
    options: Options,
    diags: Vec<Diagnostic>,
}

impl Lower<'_> {
    fn report(&mut self, problem: Problem, file: usize, span: Span) {
        self.diags.push(Diagnostic::new(problem, file, span));
    }
}

/// Compiles the file `entry` of `map`: parses it, reads its imports through `loader` (adding
/// them to `map`), and lowers it to the Suite IR.
pub fn compile(
    map: &mut SourceMap,
    entry: usize,
    loader: &dyn Loader,
    options: &Options,
) -> Compiled {
    match Format::of(map.get(entry).path()) {
        Format::Legacy => {
            let (suite, diagnostics) = legacy::compile(map, entry);
            return Compiled {
                suite,
                diagnostics,
                document: syntax::Document { nodes: Vec::new() },
            };
        }
        Format::Mcpr => {}
    }
    let parsed = syntax::parse(map.get(entry), entry);
    let mut ctx = Ctx {
        map,
        entry,
        loader,
        diags: parsed.diagnostics,
    };
    let imported = imports::resolve(&mut ctx, &parsed.document);
    let Ctx { map, diags, .. } = ctx;
    let mut l = Lower {
        map,
        entry,
        options: *options,
        diags,
    };
    let docs: Vec<(usize, &syntax::Document)> =
        imported.iter().map(|i| (i.file, &i.document)).collect();
    let suite = mcpr::lower(&mut l, &parsed.document, &docs);
    let mut diagnostics = l.diags;
    let failed = diagnostics.iter().any(Diagnostic::is_error);
    if failed {
        // "Never used" warnings are noise while the file does not compile.
        diagnostics.retain(|d| d.code.number() < 900);
    }
    crate::diagnostics::sort(&mut diagnostics);
    Compiled {
        suite: if failed { None } else { suite },
        diagnostics,
        document: parsed.document,
    }
}
