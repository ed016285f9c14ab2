//! `mcpr completions SHELL`: the completion script of the command line (clap_complete).

use clap::CommandFactory;
use clap_complete::{Shell, generate};

use crate::args::{Cli, CompletionsArgs, ShellArg};
use crate::output;

/// Prints the script for the shell and returns the exit code.
pub fn run(args: CompletionsArgs) -> u8 {
    let shell = match args.shell {
        ShellArg::Bash => Shell::Bash,
        ShellArg::Zsh => Shell::Zsh,
        ShellArg::Fish => Shell::Fish,
    };
    let mut cmd = Cli::command();
    generate(shell, &mut cmd, "mcpr", &mut std::io::stdout());
    output::OK
}
