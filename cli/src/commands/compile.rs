//! `mcpr compile FILE --emit ast`: print the located tree as JSON.

use crate::args::{CompileArgs, EmitArg};
use crate::output::{self, display_path};
use mcpr_compiler::diagnostics::render;
use mcpr_compiler::source::SourceFile;
use mcpr_compiler::{SourceMap, syntax};

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
    let parsed = syntax::parse(map.get(id), id);
    match args.emit {
        EmitArg::Ast => {
            let mut v = syntax::ast_json(&parsed.document, map.get(id));
            v["diagnostics"] = render::json(&parsed.diagnostics, &map, 1)["diagnostics"].clone();
            println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        }
    }
    if parsed.diagnostics.iter().any(|d| d.is_error()) {
        output::USAGE
    } else {
        output::OK
    }
}
