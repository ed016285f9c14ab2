//! `mcpr lint [--url URL] [--header 'Name: value']… [-- CMD ARGS…]`: the lint rules over a
//! live server's definitions (docs/lint.md). Exit 0 clean, 1 a finding at `--fail-on` or
//! worse, 2 usage, 3 the server failed or wrote to stdout what is not protocol.

use crate::args::{LevelArg, LintArgs, ReportFormat};
use crate::commands::adhoc;
use crate::output;
use mcpr_runtime::lint::{self, Level, Options, render};
use mcpr_runtime::surface;

/// Exit code: a finding at `--fail-on` level or worse.
const FINDINGS: u8 = 1;

/// Runs the command and returns the exit code.
pub fn run(args: LintArgs) -> u8 {
    if args.rules {
        print!("{}", render::rules());
        return output::OK;
    }
    let project = match adhoc::project() {
        Ok(p) => p.map(|p| p.lint).unwrap_or_default(),
        Err(msg) => {
            eprintln!("error: {msg}");
            return output::USAGE;
        }
    };
    let ignore: Vec<String> = args
        .ignore
        .iter()
        .chain(&project.ignore)
        .map(|c| c.trim().to_ascii_uppercase())
        .fold(Vec::new(), |mut all, c| {
            if !all.contains(&c) {
                all.push(c);
            }
            all
        });
    if let Some(unknown) = ignore.iter().find(|c| lint::rule_of(c).is_none()) {
        eprintln!(
            "error: --ignore {unknown}: not a lint rule (codes MCP001 to MCP{:03}; see `mcpr lint --rules`)",
            lint::RULES.len()
        );
        return output::USAGE;
    }
    let opts = match adhoc::options(&args.target) {
        Ok(o) => o,
        Err(msg) => {
            eprintln!("error: {msg}");
            return output::USAGE;
        }
    };
    let fetched = match output::block_on_interruptible(surface::fetch(&opts)) {
        Ok(Ok(f)) => f,
        Ok(Err(e)) => return adhoc::failure(&e),
        Err(code) => return code,
    };
    let report = lint::lint(
        &fetched.surface,
        &Options {
            ignore: ignore.clone(),
        },
    );
    let fail_on = match (args.fail_on, project.fail_on.as_deref()) {
        (Some(LevelArg::Error), _) | (None, Some("error") | None) => Level::Error,
        (Some(LevelArg::Warning), _) | (None, Some("warning")) => Level::Warning,
        (Some(LevelArg::Info), _) | (None, Some(_)) => Level::Info,
    };
    match args.format {
        ReportFormat::Human => print!("{}", render::human(&report)),
        ReportFormat::Github => print!("{}", render::github(&report)),
        ReportFormat::Json => println!(
            "{}",
            serde_json::to_string_pretty(&render::json(&report, fail_on, &ignore))
                .unwrap_or_default()
        ),
    }
    if let Some(problem) = fetched.stdout_report() {
        eprintln!("error: {problem}");
        return output::SERVER_FAILURE;
    }
    if report.fails(fail_on) {
        FINDINGS
    } else {
        output::OK
    }
}
