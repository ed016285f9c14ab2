//! Reporters: they read scheduler events and results only, never sessions or transports.
//! One module per output format.

pub mod github;
pub mod json;
pub mod junit;
pub mod terminal;

use crate::exec::Failure;

/// A failure as one block of plain text: code and message, expected/actual, the last MCP
/// message and the server's stderr tail (used by JUnit and GitHub-style outputs).
pub fn failure_text(f: &Failure) -> String {
    let mut s = String::new();
    if let Some(loc) = &f.location {
        s.push_str(&format!("{}:{}:{}: ", loc.file, loc.line, loc.column));
    }
    for frame in f.flow.iter().rev() {
        let at = &frame.call_site;
        s.push_str(&format!(
            "(in flow “{}” used at {}:{}:{}) ",
            frame.name, at.file, at.line, at.column
        ));
    }
    if let Some(step) = &f.step {
        s.push_str(&format!("step “{step}”: "));
    }
    s.push_str(&format!("{}: {}", f.code, f.message));
    if let Some(e) = &f.expected {
        s.push_str(&format!("\nexpected: {e}"));
    }
    if let Some(a) = &f.actual {
        s.push_str(&format!("\nactual:   {a}"));
    }
    if let Some(m) = &f.last_message {
        s.push_str(&format!("\nlast MCP message {m}"));
    }
    if let Some(x) = &f.exit_status {
        s.push_str(&format!("\nserver exit status: {x}"));
    }
    if let Some(t) = &f.stderr_tail {
        s.push_str(&format!("\nserver stderr (last lines):\n{}", tail(t, 20)));
    }
    s
}

/// The last `n` lines of a text.
pub fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}
