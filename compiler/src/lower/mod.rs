//! Lowering: the located tree of a `.mcpr` file (and the flows of the files it imports), or
//! a YAML/JSON suite, or a legacy `.mcp` script, becomes one Suite IR, with every semantic problem reported as a located
//! MCPLANG diagnostic in the file the user wrote. [`compile`] picks the format from the entry
//! file's extension ([`Format::of`]).
//!
//! The compiler reads imported files only through a [`Loader`]; the CLI implements it on the
//! file system, tests and editors hand text from memory ([`MemoryLoader`]).

mod data;
mod deps;
mod flows;
pub use flows::MAX_FLOW_STATEMENTS;
pub mod functions;
pub mod imports;
pub mod legacy;
mod mcpr;
mod validate;
pub mod yaml;

pub use functions::FunctionModules;
pub use imports::{LoadError, Loader, MemoryLoader};
pub use mcpr::BUILT_IN_FUNCTIONS;

use crate::SourceMap;
use crate::diagnostics::{Collected, Diagnostic, Found, Problem, Surface, Unshown};
use crate::ir::Suite;
use crate::source::{SourceFile, Span};
use crate::syntax;

/// Choices of a compilation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// Also report warnings that are often intended (an export nobody reads).
    pub pedantic: bool,
    /// Threads for parsing and lowering a `.mcpr` file: 0 decides by the file's size
    /// ([`syntax::threads_for`]). The result is the same for every number.
    pub threads: usize,
    /// The largest file a compilation reads, in bytes: the main file of any format and each
    /// imported file (MCPLANG607, MCPLANG305). `None` is [`DEFAULT_MAX_FILE_BYTES`].
    pub max_file_bytes: Option<usize>,
    /// Which test bodies `check` lowers in parts, letting go of the steps judged (the
    /// default suits every file; tests make every body long to compare the two ways).
    pub long_bodies: syntax::LongBodies,
    /// How many diagnostics of each file `check` keeps worded; the others are kept as
    /// keys, to be counted (`mcpr check --max-diagnostics`). 0 keeps all (the default).
    pub keep_diagnostics: usize,
}

// The default lives with the other size rules, where the parser reads it too.
pub use crate::size::DEFAULT_MAX_FILE_BYTES;

impl Options {
    /// The size limit of a file, in bytes.
    pub fn file_limit(&self) -> usize {
        self.max_file_bytes.unwrap_or(DEFAULT_MAX_FILE_BYTES)
    }

    /// The number of threads for a text of `len` bytes.
    fn threads_for(&self, len: usize) -> usize {
        if self.threads == 0 {
            syntax::threads_for(len)
        } else {
            self.threads
        }
    }
}

/// The surface format of a suite file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// MCP Test Language 1 (`.mcpr`, and any extension not listed below).
    Mcpr,
    /// A YAML or JSON suite (`.yaml`, `.yml`, `.json`).
    Yaml,
    /// A legacy mcp-tester script (`.mcp`).
    Legacy,
}

impl Format {
    /// The format of a file, by the extension of its path (case-insensitive).
    pub fn of(path: &str) -> Format {
        let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
        let ext = name
            .rsplit_once('.')
            .map(|(_, e)| e.to_ascii_lowercase())
            .unwrap_or_default();
        match ext.as_str() {
            "yaml" | "yml" | "json" => Format::Yaml,
            "mcp" => Format::Legacy,
            _ => Format::Mcpr,
        }
    }
}

/// What a compilation produced.
#[derive(Debug)]
pub struct Compiled {
    /// The suite, when the file has no errors and has tests (a flow library has none).
    pub suite: Option<Suite>,
    /// Every diagnostic (syntax and semantics, of the entry and its imports), sorted; with
    /// [`Options::keep_diagnostics`], the first of each file only.
    pub diagnostics: Vec<Diagnostic>,
    /// The diagnostics past [`Options::keep_diagnostics`] (none without it), sorted.
    pub unshown: Vec<Unshown>,
    /// The parsed entry file, for `.mcpr` files (YAML/JSON suites have no syntax tree).
    pub document: Option<syntax::Document>,
}

