//! A file-system loader for the corpus tests (the compiler itself does no I/O; the CLI has
//! its own loader), and the walk that finds corpus files. Each test crate uses some of them.
#![allow(dead_code)]

use mcpr_compiler::lower::{LoadError, Loader};
use std::path::{Path, PathBuf};

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

/// Every `.mcpr` file below the given folders (`root` is the repository).
pub fn mcpr_files(root: &Path, folders: &[&str]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs: Vec<PathBuf> = folders.iter().map(|f| root.join(f)).collect();
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "mcpr") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The options a corpus case asks for on its `# check:` lines, as `mcpr check` takes them:
/// `--pedantic` and `--max-file-size SIZE`.
pub fn check_options(text: &str) -> mcpr_compiler::lower::Options {
    let mut options = mcpr_compiler::lower::Options::default();
    for line in text.lines() {
        let Some(flags) = line.trim().strip_prefix("# check:") else {
            continue;
        };
        let mut words = flags.split_whitespace();
        while let Some(flag) = words.next() {
            match flag {
                "--pedantic" => options.pedantic = true,
                "--max-file-size" => {
                    let size = words.next().expect("a size after --max-file-size");
                    options.max_file_bytes = Some(mcpr_compiler::size::parse(size).unwrap());
                }
                other => panic!("unknown `# check:` flag {other}"),
            }
        }
    }
    options
}
