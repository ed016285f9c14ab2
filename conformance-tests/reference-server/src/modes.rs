//! The modes that make the reference server behave otherwise on purpose, for mcpr's own
//! tests: `--flaky` (a first tool call that fails), `--broken` (rules of the specification
//! broken, for `mcpr conformance`'s tests) and `--without` (capabilities left out, as a
//! smaller server would; the server then answers their methods -32601, as it should).

use std::collections::HashSet;

use rmcp::ErrorData;
use rmcp::model::ErrorCode;
use serde_json::Value;

/// What `--broken` may break:
/// - `unknown-tool`: an unknown tool is -32603, not -32602;
/// - `unknown-method`: an unknown method is -32603, not -32601;
/// - `progress`: the `progress` tool reports 1, 3, 2;
/// - `progress-late`: the `progress` tool reports once more, 20 ms after its result;
/// - `stdout`: a banner on stdout before the first message;
/// - `stdout-late`: a log line on stdout once its stdin closed;
/// - `stdin-exit`: the server stays alive after its stdin closes (in both eras);
/// - `unadvertised`: `completions` is not advertised, yet `completion/complete` answers;
/// - `unknown-cancel`: over stdio, a `notifications/cancelled` that names no request in
///   flight is answered with a JSON-RPC error (see `stdio.rs`);
/// - `no-origin-check`: over HTTP, a foreign `Origin` is served (see `origin.rs`).
pub const BREAKS: &[&str] = &[
    "unknown-tool",
    "unknown-method",
    "progress",
    "progress-late",
    "stdout",
    "stdout-late",
    "stdin-exit",
    "unadvertised",
    "unknown-cancel",
    crate::origin::NO_ORIGIN_CHECK,
];

/// The capabilities `--without` may leave out.
/// (`subscriptions`: every 2026 `subscriptions/listen` is refused.)
pub const OPTIONAL: &[&str] = &[
    "tools",
    "resources",
    "prompts",
    "logging",
    "completions",
    "subscriptions",
];

/// The flaky mode's settings: the file counting the sessions that failed, and how many.
pub struct Flaky {
    pub file: std::path::PathBuf,
    pub sessions: u64,
}

impl Flaky {
    /// Whether this session's first call fails: yes while the count in the file is under
    /// `sessions` (the count goes up by one).
    pub fn take(&self) -> bool {
        let done: u64 = std::fs::read_to_string(&self.file)
            .ok()
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or(0);
        if done >= self.sessions {
            return false;
        }
        let _ = std::fs::write(&self.file, (done + 1).to_string());
        true
    }
}

/// The rules broken and the capabilities left out.
#[derive(Debug, Clone, Default)]
pub struct Modes {
    pub broken: HashSet<String>,
    pub without: HashSet<String>,
}

impl Modes {
    /// Whether the server breaks `rule` (one of [`BREAKS`]).
    pub fn breaks(&self, rule: &str) -> bool {
        self.broken.contains(rule)
    }

    /// The capabilities the server advertises: `all` less those left out (and, broken
    /// `unadvertised`, less `completions`).
    pub fn advertised(&self, mut all: Value) -> Value {
        if let Some(caps) = all.as_object_mut() {
            caps.retain(|k, _| !self.without.contains(k));
            if self.breaks("unadvertised") {
                caps.remove("completions");
            }
        }
        all
    }

    /// Err(-32601) when the server was started `--without capability`: a method of a
    /// capability it does not offer is not found.
    pub fn offers(&self, capability: &str, method: &str) -> Result<(), ErrorData> {
        if self.without.contains(capability) {
            return Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                format!("Method not found: {method} (this server does not offer {capability})"),
                None,
            ));
        }
        Ok(())
    }

    /// Reads `--broken LIST` and `--without LIST`; `false` when the list names something
    /// unknown.
    pub fn add(&mut self, flag: &str, list: &str) -> bool {
        let (known, set) = match flag {
            "--broken" => (BREAKS, &mut self.broken),
            "--without" => (OPTIONAL, &mut self.without),
            _ => return false,
        };
        let items: Vec<&str> = list.split(',').map(str::trim).collect();
        if !items.iter().all(|i| known.contains(i)) {
            return false;
        }
        set.extend(items.into_iter().map(String::from));
        true
    }
}
