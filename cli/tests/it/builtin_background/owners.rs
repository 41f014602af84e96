//! Owners: isolation between owners, and nothing surviving its owner: an ended owner, an
//! MCP session of `ptc serve` (HTTP), `ptc serve` itself (stdio end, SIGTERM, SIGKILL), and
//! `ptc run` (its end, SIGTERM).

use crate::mcp_support;

use std::process::{Command, Stdio};

use mcp_support::serve::{signal, HttpServer};
use mcp_support::{node_module, ptc_bin, root};
use ptc::Owner;
use serde_json::{json, Value};

use super::{assert_all_gone, await_marker, bash, marker, wait_until, with_marker, Bg};

/// A shell snippet that starts a process named `m` in the background and says `ready` once
/// the sandbox's own `/proc` shows it (the pattern does not match the snippet itself).
fn spawn_confirmed(m: &str) -> String {
    let (head, last) = m.split_at(m.len() - 1);
    format!(
        "(exec -a {m} sleep 1000) & until grep -qsa '{head}[{last}]' /proc/[0-9]*/cmdline; do \
         sleep 0.01; done; echo ready"
    )
}

#[tokio::test]
async fn owners_see_only_their_own_tasks_and_terminals() {
    let bg = Bg::new();
    let other = Owner::new("other");
    let task = bg.call("bash", bash("sleep 1000", true)).await;
    let task = task.value()["task_id"].as_str().unwrap().to_string();
    let term = bg.call("terminal_open", json!({"type": "sh"})).await;
    let term = term.value()["sessionId"].as_str().unwrap().to_string();
    for (tool, args) in [
        ("task_output", json!({"task_id": task})),
        ("task_kill", json!({"task_id": task})),
        (
            "terminal_send",
            json!({"sessionId": term, "text": "echo hi"}),
        ),
        ("terminal_read", json!({"sessionId": term})),
        (
            "terminal_signal",
            json!({"sessionId": term, "signal": "SIGINT"}),
        ),
        ("terminal_close", json!({"sessionId": term})),
    ] {
        let out = bg.call_as(&other, tool, args).await;
        assert!(
            out.error().contains("in this session"),
            "{tool}: {}",
            out.text()
        );
    }
    let tasks = bg.call_as(&other, "task_list", json!({})).await;
    assert_eq!(tasks.value()["tasks"], json!([]));
    let terms = bg.call_as(&other, "terminal_list", json!({})).await;
    assert_eq!(terms.value()["terminals"], json!([]));
    assert_eq!(bg.pack.tasks().list(&bg.owner).len(), 1);
    assert_eq!(bg.pack.terminals().list(&bg.owner).len(), 1);
    bg.owner.close().await;
}

#[tokio::test]
async fn an_ended_owner_takes_its_tasks_and_terminals_with_it() {
    let bg = Bg::new();
    let m = marker("owner-end");
    let task = bg
        .call(
            "bash",
            bash(&format!("{}; wait", spawn_confirmed(&m)), true),
        )
        .await;
    let id = task.value()["task_id"].as_str().unwrap().to_string();
    let out = bg
        .call(
            "task_output",
            json!({"task_id": id, "wait": true, "timeout_ms": 100}),
        )
        .await;
    let mut seen = out.value()["output"].as_str().unwrap().to_string();
    while !seen.contains("ready") {
        let out = bg.call("task_output", json!({"task_id": id})).await;
        seen.push_str(out.value()["output"].as_str().unwrap());
    }
    let term = bg.call("terminal_open", json!({"type": "bash"})).await;
    let term = term.value()["sessionId"].as_str().unwrap().to_string();
    let sent = bg
        .call(
            "terminal_send",
            json!({"sessionId": term, "text": spawn_confirmed(&m)}),
        )
        .await;
    assert!(
        sent.value()["output"]
            .as_str()
            .unwrap()
            .contains("\nready\n"),
        "{}",
        sent.text()
    );
    // The two sleepers, and the background command that names them.
    assert_eq!(with_marker(&m).len(), 3);
    bg.owner.close().await;
    assert!(
        with_marker(&m).is_empty(),
        "close waits until the processes are gone"
    );
    assert!(bg.pack.tasks().list(&bg.owner).is_empty());
    let refused = bg.call("bash", bash("true", true)).await;
    assert!(refused.error().contains("has ended"), "{}", refused.text());
}

