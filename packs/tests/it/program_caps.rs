//! Caps in programs: as a `run_code` sub-call, `read`, `glob` and `grep` use data caps (the
//! whole file up to 8 MiB, 10,000 entries) and say what a cap still cut (`cut_short`), as
//! `bash` does for a stream tail;
//! natively they keep their context caps. A `write` of a file the same run read only in part,
//! or that changed since the run read or wrote it, is refused, so read → modify → write never
//! drops data nor undoes a newer change.

use crate::builtin_support;

use builtin_support::{Fixture, Outcome};

use serde_json::json;

fn numbered(n: u64) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

/// A file of `lines` lines of 1 KiB of text each (over the 8 MiB data cap past 8,192 lines).
/// A program's new content from a read's lines: each line's text through `edit`, newline-ended.
fn rewritten(read: &Outcome, edit: impl Fn(&str) -> String) -> String {
    let lines = read.value()["lines"].as_array().unwrap();
    lines
        .iter()
        .map(|l| edit(l["text"].as_str().unwrap()) + "\n")
        .collect()
}

fn kib_lines(lines: u64) -> String {
    (1..=lines)
        .map(|i| format!("{i:08} {}\n", "x".repeat(1015)))
        .collect()
}

#[tokio::test]
async fn read_in_a_program_returns_the_whole_file_past_the_context_caps() {
    let f = Fixture::new();
    f.file("long.txt", numbered(2051));
    let out = f
        .call_in_program("run-1", 1, "read", json!({"file_path": "long.txt"}))
        .await;
    let v = out.value();
    assert_eq!(v["lines"].as_array().unwrap().len(), 2051);
    assert_eq!(v["truncated"], false);
    assert_eq!(out.cut_short(), None);
    // Natively the context cap still applies.
    let native = f.call("read", json!({"file_path": "long.txt"})).await;
    assert_eq!(native.value()["lines"].as_array().unwrap().len(), 2000);
    assert_eq!(native.value()["truncated"], true);
}

#[tokio::test]
async fn read_in_a_program_keeps_a_long_line_whole() {
    let f = Fixture::new();
    f.file("wide.txt", format!("{}\n", "y".repeat(5000)));
    let out = f
        .call_in_program("run-1", 1, "read", json!({"file_path": "wide.txt"}))
        .await;
    assert_eq!(out.value()["lines"][0]["text"], "y".repeat(5000));
    let native = f.call("read", json!({"file_path": "wide.txt"})).await;
    assert!(native.value()["lines"][0]["text"]
        .as_str()
        .unwrap()
        .contains("[line cut: 5000 characters]"));
}

#[tokio::test]
async fn read_in_a_program_over_the_data_cap_says_what_it_kept_and_how_to_go_on() {
    let f = Fixture::new();
    f.file("big.txt", kib_lines(9000));
    let out = f
        .call_in_program("run-1", 1, "read", json!({"file_path": "big.txt"}))
        .await;
    let v = out.value();
    assert_eq!(v["lines"].as_array().unwrap().len(), 8192);
    assert_eq!(v["truncated"], true);
    assert_eq!(v["next_offset"], 8193);
    assert_eq!(
        out.cut_short(),
        Some("lines 1-8,192 of 9,000 (8 MiB per read; read on with offset=8193)")
    );
}

#[tokio::test]
async fn a_limit_the_program_asked_for_is_not_cut_short() {
    let f = Fixture::new();
    f.file("long.txt", numbered(2051));
    let out = f
        .call_in_program(
            "run-1",
            1,
            "read",
            json!({"file_path": "long.txt", "limit": 10}),
        )
        .await;
    assert_eq!(out.value()["lines"].as_array().unwrap().len(), 10);
    assert_eq!(out.cut_short(), None);
}

#[tokio::test]
async fn read_modify_write_of_a_2051_line_file_in_a_program_keeps_every_line() {
    let f = Fixture::new();
    f.file("long.txt", numbered(2051));
    let read = f
        .call_in_program("run-1", 1, "read", json!({"file_path": "long.txt"}))
        .await;
    let content = rewritten(&read, |text| format!("{text}!"));
    let write = f
        .call_in_program(
            "run-1",
            2,
            "write",
            json!({"file_path": "long.txt", "content": content}),
        )
        .await;
    assert_eq!(write.value()["lines"], 2051);
    assert_eq!(f.read("long.txt").lines().last(), Some("line 2051!"));
}

