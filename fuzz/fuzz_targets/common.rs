//! What every target does with an input: compile it as a file of one format (the way `mcpr
//! check` does, with an import of a second in-memory file), render the diagnostics in every
//! format, and, for `.mcpr`, format the text. Any panic, hang or runaway allocation is a
//! finding; diagnostics are expected.

use mcpr_compiler::SourceMap;
use mcpr_compiler::diagnostics::render;
use mcpr_compiler::lower::{self, MemoryLoader, Options};
use mcpr_compiler::source::SourceFile;

/// The size limit of the fuzzed files: small, so the YAML value budget is reached too.
const LIMIT: usize = 64 * 1024;

pub fn check(path: &str, data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut loader = MemoryLoader::new();
    // An import target, so `Import flows from "./flows.mcpr"` lines reach the import code.
    loader.insert("flows.mcpr", "Flow: \"Ping\"\n  Send \"ping\"\n");
    let mut map = SourceMap::new();
    let entry = map.add(SourceFile::new(path, text));
    let options = Options {
        max_file_bytes: Some(LIMIT),
        ..Options::default()
    };
    let compiled = lower::compile(&mut map, entry, &loader, &options);
    let diags = &compiled.diagnostics;
    let _ = render::human(diags, &map, false);
    let _ = render::json(diags, &map, 1);
    let _ = render::short(diags, &map);
    let _ = render::github(diags, &map);
    if path.ends_with(".mcpr") {
        let _ = mcpr_compiler::fmt::format_source(path, text);
    }
    if let Some(suite) = &compiled.suite {
        let _ = mcpr_compiler::fmt::to_json(suite);
        let _ = mcpr_compiler::fmt::to_mcpr_checked(suite);
    }
}
