//! Background `bash` tasks and `task_list`, `task_output`, `task_kill`.

use std::time::Duration;

use serde_json::json;

use super::{assert_all_gone, await_marker, bash, marker, wait_until, Bg};

/// Start `command` in the background; its task id.
async fn start(bg: &Bg, command: &str) -> String {
    let started = bg.call("bash", bash(command, true)).await;
    let id = started.value()["task_id"].as_str().unwrap().to_string();
    assert!(started.text().contains(&id), "{}", started.text());
    id
}

#[tokio::test]
async fn task_starts_at_once_and_its_output_and_exit_status_are_read() {
    let bg = Bg::new();
    let id = start(&bg, "echo one; echo err >&2; sleep 0.2; echo two; exit 3").await;
    let out = bg
        .call("task_output", json!({"task_id": id, "wait": true}))
        .await;
    let v = out.value();
    assert_eq!(v["output"], "one\nerr\ntwo\n");
    assert_eq!(v["state"], "exited");
    assert_eq!(v["exit_code"], 3);
    assert!(
        out.text().ends_with("two\n[status: exited with code 3]"),
        "{}",
        out.text()
    );
    let list = bg.call("task_list", json!({})).await;
    let tasks = list.value()["tasks"].as_array().unwrap().clone();
    assert_eq!(tasks.len(), 1);
    assert_eq!(tasks[0]["task_id"], id.as_str());
    assert_eq!(tasks[0]["description"], "test command");
    assert_eq!(tasks[0]["unread_bytes"], 0);
    assert!(
        list.text().contains("exited with code 3"),
        "{}",
        list.text()
    );
}

#[tokio::test]
async fn task_output_returns_only_what_arrived_since_the_last_read() {
    let bg = Bg::new();
    let id = start(
        &bg,
        "echo first; while [ ! -e go ]; do sleep 0.01; done; echo second",
    )
    .await;
    let mut first = String::new();
    while !first.contains("first") {
        let out = bg.call("task_output", json!({"task_id": id})).await;
        assert_eq!(out.value()["state"], "running", "{}", out.text());
        assert!(out.text().ends_with("[status: running]"), "{}", out.text());
        first.push_str(out.value()["output"].as_str().unwrap());
    }
    assert_eq!(first, "first\n");
    let again = bg.call("task_output", json!({"task_id": id})).await;
    assert_eq!(again.value()["output"], "");
    assert!(
        again.text().starts_with("(no new output)"),
        "{}",
        again.text()
    );
    std::fs::write(bg.root.join("go"), "").unwrap();
    let rest = bg
        .call("task_output", json!({"task_id": id, "wait": true}))
        .await;
    assert_eq!(rest.value()["output"], "second\n");
    assert_eq!(rest.value()["exit_code"], 0);
}

#[tokio::test]
async fn task_output_wait_times_out_leaving_the_task_running_and_is_capped() {
    let bg = Bg::with(|ctx| ctx.tasks.max_wait = Duration::from_millis(300));
    let m = marker("wait");
    let id = start(&bg, &format!("exec -a {m} sleep 1000")).await;
    await_marker(&m);
    let out = bg
        .call(
            "task_output",
            json!({"task_id": id, "wait": true, "timeout_ms": 50}),
        )
        .await;
    let v = out.value();
    assert_eq!(v["state"], "running");
    assert!(v["waited_ms"].as_u64().unwrap() >= 50, "{v}");
    assert!(v.get("wait_capped_ms").is_none());
    let capped = bg
        .call(
            "task_output",
            json!({"task_id": id, "wait": true, "timeout_ms": 1e9}),
        )
        .await;
    assert_eq!(capped.value()["wait_capped_ms"], 300);
    assert!(capped.value()["waited_ms"].as_u64().unwrap() >= 300);
    assert!(
        capped.text().starts_with("[wait capped at 300 ms]"),
        "{}",
        capped.text()
    );
    assert!(capped.text().ends_with("[status: running]"));
    assert!(
        !super::with_marker(&m).is_empty(),
        "the wait killed nothing"
    );
    let kill = bg.call("task_kill", json!({"task_id": id})).await;
    assert_eq!(kill.value()["killed"], true);
    let end = bg
        .call("task_output", json!({"task_id": id, "wait": true}))
        .await;
    assert_eq!(end.value()["state"], "killed");
    assert!(
        end.text().ends_with("[status: killed by SIGTERM]"),
        "{}",
        end.text()
    );
    assert_all_gone(&m);
}

