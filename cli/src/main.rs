//! The `mcpr` command line: argument parsing and one small module per
//! command. Commands print and pick exit codes; the work is in the crates.

mod args;
mod commands;
mod output;
mod reporters;
mod suites;

use clap::Parser;
use std::process::ExitCode;

/// The compiler allocates many small strings and maps per line; mimalloc serves them
/// faster than the system allocator (see `cargo bench -p mcpr-compiler`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `purge_delay` option (its number in mimalloc 3's option list).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// mimalloc's `arena_eager_commit` option (its number in mimalloc 3's option list).
const MI_OPTION_ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;

/// How long freed memory stays with the process before mimalloc gives it back to the
/// system: 10 ms (mimalloc 3 keeps it a second). A second held the pages of every phase of
/// a large `check` that was over: 200,000 broken small tests (5.9 MB) checked in 105 MB,
/// 72 with 10 ms; 750,000 `Send "ping"` lines 104 -> 90 MB, a 24 MB YAML suite 235 -> 217,
/// a run of 20,000 tests 104 -> 95 MB, for 0-10 % more time (the pages are given back and
/// taken again: 0.38 -> 0.42 s on the 750,000 lines, 1.53 -> 1.57 s on the 20,000 tests;
/// the YAML suite and the rest unchanged). Once it was the other way round: with a whole
/// arena committed at once, a 20 MB YAML suite's check spent two thirds of its time taking
/// back pages the kernel had zeroed. `MIMALLOC_PURGE_DELAY` still decides when it is set.
///
/// Memory is committed as it is first used, not a whole arena at once: the same work with
/// a fifth to a half less resident memory (a 9 MB suite of 200,000 tests checked in 90 MB
/// instead of 113, a 50,000-line suite in 21 MB instead of 43) and the same CPU time.
/// `MIMALLOC_ARENA_EAGER_COMMIT` still decides when it is set.
///
/// The first arena is made by the first allocation, which the standard library's start-up
/// makes before `main`: on Linux this runs before it, from the executable's list of
/// initialisers ([`SET_ALLOCATOR_OPTIONS`]); elsewhere at the start of `main`, where the
/// first arena keeps mimalloc's way of committing. It allocates nothing itself.
#[allow(unsafe_code)]
extern "C" fn set_allocator_options() {
    unsafe extern "C" {
        fn getenv(name: *const std::ffi::c_char) -> *mut std::ffi::c_char;
    }
    // SAFETY: `getenv` reads the environment the process started with; nothing changes it
    // while no thread but this one runs.
    let unset = |name: &std::ffi::CStr| unsafe { getenv(name.as_ptr()) }.is_null();
    if unset(c"MIMALLOC_PURGE_DELAY") {
        // SAFETY: an option of the allocator set before any thread is started; mimalloc
        // reads its options with atomic loads.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 10) }
    }
    if unset(c"MIMALLOC_ARENA_EAGER_COMMIT") {
        // SAFETY: as above.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_ARENA_EAGER_COMMIT, 0) }
    }
}

/// [`set_allocator_options`], run by the loader before the standard library starts.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
#[used]
#[unsafe(link_section = ".init_array")]
static SET_ALLOCATOR_OPTIONS: extern "C" fn() = set_allocator_options;

fn main() -> ExitCode {
    #[cfg(not(target_os = "linux"))]
    set_allocator_options();
    output::exit_quietly_on_closed_output();
    let cli = args::Cli::parse();
    let code = match cli.command {
        args::Command::Check(a) => commands::check::run(a),
        args::Command::Explain(a) => commands::explain::run(a),
        args::Command::Compile(a) => commands::compile::run(a),
        args::Command::Tools(a) => commands::adhoc::tools(a),
        args::Command::Call(a) => commands::adhoc::call(a),
        args::Command::Ping(a) => commands::adhoc::ping(a),
        args::Command::AuthCheck(a) => commands::auth_check::run(a),
        // `run --watch` runs `run` again and again; `run` itself knows nothing of watching.
        args::Command::Run(a) if a.watch => commands::watch::run(*a),
        args::Command::Run(a) => commands::run::run(*a),
        args::Command::Parity(a) => commands::parity::parity(a),
        args::Command::Schema => commands::schema::run(),
        args::Command::Convert(a) => commands::convert::run(a),
        args::Command::Lint(a) => commands::lint::run(a),
        args::Command::Conformance(a) => commands::conformance::run(a),
        args::Command::Snapshot(a) => commands::snapshot::snapshot(a),
        args::Command::Diff(a) => commands::snapshot::diff(a),
        args::Command::Init(a) => commands::init::run(a),
        args::Command::Report(a) => commands::report::run(a),
        args::Command::Completions(a) => commands::completions::run(a),
        args::Command::Fmt(a) => commands::fmt::run(a),
        args::Command::Lsp => commands::lsp::run(),
        args::Command::Driver => commands::driver::run(),
        args::Command::Record(a) => commands::record::run(a),
        args::Command::Fuzz(a) => commands::fuzz::run(a),
    };
    ExitCode::from(code)
}
