//! Terminals: `bash -i` and `python3 -i` keeping state across sends and runs, Ctrl-C and
//! signals, reads with a wait, background sends, closing, caps and timeouts, the sandbox.

use std::time::Duration;

use serde_json::{json, Value};

use super::{assert_all_gone, await_marker, marker, wait_until, Bg};

/// Open a terminal of `kind`; its id and answer.
async fn open(bg: &Bg, kind: &str) -> (String, Value) {
    let out = bg.call("terminal_open", json!({"type": kind})).await;
    let v = out.value().clone();
    assert_eq!(v["state"], "running", "{}", out.text());
    (v["sessionId"].as_str().unwrap().to_string(), v)
}

/// Send `text` (with Enter) and return the answer.
async fn send(bg: &Bg, id: &str, text: &str) -> Value {
    let out = bg
        .call("terminal_send", json!({"sessionId": id, "text": text}))
        .await;
    out.value().clone()
}

#[tokio::test]
async fn bash_terminal_keeps_its_state_across_sends() {
    let bg = Bg::new();
    let (id, opened) = open(&bg, "bash").await;
    assert!(
        matches!(opened["until"].as_str(), Some("prompt" | "input")),
        "{opened}"
    );
    let first = send(&bg, &id, "cd sub && GREETING=hello").await;
    assert!(
        matches!(first["until"].as_str(), Some("prompt" | "input")),
        "{first}"
    );
    let second = send(&bg, &id, "echo \"$GREETING from $(basename $PWD)\"").await;
    assert!(
        second["output"]
            .as_str()
            .unwrap()
            .contains("\nhello from sub\n"),
        "{second}"
    );
    let out = bg
        .call("terminal_send", json!({"sessionId": id, "text": "echo $$"}))
        .await;
    assert!(out.text().ends_with("[status: running]"), "{}", out.text());
    // PID 1 of its namespace is ptc's init; the shell is its child.
    assert!(
        out.value()["output"].as_str().unwrap().contains("\n2\n"),
        "{}",
        out.text()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_terminal_keeps_its_state_across_sends_and_runs() {
    let bg = Bg::new();
    let first = bg
        .run(
            "const t = await tools.terminal_open({ type: 'python', name: 'repl' });\n\
             const r = await tools.terminal_send({ sessionId: t.sessionId, text: 'x = 41' });\n\
             return [t.sessionId, t.output, r.until];",
        )
        .await;
    let v = first.json();
    assert!(v[1].as_str().unwrap().ends_with(">>> "), "{v}");
    assert_eq!(v[2], "prompt");
    let id = v[0].as_str().unwrap();
    let second = bg
        .run(&format!(
            "const r = await tools.terminal_send({{ sessionId: {id:?}, text: 'print(x + 1)' }});\n\
             return r.output;"
        ))
        .await;
    assert_eq!(second.value(), "print(x + 1)\n42\n>>> ");
    let list = bg.call("terminal_list", json!({})).await;
    let entry = &list.value()["terminals"][0];
    assert_eq!(entry["name"], "repl");
    assert_eq!(entry["type"], "python");
}

#[tokio::test]
async fn ctrl_c_and_sigint_reach_the_foreground_job() {
    let bg = Bg::new();
    let (id, _) = open(&bg, "python").await;
    let busy = bg
        .call(
            "terminal_send",
            json!({"sessionId": id, "text": "while True: pass\n", "submit": true}),
        )
        .await;
    assert_eq!(busy.value()["state"], "running");
    let ctrl_c = bg
        .call(
            "terminal_send",
            json!({"sessionId": id, "text": "\u{3}", "submit": false}),
        )
        .await;
    let out = ctrl_c.value()["output"].as_str().unwrap().to_string();
    assert!(out.contains("KeyboardInterrupt"), "{out}");
    assert!(out.ends_with(">>> "), "{out}");
    // The REPL survived: its state is intact.
    assert!(send(&bg, &id, "y = 1; y + 1").await["output"]
        .as_str()
        .unwrap()
        .contains("\n2\n"));
    let sleeping = bg
        .call(
            "terminal_send",
            json!({"sessionId": id, "text": "import time; time.sleep(1000)", "run_in_background": true}),
        )
        .await;
    let task = sleeping.value()["task_id"].as_str().unwrap().to_string();
    // Ready when a python is in its sleep (clock_nanosleep or nanosleep on x86_64): a SIGINT
    // before it read the line would interrupt the prompt, and the sleep would run on.
    wait_until("python sleeping", || {
        bg.pack.tasks().list(&bg.owner)[0].status == "running" && python_sleeping()
    });
    let sig = bg
        .call(
            "terminal_signal",
            json!({"sessionId": id, "signal": "SIGINT"}),
        )
        .await;
    assert!(sig.text().starts_with("Sent SIGINT to"), "{}", sig.text());
    let done = bg
        .call("task_output", json!({"task_id": task, "wait": true}))
        .await;
    let v = done.value();
    assert!(
        v["output"].as_str().unwrap().contains("KeyboardInterrupt"),
        "{v}"
    );
    // Cleaned as a terminal read is: no carriage returns, no escape sequences.
    assert!(
        !v["output"].as_str().unwrap().contains(['\r', '\u{1b}']),
        "{v}"
    );
    assert_eq!(v["state"], "done", "{v}");
}

#[tokio::test]
async fn terminal_read_waits_for_new_output_and_pages_back() {
    let bg = Bg::new();
    let (id, _) = open(&bg, "bash").await;
    send(&bg, &id, "for i in 1 2 3 4 5; do echo line$i; done").await;
    let nothing = bg.call("terminal_read", json!({"sessionId": id})).await;
    assert_eq!(nothing.value()["output"], "");
    assert_eq!(nothing.value()["until"], "none");
    send(&bg, &id, "(sleep 0.3; echo later) &").await;
    let later = bg
        .call(
            "terminal_read",
            json!({"sessionId": id, "wait": true, "timeout_ms": 60000}),
        )
        .await;
    let v = later.value();
    assert!(v["output"].as_str().unwrap().contains("later"), "{v}");
    assert_eq!(v["until"], "output");
    let page = bg
        .call(
            "terminal_read",
            json!({"sessionId": id, "offset": 0, "count": 1}),
        )
        .await;
    assert_eq!(page.value()["lines"], 0);
    let back = bg
        .call(
            "terminal_read",
            json!({"sessionId": id, "offset": 1, "count": 5}),
        )
        .await;
    let text = back.value()["output"].as_str().unwrap().to_string();
    assert!(text.contains("line5\n"), "{text}");
    assert_eq!(back.value()["lines"], 5);
    let timed_out = bg
        .call(
            "terminal_read",
            json!({"sessionId": id, "wait": true, "timeout_ms": 50}),
        )
        .await;
    assert_eq!(timed_out.value()["until"], "timeout");
}

#[tokio::test]
async fn terminal_signal_spares_the_shell_but_kills_a_foreground_job() {
    let bg = Bg::new();
    let (id, _) = open(&bg, "bash").await;
    let refused = bg
        .call(
            "terminal_signal",
            json!({"sessionId": id, "signal": "SIGQUIT"}),
        )
        .await;
    assert!(
        refused.error().contains("use terminal_close"),
        "{}",
        refused.text()
    );
    let m = marker("job");
    let started = bg
        .call(
            "terminal_send",
            json!({"sessionId": id, "text": format!("bash -c 'exec -a {m} sleep 1000'"), "run_in_background": true}),
        )
        .await;
    let task = started.value()["task_id"].as_str().unwrap().to_string();
    assert!(started.text().contains(&task), "{}", started.text());
    await_marker(&m);
    let killed = bg
        .call(
            "terminal_signal",
            json!({"sessionId": id, "signal": "SIGINT"}),
        )
        .await;
    assert_eq!(killed.value()["shell"], false);
    assert_all_gone(&m);
    let done = bg
        .call("task_output", json!({"task_id": task, "wait": true}))
        .await;
    assert!(
        done.text().contains("[status: done: the terminal waits"),
        "{}",
        done.text()
    );
    assert!(send(&bg, &id, "echo alive").await["output"]
        .as_str()
        .unwrap()
        .contains("\nalive\n"));
}

#[tokio::test]
async fn terminal_close_ends_every_process_and_forgets_the_terminal() {
    let bg = Bg::new();
    let (id, _) = open(&bg, "bash").await;
    let m = marker("close");
    send(
        &bg,
        &id,
        &format!("(exec -a {m} sleep 1000) & setsid bash -c 'exec -a {m} sleep 1000' &"),
    )
    .await;
    wait_until("both sleepers", || super::with_marker(&m).len() == 2);
    let closed = bg.call("terminal_close", json!({"sessionId": id})).await;
    assert_eq!(closed.value()["gone"], true);
    assert_eq!(closed.value()["status"], "closed: closed by terminal_close");
    assert!(super::with_marker(&m).is_empty());
    assert_eq!(
        bg.call("terminal_list", json!({})).await.text(),
        "No terminals."
    );
    let gone = bg
        .call("terminal_send", json!({"sessionId": id, "text": "x"}))
        .await;
    assert!(
        gone.error().contains("no terminal has the id"),
        "{}",
        gone.text()
    );
}

#[tokio::test]
async fn a_shell_that_exits_is_reported_with_its_code() {
    let bg = Bg::new();
    let (id, _) = open(&bg, "sh").await;
    let out = send(&bg, &id, "exit 7").await;
    assert_eq!(out["until"], "exit", "{out}");
    assert_eq!(out["exit_code"], 7);
    let again = bg
        .call("terminal_send", json!({"sessionId": id, "text": "x"}))
        .await;
    assert!(
        again.error().contains("exited with code 7"),
        "{}",
        again.text()
    );
}

#[tokio::test]
async fn idle_and_old_terminals_are_closed() {
    let bg = Bg::with(|ctx| ctx.terminals.idle_timeout = Duration::from_millis(200));
    let m = marker("idle");
    let (id, _) = open(&bg, "bash").await;
    send(&bg, &id, &format!("(exec -a {m} sleep 1000) &")).await;
    await_marker(&m);
    wait_until("the idle terminal closed", || {
        bg.pack.terminals().list(&bg.owner)[0]
            .status
            .starts_with("closed: idle for 200 ms")
    });
    assert_all_gone(&m);
    let bg = Bg::with(|ctx| ctx.terminals.max_lifetime = Duration::from_millis(300));
    let opened = bg.call("terminal_open", json!({"type": "sh"})).await;
    let id = opened.value()["sessionId"].as_str().unwrap().to_string();
    while bg.pack.terminals().list(&bg.owner)[0].status == "running" {
        // Being used does not keep it open past its lifetime.
        bg.call(
            "terminal_read",
            json!({"sessionId": id, "wait": true, "timeout_ms": 50}),
        )
        .await;
    }
    assert_eq!(
        bg.pack.terminals().list(&bg.owner)[0].status,
        "closed: open for 300 ms (max_lifetime_ms)"
    );
}

#[tokio::test]
async fn terminals_are_capped_and_their_scrollback_drops_the_oldest() {
    let bg = Bg::with(|ctx| {
        ctx.terminals.max_terminals = 1;
        ctx.terminals.scrollback_bytes = 2000;
    });
    let (id, _) = open(&bg, "bash").await;
    let refused = bg.call("terminal_open", json!({"type": "sh"})).await;
    assert!(
        refused.error().contains("at most 1 terminals"),
        "{}",
        refused.text()
    );
    let unknown = bg.call("terminal_open", json!({"type": "cobol"})).await;
    assert!(
        unknown.error().contains(
            r#"/type: expected one of "shell", "bash", "sh", "python", "node", got "cobol""#
        ),
        "{}",
        unknown.text()
    );
    let out = send(
        &bg,
        &id,
        "head -c 5000 /dev/zero | tr '\\0' a; echo; echo end",
    )
    .await;
    assert!(out["dropped_bytes"].as_u64().unwrap() > 3000, "{out}");
    assert!(out["output"].as_str().unwrap().contains("\nend\n"), "{out}");
}

#[tokio::test]
async fn terminals_run_in_the_sandbox_of_bash() {
    let bg = Bg::new();
    let (id, _) = open(&bg, "bash").await;
    let outside = bg.root.parent().unwrap().join("outside.txt");
    let out = send(
        &bg,
        &id,
        &format!(
            "echo in > inside.txt; echo x > {}; echo rc=$?",
            outside.display()
        ),
    )
    .await;
    let text = out["output"].as_str().unwrap();
    assert!(text.contains("Permission denied"), "{text}");
    assert!(text.contains("rc=1"), "{text}");
    assert!(bg.root.join("inside.txt").exists());
    assert!(!outside.exists());
}

/// Whether some python process is blocked in `time.sleep` (x86_64: clock_nanosleep or nanosleep).
fn python_sleeping() -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    entries.flatten().any(|entry| {
        let comm = std::fs::read_to_string(entry.path().join("comm")).unwrap_or_default();
        let syscall = std::fs::read_to_string(entry.path().join("syscall")).unwrap_or_default();
        comm.starts_with("python") && (syscall.starts_with("230 ") || syscall.starts_with("35 "))
    })
}

#[tokio::test]
async fn a_send_that_returns_on_silence_while_its_command_runs_says_it_is_still_running() {
    let bg = Bg::new();
    let run = bg
        .run(
            "const { sessionId } = await tools.terminal_open({ type: \"bash\" });\n\
             const quick = await tools.terminal_send({ sessionId, text: \"echo ready\" });\n\
             const slow = await tools.terminal_send({ sessionId, text: \"sleep 60\" });\n\
             await tools.terminal_send({ sessionId, text: \"\\u0003\", submit: false });\n\
             return [quick.until, slow.until];",
        )
        .await;
    let text = run.text();
    assert!(
        text.starts_with("[\n  \"prompt\",\n  \"silence\"\n]"),
        "{text}"
    );
    let note = "terminal_send: the command is still running (2 s of silence is not its end): \
                read the rest with terminal_read (wait: true) before sending more";
    assert_eq!(text.matches(note).count(), 1, "{text}");
    assert!(text.contains(&format!("run_code.ts:3:26 {note}")), "{text}");
}

#[tokio::test]
async fn terminal_read_in_a_program_returns_all_unread_output_and_says_what_a_page_left_out() {
    let bg = Bg::new();
    // Each send runs in the background; task_output waits until the terminal waits for input
    // again, and the rows are then unread in the terminal.
    let run = bg
        .run(
            "const { sessionId } = await tools.terminal_open({ type: \"bash\" });\n\
             const rows = async (count) => {\n\
               const { task_id } = await tools.terminal_send({ sessionId, text: \"seq 1 3000\", run_in_background: true });\n\
               await tools.task_output({ task_id, wait: true });\n\
               const r = await tools.terminal_read(count ? { sessionId, count } : { sessionId });\n\
               return r.output.split(\"\\n\").filter(l => /^\\d+\\r?$/.test(l)).length;\n\
             };\n\
             const all = await rows();\n\
             const paged = await rows(1000);\n\
             // The newest 1,000 lines end with the prompt's.\n\
             return [all, paged >= 998 && paged <= 1000];",
        )
        .await;
    let text = run.text();
    assert!(text.starts_with("[\n  3000,\n  true\n]"), "{text}");
    // Only the page of 1,000 left lines out; the unread rows that preceded it count as read.
    assert_eq!(text.matches("[cut short]").count(), 1, "{text}");
    assert!(
        text.contains(
            "older unread lines were left out of this page of the newest 1,000: they \
             count as read (read them with offset: 1000,"
        ),
        "{text}"
    );
}

#[tokio::test]
async fn a_send_whose_output_outran_the_scrollback_says_so_in_a_program() {
    let bg = Bg::with(|ctx| ctx.terminals.scrollback_bytes = 4096);
    let run = bg
        .run(
            "const { sessionId } = await tools.terminal_open({ type: \"bash\" });\n\
             const r = await tools.terminal_send({ sessionId, text: \"seq 1 5000\" });\n\
             return r.dropped_bytes > 0;",
        )
        .await;
    let text = run.text();
    assert!(text.starts_with("true"), "{text}");
    assert!(
        text.contains("run_code.ts:2:23 terminal_send: ")
            && text.contains(
                "bytes of output were dropped before they were read: a terminal keeps only its \
             newest output"
            ),
        "{text}"
    );
}
