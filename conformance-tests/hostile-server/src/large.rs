//! Large answers: many small values in one message, the way a result of a few megabytes
//! can hold millions of JSON values (`many-values`), or a `tools/list` of a great many
//! tools (`many-tools`). Each answer is written as bytes, never built as a `Value` here.

use std::io::Write as _;

/// How many numbers `many-values` puts in its answer unless told (about 15 MB of JSON).
pub const DEFAULT_VALUES: usize = 7_400_000;

/// How many tools `many-tools` lists unless told.
pub const DEFAULT_TOOLS: usize = 100_000;

/// The count given after the mode (`many-values 1000`), or `default`.
pub fn count(default: usize) -> usize {
    std::env::args()
        .nth(2)
        .and_then(|s| s.replace('_', "").parse().ok())
        .unwrap_or(default)
}

/// A `tools/call` answer whose `structuredContent.values` holds `n` one-digit numbers.
pub fn many_values(id: &serde_json::Value, n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n * 2 + 256);
    let _ = write!(
        out,
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"{n} values"}}],"structuredContent":{{"values":["#
    );
    for i in 0..n {
        if i > 0 {
            out.push(b',');
        }
        out.push(b'0' + (i % 10) as u8);
    }
    out.extend_from_slice(b"]}}}\n");
    out
}

/// A `tools/list` answer with `n` tools, each taking one string.
pub fn many_tools(id: &serde_json::Value, n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n * 128 + 256);
    let _ = write!(out, r#"{{"jsonrpc":"2.0","id":{id},"result":{{"tools":["#);
    for i in 0..n {
        if i > 0 {
            out.push(b',');
        }
        let name = if i == 0 {
            "echo".to_string()
        } else {
            format!("tool_{i}")
        };
        let _ = write!(
            out,
            r#"{{"name":"{name}","description":"Tool {i} of {n}","inputSchema":{{"type":"object","properties":{{"text":{{"type":"string"}}}}}}}}"#
        );
    }
    out.extend_from_slice(b"]}}\n");
    out
}
