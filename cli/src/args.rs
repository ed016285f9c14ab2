//! Command-line arguments (clap).

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// mcpr: check and run test suites for MCP servers.
#[derive(Debug, Parser)]
#[command(name = "mcpr", version, about, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check test files and report every problem with its location.
    Check(CheckArgs),
    /// Print the documentation page of a diagnostic code.
    Explain(ExplainArgs),
    /// Compile a file and print an intermediate form as JSON.
    Compile(CompileArgs),
}

/// Output format of diagnostics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// Source line, caret, explanation and fix.
    Human,
    /// One line per diagnostic.
    Short,
    /// Stable JSON (see docs/diagnostics-json.md).
    Json,
    /// GitHub Actions annotations.
    Github,
}

/// When to use colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorArg {
    /// On a terminal, unless NO_COLOR is set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Files or folders; folders are searched recursively for `.mcpr` files.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = FormatArg::Human)]
    pub format: FormatArg,
    /// Colour in human output.
    #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
    pub color: ColorArg,
}

#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// A code such as MCPLANG102 (or just 102).
    pub code: String,
}

/// What `compile` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EmitArg {
    /// The located syntax tree.
    Ast,
}

#[derive(Debug, Args)]
pub struct CompileArgs {
    /// The file to compile.
    pub file: PathBuf,
    /// What to print.
    #[arg(long, value_enum, default_value_t = EmitArg::Ast)]
    pub emit: EmitArg,
}
