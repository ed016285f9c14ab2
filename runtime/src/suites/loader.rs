//! The file-system side of imports: the compiler reads imported files through its `Loader`
//! trait and does no I/O of its own; the commands hand it this one.

use mcpr_compiler::lower::{LoadError, Loader};
use std::path::{Path, PathBuf};

/// Reads files relative to a base folder (absolute paths as they are).
#[derive(Debug, Clone)]
pub struct FsLoader {
    base: PathBuf,
}

impl FsLoader {
    /// A loader resolving relative paths against `base`.
    pub fn new(base: impl Into<PathBuf>) -> Self {
        Self { base: base.into() }
    }

    fn full(&self, path: &str) -> PathBuf {
        let p = Path::new(path);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.base.join(p)
        }
    }
}

fn reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "there is no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        std::io::ErrorKind::InvalidData => "it is not UTF-8 text".into(),
        // `files::read_regular` says what the file is instead.
        std::io::ErrorKind::InvalidInput => e.to_string(),
        _ => e.to_string(),
    }
}

impl Loader for FsLoader {
    fn canonical(&self, path: &str) -> Result<String, LoadError> {
        std::fs::canonicalize(self.full(path))
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .map_err(|e| LoadError { reason: reason(&e) })
    }

    fn read(&self, path: &str) -> Result<String, LoadError> {
        // Regular files only: a named pipe would wait for a writer forever.
        let bytes = crate::files::read_regular(&self.full(path))
            .map_err(|e| LoadError { reason: reason(&e) })?;
        String::from_utf8(bytes).map_err(|_| LoadError {
            reason: "it is not UTF-8 text".into(),
        })
    }
}
