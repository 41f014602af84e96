//! MCP both ways, on the official Rust SDK (`rmcp`).
//!
//! - **Client** ([`McpClient`], [`register_server`]): an MCP server started over stdio
//!   becomes a tool pack. Each of its tools registers as an ordinary registry tool named
//!   `<server>__<tool>` (so two servers cannot collide, and the name stays a valid tool
//!   name for every model API), with its raw JSON Schemas. Calls go through the full
//!   pipeline like any other tool; cancelling one sends `notifications/cancelled`
//!   upstream; a server that exits is restarted on next use. Its progress reports reach
//!   the caller's [`ProgressSink`](ptc::ProgressSink), and when it says its
//!   tool list changed, ptc lists it again and updates the registry. Many servers start
//!   together ([`start_servers`]): in parallel, in declaration order, warm from the tools
//!   cache ([`ToolsCache`]) where they can, one failure leaving the others working unless
//!   strict.
//! - **Server** ([`PtcServer`], [`serve_stdio`], [`serve_http`]): ptc's own registry
//!   offered to any MCP client, presented by the registry's mode: in `code` the single
//!   tool `run_code`, whose description carries the generated SDK.

mod approve;
mod ask;
mod cache;
mod client;
mod elicit;
mod http;
mod instance;
mod limits;
mod notify;
mod pack;
mod process;
mod routed;
mod server;
mod servers;
mod spec;
mod startup;
mod stateless;
mod stdio;
mod task_questions;
pub mod tasks;
mod upstream;

pub use cache::{ToolsCache, MAX_CACHE_BYTES};
pub use client::{McpClient, IDEMPOTENCY_KEY};
pub use http::{
    check_exposure, serve_http, BearerToken, HttpBinding, HttpOptions, PATH as HTTP_PATH,
    UNAUTHENTICATED_FLAG,
};
pub use instance::{check_instance, DEFAULT_INSTANCE, INSTANCE_META};
pub use limits::ServeLimits;
pub use pack::{register_server, register_server_until, McpPack, SEPARATOR};
pub use server::{mcp_tool, PtcServer, RUN_GRACE};
pub use servers::{start_servers, start_warm, Servers, StartOptions, DEFAULT_PARALLEL};
pub use spec::McpServerSpec;
pub use stdio::{serve_lines, serve_stdio, INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR};
pub use tasks::{Asked, TaskState, TaskStore};

/// An MCP server could not be declared, started or listed.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    /// A `--mcp` value or `[[mcp]]` entry is malformed.
    #[error("invalid MCP server declaration `{spec}`: {reason}")]
    InvalidSpec {
        /// What was given.
        spec: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The server process could not be started or did not complete the handshake.
    #[error("MCP server `{server}` could not be started ({command}): {reason}")]
    Start {
        /// The server's name.
        server: String,
        /// The command line that was run.
        command: String,
        /// Why it failed.
        reason: String,
    },
    /// The server did not finish starting (spawn, `initialize`, first `tools/list`) within
    /// its startup timeout; its process was killed and reaped.
    #[error("MCP server `{server}` did not start within {timeout_ms} ms: it hung in `{phase}`; its process was stopped (raise `startup_timeout_ms` if it is only slow)")]
    StartupTimeout {
        /// The server's name.
        server: String,
        /// The phase it hung in: `initialize` or `tools/list`.
        phase: String,
        /// The startup timeout that expired.
        timeout_ms: u64,
    },
    /// Starting the server was abandoned because ptc is shutting down; its process was
    /// killed and reaped.
    #[error("MCP server `{server}`: start abandoned, ptc is shutting down")]
    Cancelled {
        /// The server's name.
        server: String,
    },
    /// The server started but listing its tools failed.
    #[error("MCP server `{server}`: listing its tools failed: {reason}")]
    List {
        /// The server's name.
        server: String,
        /// Why it failed.
        reason: String,
    },
    /// A tool of the server could not be registered.
    #[error("MCP server `{server}`: {source}")]
    Register {
        /// The server's name.
        server: String,
        /// The registry's refusal.
        source: ptc::RegistryError,
    },
    /// The HTTP listener could not be bound or served.
    #[error("MCP HTTP server on {addr}: {reason}")]
    Http {
        /// The address.
        addr: String,
        /// Why it failed.
        reason: String,
    },
    /// The stdio transport failed.
    #[error("MCP stdio server: {0}")]
    Stdio(String),
}
