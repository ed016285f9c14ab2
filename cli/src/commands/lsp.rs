//! `mcpr lsp`: the language server on stdin and stdout (docs/lsp.md).

use crate::output;

/// Runs the server until the editor says `exit`; returns the exit code.
pub fn run() -> u8 {
    match mcpr_lsp::serve_stdio() {
        Ok(()) => output::OK,
        Err(e) => {
            eprintln!("error: mcpr lsp: {e}");
            output::SERVER_FAILURE
        }
    }
}