#[tokio::test]
async fn dropping_the_pack_kills_the_work_of_calls_without_an_owner() {
    let bg = Bg::new();
    let m = marker("fallback");
    let input =
        ptc::ToolExecutionInput::new("c", "bash", bash(&format!("exec -a {m} sleep 1000"), true));
    let out = bg.registry.dispatch(input).await;
    assert!(!out.is_error());
    await_marker(&m);
    assert_eq!(bg.pack.tasks().list(bg.pack.owner()).len(), 1);
    drop(bg);
    assert_all_gone(&m);
}

/// `tests/mcp/sessions.mjs` with `plan`: one result per step.
fn sessions(plan: Value) -> Vec<Value> {
    node_module("@modelcontextprotocol/sdk/package.json");
    let out = Command::new("node")
        .arg(root().join("tests/mcp/sessions.mjs"))
        .arg(plan.to_string())
        .stderr(Stdio::inherit())
        .output()
        .expect("node runs");
    assert!(out.status.success(), "sessions.mjs failed");
    serde_json::from_slice(&out.stdout).expect("sessions.mjs prints JSON")
}

fn ok(result: &Value) -> &Value {
    assert_eq!(result["isError"], false, "{result}");
    &result["structured"]
}

/// Steps of session `s` that start a task and a terminal, each with a process named `m`.
fn start_work(s: &str, m: &str) -> Vec<Value> {
    let command = format!("{}; wait", spawn_confirmed(m));
    vec![
        json!({"session": s, "call": "bash", "save": "t", "args": bash(&command, true)}),
        json!({"session": s, "call": "task_output", "args": {"task_id": "{{t.task_id}}", "wait": true, "timeout_ms": 200}}),
        json!({"session": s, "call": "terminal_open", "save": "term", "args": {"type": "bash"}}),
        json!({"session": s, "call": "terminal_send", "args": {"sessionId": "{{term.sessionId}}", "text": spawn_confirmed(m)}}),
    ]
}

#[test]
fn serve_sessions_are_isolated_and_a_closed_session_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = HttpServer::start(dir.path(), &["--tools", "builtin", "--mode", "native"], &[]);
    let m = marker("session");
    let mut steps = start_work("a", &m);
    steps.extend([
        json!({"session": "b", "call": "task_list"}),
        json!({"session": "b", "call": "task_output", "args": {"task_id": "{{t.task_id}}"}}),
        json!({"session": "b", "call": "terminal_list"}),
        json!({"session": "b", "call": "terminal_send", "args": {"sessionId": "{{term.sessionId}}", "text": "echo hi"}}),
        json!({"session": "a", "call": "task_list"}),
        json!({"session": "a", "call": "terminal_list"}),
        json!({"session": "a", "end": true}),
        json!({"session": "b", "call": "task_list"}),
    ]);
    let results = sessions(json!({"http": server.url, "steps": steps}));
    assert!(ok(&results[3])["output"]
        .as_str()
        .unwrap()
        .contains("\nready\n"));
    assert_eq!(ok(&results[4])["tasks"], json!([]));
    assert_eq!(results[5]["isError"], true, "{}", results[5]);
    assert!(results[5]["text"]
        .as_str()
        .unwrap()
        .contains("no background task has the id"));
    assert_eq!(ok(&results[6])["terminals"], json!([]));
    assert_eq!(results[7]["isError"], true, "{}", results[7]);
    assert_eq!(ok(&results[8])["tasks"].as_array().unwrap().len(), 1);
    assert_eq!(ok(&results[9])["terminals"].as_array().unwrap().len(), 1);
    assert_eq!(ok(&results[11])["tasks"], json!([]));
    // Session a ended (DELETE): its task and terminal are gone, the server is up.
    assert_all_gone(&m);
    let mut server = server;
    assert!(server.is_up());
}

