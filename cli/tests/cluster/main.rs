//! `ptc serve --http` as a cluster: three instances behind HAProxy, started by
//! `deploy/local-cluster.sh` with this build's `ptc`, driven through HAProxy by the official
//! Python MCP client (`mcp` 2.3, which speaks 2026-07-28 in its default `mode="auto"`).
//!
//! - `routing`: each HAProxy rule — round-robin for stateless calls (300 calls, every
//!   instance serves some), a handle in `Mcp-Param-Ptc-Route` to its instance (a task
//!   started in one `run_code` read in a later one), an input-required retry to the instance
//!   holding the run (`requestState`), a legacy session to its instance;
//! - `failover`: `kill -9` of an instance: stateless calls keep succeeding, its handles say
//!   where they lived, a call in flight on it fails once;
//! - `store`: all instances' runs in one PostgreSQL store, read back by `ptc replay`;
//! - `script`: `local-cluster.sh` stops all it started (SIGTERM, a part dying) and names bad
//!   arguments.
//!
//! Skipped with a message when `haproxy` or the client's Python (`PTC_MCP_PYTHON`) is absent
//! (a failure under CI, where `.ci/run` installs both); the store test also when the
//! PostgreSQL server binaries are absent.

mod durable;
mod failover;
mod routing;
mod script;
mod store;
mod support;
