//! # ptc-cli — what the `ptc` command adds to the library
//!
//! - [`config`] — operator configuration (`ptc.toml`): packs, modes, limits, policy rules,
//!   MCP servers, the sandbox, telemetry, and workspace trust;
//! - [`store`] — the run store: session events in a JSON-lines file, SQLite or PostgreSQL, and
//!   reading them back for `ptc replay`;
//! - [`terminal`] — approvals and questions answered on the controlling terminal.
//!
//! The binary (`src/bin/ptc`) parses flags with clap and assembles a registry from these,
//! [`ptc_packs`] and [`ptc_mcp`].
#![warn(missing_docs)]
#![deny(unsafe_code)]

pub mod config;
pub mod store;
pub mod terminal;
