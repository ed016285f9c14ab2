//! `mcpr run --watch PATH…`: runs the suites, then again whenever a suite, an import or a
//! data file changes (debounced), the suites that read the changed file first. On a
//! terminal each run starts on a cleared screen; elsewhere (a pipe, `CI` set) every run
//! starts with a separator line and nothing is cleared. Ctrl-C (SIGINT, SIGTERM, SIGHUP)
//! ends it: during a run the run stops as `mcpr run` stops (its servers ended), while
//! waiting at once.

use crate::args::RunArgs;
use crate::output;
use mcpr_runtime::suites::display_path;
use mcpr_runtime::watch::{self, Watch};
use std::io::IsTerminal;
use std::path::PathBuf;

/// Runs until stopped; the exit code of the signal that stopped it (or 2 for bad paths).
pub fn run(args: RunArgs) -> u8 {
    let env = mcpr_runtime::environment::Environment::of_process();
    let screen = std::io::stdout().is_terminal() && !mcpr_runtime::ci::is_ci(env.get("CI"));
    let mut plan = match watch::plan(&args.files) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return output::USAGE;
        }
    };
    // Listened to for the whole session, so a signal between two runs is not lost.
    let Ok(rt) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        eprintln!("error: cannot start the async runtime");
        return output::SERVER_FAILURE;
    };
    let mut signals = {
        let _in = rt.enter();
        output::Signals::install()
    };
    let mut changed: Vec<PathBuf> = Vec::new();
    for round in 1.. {
        // Watching starts before the run: an edit made while it runs starts the next one.
        let mut watcher = match Watch::new(&plan) {
            Ok(w) => w,
            Err(e) => {
                eprintln!("error: {e}");
                return output::USAGE;
            }
        };
        header(screen, round, &changed);
        let mut once = args.clone();
        once.watch = false;
        once.files = watch::order(&plan, &changed);
        let code = super::run::run(once);
        if code >= 128 {
            return code;
        }
        println!("mcpr watch: run {round} exited {code}; waiting for changes (Ctrl-C to stop)");
        let next = rt.block_on(async {
            tokio::select! {
                s = signals.next() => Err(s),
                files = watcher.next() => Ok(files),
            }
        });
        changed = match next {
            Ok(files) => files,
            Err(signal) => {
                eprintln!("stopped ({})", signal.name());
                return signal.exit_code();
            }
        };
        match watch::plan(&args.files) {
            Ok(p) => plan = p,
            Err(e) => eprintln!("error: {e}; watching the files of the last run"),
        }
    }
    output::OK
}

fn header(screen: bool, round: usize, changed: &[PathBuf]) {
    let what = if changed.is_empty() {
        String::new()
    } else {
        let names: Vec<String> = changed.iter().map(|p| display_path(p)).collect();
        format!(" (changed: {})", names.join(", "))
    };
    if screen {
        print!("{}", mcpr_compiler::style::CLEAR_SCREEN);
        println!("mcpr watch · run {round}{what}");
    } else {
        println!("──── mcpr watch: run {round}{what} ────");
    }
}
