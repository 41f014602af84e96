//! Hostile input to the session log and its replay: amplification, deep values, a full disk,
//! damaged files, closed pipes and two writers.

use std::path::Path;
use std::process::Command;

use crate::cli::{ptc, Ran};

/// `ptc run --tools testkit --log LOG -` in `dir`.
fn run_logged(dir: &Path, log: &str, program: &str) -> Ran {
    ptc(
        dir,
        &["run", "--tools", "testkit", "--log", log, "-"],
        program,
    )
}

/// Bytes under `path` (a file, or a directory's files).
fn size(path: &Path) -> u64 {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => std::fs::read_dir(path)
            .unwrap()
            .map(|entry| size(&entry.unwrap().path()))
            .sum(),
        Ok(meta) => meta.len(),
        Err(_) => 0,
    }
}

#[test]
fn hostile_repeated_large_values_are_stored_once() {
    let dir = tempfile::tempdir().unwrap();
    let megabytes = 4;
    let program = format!(
        "const s = 'x'.repeat({megabytes} * 1024 * 1024);\nfor (let i = 0; i < 10; i++) await tools.echo({{ text: s }});\nreturn 'done'"
    );
    let ran = run_logged(dir.path(), "s.jsonl", &program);
    assert_eq!(ran.code(), 0, "{}", ran.all());
    let on_disk = size(&dir.path().join("s.jsonl")) + size(&dir.path().join("s.jsonl.blobs"));
    // The value twice (the echoed string, and the arguments holding it) plus small lines,
    // where writing every event in full would take 10 × 4 × 4 MiB.
    assert!(on_disk < 3 * megabytes * 1024 * 1024, "{on_disk} bytes");
    let lines = std::fs::read_to_string(dir.path().join("s.jsonl")).unwrap();
    assert!(lines.lines().all(|line| line.len() < 64 * 1024));
    // Replay puts the values back.
    let replayed = ptc::session::read_jsonl(dir.path().join("s.jsonl")).unwrap();
    let restored = replayed.iter().any(|event| {
        matches!(event, ptc::session::SessionEvent::PtcDispatch { content, .. }
            if ptc::content_text(content).len() == megabytes as usize * 1024 * 1024)
    });
    assert!(restored);
}

#[test]
fn hostile_deep_arguments_with_a_log_do_not_abort() {
    let dir = tempfile::tempdir().unwrap();
    let ran = run_logged(
        dir.path(),
        "d.jsonl",
        "let v = {};\nfor (let i = 0; i < 5000; i++) v = { v };\ntry { await tools.echo({ text: 'x', v }) } catch (e) { return 'refused' }",
    );
    assert_eq!(ran.code(), 0, "{}", ran.all());
    assert!(ran.stdout.contains("refused"), "{}", ran.stdout);
    assert!(!ptc::session::read_jsonl(dir.path().join("d.jsonl"))
        .unwrap()
        .is_empty());
}

#[test]
fn hostile_a_log_that_cannot_be_written_is_loud() {
    let dir = tempfile::tempdir().unwrap();
    let ran = run_logged(dir.path(), "/dev/full", "return 'result'");
    assert_eq!(ran.code(), 3, "{}", ran.all());
    assert!(ran.stdout.contains("result"), "{}", ran.stdout);
    assert!(
        ran.stderr.contains("No space left on device"),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains("session events are being lost"),
        "{}",
        ran.stderr
    );
}

#[test]
fn hostile_replay_reads_what_it_can_from_a_damaged_log() {
    let dir = tempfile::tempdir().unwrap();
    let ran = run_logged(dir.path(), "r.jsonl", "await tools.echo({ text: 'first' })");
    assert_eq!(ran.code(), 0, "{}", ran.all());
    let path = dir.path().join("r.jsonl");
    let mut damaged = std::fs::read_to_string(&path).unwrap();
    damaged.push_str("{\"type\":\"tool/call\",\"atMs\":1,\"tu\n");
    damaged.push_str(&format!("{}{}\n", "[".repeat(100_000), "]".repeat(100_000)));
    damaged.push_str("\u{0}\u{1} not json\n");
    std::fs::write(&path, damaged).unwrap();
    let ran = ptc(dir.path(), &["replay", "--tools", "testkit", "r.jsonl"], "");
    assert_eq!(ran.code(), 0, "{}", ran.all());
    assert!(ran.stdout.contains("echo"), "{}", ran.stdout);
    assert_eq!(
        ran.stderr.matches("skipped line").count(),
        3,
        "{}",
        ran.stderr
    );
    assert!(ran.stderr.contains("nested deeper than"), "{}", ran.stderr);
}

#[test]
fn hostile_replay_into_a_closed_pipe_exits_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let program = "for (let i = 0; i < 200; i++) await tools.echo({ text: 'line ' + i })";
    assert_eq!(run_logged(dir.path(), "p.jsonl", program).code(), 0);
    let shell = format!(
        "{} replay --tools testkit p.jsonl | head -n 1 > /dev/null; echo \"status ${{PIPESTATUS[0]}}\"",
        env!("CARGO_BIN_EXE_ptc")
    );
    let out = Command::new("bash")
        .args(["-c", &shell])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains("status 0"), "{stdout} {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn hostile_two_processes_writing_one_log_stay_apart() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        run_logged(dir.path(), "two.jsonl", "await tools.echo({ text: 'a' })").code(),
        0
    );
    assert_eq!(
        run_logged(dir.path(), "two.jsonl", "await tools.echo({ text: 'b' })").code(),
        0
    );
    let events = ptc::session::read_jsonl(dir.path().join("two.jsonl")).unwrap();
    let tree = ptc::session::build_tree(&events);
    assert_eq!(tree.len(), 2, "{tree:#?}");
    assert_ne!(tree[0].call_id, tree[1].call_id);
    assert_eq!(tree[0].children.len(), 1);
    assert_eq!(tree[1].children.len(), 1);
}
