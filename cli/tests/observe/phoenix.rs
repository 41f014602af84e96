//! `ptc run --otlp` and `ptc serve --otlp` against a real Arize Phoenix.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::support::{self, free_port, http_get, ptc_output, run_args, workspace};

/// A Phoenix server on free ports with its data in a temporary directory; killed (with
/// its process group) when dropped.
struct Phoenix {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Drop for Phoenix {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Phoenix {
    /// Start Phoenix and wait until its HTTP endpoint answers (`None`: skipped).
    fn start() -> Option<Phoenix> {
        let python = std::env::var_os("PTC_PHOENIX_PYTHON")
            .map(Into::into)
            .unwrap_or_else(|| support::artifact("venv").join("bin").join("python"));
        let python = support::tool(
            python,
            "Arize Phoenix's Python",
            "make it with: python3 -m venv target/observe/venv && \
             target/observe/venv/bin/pip install -r tests/observe/requirements.txt",
        )?;
        let dir = tempfile::tempdir().unwrap();
        let port = free_port();
        let log = std::fs::File::create(dir.path().join("phoenix.log")).unwrap();
        let child = Command::new(python)
            .args(["-m", "phoenix.server.main", "serve"])
            .env("PHOENIX_WORKING_DIR", dir.path())
            .env("PHOENIX_HOST", "127.0.0.1")
            .env("PHOENIX_PORT", port.to_string())
            .env("PHOENIX_GRPC_PORT", free_port().to_string())
            .env("PHOENIX_TELEMETRY_ENABLED", "false")
            .env("PHOENIX_ALLOW_EXTERNAL_RESOURCES", "false")
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .process_group(0)
            .spawn()
            .expect("Phoenix starts");
        let mut phoenix = Phoenix {
            child,
            port,
            _dir: dir,
        };
        let started = Instant::now();
        // Readiness, not a fixed sleep: poll /healthz until it answers, or Phoenix exits.
        // The deadline only keeps a broken install from hanging the suite.
        loop {
            if let Some((200, _)) = http_get(port, "/healthz") {
                eprintln!("Phoenix ready in {:.1?}", started.elapsed());
                return Some(phoenix);
            }
            if let Some(status) = phoenix.child.try_wait().unwrap() {
                panic!("Phoenix exited ({status}):\n{}", phoenix.log());
            }
            if started.elapsed() > Duration::from_secs(300) {
                panic!("Phoenix did not answer within 300 s:\n{}", phoenix.log());
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self._dir.path().join("phoenix.log")).unwrap_or_default()
    }

    fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}/v1/traces", self.port)
    }

