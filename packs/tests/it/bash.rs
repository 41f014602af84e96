//! The `bash` tool: exit codes and streams, a confined working directory, timeouts and
//! cancellation killing the whole process group, capped output tails, its cards.

use crate::builtin_support;

use std::time::{Duration, Instant};

use builtin_support::Fixture;
use ptc::presentation::{ToolCallView, ToolResultView};
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn bash(command: &str) -> serde_json::Value {
    json!({"command": command, "description": "test command"})
}

/// Host pids of live (non-zombie) processes whose command line contains `marker`. (Commands
/// run in a PID namespace: the pids they see are not the host's, so tests find them by a
/// marker in their `argv[0]`.)
fn with_marker(marker: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let zombie = stat.rsplit(") ").next().unwrap_or("").starts_with('Z');
        if !zombie && String::from_utf8_lossy(&cmdline).contains(marker) {
            out.push(pid);
        }
    }
    out
}

/// A marker unique to one test.
fn marker(test: &str) -> String {
    format!("ptc-bash-test-{}-{test}", std::process::id())
}

/// Asserts the command wrote `count` lines to `pids` under the root (all its processes
/// started), waiting for them as [`wait_for_pids`] does.
fn ready(f: &Fixture, count: usize) {
    let text = wait_for_pids(&f.root, count);
    assert_eq!(text.lines().count(), count, "pid file: {text:?}");
}

