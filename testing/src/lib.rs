//! Helpers the ptc crates' integration tests share, written once:
//!
//! - [`catalog`] — the recorded MCP catalog (870 tools) as search docs, and its labelled queries;
//! - [`code`] — code-mode registries on the engine under test, runs, recording listeners;
//! - [`tools`] — tools and trackers: echo, constants, sleepers that record concurrency, gates
//!   that say when their body started (readiness, not sleeps);
//! - [`postgres`] — a throwaway PostgreSQL server (Debian's binaries) for store and cluster tests;
//! - [`tsc`] — the real TypeScript compiler over generated declarations;
//! - [`repo`] — the repository root.

pub mod catalog;
pub mod code;
pub mod postgres;
pub mod tools;
pub mod tsc;

use std::path::Path;

/// The repository root: where `node_modules`, `examples`, `fuzz` and `target` live.
pub fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the testing crate lies inside the repository")
}