#[tokio::test]
async fn task_kill_sends_sigterm_then_sigkill_and_records_the_reason() {
    let bg = Bg::new();
    // Cleans up on SIGTERM.
    let polite = start(
        &bg,
        "trap 'echo bye; exit 0' TERM; echo ready; while :; do sleep 0.01; done",
    )
    .await;
    // Ignores SIGTERM.
    let m = marker("stubborn");
    let stubborn = start(
        &bg,
        &format!("trap '' TERM; echo ready; exec -a {m} sleep 1000"),
    )
    .await;
    for id in [&polite, &stubborn] {
        let mut seen = String::new();
        while !seen.contains("ready") {
            let out = bg.call("task_output", json!({"task_id": id})).await;
            seen.push_str(out.value()["output"].as_str().unwrap());
        }
    }
    await_marker(&m);
    let kill = bg
        .call(
            "task_kill",
            json!({"task_id": polite, "reason": "tests are over"}),
        )
        .await;
    assert_eq!(kill.value()["killed"], true);
    assert!(kill.text().contains("Kill requested"), "{}", kill.text());
    let end = bg
        .call("task_output", json!({"task_id": polite, "wait": true}))
        .await;
    // bash may also report its SIGTERM'd `sleep` ("Terminated"), on stderr.
    assert!(
        end.value()["output"].as_str().unwrap().contains("bye\n"),
        "{}",
        end.text()
    );
    assert_eq!(end.value()["state"], "killed");
    assert!(
        end.text().ends_with(
            "[status: killed: exited with code 0 after SIGTERM (reason: tests are over)]"
        ),
        "{}",
        end.text()
    );
    // It ignores SIGTERM: until SIGKILL comes, task_kill and task_output agree it is stopping.
    let kill = bg.call("task_kill", json!({"task_id": stubborn})).await;
    assert_eq!(kill.value()["killed"], true);
    assert_eq!(kill.value()["state"], "stopping", "{}", kill.text());
    let now = bg.call("task_output", json!({"task_id": stubborn})).await;
    let state = now.value()["state"].as_str().unwrap().to_string();
    assert!(state == "stopping" || state == "killed", "{}", now.text());
    let end = bg
        .call("task_output", json!({"task_id": stubborn, "wait": true}))
        .await;
    assert_eq!(end.value()["signal"], "SIGKILL", "{}", end.text());
    assert_all_gone(&m);
    let again = bg.call("task_kill", json!({"task_id": stubborn})).await;
    assert_eq!(again.value()["killed"], false);
    assert!(again.text().contains("had already ended"));
}

#[tokio::test]
async fn task_output_keeps_the_newest_bytes_and_says_how_many_were_dropped() {
    let bg = Bg::with(|ctx| ctx.tasks.max_output_bytes = 1000);
    let id = start(&bg, "head -c 4000 /dev/zero | tr '\\0' a; echo; echo end").await;
    let out = bg
        .call("task_output", json!({"task_id": id, "wait": true}))
        .await;
    let v = out.value();
    assert_eq!(v["dropped_bytes"], 4005 - 1000);
    assert_eq!(v["output"].as_str().unwrap().len(), 1000);
    assert!(v["output"].as_str().unwrap().ends_with("aaa\nend\n"));
    assert!(
        out.text()
            .starts_with("[3005 bytes of output were dropped before this read"),
        "{}",
        out.text()
    );
}

