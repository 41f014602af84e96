//! `ptc-engine`'s integration tests, one binary with a module per area, on the backend the
//! build compiles (QuickJS by default; deno_core with `--no-default-features --features
//! deno-quickjs`).

#[macro_use]
mod common;

mod concurrency;
mod fences;
mod held;
mod intl;
mod intl_v8;
mod limits;
mod notes;
mod observed;
mod results;
mod sandbox;
mod strip;
mod tools;
mod unbracketed;
