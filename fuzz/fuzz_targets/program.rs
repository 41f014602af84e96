//! Fuzz target: see `surfaces::program`.
#![no_main]

#[path = "../surfaces.rs"]
mod surfaces;

libfuzzer_sys::fuzz_target!(|data: &[u8]| surfaces::program(data));
