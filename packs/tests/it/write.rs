//! The `write` tool: creating and replacing files, confinement (nothing outside the
//! root is written, whichever way the path points out), and its `diff` cards.

use crate::builtin_support;

use builtin_support::{Fixture, SECRET};
use ptc::presentation::{FileDiff, ToolCallView, ToolResultView};
use serde_json::json;

#[tokio::test]
async fn write_creates_a_file_and_its_missing_directories() {
    let f = Fixture::new();
    let out = f
        .call(
            "write",
            json!({"file_path": "a/b/c.txt", "content": "one\ntwo\n"}),
        )
        .await;
    assert_eq!(
        out.value(),
        &json!({"path": "a/b/c.txt", "created": true, "bytes": 8, "lines": 2, "hunks": []})
    );
    assert_eq!(out.text(), "Created `a/b/c.txt` (2 lines, 8 bytes).");
    assert_eq!(f.read("a/b/c.txt"), "one\ntwo\n");
}

#[tokio::test]
async fn write_replaces_a_file_and_reports_the_changed_region() {
    let f = Fixture::new();
    let old: String = (1..=10).map(|i| format!("{i}\n")).collect();
    f.file("n.txt", &old);
    let new = old.replace("5\n", "five\n");
    let out = f
        .call("write", json!({"file_path": "n.txt", "content": new}))
        .await;
    let v = out.value();
    assert_eq!(v["created"], false);
    assert_eq!(
        v["hunks"],
        json!([{"line": 2, "old_text": "2\n3\n4\n5\n6\n7\n8\n", "new_text": "2\n3\n4\nfive\n6\n7\n8\n"}])
    );
    assert_eq!(out.text(), "Replaced `n.txt` (10 lines, 24 bytes).");
    assert_eq!(f.read("n.txt"), new);
}

#[tokio::test]
async fn write_accepts_unicode_names_and_absolute_paths_inside_the_root() {
    let f = Fixture::new();
    let out = f
        .call(
            "write",
            json!({"file_path": "dïr/ünïcödé 名前.txt", "content": "ok"}),
        )
        .await;
    assert_eq!(out.value()["path"], "dïr/ünïcödé 名前.txt");
    assert_eq!(f.read("dïr/ünïcödé 名前.txt"), "ok");
    let abs = f.root.join("abs.txt").display().to_string();
    let out = f
        .call("write", json!({"file_path": abs, "content": "x"}))
        .await;
    assert_eq!(out.value()["path"], "abs.txt");
}

#[tokio::test]
async fn write_through_an_inside_symlink_writes_its_target() {
    let f = Fixture::new();
    f.file("real.txt", "old\n");
    f.symlink("alias.txt", "real.txt");
    let out = f
        .call(
            "write",
            json!({"file_path": "alias.txt", "content": "new\n"}),
        )
        .await;
    assert_eq!(out.value()["path"], "real.txt");
    assert_eq!(f.read("real.txt"), "new\n");
}

#[tokio::test]
async fn write_refuses_directories_and_bad_arguments() {
    let f = Fixture::new();
    std::fs::create_dir(f.root.join("dir")).unwrap();
    let out = f
        .call("write", json!({"file_path": "dir", "content": "x"}))
        .await;
    assert!(
        out.error().contains("`dir` is a directory"),
        "{}",
        out.error()
    );
    let out = f
        .call("write", json!({"file_path": ".", "content": "x"}))
        .await;
    assert!(
        out.error().contains("`.` is a directory"),
        "{}",
        out.error()
    );
    for args in [
        json!({"file_path": "a.txt"}),
        json!({"content": "x"}),
        json!({"file_path": "a.txt", "content": 5}),
    ] {
        let out = f.call("write", args).await;
        assert_eq!(
            out.code(),
            Some(ptc::codes::INVALID_ARGS),
            "{}",
            out.error()
        );
    }
    // Out of the root as text: an escape, refused before the file system is asked.
    f.call(
        "write",
        json!({"file_path": "missing/../../x.txt", "content": "x"}),
    )
    .await
    .assert_escape();
    let out = f
        .call(
            "write",
            json!({"file_path": "missing/../x.txt", "content": "x"}),
        )
        .await;
    assert!(
        out.error()
            .contains("after a directory that does not exist"),
        "{}",
        out.error()
    );
    assert!(!f.root.join("missing").exists());
}

#[tokio::test]
async fn write_denies_escapes_and_touches_nothing_outside() {
    let f = Fixture::new();
    f.symlink("link.txt", f.outside.join("secret.txt"));
    f.symlink("linkdir", &f.outside);
    f.symlink("dangling", f.outside.join("created-by-write.txt"));
    let secret = f.outside.join("secret.txt").display().to_string();
    let new_outside = f.outside.join("new.txt").display().to_string();
    for path in [
        "../outside/secret.txt",
        "../outside/new.txt",
        "../new-sibling/x.txt",
        secret.as_str(),
        new_outside.as_str(),
        "link.txt",
        "linkdir/secret.txt",
        "linkdir/new.txt",
        "linkdir/newdir/new.txt",
        "dangling",
    ] {
        f.call("write", json!({"file_path": path, "content": "pwned"}))
            .await
            .assert_escape();
    }
    assert_eq!(
        std::fs::read_to_string(f.outside.join("secret.txt")).unwrap(),
        SECRET
    );
    let mut outside: Vec<_> = std::fs::read_dir(&f.outside)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    outside.sort();
    assert_eq!(outside, ["dir", "secret.txt"]);
    assert!(!f.root.parent().unwrap().join("new-sibling").exists());
}