    /// The spans of the default project, once at least `count` of them have been ingested
    /// (Phoenix writes them to its database asynchronously).
    fn spans(&self, count: usize) -> Vec<Value> {
        let started = Instant::now();
        loop {
            let (status, body) = http_get(self.port, "/v1/projects/default/spans?limit=1000")
                .expect("Phoenix answers");
            assert_eq!(status, 200, "{body}");
            let spans = serde_json::from_str::<Value>(&body).unwrap()["data"]
                .as_array()
                .unwrap()
                .clone();
            if spans.len() >= count {
                return spans;
            }
            if started.elapsed() > Duration::from_secs(120) {
                panic!(
                    "Phoenix has {} spans, expected {count}:\n{spans:#?}",
                    spans.len()
                );
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

fn by_call<'a>(spans: &'a [Value], id: &str) -> &'a Value {
    spans
        .iter()
        .find(|s| s["attributes"]["ptc.call_id"] == id)
        .unwrap_or_else(|| panic!("no span for {id}: {spans:#?}"))
}

fn span_id(span: &Value) -> &str {
    span["context"]["span_id"].as_str().unwrap()
}

#[test]
fn phoenix_receives_run_and_serve_spans_as_trees() {
    let Some(phoenix) = Phoenix::start() else {
        return;
    };
    let ws = workspace();
    let otlp = phoenix.endpoint();
    let args = run_args(&["--otlp", &otlp]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = ptc_output(&args, ws.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!("exporting spans to {otlp}")),
        "{stderr}"
    );

    // The run's call and its six sub-calls: echo, sleep, add, sleep, fail, add (denied).
    let spans = phoenix.spans(7);
    let root = spans
        .iter()
        .find(|s| s["parent_id"].is_null() && s["attributes"]["ptc.scope"] == "cli")
        .unwrap_or_else(|| panic!("no root span from `ptc run`: {spans:#?}"));
    let run = root["attributes"]["ptc.call_id"].as_str().unwrap();
    assert_eq!(root["name"], "execute_tool run_code");
    assert_eq!(root["span_kind"], "TOOL");
    assert_eq!(root["parent_id"], Value::Null);
    assert_eq!(root["status_code"], "UNSET");
    assert_eq!(root["attributes"]["tool.name"], "run_code");
    assert_eq!(root["attributes"]["gen_ai.operation.name"], "execute_tool");
    assert_eq!(root["attributes"]["ptc.outcome"], "ok");
    assert!(root["attributes"]["input.value"]
        .as_str()
        .unwrap()
        .contains("tools.echo"));
    let trace = &root["context"]["trace_id"];
    let expected = [
        (1, "echo", "ok"),
        (2, "sleep", "ok"),
        (3, "add", "ok"),
        (4, "sleep", "ok"),
        (5, "fail", "error"),
        (6, "add", "denied"),
    ];
    for (n, name, outcome) in expected {
        let sub = by_call(&spans, &format!("{run}:ptc:{n}"));
        assert_eq!(sub["name"], format!("execute_tool {name}"));
        assert_eq!(sub["parent_id"], span_id(root), "{run}:ptc:{n}'s parent");
        assert_eq!(&sub["context"]["trace_id"], trace);
        assert_eq!(sub["span_kind"], "TOOL");
        assert_eq!(sub["attributes"]["tool.name"], name);
        assert_eq!(sub["attributes"]["ptc.outcome"], outcome);
        let status = if outcome == "ok" { "UNSET" } else { "ERROR" };
        assert_eq!(sub["status_code"], status, "{run}:ptc:{n}");
    }
    let fail = by_call(&spans, &format!("{run}:ptc:5"));
    assert_eq!(fail["status_message"], "boom");
    assert_eq!(fail["attributes"]["ptc.error.code"], "TOOL_ERROR");
    assert_eq!(fail["attributes"]["input.value"], r#"{"message":"boom"}"#);
    assert!(fail["events"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["name"] == "exception" && e["attributes"]["exception.message"] == "boom"));
    let denied = by_call(&spans, &format!("{run}:ptc:6"));
    assert_eq!(denied["attributes"]["ptc.error.code"], "TOOL_DENIED");
    let policy = denied["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "policy")
        .unwrap_or_else(|| panic!("a policy event: {denied:#}"));
    assert_eq!(policy["attributes"]["ptc.policy.decision"], "deny");
    assert_eq!(
        policy["attributes"]["ptc.policy.reason"],
        "no unlucky numbers"
    );
    assert_eq!(
        by_call(&spans, &format!("{run}:ptc:3"))["attributes"]["output.value"],
        "5"
    );

    serve_flushes_its_spans_on_sigterm(&phoenix, spans.len());
}

/// `ptc serve --otlp` over stdio: one run_code call, then SIGTERM; its spans reach
/// Phoenix because the exporter is flushed on the way out.
fn serve_flushes_its_spans_on_sigterm(phoenix: &Phoenix, before: usize) {
    let ws = workspace();
    let mut child = support::ptc()
        .args([
            "serve", "--tools", "testkit", "--mode", "code", "--root", "root",
        ])
        .args(["--otlp", &phoenix.endpoint()])
        .current_dir(ws.path())
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut send = |message: Value| {
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    };
    let mut receive = |id: u64| loop {
        let mut line = String::new();
        assert!(
            stdout.read_line(&mut line).unwrap() > 0,
            "ptc serve closed stdout"
        );
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["id"] == id {
            return message;
        }
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "observe-test", "version": "1"}}}),
    );
    receive(1);
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let code = "const [a, b] = await Promise.all([tools.add({ a: 40, b: 2 }), tools.echo({ text: 'served' })]);\nreturn a;";
    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "run_code", "arguments": {"code": code, "description": "a served program"}}}),
    );
    let answer = receive(2);
    assert_eq!(answer["result"]["isError"], false, "{answer:#}");

    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(status.success(), "{status}: {stderr}");

    let spans = phoenix.spans(before + 3);
    let root = spans
        .iter()
        .find(|s| s["name"] == "execute_tool run_code" && s["attributes"]["ptc.scope"] == "mcp")
        .unwrap_or_else(|| panic!("the served run_code span: {spans:#?}"));
    let call_id = root["attributes"]["ptc.call_id"].as_str().unwrap();
    assert!(call_id.starts_with("mcp-"), "{call_id}");
    for (n, name) in [(1, "add"), (2, "echo")] {
        let sub = by_call(&spans, &format!("{call_id}:ptc:{n}"));
        assert_eq!(sub["name"], format!("execute_tool {name}"));
        assert_eq!(sub["parent_id"], span_id(root));
    }
}