#[tokio::test]
async fn write_of_content_from_a_read_cut_by_the_data_cap_is_refused() {
    let f = Fixture::new();
    let original = kib_lines(9000);
    f.file("big.txt", &original);
    let read = f
        .call_in_program("run-1", 1, "read", json!({"file_path": "big.txt"}))
        .await;
    let content = rewritten(&read, |text| text.to_string());
    let write = f
        .call_in_program(
            "run-1",
            2,
            "write",
            json!({"file_path": "big.txt", "content": content}),
        )
        .await;
    assert_eq!(
        write.error(),
        "write refused: this program read `big.txt` only in part (lines 1-8,192 of 9,000), so \
         writing it would drop lines 8,193-9,000, never read. Read the rest first (offset=8193) \
         and write all of it."
    );
    assert_eq!(f.read("big.txt"), original, "the file is untouched");
}

#[tokio::test]
async fn write_after_reading_the_rest_with_offset_is_allowed() {
    let f = Fixture::new();
    f.file("long.txt", numbered(30));
    let first = f
        .call_in_program(
            "run-1",
            1,
            "read",
            json!({"file_path": "long.txt", "limit": 20}),
        )
        .await;
    first.value();
    let refused = f
        .call_in_program(
            "run-1",
            2,
            "write",
            json!({"file_path": "long.txt", "content": "line 1\n"}),
        )
        .await;
    assert!(
        refused.error().contains("would drop lines 21-30"),
        "{}",
        refused.error()
    );
    f.call_in_program(
        "run-1",
        3,
        "read",
        json!({"file_path": "long.txt", "offset": 21}),
    )
    .await
    .value();
    let write = f
        .call_in_program(
            "run-1",
            4,
            "write",
            json!({"file_path": "long.txt", "content": "line 1\n"}),
        )
        .await;
    write.value();
}

#[tokio::test]
async fn write_after_a_partial_read_is_refused_even_when_every_line_changed() {
    let f = Fixture::new();
    f.file("long.txt", numbered(30));
    let read = f
        .call_in_program(
            "run-1",
            1,
            "read",
            json!({"file_path": "long.txt", "limit": 20}),
        )
        .await;
    // Every line rewritten: nothing of the read survives verbatim, and 10 lines would go.
    let content = rewritten(&read, |text| text.to_uppercase());
    let write = f
        .call_in_program(
            "run-1",
            2,
            "write",
            json!({"file_path": "long.txt", "content": content}),
        )
        .await;
    assert!(
        write.error().contains("would drop lines 21-30"),
        "{}",
        write.error()
    );
    assert_eq!(f.read("long.txt"), numbered(30));
}

#[tokio::test]
async fn write_of_a_file_never_read_or_read_whole_is_allowed() {
    let f = Fixture::new();
    f.file("short.txt", numbered(30));
    f.call_in_program("run-1", 1, "read", json!({"file_path": "short.txt"}))
        .await
        .value();
    f.call_in_program(
        "run-1",
        2,
        "write",
        json!({"file_path": "short.txt", "content": "x\n"}),
    )
    .await
    .value();
    f.call_in_program(
        "run-1",
        3,
        "write",
        json!({"file_path": "new.txt", "content": "y\n"}),
    )
    .await
    .value();
    assert_eq!(f.read("short.txt"), "x\n");
}

#[tokio::test]
async fn a_partial_read_binds_only_its_own_run_and_not_native_calls() {
    let f = Fixture::new();
    f.file("long.txt", numbered(30));
    f.call_in_program(
        "run-1",
        1,
        "read",
        json!({"file_path": "long.txt", "limit": 5}),
    )
    .await
    .value();
    f.call_in_program(
        "run-2",
        1,
        "write",
        json!({"file_path": "long.txt", "content": "line 1\n"}),
    )
    .await
    .value();
    f.call(
        "write",
        json!({"file_path": "long.txt", "content": "line 1\n"}),
    )
    .await
    .value();
}

