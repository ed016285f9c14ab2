//! `mcpr convert IN [--to mcpr|yaml|json] [-o OUT]`: compile a suite and write it in another
//! surface format. A file with errors is not converted (its diagnostics are printed, exit 2).

use crate::args::ColorArg;
use crate::args::{ConvertArgs, ToArg};
use crate::output::{self, display_path, use_color};
use mcpr_compiler::SourceMap;
use mcpr_compiler::diagnostics::render;
use mcpr_compiler::fmt::{self, Format};
use mcpr_compiler::ir::Suite;
use mcpr_compiler::lower::{self, Options};
use mcpr_compiler::source::SourceFile;
use mcpr_runtime::suites::FsLoader;
use std::path::Path;

/// Runs the command and returns the exit code.
pub fn run(args: ConvertArgs) -> u8 {
    let legacy = args
        .file
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("mcp"));
    let from = input_format(&args.file);
    if from.is_none() && !legacy {
        eprintln!(
            "error: {}: cannot tell the format from the file name; convert reads .mcpr, .yaml, .yml, .json and .mcp files",
            args.file.display()
        );
        return output::USAGE;
    }
    let to = match args.to {
        Some(ToArg::Mcpr) => Format::Mcpr,
        Some(ToArg::Yaml) => Format::Yaml,
        Some(ToArg::Json) => Format::Json,
        // .mcpr → YAML; YAML, JSON and legacy .mcp scripts → .mcpr.
        None if from == Some(Format::Mcpr) => Format::Yaml,
        None => Format::Mcpr,
    };
    let suite = match crate::suites::options(args.size).and_then(|o| load(&args.file, &o)) {
        Ok(s) => s,
        Err(msg) => {
            if !msg.is_empty() {
                eprintln!("error: {msg}");
            }
            return output::USAGE;
        }
    };
    let text = if to == Format::Mcpr {
        // A legacy script's steps are named after their command lines, which no phrase
        // gives: they become comments above the phrases (docs/convert.md).
        let options = fmt::print::Options {
            names_as_comments: legacy,
        };
        match fmt::to_mcpr_checked_with(&suite, options) {
            Ok(t) => t,
            Err(msg) => {
                eprintln!(
                    "error: {}: {msg}; convert to YAML or JSON instead",
                    display_path(&args.file)
                );
                return output::USAGE;
            }
        }
    } else {
        fmt::render(&suite, to)
    };
    match &args.output {
        Some(out) => {
            if let Err(e) = std::fs::write(out, text) {
                eprintln!("error: cannot write {}: {e}", out.display());
                return output::USAGE;
            }
        }
        None => print!("{text}"),
    }
    output::OK
}

/// The surface format of an input file, by its extension; `None` for a legacy `.mcp` script
/// (read by the compiler, no output format of its own) and for anything unknown.
fn input_format(path: &Path) -> Option<Format> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "mcpr" => Some(Format::Mcpr),
        "yaml" | "yml" => Some(Format::Yaml),
        "json" => Some(Format::Json),
        _ => None,
    }
}

/// Compiles the input, whatever its format (`.mcpr` with its imports, YAML/JSON suites with
/// located MCPLANG 6xx diagnostics, legacy `.mcp` scripts). Diagnostics are printed to
/// standard error; the error text is empty when they already said everything.
fn load(path: &Path, options: &Options) -> Result<Suite, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        format!(
            "{} is not UTF-8 text (invalid byte at offset {})",
            path.display(),
            e.utf8_error().valid_up_to()
        )
    })?;
    let shown = display_path(path);
    let mut map = SourceMap::new();
    let id = map.add(SourceFile::new(shown.clone(), text));
    let compiled = lower::compile(&mut map, id, &FsLoader::new("."), options);
    if !compiled.diagnostics.is_empty() {
        let color =
            use_color(ColorArg::Auto) && std::io::IsTerminal::is_terminal(&std::io::stderr());
        eprintln!("{}", render::human(&compiled.diagnostics, &map, color));
    }
    if compiled.diagnostics.iter().any(|d| d.is_error()) {
        eprintln!("error: {shown} has errors; nothing was converted");
        return Err(String::new());
    }
    compiled.suite.ok_or_else(|| {
        format!(
            "{shown}: no tests to convert (a file of flows is imported by suites, not converted)"
        )
    })
}
