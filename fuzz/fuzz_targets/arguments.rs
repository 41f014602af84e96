//! Fuzz target: see `surfaces::arguments`.
#![no_main]

#[path = "../surfaces.rs"]
mod surfaces;

libfuzzer_sys::fuzz_target!(|data: &[u8]| surfaces::arguments(data));
