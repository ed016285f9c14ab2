//! Fuzz target: the input as `script.mcp` (see common.rs).
#![no_main]

mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| common::check("script.mcp", data));
