//! MCP that keeps up: what an upstream MCP server says on its own reaches ptc's client.
//! Progress of a forwarded call is relayed as progress of the call the client waits for
//! (native, or the `run_code` program whose sub-call it is); a changed upstream tool list
//! updates the registry, the next run's SDK, and `ptc serve` tells its clients
//! `notifications/tools/list_changed`. A real server (`tests/mcp/live-server.mjs`) and the
//! official client (`tests/mcp/client.mjs`), both on the official TypeScript SDK.
//!
//! Nothing waits a fixed time: the client waits for the notification itself.

use crate::mcp_support;

use std::path::Path;

use mcp_support::serve::{HttpServer, StdioPeer};
use mcp_support::{node_module, ptc_bin, root, run_client};
use ptc::ToolRegistry;
use ptc_mcp::{register_server, McpServerSpec};
use serde_json::{json, Value};

/// `--mcp` value for the live fixture, named `live`.
fn live_flag() -> String {
    node_module("@modelcontextprotocol/sdk/package.json");
    format!(
        "live=node {}",
        root().join("tests/mcp/live-server.mjs").display()
    )
}

/// The stdio part of a client plan: `ptc serve --root DIR ARGS --mcp live=…`.
fn stdio(dir: &Path, args: &[&str]) -> Value {
    let mut command = vec![
        "serve".to_string(),
        "--root".into(),
        dir.to_str().unwrap().into(),
    ];
    command.extend(args.iter().map(|a| a.to_string()));
    command.extend(["--mcp".to_string(), live_flag()]);
    let path = std::env::var("PATH").unwrap_or_default();
    json!({ "command": ptc_bin(), "args": command, "env": { "PATH": path } })
}

fn serve(dir: &Path, args: &[&str], steps: Value) -> Vec<Value> {
    run_client(&json!({ "stdio": stdio(dir, args), "steps": steps }))
}

fn run_code(code: &str) -> Value {
    json!({ "call": "run_code", "args": { "code": code, "description": "a test program" } })
}

#[test]
fn a_native_call_relays_upstream_progress_to_a_client_that_asked_for_it() {
    let dir = tempfile::tempdir().unwrap();
    let steps = json!([
        {
            "call": "live__steps", "args": { "count": 3, "hold": true }, "progress": true,
            "releaseAt": 3, "release": { "call": "live__release" },
        },
        { "call": "live__steps", "args": { "count": 3 } },
    ]);
    let out = serve(dir.path(), &["--mode", "native"], steps);
    // The route key ptc uses internally does not leak upstream; the call's idempotency key
    // goes with it.
    assert_eq!(
        out[0]["text"], "progressToken,ptc/idempotencyKey",
        "{}",
        out[0]
    );
    assert_eq!(
        out[0]["progress"],
        json!([
            { "progress": 1, "total": 3, "message": "step 1" },
            { "progress": 2, "total": 3, "message": "step 2" },
            { "progress": 3, "total": 3, "message": "step 3" },
        ]),
        "{}",
        out[0]
    );
    // A client that did not ask gets none (rmcp sends a token upstream regardless).
    assert_eq!(out[1]["isError"], false, "{}", out[1]);
}

#[test]
fn every_upstream_report_is_on_the_wire_before_the_result() {
    // Raw stdio: ptc's own order, without a client's reading in between.
    let dir = tempfile::tempdir().unwrap();
    let flag = live_flag();
    // Started before serving (no cached list): a warm start's `tools/list_changed` would
    // come between the reports.
    let mut peer = StdioPeer::start(
        dir.path(),
        &["--mode", "native", "--no-mcp-cache", "--mcp", &flag],
    );
    let request = json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {
            "name": "live__steps", "arguments": { "count": 5 },
            "_meta": { "progressToken": "tok" },
        },
    });
    peer.send_line(request.to_string().as_bytes());
    let mut reports = Vec::new();
    let result = loop {
        let message = peer.reply();
        if message["id"] == 7 {
            break message;
        }
        assert_eq!(message["method"], "notifications/progress", "{message}");
        assert_eq!(message["params"]["progressToken"], "tok", "{message}");
        reports.push(message["params"]["progress"].as_f64().unwrap());
    };
    assert_eq!(result["result"]["isError"], false, "{result}");
    assert_eq!(reports, [1.0, 2.0, 3.0, 4.0, 5.0]);
}

