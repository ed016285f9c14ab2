//! A file-system loader for the corpus tests (the compiler itself does no I/O; the CLI has
//! its own loader).

use mcpr_compiler::lower::{LoadError, Loader};
use std::path::PathBuf;

/// The reason shown for a file that cannot be read (the CLI words it the same way).
fn reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "there is no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        std::io::ErrorKind::InvalidData => "it is not UTF-8 text".into(),
        _ => e.to_string(),
    }
}

/// Reads files relative to a folder.
pub struct DirLoader(pub PathBuf);

impl Loader for DirLoader {
    fn canonical(&self, path: &str) -> Result<String, LoadError> {
        std::fs::canonicalize(self.0.join(path))
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .map_err(|e| LoadError { reason: reason(&e) })
    }

    fn read(&self, path: &str) -> Result<String, LoadError> {
        let full = self.0.join(path);
        if full.is_dir() {
            return Err(LoadError {
                reason: "it is a folder".into(),
            });
        }
        std::fs::read_to_string(full).map_err(|e| LoadError { reason: reason(&e) })
    }
}
