//! The language server compiles an open document through the compiler's own path, so a flow
//! bomb typed into an editor meets the same budget as `mcpr check` (MCPLANG426): refused at
//! the call, in little time, without expanding and without overflowing the stack.

use mcpr_compiler::diagnostics::Code;
use mcpr_lsp::analysis::Analysis;
use mcpr_lsp::store::Store;
use std::time::{Duration, Instant};

/// Flows `P0` … `P{levels}`, each using the one before `uses` times, and a test using the last.
fn nested(levels: usize, uses: usize) -> String {
    let mut text = String::from("Server: node server.js\n\nFlow: \"P0\"\n  Send \"ping\"\n\n");
    for i in 1..=levels {
        text.push_str(&format!("Flow: \"P{i}\"\n"));
        for _ in 0..uses {
            text.push_str(&format!("  Use flow \"P{}\"\n", i - 1));
        }
        text.push('\n');
    }
    text.push_str(&format!("Test: \"Bomb\"\n  Use flow \"P{levels}\"\n"));
    text
}

fn budget_refused(text: &str) {
    let started = Instant::now();
    let analysis = Analysis::of(&Store::default(), "/bomb.mcpr", text);
    assert!(
        analysis
            .diagnostics
            .iter()
            .any(|d| d.code == Code::FlowTooLarge),
        "{:?}",
        analysis.diagnostics
    );
    assert!(started.elapsed() < Duration::from_secs(20));
}

#[test]
fn doubling_flows_are_refused_in_the_editor_too() {
    budget_refused(&nested(20, 2));
}

#[test]
fn a_chain_of_twenty_thousand_flows_is_refused_in_the_editor_too() {
    budget_refused(&nested(20_000, 1));
}
