//! `mcpr parity FILE…` (and `mcpr run --compare`): each suite once per compare target,
//! through `mcpr_runtime::run::parity`, reported as a table, JSON or Markdown.

use std::path::PathBuf;

use crate::args::{ColorArg, ParityArgs};
use crate::output::{self, exit_code};
use crate::suites;
use mcpr_runtime::report::Reporters;
use mcpr_runtime::report::json::JsonFile;
use mcpr_runtime::report::parity::{ParityMarkdown, ParityTerminal};
use mcpr_runtime::run::{self, ExitClass, ParityRequest};

/// What a parity run needs from the command line.
pub struct Request {
    /// Suite files.
    pub files: Vec<PathBuf>,
    /// Most tests at once per target.
    pub jobs: Option<usize>,
    /// Test filter.
    pub test: Option<String>,
    /// JSON report path.
    pub json: Option<PathBuf>,
    /// Markdown report path.
    pub markdown: Option<PathBuf>,
    /// Colour choice.
    pub color: ColorArg,
    /// The protocol version every session speaks.
    pub protocol: Option<String>,
    /// Response paths whose values are not compared.
    pub ignore: Vec<String>,
}

/// `mcpr parity`.
pub fn parity(args: ParityArgs) -> u8 {
    run(Request {
        files: args.files,
        jobs: args.jobs,
        test: args.test,
        json: args.json,
        markdown: args.markdown,
        color: args.color,
        protocol: args.protocol,
        ignore: args.ignore,
    })
}

/// Runs the parity of every file and returns the exit code.
pub fn run(req: Request) -> u8 {
    let loaded: Result<Vec<_>, _> = suites::options(Default::default())
        .and_then(|o| req.files.iter().map(|f| suites::load(f, &o)).collect());
    let suites = match loaded {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return exit_code(ExitClass::Usage);
        }
    };
    let mut reporters = Reporters::new();
    reporters.push(ParityTerminal::new(
        std::io::stdout(),
        output::use_color(req.color),
    ));
    if let Some(path) = req.json {
        reporters.push(JsonFile::new(path));
    }
    if let Some(path) = req.markdown {
        reporters.push(ParityMarkdown::new(path));
    }
    let request = ParityRequest {
        suites,
        jobs: req.jobs,
        filter: req.test,
        protocol: req.protocol,
        ignore: req.ignore,
        context: mcpr_runtime::context::RunContext::of_process(true),
    };
    match output::block_on_interruptible(run::parity(request, &mut reporters)) {
        Err(code) => code,
        Ok(Err(e)) => {
            eprintln!("error: {}", e_message(&e));
            exit_code(e.class())
        }
        Ok(Ok(done)) => exit_code(done.exit),
    }
}

fn e_message(e: &run::RunError) -> String {
    match e {
        run::RunError::Usage(m) | run::RunError::Failure(m) => m.clone(),
        run::RunError::Data(d) => d.render(false),
    }
}
