//! Shared output helpers: colour decision, display paths, exit codes.

use crate::args::ColorArg;
use std::io::IsTerminal;
use std::time::Duration;

use mcpr_runtime::interrupt::{Interrupt, StopSignal};
use mcpr_runtime::run::ExitClass;
use tokio::signal::unix::{Signal, SignalKind, signal};

/// Exit code: every check passed.
pub const OK: u8 = 0;
/// Exit code: a test failed or was blocked (or a gate failed, or targets differ).
pub const TESTS_FAILED: u8 = 1;
/// Exit code: usage, language or configuration error.
pub const USAGE: u8 = 2;
/// Exit code: a server, transport or internal failure.
pub const SERVER_FAILURE: u8 = 3;
/// Exit code: interrupted (Ctrl-C); SIGTERM and SIGHUP give 143 and 129.
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

/// Runs `work` to its end on a multi-threaded runtime, unless SIGINT, SIGTERM or SIGHUP
/// comes first: then every server process group the runtime started is ended and `Err`
/// carries the signal's exit code (130, 143, 129).
pub fn block_on_interruptible<F: Future>(work: F) -> Result<F::Output, u8> {
    let rt = runtime()?;
    let outcome = rt.block_on(async {
        let mut signals = Signals::install();
        tokio::select! {
            r = work => Ok(r),
            s = signals.next() => Err(s),
        }
    });
    outcome.map_err(|signal| {
        mcpr_runtime::kill_all_process_groups();
        eprintln!("interrupted ({})", signal.name());
        rt.shutdown_timeout(SHUTDOWN_WAIT);
        signal.exit_code()
    })
}

/// Runs the work `start` makes with a stop request, to its end. The first SIGINT, SIGTERM
/// or SIGHUP raises the request: the work ends its servers, marks what did not finish and
/// writes its reports. A second signal, or no end within [`GRACE`], stops at once: every
/// server is killed and `Err` carries the first signal's exit code.
pub fn block_on_stoppable<F: Future>(start: impl FnOnce(Interrupt) -> F) -> Result<F::Output, u8> {
    let rt = runtime()?;
    let interrupt = Interrupt::new();
    let work = start(interrupt.clone());
    let outcome = rt.block_on(async {
        let mut signals = Signals::install();
        tokio::pin!(work);
        let first = tokio::select! {
            r = &mut work => return Ok(r),
            s = signals.next() => s,
        };
        interrupt.raise(first);
        eprintln!(
            "{}: ending the servers and writing the reports (a second signal stops at once)",
            first.name()
        );
        tokio::select! {
            r = &mut work => Ok(r),
            _ = signals.next() => Err(first),
            _ = tokio::time::sleep(GRACE) => Err(first),
        }
    });
    outcome.map_err(|signal| {
        mcpr_runtime::kill_all_process_groups();
        eprintln!("interrupted ({}): reports not written", signal.name());
        rt.shutdown_timeout(SHUTDOWN_WAIT);
        signal.exit_code()
    })
}

/// How long a stopped run may take to write its reports before mcpr ends at once.
const GRACE: Duration = Duration::from_secs(10);

/// How long the async runtime waits for its blocking threads after a stop.
const SHUTDOWN_WAIT: Duration = Duration::from_secs(1);

fn runtime() -> Result<tokio::runtime::Runtime, u8> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            eprintln!("error: cannot start the async runtime: {e}");
            SERVER_FAILURE
        })
}

/// The stop signals, listened to from the moment they are installed.
pub(crate) struct Signals {
    interrupt: Option<Signal>,
    terminate: Option<Signal>,
    hangup: Option<Signal>,
}

impl Signals {
    pub(crate) fn install() -> Signals {
        Signals {
            interrupt: signal(SignalKind::interrupt()).ok(),
            terminate: signal(SignalKind::terminate()).ok(),
            hangup: signal(SignalKind::hangup()).ok(),
        }
    }

    /// The next stop signal.
    pub(crate) async fn next(&mut self) -> StopSignal {
        async fn on(s: &mut Option<Signal>) {
            match s {
                Some(s) => {
                    s.recv().await;
                }
                None => std::future::pending().await,
            }
        }
        tokio::select! {
            _ = on(&mut self.interrupt) => StopSignal::Interrupt,
            _ = on(&mut self.terminate) => StopSignal::Terminate,
            _ = on(&mut self.hangup) => StopSignal::Hangup,
        }
    }
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
