//! `mcpr compile FILE --emit ast|ir`: print the located tree or the Suite IR as JSON.

use crate::args::{CompileArgs, EmitArg};
use crate::output::{self, display_path};
use mcpr_compiler::diagnostics::render;
use mcpr_compiler::lower::{self, Options};
use mcpr_compiler::source::SourceFile;
use mcpr_compiler::{SourceMap, syntax};
use mcpr_runtime::suites::FsLoader;

/// Runs the command and returns the exit code.
pub fn run(args: CompileArgs) -> u8 {
    let text = match std::fs::read_to_string(&args.file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", args.file.display());
            return output::USAGE;
        }
    };
    let mut map = SourceMap::new();
    let id = map.add(SourceFile::new(display_path(&args.file), text));
    let options = match crate::suites::options(args.size) {
        Ok(o) => Options {
            pedantic: args.pedantic,
            ..o
        },
        Err(e) => {
            eprintln!("error: {e}");
            return output::USAGE;
        }
    };
    let compiled = lower::compile(&mut map, id, &FsLoader::new("."), &options);
    let failed = compiled.diagnostics.iter().any(|d| d.is_error());
    match args.emit {
        EmitArg::Ast if lower::Format::of(map.get(id).path()) != lower::Format::Mcpr => {
            eprintln!(
                "error: {} is not a .mcpr file and has no syntax tree to print; use --emit ir",
                map.get(id).path()
            );
            return output::USAGE;
        }
        EmitArg::Ast => {
            let Some(document) = &compiled.document else {
                eprintln!(
                    "error: {} is a YAML/JSON suite, which has no syntax tree; use --emit ir",
                    map.get(id).path()
                );
                return output::USAGE;
            };
            let mut v = syntax::ast_json(document, map.get(id));
            v["diagnostics"] = render::json(&compiled.diagnostics, &map, 1)["diagnostics"].clone();
            println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        }
        EmitArg::Ir => {
            if !compiled.diagnostics.is_empty() {
                eprint!("{}", render::short(&compiled.diagnostics, &map));
            }
            match &compiled.suite {
                Some(suite) => {
                    println!(
                        "{}",
                        serde_json::to_string_pretty(suite).unwrap_or_default()
                    );
                }
                None if !failed => {
                    eprintln!(
                        "{}: no tests to compile (a file of flows is imported by suites, not run)",
                        map.get(id).path()
                    );
                    return output::USAGE;
                }
                None => {}
            }
        }
    }
    if failed { output::USAGE } else { output::OK }
}
