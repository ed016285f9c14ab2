//! `mcpr check PATH…`: compile files (imports included) and report every diagnostic;
//! `--fix` applies the safe machine-applicable fixes first (the unsafe ones too with
//! `--unsafe-fixes`), reports what it fixed and counts the unsafe fixes left.

use crate::args::{CheckArgs, FormatArg};
use crate::output::{self, use_color};
use mcpr_runtime::environment::Environment;
use mcpr_runtime::suites::check::{CheckFormat, CheckOptions, check};
use mcpr_runtime::suites::file_limit;
use mcpr_runtime::suites::fix::check_and_fix;

/// Runs the command and returns the exit code.
pub fn run(args: CheckArgs) -> u8 {
    let env = Environment::of_process();
    let max_file_bytes = match file_limit(args.size.max_file_size, &env) {
        Ok(limit) => limit,
        Err(e) => {
            eprintln!("error: {e}");
            return output::USAGE;
        }
    };
    let opts = CheckOptions {
        pedantic: args.pedantic,
        data: args.data,
        max_file_bytes,
        max_diagnostics: args.max_diagnostics,
        env,
    };
    let found = if args.fix {
        check_and_fix(&args.paths, &opts, args.unsafe_fixes).map(|outcome| {
            for f in &outcome.fixed {
                eprintln!("fixed {}:{}: {} ({})", f.file, f.line, f.message, f.code);
            }
            match outcome.fixed.len() {
                0 => eprintln!("nothing to fix"),
                1 => eprintln!("1 problem fixed"),
                n => eprintln!("{n} problems fixed"),
            }
            match outcome.unsafe_left {
                0 => {}
                1 => eprintln!("1 unsafe fix left: apply it with `--fix --unsafe-fixes`"),
                n => eprintln!("{n} unsafe fixes left: apply them with `--fix --unsafe-fixes`"),
            }
            outcome.report
        })
    } else {
        check(&args.paths, &opts)
    };
    let report = match found {
        Ok(r) => r,
        Err(msg) => {
            eprintln!("error: {msg}");
            return output::USAGE;
        }
    };
    let format = match args.format {
        FormatArg::Human => CheckFormat::Human {
            color: use_color(args.color),
        },
        FormatArg::Short => CheckFormat::Short,
        FormatArg::Json => CheckFormat::Json,
        FormatArg::Github => CheckFormat::Github,
    };
    print!("{}", report.render(format));
    if report.has_errors() {
        output::USAGE
    } else {
        output::OK
    }
}
