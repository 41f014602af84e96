//! Fuzz target: see `surfaces::paths`.
#![no_main]

#[path = "../surfaces.rs"]
mod surfaces;

libfuzzer_sys::fuzz_target!(|data: &[u8]| surfaces::paths(data));