/// State of the import stage.
pub(crate) struct Ctx<'a> {
    pub map: &'a mut SourceMap,
    pub entry: usize,
    pub loader: &'a dyn Loader,
    pub diags: Vec<Diagnostic>,
    /// The size limit of an imported file, in bytes.
    pub file_limit: usize,
}

/// State of the lowering walk (after every file is loaded).
pub struct Lower<'a> {
    map: &'a SourceMap,
    entry: usize,
    options: Options,
    diags: Collected,
    /// The format being lowered, for the wording of shared checks.
    surface: Surface,
    /// An imported file could not be read (see [`Lower::import_failed`]).
    import_failed: bool,
    /// The custom-function modules of the entry file and the names they declare.
    functions: &'a FunctionModules,
    /// The paths of the map's files as step locations share them.
    paths: Paths,
}

/// The path of each file of a map as the locations of its steps share it: made once per file
/// for each [`Lower`] (one per thread, so no two threads count references of one path).
#[derive(Debug, Default)]
struct Paths(std::cell::RefCell<Vec<Option<std::sync::Arc<str>>>>);

impl Paths {
    /// The shared path of file `id` of `map`.
    fn of(&self, map: &SourceMap, id: usize) -> std::sync::Arc<str> {
        let mut paths = self.0.borrow_mut();
        if paths.len() <= id {
            paths.resize(id + 1, None);
        }
        paths[id]
            .get_or_insert_with(|| std::sync::Arc::from(map.get(id).path()))
            .clone()
    }
}

/// What a file that declares no function modules has of them.
static NO_FUNCTIONS: FunctionModules = FunctionModules {
    modules: Vec::new(),
    names: None,
    unreadable: Vec::new(),
};

impl Lower<'_> {
    fn report(&mut self, problem: Problem, file: usize, span: Span) {
        self.diags.push(Diagnostic::new(problem, file, span));
    }

    /// Sets aside what was reported so far, for an attempt whose problems may be taken
    /// back ([`Self::resume`]).
    fn set_aside(&mut self) -> Collected {
        let fresh = self.diags.empty_like();
        std::mem::replace(&mut self.diags, fresh)
    }

    /// Brings back what [`Self::set_aside`] returned, with what was reported since when
    /// `keep_since` is set (else that is taken back).
    fn resume(&mut self, before: Collected, keep_since: bool) {
        let since = std::mem::replace(&mut self.diags, before);
        if keep_since {
            self.diags.append(since);
        }
    }

    /// Whether an imported file could not be read: names it would have defined are then
    /// not reported as unknown.
    fn import_failed(&self) -> bool {
        self.import_failed
    }
}

/// Whether `diags` hold an error of the imports (the 3xx family).
fn import_failed(diags: &[Diagnostic]) -> bool {
    diags
        .iter()
        .any(|d| d.is_error() && (300..400).contains(&d.code.number()))
}

/// Compiles the file `entry` of `map` to the Suite IR, in the format its extension names.
pub fn compile(
    map: &mut SourceMap,
    entry: usize,
    loader: &dyn Loader,
    options: &Options,
) -> Compiled {
    compile_keeping(map, entry, loader, options, true)
}

/// The diagnostics [`compile`] finds, in less memory: no syntax tree and no whole IR are
/// kept; each test's part of the tree is dropped as soon as the test is lowered, and each
/// test is validated at once and reduced to what the suite-level checks read of it (what
/// `check` needs), and at most [`Options::keep_diagnostics`] of each file worded.
pub fn diagnostics(
    map: &mut SourceMap,
    entry: usize,
    loader: &dyn Loader,
    options: &Options,
) -> Found {
    let compiled = compile_keeping(map, entry, loader, options, false);
    Found {
        worded: compiled.diagnostics,
        unshown: compiled.unshown,
    }
}