/// Waits until `pids` under `root` has `count` lines (each process says it started), giving
/// up after 5 s; returns the file.
fn wait_for_pids(root: &std::path::Path, count: usize) -> String {
    let path = root.join("pids");
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        if text.lines().count() >= count || Instant::now() > deadline {
            return text;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Asserts no process carrying `marker` is left (within a second: SIGKILL is delivered
/// asynchronously).
fn assert_all_dead(marker: &str) {
    let deadline = Instant::now() + Duration::from_secs(1);
    while !with_marker(marker).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(with_marker(marker), Vec::<u32>::new(), "processes survived");
}

/// Two background sleepers and a foreground one, named `marker`, each saying it started.
fn sleepers(marker: &str) -> String {
    format!(
        "(echo 1 >> pids; exec -a {marker} sleep 1000) & (echo 1 >> pids; exec -a {marker} sleep \
         1000) & echo 1 >> pids; exec -a {marker} sleep 1000"
    )
}

#[tokio::test]
async fn bash_returns_exit_code_and_both_streams() {
    let f = Fixture::new();
    let out = f.call("bash", bash("echo out; echo err >&2; exit 3")).await;
    let v = out.value();
    assert_eq!(v["exit_code"], 3);
    assert_eq!(v["stdout"], "out\n");
    assert_eq!(v["stderr"], "err\n");
    assert_eq!(v["truncated"], false);
    assert!(v.get("signal").is_none());
    assert!(out.text().ends_with("\n[exit code: 3]"), "{}", out.text());
    let out = f.call("bash", bash("true")).await;
    assert_eq!(out.value()["exit_code"], 0);
    assert_eq!(out.text(), "(no output)");
}

#[tokio::test]
async fn bash_reports_the_signal_that_ended_the_shell() {
    let f = Fixture::new();
    let out = f.call("bash", bash("kill -TERM $$")).await;
    let v = out.value();
    assert_eq!(v["signal"], "SIGTERM");
    assert!(v.get("exit_code").is_none());
    assert!(
        out.text().ends_with("[killed by SIGTERM]"),
        "{}",
        out.text()
    );
}

#[tokio::test]
async fn bash_runs_each_call_in_a_fresh_shell_in_its_workdir() {
    let f = Fixture::new();
    std::fs::create_dir_all(f.root.join("sub/dir")).unwrap();
    let out = f.call("bash", bash("pwd")).await;
    assert_eq!(out.value()["stdout"], format!("{}\n", f.root.display()));
    let mut args = bash("pwd; X=1; export X");
    args["workdir"] = json!("sub/dir");
    let out = f.call("bash", args).await;
    assert_eq!(
        out.value()["stdout"],
        format!("{}\n", f.root.join("sub/dir").display())
    );
    let out = f.call("bash", bash("echo \"[${X:-unset}]\"")).await;
    assert_eq!(out.value()["stdout"], "[unset]\n");
}

#[tokio::test]
async fn bash_workdir_must_be_a_directory_inside_the_root() {
    let f = Fixture::new();
    f.file("file.txt", "");
    f.symlink("linkdir", &f.outside);
    let abs = f.outside.display().to_string();
    for workdir in ["..", "../outside", abs.as_str(), "linkdir", "/tmp"] {
        let mut args = bash("touch escaped");
        args["workdir"] = json!(workdir);
        f.call("bash", args).await.assert_escape();
    }
    assert!(!f.outside.join("escaped").exists());
    for workdir in ["file.txt", "missing"] {
        let mut args = bash("true");
        args["workdir"] = json!(workdir);
        let out = f.call("bash", args).await;
        assert!(
            out.error().contains("is not an existing directory"),
            "{}",
            out.error()
        );
    }
}

#[tokio::test]
async fn bash_rejects_bad_arguments() {
    let f = Fixture::new();
    for (args, expect) in [
        (json!({"command": "true"}), "Invalid arguments"),
        (json!({"description": "x"}), "Invalid arguments"),
        (
            json!({"command": "  ", "description": "x"}),
            "`command` is empty",
        ),
        (
            json!({"command": "true", "description": "x", "timeoutMs": 0}),
            "`timeoutMs` must be",
        ),
        (
            json!({"command": "true", "description": "x", "timeoutMs": "5"}),
            "Invalid arguments",
        ),
        (
            json!({"command": "true", "description": "x", "run_in_background": "yes"}),
            "Invalid arguments",
        ),
    ] {
        let out = f.call("bash", args).await;
        assert_eq!(
            out.code(),
            Some(ptc::codes::INVALID_ARGS),
            "{}",
            out.error()
        );
        assert!(out.error().contains(expect), "{}", out.error());
    }
}

#[tokio::test]
async fn bash_timeout_kills_the_whole_process_group() {
    let f = Fixture::new();
    let m = marker("timeout");
    let mut args = bash(&format!("echo started; {}", sleepers(&m)));
    args["timeoutMs"] = json!(500);
    let out = f.call("bash", args).await;
    let message = out.error();
    assert!(
        message.starts_with("Command timed out after 500 ms; its process group was killed."),
        "{message}"
    );
    assert!(message.contains("started"), "{message}");
    ready(&f, 3);
    assert_all_dead(&m);
}

#[tokio::test]
async fn bash_cancellation_kills_the_whole_process_group() {
    let f = Fixture::new();
    let signal = CancellationToken::new();
    // The three sleepers say they started (a line each in `pids`), then the test cancels.
    let (cancel, root) = (signal.clone(), f.root.clone());
    tokio::spawn(async move {
        tokio::task::spawn_blocking(move || wait_for_pids(&root, 3))
            .await
            .unwrap();
        cancel.cancel();
    });
    let m = marker("cancel");
    let out = f
        .call_with_signal("bash", bash(&sleepers(&m)), signal)
        .await;
    assert!(out.result.is_error());
    ready(&f, 3);
    assert_all_dead(&m);
}

#[tokio::test]
async fn bash_dropping_the_call_kills_the_whole_process_group() {
    let f = Fixture::new();
    let m = marker("drop");
    let call = f.call("bash", bash(&sleepers(&m)));
    // Drop the call once the three sleepers said they started.
    let root = f.root.clone();
    tokio::select! {
        _ = call => panic!("the command ended by itself"),
        _ = tokio::task::spawn_blocking(move || wait_for_pids(&root, 3)) => {}
    }
    ready(&f, 3);
    assert_all_dead(&m);
}

#[tokio::test]
async fn bash_background_children_do_not_outlive_the_command() {
    let f = Fixture::new();
    let m = marker("background");
    let out = f
        .call(
            "bash",
            bash(&format!(
                "(exec -a {m} sleep 1000) & echo 1 >> pids; echo done"
            )),
        )
        .await;
    assert_eq!(out.value()["stdout"], "done\n");
    ready(&f, 1);
    assert_all_dead(&m);
}

#[tokio::test]
async fn bash_keeps_only_the_tail_of_long_output() {
    let f = Fixture::new();
    // 3 MB of numbered lines on stdout, a marker at the very end.
    let out = f.call("bash", bash("seq 1 400000; echo THE-END")).await;
    let v = out.value();
    assert_eq!(v["truncated"], true);
    let stdout = v["stdout"].as_str().unwrap();
    assert!(stdout.len() <= 1024 * 1024, "{}", stdout.len());
    assert!(stdout.ends_with("400000\nTHE-END\n"));
    let text = out.text();
    assert!(
        text.starts_with("[output truncated to its tail]\n"),
        "{}",
        &text[..80]
    );
    assert!(text.len() <= 30_000 + 100, "{}", text.len());
    assert!(text.ends_with("400000\nTHE-END\n"));
}

#[tokio::test]
async fn bash_presents_a_terminal_call_and_a_terminal_result() {
    let f = Fixture::new();
    std::fs::create_dir(f.root.join("sub")).unwrap();
    let args = json!({"command": "echo hi; exit 2", "description": "Say hi", "workdir": "sub"});
    assert_eq!(
        f.present_call("bash", &args),
        Some(ToolCallView::Terminal {
            title: "echo hi; exit 2".into(),
            description: Some("Say hi".into()),
            cwd: Some("sub".into()),
        })
    );
    let out = f.call("bash", args).await;
    let card = f.present_result(&out).unwrap();
    assert_eq!(
        card,
        ToolResultView::Terminal {
            title: None,
            output: Some("hi\n\n[exit code: 2]".into()),
            exit_code: Some(2),
            signal: None,
        }
    );
    let json = serde_json::to_value(&card).unwrap();
    assert_eq!(json["card"], "terminal");
    assert_eq!(json["exitCode"], 2);
}

/// `bash` with `args` for an agent owned by `owner`.
async fn bash_as(f: &Fixture, owner: &ptc::Owner, command: &str) -> serde_json::Value {
    let agent = ptc::Agent::new(ptc::ScopeKey::root("agent")).with_owner(owner.clone());
    let input = ptc::ToolExecutionInput::new("call-1", "bash", bash(command)).with_agent(agent);
    let result = f.registry.dispatch(input).await;
    assert!(!result.is_error(), "{}", ptc::content_text(&result.content));
    result.value().unwrap().as_ref().clone()
}

#[tokio::test]
async fn bash_tmpdir_is_one_private_directory_per_owner_kept_across_calls_and_removed_with_it() {
    let f = Fixture::new();
    let (a, b) = (ptc::Owner::new("a"), ptc::Owner::new("b"));
    let first = bash_as(
        &f,
        &a,
        "echo kept > \"$TMPDIR/note\"; printf %s \"$TMPDIR\"",
    )
    .await;
    let dir = std::path::PathBuf::from(first["stdout"].as_str().unwrap());
    let mode = std::fs::metadata(&dir).unwrap().permissions();
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&mode) & 0o777,
        0o700
    );
    // The same owner's next call finds it.
    let again = bash_as(&f, &a, "cat \"$TMPDIR/note\"; printf %s \"$TMPDIR\"").await;
    assert_eq!(again["stdout"], format!("kept\n{}", dir.display()));
    // Another owner has its own, without the file.
    let other = bash_as(&f, &b, "ls -A \"$TMPDIR\"; printf %s \"$TMPDIR\"").await;
    assert_ne!(other["stdout"].as_str().unwrap(), dir.to_str().unwrap());
    assert_eq!(
        std::path::Path::new(other["stdout"].as_str().unwrap()).parent(),
        dir.parent()
    );
    assert!(!other["stdout"].as_str().unwrap().contains("note"));
    // Ending the owner removes it (in the background: wait for it, bounded).
    drop(a);
    let deadline = Instant::now() + Duration::from_secs(10);
    while dir.exists() {
        assert!(
            Instant::now() < deadline,
            "{} was not removed",
            dir.display()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn bash_output_in_a_program_keeps_what_its_streams_keep() {
    let f = Fixture::new();
    let args = json!({"command": "seq 1 20000", "description": "print 20,000 numbers"});
    let native = f.call("bash", args.clone()).await;
    assert!(native.value()["output"].as_str().unwrap().len() <= 30_000);
    assert_eq!(native.value()["truncated"], true);
    let program = f.call_in_program("run-1", 1, "bash", args).await;
    let v = program.value();
    assert_eq!(v["output"], v["stdout"]);
    assert_eq!(v["stdout"].as_str().unwrap().lines().count(), 20_000);
    assert_eq!(v["truncated"], false);
    assert_eq!(program.cut_short(), None);
}
