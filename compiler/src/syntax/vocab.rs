//! The closed vocabulary: the keyword phrase that opens every statement form
//! (aliases included), used to suggest the nearest form for a line that
//! matches none ("did you mean").

/// `(opening keywords, usage shown in the suggestion)` for every form.
pub const VOCABULARY: &[(&str, &str)] = &[
    ("mcp test 1", "MCP Test 1"),
    ("suite:", "Suite: NAME"),
    ("server:", "Server: COMMAND ARGS…"),
    (
        "server from the command line",
        "Server from the command line",
    ),
    ("mcp url:", "MCP URL: URL"),
    ("connect to:", "Connect to: URL"),
    ("server options:", "Server options:"),
    ("named server", "Named server \"NAME\": COMMAND OR URL"),
    ("server options for", "Server options for \"NAME\":"),
    ("compare target", "Compare target \"NAME\": COMMAND OR URL"),
    ("parity target", "Parity target \"NAME\": COMMAND OR URL"),
    ("target options for", "Target options for \"NAME\":"),
    ("default timeout:", "Default timeout: 10 seconds"),
    ("budget:", "Budget: p95 500 ms over 20 calls"),
    ("budget for", "Budget for \"TEST\": p95 500 ms"),
    ("redact:", "Redact: \"VALUE\", \"VALUE\""),
    ("snapshots:", "Snapshots: FILE"),
    (
        "ignore snapshot paths:",
        "Ignore snapshot paths: \"$.PATH\"",
    ),
    ("client behavior:", "Client behavior:"),
    ("functions:", "Functions: PATH"),
    ("extensions:", "Extensions:"),
    ("custom functions:", "Custom functions: PATH"),
    ("import flows from", "Import flows from \"PATH\""),
    ("flow:", "Flow: \"NAME\""),
    ("data source:", "Data source: \"NAME\""),
    ("test:", "Test: NAME"),
    ("scenario:", "Scenario: NAME"),
    ("inputs:", "Inputs: a, b=1"),
    ("outputs:", "Outputs: VALUE"),
    ("id:", "Id: ID"),
    ("test id:", "Test ID: ID"),
    ("on server", "On server \"NAME\""),
    ("skip", "Skip: REASON"),
    ("variables:", "Variables:"),
    ("continue on failure", "Continue on failure"),
    ("logical name:", "Logical name: NAME"),
    ("data row:", "Data row:"),
    ("require:", "Require: CAPABILITY"),
    (
        "given the server supports:",
        "Given the server supports: CAPABILITY",
    ),
    ("require protocol:", "Require protocol: \"2025-06-18\""),
    ("depends on:", "Depends on: ID"),
    ("after:", "After: ID"),
    ("setup:", "Setup:"),
    ("steps:", "Steps:"),
    ("cleanup:", "Cleanup:"),
    ("call tool", "Call tool \"NAME\" with:"),
    ("call the tool", "Call the tool \"NAME\" with:"),
    (
        "when i call the tool",
        "When I call the tool \"NAME\" with:",
    ),
    ("read resource", "Read resource \"URI\""),
    ("read the resource", "Read the resource \"URI\""),
    (
        "when i read the resource",
        "When I read the resource \"URI\"",
    ),
    ("get prompt", "Get prompt \"NAME\" with:"),
    ("get the prompt", "Get the prompt \"NAME\" with:"),
    ("when i get the prompt", "When I get the prompt \"NAME\""),
    ("send", "Send \"METHOD\" with:"),
    ("when i send", "When I send \"METHOD\""),
    ("subscribe to resource", "Subscribe to resource \"URI\""),
    (
        "unsubscribe from resource",
        "Unsubscribe from resource \"URI\"",
    ),
    (
        "wait for notification",
        "Wait for notification \"METHOD\" within 5 seconds",
    ),
    ("set log level to", "Set log level to \"LEVEL\""),
    ("list all tools", "List all tools"),
    ("list all resources", "List all resources"),
    ("list all prompts", "List all prompts"),
    ("list all resource templates", "List all resource templates"),
    ("get task", "Get task \"TASK-ID\""),
    ("list tasks", "List tasks"),
    ("cancel task", "Cancel task \"TASK-ID\""),
    (
        "when the server asks for input,",
        "When the server asks for input, respond \"accept\" with:",
    ),
    (
        "when the server requests sampling,",
        "When the server requests sampling, respond \"TEXT\"",
    ),
    ("set", "Set \"VARIABLE\" using \"FUNCTION\" with:"),
    ("use flow", "Use flow \"NAME\" with:"),
    ("run step with:", "Run step with:"),
    ("for each row", "For each row:"),
    ("expect it succeeds", "Expect it succeeds"),
    ("expect an error", "Expect an error"),
    ("expect error code", "Expect error code -32602"),
    ("expect error message", "Expect error message contains TEXT"),
    (
        "expect the call to finish within",
        "Expect the call to finish within 800 ms",
    ),
    ("expect", "Expect \"PATH\" equals VALUE"),
    ("then", "Then \"PATH\" equals VALUE"),
    ("save", "Save \"PATH\" as \"VARIABLE\""),
    ("remember", "Remember \"PATH\" as \"VARIABLE\""),
    ("export", "Export \"PATH\" as \"NAME\""),
    ("wait up to", "Wait up to 2 seconds"),
];

