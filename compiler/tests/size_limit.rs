//! One size limit for every file a compilation reads (docs/language.md, "The size limit"):
//! the main file in each format and each import, high enough that what mcpr writes for a
//! large suite it reads back.

use mcpr_compiler::SourceMap;
use mcpr_compiler::fmt;
use mcpr_compiler::lower::{self, DEFAULT_MAX_FILE_BYTES, MemoryLoader, Options};
use mcpr_compiler::source::SourceFile;

fn compile(path: &str, text: String, options: &Options) -> lower::Compiled {
    let mut map = SourceMap::new();
    let id = map.add(SourceFile::new(path, text));
    lower::compile(&mut map, id, &MemoryLoader::new(), options)
}

fn codes(c: &lower::Compiled) -> Vec<&'static str> {
    c.diagnostics.iter().map(|d| d.code.as_str()).collect()
}

/// A suite of `tests` tests of a few statements each, with a long text in each.
fn large_suite(tests: usize) -> String {
    let mut text = String::from("Server: node server.js\n");
    let long = "lorem ipsum ".repeat(40);
    for i in 0..tests {
        text.push_str(&format!(
            "\nTest: \"Echo {i}\"\n  Call tool \"echo\" with:\n    text: \"{long}{i}\"\n  Expect it succeeds\n  Expect \"content[0].text\" equals \"{long}{i}\"\n"
        ));
    }
    text
}

#[test]
fn what_compile_and_convert_write_for_a_large_suite_reads_back() {
    let source = large_suite(1_200);
    let compiled = compile("big.mcpr", source, &Options::default());
    assert!(
        codes(&compiled).is_empty(),
        "{:?}",
        compiled.diagnostics.first()
    );
    let suite = compiled.suite.unwrap();

    let ir = serde_json::to_string_pretty(&suite).unwrap();
    let yaml = fmt::to_yaml(&suite);
    // Both are over the 1 MiB the first implementation refused.
    assert!(ir.len() > 1 << 20, "IR JSON of {} bytes", ir.len());
    assert!(yaml.len() > 1 << 20, "YAML of {} bytes", yaml.len());
    for (path, text) in [("big.json", ir), ("big.yaml", yaml)] {
        let back = compile(path, text, &Options::default());
        assert!(
            codes(&back).is_empty(),
            "{path}: {:?}",
            back.diagnostics.first()
        );
        assert_eq!(back.suite.unwrap().tests.len(), 1_200, "{path}");
    }
}

#[test]
fn every_format_of_main_file_keeps_the_same_limit() {
    let options = Options {
        max_file_bytes: Some(200),
        ..Options::default()
    };
    let padding = "# padding to cross the limit\n".repeat(10);
    let cases = [
        (
            "a.mcpr",
            format!("Server: node s.js\n\nTest: \"P\"\n  Send \"ping\"\n{padding}"),
        ),
        (
            "a.yaml",
            format!(
                "version: 1\ntarget: {{transport: stdio, command: node}}\ntests: []\n{padding}"
            ),
        ),
        (
            "a.json",
            format!(
                "{{\"version\": 1, \"tests\": [], \"pad\": \"{}\"}}",
                "x".repeat(300)
            ),
        ),
        ("a.mcp", format!("connect node s.js\n{padding}")),
    ];
    for (path, text) in cases {
        let len = text.len();
        let compiled = compile(path, text, &options);
        assert_eq!(codes(&compiled), ["MCPLANG607"], "{path}");
        let d = &compiled.diagnostics[0];
        assert!(
            d.span.start <= 200 && d.span.end <= 200,
            "{path}: {:?}",
            d.span
        );
        assert!(
            d.message.contains(&format!("has {len} bytes")),
            "{}",
            d.message
        );
        assert!(d.message.contains("at most 200 bytes"), "{}", d.message);
    }
}

#[test]
fn the_limit_is_sixteen_mebibytes_unless_set() {
    assert_eq!(DEFAULT_MAX_FILE_BYTES, 16 << 20);
    assert_eq!(Options::default().file_limit(), 16 << 20);
    // A file exactly at the limit is read.
    let text = "Server: node s.js\n\nTest: \"P\"\n  Send \"ping\"\n".to_string();
    let options = Options {
        max_file_bytes: Some(text.len()),
        ..Options::default()
    };
    assert!(codes(&compile("a.mcpr", text, &options)).is_empty());
}

/// A long test's step list is made at its size before its body is lowered: a list grown by
/// doubling holds up to twice its steps, and its last doubling holds two lists at once (a
/// test of 750,000 `Send "ping"` lines peaked there, a third higher).
#[test]
fn a_long_test_holds_its_steps_without_room_to_spare() {
    let mut text = String::from("Server: node server.js\n\nTest: \"long\"\n");
    for i in 0..3000 {
        text.push_str("  Send \"ping\"\n");
        if i % 3 == 0 {
            text.push_str("  Expect it succeeds\n");
        }
    }
    text.push_str("  Cleanup:\n    Send \"ping\"\n");
    let compiled = compile("long.mcpr", text, &Options::default());
    assert!(codes(&compiled).is_empty(), "{:?}", codes(&compiled));
    let steps = &compiled.suite.expect("a suite").tests[0].steps;
    assert_eq!(steps.len(), 3001);
    assert_eq!(steps.capacity(), steps.len());
}
