//! `mcpr snapshot -o FILE [-- CMD | --url …]` writes a server's definitions in the
//! committed snapshot form; `mcpr diff FILE [-- CMD | --url …]` compares the server with it
//! and classifies every change (docs/lint.md).

use crate::args::{DiffArgs, ReportFormat, SnapshotArgs};
use crate::commands::adhoc;
use crate::output;
use mcpr_compiler::names::count;
use mcpr_runtime::run::project::SnapshotDefaults;
use mcpr_runtime::surface::{self, Fetched};
use mcpr_runtime::toolsnap::{self, diff, render};
use std::path::PathBuf;

/// Exit code: a change that fails under the chosen policy.
const CHANGED: u8 = 1;

/// Lists the server's definitions; `Err` is the exit code (the problem is printed).
fn fetch(target: &crate::args::AdhocTarget) -> Result<Fetched, u8> {
    let opts = adhoc::options(target).map_err(|msg| {
        eprintln!("error: {msg}");
        output::USAGE
    })?;
    let fetched = match output::block_on_interruptible(surface::fetch(&opts))? {
        Ok(f) => f,
        Err(e) => return Err(adhoc::failure(&e)),
    };
    if let Some(problem) = fetched.stdout_report() {
        eprintln!("error: {problem}");
        return Err(output::SERVER_FAILURE);
    }
    Ok(fetched)
}

/// The snapshot file given, else mcpr.toml's `[snapshot]` table; `Err` is the exit code.
fn snapshot_file(given: Option<PathBuf>, flag: &str) -> Result<(PathBuf, SnapshotDefaults), u8> {
    let defaults = match adhoc::project() {
        Ok(p) => p.map(|p| p.snapshot).unwrap_or_default(),
        Err(msg) => {
            eprintln!("error: {msg}");
            return Err(output::USAGE);
        }
    };
    match given.or_else(|| defaults.file.clone()) {
        Some(f) => Ok((f, defaults)),
        None => {
            eprintln!(
                "error: name the snapshot file: {flag}, or `file = \"…\"` in mcpr.toml's [snapshot]"
            );
            Err(output::USAGE)
        }
    }
}

/// `mcpr snapshot`.
pub fn snapshot(args: SnapshotArgs) -> u8 {
    let (path, _) = match snapshot_file(args.output, "-o FILE") {
        Ok(f) => f,
        Err(code) => return code,
    };
    let fetched = match fetch(&args.target) {
        Ok(f) => f,
        Err(code) => return code,
    };
    let snap = toolsnap::from_surface(&fetched.surface);
    if let Err(e) = std::fs::write(&path, toolsnap::to_text(&snap)) {
        eprintln!("error: cannot write {}: {e}", path.display());
        return output::USAGE;
    }
    let s = &fetched.surface;
    eprintln!(
        "wrote {}: {}, {}, {}, {}",
        path.display(),
        count(s.tools.len(), "tool"),
        count(s.resources.len(), "resource"),
        count(s.resource_templates.len(), "resource template"),
        count(s.prompts.len(), "prompt")
    );
    output::OK
}

/// `mcpr diff`.
pub fn diff(args: DiffArgs) -> u8 {
    let (path, defaults) = match snapshot_file(args.snapshot.clone(), "the FILE argument") {
        Ok(f) => f,
        Err(code) => return code,
    };
    let shown = path.display().to_string();
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("error: cannot read {shown}: {e} (write it with `mcpr snapshot -o {shown}`)");
            return output::USAGE;
        }
    };
    let old = match toolsnap::parse(&text) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("error: {shown}: {e}");
            return output::USAGE;
        }
    };
    let fetched = match fetch(&args.target) {
        Ok(f) => f,
        Err(code) => return code,
    };
    let new = toolsnap::from_surface(&fetched.surface);
    let changes = diff::diff(&old, &new);
    let policy = render::Policy {
        strict: args.strict || (!args.allow_breaking && defaults.strict == Some(true)),
        allow_breaking: args.allow_breaking,
    };
    match args.format {
        ReportFormat::Human => print!("{}", render::human(&changes, &shown, policy)),
        ReportFormat::Github => print!("{}", render::github(&changes, &shown, &text, policy)),
        ReportFormat::Json => {
            let mut doc = render::json(&changes, &shown, policy);
            render::add_lines(&mut doc, &changes, &text);
            println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default())
        }
    }
    if policy.fails(&changes) {
        CHANGED
    } else {
        output::OK
    }
}
