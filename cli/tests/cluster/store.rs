//! One PostgreSQL run store for all instances (`local-cluster.sh --store postgres://…`), read
//! back by `ptc replay`: every run names the instance that served it.

use std::collections::BTreeMap;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::support::{ok, parts, served_by, Cluster, INSTANCES};

/// `ptc replay ARGS`: its stdout (panics on failure).
fn replay(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_ptc"))
        .arg("replay")
        .args(args)
        .output()
        .expect("ptc runs");
    assert!(
        output.status.success(),
        "ptc replay {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn every_instance_runs_are_read_back_from_one_postgres_store() {
    let Some(python) = parts() else { return };
    if !replay(&["--help"]).contains("--instance") {
        // The run store (`--log postgres://…`, `ptc replay --instance`) is another branch's.
        eprintln!("SKIPPED: this ptc's run store has no PostgreSQL (ptc replay --instance)");
        return;
    }
    let Some(pg) = ptc_testing::postgres::Server::start() else {
        return;
    };
    let url = pg.url();
    let cluster = Cluster::start(Some(python), &["--store", &url], &[]);
    let steps: Vec<Value> = (0..30)
        .map(|n| json!({ "call": "echo", "args": { "text": format!("call {n}") } }))
        .collect();
    let results = cluster.client("auto", None, json!(steps));
    for result in &results[1..] {
        ok(result);
    }
    let served = served_by(&results[1..]);
    assert_eq!(served.len(), INSTANCES.len(), "{served:?}");

    // The writers batch: poll until all 30 runs are there.
    let deadline = Instant::now() + Duration::from_secs(30);
    let stored = loop {
        let listing = replay(&[&url, "--list"]);
        let mut lines = listing.lines();
        assert_eq!(
            lines.next(),
            Some("run\tinstance\tprocess\tstarted\ttool\tstatus")
        );
        let mut stored: BTreeMap<String, usize> = BTreeMap::new();
        for line in lines {
            let columns: Vec<&str> = line.split('\t').collect();
            if columns.get(4) == Some(&"echo") {
                *stored.entry(columns[1].to_string()).or_default() += 1;
            }
        }
        if stored.values().sum::<usize>() >= 30 || Instant::now() > deadline {
            break stored;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    // Each run names the instance that served it (as the call's _meta said).
    assert_eq!(stored, served, "store vs. what the client saw");
    for id in INSTANCES {
        let only = replay(&[&url, "--list", "--instance", id]);
        assert_eq!(only.lines().count() - 1, served[id], "{id}: {only}");
    }
}
