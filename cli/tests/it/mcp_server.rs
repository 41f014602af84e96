//! `ptc serve` seen by a real MCP client: the official TypeScript SDK, driven by
//! `tests/mcp/client.mjs`. Over stdio and streamable HTTP: what `tools/list` shows in
//! each mode, programs run through `run_code`, every call logged, concurrent calls,
//! cancellation from the client reaching the upstream MCP server, structured output of
//! native calls, and the exit code of bad flags.
//!
//! Nothing here asserts on time: overlap is shown by a rendezvous that only completes
//! when two calls run at once, cancellation by the fixture server's log. A regression
//! makes a run time out (bounded by `[limits] timeout_ms`) rather than hang the suite.

use crate::mcp_support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mcp_support::serve::HttpServer;
use mcp_support::{await_cancellation, fixture_flag, node_module, ptc_bin, run_client};
use ptc::session::{read_jsonl, SessionEvent};
use serde_json::{json, Value};

// ---------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------

/// The stdio part of a client plan: `ptc serve ARGS`, confined to `dir` (so no stray
/// `ptc.toml` is discovered), with `PATH` (the SDK's transport passes the parent's
/// environment only partly, and ptc needs `node` for `--mcp` servers) plus `env`.
fn stdio(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Value {
    let mut command = vec!["serve", "--root", dir.to_str().unwrap()];
    command.extend_from_slice(args);
    let mut vars = serde_json::Map::new();
    vars.insert(
        "PATH".into(),
        std::env::var("PATH").unwrap_or_default().into(),
    );
    for (key, value) in env {
        vars.insert((*key).into(), (*value).into());
    }
    json!({ "command": ptc_bin(), "args": command, "env": vars })
}

/// Run the client against `ptc serve ARGS` over stdio; the results of `steps`.
fn serve(dir: &Path, args: &[&str], steps: Value) -> Vec<Value> {
    run_client(&json!({ "stdio": stdio(dir, args, &[]), "steps": steps }))
}

/// A `run_code` call step.
fn run_code(code: &str) -> Value {
    json!({ "call": "run_code", "args": { "code": code, "description": "a test program" } })
}

/// The names in a list step's result.
fn names(list: &Value) -> Vec<&str> {
    list.as_array()
        .expect("a list step gives an array")
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect()
}

/// The tool called `name` in a list step's result.
fn listed<'a>(list: &'a Value, name: &str) -> &'a Value {
    list.as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == name)
        .unwrap_or_else(|| panic!("`{name}` is not listed: {list}"))
}

/// Assert that a call step succeeded with `text`.
fn assert_ok(result: &Value, text: &str) {
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(result["text"], text, "{result}");
}

/// The testkit tools as `tools/list` shows them natively.
const TESTKIT: [&str; 5] = ["add", "counter", "echo", "fail", "sleep"];

/// Assert that `description` is run_code's: the guidance section with the SDK.
fn assert_carries_the_sdk(description: &str) {
    assert!(description.starts_with("## Calling tools"), "{description}");
    for declaration in [
        "`run_code`",
        "interface ToolArgsMap {",
        "\nadd: { a: number; b: number }",
        "\necho: {",
        "interface ToolOutputMap {",
        "\nsleep: { slept: number };",
        "declare const tools:",
    ] {
        assert!(
            description.contains(declaration),
            "no `{declaration}` in run_code's description:\n{description}"
        );
    }
}

/// A `ptc.toml` in `dir` with `body`; its path.
fn config(dir: &Path, body: &str) -> String {
    let path = dir.join("serve.toml");
    std::fs::write(&path, body).unwrap();
    path.to_str().unwrap().to_string()
}