/// [`compile`], keeping the entry's syntax tree in the result when `keep_tree` is set.
fn compile_keeping(
    map: &mut SourceMap,
    entry: usize,
    loader: &dyn Loader,
    options: &Options,
    keep_tree: bool,
) -> Compiled {
    crate::names::reset_suggestion_budget();
    if let Some(too_large) = size_check(map.get(entry), entry, options.file_limit()) {
        let mut diags = Collected::new(options.keep_diagnostics);
        diags.push(too_large);
        return finish(None, diags, None);
    }
    let mut compiled = match Format::of(map.get(entry).path()) {
        Format::Mcpr if keep_tree => compile_mcpr(map, entry, loader, options),
        Format::Mcpr => check_mcpr(map, entry, loader, options),
        Format::Yaml => compile_yaml(map, entry, loader, options, keep_tree),
        Format::Legacy => {
            let (suite, diagnostics) = legacy::compile(map, entry, options.keep_diagnostics);
            finish(suite, diagnostics, None)
        }
    };
    crate::diagnostics::fix::settle(&mut compiled.diagnostics, map);
    compiled
}

/// MCPLANG607 when the main file is larger than `limit`, located on the line where the limit
/// is crossed; nothing else of such a file is read.
fn size_check(source: &SourceFile, file: usize, limit: usize) -> Option<Diagnostic> {
    let text = source.text();
    if text.len() <= limit {
        return None;
    }
    let at = source.floor_char_boundary(limit);
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let problem = Problem::SuiteTooLarge {
        bytes: text.len(),
        limit,
    };
    Some(Diagnostic::new(problem, file, Span::new(line_start, at)))
}

/// Compiles a YAML or JSON suite (which imports nothing); without `whole`, for its
/// diagnostics only (its tests' steps are dropped once judged).
fn compile_yaml(
    map: &SourceMap,
    entry: usize,
    loader: &dyn Loader,
    options: &Options,
    whole: bool,
) -> Compiled {
    let mut l = Lower {
        map,
        entry,
        options: *options,
        diags: Collected::new(options.keep_diagnostics),
        surface: Surface::Yaml,
        import_failed: false,
        functions: &NO_FUNCTIONS,
        paths: Paths::default(),
    };
    let suite = yaml::lower(&mut l, loader, whole);
    finish(suite, l.diags, None)
}

/// Compiles a `.mcpr` file: parses it, reads its imports through `loader` (adding them to
/// `map`), and lowers it, keeping its syntax tree.
fn compile_mcpr(
    map: &mut SourceMap,
    entry: usize,
    loader: &dyn Loader,
    options: &Options,
) -> Compiled {
    let threads = options.threads_for(map.get(entry).text().len());
    let budget = crate::yaml::file_node_budget(options.file_limit());
    let parsed = syntax::parse_within(map.get(entry), entry, threads, budget);
    let (imported, import_diags) = read_imports(map, entry, loader, options, &parsed.document);
    let modules = read_functions(map, entry, loader, &parsed.document);
    let mut diags = Collected::new(options.keep_diagnostics);
    diags.extend(parsed.diagnostics);
    let mut l = lowering(map, entry, options, diags, import_diags);
    l.functions = &modules;
    let docs: Vec<(usize, &syntax::Document)> =
        imported.iter().map(|i| (i.file, &i.document)).collect();
    let mut document = parsed.document;
    let mut suite = mcpr::lower(&mut l, &mut document, &docs, threads);
    if let Some(s) = &mut suite
        && !l.diags.has_error()
    {
        validate::lowered(&mut l, s);
    }
    finish(suite, l.diags, Some(document))
}

