//! `mcpr explain CODE`: print a code's documentation page — a compile diagnostic
//! (`MCPLANG###`), a run-time code (`MCP-…`) or a retired code of the first implementation
//! (`QA-LANG-001`, …), whose page names the codes that replace it. `--list` lists them all.

use crate::args::ExplainArgs;
use crate::output;
use mcpr_runtime::explain::{AnyCode, lookup};

/// Runs the command and returns the exit code.
pub fn run(args: ExplainArgs) -> u8 {
    let code = match args.code {
        Some(code) if !args.list => code,
        _ => {
            print!("{}", list());
            return output::OK;
        }
    };
    match lookup(&code) {
        Ok(found) => {
            print!("{}", found.doc());
            output::OK
        }
        Err(e) => {
            eprintln!("error: {e}");
            output::USAGE
        }
    }
}

/// One line per code: the code, its severity or class, its title.
fn list() -> String {
    let all = AnyCode::all();
    let width = all.iter().map(|c| c.as_str().len()).max().unwrap_or(0);
    let kind = all.iter().map(|c| c.kind().len()).max().unwrap_or(0);
    all.iter()
        .map(|c| format!("{:width$}  {:kind$}  {}\n", c.as_str(), c.kind(), c.title()))
        .collect()
}
