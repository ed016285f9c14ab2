//! Shared output helpers: colour decision, display paths, exit codes.

use crate::args::ColorArg;
use std::io::IsTerminal;

use mcpr_runtime::run::ExitClass;

/// Exit code: every check passed.
pub const OK: u8 = 0;
/// Exit code: a test failed or was blocked (or a gate failed, or targets differ).
pub const TESTS_FAILED: u8 = 1;
/// Exit code: usage, language or configuration error.
pub const USAGE: u8 = 2;
/// Exit code: a server, transport or internal failure.
pub const SERVER_FAILURE: u8 = 3;
/// Exit code: interrupted (Ctrl-C).
pub const INTERRUPTED: u8 = 130;

/// The exit code of an outcome's class.
pub fn exit_code(class: ExitClass) -> u8 {
    match class {
        ExitClass::Passed => OK,
        ExitClass::TestsFailed => TESTS_FAILED,
        ExitClass::Usage => USAGE,
        ExitClass::ServerFailure => SERVER_FAILURE,
        ExitClass::Interrupted => INTERRUPTED,
    }
}

/// Exit code when the reader of stdout or stderr went away (`mcpr … | head`): 128 + SIGPIPE,
/// what a program killed by the signal reports to its shell.
pub const OUTPUT_CLOSED: i32 = 141;

/// Makes a write to a closed stdout or stderr end the process quietly. `print!` and
/// `eprint!` panic when the pipe is closed (EPIPE); this hook turns that one panic into
/// an exit with [`OUTPUT_CLOSED`] after ending every server process group the run started,
/// and leaves every other panic to the default hook. Installed once, first thing in `main`.
pub fn exit_quietly_on_closed_output() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let text = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if is_closed_output(text) {
            mcpr_runtime::kill_all_process_groups();
            std::process::exit(OUTPUT_CLOSED);
        }
        default(info);
    }));
}

/// Whether a panic message is the standard library's for a write to a closed pipe.
fn is_closed_output(message: &str) -> bool {
    (message.starts_with("failed printing to stdout")
        || message.starts_with("failed printing to stderr"))
        && message.contains("Broken pipe")
}

/// Runs `work` to its end on a multi-threaded runtime, unless Ctrl-C comes first: then every
/// server process group the runtime started is ended and the exit code is `INTERRUPTED`.
/// `Err` carries the exit code when the work did not finish.
pub fn block_on_interruptible<F: Future>(work: F) -> Result<F::Output, u8> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            eprintln!("error: cannot start the async runtime: {e}");
            SERVER_FAILURE
        })?;
    let outcome = rt.block_on(async {
        tokio::select! {
            r = work => Some(r),
            _ = tokio::signal::ctrl_c() => None,
        }
    });
    outcome.ok_or_else(|| {
        mcpr_runtime::kill_all_process_groups();
        eprintln!("interrupted");
        INTERRUPTED
    })
}

/// Whether stdout gets colour: only on a terminal, never with `NO_COLOR`.
pub fn use_color(arg: ColorArg) -> bool {
    match arg {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::io::stdout().is_terminal()
        }
    }
}

/// Whether stderr gets colour: only on a terminal, never with `NO_COLOR`.
pub fn use_stderr_color(arg: ColorArg) -> bool {
    match arg {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::io::stderr().is_terminal()
        }
    }
}

pub use mcpr_runtime::suites::display_path;