/// [`compile_mcpr`] for `check`, in far less memory: the file is parsed as an outline first,
/// and each test's body is parsed, lowered, judged alone and dropped in turn
/// ([`mcpr::lower_outline`]). When the file's YAML passes its budget (a hostile file), it is
/// outlined again, cut where it passed ([`syntax::Outline::cut_at_budget`]) and lowered again.
fn check_mcpr(
    map: &mut SourceMap,
    entry: usize,
    loader: &dyn Loader,
    options: &Options,
) -> Compiled {
    let threads = options.threads_for(map.get(entry).text().len());
    let budget = crate::yaml::file_node_budget(options.file_limit());
    let long = (options.long_bodies, MAX_FLOW_STATEMENTS);
    let keep = options.keep_diagnostics;
    let mut outline = syntax::outline(map.get(entry), entry, threads, budget, (long, keep));
    let (imported, import_diags) = read_imports(map, entry, loader, options, &outline.document);
    let modules = read_functions(map, entry, loader, &outline.document);
    let docs: Vec<(usize, &syntax::Document)> =
        imported.iter().map(|i| (i.file, &i.document)).collect();
    let mut cut = false;
    loop {
        let parse_diags = std::mem::take(&mut outline.diagnostics);
        let mut l = lowering(map, entry, options, parse_diags, import_diags.clone());
        l.functions = &modules;
        let mut judged = validate::Judged::new(keep);
        match mcpr::lower_outline(&mut l, outline, &docs, threads, &mut judged) {
            Some(mut suite) => {
                if let Some(s) = &mut suite
                    && !l.diags.has_error()
                {
                    validate::judged(&mut l, s, judged);
                }
                return finish(suite, l.diags, None);
            }
            // Once cut, the file's YAML no longer passes its budget.
            None if cut => return finish(None, l.diags, None),
            None => {
                outline = syntax::outline(map.get(entry), entry, threads, budget, (long, keep));
                outline.cut_at_budget(map.get(entry), entry);
                cut = true;
            }
        }
    }
}

/// Reads the custom-function modules `document` declares.
fn read_functions(
    map: &SourceMap,
    entry: usize,
    loader: &dyn Loader,
    document: &syntax::Document,
) -> FunctionModules {
    let shown = map.get(entry).path().to_string();
    functions::read_mcpr(loader, entry, &shown, document)
}

/// Reads the files `document` imports (adding them to `map`), with the problems found.
fn read_imports(
    map: &mut SourceMap,
    entry: usize,
    loader: &dyn Loader,
    options: &Options,
    document: &syntax::Document,
) -> (Vec<imports::Imported>, Vec<Diagnostic>) {
    let mut ctx = Ctx {
        map,
        entry,
        loader,
        diags: Vec::new(),
        file_limit: options.file_limit(),
    };
    let imported = imports::resolve(&mut ctx, document);
    (imported, ctx.diags)
}

/// The state of lowering the entry file, with the problems found so far.
fn lowering<'m>(
    map: &'m SourceMap,
    entry: usize,
    options: &Options,
    mut diags: Collected,
    import_diags: Vec<Diagnostic>,
) -> Lower<'m> {
    let import_failed = import_failed(&import_diags);
    diags.extend(import_diags);
    Lower {
        map,
        entry,
        options: *options,
        import_failed,
        diags,
        surface: Surface::Mcpr,
        functions: &NO_FUNCTIONS,
        paths: Paths::default(),
    }
}

/// Sorts the diagnostics (dropping the "never used" notes of a file that does not
/// compile: [`Collected::finish`]) and keeps the suite only when there is no error.
fn finish(
    suite: Option<Suite>,
    diagnostics: Collected,
    document: Option<syntax::Document>,
) -> Compiled {
    let failed = diagnostics.has_error();
    let Found {
        worded: mut diagnostics,
        unshown,
    } = diagnostics.finish();
    // A module that cannot be read is reported by each call it leaves unchecked: once.
    diagnostics
        .dedup_by(|a, b| a.code == crate::diagnostics::Code::FunctionModuleUnreadable && a == b);
    // The compiler always writes the IR's layout version, whichever format the suite came
    // in (a YAML suite usually leaves it out).
    let suite = suite.map(|mut s| {
        s.ir_version.get_or_insert(crate::ir::IR_VERSION);
        s
    });
    Compiled {
        suite: if failed { None } else { suite },
        diagnostics,
        unshown,
        document,
    }
}

#[cfg(test)]
mod tests {
    use super::Format;

    #[test]
    fn the_extension_picks_the_format() {
        for (path, format) in [
            ("suite.mcpr", Format::Mcpr),
            ("dir.v2/suite", Format::Mcpr),
            ("suites.yaml/suite", Format::Mcpr),
            ("suite.yaml", Format::Yaml),
            ("a/b/suite.YML", Format::Yaml),
            ("out.ir.json", Format::Yaml),
            ("notes.txt", Format::Mcpr),
            ("old/script.mcp", Format::Legacy),
            ("SCRIPT.MCP", Format::Legacy),
        ] {
            assert_eq!(Format::of(path), format, "{path}");
        }
    }
}
