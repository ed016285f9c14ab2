//! `mcpr run FILE…`: compile each file, hand the suites and the settings to
//! `mcpr_runtime::run::run` with the chosen reporters, map the outcome to the exit code.

use crate::args::RunArgs;
use crate::output::{self, exit_code};
use crate::suites;
use mcpr_runtime::report::github::GithubAnnotations;
use mcpr_runtime::report::json::JsonFile;
use mcpr_runtime::report::junit::JunitFile;
use mcpr_runtime::report::progress::WithProgress;
use mcpr_runtime::report::terminal::Terminal;
use mcpr_runtime::report::{Reporters, StderrNotes};
use mcpr_runtime::run::{
    self, DataFlags, ExitClass, HistorySettings, RunError, RunRequest, SnapshotSettings,
    TargetChoice,
};

/// Runs the command and returns the exit code.
pub fn run(args: RunArgs) -> u8 {
    if args.compare {
        return super::parity::run(super::parity::Request {
            files: args.files,
            jobs: args.jobs,
            test: args.test,
            json: args.json,
            markdown: None,
            color: args.color,
        });
    }
    if args.no_token_cache {
        mcpr_runtime::auth::disable_token_cache();
    }
    let mut req = match request(&args) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return exit_code(ExitClass::Usage);
        }
    };
    let mut reporters = Reporters::new();
    let terminal = Terminal::new(std::io::stdout(), output::use_color(args.color));
    reporters.push(WithProgress::new(terminal, args.no_progress));
    reporters.push(StderrNotes);
    if std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true") {
        reporters.push(GithubAnnotations);
    }
    if let Some(path) = &args.json {
        reporters.push(JsonFile::new(path.clone()));
    }
    if let Some(path) = &args.junit {
        reporters.push(JunitFile::new(path.clone()));
    }
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

/// The run's settings from the command line, with its suites compiled.
fn request(args: &RunArgs) -> Result<RunRequest, String> {
    let target = match (&args.url, &args.profile, &args.server) {
        (Some(url), _, _) => TargetChoice::Url(url.clone()),
        (None, Some(name), _) => TargetChoice::Profile {
            name: name.clone(),
            file: args.profile_file.clone(),
        },
        (None, None, Some(line)) => TargetChoice::Command(line.clone()),
        (None, None, None) => TargetChoice::Suite,
    };
    let shard = args.shard.as_deref().map(run::parse_shard).transpose()?;
    let suites = args
        .files
        .iter()
        .map(|f| suites::load_file(f))
        .collect::<Result<_, _>>()?;
    Ok(RunRequest {
        suites,
        target,
        filter: args.test.clone(),
        no_deps: args.no_deps,
        fail_fast: args.fail_fast,
        shard,
        jobs: args.jobs,
        protocol: args.protocol.clone(),
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
            ci: std::env::var("CI").is_ok_and(|v| v == "true"),
        },
        history: HistorySettings {
            file: args.history.clone(),
            enabled: !args.no_history,
            fail_on_regression: args.fail_on_regression,
        },
        transcript: args.transcript,
        max_session_buffer: args.max_session_buffer,
        interrupt: None,
    })
}
