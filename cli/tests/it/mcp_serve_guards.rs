//! `ptc serve`'s guards and caps, functionally (the hostile suite, `hostile/serve.rs`,
//! floods them): the browser `Origin` check, the bearer token, the refusal to serve a
//! non-loopback address unauthenticated, the session cap (503 with a JSON-RPC error) and
//! the run cap (wait, then "busy"). Clients are the official TypeScript SDK
//! (`tests/mcp/client.mjs`) and raw HTTP where a test needs exact headers.

use crate::mcp_support;

use std::path::Path;
use std::process::{Command, Stdio};

use mcp_support::serve::{self as serve_support, HttpServer};
use mcp_support::{fixture_flag, node_module, ptc_bin, run_client};
use ptc::session::{read_jsonl, SessionEvent};
use serde_json::{json, Value};

/// Run the client against `ptc serve --root DIR ARGS` over stdio; the results of `steps`.
fn serve(dir: &Path, args: &[&str], steps: Value) -> Vec<Value> {
    let root = mcp_support::serve::workspace(dir);
    let mut command = vec!["serve", "--root", root.to_str().unwrap()];
    command.extend_from_slice(args);
    let env = json!({ "PATH": std::env::var("PATH").unwrap_or_default() });
    let stdio = json!({ "command": ptc_bin(), "args": command, "env": env });
    run_client(&json!({ "stdio": stdio, "steps": steps }))
}

/// A `run_code` call step.
fn run_code(code: &str) -> Value {
    json!({ "call": "run_code", "args": { "code": code, "description": "a test program" } })
}

/// Assert that a call step succeeded with `text`.
fn assert_ok(result: &Value, text: &str) {
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(result["text"], text, "{result}");
}

/// A `ptc.toml` in `dir` with `body`; its path.
fn config(dir: &Path, body: &str) -> String {
    let path = dir.join("serve.toml");
    std::fs::write(&path, body).unwrap();
    path.to_str().unwrap().to_string()
}

/// `ptc ARGS` with no input: exit code and stderr.
fn ptc_fails(args: &[&str]) -> (Option<i32>, String) {
    let output = Command::new(ptc_bin())
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("ptc runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn serve_http_rejects_cross_origin_browser_requests_and_admits_localhost() {
    let dir = tempfile::tempdir().unwrap();
    let server = HttpServer::start(dir.path(), &["--tools", "testkit"], &[]);
    let init = serve_support::initialize(1);
    for evil in ["http://evil.example", "https://attacker.test:8808", "null"] {
        let reply = serve_support::http(server.authority(), "POST", &[("Origin", evil)], &init);
        assert_eq!(reply.status, 403, "Origin {evil}: {reply:?}");
    }
    for local in ["http://localhost:3000", "http://127.0.0.1:5173"] {
        let reply = serve_support::http(server.authority(), "POST", &[("Origin", local)], &init);
        assert_eq!(reply.status, 200, "Origin {local}: {reply:?}");
    }
    // No Origin at all: not a browser page, admitted (the Host check still applies).
    let reply = serve_support::http(server.authority(), "POST", &[], &init);
    assert_eq!(reply.status, 200, "{reply:?}");
}

#[test]
fn serve_http_token_missing_or_wrong_is_401_and_runs_nothing_right_token_serves() {
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, "s3cret-0123456789\n").unwrap();
    let log = dir.path().join("session.jsonl");
    let server = HttpServer::start(
        dir.path(),
        &[
            "--tools",
            "testkit",
            "--mode",
            "native",
            "--log",
            log.to_str().unwrap(),
            "--http-token-file",
            token.to_str().unwrap(),
        ],
        &[],
    );
    let call = json!({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": { "name": "echo", "arguments": { "text": "sneaky" } },
    })
    .to_string();
    for auth in [
        None,
        Some("Bearer wrong"),
        Some("Bearer s3cret-012345678"),
        Some("Basic s3cret-0123456789"),
    ] {
        let headers: Vec<(&str, &str)> = auth.map(|a| ("Authorization", a)).into_iter().collect();
        for body in [serve_support::initialize(1), call.clone()] {
            let reply = serve_support::http(server.authority(), "POST", &headers, &body);
            assert_eq!(reply.status, 401, "{auth:?}: {reply:?}");
            assert_eq!(
                reply.header("www-authenticate"),
                Some("Bearer"),
                "{reply:?}"
            );
        }
    }
    let results = run_client(&json!({
        "http": server.url,
        "headers": { "Authorization": "Bearer s3cret-0123456789" },
        "steps": [{ "call": "echo", "args": { "text": "welcome" } }],
    }));
    assert_ok(&results[0], "welcome");
    // Only the authorised call ran.
    let events = read_jsonl(&log).unwrap();
    let calls: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            SessionEvent::ToolCall { arguments, .. } => Some(arguments["text"].clone()),
            _ => None,
        })
        .collect();
    assert_eq!(calls, [json!("welcome")], "{events:#?}");
}

