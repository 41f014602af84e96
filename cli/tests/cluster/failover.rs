//! `kill -9` of one instance behind HAProxy.
//!
//! What a client sees: a request sent after the kill never fails (HAProxy's connection to the
//! dead instance is refused, so it marks the instance down and sends the request to another:
//! nothing reached the dead one). A request already in flight on the killed instance fails
//! once with 502 and is not retried by HAProxy (a tool call may have side effects); that race
//! is not provoked here. A handle that lived on the dead instance gets the clear error from
//! whichever instance the request reaches.

use serde_json::{json, Value};

use crate::support::{ok, parts, served_by, task_handle, text, Cluster};

#[test]
fn after_kill_9_of_one_instance_calls_succeed_and_its_handles_say_where_they_lived() {
    let Some(python) = parts() else { return };
    // --keep-going: the script leaves a dead instance out rather than stopping everything.
    let cluster = Cluster::start(Some(python), &["--keep-going"], &[]);
    let started = cluster.client(
        "auto",
        None,
        json!([{ "call": "bash", "args": { "command": "echo started", "description": "start",
                 "run_in_background": true } }]),
    );
    let task = task_handle(ok(&started[1]));
    let dead = task.rsplit_once('@').unwrap().1.to_string();
    let pid = cluster.pid(&dead);
    // SAFETY: kill(2) on an instance the cluster script started for this test.
    assert_eq!(unsafe { libc::kill(pid as i32, libc::SIGKILL) }, 0);
    cluster.wait_for_log(&format!("instance {dead} (pid {pid}) exited"));

    let mut steps: Vec<Value> = (0..30)
        .map(|n| json!({ "call": "echo", "args": { "text": format!("call {n}") } }))
        .collect();
    steps.push(json!({ "call": "task_output", "args": { "task_id": task } }));
    let results = cluster.client("auto", None, json!(steps));
    for (n, result) in results[1..31].iter().enumerate() {
        assert_eq!(ok(result), format!("call {n}"), "{result}");
    }
    let counts = served_by(&results[1..31]);
    assert!(!counts.contains_key(&dead), "{counts:?}");
    assert_eq!(counts.len(), 2, "the other two share the calls: {counts:?}");
    let missed = &results[31];
    assert_eq!(missed["isError"], true, "{missed}");
    assert!(
        text(missed).contains(&format!("lives on instance {dead}; this request reached i")),
        "{missed}"
    );
}
