//! Both MCP protocol eras against `ptc serve --http`, driven by the official clients: the
//! Python SDK's (`mcp` 2.3) and the TypeScript SDK's v2 (`@modelcontextprotocol/client`
//! 2.4). In mode `auto` (the Python client's default) they speak 2026-07-28 (no session;
//! approvals and questions come back as input-required results; tasks and terminals are
//! reached by handle), in mode `legacy` they open a session as before. The Python client
//! is left out, with a message, when `PTC_MCP_PYTHON` names no such Python (`.ci/run`
//! makes it).

use crate::mcp_support;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use mcp_support::serve::HttpServer;
use mcp_support::{mcp_python, run_modern_client, run_python_client};
use ptc::session::{read_jsonl, SessionEvent};
use serde_json::{json, Value};

/// `ptc serve --http` as instance `id` with builtin and testkit, an `ask` rule for `echo`,
/// `[serve]` lines `serve`, logging to `dir/log.jsonl`.
struct Served {
    dir: tempfile::TempDir,
    server: HttpServer,
}

impl Served {
    fn start(id: &str, serve: &str) -> Served {
        let dir = tempfile::tempdir().unwrap();
        let config = format!(
            "tools = [\"testkit\", \"builtin\"]\n\n[serve]\n{serve}\n\n[[policy]]\ntool = \"echo\"\naction = \"ask\"\nreason = \"echo needs a person\"\n"
        );
        let config_path = dir.path().join("ptc.toml");
        std::fs::write(&config_path, config).unwrap();
        let log = dir.path().join("log.jsonl");
        let server = HttpServer::start(
            dir.path(),
            &[
                "--config",
                config_path.to_str().unwrap(),
                "--instance",
                id,
                "--log",
                log.to_str().unwrap(),
            ],
            &[],
        );
        Served { dir, server }
    }

    fn log(&self) -> PathBuf {
        self.dir.path().join("log.jsonl")
    }

    /// Run `client` with `elicit` answers (None: no elicitation capability) over `steps`;
    /// the step results (the negotiated version first).
    fn client(&self, client: &Client, elicit: Option<Value>, steps: Value) -> Vec<Value> {
        let mut plan = json!({ "http": self.server.url, "mode": client.mode(), "steps": steps });
        if let Some(elicit) = elicit {
            plan["elicit"] = elicit;
        }
        match client {
            Client::Python(python, _) => run_python_client(python, &plan),
            Client::TypeScript(_) => run_modern_client(&plan),
        }
    }

    /// The approval decisions logged so far.
    fn decisions(&self) -> Vec<String> {
        read_jsonl(self.log())
            .unwrap_or_default()
            .into_iter()
            .filter_map(|e| match e {
                SessionEvent::Approval { decision, .. } => Some(decision),
                _ => None,
            })
            .collect()
    }
}

/// An official client in a mode: `auto` (2026-07-28 when the server speaks it) or `legacy`.
#[derive(Debug, Clone)]
enum Client {
    Python(PathBuf, &'static str),
    TypeScript(&'static str),
}

impl Client {
    fn mode(&self) -> &'static str {
        match self {
            Client::Python(_, mode) | Client::TypeScript(mode) => mode,
        }
    }

    /// The protocol version the mode negotiates with `ptc serve`.
    fn version(&self) -> &'static str {
        match self.mode() {
            "auto" => "2026-07-28",
            _ => "2025-11-25",
        }
    }
}

/// Every client in both modes (`auto` only: just those in mode `auto`).
fn clients(auto_only: bool) -> Vec<Client> {
    let modes: &[&'static str] = if auto_only {
        &["auto"]
    } else {
        &["auto", "legacy"]
    };
    let mut clients = Vec::new();
    for mode in modes {
        if let Some(python) = mcp_python() {
            clients.push(Client::Python(python, mode));
        }
        clients.push(Client::TypeScript(mode));
    }
    clients
}

/// A background `sleep 30` started on `served` through `client`: its task id.
fn sleeping_task(served: &Served, client: &Client) -> String {
    let started = served.client(
        client,
        None,
        json!([{ "call": "bash", "args": { "command": "sleep 30", "description": "wait",
                 "run_in_background": true } }]),
    );
    started[1]["structured"]["task_id"]
        .as_str()
        .unwrap_or_else(|| panic!("no task id in {}", started[1]))
        .to_string()
}

