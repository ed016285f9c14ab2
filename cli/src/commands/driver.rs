//! `mcpr driver`: the engine for the language bindings, JSON lines on stdin and stdout
//! (docs/driver.md). Ends when stdin closes or on `shutdown`, after stopping every server
//! it started; a signal ends those servers too.

use crate::output;

/// Serves until the input ends; returns the exit code.
pub fn run() -> u8 {
    let input = mcpr_runtime::driver::read_lines(std::io::BufReader::new(std::io::stdin()));
    match output::block_on_interruptible(mcpr_runtime::driver::serve(input, tokio::io::stdout())) {
        Ok(Ok(())) => output::OK,
        // The binding went away before reading its answers: nothing is left to tell it.
        Ok(Err(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => output::OK,
        Ok(Err(e)) => {
            eprintln!("error: mcpr driver: {e}");
            output::SERVER_FAILURE
        }
        Err(code) => code,
    }
}
