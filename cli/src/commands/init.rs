//! `mcpr init [-o FILE] [-- CMD | --url …]`: a starter `.mcpr` suite from a live server —
//! every tool called once, every resource read, every prompt got, each test expecting what
//! happened (docs/lint.md). Exit 0 written, 2 usage (the file exists), 3 the server failed.

use crate::args::InitArgs;
use crate::commands::adhoc;
use crate::output;
use mcpr_runtime::init::{self, write};
use mcpr_runtime::surface;

/// Runs the command and returns the exit code.
pub fn run(args: InitArgs) -> u8 {
    if let Some(out) = &args.output
        && out.exists()
        && !args.force
    {
        eprintln!(
            "error: {} exists; pass --force to overwrite it",
            out.display()
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
    let observed = output::block_on_interruptible(async {
        let fetched = surface::fetch_with(&opts, init::behaviour()).await?;
        if let Some(problem) = fetched.stdout_report() {
            return Ok(Err(problem));
        }
        init::observe(&opts, fetched.surface).await.map(Ok)
    });
    let starter = match observed {
        Ok(Ok(Ok(s))) => s,
        Ok(Ok(Err(problem))) => {
            eprintln!("error: {problem}");
            return output::SERVER_FAILURE;
        }
        Ok(Err(e)) => return adhoc::failure(&e),
        Err(code) => return code,
    };
    let server = match &opts.url {
        Some(url) => write::Server::Url {
            url: url.clone(),
            headers: opts.headers.clone().into_iter().collect(),
        },
        None => {
            let mut words = vec![opts.command.clone()];
            words.extend(opts.args.iter().cloned());
            write::Server::Command(words)
        }
    };
    let written = write::suite(&starter, &server, opts.timeout);
    match &args.output {
        Some(path) => {
            let folder = path.parent().filter(|p| !p.as_os_str().is_empty());
            if let Some(folder) = folder
                && let Err(e) = std::fs::create_dir_all(folder)
            {
                eprintln!("error: cannot create {}: {e}", folder.display());
                return output::USAGE;
            }
            if let Err(e) = std::fs::write(path, &written.text) {
                eprintln!("error: cannot write {}: {e}", path.display());
                return output::USAGE;
            }
            eprintln!(
                "wrote {}: {}; check it with `mcpr check {0}`, run it with `mcpr run {0}`",
                path.display(),
                mcpr_compiler::names::count(starter.checks.len(), "test")
            );
        }
        None => print!("{}", written.text),
    }
    for (header, var) in &written.env {
        eprintln!("note: the {header} header is read from ${{{var}}}; set it before `mcpr run`");
    }
    for check in &starter.checks {
        if let init::Outcome::Skipped(why) = &check.outcome {
            eprintln!("note: {} is skipped: {why}", check.name);
        }
    }
    output::OK
}
