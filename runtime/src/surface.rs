//! What a server shows a client and its model: its tools, resources, resource templates and
//! prompts, as listed (every page followed). `mcpr lint`, `mcpr snapshot`, `mcpr diff` and
//! `mcpr init` start from it.
//!
//! The lists are the raw definitions: a tool without an `inputSchema` is kept (the client's
//! own [`Client::list_tools`] refuses such a list; lint reports it as MCP003 instead).

use serde_json::Value;

use crate::adhoc::AdhocOptions;
use crate::client::{Client, is_method_not_found};
use crate::error::Error;
use crate::session::{ClientBehaviour, SessionConfig};
use crate::transcript::{Direction, MessageKind};

/// Everything a server lists.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Surface {
    /// `serverInfo.name` (empty when the server gave none).
    pub server: String,
    /// `tools/list`, in the server's order.
    pub tools: Vec<Value>,
    /// `resources/list` (empty when the server does not declare `resources`).
    pub resources: Vec<Value>,
    /// `resources/templates/list` (empty when the server does not declare `resources`).
    pub resource_templates: Vec<Value>,
    /// `prompts/list` (empty when the server does not declare `prompts`).
    pub prompts: Vec<Value>,
}

/// A surface with what went wrong on the way that did not stop the session.
#[derive(Debug, Clone)]
pub struct Fetched {
    /// What the server lists.
    pub surface: Surface,
    /// Lines the server wrote on stdout that are not JSON-RPC messages (each as the
    /// violation describes it). A real client drops the session at the first; see
    /// [`Fetched::stdout_report`].
    pub stdout_noise: Vec<String>,
    /// The tail of the server's stderr (`None` over HTTP).
    pub stderr_tail: Option<String>,
}

impl Fetched {
    /// The stdout problem as mcpr reports it — the offending lines, then the server's
    /// stderr tail — or `None` when stdout carried only protocol.
    pub fn stdout_report(&self) -> Option<String> {
        if self.stdout_noise.is_empty() {
            return None;
        }
        let mut out = format!(
            "the MCP server wrote {} on stdout that {} not JSON-RPC (a stdio server must keep stdout for protocol messages and log to stderr):",
            plural(self.stdout_noise.len(), "line"),
            if self.stdout_noise.len() == 1 {
                "is"
            } else {
                "are"
            }
        );
        for line in self.stdout_noise.iter().take(10) {
            out.push_str("\n  ");
            out.push_str(line);
        }
        if self.stdout_noise.len() > 10 {
            out.push_str(&format!("\n  … and {} more", self.stdout_noise.len() - 10));
        }
        if let Some(tail) = &self.stderr_tail {
            out.push_str(&stderr_block(tail));
        }
        Some(out)
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// `server stderr (last lines):` and the last 20 lines, indented, as the runtime's
/// errors show it.
fn stderr_block(tail: &str) -> String {
    let lines: Vec<&str> = tail.trim_end().lines().collect();
    if lines.is_empty() {
        return "\nserver stderr: (empty)".into();
    }
    let start = lines.len().saturating_sub(20);
    let mut out = String::from("\nserver stderr (last lines):");
    for l in &lines[start..] {
        out.push_str("\n  ");
        out.push_str(&crate::error::shorten(l, 500));
    }
    out
}

/// Connects as an ad-hoc command does, lists everything and closes the session (also on
/// failure). Lines on stdout that are not protocol do not end the session here: they are
/// collected, so the caller can report them with the server's stderr tail.
pub async fn fetch(opts: &AdhocOptions) -> Result<Fetched, Error> {
    fetch_with(opts, ClientBehaviour::default()).await
}

/// [`fetch`] with the client declaring `behaviour` (which decides, for some servers, which
/// tools exist).
pub async fn fetch_with(opts: &AdhocOptions, behaviour: ClientBehaviour) -> Result<Fetched, Error> {
    let config = SessionConfig {
        strict: false,
        behaviour,
        ..opts.session_config()
    };
    let client = Client::connect_to(opts.target(), config).await?;
    let listed = list(&client).await;
    let stdout_noise = stdout_noise(&client);
    client.close().await;
    let stderr_tail = match client.session().is_http() {
        true => None,
        false => Some(client.session().final_stderr_tail().await),
    };
    Ok(Fetched {
        surface: listed?,
        stdout_noise,
        stderr_tail,
    })
}

/// The lines the server wrote that are not JSON-RPC messages (non-JSON text, or JSON that
/// is not a message), as the session's transcript recorded them; blank lines, which
/// clients skip, are not recorded there.
pub fn stdout_noise(client: &Client) -> Vec<String> {
    let (entries, _) = client.session().transcript();
    entries
        .into_iter()
        .filter(|e| e.kind == MessageKind::Invalid && e.direction == Direction::Received)
        .map(|e| crate::error::shorten(&e.text, 300))
        .collect()
}

/// Lists everything of an open session.
pub async fn list(client: &Client) -> Result<Surface, Error> {
    let server = client.session().facts().server_info["name"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let tools = optional(client.list_all("tools/list", "tools", None, None).await)?;
    let (resources, resource_templates) = if client.server_has(&["resources"]) {
        (
            optional(client.list_resources().await)?,
            optional(client.list_resource_templates().await)?,
        )
    } else {
        (Vec::new(), Vec::new())
    };
    let prompts = if client.server_has(&["prompts"]) {
        optional(client.list_prompts().await)?
    } else {
        Vec::new()
    };
    Ok(Surface {
        server,
        tools,
        resources,
        resource_templates,
        prompts,
    })
}

/// A list the server does not implement (-32601) is an empty list.
fn optional(r: Result<Vec<Value>, Error>) -> Result<Vec<Value>, Error> {
    match r {
        Err(e) if is_method_not_found(&e) => Ok(Vec::new()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdout_report_names_lines_and_stderr() {
        let f = Fetched {
            surface: Surface::default(),
            stdout_noise: vec!["Server starting".into()],
            stderr_tail: Some("booting\nfatal: database not configured\n".into()),
        };
        assert_eq!(
            f.stdout_report().unwrap(),
            "the MCP server wrote 1 line on stdout that is not JSON-RPC (a stdio server must keep stdout for protocol messages and log to stderr):\n  Server starting\nserver stderr (last lines):\n  booting\n  fatal: database not configured"
        );
        let quiet = Fetched {
            stdout_noise: Vec::new(),
            ..f
        };
        assert_eq!(quiet.stdout_report(), None);
    }
}