#[tokio::test]
async fn write_presents_diff_cards_for_new_and_replaced_files() {
    let f = Fixture::new();
    let args = json!({"file_path": "new.txt", "content": "hello\n"});
    assert_eq!(
        f.present_call("write", &args),
        Some(ToolCallView::Diff {
            title: "Write new.txt".into(),
            diffs: vec![FileDiff {
                path: "new.txt".into(),
                old_text: None,
                new_text: "hello\n".into()
            }],
            locations: Some(vec![ptc::presentation::FileLocation {
                path: "new.txt".into(),
                line: None
            }]),
        })
    );
    let out = f.call("write", args).await;
    assert_eq!(
        f.present_result(&out),
        Some(ToolResultView::Diff {
            title: Some("Write new.txt".into()),
            diffs: vec![FileDiff {
                path: "new.txt".into(),
                old_text: None,
                new_text: "hello\n".into()
            }],
        })
    );
    let out = f
        .call(
            "write",
            json!({"file_path": "new.txt", "content": "hello\nworld\n"}),
        )
        .await;
    let card = f.present_result(&out).unwrap();
    assert_eq!(
        card,
        ToolResultView::Diff {
            title: Some("Write new.txt".into()),
            diffs: vec![FileDiff {
                path: "new.txt".into(),
                old_text: Some("hello\n".into()),
                new_text: "hello\nworld\n".into()
            }],
        }
    );
    assert_eq!(serde_json::to_value(&card).unwrap()["card"], "diff");
}

#[tokio::test]
async fn write_keeps_a_missing_final_newline_and_a_blank_last_line_asked_for() {
    let f = Fixture::new();
    f.file("plain.txt", "one\ntwo");
    f.file("crlf.txt", "one\r\ntwo");
    f.file("ended.txt", "one\ntwo\n");
    // Content built from read's lines, joined and ended with a newline as a model would.
    for name in ["plain.txt", "crlf.txt", "ended.txt"] {
        f.call("write", json!({"file_path": name, "content": "one\nTWO\n"}))
            .await;
    }
    assert_eq!(f.read("plain.txt"), "one\nTWO");
    assert_eq!(f.read("crlf.txt"), "one\r\nTWO");
    assert_eq!(f.read("ended.txt"), "one\nTWO\n");
    // Only the one newline that ended the joined lines goes.
    f.call(
        "write",
        json!({"file_path": "plain.txt", "content": "a\n\n"}),
    )
    .await;
    assert_eq!(f.read("plain.txt"), "a\n");
}

#[tokio::test]
async fn write_keeps_a_final_newline_the_file_had() {
    let f = Fixture::new();
    f.file("ended.txt", "one\ntwo\n");
    f.file("crlf.txt", "one\r\ntwo\r\n");
    for name in ["ended.txt", "crlf.txt"] {
        // Lines joined without a final newline, as a model would.
        f.call("write", json!({"file_path": name, "content": "one\nTWO"}))
            .await;
    }
    assert_eq!(f.read("ended.txt"), "one\nTWO\n");
    assert_eq!(f.read("crlf.txt"), "one\r\nTWO\r\n");
}

#[tokio::test]
async fn write_refuses_to_replace_a_file_that_is_not_utf8() {
    let f = Fixture::new();
    let latin1 = b"name=J\xfcrgen\ncity=K\xf6ln\n";
    f.file("kunden.conf", latin1);
    // What a read showed (U+FFFD for the Latin-1 bytes), edited and written back.
    let out = f
        .call(
            "write",
            json!({"file_path": "kunden.conf", "content": "name=J\u{FFFD}rgen\ncity=K\u{FFFD}ln\nversion=2\n"}),
        )
        .await;
    assert!(
        out.error()
            .contains("`kunden.conf` is not valid UTF-8 (invalid byte at offset 6); write refuses"),
        "{}",
        out.error()
    );
    assert_eq!(std::fs::read(f.root.join("kunden.conf")).unwrap(), latin1);
}

#[tokio::test]
async fn write_in_a_program_refuses_the_second_of_two_raced_read_then_write_tasks() {
    let f = Fixture::new();
    f.file("counters.ini", "a=1\nb=1\n");
    let read = json!({"file_path": "counters.ini"});
    // Two tasks read the file at once, then each writes its change.
    f.call_in_program("run", 1, "read", read.clone())
        .await
        .value();
    f.call_in_program("run", 2, "read", read.clone())
        .await
        .value();
    let first = json!({"file_path": "counters.ini", "content": "a=2\nb=1\n"});
    f.call_in_program("run", 3, "write", first).await.value();
    let second = json!({"file_path": "counters.ini", "content": "a=1\nb=2\n"});
    let err = f
        .call_in_program("run", 4, "write", second.clone())
        .await
        .error();
    assert!(
        err.starts_with("write refused: `counters.ini` was already written by this program"),
        "{err}"
    );
    assert_eq!(f.read("counters.ini"), "a=2\nb=1\n");
    // Read again, the task's write goes through.
    f.call_in_program("run", 5, "read", read).await.value();
    let rebuilt = json!({"file_path": "counters.ini", "content": "a=2\nb=2\n"});
    f.call_in_program("run", 6, "write", rebuilt).await.value();
    assert_eq!(f.read("counters.ini"), "a=2\nb=2\n");
}
