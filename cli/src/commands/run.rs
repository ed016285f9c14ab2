//! `mcpr run FILE…`: compile each file to the Suite IR (any surface format), run it with the
//! scheduler, print the terminal report, write `--json` / `--junit`, pick the exit code.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::args::RunArgs;
use crate::loader::FsLoader;
use crate::output::{self, SERVER_FAILURE, display_path};
use crate::progress::Progress;
use mcpr_compiler::SourceMap;
use mcpr_compiler::diagnostics::render;
use mcpr_compiler::ir::{self, Suite};
use mcpr_compiler::lower::{self, Options};
use mcpr_compiler::source::SourceFile;
use mcpr_runtime::auth::{TokenCache, resolve_credentials};
use mcpr_runtime::budget::{self, History};
use mcpr_runtime::data::{self, DataOptions};
use mcpr_runtime::exec::Outcome;
use mcpr_runtime::exec::secrets::Redactor;
use mcpr_runtime::report::{github, json, junit, terminal::Terminal};
use mcpr_runtime::schedule::{self, RunOptions, RunResult};
use mcpr_runtime::snapshot::{DEFAULT_FILE as SNAPSHOT_DEFAULT, SnapshotStore};
use mcpr_runtime::state;

/// Exit code: a test failed or was blocked.
const TEST_FAILED: u8 = 1;

/// Reads one file into a suite (`.mcpr`, or YAML/JSON — Suite IR JSON included — by its
/// extension), printing diagnostics; an error when it cannot be run.
pub(crate) fn load(path: &Path) -> Result<Suite, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut map = SourceMap::new();
    let id = map.add(SourceFile::new(display_path(path), text));
    let compiled = lower::compile(&mut map, id, &FsLoader::new("."), &Options::default());
    if !compiled.diagnostics.is_empty() {
        eprint!("{}", render::short(&compiled.diagnostics, &map));
    }
    if compiled.diagnostics.iter().any(|d| d.is_error()) {
        return Err(format!("{}: the suite has errors", display_path(path)));
    }
    compiled.suite.ok_or_else(|| {
        format!(
            "{}: no tests to run (a file of flows is imported by suites, not run)",
            display_path(path)
        )
    })
}

/// The folder a suite's relative data paths start from: the suite file's folder.
fn suite_dir(file: &Path) -> std::path::PathBuf {
    match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => ".".into(),
    }
}

/// Splits a command line on spaces; double quotes group words.
fn split_command(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    words.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        words.push(cur);
    }
    words
}

fn url_target(url: &str) -> ir::Target {
    if url.trim_end_matches('/').ends_with("/sse") {
        ir::Target::Sse(ir::HttpTarget::new(url))
    } else {
        ir::Target::http(url)
    }
}

