//! `kill -9` of one instance behind HAProxy.
//!
//! What a client sees: a request sent after the kill never fails (HAProxy's connection to the
//! dead instance is refused, so it marks the instance down and sends the request to another:
//! nothing reached the dead one). A request already in flight on the killed instance, or
//! reaching it while the kernel tears the process down, fails once (HAProxy answers 502 and
//! does not resend it: a tool call may have had effects; the Python client raises
//! `MCPError`); calls after that succeed on the others. A handle
//! that lived on the dead instance gets the clear error from whichever instance the request
//! reaches.

use std::time::{Duration, Instant};

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

#[test]
fn a_call_in_flight_on_an_instance_killed_fails_once_and_later_calls_succeed() {
    let Some(python) = parts() else { return };
    let cluster = Cluster::start(Some(python), &["--keep-going"], &[]);
    // `route` pins the run to i2 (a handle that names it); the run says it started through
    // the shared workspace, then waits.
    let code = "await tools.write({ file_path: 'started', content: 'yes' }); \
                await tools.sleep({ ms: 30000 }); return 'finished';";
    let route = format!("task-{}@i2", "0".repeat(32));
    let client = cluster.spawn_client(
        "auto",
        None,
        json!([
            // The client mirrors `route` into the header only for tools it has listed, and
            // lists them at its first call.
            { "call": "echo", "args": { "text": "before" } },
            { "call": "run_code", "args": { "code": code, "description": "wait", "route": route } },
        ]),
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    while !cluster.root.join("started").exists() {
        assert!(Instant::now() < deadline, "the run never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid = cluster.pid("i2");
    // SAFETY: kill(2) on an instance the cluster script started for this test.
    assert_eq!(unsafe { libc::kill(pid as i32, libc::SIGKILL) }, 0);
    let results = client.join().expect("the client ran");
    // The call in flight fails: HAProxy answers 502 and does not resend it (it may have had
    // effects); the Python client raises "MCPError: Server returned an error response".
    let failed = &results[2];
    let error = failed["error"].as_str().unwrap_or_default();
    assert!(error.starts_with("MCPError"), "{failed}");
    // Once the process is gone (a request that reaches it while it is torn down fails the
    // same way), every call succeeds on the others.
    cluster.wait_for_log(&format!("instance i2 (pid {pid}) exited"));
    let steps: Vec<Value> = (0..6)
        .map(|n| json!({ "call": "echo", "args": { "text": format!("after {n}") } }))
        .collect();
    let after = cluster.client("auto", None, json!(steps));
    for (n, result) in after[1..].iter().enumerate() {
        assert_eq!(ok(result), format!("after {n}"), "{result}");
    }
    assert!(!served_by(&after[1..]).contains_key("i2"));
}