#[tokio::test]
async fn grep_in_a_program_returns_thousands_of_matches_and_pages_with_offset() {
    let f = Fixture::new();
    f.file("many.txt", numbered(10_050));
    let out = f
        .call_in_program("run-1", 1, "grep", json!({"pattern": "^line"}))
        .await;
    let v = out.value();
    assert_eq!(v["matches"].as_array().unwrap().len(), 10_000);
    assert_eq!(v["total"], 10_050);
    assert_eq!(
        out.cut_short(),
        Some("10,000 of 10,050 matches (narrow the pattern, or page with offset=10000)")
    );
    let rest = f
        .call_in_program(
            "run-1",
            2,
            "grep",
            json!({"pattern": "^line", "offset": 10_000}),
        )
        .await;
    let v = rest.value();
    assert_eq!(v["matches"].as_array().unwrap().len(), 50);
    assert_eq!(v["matches"][0]["line"], 10_001);
    assert_eq!(v["truncated"], false);
    assert_eq!(rest.cut_short(), None);
    // Natively: the first 250, and the text says how to page.
    let native = f.call("grep", json!({"pattern": "^line"})).await;
    assert_eq!(native.value()["matches"].as_array().unwrap().len(), 250);
    assert!(
        native.text().contains("or page with offset=250"),
        "{}",
        native.text()
    );
}

#[tokio::test]
async fn grep_in_a_program_keeps_long_lines_whole_until_32_mib_of_them_then_says_it_cut() {
    let f = Fixture::new();
    f.file("wide.txt", format!("needle {}\n", "z".repeat(60_000)));
    let out = f
        .call_in_program("run-1", 1, "grep", json!({"pattern": "needle"}))
        .await;
    assert_eq!(
        out.value()["matches"][0]["text"].as_str().unwrap().len(),
        60_007
    );
    assert_eq!(out.cut_short(), None);
    // Five lines of 7 MiB: four are kept whole (28 MiB), the fifth would pass 32 MiB.
    let line = format!("needle {}\n", "z".repeat(7 * 1024 * 1024));
    f.file("wider.txt", line.repeat(5));
    let out = f
        .call_in_program(
            "run-1",
            2,
            "grep",
            json!({"pattern": "needle", "path": "wider.txt"}),
        )
        .await;
    let texts: Vec<usize> = out.value()["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap().len())
        .collect();
    assert_eq!(&texts[..4], [line.len() - 1; 4]);
    assert!(texts[4] < 10_100, "{texts:?}");
    assert_eq!(
        out.cut_short(),
        Some(
            "1 matching line(s) cut at 10,000 characters, past 32.0 MiB of long lines kept \
             whole (read the file for the whole line)"
        )
    );
}

#[tokio::test]
async fn glob_in_a_program_returns_past_the_context_cap_and_pages_with_offset() {
    let f = Fixture::new();
    for i in 0..150 {
        f.file(format!("d/f{i:03}.txt"), "x");
    }
    let out = f
        .call_in_program("run-1", 1, "glob", json!({"pattern": "*.txt"}))
        .await;
    assert_eq!(out.value()["paths"].as_array().unwrap().len(), 150);
    assert_eq!(out.value()["truncated"], false);
    assert_eq!(out.cut_short(), None);
    let native = f.call("glob", json!({"pattern": "*.txt"})).await;
    assert_eq!(native.value()["paths"].as_array().unwrap().len(), 100);
    let page = f
        .call("glob", json!({"pattern": "*.txt", "offset": 100}))
        .await;
    let v = page.value();
    assert_eq!(v["paths"].as_array().unwrap().len(), 50);
    assert_eq!(v["truncated"], false);
    let mut all: Vec<String> = native.value()["paths"]
        .as_array()
        .unwrap()
        .iter()
        .chain(v["paths"].as_array().unwrap())
        .map(|p| p.as_str().unwrap().to_string())
        .collect();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), 150, "the two pages hold every path once");
}

