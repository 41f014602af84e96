//! `ptc-schema`'s integration tests: the author DSL and the raw JSON Schema subset.

mod common;

mod dsl;
mod raw_subset;
mod wild;
