//! Fuzz target: the input as `suite.yaml` (see common.rs).
#![no_main]

mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| common::check("suite.yaml", data));
