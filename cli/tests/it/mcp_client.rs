//! MCP servers as tool packs (issue 5, client side), against real servers: the
//! third-party `@modelcontextprotocol/server-everything` from npm, and the fixture server
//! in `tests/mcp/` on the official TypeScript SDK for the misbehaviours (exiting
//! mid-call, hanging, reporting the cancellations it receives).

use crate::mcp_support;
use ptc_testing::code as code_support;
use ptc_testing::tsc as tsc_support;

use code_support::{code_registry, code_registry_with, config, run, run_ok};
use mcp_support::{await_cancellation, await_start, everything, fixture};
use ptc::{ToolMode, ToolRegistry};
use ptc_mcp::{register_server, McpServerSpec};
use serde_json::{json, Value};

/// A scratch file for the fixture's cancellation log.
fn log_file() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cancellations.log");
    (dir, path)
}

fn output(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// The SDK section the model reads in `both` mode.
fn sdk(registry: &ToolRegistry) -> String {
    registry.set_mode(ToolMode::Both);
    let (_, sections) = registry.view(None, None).model_input().unwrap();
    sections.into_iter().map(|s| s.text).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_server_everything_tools_are_called_from_a_run_code_program() {
    let registry = code_registry();
    let pack = register_server(&registry, everything("everything"))
        .await
        .unwrap();
    assert!(pack.tools.contains(&"everything__echo".to_string()));
    assert!(pack.tools.contains(&"everything__get-sum".to_string()));
    let text = run_ok(
        &registry,
        r#"
        const [echoed, sum] = await Promise.all([
          tools.everything__echo({ message: "hi" }),
          tools["everything__get-sum"]({ a: 2, b: 3 }),
        ]);
        const weather = await tools["everything__get-structured-content"]({ location: "Chicago" });
        return { echoed, sum, celsius: weather.temperature, conditions: weather.conditions };
        "#,
    )
    .await;
    assert_eq!(
        output(&text),
        json!({
            "echoed": "Echo: hi",
            "sum": "The sum of 2 and 3 is 5.",
            "celsius": 36,
            "conditions": "Light rain / drizzle",
        })
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_output_schema_types_the_sdk_and_the_sdk_passes_tsc() {
    let registry = code_registry();
    register_server(&registry, everything("everything"))
        .await
        .unwrap();
    let sdk = sdk(&registry);
    let declarations = sdk
        .rsplit("```ts\n")
        .next()
        .and_then(|rest| rest.split("```").next())
        .expect("the SDK section ends with the declarations");
    // outputSchema → typed output; no outputSchema → string; arguments typed from inputSchema.
    assert!(
        declarations.contains("\"everything__get-structured-content\": {\n  temperature: number; // Temperature in celsius\n"),
        "{declarations}"
    );
    assert!(declarations.contains("\"everything__get-sum\": string;"));
    assert!(
        declarations.contains("\n  a: number; // First number\n"),
        "{declarations}"
    );
    let mut project = tsc_support::TsProject::new(declarations);
    project.add_program(
        "program.ts",
        r#"const w = await tools["everything__get-structured-content"]({ location: "Chicago" });
        const t: number = w.temperature;
        const s: string = await tools["everything__get-sum"]({ a: 1, b: 2 });
        const e: string = await tools.everything__echo({ message: "x" });
        return { t, s, e };"#,
    );
    let (ok, diagnostics) = project.check();
    assert!(ok, "tsc rejected the SDK or the program:\n{diagnostics}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_tool_names_are_namespaced_per_server() {
    let (_dir, log) = log_file();
    let registry = code_registry();
    let a = register_server(&registry, fixture("alpha", &log))
        .await
        .unwrap();
    let b = register_server(&registry, fixture("beta", &log))
        .await
        .unwrap();
    assert!(a.tools.contains(&"alpha__pid".to_string()));
    assert!(b.tools.contains(&"beta__pid".to_string()));
    let text = run_ok(
        &registry,
        "return [await tools.alpha__pid({}), await tools.beta__pid({})]",
    )
    .await;
    let pids = output(&text);
    assert_ne!(pids[0], pids[1], "two servers, two processes: {pids}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_structured_content_is_the_value_and_is_error_is_a_tool_error() {
    let (_dir, log) = log_file();
    let registry = code_registry();
    register_server(&registry, fixture("fx", &log))
        .await
        .unwrap();
    let text = run_ok(
        &registry,
        r#"
        const weather = await tools.fx__weather({ city: "Oslo" });
        let refused = null;
        try { await tools.fx__refuse({}); } catch (e) { refused = [e.name, e.toolName, e.message]; }
        return { weather, refused };
        "#,
    )
    .await;
    assert_eq!(
        output(&text),
        json!({
            "weather": {"city": "Oslo", "celsius": 21.5},
            "refused": ["ToolCallError", "fx__refuse", "refused: not today"],
        })
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_server_dying_mid_call_is_a_tool_error_and_restarts_on_next_use() {
    let (_dir, log) = log_file();
    let registry = code_registry();
    let pack = register_server(&registry, fixture("fx", &log))
        .await
        .unwrap();
    let text = run_ok(
        &registry,
        r#"
        const before = await tools.fx__pid({});
        let error = null;
        try { await tools.fx__crash({}); } catch (e) { error = e.message; }
        const after = await tools.fx__pid({});
        return { restarted: before !== after, error };
        "#,
    )
    .await;
    let out = output(&text);
    assert_eq!(out["restarted"], json!(true), "{out}");
    let error = out["error"].as_str().unwrap();
    assert!(
        error.contains("MCP server `fx` exited during the call"),
        "{error}"
    );
    assert_eq!(pack.client.starts(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_run_timeout_cancels_the_pending_upstream_call() {
    let (_dir, log) = log_file();
    let registry = code_registry_with(config(|c| {
        c.limits.wall_clock = std::time::Duration::from_millis(500)
    }));
    register_server(&registry, fixture("fx", &log))
        .await
        .unwrap();
    let r = run(&registry, "return await tools.fx__slow({ ms: 30000 })").await;
    assert!(
        r.text().contains("code run failed (timeout)"),
        "{}",
        r.text()
    );
    // The server received `notifications/cancelled` for the request it was serving.
    let line = await_cancellation(&log, "slow");
    assert!(line.starts_with("cancelled slow "), "{line}");
    // The server is still usable afterwards.
    assert_eq!(
        run_ok(&registry, "return await tools.fx__slow({ ms: 1 })").await,
        "done"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_hung_call_times_out_with_tool_timeout_and_is_cancelled_upstream() {
    let (_dir, log) = log_file();
    let registry = code_registry();
    let mut spec = fixture("fx", &log);
    spec.timeout_ms = Some(300);
    register_server(&registry, spec).await.unwrap();
    let text = run_ok(
        &registry,
        r#"
        try { await tools.fx__slow({ ms: 30000 }); return "no timeout"; }
        catch (e) { return e.message; }
        "#,
    )
    .await;
    assert!(text.contains("timed out after 300 ms"), "{text}");
    await_cancellation(&log, "slow");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_caller_cancellation_of_a_direct_call_goes_upstream() {
    let (_dir, log) = log_file();
    let registry = code_registry();
    registry.set_mode(ToolMode::Native);
    register_server(&registry, fixture("fx", &log))
        .await
        .unwrap();
    let signal = tokio_util::sync::CancellationToken::new();
    // The server says the call started, then the test cancels.
    let (cancel, started) = (signal.clone(), log.clone());
    tokio::spawn(async move {
        tokio::task::spawn_blocking(move || await_start(&started, "slow"))
            .await
            .unwrap();
        cancel.cancel();
    });
    let r = code_support::Call::direct("fx__slow", json!({"ms": 30000}))
        .with_signal(signal)
        .send(&registry)
        .await;
    assert_eq!(r.error_code(), Some(ptc::codes::ABORTED), "{}", r.text());
    await_cancellation(&log, "slow");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_schema_outside_the_subset_registers_with_a_warning_and_passes_arguments_through() {
    let (_dir, log) = log_file();
    let registry = code_registry();
    let pack = register_server(&registry, fixture("fx", &log))
        .await
        .unwrap();
    let warning = pack
        .warnings
        .iter()
        .find(|w| w.starts_with("fx__bounded:"))
        .expect("a warning for fx__bounded");
    assert!(warning.contains("multipleOf"), "{warning}");
    assert!(
        pack.warnings.iter().all(|w| w.starts_with("fx__bounded:")),
        "only fx__bounded is outside the subset: {:?}",
        pack.warnings
    );
    // Not validated: 7 breaks `maximum: 3` (beside `multipleOf`, outside the subset) and
    // `extra` is not declared; the server sees both.
    let text = run_ok(
        &registry,
        "return await tools.fx__bounded({ n: 7, extra: true })",
    )
    .await;
    assert_eq!(output(&text), json!({"n": 7, "extra": true}));
    // Validated where the schema is in the subset: `ms` must be an integer.
    let r = run(&registry, "return await tools.fx__slow({ ms: 'soon' })").await;
    assert!(
        r.text().contains("INVALID_ARGS") || r.text().contains("ms"),
        "{}",
        r.text()
    );
    // Bounds are in the subset: validated before the call reaches the server.
    let r = run(&registry, "return await tools.fx__ranged({ n: 7 })").await;
    assert!(
        r.text()
            .contains("/n: expected a number <= 3 (maximum), got 7"),
        "{}",
        r.text()
    );
    let sdk = sdk(&registry);
    assert!(sdk.contains("fx__bounded: unknown;"), "{sdk}");
    assert!(sdk.contains("@minimum 1 @maximum 3"), "{sdk}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_server_that_cannot_start_is_a_clear_error() {
    let registry = code_registry();
    let spec = McpServerSpec::new("ghost", "/nonexistent/mcp-server", &["--stdio"]);
    let err = register_server(&registry, spec)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("MCP server `ghost` could not be started (/nonexistent/mcp-server --stdio)"),
        "{err}"
    );
    let spec = McpServerSpec::new("quits", "node", &["-e", "process.exit(0)"]);
    let err = register_server(&registry, spec)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("MCP server `quits` could not be started"),
        "{err}"
    );
}

/// The fixture told to hang in `phase`, with a startup timeout of 8 s (short, yet long
/// enough for node to load the SDK on a busy machine, so the hang is in `phase`); its pid file.
fn wedged(phase: &str, dir: &std::path::Path) -> (McpServerSpec, std::path::PathBuf) {
    let pid_file = dir.join("fixture.pid");
    let mut spec = fixture("fx", &dir.join("fixture.log"));
    spec.env.insert("FIXTURE_HANG".into(), phase.into());
    spec.env
        .insert("FIXTURE_PID".into(), pid_file.to_str().unwrap().into());
    spec.startup_timeout_ms = Some(8000);
    (spec, pid_file)
}

/// The pid the fixture wrote, and whether `/proc/<pid>` still exists (a zombie counts).
fn pid_alive(pid_file: &std::path::Path) -> (String, bool) {
    let pid = std::fs::read_to_string(pid_file).expect("the fixture wrote its pid");
    assert!(pid.trim().parse::<u32>().is_ok(), "not a pid: {pid:?}");
    let alive = std::path::Path::new(&format!("/proc/{}", pid.trim())).exists();
    (pid, alive)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_server_hanging_in_tools_list_fails_startup_naming_the_phase_and_is_reaped() {
    let dir = tempfile::tempdir().unwrap();
    let (spec, pid_file) = wedged("tools/list", dir.path());
    let registry = code_registry();
    let err = register_server(&registry, spec)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("MCP server `fx` did not start within 8000 ms: it hung in `tools/list`"),
        "{err}"
    );
    assert!(err.contains("startup_timeout_ms"), "{err}");
    // The fixture ignores SIGTERM and stdin's end: only the kill stopped it, and it was reaped.
    let (pid, alive) = pid_alive(&pid_file);
    assert!(!alive, "the wedged server {pid} is still there");
    assert!(registry.view(None, None).get("fx__pid").is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_server_hanging_in_initialize_fails_startup_naming_the_phase_and_is_reaped() {
    let dir = tempfile::tempdir().unwrap();
    let (spec, pid_file) = wedged("initialize", dir.path());
    let err = register_server(&code_registry(), spec)
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("it hung in `initialize`"), "{err}");
    let (pid, alive) = pid_alive(&pid_file);
    assert!(!alive, "the wedged server {pid} is still there");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_startup_abandoned_on_shutdown_reaps_the_process() {
    let dir = tempfile::tempdir().unwrap();
    let (mut spec, pid_file) = wedged("initialize", dir.path());
    spec.startup_timeout_ms = None;
    let stop = tokio_util::sync::CancellationToken::new();
    let start = tokio::spawn({
        let stop = stop.clone();
        async move { ptc_mcp::McpClient::start_until(spec, &stop).await }
    });
    while !pid_file.exists() {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    stop.cancel();
    let err = start.await.unwrap().unwrap_err().to_string();
    assert!(
        err.contains("start abandoned, ptc is shutting down"),
        "{err}"
    );
    let (pid, alive) = pid_alive(&pid_file);
    assert!(!alive, "the server {pid} is still there");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_shutdown_reaps_the_server_process() {
    let (_dir, log) = log_file();
    let registry = code_registry();
    let pack = register_server(&registry, fixture("fx", &log))
        .await
        .unwrap();
    let pid = pack.client.pid().await.expect("a running server");
    pack.client.shutdown().await;
    assert!(
        !std::path::Path::new(&format!("/proc/{pid}")).exists(),
        "the server {pid} is still there after shutdown"
    );
}