/// Phrases of a phrase-mode data source.
pub const DATA_PHRASES: &[(&str, &str)] = &[
    ("from csv", "From CSV \"FILE\""),
    ("from json", "From JSON \"FILE\""),
    ("from yaml", "From YAML \"FILE\""),
    ("from excel", "From Excel \"FILE\" sheet \"SHEET\""),
    ("from rest", "From REST \"URL\" at \"PATH\""),
    ("column", "Column \"NAME\" is string required"),
    ("derive", "Derive \"NAME\" as TEMPLATE"),
    ("keep rows where", "Keep rows where \"COLUMN\" equals VALUE"),
    ("sample first", "Sample first 10 rows"),
    ("sample", "Sample 25 rows with seed 2025"),
    ("cache this source", "Cache this source"),
];

/// The usage of the form whose opening keywords are closest to the start of
/// `line`, if it is close enough to be a plausible typo.
pub fn suggest(
    line: &str,
    vocabulary: &'static [(&'static str, &'static str)],
) -> Option<&'static str> {
    let lower = line.to_lowercase();
    // Keep only the keyword-like prefix: stop at the first quote.
    let head = lower.split(['"', '\'']).next().unwrap_or("");
    let words: Vec<&str> = head.split_whitespace().collect();
    let mut best: Option<(usize, usize, &'static str)> = None;
    for (phrase, usage) in vocabulary {
        let n = phrase.split(' ').count();
        if words.len() < n.min(1) {
            continue;
        }
        let candidate = words.iter().take(n).copied().collect::<Vec<_>>().join(" ");
        let d = crate::names::edit_distance(&candidate, phrase);
        let limit = (phrase.len() / 3).max(1);
        if d <= limit && best.is_none_or(|(bd, bn, _)| d < bd || (d == bd && n > bn)) {
            best = Some((d, n, usage));
        }
    }
    best.map(|(_, _, u)| u)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_nearby_forms() {
        assert_eq!(
            suggest("Cal tool \"x\"", VOCABULARY),
            Some("Call tool \"NAME\" with:")
        );
        assert_eq!(
            suggest("Expcet \"x\" equals 2", VOCABULARY),
            Some("Expect \"PATH\" equals VALUE")
        );
        assert_eq!(
            suggest("Subscribe too resource \"u\"", VOCABULARY),
            Some("Subscribe to resource \"URI\"")
        );
        assert_eq!(suggest("Frobnicate the server", VOCABULARY), None);
    }
}
