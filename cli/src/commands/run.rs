//! `mcpr run PATH…`: resolve the settings (flag > `MCPR_*` > mcpr.toml, in the library),
//! compile each suite, hand them to `mcpr_runtime::run::run` with the chosen reporters,
//! map the outcome to the exit code.

use crate::args::RunArgs;
use crate::output::{self, exit_code};
use crate::reporters::Outputs;
use crate::suites;
use mcpr_runtime::context::RunContext;
use mcpr_runtime::report::terminal::Verbosity;
use mcpr_runtime::run::config::{self, Lookup, Resolved};
use mcpr_runtime::run::{
    self, DataFlags, ExitClass, HistorySettings, RunError, RunRequest, SnapshotSettings,
    TargetChoice,
};

/// Runs the command and returns the exit code. `--watch` is not this function's:
/// the command line sends it to `commands::watch`, which calls this once per round.
pub fn run(args: RunArgs) -> u8 {
    if args.compare {
        return super::parity::run(super::parity::Request {
            files: args.files,
            jobs: args.jobs,
            test: args.test,
            json: args.json,
            markdown: None,
            color: args.color,
            protocol: args.protocol.clone(),
            ignore: Vec::new(),
        });
    }
    // Decided once: every part of the run reads this, never the process environment.
    let context = RunContext::of_process(!args.no_token_cache);
    let prepared = settings(&args, &context).and_then(|s| {
        if args.verbose {
            eprint!("{}", s.describe());
        }
        let verbosity = match (args.quiet, args.verbose) {
            (true, _) => Verbosity::Quiet,
            (_, true) => Verbosity::Verbose,
            _ => Verbosity::Normal,
        };
        let mut outputs = Outputs::for_run(&s, args.color, verbosity);
        outputs.durations = args.durations;
        if crate::reporters::all_scripts(&args.files) {
            outputs.summarise_scripts();
        }
        Ok((
            request(&args, &s, outputs.html.is_some(), &context)?,
            outputs.reporters(&context)?,
        ))
    });
    let (mut req, mut reporters) = match prepared {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return exit_code(ExitClass::Usage);
        }
    };
    let outcome = output::block_on_stoppable(|interrupt| {
        req.interrupt = Some(interrupt);
        run::run(req, &mut reporters)
    });
    drop(reporters);
    match outcome {
        Err(code) => code,
        Ok(Err(e)) => {
            match &e {
                RunError::Data(d) => eprintln!(
                    "{}",
                    d.render(output::use_stderr_color(args.color)).trim_end()
                ),
                RunError::Usage(m) | RunError::Failure(m) => eprintln!("error: {m}"),
            }
            exit_code(e.class())
        }
        Ok(Ok(done)) => {
            if let Some(gate) = &done.gate {
                eprintln!("latency gate failed: {gate}");
            }
            match done.interrupted {
                Some(signal) => {
                    eprintln!("interrupted ({})", signal.name());
                    signal.exit_code()
                }
                None => exit_code(done.exit),
            }
        }
    }
}

/// The settings that may also come from `MCPR_*` variables and mcpr.toml, resolved.
fn settings(args: &RunArgs, context: &RunContext) -> Result<Resolved, String> {
    let flags = args.flag_settings();
    let lookup = Lookup {
        config: args.config.clone(),
        profile: args.config_profile.clone(),
        cwd: std::env::current_dir().unwrap_or_default(),
    };
    config::resolve(&flags, &lookup, &context.env.lookup())
}

/// The run's settings from the command line, with its suites compiled.
fn request(
    args: &RunArgs,
    s: &Resolved,
    html: bool,
    context: &RunContext,
) -> Result<RunRequest, String> {
    let target = match (&args.url, &args.profile, &args.server) {
        (Some(url), _, _) => TargetChoice::Url(url.clone()),
        (None, Some(name), _) => TargetChoice::Profile {
            name: name.clone(),
            file: args.profile_file.clone(),
        },
        (None, None, Some(line)) => TargetChoice::Command(line.clone()),
        (None, None, None) => TargetChoice::Suite,
    };
    let mut loaded = suites::load_paths(&args.files, &suites::options(args.size)?)?;
    let cwd = std::env::current_dir().unwrap_or_default();
    if let Some(project) = run::project::load(s.file.as_deref(), &cwd, &context.env)? {
        for file in &mut loaded {
            run::project::apply(&project, &mut file.suite);
        }
    }
    Ok(RunRequest {
        suites: loaded,
        target,
        filter: args.test.clone(),
        no_deps: args.no_deps,
        select: run::select::Asked {
            keyword: args.keyword.clone(),
            last_failed: args.last_failed,
            failed_first: args.failed_first,
        },
        fail_fast: s.fail_fast.value == Some(true),
        shard: args.shard.as_deref().map(run::parse_shard).transpose()?,
        jobs: s.jobs.value,
        protocol: s.protocol.value.clone(),
        state_in: args.state_in.clone(),
        state_out: args.state_out.clone(),
        allow_state_target_mismatch: args.allow_state_target_mismatch,
        data: DataFlags {
            allow_remote_data: args.allow_remote_data,
            allow_custom_code: args.allow_custom_code,
            allow_private_network: args.allow_private_network,
            max_rows: usize::try_from(args.max_rows).unwrap_or(usize::MAX),
        },
        snapshots: SnapshotSettings {
            file: args.snapshot.clone(),
            update: args.update_snapshots,
        },
        history: HistorySettings {
            file: args.history.clone(),
            enabled: s.no_history.value != Some(true),
            fail_on_regression: args.fail_on_regression,
        },
        coverage: run::CoverageSettings {
            enabled: args.coverage,
            minimum: s.min_coverage.value,
        },
        transcript: args.transcript,
        max_session_buffer: args.max_session_buffer,
        max_message_values: args.max_message_values.map(|n| n as usize),
        tolerate_stray_lines: false,
        interrupt: None,
        transcript_failures: html,
        timeout: s.timeout.value,
        shutdown_grace: s.shutdown_grace.value,
        reuse_server: s.reuse_server.value == Some(true),
        retries: s.retries.value,
        quarantine: s.quarantine.value.clone(),
        context: context.clone(),
    })
}
