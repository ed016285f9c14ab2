//! `mcpr check PATH…`: compile files (imports included) and report every diagnostic.

use crate::args::{CheckArgs, FormatArg};
use crate::loader::FsLoader;
use crate::output::{self, display_path, use_color};
use mcpr_compiler::diagnostics::render::{self, Summary};
use mcpr_compiler::lower::Options;
use mcpr_compiler::source::SourceFile;
use mcpr_compiler::{SourceMap, diagnostics};
use std::path::{Path, PathBuf};

/// Runs the command and returns the exit code.
pub fn run(args: CheckArgs) -> u8 {
    let mut files = Vec::new();
    for p in &args.paths {
        if let Err(msg) = collect(p, &mut files) {
            eprintln!("error: {msg}");
            return output::USAGE;
        }
    }
    files.sort();
    files.dedup();
    let mut map = SourceMap::new();
    let mut diags = Vec::new();
    // Imports are read relative to the shown paths, which are relative to the working folder.
    let loader = FsLoader::new(".");
    let options = Options {
        pedantic: args.pedantic,
    };
    for path in &files {
        let text = match std::fs::read(path) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!(
                        "error: {} is not UTF-8 text (invalid byte at offset {})",
                        path.display(),
                        e.utf8_error().valid_up_to()
                    );
                    return output::USAGE;
                }
            },
            Err(e) => {
                eprintln!("error: cannot read {}: {e}", path.display());
                return output::USAGE;
            }
        };
        let id = map.add(SourceFile::new(display_path(path), text));
        diags.extend(mcpr_compiler::check(&mut map, id, &loader, &options));
    }
    diagnostics::sort(&mut diags);
    let summary = Summary::of(&diags, files.len());
    match args.format {
        FormatArg::Human => {
            let color = use_color(args.color);
            let text = render::human(&diags, &map, color);
            if !text.is_empty() {
                println!("{text}");
            }
            println!("{}", summary.line());
        }
        FormatArg::Short => {
            print!("{}", render::short(&diags, &map));
            println!("{}", summary.line());
        }
        FormatArg::Json => {
            let v = render::json(&diags, &map, files.len());
            println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        }
        FormatArg::Github => print!("{}", render::github(&diags, &map)),
    }
    if summary.errors > 0 {
        output::USAGE
    } else {
        output::OK
    }
}

/// Adds a file, or every suite below a folder (sorted): `.mcpr` files, and `.yaml`, `.yml`
/// and `.json` files that are suites (see `mcpr_compiler::lower::yaml::is_suite`).
fn collect(path: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let meta =
        std::fs::metadata(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if meta.is_file() {
        out.push(path.to_path_buf());
        return Ok(());
    }
    let mut entries: Vec<_> = std::fs::read_dir(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, out)?;
        } else if p.extension().is_some_and(|e| e == "mcpr") || is_yaml_suite(&p) {
            out.push(p);
        }
    }
    Ok(())
}

/// Whether a file found in a folder is a YAML/JSON suite (unreadable files are not).
fn is_yaml_suite(path: &Path) -> bool {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    if !matches!(ext.as_deref(), Some("yaml" | "yml" | "json")) {
        return false;
    }
    std::fs::read_to_string(path).is_ok_and(|t| mcpr_compiler::lower::yaml::is_suite(&t))
}