fn text(result: &Value) -> &str {
    result["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {result}"))
}

fn instance(result: &Value) -> &str {
    result["meta"]["ptc/instance"]
        .as_str()
        .unwrap_or_else(|| panic!("no ptc/instance in {result}"))
}

#[test]
fn mcp_eras_a_task_started_by_one_run_is_read_by_a_later_one() {
    let served = Served::start("iA", "");
    for client in clients(false) {
        let (mode, version) = (client.mode(), client.version());
        let start = "const r = await tools.bash({ command: 'echo hello-$((40 + 2)); sleep 0.3', \
                     description: 'greet', run_in_background: true }); return r.task_id;";
        let read = "const o = await tools.task_output({ task_id: '${task}', wait: true, \
                    timeout_ms: 20000 }); return o.output;";
        let results = served.client(
            &client,
            None,
            json!([
                { "call": "run_code", "args": { "code": start, "description": "start" },
                  "capture": { "task": "(task-[0-9a-f]{32}@iA)" } },
                { "call": "run_code",
                  "args": { "code": read, "description": "read", "route": "${task}" } },
                { "call": "task_list" },
            ]),
        );
        assert_eq!(results[0]["version"], version, "{mode}");
        assert!(text(&results[1]).contains("@iA"), "{mode}: {}", results[1]);
        assert!(
            text(&results[2]).contains("hello-42"),
            "{mode}: {}",
            results[2]
        );
        for result in &results[1..] {
            assert_eq!(instance(result), "iA", "{mode}: {result}");
        }
        let listed = text(&results[3]);
        match mode {
            // No session: the list says what it leaves out rather than showing nothing.
            "auto" => assert!(
                listed.contains("No background tasks")
                    && listed.contains("this run started are listed"),
                "{listed}"
            ),
            _ => assert!(listed.contains("@iA"), "{listed}"),
        }
    }
}

#[test]
fn mcp_eras_a_terminal_is_used_across_calls() {
    let served = Served::start("iA", "");
    for client in clients(false) {
        let mode = client.mode();
        let results = served.client(
            &client,
            None,
            json!([
                { "call": "terminal_open", "args": { "type": "shell" },
                  "capture": { "term": "(term-[0-9a-f]{32}@iA)" } },
                { "call": "terminal_send",
                  "args": { "sessionId": "${term}", "text": "echo term-$((6 * 7))" } },
                { "call": "terminal_close", "args": { "sessionId": "${term}" } },
            ]),
        );
        assert!(
            !results[1]["isError"].as_bool().unwrap(),
            "{mode}: {}",
            results[1]
        );
        assert!(
            text(&results[2]).contains("term-42"),
            "{mode}: {}",
            results[2]
        );
        assert!(
            !results[3]["isError"].as_bool().unwrap(),
            "{mode}: {}",
            results[3]
        );
    }
}

#[test]
fn mcp_eras_approvals_accept_allow_for_the_run_deny_and_decline() {
    let served = Served::start("iA", "");
    let twice = "return [await tools.echo({ text: 'a' }), await tools.echo({ text: 'b' })];";
    for client in clients(false) {
        let mode = client.mode();
        let results = served.client(
            &client,
            Some(json!([
                "allow_once",
                "deny",
                "decline",
                "allow_session",
                "allow_once"
            ])),
            json!([
                { "call": "echo", "args": { "text": "one" } },
                { "call": "echo", "args": { "text": "two" } },
                { "call": "echo", "args": { "text": "three" } },
                { "call": "run_code", "args": { "code": twice, "description": "twice" } },
                { "call": "echo", "args": { "text": "four" } },
                { "elicitations": true },
            ]),
        );
        assert_eq!(text(&results[1]), "one", "{mode}");
        assert!(
            text(&results[2]).contains("denied"),
            "{mode}: {}",
            results[2]
        );
        assert!(text(&results[3]).contains("declined by the user"), "{mode}");
        assert!(text(&results[4]).contains("\"a\"") && text(&results[4]).contains("\"b\""));
        let forms = results[6].as_array().unwrap();
        let remembered = match mode {
            // "For this run": the program's second echo is not asked again, but the
            // next request (a new run) is.
            "auto" => "Allow for this run",
            // "For this session": nothing more is asked in this session.
            _ => "Allow for this session",
        };
        let expected = if mode == "auto" { 5 } else { 4 };
        assert_eq!(forms.len(), expected, "{mode}: {forms:?}");
        assert!(forms[0]["requestedSchema"].to_string().contains(remembered));
        if mode == "auto" {
            assert_eq!(text(&results[5]), "four");
        } else {
            assert_eq!(text(&results[5]), "four", "remembered for the session");
        }
    }
}

