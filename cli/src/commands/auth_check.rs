//! `mcpr auth-check URL [--oauth …]`: how a protected server behaves (challenge,
//! protected-resource and authorization-server metadata, scopes), with the code of the
//! OAuth client; with OAuth settings, a whole flow and `tools/list` with the token.

use crate::args::AuthCheckArgs;
use crate::output;
use mcpr_runtime::auth::{self, check};
use mcpr_runtime::context::RunContext;

/// Exit code: a finding is a failure.
const FAILED: u8 = 1;

/// Runs the command and returns the exit code.
pub fn run(args: AuthCheckArgs) -> u8 {
    let context = RunContext::of_process(!args.no_token_cache);
    let oauth = if args.oauth || !args.oauth_setting.is_empty() {
        match auth::config_from_pairs(&args.oauth_setting, &context.env) {
            Ok(c) => Some(c),
            Err(e) => {
                eprintln!("error: {e}");
                return output::USAGE;
            }
        }
    } else {
        None
    };
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: the async runtime did not start: {e}");
            return output::USAGE;
        }
    };
    let report = rt.block_on(check::auth_check(
        &args.url,
        oauth,
        args.protocol.as_deref(),
        args.timeout,
        &context.auth,
    ));
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        );
    } else {
        print!("{}", report.render());
    }
    if report.failed() { FAILED } else { output::OK }
}
