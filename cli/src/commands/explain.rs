//! `mcpr explain CODE`: print a diagnostic code's documentation page.

use crate::args::ExplainArgs;
use crate::output;
use mcpr_compiler::diagnostics::Code;

/// Runs the command and returns the exit code.
pub fn run(args: ExplainArgs) -> u8 {
    let Ok(code) = args.code.trim().parse::<Code>() else {
        eprintln!(
            "error: `{}` is not a known diagnostic code (codes look like MCPLANG102)",
            args.code
        );
        return output::USAGE;
    };
    match mcpr_compiler::diagnostics::docs::page(code) {
        Some(page) => {
            print!("{page}");
            output::OK
        }
        None => {
            eprintln!("error: {code} has no documentation page");
            output::USAGE
        }
    }
}
