//! Ad-hoc commands against one server, in the style of quick shell checks:
//! `mcpr tools -- CMD ARGS…`, `mcpr call TOOL '{json}' -- CMD ARGS…`,
//! `mcpr ping -- CMD ARGS…` (or `--url URL` for Streamable HTTP).

use crate::args::{AdhocTarget, CallArgs, PingArgs, ToolsArgs};
use crate::output;
use mcpr_runtime::adhoc::{self, AdhocOptions};
use mcpr_runtime::context::RunContext;
use mcpr_runtime::environment::Environment;
use mcpr_runtime::error::ErrorKind;
use mcpr_runtime::run::project::{DefaultTarget, Project};

/// Exit code: a tool answered with `isError: true`.
const TOOL_ERROR: u8 = 1;
/// Exit code: the server or the transport failed.
const SERVER_FAILURE: u8 = 3;

/// The ad-hoc options of a target (`--url`, `--header`, `--protocol`, `--timeout`, `-- CMD`).
pub(crate) fn options(target: &AdhocTarget) -> Result<AdhocOptions, String> {
    let mut opts = match (&target.url, target.command.split_first()) {
        (Some(url), None) => AdhocOptions::http(url.clone()),
        (None, Some((cmd, args))) => AdhocOptions::new(cmd.clone(), args.iter().cloned()),
        (Some(_), Some(_)) => {
            return Err("give either --url or a command after `--`, not both".into());
        }
        (None, None) => match project()?.and_then(|p| p.target) {
            Some(DefaultTarget::Command { words, dir }) => {
                let mut o = AdhocOptions::new(words[0].clone(), words[1..].iter().cloned());
                o.cwd = Some(dir);
                o
            }
            Some(DefaultTarget::Url(url)) => AdhocOptions::http(url),
            None => {
                return Err(
                    "name the server: `-- COMMAND ARGS…`, `--url URL`, or `server = \"…\"` in mcpr.toml"
                        .into(),
                );
            }
        },
    };
    opts.protocol = target.protocol.clone();
    opts.timeout = target.timeout;
    for h in &target.header {
        let (k, v) = h
            .split_once(':')
            .ok_or_else(|| format!("header `{h}` is not `Name: value`"))?;
        opts.headers
            .insert(k.trim().to_string(), v.trim().to_string());
    }
    if target.oauth || !target.oauth_setting.is_empty() {
        let context = RunContext::of_process(!target.no_token_cache);
        opts.with_oauth(
            &mcpr_runtime::auth::settings::oauth_from_pairs(&target.oauth_setting)?,
            &context,
        )?;
    }
    Ok(opts)
}

/// The project file (`MCPR_CONFIG`, else the first `mcpr.toml` upward from the working
/// folder), if there is one.
pub(crate) fn project() -> Result<Option<Project>, String> {
    let cwd = std::env::current_dir().unwrap_or_default();
    mcpr_runtime::run::project::load(None, &cwd, &Environment::of_process())
}

/// One session, one thread: its reader and writer never wake each other across threads.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("the async runtime starts")
}

/// Prints a failure and returns its exit code (usage, else server failure).
pub(crate) fn failure(err: &mcpr_runtime::error::Error) -> u8 {
    eprintln!("error: {err}");
    if matches!(err.kind, ErrorKind::Usage(_)) {
        output::USAGE
    } else {
        SERVER_FAILURE
    }
}

fn print_json(v: &impl serde::Serialize) {
    println!("{}", serde_json::to_string_pretty(v).unwrap_or_default());
}

/// `mcpr tools`: the tool list as JSON.
pub fn tools(args: ToolsArgs) -> u8 {
    let opts = match options(&args.target) {
        Ok(o) => o,
        Err(msg) => {
            eprintln!("error: {msg}");
            return output::USAGE;
        }
    };
    match runtime().block_on(adhoc::list_tools(&opts)) {
        Ok(v) => {
            print_json(&v);
            output::OK
        }
        Err(e) => failure(&e),
    }
}

/// `mcpr call`: one tool call; exit 1 when the result has `isError: true`.
pub fn call(args: CallArgs) -> u8 {
    let opts = match options(&args.target) {
        Ok(o) => o,
        Err(msg) => {
            eprintln!("error: {msg}");
            return output::USAGE;
        }
    };
    let arguments: serde_json::Value =
        match serde_json::from_str(args.arguments.as_deref().unwrap_or("{}")) {
            Ok(v) => v,
            Err(e) => {
                eprintln!("error: the arguments are not JSON: {e}");
                return output::USAGE;
            }
        };
    match runtime().block_on(adhoc::call_tool(&opts, &args.tool, arguments)) {
        Ok(result) => {
            print_json(&result);
            if result.get("isError").and_then(|v| v.as_bool()) == Some(true) {
                TOOL_ERROR
            } else {
                output::OK
            }
        }
        Err(e) => failure(&e),
    }
}

/// `mcpr ping`: handshake plus one ping, with timings.
pub fn ping(args: PingArgs) -> u8 {
    let opts = match options(&args.target) {
        Ok(o) => o,
        Err(msg) => {
            eprintln!("error: {msg}");
            return output::USAGE;
        }
    };
    match runtime().block_on(adhoc::ping(&opts)) {
        Ok(report) => {
            print_json(&report);
            output::OK
        }
        Err(e) => failure(&e),
    }
}
