//! The server a run uses instead of each suite's own: `--url`, `--server` or an
//! mcp-tester profile (`--profile`).

use std::path::PathBuf;

use mcpr_compiler::ir;
use mcpr_compiler::profiles::{self, Profile};

/// Which server the tests run against.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum TargetChoice {
    /// Each suite's own target (and the servers its tests name).
    #[default]
    Suite,
    /// An HTTP endpoint: Streamable HTTP, with the legacy HTTP+SSE fallback of
    /// `Session::start_http`.
    Url(String),
    /// A command line, split into words by the `Server:` rule (`mcpr_compiler::command_line`).
    Command(String),
    /// A profile of an mcp-tester profile file: its command or URL.
    Profile {
        /// The profile's name.
        name: String,
        /// The profile file.
        file: PathBuf,
    },
}

impl TargetChoice {
    /// The target that replaces the suites' own (`None` for [`TargetChoice::Suite`]).
    pub fn resolve(&self) -> Result<Option<ir::Target>, String> {
        match self {
            TargetChoice::Suite => Ok(None),
            TargetChoice::Url(url) => Ok(Some(ir::Target::http(url.clone()))),
            TargetChoice::Command(line) => command_target(line, "--server").map(Some),
            TargetChoice::Profile { name, file } => {
                let text = std::fs::read_to_string(file).map_err(|e| {
                    format!("--profile {name}: cannot read {}: {e}", file.display())
                })?;
                match profiles::lookup(&text, name)
                    .map_err(|e| format!("--profile {name}: {}: {e}", file.display()))?
                {
                    Profile::Url(u) => Ok(Some(url_target(&u))),
                    Profile::Command(c) => command_target(&c, "--server").map(Some),
                }
            }
        }
    }
}

/// A stdio target from a command line.
fn command_target(line: &str, flag: &str) -> Result<ir::Target, String> {
    let mut words =
        mcpr_compiler::command_line::split(line).map_err(|e| format!("{flag} {line:?}: {e}"))?;
    if words.is_empty() {
        return Err(format!("{flag} needs a command"));
    }
    let command = words.remove(0);
    Ok(ir::Target::stdio(command, words))
}

/// A profile's URL: legacy HTTP+SSE when it ends in `/sse`, else Streamable HTTP.
fn url_target(url: &str) -> ir::Target {
    if url.trim_end_matches('/').ends_with("/sse") {
        ir::Target::Sse(ir::HttpTarget::new(url))
    } else {
        ir::Target::http(url)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_split_by_the_server_rule() {
        let t = TargetChoice::Command(r#"cargo run  -p "a b" x"#.into())
            .resolve()
            .expect("resolves");
        assert_eq!(
            t,
            Some(ir::Target::stdio(
                "cargo".to_string(),
                ["run", "-p", "a b", "x"].map(String::from).to_vec()
            ))
        );
        let e = TargetChoice::Command("  ".into()).resolve().unwrap_err();
        assert_eq!(e, "--server needs a command");
        assert_eq!(TargetChoice::Suite.resolve(), Ok(None));
        let e = TargetChoice::Command(r#"node "my srv.js"#.into())
            .resolve()
            .unwrap_err();
        assert!(e.contains("never closed"), "{e}");
    }

    #[test]
    fn profile_urls_pick_the_transport() {
        assert!(matches!(url_target("http://h/sse/"), ir::Target::Sse(_)));
        assert!(matches!(
            url_target("http://h/mcp"),
            ir::Target::StreamableHttp(_)
        ));
    }
}
