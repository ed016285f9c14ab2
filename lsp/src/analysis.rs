//! One open document compiled as `mcpr check` compiles it: the entry file from the editor's
//! text, its imports from open documents where the editor has them and from the disk
//! otherwise, through the compiler's `Loader`.

use mcpr_compiler::SourceMap;
use mcpr_compiler::diagnostics::Diagnostic;
use mcpr_compiler::lower::imports::normalise;
use mcpr_compiler::lower::{self, Format, LoadError, Loader, Options};
use mcpr_compiler::source::SourceFile;
use mcpr_compiler::syntax::{self, Document};
use mcpr_runtime::suites::FsLoader;

use crate::store::Store;

/// Reads open documents from the editor's memory and every other file from the disk.
pub struct OverlayLoader<'s> {
    store: &'s Store,
    disk: FsLoader,
}

impl<'s> OverlayLoader<'s> {
    /// A loader over the open documents of `store`.
    pub fn new(store: &'s Store) -> Self {
        OverlayLoader {
            store,
            disk: FsLoader::new("/"),
        }
    }
}

impl Loader for OverlayLoader<'_> {
    fn canonical(&self, path: &str) -> Result<String, LoadError> {
        match self.disk.canonical(path) {
            Ok(c) => Ok(c),
            // A document that is open but not yet saved is known by its path.
            Err(_) if self.store.get(&normalise(path)).is_some() => Ok(normalise(path)),
            Err(e) => Err(e),
        }
    }

    fn read(&self, path: &str) -> Result<String, LoadError> {
        if let Some(doc) = self.store.get(&normalise(path)) {
            return Ok(doc.text.clone());
        }
        if let Ok(c) = self.disk.canonical(path)
            && let Some(doc) = self.store.get(&c)
        {
            return Ok(doc.text.clone());
        }
        self.disk.read(path)
    }
}

/// A file of the compilation (the entry or one it imports) with its parsed tree.
#[derive(Debug)]
pub struct Unit {
    /// Index in the analysis' source map.
    pub file: usize,
    /// The `.mcpr` tree (`None` for YAML/JSON suites and `.mcp` scripts).
    pub document: Option<Document>,
}

/// What the compiler made of one open document.
#[derive(Debug)]
pub struct Analysis {
    /// The sources: the entry is file 0, the imported files follow.
    pub map: SourceMap,
    /// Every diagnostic of the compilation, sorted (all files).
    pub diagnostics: Vec<Diagnostic>,
    /// The entry first, then every imported `.mcpr` file, each with its tree.
    pub units: Vec<Unit>,
    /// The surface format of the entry.
    pub format: Format,
}

impl Analysis {
    /// Compiles the open document at `path` (its text from `store`).
    pub fn of(store: &Store, path: &str, text: &str) -> Analysis {
        let mut map = SourceMap::new();
        let entry = map.add(SourceFile::new(path, text));
        let loader = OverlayLoader::new(store);
        let compiled = lower::compile(&mut map, entry, &loader, &Options::default());
        let format = Format::of(path);
        let mut units = vec![Unit {
            file: entry,
            document: compiled.document,
        }];
        if format == Format::Mcpr && units[0].document.is_none() {
            units[0].document = Some(syntax::parse(map.get(entry), entry).document);
        }
        for file in 1..map.files().len() {
            let document = (Format::of(map.get(file).path()) == Format::Mcpr)
                .then(|| syntax::parse(map.get(file), file).document);
            units.push(Unit { file, document });
        }
        Analysis {
            map,
            diagnostics: compiled.diagnostics,
            units,
            format,
        }
    }

    /// The entry file.
    pub fn entry(&self) -> &SourceFile {
        self.map.get(0)
    }

    /// The tree of the entry (`.mcpr` files only).
    pub fn document(&self) -> Option<&Document> {
        self.units.first().and_then(|u| u.document.as_ref())
    }

    /// The paths of the files the entry imports (transitively).
    pub fn imported_paths(&self) -> impl Iterator<Item = &str> {
        self.map.files()[1..].iter().map(SourceFile::path)
    }
}
