//! `mcpr explain CODE`: print a diagnostic code's documentation page.

use crate::args::ExplainArgs;
use crate::output;
use mcpr_compiler::diagnostics::Code;

/// Runs the command and returns the exit code.
pub fn run(args: ExplainArgs) -> u8 {
    match args.code.trim().parse::<Code>() {
        Ok(code) => {
            print!("{}", code.doc());
            output::OK
        }
        Err(()) => {
            eprintln!(
                "error: `{}` is not a known diagnostic code (codes look like MCPLANG102; see docs/diagnostics/README.md)",
                args.code
            );
            output::USAGE
        }
    }
}
