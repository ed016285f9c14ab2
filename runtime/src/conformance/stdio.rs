//! The stdio transport's own checks, which no flow can express because they are about the
//! process rather than the protocol: nothing but JSON-RPC on stdout (logs go to stderr),
//! and an exit within a few seconds after stdin closes (the shutdown of the stdio
//! transport: close stdin, wait, then signal). The server is started here directly, talked
//! to with one handshake line, and always ended (killed when it does not exit).

use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use super::native::NativeCheck;
use super::{CheckResult, Verdict};
use crate::protocol::{Era, version::era_of};

/// How long a server may take to exit after its stdin closes.
pub const EXIT_GRACE: Duration = Duration::from_secs(3);

/// `stdio.stdout-clean`.
pub const CLEAN: NativeCheck = NativeCheck {
    check: "stdio.stdout-clean",
    library: "stdio",
    flow: "Nothing but JSON-RPC on stdout",
    checks: "Every line the server writes on stdout, from its start to its exit, is a JSON-RPC message; logs go to stderr.",
    spec: SPEC,
    listed: "must, all versions",
};

/// `stdio.exit-on-stdin-close`.
pub const EXIT: NativeCheck = NativeCheck {
    check: "stdio.exit-on-stdin-close",
    library: "stdio",
    flow: "The server exits when its stdin closes",
    checks: "After the handshake, the server exits within 3 seconds of its stdin closing, without a signal.",
    spec: SPEC,
    listed: "must, all versions",
};

/// The specification section of both checks.
const SPEC: &[&str] = &["basic/transports#stdio"];

/// The first request of the era: `initialize` or `server/discover`.
fn first_request(version: &str) -> Value {
    let info = json!({"name": "mcpr-conformance", "version": env!("CARGO_PKG_VERSION")});
    match era_of(version) {
        Some(Era::Modern) => {
            json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": info}}})
        }
        _ => json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {}, "clientInfo": info}}),
    }
}

/// Whether a stdout line is one JSON-RPC message (or a batch of them).
fn is_json_rpc(line: &str) -> bool {
    let one = |v: &Value| v.get("jsonrpc").and_then(Value::as_str) == Some("2.0");
    match serde_json::from_str::<Value>(line) {
        Ok(Value::Array(items)) => !items.is_empty() && items.iter().all(one),
        Ok(v) => one(&v),
        Err(_) => false,
    }
}

fn shown(line: &str) -> String {
    let mut s: String = line.chars().take(120).collect();
    if s.len() < line.len() {
        s.push('…');
    }
    s
}

/// Runs both checks against `program args` for `version`.
pub async fn checks(
    program: &str,
    args: &[String],
    version: &str,
    timeout: Duration,
) -> Vec<CheckResult> {
    let fail_both = |why: String| {
        vec![
            CLEAN.result(version, Verdict::Failure, Some(why.clone())),
            EXIT.result(version, Verdict::Failure, Some(why)),
        ]
    };
    let mut child = match tokio::process::Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
    {
        Ok(c) => c,
        Err(e) => return fail_both(format!("could not start `{program}`: {e}")),
    };
    let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return fail_both("the server's pipes could not be opened".into());
    };
    let mut lines = BufReader::new(stdout).lines();
    let mut bad: Option<String> = None;
    let mut line = first_request(version).to_string();
    line.push('\n');
    if let Err(e) = stdin.write_all(line.as_bytes()).await {
        return fail_both(format!("could not write the handshake: {e}"));
    }
    // Read until the answer to the handshake.
    let answered = tokio::time::timeout(timeout, async {
        while let Ok(Some(l)) = lines.next_line().await {
            if !is_json_rpc(&l) {
                bad.get_or_insert_with(|| shown(&l));
                continue;
            }
            if serde_json::from_str::<Value>(&l).is_ok_and(|v| v.get("id") == Some(&json!(1))) {
                return true;
            }
        }
        false
    })
    .await
    .unwrap_or(false);
    if !answered {
        let _ = child.kill().await;
        return fail_both(format!(
            "the server did not answer the first request within {} ms",
            timeout.as_millis()
        ));
    }
    drop(stdin);
    let closed = Instant::now();
    // Drain stdout until it ends, and wait for the exit.
    let exited = tokio::time::timeout(EXIT_GRACE, async {
        while let Ok(Some(l)) = lines.next_line().await {
            if !is_json_rpc(&l) {
                bad.get_or_insert_with(|| shown(&l));
            }
        }
        child.wait().await.ok()
    })
    .await;
    let exit = match exited {
        Ok(Some(_)) => EXIT.result(version, Verdict::Success, None),
        _ => {
            let _ = child.kill().await;
            EXIT.result(
                version,
                Verdict::Failure,
                Some(format!(
                    "still running {} ms after its stdin closed (ended with SIGKILL)",
                    closed.elapsed().as_millis()
                )),
            )
        }
    };
    let clean = match bad {
        None => CLEAN.result(version, Verdict::Success, None),
        Some(l) => CLEAN.result(
            version,
            Verdict::Failure,
            Some(format!(
                "the server wrote a line on stdout that is not JSON-RPC: {l}"
            )),
        ),
    };
    vec![clean, exit]
}

#[cfg(test)]
mod tests {
    #[test]
    fn json_rpc_lines_are_told_from_others() {
        assert!(super::is_json_rpc(
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#
        ));
        assert!(super::is_json_rpc(r#"[{"jsonrpc":"2.0","method":"x"}]"#));
        assert!(!super::is_json_rpc("Server starting"));
        assert!(!super::is_json_rpc(r#"{"id":1}"#));
        assert!(!super::is_json_rpc("[]"));
    }
}