/// Poll the session log at `path` until an event satisfies `wanted` (the server writes
/// it asynchronously); panics with the events seen after 10 s.
fn await_event(path: &Path, wanted: impl Fn(&SessionEvent) -> bool) -> SessionEvent {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let events = read_jsonl(path).unwrap_or_default();
        if let Some(event) = events.iter().find(|e| wanted(e)) {
            return event.clone();
        }
        assert!(
            Instant::now() < deadline,
            "no such event in the session log: {events:#?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Send a bodiless HTTP/1.1 request; the response's status line.
fn status_line(authority: &str, method: &str, path: &str) -> String {
    let mut stream = TcpStream::connect(authority).expect("the server accepts connections");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {authority}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    response.lines().next().unwrap_or_default().to_string()
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

// ---------------------------------------------------------------------------------
// tools/list per mode
// ---------------------------------------------------------------------------------

#[test]
fn serve_code_mode_lists_only_run_code_with_the_sdk() {
    let dir = tempfile::tempdir().unwrap();
    let results = serve(
        dir.path(),
        &["--tools", "testkit", "--mode", "code"],
        json!([{ "list": true }]),
    );
    assert_eq!(names(&results[0]), ["run_code"]);
    let tool = listed(&results[0], "run_code");
    assert_carries_the_sdk(tool["description"].as_str().unwrap());
    let schema = &tool["inputSchema"];
    assert_eq!(schema["type"], "object", "{schema}");
    assert_eq!(schema["properties"]["code"]["type"], "string", "{schema}");
    assert_eq!(
        schema["properties"]["description"]["type"], "string",
        "{schema}"
    );
    assert_eq!(
        schema["required"],
        json!(["code", "description"]),
        "{schema}"
    );
}

#[test]
fn serve_native_mode_lists_the_tools_without_run_code() {
    let dir = tempfile::tempdir().unwrap();
    let results = serve(
        dir.path(),
        &["--tools", "testkit", "--mode", "native"],
        json!([{ "list": true }]),
    );
    assert_eq!(names(&results[0]), TESTKIT);
    let add = listed(&results[0], "add");
    assert_eq!(add["description"], "Add two numbers.");
    assert_eq!(
        add["inputSchema"]["properties"]["a"]["type"], "number",
        "{add}"
    );
    assert_eq!(add["inputSchema"]["required"], json!(["a", "b"]), "{add}");
}

/// `ptc tools ARGS --format mcp`, run in `dir`, parsed.
fn ptc_tools(dir: &Path, args: &[&str]) -> Value {
    let mut command = vec!["tools", "--root", dir.to_str().unwrap(), "--format", "mcp"];
    command.extend_from_slice(args);
    let output = Command::new(ptc_bin())
        .args(&command)
        .current_dir(dir)
        .output()
        .expect("ptc runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("ptc tools prints JSON")
}

#[test]
fn serve_lists_exactly_what_ptc_tools_prints_in_every_mode() {
    let dir = tempfile::tempdir().unwrap();
    for (packs, mode) in [
        ("testkit", "code"),
        ("testkit", "both"),
        ("testkit", "native"),
        ("builtin", "code"),
        ("builtin", "both"),
    ] {
        let args = ["--tools", packs, "--mode", mode];
        let listed = serve(dir.path(), &args, json!([{ "list": true }]));
        let printed = ptc_tools(dir.path(), &args);
        assert_eq!(listed[0], printed, "{packs}, {mode}");
        if mode != "native" {
            // run_code's description is the guidance: it never points at declarations
            // that are not there.
            let description = listed_description(&printed);
            assert!(
                description.contains("\ninterface ToolArgsMap {"),
                "{description}"
            );
            assert!(
                description.contains("\ndeclare const tools:"),
                "{description}"
            );
        }
    }
}

/// run_code's description in a printed or listed tool array.
fn listed_description(list: &Value) -> &str {
    listed(list, "run_code")["description"].as_str().unwrap()
}

#[test]
fn serve_both_mode_lists_the_tools_and_run_code_with_the_sdk() {
    let dir = tempfile::tempdir().unwrap();
    let results = serve(
        dir.path(),
        &["--tools", "testkit", "--mode", "both"],
        json!([{ "list": true }]),
    );
    let mut expected = TESTKIT.to_vec();
    expected.push("run_code");
    assert_eq!(names(&results[0]), expected);
    assert_carries_the_sdk(
        listed(&results[0], "run_code")["description"]
            .as_str()
            .unwrap(),
    );
}

// ---------------------------------------------------------------------------------
// tools/call
// ---------------------------------------------------------------------------------

#[test]
fn serve_run_code_returns_the_program_result_and_fails_on_an_uncaught_error() {
    let dir = tempfile::tempdir().unwrap();
    let results = serve(
        dir.path(),
        &["--tools", "testkit", "--mode", "code"],
        json!([
            run_code("return await tools.add({a: 2, b: 3})"),
            run_code("await tools.fail({message: \"boom\"})"),
        ]),
    );
    assert_ok(&results[0], "5");
    assert_eq!(results[0]["structured"], Value::Null, "{}", results[0]);
    let failed = &results[1];
    assert_eq!(failed["isError"], true, "{failed}");
    let text = failed["text"].as_str().unwrap();
    assert!(
        text.starts_with(
            "Error: code run failed (exception): ToolCallError: fail failed at run_code.ts:1:13: boom"
        ),
        "{text}"
    );
}

#[test]
fn serve_native_calls_carry_structured_content_for_object_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let results = serve(
        dir.path(),
        &["--tools", "testkit", "--mode", "native"],
        json!([
            { "call": "sleep", "args": { "ms": 1 } },
            { "call": "echo", "args": { "text": "hi" } },
            { "call": "run_code", "args": { "code": "return 1", "description": "not listed" } },
        ]),
    );
    let sleep = &results[0];
    assert_eq!(sleep["isError"], false, "{sleep}");
    assert_eq!(sleep["structured"], json!({ "slept": 1 }), "{sleep}");
    let text: Value = serde_json::from_str(sleep["text"].as_str().unwrap()).unwrap();
    assert_eq!(
        text,
        json!({ "slept": 1 }),
        "the text content renders the value"
    );
    // A string output has no object schema: text only.
    assert_ok(&results[1], "hi");
    assert_eq!(results[1]["structured"], Value::Null, "{}", results[1]);
    // Native mode offers no run_code, and does not run it either.
    assert_eq!(results[2]["isError"], true, "{}", results[2]);
    assert!(
        results[2]["text"]
            .as_str()
            .unwrap()
            .contains("Unknown tool: run_code"),
        "{}",
        results[2]
    );
}

#[test]
fn serve_calls_go_through_the_configured_policies() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(
        dir.path(),
        "[[policy]]\ntool = \"add\"\naction = \"deny\"\nreason = \"no adding today\"\n",
    );
    let results = serve(
        dir.path(),
        &["--tools", "testkit", "--mode", "both", "--config", &config],
        json!([
            { "call": "add", "args": { "a": 1, "b": 2 } },
            run_code("try { await tools.add({a: 1, b: 2}) } catch (e) { return `denied: ${e.message}` }"),
            { "call": "echo", "args": { "text": "still here" } },
        ]),
    );
    assert_eq!(results[0]["isError"], true, "{}", results[0]);
    assert_eq!(
        results[0]["text"], "Error: no adding today",
        "{}",
        results[0]
    );
    assert_ok(&results[1], "denied: no adding today");
    assert_ok(&results[2], "still here");
}

#[test]
fn serve_logs_every_call_and_its_sub_calls() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("session.jsonl");
    let results = serve(
        dir.path(),
        &[
            "--tools",
            "testkit",
            "--mode",
            "both",
            "--log",
            log.to_str().unwrap(),
        ],
        json!([
            run_code("return await tools.add({a: 2, b: 3})"),
            { "call": "echo", "args": { "text": "native" } },
        ]),
    );
    assert_ok(&results[0], "5");
    assert_ok(&results[1], "native");

    let events = read_jsonl(&log).unwrap();
    let kinds: Vec<&str> = events.iter().map(SessionEvent::kind).collect();
    assert_eq!(
        kinds,
        [
            "tool/call",
            "tool/ptc-dispatch-start",
            "tool/ptc-dispatch",
            "tool/result",
            "tool/call",
            "tool/result",
        ],
        "{events:#?}"
    );
    let SessionEvent::ToolCall {
        call_id: code_call,
        name,
        arguments,
        ..
    } = &events[0]
    else {
        unreachable!()
    };
    assert_eq!(name, "run_code");
    assert_eq!(arguments["code"], "return await tools.add({a: 2, b: 3})");
    let SessionEvent::PtcDispatchStart {
        parent_call_id,
        sub_call_id,
        name,
        arguments,
        ..
    } = &events[1]
    else {
        unreachable!()
    };
    assert_eq!(parent_call_id, code_call);
    assert_eq!(sub_call_id, &format!("{code_call}:ptc:1"));
    assert_eq!(
        (name.as_str(), arguments.as_ref()),
        ("add", &json!({ "a": 2, "b": 3 }))
    );
    let SessionEvent::PtcDispatch {
        parent_call_id,
        is_error,
        ..
    } = &events[2]
    else {
        unreachable!()
    };
    assert_eq!((parent_call_id, *is_error), (code_call, false));
    let SessionEvent::ToolResult {
        call_id,
        name,
        is_error,
        ..
    } = &events[3]
    else {
        unreachable!()
    };
    assert_eq!(
        (call_id, name.as_str(), *is_error),
        (code_call, "run_code", false)
    );
    let SessionEvent::ToolCall {
        call_id: echo_call,
        name,
        ..
    } = &events[4]
    else {
        unreachable!()
    };
    assert_eq!(name, "echo");
    assert_ne!(echo_call, code_call, "each call has its own id");
    let SessionEvent::ToolResult { call_id, name, .. } = &events[5] else {
        unreachable!()
    };
    assert_eq!((call_id, name.as_str()), (echo_call, "echo"));
}

// ---------------------------------------------------------------------------------
// Concurrency and cancellation
// ---------------------------------------------------------------------------------

#[test]
fn serve_runs_concurrent_run_code_calls_concurrently() {
    let dir = tempfile::tempdir().unwrap();
    // Serialized calls would leave the waiter blocked: the run's wall clock then fails
    // it (instead of hanging the test), and it answers `code run failed (timeout)`.
    let config = config(dir.path(), "[limits]\ntimeout_ms = 20000\n");
    let fx = fixture_flag("fx");
    node_module("@modelcontextprotocol/sdk/package.json");
    let results = serve(
        dir.path(),
        &[
            "--tools", "testkit", "--mode", "code", "--config", &config, "--mcp", &fx,
        ],
        json!([
            { "parallel": [
                run_code("return await tools.fx__rendezvous({key: \"k\", role: \"wait\"})"),
                run_code(
                    "await tools.sleep({ms: 50});\n\
                     return await tools.fx__rendezvous({key: \"k\", role: \"release\"})"
                ),
            ] },
        ]),
    );
    let pair = &results[0];
    assert_ok(&pair[0], "met");
    assert_ok(&pair[1], "released");
}

#[test]
fn serve_client_cancellation_aborts_the_run_and_reaches_upstream() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("session.jsonl");
    let fixture_log = dir.path().join("fixture.log");
    let fx = fixture_flag("fx");
    node_module("@modelcontextprotocol/sdk/package.json");
    // The fixture must be up before the call (whose client gives up after 300 ms), not
    // started in the background from a cached list.
    let args = [
        "--tools",
        "testkit",
        "--mode",
        "code",
        "--mcp",
        &fx,
        "--no-mcp-cache",
        "--log",
        log.to_str().unwrap(),
    ];
    // FIXTURE_LOG reaches the fixture through ptc, which passes its environment on.
    let env = [("FIXTURE_LOG", fixture_log.to_str().unwrap())];
    let mut slow = run_code("return await tools.fx__slow({ms: 20000})");
    slow["abortAfterMs"] = json!(300);
    let results = run_client(&json!({
        "stdio": stdio(dir.path(), &args, &env),
        "steps": [slow, run_code("return await tools.add({a: 1, b: 1})")],
    }));
    // The client gave up on its own request; the server still answers the next one.
    let aborted = results[0]["error"]
        .as_str()
        .unwrap_or_else(|| panic!("{}", results[0]));
    assert!(aborted.contains("AbortError"), "{aborted}");
    assert_ok(&results[1], "2");

    // The fixture saw the sub-call cancelled ...
    await_cancellation(&fixture_log, "slow");
    // ... and the run ended as aborted, well before the 20 s the tool would take.
    let SessionEvent::ToolCall {
        call_id: slow_call, ..
    } = await_event(&log, |e| matches!(e, SessionEvent::ToolCall { .. }))
    else {
        unreachable!()
    };
    let result = await_event(
        &log,
        |e| matches!(e, SessionEvent::ToolResult { call_id, .. } if *call_id == slow_call),
    );
    let SessionEvent::ToolResult {
        name,
        is_error,
        error,
        ..
    } = &result
    else {
        unreachable!()
    };
    assert_eq!(name, "run_code");
    assert!(is_error, "{result:#?}");
    let message = &error.as_ref().expect("a structured failure").message;
    assert!(message.contains("code run failed (aborted)"), "{message}");
}

