//! Fuzz target: the input as `suite.mcpr` (see common.rs).
#![no_main]

mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| common::check("suite.mcpr", data));
