//! The `mcpr` command line: argument parsing and one small module per
//! command. Commands print and pick exit codes; the work is in the crates.

mod args;
mod commands;
mod output;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = args::Cli::parse();
    let code = match cli.command {
        args::Command::Check(a) => commands::check::run(a),
        args::Command::Explain(a) => commands::explain::run(a),
        args::Command::Compile(a) => commands::compile::run(a),
    };
    ExitCode::from(code)
}