#[tokio::test]
async fn tasks_are_capped_per_owner_and_finished_ones_make_room() {
    let bg = Bg::with(|ctx| ctx.tasks.max_tasks = 2);
    let m = marker("cap");
    let a = start(&bg, &format!("exec -a {m} sleep 1000")).await;
    let b = start(&bg, "while [ ! -e go ]; do sleep 0.01; done").await;
    let refused = bg.call("bash", bash("true", true)).await;
    assert!(refused.error().contains("at most 2"), "{}", refused.text());
    std::fs::write(bg.root.join("go"), "").unwrap();
    bg.call("task_output", json!({"task_id": b, "wait": true}))
        .await
        .value();
    let c = start(&bg, "true").await;
    let ids: Vec<String> = bg.call("task_list", json!({})).await.value()["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["task_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, [a.clone(), c]);
    bg.call("task_kill", json!({"task_id": a})).await.value();
    assert_all_gone(&m);
}

#[tokio::test]
async fn background_commands_run_in_the_sandbox_of_bash() {
    let bg = Bg::new();
    let outside = bg.root.parent().unwrap().join("outside.txt");
    let id = start(
        &bg,
        &format!("echo inside > inside.txt && echo x > {}", outside.display()),
    )
    .await;
    let out = bg
        .call("task_output", json!({"task_id": id, "wait": true}))
        .await;
    assert_eq!(out.value()["exit_code"], 1, "{}", out.text());
    assert!(
        out.text()
            .contains("[sandbox: file access denied under workspace-write mode]"),
        "{}",
        out.text()
    );
    assert!(bg.root.join("inside.txt").exists());
    assert!(!outside.exists());
}

#[tokio::test]
async fn task_tools_reject_unknown_ids() {
    let bg = Bg::new();
    for tool in ["task_output", "task_kill"] {
        let out = bg.call(tool, json!({"task_id": "task-000000000000"})).await;
        assert!(
            out.error().contains("no background task has the id"),
            "{}",
            out.text()
        );
    }
    let list = bg.call("task_list", json!({})).await;
    assert_eq!(list.text(), "No background tasks.");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_outlives_its_run_and_the_next_run_reads_it() {
    let bg = Bg::new();
    let m = marker("runs");
    let first = bg
        .run(&format!(
            "const t = await tools.bash({{ command: 'echo started; while [ ! -e go ]; do sleep \
             0.01; done; echo finished; exec -a {m} sleep 1000', description: 'wait for go', \
             run_in_background: true }});\n\
             let seen = '';\n\
             while (!seen.includes('started')) seen += (await tools.task_output({{ task_id: \
             t.task_id! }})).output;\n\
             return t.task_id;"
        ))
        .await;
    // The task id, then the note that its output was read while it still ran.
    let text = first.value().as_str().unwrap();
    assert!(
        text.contains("[cut short]") && text.contains("the task is still running"),
        "{text}"
    );
    let id = text.lines().next().unwrap().to_string();
    std::fs::write(bg.root.join("go"), "").unwrap();
    await_marker(&m);
    let second = bg
        .run(&format!(
            "const r = await tools.task_output({{ task_id: {id:?}, wait: true, timeout_ms: 100 }});\n\
             return [r.output, r.state];"
        ))
        .await;
    assert_eq!(second.json(), json!(["finished\n", "running"]));
    bg.owner.close().await;
    assert_all_gone(&m);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_timeout_ends_a_task_output_wait() {
    let mut code = ptc::CodeConfig::default();
    code.limits.wall_clock = Duration::from_millis(300);
    // A wait far beyond the test's patience: only the run's end can stop it.
    let bg = Bg::with_code(|ctx| ctx.tasks.max_wait = Duration::from_secs(3600), code);
    let m = marker("timeout");
    let run = bg
        .run(&format!(
            "const t = await tools.bash({{ command: 'exec -a {m} sleep 1000', description: \
             'sleep', run_in_background: true }});\n\
             await tools.task_output({{ task_id: t.task_id!, wait: true }});\n\
             return 'waited';"
        ))
        .await;
    assert!(run.0.is_error(), "{}", run.text());
    assert!(run.text().contains("300"), "{}", run.text());
    // The task belongs to the owner, not to the run: it is still there.
    await_marker(&m);
    wait_until("the task listed as running", || {
        bg.pack.tasks().list(&bg.owner)[0].status == "running"
    });
    bg.owner.close().await;
    assert_all_gone(&m);
}