#[tokio::test]
async fn bash_in_a_program_keeps_streams_to_the_data_cap_and_says_when_one_was_cut() {
    let f = Fixture::new();
    // 1.5 MiB: past the 1 MiB a native call keeps, whole in a program.
    let args = json!({
        "command": "head -c 1572864 /dev/zero | tr '\\0' x; echo done >&2",
        "description": "Print 1.5 MiB",
    });
    let out = f.call_in_program("run-1", 1, "bash", args.clone()).await;
    assert_eq!(out.value()["stdout"].as_str().unwrap().len(), 1572864);
    assert_eq!(out.value()["truncated"], false);
    assert_eq!(out.cut_short(), None);
    let native = f.call("bash", args).await;
    assert_eq!(
        native.value()["stdout"].as_str().unwrap().len(),
        1024 * 1024
    );
    assert_eq!(native.value()["truncated"], true);
    assert_eq!(native.cut_short(), None);
    let past = json!({
        "command": "head -c 17825792 /dev/zero | tr '\\0' x",
        "description": "Print 17 MiB",
    });
    let out = f.call_in_program("run-1", 2, "bash", past).await;
    assert_eq!(
        out.value()["stdout"].as_str().unwrap().len(),
        16 * 1024 * 1024,
        "one line: cut where the cap falls"
    );
    assert_eq!(
        out.cut_short(),
        Some(
            "stdout: the last 16.0 MiB of 17.0 MiB, from a line's start (redirect it to a file \
             and read that)"
        )
    );
    // Lines: the tail begins with a whole one (each line here is 9 digits and a newline, so
    // the cap falls inside one).
    let lines = json!({
        "command": "seq 100000001 101900000",
        "description": "Print 18 MiB of lines",
    });
    let out = f.call_in_program("run-1", 3, "bash", lines).await;
    let stdout = out.value()["stdout"].as_str().unwrap();
    assert!(stdout.len() < 16 * 1024 * 1024);
    let first = stdout.lines().next().unwrap();
    assert_eq!(first.len(), 9, "{first:?}");
    assert!(stdout.ends_with("101900000\n"));
}

#[tokio::test]
async fn bash_in_a_program_says_when_the_sandbox_likely_refused_a_failed_command() {
    let f = Fixture::new();
    f.file("f.txt", "X\nX\n");
    let out_file = f.outside.join("out.txt");
    let args = json!({
        "command": format!("grep -c X f.txt > {} && cat {}", out_file.display(), out_file.display()),
        "description": "Count the X lines",
    });
    let out = f.call_in_program("run-1", 1, "bash", args.clone()).await;
    assert_eq!(out.value()["exit_code"], 1);
    assert_eq!(out.value()["stdout"], "");
    assert_eq!(
        out.note(),
        Some(
            "exit 1, likely the sandbox: file access denied under workspace-write mode (write \
             inside the workspace or $TMPDIR)"
        )
    );
    assert_eq!(out.cut_short(), None);
    // A command that goes on past the refusal exits 0 having saved nothing: still said.
    let past = json!({
        "command": format!("grep -c X f.txt > {}; echo saved", out_file.display()),
        "description": "Count the X lines",
    });
    let went_on = f.call_in_program("run-1", 3, "bash", past).await;
    assert_eq!(went_on.value()["exit_code"], 0);
    assert_eq!(
        went_on.note(),
        Some(
            "exit 0, yet stderr shows a refusal, likely the sandbox: file access denied under \
             workspace-write mode (write inside the workspace or $TMPDIR)"
        )
    );
    // Natively the result's text says it (`[sandbox: …]`); a command that succeeds has no note.
    assert_eq!(f.call("bash", args).await.note(), None);
    let ok = json!({"command": "grep -c X f.txt", "description": "Count the X lines"});
    assert_eq!(
        f.call_in_program("run-1", 2, "bash", ok).await.cut_short(),
        None
    );
}