#[test]
fn mcp_eras_ask_user_question_in_both_eras() {
    let served = Served::start("iA", "");
    for client in clients(false) {
        let mode = client.mode();
        let results = served.client(
            &client,
            Some(json!([{ "content": { "colour": "blue" } }])),
            json!([{ "call": "ask_user_question",
                     "args": { "questions": [{ "id": "colour", "question": "Which colour?" }] } }]),
        );
        assert_eq!(
            results[1]["structured"]["answers"][0]["answer"][0], "blue",
            "{mode}: {}",
            results[1]
        );
    }
}

#[test]
fn mcp_eras_a_client_without_elicitation_is_told_so() {
    let served = Served::start("iA", "");
    for client in clients(true) {
        let results = served.client(
            &client,
            None,
            json!([{ "call": "echo", "args": { "text": "x" } }]),
        );
        assert!(
            text(&results[1]).contains("did not declare the elicitation capability"),
            "{}",
            results[1]
        );
    }
}

#[test]
fn mcp_eras_an_unanswered_approval_times_out_and_a_late_retry_gets_that_result() {
    let served = Served::start("iA", "approval_timeout_ms = 1000");
    for client in clients(true) {
        // The state stays valid 5 s past the timeout: the late retry comes within it.
        let before = served.decisions().len();
        let first = served.client(
            &client,
            Some(json!("allow_once")),
            json!([{ "once": "echo", "args": { "text": "late" } }]),
        );
        let asked = &first[1]["inputRequired"];
        let state = asked["state"]
            .as_str()
            .expect("an input-required result")
            .to_string();
        let key = asked["requests"]
            .as_object()
            .unwrap()
            .keys()
            .next()
            .unwrap()
            .clone();
        // The retry never came: the question times out as in a session.
        let deadline = Instant::now() + Duration::from_secs(30);
        while served.decisions().len() == before {
            assert!(Instant::now() < deadline, "no decision logged");
            std::thread::sleep(Duration::from_millis(50));
        }
        let decided = served.decisions()[before].clone();
        assert!(decided.contains("timed out"), "{decided}");
        let late = served.client(
        &client,
        Some(json!("allow_once")),
        json!([{ "once": "echo", "args": { "text": "late" }, "state": state,
                 "responses": { key: { "action": "accept", "content": { "decision": "allow_once" } } } }]),
    );
        assert!(late[1]["isError"].as_bool().unwrap(), "{}", late[1]);
        assert!(text(&late[1]).contains("timed out"), "{}", late[1]);
    }
}

#[test]
fn mcp_eras_a_forged_replayed_or_foreign_request_state_is_refused() {
    let served = Served::start("iA", "");
    for client in clients(true) {
        let allow = json!({ "action": "accept", "content": { "decision": "allow_once" } });
        let results = served.client(
        &client,
        Some(json!("allow_once")),
        json!([
            { "once": "echo", "args": { "text": "x" }, "saveState": "s" },
            { "once": "echo", "args": { "text": "x" }, "state": "rs1.eyJydW4iOjF9.AAAA@iA",
              "responses": { "ptc-1": allow } },
            { "once": "echo", "args": { "text": "x" }, "state": "${s}x", "responses": { "ptc-1": allow } },
            { "once": "echo", "args": { "text": "x" }, "state": "whatever@iB", "responses": { "ptc-1": allow } },
            { "once": "echo", "args": { "text": "other" }, "state": "${s}", "responses": { "ptc-1": allow } },
            { "once": "add", "args": { "a": 1, "b": 2 }, "state": "${s}", "responses": { "ptc-1": allow } },
            { "once": "echo", "args": { "text": "x" }, "state": "${s}", "responses": { "ptc-1": allow } },
            { "once": "echo", "args": { "text": "x" }, "state": "${s}", "responses": { "ptc-1": allow } },
        ]),
    );
        assert!(results[1]["inputRequired"]["state"]
            .as_str()
            .unwrap()
            .ends_with("@iA"));
        let error = |i: usize| {
            results[i]["error"]
                .as_str()
                .unwrap_or_else(|| panic!("{}", results[i]))
        };
        assert!(error(2).contains("forged or altered"), "{}", error(2));
        assert!(error(3).contains("requestState refused"), "{}", error(3));
        assert!(
            error(4).contains("lives on instance iB; this request reached iA"),
            "{}",
            error(4)
        );
        assert!(error(5).contains("same arguments"), "{}", error(5));
        assert!(
            error(6).contains("forged or altered"),
            "bound to its tool: {}",
            error(6)
        );
        assert_eq!(
            text(&results[7]),
            "x",
            "the genuine retry continues the run"
        );
        assert!(
            error(8).contains("no run waits for it"),
            "a replay: {}",
            error(8)
        );
    }
}