// ---------------------------------------------------------------------------------
// Streamable HTTP
// ---------------------------------------------------------------------------------

#[test]
fn serve_http_lists_run_code_and_runs_a_program() {
    let dir = tempfile::tempdir().unwrap();
    let server = HttpServer::start(dir.path(), &["--tools", "testkit", "--mode", "code"], &[]);
    assert!(
        server.url.starts_with("http://127.0.0.1:") && server.url.ends_with("/mcp"),
        "{}",
        server.url
    );
    let results = run_client(&json!({
        "http": server.url,
        "steps": [{ "list": true }, run_code("return await tools.add({a: 2, b: 3})")],
    }));
    assert_eq!(names(&results[0]), ["run_code"]);
    assert_carries_the_sdk(
        listed(&results[0], "run_code")["description"]
            .as_str()
            .unwrap(),
    );
    assert_ok(&results[1], "5");
}

#[test]
fn serve_http_runs_calls_concurrently_and_honours_cancellation() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path(), "[limits]\ntimeout_ms = 20000\n");
    let fixture_log = dir.path().join("fixture.log");
    let fx = fixture_flag("fx");
    node_module("@modelcontextprotocol/sdk/package.json");
    let server = HttpServer::start(
        dir.path(),
        &[
            "--tools", "testkit", "--mode", "code", "--config", &config, "--mcp", &fx,
        ],
        &[("FIXTURE_LOG", fixture_log.to_str().unwrap())],
    );
    let mut slow = run_code("return await tools.fx__slow({ms: 20000})");
    slow["abortAfterMs"] = json!(300);
    let results = run_client(&json!({
        "http": server.url,
        "steps": [
            { "parallel": [
                run_code("return await tools.fx__rendezvous({key: \"k\", role: \"wait\"})"),
                run_code(
                    "await tools.sleep({ms: 50});\n\
                     return await tools.fx__rendezvous({key: \"k\", role: \"release\"})"
                ),
            ] },
            slow,
            run_code("return await tools.add({a: 1, b: 1})"),
        ],
    }));
    assert_ok(&results[0][0], "met");
    assert_ok(&results[0][1], "released");
    let aborted = results[1]["error"]
        .as_str()
        .unwrap_or_else(|| panic!("{}", results[1]));
    assert!(aborted.contains("AbortError"), "{aborted}");
    assert_ok(&results[2], "2");
    await_cancellation(&fixture_log, "slow");
}

