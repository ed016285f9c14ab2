//! The text of a starter suite (MCP Test Language 1, docs/language.md).

use std::time::Duration;

use serde_json::Value;

use super::{Action, Check, Outcome, Starter};

/// Where the suite's server is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Server {
    /// `Server: CMD ARGS…`.
    Command(Vec<String>),
    /// `MCP URL: URL`, with headers under `Server options:`.
    Url {
        /// The endpoint.
        url: String,
        /// Extra HTTP headers.
        headers: Vec<(String, String)>,
    },
}

/// A written suite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// The `.mcpr` text.
    pub text: String,
    /// Headers whose value looked like a credential, each written as a reference to an
    /// environment variable: `(header, variable)`; set them before `mcpr run`.
    pub env: Vec<(String, String)>,
}

/// True for a header that carries a credential (its value is never written to the file).
fn secret_header(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    [
        "authorization",
        "cookie",
        "token",
        "key",
        "secret",
        "auth",
        "password",
        "session",
    ]
    .iter()
    .any(|w| n.contains(w))
}

/// A name in quotes, the kind it does not contain (callers checked [`super::quotable`]).
fn quoted(s: &str) -> String {
    if s.contains('"') {
        format!("'{s}'")
    } else {
        format!("\"{s}\"")
    }
}

/// A server command line word, quoted when it holds a space or starts with a quote.
fn word(w: &str) -> String {
    if w.is_empty() || w.contains(char::is_whitespace) || w.starts_with(['"', '\'']) {
        quoted(w)
    } else {
        w.to_string()
    }
}

/// A YAML mapping key: bare when it is a plain identifier, else a JSON (double-quoted) string.
fn key(k: &str) -> String {
    let plain = k
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'));
    if plain && !matches!(k, "true" | "false" | "null" | "yes" | "no" | "on" | "off") {
        k.to_string()
    } else {
        Value::String(k.to_string()).to_string()
    }
}

/// The first line of a text, cut at 120 characters (with `…`), for a comment or a reason.
fn comment(text: &str) -> String {
    let first = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    if first.chars().count() <= 120 {
        return first.to_string();
    }
    let cut: String = first.chars().take(119).collect();
    format!("{}…", cut.trim_end())
}

/// What the header comment says of every starter suite.
const HEADER: &str = "\
# One test per tool, resource and prompt, each expecting what the server did when
# mcpr init called it. Arguments come from each tool's inputSchema (its required
# fields: default, examples, enum, else a placeholder): make them real ones. init
# called each tool twice; a value that was the same both times is expected as it was,
# one that changed is expected to keep its kind. Edit them to say what you mean.
";

/// The suite: a header comment, the server, `Default timeout`, then one test per check.
pub fn suite(starter: &Starter, server: &Server, timeout: Duration) -> Written {
    let mut out = String::from("MCP Test 1\n");
    let name = if starter.server.is_empty() {
        "(unnamed)"
    } else {
        &starter.server
    };
    out.push_str(&format!(
        "# Written by mcpr init from the server {name} (protocol {}).\n",
        starter.protocol
    ));
    out.push_str(HEADER);
    if starter.pinned {
        out.push_str(&format!(
            "# The protocol was pinned: run it with `mcpr run --protocol {}`.\n",
            starter.protocol
        ));
    }
    out.push_str(&format!(
        "Suite: {}\n",
        quoted(&suite_name(&starter.server))
    ));
    let mut env = Vec::new();
    match server {
        Server::Command(words) => {
            let line: Vec<String> = words.iter().map(|w| word(w)).collect();
            out.push_str(&format!("Server: {}\n", line.join(" ")));
        }
        Server::Url { url, headers } => {
            out.push_str(&format!("MCP URL: {url}\n"));
            if !headers.is_empty() {
                out.push_str("Server options:\n  headers:\n");
                for (name, value) in headers {
                    let value = if secret_header(name) || value.contains("${") {
                        let var: String = name
                            .chars()
                            .map(|c| {
                                if c.is_ascii_alphanumeric() {
                                    c.to_ascii_uppercase()
                                } else {
                                    '_'
                                }
                            })
                            .collect();
                        let var = format!("MCPR_HEADER_{var}");
                        env.push((name.clone(), var.clone()));
                        format!("${{env.{var}}}")
                    } else {
                        value.clone()
                    };
                    out.push_str(&format!("    {}: {}\n", key(name), Value::String(value)));
                }
            }
        }
    }
    out.push_str(&format!(
        "Default timeout: {} seconds\n",
        timeout.as_secs().clamp(1, 600)
    ));
    for line in &starter.left_out {
        out.push_str(&format!("# Left out: {}\n", comment(line)));
    }
    for t in &starter.templates {
        out.push_str(&format!(
            "# Resource template {t}: read one with `Read resource \"…\"` and real values.\n"
        ));
    }
    for check in &starter.checks {
        out.push('\n');
        test(check, &mut out);
    }
    Written { text: out, env }
}

