//! `mcpr fuzz [--tool NAME] [--cases N] [--seed S] [-o DIR] -- CMD ARGS…` (or `--url URL`):
//! each tool called with inputs made from its inputSchema; crashes, hangs and protocol
//! violations are minimised and written as `.mcpr` regression tests (docs/fuzz.md).

use crate::args::FuzzArgs;
use crate::commands::adhoc;
use crate::output;
use mcpr_compiler::names::count;
use mcpr_runtime::fuzz::{self, FuzzOptions};

/// Runs the command and returns the exit code.
pub fn run(args: FuzzArgs) -> u8 {
    let target = match adhoc::options(&args.target) {
        Ok(o) => o,
        Err(msg) => {
            eprintln!("error: {msg}");
            return output::USAGE;
        }
    };
    if args.cases == 0 {
        eprintln!("error: --cases must be at least 1");
        return output::USAGE;
    }
    let seed = args.seed.unwrap_or_else(fuzz::fresh_seed);
    println!("mcpr fuzz: seed {seed} (reproduce with --seed {seed})");
    let outcome = output::block_on_stoppable(|interrupt| {
        let opts = FuzzOptions {
            target,
            tool: args.tool.clone(),
            cases: args.cases,
            seed,
            output: Some(args.output.clone()),
            shrink_calls: args.shrink_calls,
            interrupt,
        };
        async move { fuzz::fuzz(&opts, &mut |line: &str| println!("  {line}")).await }
    });
    let report = match outcome {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => return adhoc::failure(&e),
        Err(code) => return code,
    };
    let calls: usize = report.tools.iter().map(|t| t.cases).sum();
    for f in &report.findings {
        println!(
            "finding: {} case {} — {}: {}",
            f.tool, f.case, f.failure.code, f.failure.message
        );
        println!("  input:   {}\n  minimal: {}", f.input.arguments, f.minimal);
        if f.repeats > 0 {
            println!(
                "  {} more {} of {} failed the same way",
                f.repeats,
                if f.repeats == 1 { "case" } else { "cases" },
                f.tool
            );
        }
        if let Some(path) = &f.file {
            println!("  regression test: {}", path.display());
        }
    }
    println!(
        "{}, {}, {} (seed {seed}){}",
        count(report.tools.len(), "tool"),
        count(calls, "call"),
        count(report.findings.len(), "finding"),
        if report.interrupted {
            ", stopped by a signal"
        } else {
            ""
        }
    );
    if report.interrupted {
        output::INTERRUPTED
    } else if report.findings.is_empty() {
        output::OK
    } else {
        output::TESTS_FAILED
    }
}
