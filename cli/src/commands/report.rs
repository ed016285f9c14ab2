//! `mcpr report merge A.json B.json …`: the JSON reports of a sharded run combined
//! (`mcpr_runtime::report::merge`), then written as JSON, JUnit, HTML and GitHub output
//! by the same reporters as `run`, with the summary and recap (on stderr when stdout
//! carries the merged JSON).

use mcpr_runtime::report::merge::{merge, read_part};
use mcpr_runtime::report::terminal::Verbosity;
use mcpr_runtime::report::{Report, Reporter};
use mcpr_runtime::run::{ExitClass, classify};

use crate::args::{MergeArgs, ReportArgs, ReportCommand};
use crate::output::exit_code;
use crate::reporters::Outputs;

/// Runs the command and returns the exit code.
pub fn run(args: ReportArgs) -> u8 {
    match args.command {
        ReportCommand::Merge(m) => merge_command(m),
    }
}

fn merge_command(args: MergeArgs) -> u8 {
    let merged = args
        .reports
        .iter()
        .map(|p| read_part(p))
        .collect::<Result<Vec<_>, _>>()
        .and_then(merge);
    let runs = match merged {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return exit_code(ExitClass::Usage);
        }
    };
    let nothing_asked = args.json.is_none() && args.junit.is_none() && args.html.is_none();
    let json = match args.json {
        Some(p) => vec![p],
        None if nothing_asked && !args.github => vec!["-".into()],
        None => Vec::new(),
    };
    let outputs = Outputs {
        json,
        junit: args.junit.into_iter().collect(),
        html: args.html,
        github: args.github,
        color: args.color,
        verbosity: Verbosity::Normal,
        no_progress: true,
        live: false,
        durations: None,
        script_summary: false,
    };
    // The summary goes where the terminal lines would: stderr when stdout carries a report.
    let context = mcpr_runtime::context::RunContext::of_process(false);
    let mut reporters = match outputs.reporters(&context) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return exit_code(ExitClass::Usage);
        }
    };
    if let Err(e) = reporters.finish(Report::Run(&runs)) {
        eprintln!("error: {e}");
        return exit_code(ExitClass::ServerFailure);
    }
    exit_code(classify(runs).exit)
}
