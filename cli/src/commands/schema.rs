//! `mcpr schema`: print the JSON Schema of YAML/JSON suites and of the Suite IR
//! (`docs/schema/suite.schema.json`, compiled in, `$id` included).

use crate::output;
use std::io::Write;

/// Runs the command and returns the exit code.
pub fn run() -> u8 {
    let text = mcpr_compiler::ir::SCHEMA_TEXT;
    let mut out = std::io::stdout().lock();
    let written = out
        .write_all(text.as_bytes())
        .and_then(|()| {
            if text.ends_with('\n') {
                Ok(())
            } else {
                out.write_all(b"\n")
            }
        })
        .and_then(|()| out.flush());
    match written {
        Ok(()) => output::OK,
        // A closed pipe (`mcpr schema | head`): quiet, as every command (output.rs).
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            std::process::exit(output::OUTPUT_CLOSED)
        }
        Err(e) => {
            eprintln!("error: cannot write the schema: {e}");
            output::USAGE
        }
    }
}
