//! `mcpr record -o FILE [--force] -- CMD ARGS…`: a stdio proxy between the client that
//! started mcpr and the server `CMD`; `mcpr record -o FILE --url URL [--listen ADDR]`: a
//! Streamable HTTP proxy the client talks to, forwarding to URL. Either writes a draft suite
//! of the session when it ends (docs/record.md). Everything mcpr says goes to stderr:
//! stdout belongs to the stdio client.

use crate::args::{RecordArgs, UntilArg};
use crate::output;
use mcpr_runtime::record::http::{HttpRecordOptions, HttpRecorder, Until};
use mcpr_runtime::record::{self, RecordOptions, Recorded};

/// Runs the command and returns the exit code.
pub fn run(args: RecordArgs) -> u8 {
    if args.output.exists() && !args.force {
        eprintln!(
            "mcpr record: error: {} exists; pass --force to overwrite it",
            args.output.display()
        );
        return output::USAGE;
    }
    let outcome = match &args.url {
        Some(url) => output::block_on_stoppable(|interrupt| {
            let opts = HttpRecordOptions {
                url: url.clone(),
                listen: args.listen.clone(),
                output: args.output.clone(),
                until: match args.until {
                    UntilArg::Delete => Until::Delete,
                    UntilArg::Signal => Until::Signal,
                },
                idle: args.idle,
                interrupt,
            };
            async move {
                let recorder = HttpRecorder::bind(&opts).await?;
                eprintln!("mcpr record: listening on {}", recorder.url());
                let ends = match opts.until {
                    Until::Delete => "when the client ends its session, or on Ctrl-C",
                    Until::Signal => "on Ctrl-C",
                };
                eprintln!(
                    "mcpr record: forwarding to {}; the recording ends {ends}{}",
                    recorder.upstream(),
                    match opts.idle {
                        Some(d) => format!(" or after {}s without a request", d.as_secs_f64()),
                        None => String::new(),
                    }
                );
                recorder.run(&opts).await
            }
        }),
        None => {
            let Some((command, rest)) = args.command.split_first() else {
                eprintln!("mcpr record: error: name the server after `--`, or give --url");
                return output::USAGE;
            };
            output::block_on_stoppable(|interrupt| {
                let opts = RecordOptions {
                    command: command.clone(),
                    args: rest.to_vec(),
                    output: args.output.clone(),
                    grace: args.shutdown_grace,
                    interrupt,
                };
                async move { record::record(&opts, std::io::stdin(), tokio::io::stdout()).await }
            })
        }
    };
    match outcome {
        Ok(Ok(done)) => {
            report(&args, &done);
            output::OK
        }
        Ok(Err(e)) => {
            eprintln!("mcpr record: error: {e}");
            if matches!(e.kind, mcpr_runtime::error::ErrorKind::Usage(_)) {
                output::USAGE
            } else {
                output::SERVER_FAILURE
            }
        }
        Err(code) => code,
    }
}

fn report(args: &RecordArgs, done: &Recorded) {
    for note in &done.notes {
        eprintln!("mcpr record: note: {note}");
    }
    for l in &done.draft.left_out {
        eprintln!("mcpr record: left out {l}");
    }
    eprintln!(
        "mcpr record: wrote {}: {} steps from {} requests; check it with `mcpr check {0}`, run it with `mcpr run {0}`",
        args.output.display(),
        done.draft.steps,
        done.calls
    );
}