#[tokio::test]
async fn bash_says_the_network_was_denied_when_a_failed_test_run_reports_it_on_stdout() {
    let f = Fixture::new();
    // pytest writes a failed test's OSError to stdout: a socket the sandbox refused.
    let args = json!({
        "command": "python3 -c \"import socket; socket.socket(socket.AF_INET).connect(('127.0.0.1', 9))\" 2>&1 | sed 's/^/E   /'; exit 1",
        "description": "Run a test that connects",
    });
    let out = f.call_in_program("run-1", 1, "bash", args).await;
    assert_eq!(out.value()["exit_code"], 1);
    assert_eq!(out.value()["stderr"], "");
    assert_eq!(
        out.value()["sandbox"],
        "network access denied under workspace-write mode",
        "{}",
        out.value()
    );
}

#[tokio::test]
async fn bash_names_a_folder_of_another_user_as_the_cause_of_a_refusal_in_the_workspace() {
    let f = Fixture::new();
    // As an archive unpacked with its owners kept leaves it (this test runs as root, who may
    // chown outside the sandbox; the sandboxed command may not write there even so).
    let pkg = f.file("pkg/src/mod.py", "x = 1\n");
    let src = pkg.parent().unwrap();
    if rustix::process::geteuid().as_raw() != 0 {
        eprintln!("not root: cannot give a folder to another user here");
        return;
    }
    std::os::unix::fs::chown(src, Some(1001), Some(1001)).unwrap();
    let args = json!({
        "command": "mkdir pkg/src/__pycache__",
        "description": "Make the bytecode folder",
    });
    let out = f.call_in_program("run-1", 1, "bash", args.clone()).await;
    assert_eq!(out.value()["exit_code"], 1);
    let owned = "`pkg/src` is owned by uid 1001, not by this user (uid 0), and the sandbox gives \
                 no power over others' files, even to root: work on a copy (cp -r; copies are \
                 yours), or have the operator chown it";
    assert_eq!(out.value()["sandbox"], owned);
    assert_eq!(
        out.note(),
        Some(format!("exit 1, likely the sandbox: {owned}").as_str())
    );
    // A folder of one's own beside it: the mode's note, as before.
    let mine = json!({"command": "mkdir /proc/x", "description": "Make a folder"});
    let out = f.call_in_program("run-1", 2, "bash", mine).await;
    assert!(
        !out.value()["sandbox"]
            .as_str()
            .unwrap_or("")
            .contains("owned"),
        "{}",
        out.value()
    );
}

#[tokio::test]
async fn bash_in_a_program_notes_a_failed_command_unless_the_program_reads_its_exit_code() {
    let f = Fixture::new();
    let failing = json!({
        "command": "echo partial; echo 'grep: nope.txt: No such file' >&2; echo more >&2; exit 2",
        "description": "Fail",
    });
    let out = f.call_in_program("run-1", 1, "bash", failing.clone()).await;
    assert_eq!(out.value()["exit_code"], 2);
    assert_eq!(
        out.unless_read(),
        Some((
            vec!["exit_code", "signal", "stderr"],
            "the command exited with code 2 and the program never read its exit_code or \
             stderr; stderr: grep: nope.txt: No such file"
        ))
    );
    // Natively the model reads the whole result; a command that succeeds has no note.
    assert_eq!(f.call("bash", failing).await.unless_read(), None);
    let ok = json!({"command": "true", "description": "Succeed"});
    let ok = f.call_in_program("run-1", 2, "bash", ok).await;
    assert_eq!(ok.unless_read(), None);
}

#[tokio::test]
async fn task_output_in_a_program_says_when_output_was_dropped() {
    let f = Fixture::new();
    let started = f
        .call_in_program(
            "run-1",
            1,
            "bash",
            json!({
                "command": "head -c 9437184 /dev/zero | tr '\\0' x",
                "description": "Print 9 MiB in the background",
                "run_in_background": true,
            }),
        )
        .await;
    let id = started.value()["task_id"].as_str().unwrap().to_string();
    let read = f
        .call_in_program(
            "run-1",
            2,
            "task_output",
            json!({"task_id": id, "wait": true, "timeout_ms": 20000}),
        )
        .await;
    let dropped = read.value()["dropped_bytes"].as_u64().unwrap();
    assert!(dropped > 0, "{}", read.value());
    assert_eq!(
        read.cut_short(),
        Some(
            format!(
                "{dropped} bytes of output dropped before this read (a task keeps its newest \
                 8.0 MiB; read it more often, or redirect to a file)"
            )
            .as_str()
        )
    );
}

