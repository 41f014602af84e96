//! Shared fixtures for the MCP tests: the real third-party server from npm
//! (`@modelcontextprotocol/server-everything`), the fixture server and the client
//! script in `tests/mcp/` (both on the official TypeScript SDK), all installed by
//! `npm ci` (see `.ci/run`).
#![allow(dead_code)]

pub mod serve;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ptc_mcp::McpServerSpec;
use serde_json::Value;

/// The CLI crate (where the MCP fixtures live, under `tests/mcp`).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `node_modules/<rel>`, failing loudly when `npm ci` has not been run.
pub fn node_module(rel: &str) -> PathBuf {
    let path = ptc_testing::repo().join("node_modules").join(rel);
    assert!(
        path.exists(),
        "{} is missing: run `npm ci` in the repository root",
        path.display()
    );
    path
}

/// The real `server-everything` from npm, over stdio, named `name`.
pub fn everything(name: &str) -> McpServerSpec {
    let script = node_module("@modelcontextprotocol/server-everything/dist/index.js");
    McpServerSpec::new(name, "node", &[script.to_str().unwrap(), "stdio"])
}

/// The fixture server, named `name`, logging to `log` the calls it starts and the cancellations
/// it receives.
pub fn fixture(name: &str, log: &Path) -> McpServerSpec {
    node_module("@modelcontextprotocol/sdk/package.json");
    let script = root().join("tests/mcp/fixture-server.mjs");
    let mut spec = McpServerSpec::new(name, "node", &[script.to_str().unwrap()]);
    spec.env
        .insert("FIXTURE_LOG".into(), log.to_str().unwrap().into());
    spec
}

/// `--mcp` form of [`fixture`]: `NAME=node tests/mcp/fixture-server.mjs`.
pub fn fixture_flag(name: &str) -> String {
    format!(
        "{name}=node {}",
        root().join("tests/mcp/fixture-server.mjs").display()
    )
}

/// Lines of the fixture's log (empty when none yet).
pub fn log_lines(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Wait until the fixture has logged a cancellation of `tool` (the server handles the
/// notification asynchronously); panics with what it saw after 10 s.
pub fn await_cancellation(log: &Path, tool: &str) -> String {
    await_log(log, &format!("cancelled {tool} "))
}

/// Wait until the fixture has logged that a call of `tool` started (readiness).
pub fn await_start(log: &Path, tool: &str) -> String {
    await_log(log, &format!("started {tool} "))
}

/// Wait until the fixture's log has a line starting with `prefix`; panics with what it saw
/// after 10 s.
fn await_log(log: &Path, prefix: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let lines = log_lines(log);
        if let Some(line) = lines.iter().find(|l| l.starts_with(prefix)) {
            return line.clone();
        }
        assert!(
            Instant::now() < deadline,
            "the server logged no `{prefix}…`; its log: {lines:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The `ptc` binary under test.
pub fn ptc_bin() -> &'static str {
    env!("CARGO_BIN_EXE_ptc")
}

/// Run `tests/mcp/client.mjs` (the official TypeScript SDK client) with `plan`; the
/// parsed array of step results.
pub fn run_client(plan: &Value) -> Vec<Value> {
    run_node_client("tests/mcp/client.mjs", "@modelcontextprotocol/sdk", plan)
}

/// Run the client `script` (on the npm package `package`) under node with `plan`.
fn run_node_client(script: &str, package: &str, plan: &Value) -> Vec<Value> {
    node_module(&format!("{package}/package.json"));
    let output = std::process::Command::new("node")
        .arg(root().join(script))
        .arg(plan.to_string())
        .current_dir(root())
        .output()
        .expect("node runs");
    parse_client_output(&output)
}

/// The Python with the official MCP SDK (`mcp` 2.3, `tests/mcp/python/requirements.txt`):
/// `PTC_MCP_PYTHON` (`.ci/run` makes that venv), else `None` with a message saying the
/// test is skipped.
pub fn mcp_python() -> Option<PathBuf> {
    match std::env::var_os("PTC_MCP_PYTHON") {
        Some(path) if Path::new(&path).exists() => Some(PathBuf::from(path)),
        _ => {
            eprintln!(
                "skipped: PTC_MCP_PYTHON names no Python with the MCP SDK \
                 (pip install -r cli/tests/mcp/python/requirements.txt; .ci/run makes it)"
            );
            None
        }
    }
}

/// Run `tests/mcp/modern-client.mjs` (the official TypeScript SDK's v2 client,
/// `@modelcontextprotocol/client`) with `plan` (era_client.py's plan format).
pub fn run_modern_client(plan: &Value) -> Vec<Value> {
    run_node_client(
        "tests/mcp/modern-client.mjs",
        "@modelcontextprotocol/client",
        plan,
    )
}

/// The step results a client printed as its last stdout line.
fn parse_client_output(output: &std::process::Output) -> Vec<Value> {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "client failed ({}):\nstdout: {stdout}\nstderr: {stderr}",
        output.status
    );
    let last = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(last)
        .unwrap_or_else(|e| panic!("client output is not JSON ({e}): {stdout}\nstderr: {stderr}"))
}

/// Run `tests/mcp/python/era_client.py` (the official Python SDK client) with `plan`
/// under `python`; the parsed array of step results (the negotiated version first).
pub fn run_python_client(python: &Path, plan: &Value) -> Vec<Value> {
    let output = std::process::Command::new(python)
        .arg(root().join("tests/mcp/python/era_client.py"))
        .arg(plan.to_string())
        .current_dir(root())
        .output()
        .expect("python runs");
    parse_client_output(&output)
}