#[test]
fn serve_http_healthz_answers_without_the_token_and_names_only_the_instance() {
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, "s3cret-0123456789\n").unwrap();
    let args = ["--tools", "testkit", "--http-token-file"];
    let server = HttpServer::start(
        dir.path(),
        &[&args[..], &[token.to_str().unwrap()]].concat(),
        &[],
    );
    let health = serve_support::http_at(server.authority(), "GET", "/healthz", &[], "");
    assert_eq!(health.status, 200, "{health:?}");
    assert_eq!(health.header("content-type"), Some("application/json"));
    let body: Value = serde_json::from_str(&health.body).unwrap();
    // The instance (by default the bound address), and nothing else.
    assert_eq!(
        body,
        json!({ "status": "ok", "instance": server.authority() }),
        "{health:?}"
    );
    let post = serve_support::http_at(server.authority(), "POST", "/healthz", &[], "{}");
    assert_eq!(post.status, 405, "{post:?}");
    // The token still guards MCP itself.
    let mcp = serve_support::http(
        server.authority(),
        "POST",
        &[],
        &serve_support::initialize(1),
    );
    assert_eq!(mcp.status, 401, "{mcp:?}");
    // With `--instance`, its id.
    let named = HttpServer::start(dir.path(), &["--tools", "testkit", "--instance", "i7"], &[]);
    let health = serve_support::http_at(named.authority(), "GET", "/healthz", &[], "");
    let body: Value = serde_json::from_str(&health.body).unwrap();
    assert_eq!(
        body,
        json!({ "status": "ok", "instance": "i7" }),
        "{health:?}"
    );
}

#[test]
fn serve_http_on_a_non_loopback_address_needs_a_token_or_the_explicit_flag() {
    let (code, stderr) = ptc_fails(&["serve", "--tools", "testkit", "--http", "0.0.0.0:0"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("--http-unauthenticated"), "{stderr}");
    assert!(stderr.contains("--http-token-file"), "{stderr}");
    // With the flag it serves, and says loudly that it is unauthenticated.
    let dir = tempfile::tempdir().unwrap();
    let server = HttpServer::start(
        dir.path(),
        &[
            "--tools",
            "testkit",
            "--http",
            "0.0.0.0:0",
            "--http-unauthenticated",
        ],
        &[],
    );
    let warning = server.before.join("\n");
    assert!(warning.contains("WITHOUT AUTHENTICATION"), "{warning}");
    assert!(server.url.starts_with("http://0.0.0.0:"), "{}", server.url);
}

#[test]
fn serve_http_sessions_beyond_the_cap_get_503_with_a_json_rpc_error_until_one_ends() {
    let dir = tempfile::tempdir().unwrap();
    let server = HttpServer::start(
        dir.path(),
        &["--tools", "testkit", "--max-sessions", "2"],
        &[],
    );
    let mut sessions = Vec::new();
    for id in 1..=2 {
        let reply = serve_support::http(
            server.authority(),
            "POST",
            &[],
            &serve_support::initialize(id),
        );
        assert_eq!(reply.status, 200, "{reply:?}");
        sessions.push(reply.header("mcp-session-id").unwrap().to_string());
    }
    let refused = serve_support::http(
        server.authority(),
        "POST",
        &[],
        &serve_support::initialize(3),
    );
    assert_eq!(refused.status, 503, "{refused:?}");
    let error: Value = serde_json::from_str(&refused.body).unwrap();
    assert_eq!(error["jsonrpc"], "2.0", "{error}");
    assert_eq!(error["error"]["code"], -32000, "{error}");
    let message = error["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("2 MCP sessions are open (max_sessions)"),
        "{message}"
    );
    // Ending a session frees its slot.
    let ended = serve_support::http(
        server.authority(),
        "DELETE",
        &[
            ("Mcp-Session-Id", &sessions[0]),
            ("MCP-Protocol-Version", "2025-06-18"),
        ],
        "",
    );
    assert!(ended.status < 300, "{ended:?}");
    let reply = serve_support::http(
        server.authority(),
        "POST",
        &[],
        &serve_support::initialize(4),
    );
    assert_eq!(reply.status, 200, "{reply:?}");
}

#[test]
fn serve_runs_beyond_the_cap_wait_and_beyond_the_queue_are_refused_busy() {
    let dir = tempfile::tempdir().unwrap();
    let fx = fixture_flag("fx");
    node_module("@modelcontextprotocol/sdk/package.json");
    // One run at a time, none waiting: of two overlapping calls one is refused.
    let busy = config(
        dir.path(),
        "[serve]\nmax_concurrent_runs = 1\nmax_queued_runs = 0\n",
    );
    // Two calls that never finish on their own (the client gives up on both after 3 s):
    // whichever is admitted first holds the only slot, the other is refused at once.
    let held = |key: &str| {
        let mut call = run_code(&format!(
            "return await tools.fx__rendezvous({{key: \"{key}\", role: \"wait\"}})"
        ));
        call["abortAfterMs"] = json!(3000);
        call
    };
    let results = serve(
        dir.path(),
        &[
            "--tools", "testkit", "--mode", "code", "--config", &busy, "--mcp", &fx,
        ],
        json!([{ "parallel": [held("a"), held("b")] }]),
    );
    let outcomes: Vec<String> = results[0]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.to_string())
        .collect();
    let refused = outcomes
        .iter()
        .filter(|t| t.contains("ptc is busy: 1 runs are running and 0 more are waiting"))
        .count();
    let aborted = outcomes.iter().filter(|t| t.contains("AbortError")).count();
    assert_eq!((refused, aborted), (1, 1), "{outcomes:?}");
    // One at a time with a queue: both overlapping calls complete, one after the other.
    let queued = config(dir.path(), "[serve]\nmax_concurrent_runs = 1\n");
    let results = serve(
        dir.path(),
        &["--tools", "testkit", "--mode", "code", "--config", &queued],
        json!([{ "parallel": [
            run_code("await tools.sleep({ms: 200}); return 'first'"),
            run_code("await tools.sleep({ms: 200}); return 'second'"),
        ] }]),
    );
    let texts: Vec<&str> = results[0]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["text"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(texts, ["first", "second"], "{results:?}");
}
