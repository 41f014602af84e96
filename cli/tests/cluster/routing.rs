//! Each of HAProxy's routing rules, seen from the official Python client.

use serde_json::{json, Value};

use crate::support::{instance, ok, parts, served_by, task_handle, text, Cluster, INSTANCES};

#[test]
fn three_instances_serve_300_calls_of_a_2026_07_28_client_without_an_error() {
    let Some(python) = parts() else { return };
    let cluster = Cluster::start(Some(python), &[], &[]);
    let steps: Vec<Value> = (0..300)
        .map(|n| json!({ "call": "echo", "args": { "text": format!("call {n}") } }))
        .collect();
    let results = cluster.client("auto", None, json!(steps));
    assert_eq!(results[0]["version"], "2026-07-28");
    for (n, result) in results[1..].iter().enumerate() {
        assert_eq!(ok(result), format!("call {n}"), "{result}");
    }
    let counts = served_by(&results[1..]);
    assert_eq!(
        counts.keys().collect::<Vec<_>>(),
        INSTANCES.iter().collect::<Vec<_>>(),
        "round-robin reaches every instance: {counts:?}"
    );
}

#[test]
fn a_task_started_in_one_run_code_is_read_in_a_later_one_through_the_balancer() {
    let Some(python) = parts() else { return };
    let cluster = Cluster::start(Some(python), &[], &[]);
    let start = "const r = await tools.bash({ command: 'echo hello-$((40 + 2))', \
                 description: 'greet', run_in_background: true }); return r.task_id;";
    let read = "const o = await tools.task_output({ task_id: '${task}', wait: true, \
                timeout_ms: 20000 }); return o.output;";
    // Three times: round-robin alone would reach the task's instance by luck 1 time in 27.
    let steps: Vec<Value> = (0..3)
        .flat_map(|_| {
            [
                json!({ "call": "run_code", "args": { "code": start, "description": "start" },
                        "capture": { "task": "(task-[0-9a-f]{32}@i[0-9]+)" } }),
                json!({ "call": "run_code",
                        "args": { "code": read, "description": "read", "route": "${task}" } }),
            ]
        })
        .collect();
    let results = cluster.client("auto", None, json!(steps));
    for pair in results[1..].chunks(2) {
        let task = task_handle(ok(&pair[0]));
        assert!(ok(&pair[1]).contains("hello-42"), "{}", pair[1]);
        let holder = task.rsplit_once('@').unwrap().1;
        assert_eq!(instance(&pair[0]), holder, "{}", pair[0]);
        assert_eq!(
            instance(&pair[1]),
            holder,
            "routed by the handle: {}",
            pair[1]
        );
    }
}

#[test]
fn an_approval_retry_reaches_the_instance_that_holds_the_waiting_run() {
    let Some(python) = parts() else { return };
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("ptc.toml");
    std::fs::write(
        &config,
        "[[policy]]\ntool = \"add\"\naction = \"ask\"\nreason = \"adding needs a person\"\n",
    )
    .unwrap();
    let cluster = Cluster::start(Some(python), &[], &["--config", config.to_str().unwrap()]);
    // Each call returns input_required from one instance; the client retries with the
    // answer and the requestState, which only that instance can open.
    let steps: Vec<Value> = (0..4)
        .map(|n| json!({ "call": "add", "args": { "a": n, "b": 1 } }))
        .chain([json!({ "elicitations": true })])
        .collect();
    let results = cluster.client("auto", Some(json!("allow_once")), json!(steps));
    assert_eq!(results[0]["version"], "2026-07-28");
    for (n, result) in results[1..5].iter().enumerate() {
        assert_eq!(ok(result), (n + 1).to_string(), "{result}");
    }
    let asked = results[5].as_array().unwrap();
    assert_eq!(asked.len(), 4, "one question per call: {asked:?}");
}

#[test]
fn a_legacy_session_sticks_to_the_instance_that_opened_it() {
    let Some(python) = parts() else { return };
    let cluster = Cluster::start(Some(python), &[], &[]);
    let mut steps: Vec<Value> = (0..12)
        .map(|n| json!({ "call": "echo", "args": { "text": format!("call {n}") } }))
        .collect();
    steps.push(json!({ "call": "bash", "args": { "command": "sleep 30",
        "description": "wait", "run_in_background": true } }));
    steps.push(json!({ "call": "task_list" }));
    let results = cluster.client("legacy", None, json!(steps));
    assert_eq!(results[0]["version"], "2025-11-25");
    let counts = served_by(&results[1..]);
    assert_eq!(
        counts.len(),
        1,
        "one instance serves the session: {counts:?}"
    );
    // The session's task is listed: the list ran where the session lives.
    let task = task_handle(ok(&results[13]));
    assert!(text(&results[14]).contains(&task), "{}", results[14]);
}