#[test]
fn serve_http_answers_404_off_the_mcp_path() {
    let dir = tempfile::tempdir().unwrap();
    let server = HttpServer::start(dir.path(), &["--tools", "testkit"], &[]);
    for (method, path) in [
        ("GET", "/"),
        ("POST", "/"),
        ("GET", "/other"),
        ("POST", "/mcp/x"),
    ] {
        let status = status_line(server.authority(), method, path);
        assert!(
            status.starts_with("HTTP/1.1 404"),
            "{method} {path}: {status}"
        );
    }
}

// ---------------------------------------------------------------------------------
// Bad flags
// ---------------------------------------------------------------------------------

#[test]
fn serve_rejects_a_bad_http_address_with_exit_2() {
    let (code, stderr) = ptc_fails(&["serve", "--tools", "testkit", "--http", "notaport"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("`notaport`"), "{stderr}");
    assert!(stderr.contains("PORT nor HOST:PORT"), "{stderr}");
}

#[test]
fn serve_rejects_a_bad_mcp_declaration_with_exit_2() {
    let (code, stderr) = ptc_fails(&["serve", "--mcp", "x"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("invalid MCP server declaration `x`"),
        "{stderr}"
    );
    assert!(stderr.contains("NAME=COMMAND"), "{stderr}");
    let (code, stderr) = ptc_fails(&["serve", "--mcp", "x="]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("the command is empty"), "{stderr}");
}
