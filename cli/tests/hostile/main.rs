//! The hostile suite: programs, files, configs and requests written to break ptc.
//!
//! Every case ends with a clear result of the right kind, within the configured limits plus a
//! small documented slack, and the process stays up: the next run in the same process works.
//! Area modules: `program` (code-mode programs and their arguments and results), `discovery`
//! (the discovery tools from a program), `tools` (builtin tools and the CLI's inputs), `paths` (deny paths and file sizes across the file tools), `log`
//! (the session log and replay), `sandbox` (bash's kernel sandbox), `protected` (the trust
//! store and active configuration from inside the sandbox), `trust` (workspace configuration
//! trust), `terminals` (sessions' terminals, `TIOCSTI`, policies typed into a terminal),
//! `operator_terminal` (the approval prompt and what a person reads), `serve` (`ptc serve` over
//! stdio and HTTP), `mcp_cache` (the MCP tools cache against a program that would write it).

// Shared with the `it` binary (the hostile suite is a binary of its own: it measures children's
// peak memory, and the kernel counts a child's from its parent's at spawn).
#[path = "../it/mcp_support/mod.rs"]
mod mcp_support;

mod cli;
mod discovery;
// The fuzz targets' surfaces drive the QuickJS engine directly.
#[cfg(feature = "quickjs")]
mod fuzz_corpus;
mod log;
mod mcp_cache;
mod operator_terminal;
mod paths;
mod program;
mod protected;
mod sandbox;
mod serve;
mod skills;
mod terminals;
mod tools;
mod trust;
