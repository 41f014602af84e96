//! Fuzz target: see `surfaces::mcp_stdio`.
#![no_main]

#[path = "../surfaces.rs"]
mod surfaces;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    surfaces::mcp_stdio(data);
});
