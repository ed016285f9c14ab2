//! Credentials of a suite's targets, settled once per run before any test.
//!
//! The `tokenFrom` command of an HTTP target (`Token from` in `.mcpr` server options) runs
//! once; its trimmed output becomes the header `Authorization: Bearer <token>` of that
//! target. The token, every header value and every stdio `env` value — as resolved, after
//! `${env.…}` and `${state.…}` — join the suite's `redact` list, so every report masks
//! them, and so do the secrets of an `oauth` target's settings (client secret, private key,
//! assertion, refresh token). A failure is a named error: `MCP-AUTH-001` (the command is
//! empty), `MCP-AUTH-002` (it could not start, failed, timed out, or printed no single
//! token).

use crate::environment::Environment;
use std::collections::HashMap;
use std::process::Stdio;
use std::time::Duration;

use mcpr_compiler::ir::{self, HttpTarget, Suite};
use serde_json::Value;
use tokio::io::AsyncReadExt;

use crate::error::{Error, ErrorKind, fmt_duration};
use crate::values::Vars;

/// Longest a token command may run.
pub const TOKEN_TIMEOUT: Duration = Duration::from_secs(15);

/// Most bytes read from a token command's stdout (a token is far shorter).
const MAX_OUTPUT: usize = 64 * 1024;

/// Tokens already obtained in this run, by command line, so that a command shared by
/// several targets or suites runs once.
#[derive(Debug, Default)]
pub struct TokenCache {
    tokens: HashMap<String, String>,
    /// Deadline of each command.
    pub timeout: Option<Duration>,
}

impl TokenCache {
    /// An empty cache with the default deadline.
    pub fn new() -> TokenCache {
        TokenCache::default()
    }
}

/// Runs the `tokenFrom` command of every HTTP target of `suite` (main target, named
/// targets, servers) and turns each into an `Authorization: Bearer …` header; the tokens
/// and the resolved header and `env` values of every target join the suite's `redact`
/// list. `state` provides `${state.…}`.
pub async fn resolve_credentials(
    suite: &mut Suite,
    state: &Value,
    cache: &mut TokenCache,
    env: &Environment,
) -> Result<(), Error> {
    let mut secrets = Vec::new();
    if let Some(t) = &mut suite.target {
        resolve_target(t, state, cache, env, &mut secrets).await?;
    }
    for map in [&mut suite.targets, &mut suite.servers]
        .into_iter()
        .flatten()
    {
        let names: Vec<String> = map.keys().map(str::to_string).collect();
        for name in names {
            if let Some(t) = map.get_mut(&name) {
                resolve_target(t, state, cache, env, &mut secrets).await?;
            }
        }
    }
    if !secrets.is_empty() {
        let redact = suite.redact.get_or_insert_with(Vec::new);
        for s in secrets {
            if !redact.contains(&s) {
                redact.push(s);
            }
        }
    }
    Ok(())
}

async fn resolve_target(
    target: &mut ir::Target,
    state: &Value,
    cache: &mut TokenCache,
    env: &Environment,
    secrets: &mut Vec<String>,
) -> Result<(), Error> {
    let mut vars = Vars::with_env(env);
    vars.set("state", state.clone());
    // A value that does not resolve is reported when the target is used; here it only
    // cannot be a secret.
    let mut secret = |v: &str| {
        if let Ok(v) = vars.interpolate_text(v) {
            // `Bearer abc…`: the credential alone too.
            if let Some((_, cred)) = v.split_once(' ') {
                secrets.push(cred.trim().to_string());
            }
            secrets.push(v);
        }
    };
    let h: &mut HttpTarget = match target {
        ir::Target::StreamableHttp(h) | ir::Target::Sse(h) => h,
        ir::Target::Stdio(s) => {
            for (_, v) in s.env.iter().flat_map(|e| e.iter()) {
                secret(v);
            }
            return Ok(());
        }
    };
    for (_, v) in h.headers.iter().flat_map(|e| e.iter()) {
        secret(v);
    }
    if let Some(oauth) = &h.oauth
        && let Ok(config) = super::OAuthConfig::from_ir(oauth, &|t: &str| vars.interpolate_text(t))
    {
        secrets.extend(config.secrets());
    }
    let Some(command) = h.token_from.clone() else {
        return Ok(());
    };
    let url = vars
        .interpolate_text(&h.url)
        .unwrap_or_else(|_| h.url.clone());
    let command = vars.interpolate_text(&command).map_err(|reason| {
        Error::new(ErrorKind::TokenCommand {
            command: command.clone(),
            target: url.clone(),
            reason: format!("cannot be resolved: {reason}"),
        })
    })?;
    let token = match cache.tokens.get(&command) {
        Some(t) => t.clone(),
        None => {
            let t =
                run_token_command(&command, &url, cache.timeout.unwrap_or(TOKEN_TIMEOUT)).await?;
            cache.tokens.insert(command.clone(), t.clone());
            t
        }
    };
    let headers = h.headers.get_or_insert_with(Default::default);
    let existing: Vec<String> = headers
        .keys()
        .filter(|k| k.eq_ignore_ascii_case("authorization"))
        .map(str::to_string)
        .collect();
    let mut rebuilt: ir::OrderedMap<String> = headers
        .iter()
        .filter(|(k, _)| !existing.iter().any(|e| e == k))
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    rebuilt.insert("Authorization", format!("Bearer {token}"));
    *headers = rebuilt;
    h.token_from = None;
    secrets.push(token);
    Ok(())
}

