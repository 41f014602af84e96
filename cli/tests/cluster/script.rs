//! `deploy/local-cluster.sh` itself: it stops everything it started on SIGTERM and when a
//! part dies (naming it), and names a bad argument.

use std::process::Command;

use crate::support::{gone, haproxy, Cluster, INSTANCES};

/// The pids of the cluster's instances and HAProxy.
fn parts(cluster: &Cluster) -> Vec<u32> {
    let mut pids: Vec<u32> = INSTANCES.iter().map(|id| cluster.pid(id)).collect();
    pids.push(cluster.pid("haproxy"));
    pids
}

#[test]
fn sigterm_stops_every_instance_and_haproxy() {
    if !haproxy() {
        return;
    }
    let mut cluster = Cluster::start(None, &[], &[]);
    let pids = parts(&cluster);
    assert!(pids.iter().all(|&pid| !gone(pid)), "{pids:?}");
    assert_eq!(
        cluster.signal_and_wait(libc::SIGTERM),
        Some(0),
        "{}",
        cluster.log()
    );
    assert_all_gone(&pids, &cluster);
}

#[test]
fn an_instance_that_dies_stops_the_cluster_and_is_named() {
    if !haproxy() {
        return;
    }
    let mut cluster = Cluster::start(None, &[], &[]);
    let pids = parts(&cluster);
    // SAFETY: kill(2) on an instance the cluster script started for this test.
    assert_eq!(unsafe { libc::kill(pids[1] as i32, libc::SIGKILL) }, 0);
    assert_eq!(cluster.exit_code(), Some(1), "{}", cluster.log());
    let said = format!(
        "local-cluster: instance i2 (pid {}) exited with status 137; stopping",
        pids[1]
    );
    assert!(cluster.log().contains(&said), "{}", cluster.log());
    assert_all_gone(&pids, &cluster);
}

#[test]
fn bad_arguments_are_named_with_the_usage() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../deploy/local-cluster.sh");
    for (args, says) in [
        (&["x", "8808"][..], "N must be 1 to 99, not `x`"),
        (&["3", "70000"][..], "PORT must be 1 to 65535, not `70000`"),
        (&["3", "8808", "--store"][..], "--store needs a URL"),
        (&["3", "8808", "--bogus"][..], "unknown argument `--bogus`"),
        (&["3"][..], "usage:"),
    ] {
        let output = Command::new(script).args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(stderr.contains("usage:"), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{args:?}");
    }
}

/// Every process in `pids` has exited (else the test fails naming them, with the log).
fn assert_all_gone(pids: &[u32], cluster: &Cluster) {
    let left: Vec<_> = pids.iter().filter(|&&pid| !gone(pid)).collect();
    assert!(
        left.is_empty(),
        "still running: {left:?}\n{}",
        cluster.log()
    );
}
