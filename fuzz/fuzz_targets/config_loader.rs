//! Fuzz target: see `surfaces::config_loader`.
#![no_main]

#[path = "../surfaces.rs"]
mod surfaces;

libfuzzer_sys::fuzz_target!(|data: &[u8]| surfaces::config_loader(data));
