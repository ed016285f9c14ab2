//! `mcpr check PATH…`: compile files (imports included) and report every diagnostic.

use crate::args::{CheckArgs, FormatArg};
use crate::loader::FsLoader;
use crate::output::{self, display_path, use_color};
use mcpr_compiler::diagnostics::render::{self, Summary};
use mcpr_compiler::lower::Options;
use mcpr_compiler::source::SourceFile;
use mcpr_compiler::{SourceMap, diagnostics};
use mcpr_runtime::data::{self, DataError, DataOptions};
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
    let mut data_errors: Vec<DataError> = Vec::new();
    // Imports are read relative to the shown paths, which are relative to the working folder.
    let loader = FsLoader::new(".");
    let options = Options {
        pedantic: args.pedantic,
        ..Options::default()
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
        let found = mcpr_compiler::check(&mut map, id, &loader, &options);
        let clean = !found.iter().any(|d| d.is_error());
        diags.extend(found);
        if args.data && clean {
            data_errors.extend(check_data(&mut map, id, &loader, &options, path));
        }
    }
    diagnostics::sort(&mut diags);
    let summary = Summary::of(&diags, files.len());
    // The summary line counts data errors too (they are not compiler diagnostics).
    let summary_line = match data_errors.len() {
        0 => summary.line(),
        n => {
            let errors = if n == 1 {
                "1 data error".to_string()
            } else {
                format!("{n} data errors")
            };
            if summary.errors + summary.warnings == 0 {
                let files = if files.len() == 1 {
                    "1 file".to_string()
                } else {
                    format!("{} files", files.len())
                };
                format!("{files} checked: {errors}")
            } else {
                format!("{}; {errors}", summary.line())
            }
        }
    };
    match args.format {
        FormatArg::Human => {
            let color = use_color(args.color);
            let text = render::human(&diags, &map, color);
            if !text.is_empty() {
                println!("{text}");
            }
            for e in &data_errors {
                println!("{}", e.render(color));
            }
            println!("{summary_line}");
        }
        FormatArg::Short => {
            print!("{}", render::short(&diags, &map));
            for e in &data_errors {
                println!("{e}");
            }
            println!("{summary_line}");
        }
        FormatArg::Json => {
            let mut v = render::json(&diags, &map, files.len());
            if args.data
                && let Some(obj) = v.as_object_mut()
            {
                obj.insert(
                    "dataErrors".into(),
                    serde_json::Value::Array(data_errors.iter().map(data_json).collect()),
                );
            }
            println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        }
        FormatArg::Github => {
            print!("{}", render::github(&diags, &map));
            for e in &data_errors {
                let mut props = Vec::new();
                if let Some(at) = &e.at {
                    props.push(format!("file={}", at.file));
                    if let Some(l) = at.line {
                        props.push(format!("line={l}"));
                    }
                    if let Some(c) = at.column {
                        props.push(format!("col={c}"));
                    }
                }
                let full = e.to_string();
                let msg = match e.position() {
                    Some(pos) => full
                        .strip_prefix(&format!("{pos}: "))
                        .unwrap_or(&full)
                        .to_string(),
                    None => full.clone(),
                };
                let msg = msg.replace('%', "%25").replace('\n', "%0A");
                println!("::error {}::{msg}", props.join(","));
            }
        }
    }
    if summary.errors > 0 || !data_errors.is_empty() {
        output::USAGE
    } else {
        output::OK
    }
}

/// Compiles a file that checked clean and loads its local data sources.
fn check_data(
    map: &mut SourceMap,
    id: usize,
    loader: &FsLoader,
    options: &Options,
    path: &Path,
) -> Vec<DataError> {
    let compiled = mcpr_compiler::lower::compile(map, id, loader, options);
    let Some(suite) = compiled.suite else {
        return Vec::new();
    };
    let opts = DataOptions {
        base_dir: match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        },
        ..DataOptions::default()
    };
    match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt.block_on(data::check_suite(&suite, &opts)),
        Err(e) => vec![DataError::new(
            "MCP-DATA-032",
            format!("cannot start the async runtime: {e}"),
        )],
    }
}

/// A data error in `--format json`.
fn data_json(e: &DataError) -> serde_json::Value {
    let at = e.at.clone().unwrap_or_default();
    serde_json::json!({
        "code": e.code,
        "message": e.message,
        "source": e.source_name,
        "file": at.file,
        "line": at.line,
        "column": at.column,
        "row": at.row,
        "field": at.field,
        "help": e.help,
    })
}

/// Adds a file, or every suite below a folder (sorted): `.mcpr` files, legacy `.mcp`
/// scripts, and `.yaml`, `.yml` and `.json` files that are suites (see
/// `mcpr_compiler::lower::yaml::is_suite`).
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
        } else if p.extension().is_some_and(|e| e == "mcpr" || e == "mcp") || is_yaml_suite(&p) {
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