fn override_target(args: &RunArgs) -> Result<Option<ir::Target>, String> {
    if let Some(url) = &args.url {
        return Ok(Some(ir::Target::http(url.clone())));
    }
    let profile_command;
    let mut server = args.server.as_ref();
    if let Some(name) = &args.profile {
        let path = &args.profile_file;
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("--profile {name}: cannot read {}: {e}", path.display()))?;
        match mcpr_compiler::profiles::lookup(&text, name)
            .map_err(|e| format!("--profile {name}: {}: {e}", display_path(path)))?
        {
            mcpr_compiler::profiles::Profile::Url(u) => return Ok(Some(url_target(&u))),
            mcpr_compiler::profiles::Profile::Command(c) => {
                profile_command = c;
                server = Some(&profile_command);
            }
        }
    }
    if let Some(line) = server {
        let mut words = split_command(line);
        if words.is_empty() {
            return Err("--server needs a command".into());
        }
        let command = words.remove(0);
        return Ok(Some(ir::Target::stdio(command, words)));
    }
    Ok(None)
}

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
    let target = match override_target(&args) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return output::USAGE;
        }
    };
    let mut suites = Vec::new();
    for f in &args.files {
        match load(f) {
            Ok(s) => suites.push((s, suite_dir(f))),
            Err(e) => {
                eprintln!("error: {e}");
                return output::USAGE;
            }
        }
    }
    let mut opts = RunOptions {
        filter: args.test.clone(),
        no_deps: args.no_deps,
        fail_fast: args.fail_fast,
        target,
        transcript: args.transcript,
        ..RunOptions::default()
    };
    if let Some(shard) = &args.shard {
        let parsed = shard
            .split_once('/')
            .and_then(|(k, n)| Some((k.trim().parse().ok()?, n.trim().parse().ok()?)));
        match parsed {
            Some(kn) => opts.shard = Some(kn),
            None => {
                eprintln!("error: --shard takes K/N, such as 1/4");
                return output::USAGE;
            }
        }
    }
    if let Some(j) = args.jobs {
        if j == 0 {
            eprintln!("error: --jobs must be at least 1");
            return output::USAGE;
        }
        opts.jobs = j;
    }
    if let Some(version) = &args.protocol {
        if mcpr_runtime::protocol::version::era_of(version).is_none() {
            eprintln!(
                "error: --protocol {version:?} is not a protocol version mcpr speaks; known: {}, {}",
                mcpr_runtime::protocol::HANDSHAKE_VERSIONS.join(", "),
                mcpr_runtime::protocol::MODERN_VERSIONS.join(", ")
            );
            return output::USAGE;
        }
        opts.protocol = Some(version.clone());
    }
    opts.connect_timeout = Duration::from_secs(30);
    let Some(first_target) = opts.target.clone().or_else(|| suites[0].0.target.clone()) else {
        eprintln!(
            "error: {} names no server (a .mcp script never does, nor a suite that says `Server from the command line`); pass --server CMD, --url URL or --profile NAME",
            display_path(&args.files[0])
        );
        return output::USAGE;
    };
    let first_suite = suites[0].0.clone();
    if let Some(path) = &args.state_in {
        match state::read(path, &first_target, args.allow_state_target_mismatch) {
            Ok(v) => opts.state = v,
            Err(e) => {
                eprintln!("error: {e}");
                return output::USAGE;
            }
        }
    }
    let color = output::use_color(args.color);
    let outcome = output::block_on_interruptible(async {
        let mut term = Terminal::new(std::io::stdout(), color);
        let progress = Progress::new(args.no_progress);
        let mut runs: Vec<RunResult> = Vec::new();
        let history_file = budget::history_path(args.history.as_deref());
        let history = if args.no_history {
            History::default()
        } else {
            History::load(&history_file).unwrap_or_else(|e| {
                eprintln!("warning: {e}; budgets see this run alone");
                History::default()
            })
        };
        let mut tokens = TokenCache::new();
        for (index, (mut suite, dir)) in suites.into_iter().enumerate() {
            // `Token from` commands run once per run, before any test; tokens and
            // resolved header and env values join the suite's secrets before any
            // redactor is made.
            resolve_credentials(&mut suite, &opts.state, &mut tokens)
                .await
                .map_err(|e| (output::USAGE, format!("error: {e}")))?;
            let suite_key = display_path(&args.files[index]);
            let budgets = suite.budgets.clone().unwrap_or_default();
            let data_opts = DataOptions {
                base_dir: dir,
                allow_remote_data: args.allow_remote_data,
                allow_custom_code: args.allow_custom_code,
                allow_private_network: args.allow_private_network,
                max_rows: usize::try_from(args.max_rows).unwrap_or(usize::MAX),
                local_only: false,
            };
            // Data loads before any test starts; a bad value stops the run with a
            // diagnostic that points into the data.
            let rows = data::load_suite(&suite, &data_opts).await.map_err(|e| {
                let code = if e.is_environment() {
                    SERVER_FAILURE
                } else {
                    output::USAGE
                };
                (
                    code,
                    e.render(output::use_stderr_color(args.color))
                        .trim_end()
                        .to_string(),
                )
            })?;
            let snap_path = args
                .snapshot
                .clone()
                .or_else(|| {
                    suite
                        .snapshots
                        .as_ref()
                        .and_then(|s| s.file.clone())
                        .map(Into::into)
                })
                .unwrap_or_else(|| SNAPSHOT_DEFAULT.into());
            let ignore = suite
                .snapshots
                .as_ref()
                .and_then(|s| s.ignore.clone())
                .unwrap_or_default();
            let ci = std::env::var("CI").is_ok_and(|v| v == "true");
            let mut store = SnapshotStore::load(&snap_path, ignore, args.update_snapshots, ci)
                .map_err(|e| (output::USAGE, format!("error: {e}")))?;
            store.set_redactor(Redactor::for_suite(&suite));
            term.set_redactor(Redactor::for_suite(&suite));
            let store = Arc::new(std::sync::Mutex::new(store));
            let mut suite_opts = opts.clone();
            suite_opts.snapshots = Some(Arc::clone(&store));
            suite_opts.data = data_opts;
            suite_opts.rows = Some(Arc::new(rows));
            let mut on_event = |e: &schedule::Event| progress.event(e, || term.event(e));
            let result = schedule::run_suite(Arc::new(suite), suite_opts, &mut on_event).await;
            let saved = store
                .lock()
                .map_err(|_| "the snapshot store is unusable".to_string())
                .and_then(|s| s.save());
            if let Err(e) = saved {
                return Err((SERVER_FAILURE, format!("error: {e}")));
            }
            match result {
                Ok(r) if r.tests.is_empty() && args.test.is_some() => {
                    return Err((
                        output::USAGE,
                        format!(
                            "error: no test of {} matches --test {:?}",
                            r.suite_name,
                            args.test.as_deref().unwrap_or_default()
                        ),
                    ));
                }
                Ok(mut r) => {
                    r.budgets = budget::evaluate(&budgets, &suite_key, &r.tests, &history);
                    if args.fail_on_regression {
                        r.regressions = budget::regressions(&suite_key, &r.tests, &history);
                    }
                    progress.suspend(|| term.budgets(&r));
                    if !args.no_history {
                        let record = budget::RunRecord::new(&suite_key, &r.tests);
                        if let Err(e) = budget::append(&history_file, &record) {
                            eprintln!("warning: {e}");
                        }
                    }
                    runs.push(r)
                }
                Err(e) => {
                    let code = if e.code.starts_with("MCP-INTERNAL") {
                        SERVER_FAILURE
                    } else {
                        output::USAGE
                    };
                    return Err((code, format!("error: {e}")));
                }
            }
        }
        progress.finish();
        term.summary(&runs);
        Ok(runs)
    });
    let runs = match outcome {
        Err(code) => return code,
        Ok(Err((code, msg))) => {
            eprintln!("{msg}");
            return code;
        }
        Ok(Ok(runs)) => runs,
    };
    if std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true") {
        print!("{}", github::annotations(&runs));
    }
    if let Some(path) = &args.state_out {
        let passed = runs.iter().all(|r| r.status == "passed");
        if passed {
            let mut outputs = serde_json::Map::new();
            for r in &runs {
                outputs.extend(r.outputs.clone());
            }
            if let Err(e) = state::write(path, &first_suite, &first_target, &outputs) {
                eprintln!("error: {e}");
                return SERVER_FAILURE;
            }
        } else {
            eprintln!("note: {} not written: the run did not pass", path.display());
        }
    }
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&json::report(&runs)).unwrap_or_default();
        if let Err(e) = std::fs::write(path, text + "\n") {
            eprintln!("error: cannot write {}: {e}", path.display());
            return SERVER_FAILURE;
        }
    }
    if let Some(path) = &args.junit {
        let written = junit::report(&runs)
            .and_then(|xml| std::fs::write(path, xml).map_err(|e| e.to_string()));
        if let Err(e) = written {
            eprintln!("error: cannot write {}: {e}", path.display());
            return SERVER_FAILURE;
        }
    }
    let all = runs.iter().flat_map(|r| &r.tests);
    let mut code = output::OK;
    let exceeded = runs
        .iter()
        .flat_map(|r| &r.budgets)
        .filter(|b| b.verdict == budget::Verdict::Exceeded)
        .count();
    let regressed: usize = runs.iter().map(|r| r.regressions.len()).sum();
    if exceeded + regressed > 0 {
        eprintln!("latency gate failed: {exceeded} budget(s) exceeded, {regressed} regression(s)");
        code = TEST_FAILED;
    }
    for t in all {
        match t.status {
            Outcome::Errored => return SERVER_FAILURE,
            Outcome::Failed | Outcome::Blocked => code = TEST_FAILED,
            _ => {}
        }
    }
    code
}

#[cfg(test)]
mod tests {
    use super::split_command;

    #[test]
    fn splits_with_quotes() {
        assert_eq!(
            split_command(r#"cargo run  -p "a b" x"#),
            ["cargo", "run", "-p", "a b", "x"]
        );
        assert_eq!(split_command(r#"x """#), ["x", ""]);
    }
}
