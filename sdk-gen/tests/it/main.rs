//! `ptc-sdk-gen`'s integration tests: schema-to-TypeScript mapping, the SDK text, and the real
//! TypeScript compiler over generated declarations.

mod catalog;
mod common;

mod schema_mapping;
mod sdk;
mod typescript;
mod wild;