#[test]
fn serve_ending_kills_the_work_of_its_open_sessions() {
    for (how, m) in [
        ("TERM", marker("serve-term")),
        ("KILL", marker("serve-kill")),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let server =
            HttpServer::start(dir.path(), &["--tools", "builtin", "--mode", "native"], &[]);
        let results = sessions(json!({"http": server.url, "steps": start_work("a", &m)}));
        assert_eq!(ok(&results[2])["type"], "bash", "{how}");
        // The client only disconnected: its session, and its work, live on: the task's
        // `bash -c` and its `sleep`, and the terminal's `sleep` (on a loaded machine the
        // terminal may answer before its command says `ready`: look for the processes).
        wait_until(&format!("the three processes of {m}"), || {
            with_marker(&m).len() == 3
        });
        let pid = server.pid();
        if how == "TERM" {
            let (code, _) = server.terminate();
            assert_eq!(code, Some(0));
            // A graceful end also removed the private directories of its sandboxes.
            assert_eq!(sandbox_dirs(pid), Vec::<std::path::PathBuf>::new());
        } else {
            signal(pid, how);
            drop(server);
        }
        assert_all_gone(&m);
        // A killed server could not remove them.
        for dir in sandbox_dirs(pid) {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// The private directories of the sandboxes process `pid` made.
fn sandbox_dirs(pid: u32) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(&format!("ptc-bash-{pid}-"))
        })
        .map(|e| e.path())
        .collect()
}

#[test]
fn serve_over_stdio_kills_the_session_work_when_the_client_leaves() {
    let dir = tempfile::tempdir().unwrap();
    let root = mcp_support::serve::workspace(dir.path());
    let m = marker("stdio");
    let serve = [
        "serve",
        "--tools",
        "builtin",
        "--mode",
        "native",
        "--root",
        root.to_str().unwrap(),
    ];
    let results = sessions(json!({
        "stdio": {"command": ptc_bin(), "args": serve},
        "steps": start_work("a", &m),
    }));
    assert!(ok(&results[3])["output"]
        .as_str()
        .unwrap()
        .contains("\nready\n"));
    // The client closed stdin: the session, and ptc serve, ended.
    assert_all_gone(&m);
}

/// `ptc run --tools builtin` on `program` in a fresh workspace, as a child process.
fn ptc_run(dir: &std::path::Path, program: &str) -> std::process::Child {
    let root = dir.join("root");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(dir.join("program.ts"), program).unwrap();
    Command::new(ptc_bin())
        .args([
            "run",
            "--tools",
            "builtin",
            "--root",
            root.to_str().unwrap(),
        ])
        .arg(dir.join("program.ts"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ptc runs")
}

/// A program that starts a task and a terminal, each with a process named `m`, then
/// returns (or, with `wait`, waits on its task forever).
fn program(m: &str, wait: bool) -> String {
    format!(
        "const t = await tools.bash({{ command: {cmd:?}, description: 'start a sleeper', \
         run_in_background: true }});\n\
         let seen = '';\n\
         while (!seen.includes('ready')) seen += (await tools.task_output({{ task_id: t.task_id!, \
         wait: true, timeout_ms: 100 }})).output;\n\
         const term = await tools.terminal_open({{ type: 'bash' }});\n\
         const sent = await tools.terminal_send({{ sessionId: term.sessionId, text: {send:?} }});\n\
         if (!sent.output.includes('ready')) throw new Error(sent.output);\n\
         while ({wait}) await tools.task_output({{ task_id: t.task_id!, wait: true }});\n\
         return 'done';",
        cmd = format!("{}; wait", spawn_confirmed(m)),
        send = spawn_confirmed(m),
    )
}

#[test]
fn ptc_run_leaves_nothing_behind_when_it_ends_or_is_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let m = marker("run-end");
    let out = ptc_run(dir.path(), &program(&m, false))
        .wait_with_output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_all_gone(&m);

    let m = marker("run-term");
    let mut child = ptc_run(dir.path(), &program(&m, true));
    // Both processes run: the program waits on its task.
    super::wait_until("two sleepers and their command", || {
        with_marker(&m).len() == 3
    });
    signal(child.id(), "TERM");
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(143));
    assert_all_gone(&m);
}