#[tokio::test]
async fn grep_in_a_program_says_when_a_file_was_not_searched() {
    let f = Fixture::new();
    f.file("small.txt", "needle\n");
    f.file(
        "huge.txt",
        format!("needle {}\n", "z".repeat(9 * 1024 * 1024)),
    );
    let out = f
        .call_in_program("run-1", 1, "grep", json!({"pattern": "needle"}))
        .await;
    assert_eq!(out.value()["skipped"], 1);
    assert_eq!(
        out.cut_short(),
        Some("1 file(s) not searched: a line longer than 8 MiB")
    );
}

/// `view.js` read in a program (run-1, call 1), then changed by an edit in the same run.
async fn read_then_edited(f: &Fixture) -> Outcome {
    f.file("lib/view.js", "let a = 1;\nlet b = 2;\n");
    let read = f
        .call_in_program("run-1", 1, "read", json!({"file_path": "lib/view.js"}))
        .await;
    read.value();
    f.call_in_program(
        "run-1",
        2,
        "edit",
        json!({"file_path": "lib/view.js", "old_string": "b = 2", "new_string": "b = 3"}),
    )
    .await
    .value();
    read
}

#[tokio::test]
async fn write_from_a_read_an_edit_made_stale_is_refused_and_the_edit_kept() {
    let f = Fixture::new();
    let read = read_then_edited(&f).await;
    let content = format!("// header\n{}", rewritten(&read, str::to_string));
    let write = f
        .call_in_program(
            "run-1",
            3,
            "write",
            json!({"file_path": "lib/view.js", "content": content}),
        )
        .await;
    assert_eq!(
        write.error(),
        "write refused: `lib/view.js` changed since this program read it (an edit or command \
         since then), so this content would undo that change; read it again and rebuild the \
         content. Nothing was written."
    );
    assert_eq!(f.read("lib/view.js"), "let a = 1;\nlet b = 3;\n");
}

#[tokio::test]
async fn write_from_a_read_a_command_made_stale_is_refused() {
    let f = Fixture::new();
    f.file("notes.txt", "one\n");
    f.call_in_program("run-1", 1, "read", json!({"file_path": "notes.txt"}))
        .await
        .value();
    // What `sed -i` in a bash call does: the bytes change under the program.
    f.file("notes.txt", "ONE\n");
    let write = f
        .call_in_program(
            "run-1",
            2,
            "write",
            json!({"file_path": "notes.txt", "content": "one\ntwo\n"}),
        )
        .await;
    assert!(
        write
            .error()
            .contains("`notes.txt` changed since this program read it"),
        "{}",
        write.error()
    );
    assert_eq!(f.read("notes.txt"), "ONE\n");
}

#[tokio::test]
async fn write_after_reading_the_edited_file_again_is_allowed() {
    let f = Fixture::new();
    read_then_edited(&f).await;
    let again = f
        .call_in_program("run-1", 3, "read", json!({"file_path": "lib/view.js"}))
        .await;
    let content = format!("// header\n{}", rewritten(&again, str::to_string));
    f.call_in_program(
        "run-1",
        4,
        "write",
        json!({"file_path": "lib/view.js", "content": content}),
    )
    .await
    .value();
    assert_eq!(f.read("lib/view.js"), "// header\nlet a = 1;\nlet b = 3;\n");
}

#[tokio::test]
async fn the_runs_own_writes_keep_what_it_knows_current() {
    let f = Fixture::new();
    f.file("notes.txt", "one\n");
    f.call_in_program("run-1", 1, "read", json!({"file_path": "notes.txt"}))
        .await
        .value();
    for (n, content) in [(2, "two\n"), (3, "three\n")] {
        f.call_in_program(
            "run-1",
            n,
            "write",
            json!({"file_path": "notes.txt", "content": content}),
        )
        .await
        .value();
    }
    // Changed behind the program's back after its own write: refused, saying so.
    f.file("notes.txt", "four\n");
    let write = f
        .call_in_program(
            "run-1",
            4,
            "write",
            json!({"file_path": "notes.txt", "content": "five\n"}),
        )
        .await;
    assert!(
        write
            .error()
            .contains("changed since this program wrote it"),
        "{}",
        write.error()
    );
    // Another run, and a native call, never read it: written as asked.
    f.call_in_program(
        "run-2",
        1,
        "write",
        json!({"file_path": "notes.txt", "content": "six\n"}),
    )
    .await
    .value();
}