#[test]
fn run_code_relays_the_progress_of_its_sub_calls_counted_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let mut step = run_code(
        "await tools.live__steps({ count: 2 }); \
         return await tools.live__steps({ count: 1, hold: true });",
    );
    step["progress"] = json!(true);
    step["releaseAt"] = json!(3);
    step["release"] = run_code("return await tools.live__release({})");
    let out = serve(dir.path(), &["--mode", "code"], json!([step]));
    assert_eq!(out[0]["isError"], false, "{}", out[0]);
    assert_eq!(
        out[0]["progress"],
        json!([
            { "progress": 1, "message": "live__steps: 1/2 step 1" },
            { "progress": 2, "message": "live__steps: 2/2 step 2" },
            { "progress": 3, "message": "live__steps: 1/1 step 1" },
        ]),
        "{}",
        out[0]
    );
}

#[test]
fn an_upstream_tool_list_change_updates_the_registry_and_ptc_tells_its_client() {
    let dir = tempfile::tempdir().unwrap();
    let steps = json!([
        { "list": true },
        { "call": "live__reshape", "args": { "add": "fresh", "remove": "old" } },
        { "awaitTools": { "has": ["live__fresh", "run_code"], "lacks": ["live__old"] } },
        { "call": "live__fresh" },
        { "call": "live__old" },
        run_code("return await tools.live__fresh({})"),
    ]);
    let out = serve(dir.path(), &["--mode", "both"], steps);
    let before: Vec<&str> = out[0]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(before.contains(&"live__old") && !before.contains(&"live__fresh"));
    assert!(out[2]["notified"].as_u64().unwrap_or(0) >= 1, "{}", out[2]);
    assert_eq!(out[3]["text"], "fresh ran", "{}", out[3]);
    assert_eq!(out[4]["isError"], true, "{}", out[4]);
    assert!(
        out[4]["text"].as_str().unwrap().contains("live__old"),
        "{}",
        out[4]
    );
    assert_eq!(out[5]["text"], "fresh ran", "{}", out[5]);
}

#[test]
fn in_code_mode_the_next_runs_sdk_shows_an_upstream_change() {
    let dir = tempfile::tempdir().unwrap();
    let steps = json!([
        run_code("return await tools.live__reshape({ add: \"fresh\" })"),
        { "awaitTools": { "has": ["run_code"], "mentions": "live__fresh" } },
        run_code("return await tools.live__fresh({})"),
    ]);
    let out = serve(dir.path(), &["--mode", "code"], steps);
    assert_eq!(out[0]["text"], "reshaped", "{}", out[0]);
    assert!(out[1]["notified"].as_u64().unwrap_or(0) >= 1, "{}", out[1]);
    assert_eq!(out[2]["text"], "fresh ran", "{}", out[2]);
}

#[test]
fn over_http_progress_and_list_changes_reach_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let flag = live_flag();
    let server = HttpServer::start(dir.path(), &["--mode", "both", "--mcp", &flag], &[]);
    let steps = json!([
        {
            "call": "live__steps", "args": { "count": 2, "hold": true }, "progress": true,
            "releaseAt": 2, "release": { "call": "live__release" },
        },
        { "call": "live__reshape", "args": { "add": "fresh" } },
        { "awaitTools": { "has": ["live__fresh"] } },
    ]);
    let out = run_client(&json!({ "http": server.url, "steps": steps }));
    assert_eq!(
        out[0]["progress"].as_array().map(Vec::len),
        Some(2),
        "{}",
        out[0]
    );
    assert!(out[2]["notified"].as_u64().unwrap_or(0) >= 1, "{}", out[2]);
}

#[tokio::test]
async fn a_pack_follows_its_servers_tool_list() {
    let spec = McpServerSpec::new(
        "live",
        "node",
        &[root().join("tests/mcp/live-server.mjs").to_str().unwrap()],
    );
    let registry = ToolRegistry::new();
    let (changed, mut changes) = tokio::sync::mpsc::unbounded_channel();
    let pack = register_server(&registry, spec).await.unwrap();
    let _listening = registry.on_change(move || {
        let _ = changed.send(());
    });
    assert!(pack.current_tools().contains(&"live__old".to_string()));
    let batch = registry
        .execute(ptc::ToolBatchInput::new(vec![ptc::ToolCallBlock::new(
            "c1",
            "live__reshape",
            r#"{"add":"fresh","remove":"old"}"#,
        )]))
        .await
        .unwrap();
    assert!(!batch.results[0].result.is_error());
    while registry.view(None, None).get("live__fresh").is_none()
        || registry.view(None, None).get("live__old").is_some()
    {
        changes.recv().await.expect("the registry changes");
    }
    let mut now = pack.current_tools();
    now.sort();
    assert_eq!(
        now,
        [
            "live__fresh",
            "live__release",
            "live__reshape",
            "live__steps"
        ]
    );
    pack.client.shutdown().await;
}
