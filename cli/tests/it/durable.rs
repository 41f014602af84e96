//! Durable runs from the command line: `ptc run --run-id` killed mid-program, `ptc resume`
//! finishing it with each effect done once, `ptc replay --rerun` agreeing with the journal.

use std::path::Path;

use ptc::journal::{Entry, JournalStore};
use ptc_cli::store::journal::{self, Lease};
use ptc_cli::store::LogTarget;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// Five effects (each appends its line to `witness.txt`); after the third the program says the
/// test may kill it, then waits on a call that is safe to repeat.
const PROGRAM: &str = r#"
const lines = [];
for (let i = 1; i <= 5; i++) {
  const r = await tools.bash({ command: `echo call-${i} >> witness.txt && echo done ${i}`, description: "Record one effect" });
  lines.push(r.stdout.trim());
  if (i === 3) {
    await tools.bash({ command: "true", description: "One more effect before the wait" });
    await tools.sleep({ ms: 1500 });
  }
}
return { lines, pick: Math.floor(Math.random() * 1e9), at: new Date().getFullYear() > 2000 };
"#;

fn ptc(root: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ptc"));
    command
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

fn text(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn a_durable_run_killed_mid_program_resumes_with_each_effect_done_once() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    std::fs::write(root.join("prog.ts"), PROGRAM).unwrap();
    let store = format!("sqlite:{}", root.join("runs.sqlite").display());
    let run = |id: &str| {
        ptc(root)
            .args([
                "run",
                "--tools",
                "builtin,testkit",
                "--log",
                &store,
                "--run-id",
                id,
            ])
            .arg("prog.ts")
            .spawn()
            .unwrap()
    };

    // Killed after its third effect, while it waits on a call that is safe to repeat
    // (readiness: the journal holds the result of the call before that wait, call 4).
    let mut child = run("fix-1");
    let target = LogTarget::Sqlite(root.join("runs.sqlite"));
    let journal = journal::open(&target, Lease::default()).unwrap();
    let waiting = || {
        let entries = journal.load("fix-1").unwrap();
        entries
            .iter()
            .any(|e| matches!(e, Entry::Result { n: 4, .. }))
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while !waiting() {
        assert!(
            std::time::Instant::now() < deadline,
            "the program never got to its third effect"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before it could be killed"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let witness = || std::fs::read_to_string(root.join("witness.txt")).unwrap();
    assert_eq!(witness(), "call-1\ncall-2\ncall-3\n");

    // The rerun says the run did not finish.
    let rerun = ptc(root)
        .args(["replay", "--rerun", &store])
        .output()
        .unwrap();
    assert_eq!(rerun.status.code(), Some(0), "{rerun:?}");
    assert!(
        text(&rerun).starts_with("fix-1\tunfinished"),
        "{}",
        text(&rerun)
    );

    // Resumed: effects 1-3 replayed, 4 and 5 done; each effect once.
    let resumed = ptc(root)
        .args(["resume", "--tools", "builtin,testkit", &store, "fix-1"])
        .output()
        .unwrap();
    assert_eq!(resumed.status.code(), Some(0), "{resumed:?}");
    assert_eq!(witness(), "call-1\ncall-2\ncall-3\ncall-4\ncall-5\n");
    let out = text(&resumed);
    assert!(
        out.contains(
            "\"done 1\",\n    \"done 2\",\n    \"done 3\",\n    \"done 4\",\n    \"done 5\""
        ),
        "{out}"
    );

    // Re-run with every tool off: the same output; the witness is untouched.
    let rerun = ptc(root)
        .args(["replay", "--rerun", "--tools", "builtin,testkit", &store])
        .output()
        .unwrap();
    assert_eq!(text(&rerun), "fix-1\tsame\n", "{rerun:?}");
    assert_eq!(rerun.status.code(), Some(0));
    assert_eq!(witness().lines().count(), 5);

    // A finished run only replays: a changed program that goes further is stopped there.
    std::fs::write(root.join("prog.ts"), PROGRAM.replace("i <= 5", "i <= 6")).unwrap();
    let changed = run("fix-1").wait_with_output().unwrap();
    assert_eq!(changed.status.code(), Some(1));
    assert!(
        text(&changed).contains(
            "code run failed (nondeterminism): fix-1: the program goes on past its recording \
             (it would call bash (call 8)); the program is not the recorded one"
        ),
        "{}",
        text(&changed)
    );
    assert_eq!(witness().lines().count(), 5);
}

#[test]
fn a_run_id_without_a_run_store_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("prog.ts"), "return 1").unwrap();
    let out = ptc(tmp.path())
        .args(["run", "--tools", "testkit", "--run-id", "x", "prog.ts"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("durable runs keep their journal in the --log store"),
        "{err}"
    );
    let jsonl = tmp.path().join("log.jsonl");
    let out = ptc(tmp.path())
        .args(["run", "--tools", "testkit", "--run-id", "x", "--log"])
        .arg(&jsonl)
        .arg("prog.ts")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("pass --log sqlite:PATH"), "{err}");
}
