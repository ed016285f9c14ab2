//! `mcpr conformance [--url URL | -- CMD ARGS…]`: the standard flow library against one
//! server in every era it speaks (docs/conformance.md). The work is in
//! `mcpr_runtime::conformance`; this module parses, calls, prints and maps the exit code.

use crate::args::{ConformanceArgs, ConformanceFormat};
use crate::output::{self, exit_code};
use crate::reporters;
use mcpr_runtime::conformance::{self, ConformanceRequest, render};
use mcpr_runtime::run::TargetChoice;
use std::path::PathBuf;

/// Runs the command and returns the exit code.
pub fn run(args: ConformanceArgs) -> u8 {
    if args.list {
        return match conformance::list(&args.suite) {
            Ok(text) => {
                print!("{text}");
                output::OK
            }
            Err(e) => usage(&e),
        };
    }
    let target = match (&args.url, args.command.is_empty()) {
        (Some(_), false) => return usage("give either --url or a command after `--`, not both"),
        (Some(url), true) => TargetChoice::Url(url.clone()),
        (None, false) => TargetChoice::Command(mcpr_compiler::command_line::join(
            args.command.iter().map(String::as_str),
        )),
        (None, true) => return usage("give the server: --url URL or -- CMD ARGS…"),
    };
    let inputs = match args
        .input
        .iter()
        .map(|i| conformance::parse_input(i))
        .collect::<Result<_, _>>()
    {
        Ok(i) => i,
        Err(e) => return usage(&e),
    };
    let stdout = PathBuf::from("-");
    let mut json: Vec<PathBuf> = args.json.clone().into_iter().collect();
    let mut junit: Vec<PathBuf> = args.junit.clone().into_iter().collect();
    match args.format {
        ConformanceFormat::Junit => junit.push(stdout.clone()),
        ConformanceFormat::Json | ConformanceFormat::Human => {}
    }
    json.retain(|p| args.format != ConformanceFormat::Json || *p != stdout);
    let taken = json
        .iter()
        .chain(&junit)
        .chain(&args.html)
        .any(|p| reporters::on_stdout(p));
    let printing = args.format == ConformanceFormat::Json;
    if let Err(e) = reporters::one_on_stdout(json.iter().chain(&junit).chain(&args.html), printing)
    {
        return usage(&e);
    }
    let mut reporters = match reporters::report_files(&json, &junit, args.html.as_ref()) {
        Ok(r) => r,
        Err(e) => return usage(&e),
    };
    let req = ConformanceRequest {
        target,
        versions: conformance::versions_asked(&args.protocol),
        suites: args.suite.clone(),
        inputs,
        baseline: args.baseline.clone(),
        jobs: args.jobs,
        timeout: Some(args.timeout),
        transcript_failures: args.html.is_some(),
        interrupt: None,
        context: mcpr_runtime::context::RunContext::of_process(true),
    };
    let outcome = output::block_on_stoppable(|interrupt| {
        let mut req = req;
        req.interrupt = Some(interrupt);
        async move { conformance::run(req, &mut reporters).await }
    });
    let done = match outcome {
        Err(code) => return code,
        Ok(Err(e)) => {
            eprintln!("error: {}", e.message());
            return exit_code(e.class());
        }
        Ok(Ok(done)) => done,
    };
    match args.format {
        ConformanceFormat::Json => println!(
            "{}",
            serde_json::to_string_pretty(&render::json(&done)).unwrap_or_default()
        ),
        _ if taken => eprint!(
            "{}",
            render::human(&done, output::use_stderr_color(args.color))
        ),
        _ => print!("{}", render::human(&done, output::use_color(args.color))),
    }
    exit_code(done.exit)
}

fn usage(message: &str) -> u8 {
    eprintln!("error: {message}");
    output::USAGE
}