#[test]
fn mcp_eras_a_handle_used_on_another_instance_says_where_it_lives() {
    let (a, b) = (Served::start("iA", ""), Served::start("iB", ""));
    for client in clients(true) {
        let task = sleeping_task(&a, &client);
        let results = b.client(
        &client,
        None,
        json!([
            { "call": "task_output", "args": { "task_id": task } },
            { "call": "run_code", "args": { "code": "return 1", "description": "x", "route": task } },
        ]),
    );
        for result in &results[1..] {
            assert!(result["isError"].as_bool().unwrap(), "{result}");
            assert!(
                text(result).contains("lives on instance iA; this request reached iB"),
                "{result}"
            );
        }
    }
}

#[test]
fn mcp_eras_an_idle_handle_expires() {
    let served = Served::start("iA", "handle_idle_timeout_ms = 200");
    for client in clients(true) {
        let task = sleeping_task(&served, &client);
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let read = served.client(
                &client,
                None,
                json!([{ "call": "task_output", "args": { "task_id": task } }]),
            );
            if text(&read[1]).contains("has expired") {
                break;
            }
            assert!(Instant::now() < deadline, "never expired: {}", read[1]);
        }
    }
}

#[test]
fn mcp_eras_a_held_run_nobody_continues_is_cancelled_and_frees_its_slot() {
    // One run slot, no queue. A program that asks again and again (each question timing out)
    // and whose client never retries must not keep the slot once its state has expired.
    let served = Served::start(
        "iA",
        "approval_timeout_ms = 300\nmax_concurrent_runs = 1\nmax_queued_runs = 0",
    );
    let forever = "for (;;) { try { await tools.echo({ text: 'x' }) } catch (e) {} }";
    for client in clients(true) {
        let held = served.client(
            &client,
            Some(json!("allow_once")),
            json!([{ "once": "run_code", "args": { "code": forever, "description": "loop" } }]),
        );
        assert!(held[1]["inputRequired"].is_object(), "{}", held[1]);
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let probe = served.client(
                &client,
                None,
                json!([{ "call": "add", "args": { "a": 1, "b": 2 } }]),
            );
            if probe[1]["isError"] == false {
                assert_eq!(text(&probe[1]), "3");
                break;
            }
            assert!(text(&probe[1]).contains("busy"), "{}", probe[1]);
            assert!(Instant::now() < deadline, "the held run kept its slot");
        }
    }
}

#[test]
fn mcp_eras_a_route_header_that_disagrees_with_the_body_is_refused() {
    // A load balancer routes on Mcp-Param-Ptc-Route; the body decides what runs. They must
    // agree, and a handle in the body needs its header, else the request is refused as a
    // header mismatch (the official clients then list the tools again and resend).
    let served = Served::start("iA", "");
    let call = |header: Option<&str>| {
        let body = json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {
                "name": "task_output", "arguments": { "task_id": "task-0@iA" },
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {},
                },
            },
        });
        let mut headers = vec![
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "task_output"),
        ];
        if let Some(value) = header {
            headers.push(("Mcp-Param-Ptc-Route", value));
        }
        mcp_support::serve::http(
            served.server.authority(),
            "POST",
            &headers,
            &body.to_string(),
        )
    };
    let agreeing = call(Some("task-0@iA"));
    assert!(
        agreeing.body.contains("no background task has the id"),
        "{agreeing:?}"
    );
    for header in [Some("task-1@iB"), None] {
        let refused = call(header);
        assert!(
            refused.body.contains("Mcp-Param-Ptc-Route"),
            "{header:?}: {refused:?}"
        );
        assert!(!refused.body.contains("no background task"), "{refused:?}");
    }
}
