//! `mcpr fmt [--check] [--diff] PATH…`: the canonical layout of `.mcpr` files (docs/fmt.md).

use crate::args::FmtArgs;
use crate::output;
use mcpr_runtime::suites::format::{FileOutcome, FormatMode, format_paths, format_text};
use std::io::Read;

/// Runs the command and returns the exit code: 0 when nothing had to change (or the changes
/// were written), 1 when `--check`/`--diff` found files to change, 2 when a file could not
/// be formatted.
pub fn run(args: FmtArgs) -> u8 {
    let mode = match (args.check, args.diff) {
        (_, true) => FormatMode::Diff,
        (true, false) => FormatMode::Check,
        _ => FormatMode::Write,
    };
    if args.paths.iter().any(|p| p.as_os_str() == "-") {
        if args.paths.len() > 1 {
            eprintln!("error: `-` (standard input) cannot be formatted with other paths");
            return output::USAGE;
        }
        return stdin(mode);
    }
    let report = match format_paths(&args.paths, mode) {
        Ok(r) => r,
        Err(msg) => {
            eprintln!("error: {msg}");
            return output::USAGE;
        }
    };
    for (path, outcome) in &report.files {
        match outcome {
            FileOutcome::Changed { diff } if mode == FormatMode::Diff => print!("{diff}"),
            FileOutcome::Changed { .. } if mode == FormatMode::Check => {
                println!("would reformat {path}");
            }
            FileOutcome::Refused(why) => eprintln!("{}", why.trim_end()),
            _ => {}
        }
    }
    let changed = report.changed();
    let unchanged = report.files.len() - changed - report.refused();
    let verb = if mode == FormatMode::Write {
        "reformatted"
    } else {
        "would be reformatted"
    };
    eprintln!(
        "{} {verb}, {} already formatted{}",
        files(changed),
        files(unchanged),
        match report.refused() {
            0 => String::new(),
            n => format!(", {} not formatted", files(n)),
        }
    );
    if report.refused() > 0 {
        output::USAGE
    } else if changed > 0 && mode != FormatMode::Write {
        output::TESTS_FAILED
    } else {
        output::OK
    }
}

/// `mcpr fmt -`: standard input to standard output (with `--check`/`--diff`, nothing but
/// the diff is printed, and the exit code says whether it would change).
fn stdin(mode: FormatMode) -> u8 {
    let mut text = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut text) {
        eprintln!("error: cannot read standard input: {e}");
        return output::USAGE;
    }
    match format_text("-", &text) {
        Err(why) => {
            eprintln!("{}", why.trim_end());
            output::USAGE
        }
        Ok(out) if mode == FormatMode::Write => {
            print!("{out}");
            output::OK
        }
        Ok(out) if out == text => output::OK,
        Ok(out) => {
            if mode == FormatMode::Diff {
                print!(
                    "{}",
                    mcpr_runtime::suites::format::unified_diff("-", &text, &out)
                );
            }
            output::TESTS_FAILED
        }
    }
}

fn files(n: usize) -> String {
    if n == 1 {
        "1 file".into()
    } else {
        format!("{n} files")
    }
}