fn suite_name(server: &str) -> String {
    let name = if server.is_empty() {
        "the server".to_string()
    } else {
        server.replace(['"', '\''], "")
    };
    format!("Starter tests of {name}")
}

fn test(check: &Check, out: &mut String) {
    let (label, verb) = match check.action {
        Action::Tool => ("Tool", "Call tool"),
        Action::Resource => ("Resource", "Read resource"),
        Action::Prompt => ("Prompt", "Get prompt"),
    };
    let name = format!("{label} {}", check.name);
    let title = if name.contains('"') && name.contains('\'') {
        name
    } else {
        quoted(&name)
    };
    out.push_str(&format!("Test: {title}\n"));
    if let Outcome::Skipped(why) = &check.outcome {
        out.push_str(&format!(
            "  Skip: {}\n",
            quoted(&comment(why).replace(['"', '\''], ""))
        ));
    }
    let args = check.arguments.as_object().filter(|a| !a.is_empty());
    match args {
        Some(a) if check.action != Action::Resource => {
            out.push_str(&format!("  {verb} {} with:\n", quoted(&check.name)));
            for (k, v) in a {
                out.push_str(&format!("    {}: {v}\n", key(k)));
            }
        }
        _ => out.push_str(&format!("  {verb} {}\n", quoted(&check.name))),
    }
    match &check.outcome {
        Outcome::Succeeded => {
            out.push_str("  Expect it succeeds\n");
            for e in super::expect::derive(&check.results) {
                out.push_str(&e.line());
                out.push('\n');
            }
        }
        Outcome::ToolError(text) => {
            if !text.trim().is_empty() {
                out.push_str(&format!(
                    "  # The tool answered with an error: {}\n",
                    comment(text)
                ));
            }
            out.push_str("  Expect an error\n");
        }
        Outcome::RpcError { code, message } => {
            out.push_str(&format!(
                "  # The server answered error {code}: {}\n",
                comment(message)
            ));
            out.push_str("  Expect an error\n");
            out.push_str(&format!("  Expect error code {code}\n"));
        }
        Outcome::Skipped(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpr_compiler::SourceMap;
    use mcpr_compiler::lower::{self, MemoryLoader, Options};
    use mcpr_compiler::source::SourceFile;
    use serde_json::json;

    fn compiled(text: &str) -> Value {
        let mut map = SourceMap::new();
        let id = map.add(SourceFile::new(
            "starter.mcpr".to_string(),
            text.to_string(),
        ));
        let c = lower::compile(&mut map, id, &MemoryLoader::new(), &Options::default());
        assert!(c.diagnostics.is_empty(), "{text}\n{:#?}", c.diagnostics);
        serde_json::to_value(c.suite.unwrap()).unwrap()
    }

    fn starter() -> Starter {
        let check = |action, name: &str, arguments: Value, outcome| Check {
            action,
            name: name.into(),
            arguments,
            outcome,
            results: Vec::new(),
        };
        let mut add = check(
            Action::Tool,
            "add",
            json!({"a": 1, "text": "true", "odd key": [1, {"b": null}], "yes": "no"}),
            Outcome::Succeeded,
        );
        let answer = |at: &str| json!({"content": [{"type": "text", "text": "it's \"3\""}], "structuredContent": {"sum": 3, "at": at, "parts": [1, 2], "none": null}});
        add.results = vec![answer("10:00"), answer("10:01")];
        Starter {
            server: "demo \"srv\"".into(),
            protocol: "2025-11-25".into(),
            pinned: true,
            checks: vec![
                add,
                check(
                    Action::Tool,
                    "fail\"s",
                    json!({}),
                    Outcome::ToolError("it failed\nsecond line".into()),
                ),
                check(
                    Action::Tool,
                    "slow",
                    json!({"ms": 1}),
                    Outcome::Skipped("no answer within 30s when mcpr init called it".into()),
                ),
                check(
                    Action::Resource,
                    "x://a b",
                    json!({}),
                    Outcome::RpcError {
                        code: -32002,
                        message: "not found".into(),
                    },
                ),
                check(
                    Action::Prompt,
                    "greet",
                    json!({"name": "example"}),
                    Outcome::Succeeded,
                ),
            ],
            templates: vec!["x://items/{id}".into()],
            left_out: vec!["tool a'b\"c: its name cannot be written in a test".into()],
        }
    }

    #[test]
    fn the_suite_compiles_and_keeps_argument_types() {
        let w = suite(
            &starter(),
            &Server::Command(vec!["node".into(), "my server.js".into(), "--flag".into()]),
            Duration::from_secs(30),
        );
        assert!(w.env.is_empty());
        assert!(w.text.contains(
            "\n# The protocol was pinned: run it with `mcpr run --protocol 2025-11-25`.\n"
        ));
        assert!(
            w.text
                .contains("\nServer: node \"my server.js\" --flag\nDefault timeout: 30 seconds\n"),
            "{}",
            w.text
        );
        assert!(
            w.text.contains("Test: \"Tool fail\\\"s\"") || w.text.contains("Test: 'Tool fail\"s'"),
            "{}",
            w.text
        );
        assert!(
            w.text
                .contains("  # The tool answered with an error: it failed\n  Expect an error\n"),
            "{}",
            w.text
        );
        assert!(w.text.contains("  Skip: \"no answer within 30s when mcpr init called it\"\n  Call tool \"slow\" with:\n"), "{}", w.text);
        assert!(w.text.contains("  Read resource \"x://a b\"\n  # The server answered error -32002: not found\n  Expect an error\n  Expect error code -32002\n"), "{}", w.text);
        assert!(
            w.text.contains("  Expect it succeeds\n  Expect \"content\" has 1 item\n  Expect \"content[0].type\" equals \"text\"\n  Expect \"content[0].text\" is a string\n  Expect \"structuredContent.sum\" equals 3\n  Expect \"structuredContent.at\" is a string\n  Expect \"structuredContent.parts\" equals [1,2]\n  Expect \"structuredContent.none\" equals null\n"),
            "{}",
            w.text
        );
        let ir = compiled(&w.text);
        let tests = ir["tests"].as_array().unwrap();
        assert_eq!(tests.len(), 5, "{ir:#}");
        let text = ir.to_string();
        assert!(
            text.contains(
                r#""arguments":{"a":1,"text":"true","odd key":[1,{"b":null}],"yes":"no"}"#
            ),
            "{ir:#}"
        );
    }

    #[test]
    fn credentials_in_headers_become_environment_references() {
        let w = suite(
            &starter(),
            &Server::Url {
                url: "http://127.0.0.1:9/mcp".into(),
                headers: vec![
                    ("Authorization".into(), "Bearer s3cret".into()),
                    ("X-Team".into(), "blue".into()),
                ],
            },
            Duration::from_secs(5),
        );
        assert!(!w.text.contains("s3cret"));
        assert!(w.text.contains("MCP URL: http://127.0.0.1:9/mcp\nServer options:\n  headers:\n    Authorization: \"${env.MCPR_HEADER_AUTHORIZATION}\"\n    X-Team: \"blue\"\nDefault timeout: 5 seconds\n"), "{}", w.text);
        assert_eq!(
            w.env,
            [(
                "Authorization".to_string(),
                "MCPR_HEADER_AUTHORIZATION".to_string()
            )]
        );
        compiled(&w.text);
    }
}
