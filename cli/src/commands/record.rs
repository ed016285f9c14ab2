//! `mcpr record -o FILE [--force] -- CMD ARGS…`: a stdio proxy between the client that
//! started mcpr and the server `CMD`, writing a draft suite of the session when the client
//! closes its end or a signal stops it (docs/record.md). Everything mcpr says goes to
//! stderr: stdout belongs to the client.

use crate::args::RecordArgs;
use crate::output;
use mcpr_runtime::record::{self, RecordOptions};
use std::time::Duration;

/// Runs the command and returns the exit code.
pub fn run(args: RecordArgs) -> u8 {
    if args.output.exists() && !args.force {
        eprintln!(
            "mcpr record: error: {} exists; pass --force to overwrite it",
            args.output.display()
        );
        return output::USAGE;
    }
    let Some((command, rest)) = args.command.split_first() else {
        eprintln!("mcpr record: error: name the server after `--`");
        return output::USAGE;
    };
    let outcome = output::block_on_stoppable(|interrupt| {
        let opts = RecordOptions {
            command: command.clone(),
            args: rest.to_vec(),
            output: args.output.clone(),
            grace: Duration::from_millis(args.shutdown_grace),
            interrupt,
        };
        async move { record::record(&opts, std::io::stdin(), tokio::io::stdout()).await }
    });
    match outcome {
        Ok(Ok(done)) => {
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
