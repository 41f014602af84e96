//! `ptc-cli`'s integration tests, one binary with a module per area: the `ptc` command, the
//! corpus of model-written programs, `ptc.toml`, MCP both ways and
//! background work. Two suites are binaries of their own: `tests/observe` installs a
//! process-wide `tracing` subscriber, and `tests/hostile` measures its children's peak memory,
//! which the kernel counts from the parent's at spawn.

mod mcp_support;

mod builtin_background;
mod cli;
mod code_programs;
mod config;
mod discovery;
mod durable;
mod durable_approval;
mod durable_takeover;
mod durable_tasks;
mod left_behind;
mod mcp_approve;
mod mcp_catalog;
mod mcp_client;
mod mcp_eras;
mod mcp_live;
mod mcp_serve_guards;
mod mcp_server;
mod mcp_startup;
mod run_store;
mod typecheck;
