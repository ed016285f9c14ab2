//! Which protocol versions a server speaks: the handshake mcpr picks by itself (discovery
//! first, `initialize` as the fallback), and, when that is the stateless era, the newest
//! `initialize` version too (a server may speak both).

use std::time::Duration;

use crate::adhoc::AdhocOptions;
use crate::protocol::{Era, LATEST_HANDSHAKE};
use crate::run::TargetChoice;

/// The ad-hoc options that reach `target`.
pub fn options(target: &TargetChoice, timeout: Duration) -> Result<AdhocOptions, String> {
    let mut opts = match target {
        TargetChoice::Url(url) => AdhocOptions::http(url.clone()),
        TargetChoice::Command(line) => {
            let words = mcpr_compiler::command_line::split(line)
                .map_err(|_| format!("the server command has an unclosed quote: {line}"))?;
            let Some((program, args)) = words.split_first() else {
                return Err("the server command is empty".into());
            };
            AdhocOptions::new(program.clone(), args.to_vec())
        }
        _ => return Err("mcpr conformance needs a server: --url URL or -- CMD ARGS…".into()),
    };
    opts.timeout = timeout;
    // A stray stdout line is judged once, by `stdio.stdout-clean`; every other check
    // judges what the server does besides.
    opts.tolerate_stray_lines = true;
    Ok(opts)
}

/// The versions to test, the one mcpr negotiates by itself first.
pub async fn eras(target: &TargetChoice, timeout: Duration) -> Result<Vec<String>, String> {
    let mut opts = options(target, timeout)?;
    let first = opts
        .connect()
        .await
        .map_err(|e| format!("cannot reach the server: {e}"))?;
    let facts = first.session().facts().clone();
    first.close().await;
    let mut versions = vec![facts.protocol_version.clone()];
    if facts.era == Era::Modern {
        opts.protocol = Some(LATEST_HANDSHAKE.to_string());
        if let Ok(legacy) = opts.connect().await {
            let v = legacy.session().protocol_version().to_string();
            legacy.close().await;
            versions.insert(0, v);
        }
    }
    Ok(versions)
}

/// The capabilities the server declares when spoken to in `version` (`None` when it cannot
/// be reached in that version).
pub async fn capabilities(
    target: &TargetChoice,
    version: &str,
    timeout: Duration,
) -> Option<serde_json::Value> {
    let mut opts = options(target, timeout).ok()?;
    opts.protocol = Some(version.to_string());
    let client = opts.connect().await.ok()?;
    let caps = client.session().facts().capabilities.clone();
    client.close().await;
    Some(caps)
}