#[tokio::test]
async fn a_refused_write_of_a_new_file_creates_neither_it_nor_its_folder() {
    let f = Fixture::new();
    for path in ["methods.txt", "x/new.txt"] {
        let write = f
            .call_in_program(
                "run-1",
                1,
                "write",
                json!({"file_path": path, "content": "[object Object]\n"}),
            )
            .await;
        assert!(
            write.error().contains("nothing was written"),
            "{}",
            write.error()
        );
        assert!(!f.root.join(path).exists(), "{path} was created");
    }
    assert!(!f.root.join("x").exists(), "the folder x/ was created");
}

#[tokio::test]
async fn bash_decodes_output_lines_not_in_utf8_and_says_from_what() {
    let f = Fixture::new();
    // "München;Åsa\n" in cp1252: two bytes that are not UTF-8.
    f.file("sales.csv", b"M\xfcnchen;\xc5sa\n");
    let args = json!({"command": "cat sales.csv", "description": "Print the CSV"});
    let out = f.call_in_program("run-1", 1, "bash", args.clone()).await;
    assert_eq!(out.value()["stdout"], "München;Åsa\n");
    assert_eq!(
        out.note(),
        Some(
            "stdout: 1 line(s) not in UTF-8 were decoded from windows-1252 (the encoding they \
             are in, judged from their bytes)"
        )
    );
    // Natively too; binary output keeps its replacement characters, said.
    assert_eq!(
        f.call("bash", args).await.value()["stdout"],
        "München;Åsa\n"
    );
    let binary = json!({"command": "printf 'a\\0\\377\\n'", "description": "Print bytes"});
    let out = f.call_in_program("run-1", 3, "bash", binary).await;
    assert_eq!(out.value()["stdout"], "a\0\u{FFFD}\n");
    assert_eq!(
        out.note(),
        Some(
            "stdout has 1 bytes that are not UTF-8, shown as \u{FFFD}: text in another encoding \
             (convert it, e.g. | iconv -f cp1252 -t utf-8)"
        )
    );
    let utf8 = json!({"command": "iconv -f cp1252 -t utf-8 sales.csv", "description": "Convert"});
    let out = f.call_in_program("run-1", 2, "bash", utf8).await;
    assert_eq!(out.value()["stdout"], "München;Åsa\n");
    assert_eq!(out.note(), None);
}

#[tokio::test]
async fn a_line_past_the_data_cap_is_never_returned_in_part_to_a_program() {
    let f = Fixture::new();
    let huge = format!("{{\"items\": [{}]}}\n", "1,".repeat(5 * 1024 * 1024));
    f.file("big.json", format!("a\nb\nc\n{huge}d\n"));
    let out = f
        .call_in_program("run-1", 1, "read", json!({"file_path": "big.json"}))
        .await;
    let v = out.value();
    assert_eq!(v["lines"].as_array().unwrap().len(), 3);
    assert_eq!(
        (v["truncated"].clone(), v["next_offset"].clone()),
        (json!(true), json!(4))
    );
    assert_eq!(v["total_lines"], 5);
    let on = f
        .call_in_program(
            "run-1",
            2,
            "read",
            json!({"file_path": "big.json", "offset": 4}),
        )
        .await;
    assert!(on.result.is_error());
    assert!(
        on.error()
            .contains("line 4 of `big.json` has 10,485,773 characters, more than the 8 MiB"),
        "{}",
        on.error()
    );
    // Natively the line is cut for the context, as ever.
    let native = f
        .call(
            "read",
            json!({"file_path": "big.json", "offset": 4, "limit": 1}),
        )
        .await;
    assert!(!native.result.is_error());
}