/// Runs one token command (no shell; stdin closed; stdout is the token, trimmed) within
/// `timeout`. The token is never part of an error message.
pub async fn run_token_command(
    command: &str,
    target: &str,
    timeout: Duration,
) -> Result<String, Error> {
    let fail = |reason: String| {
        Error::new(ErrorKind::TokenCommand {
            command: command.into(),
            target: target.into(),
            reason,
        })
    };
    // The words of the command, by the one command-line rule (`Server:`, `--server`).
    let words = mcpr_compiler::command_line::split(command).map_err(|e| fail(e.to_string()))?;
    let Some((program, args)) = words.split_first() else {
        return Err(Error::new(ErrorKind::TokenCommandEmpty {
            target: target.into(),
        }));
    };
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| fail(format!("could not start: {e}")))?;
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let mut stderr = child.stderr.take().expect("stderr is piped");
    let work = async {
        let mut out = Vec::new();
        let mut err = Vec::new();
        let read_out = async {
            let mut buf = [0u8; 8192];
            loop {
                match stdout.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) if out.len() < MAX_OUTPUT => out.extend_from_slice(&buf[..n]),
                    Ok(_) => {}
                }
            }
        };
        let read_err = async {
            let mut buf = [0u8; 8192];
            loop {
                match stderr.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) if err.len() < MAX_OUTPUT => err.extend_from_slice(&buf[..n]),
                    Ok(_) => {}
                }
            }
        };
        tokio::join!(read_out, read_err);
        let status = child.wait().await;
        (status, out, err)
    };
    let (status, out, err) = match tokio::time::timeout(timeout, work).await {
        Ok(r) => r,
        Err(_) => {
            return Err(fail(format!(
                "did not finish within {} (it was stopped)",
                fmt_duration(timeout)
            )));
        }
    };
    let stderr_tail = {
        let text = String::from_utf8_lossy(&err);
        let text = text.trim();
        let tail: String = text
            .chars()
            .rev()
            .take(500)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        if tail.is_empty() {
            String::new()
        } else {
            format!("; stderr: {tail}")
        }
    };
    let status = status.map_err(|e| fail(format!("could not be waited for: {e}")))?;
    if !status.success() {
        let how = match status.code() {
            Some(c) => format!("exited with status {c}"),
            None => "was killed by a signal".to_string(),
        };
        return Err(fail(format!("{how}{stderr_tail}")));
    }
    let Ok(text) = String::from_utf8(out) else {
        return Err(fail("printed output that is not UTF-8".into()));
    };
    let token = text.trim();
    if token.is_empty() {
        return Err(fail(format!("printed no token{stderr_tail}")));
    }
    if token.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(fail(
            "printed more than one word; a bearer token is a single word on one line".into(),
        ));
    }
    Ok(token.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn token_commands() {
        let t = run_token_command("printf '  tok-123\\n'", "u", TOKEN_TIMEOUT).await;
        // printf gets the literal backslash-n from the quotes and prints a newline.
        assert_eq!(t.unwrap(), "tok-123");
        let e = run_token_command("", "http://x/mcp", TOKEN_TIMEOUT)
            .await
            .unwrap_err();
        assert_eq!(e.code(), "MCP-AUTH-001");
        let e = run_token_command("sh -c 'echo nope >&2; exit 4'", "u", TOKEN_TIMEOUT)
            .await
            .unwrap_err();
        assert_eq!(e.code(), "MCP-AUTH-002");
        assert!(
            e.to_string().contains("exited with status 4; stderr: nope"),
            "{e}"
        );
        let e = run_token_command("true", "u", TOKEN_TIMEOUT)
            .await
            .unwrap_err();
        assert!(e.to_string().contains("printed no token"), "{e}");
        let e = run_token_command("echo two words", "u", TOKEN_TIMEOUT)
            .await
            .unwrap_err();
        assert!(e.to_string().contains("more than one word"), "{e}");
        let e = run_token_command("printf 'tok", "u", TOKEN_TIMEOUT)
            .await
            .unwrap_err();
        assert_eq!(e.code(), "MCP-AUTH-002");
        assert!(e.to_string().contains("never closed"), "{e}");
        let e = run_token_command("/nonexistent/tokencmd", "u", TOKEN_TIMEOUT)
            .await
            .unwrap_err();
        assert!(e.to_string().contains("could not start"), "{e}");
        let start = std::time::Instant::now();
        let e = run_token_command("sleep 30", "u", Duration::from_millis(300))
            .await
            .unwrap_err();
        assert!(e.to_string().contains("did not finish within 300ms"), "{e}");
        assert!(start.elapsed() < Duration::from_secs(5));
    }
}
