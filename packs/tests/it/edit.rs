//! The `edit` tool: unique and `replace_all` replacement, the errors that guide a
//! retry, refusing binary and non-UTF-8 files, confinement, and its `diff` cards.

use crate::builtin_support;

use builtin_support::{Fixture, SECRET};
use ptc::presentation::{FileDiff, ToolCallView, ToolResultView};
use serde_json::json;

#[tokio::test]
async fn edit_replaces_a_unique_occurrence() {
    let f = Fixture::new();
    f.file("a.rs", "fn old_name() {}\nfn main() { old_name(); }\n");
    let out = f
        .call(
            "edit",
            json!({"file_path": "a.rs", "old_string": "fn old_name()", "new_string": "fn new_name()"}),
        )
        .await;
    let v = out.value();
    assert_eq!(v["path"], "a.rs");
    assert_eq!(v["replacements"], 1);
    assert_eq!(v["hunks"][0]["line"], 1);
    assert_eq!(
        out.text(),
        "Edited `a.rs`: replaced 1 occurrence. First change at line 1."
    );
    assert_eq!(
        f.read("a.rs"),
        "fn new_name() {}\nfn main() { old_name(); }\n"
    );
}

#[tokio::test]
async fn edit_refuses_an_ambiguous_match_unless_replace_all() {
    let f = Fixture::new();
    f.file("a.txt", "x = foo;\ny = foo;\n");
    let out = f
        .call(
            "edit",
            json!({"file_path": "a.txt", "old_string": "foo", "new_string": "bar"}),
        )
        .await;
    let message = out.error();
    assert!(message.contains("occurs 2 times in `a.txt`"), "{message}");
    assert!(message.contains("replace_all"), "{message}");
    assert_eq!(f.read("a.txt"), "x = foo;\ny = foo;\n");

    let out = f
        .call(
            "edit",
            json!({"file_path": "a.txt", "old_string": "foo", "new_string": "bar", "replace_all": true}),
        )
        .await;
    assert_eq!(out.value()["replacements"], 2);
    assert_eq!(f.read("a.txt"), "x = bar;\ny = bar;\n");
}

#[tokio::test]
async fn edit_deletes_with_an_empty_new_string() {
    let f = Fixture::new();
    f.file("a.txt", "keep\ndrop me\nkeep\n");
    f.call(
        "edit",
        json!({"file_path": "a.txt", "old_string": "drop me\n", "new_string": ""}),
    )
    .await
    .value();
    assert_eq!(f.read("a.txt"), "keep\nkeep\n");
}

#[tokio::test]
async fn edit_explains_missing_text_files_and_bad_arguments() {
    let f = Fixture::new();
    f.file("a.txt", "hello\n");
    let out = f
        .call(
            "edit",
            json!({"file_path": "a.txt", "old_string": "bye", "new_string": "x"}),
        )
        .await;
    assert!(
        out.error()
            .contains("`old_string` was not found in `a.txt`"),
        "{}",
        out.error()
    );
    let out = f
        .call(
            "edit",
            json!({"file_path": "nope.txt", "old_string": "a", "new_string": "b"}),
        )
        .await;
    assert!(
        out.error().starts_with("File not found: `nope.txt`"),
        "{}",
        out.error()
    );
    let out = f
        .call(
            "edit",
            json!({"file_path": "a.txt", "old_string": "", "new_string": "b"}),
        )
        .await;
    assert_eq!(out.code(), Some(ptc::codes::INVALID_ARGS));
    assert!(out.error().contains("`old_string` is empty"));
    let out = f
        .call(
            "edit",
            json!({"file_path": "a.txt", "old_string": "hello", "new_string": "hello"}),
        )
        .await;
    assert_eq!(out.code(), Some(ptc::codes::INVALID_ARGS));
    for args in [
        json!({"file_path": "a.txt", "old_string": "hello"}),
        json!({"file_path": "a.txt", "old_string": "hello", "new_string": "x", "replace_all": "yes"}),
    ] {
        let out = f.call("edit", args).await;
        assert_eq!(
            out.code(),
            Some(ptc::codes::INVALID_ARGS),
            "{}",
            out.error()
        );
    }
    assert_eq!(f.read("a.txt"), "hello\n");
}

#[tokio::test]
async fn edit_refuses_binary_files_and_edits_8_bit_text_in_its_encoding() {
    let f = Fixture::new();
    let bin = b"abc\x00def\n".to_vec();
    f.file("b.bin", &bin);
    let out = f
        .call(
            "edit",
            json!({"file_path": "b.bin", "old_string": "abc", "new_string": "x"}),
        )
        .await;
    assert!(out.error().contains("is a binary file"), "{}", out.error());
    // A file in an 8-bit encoding is edited in it: every other byte stays (a cp1252 € is 0x80).
    let cp1252 = b"Preis 5 \x80, Stra\xdfe B\xfcro\n".to_vec();
    f.file("k.txt", &cp1252);
    let out = f
        .call(
            "edit",
            json!({"file_path": "k.txt", "old_string": "Büro", "new_string": "Büroraum"}),
        )
        .await;
    assert_eq!(out.value()["replacements"], 1, "{}", out.text());
    assert_eq!(
        out.note(),
        Some("`k.txt` is windows-1252 text, not UTF-8: edited and written in windows-1252")
    );
    let edited = b"Preis 5 \x80, Stra\xdfe B\xfcroraum\n";
    assert_eq!(std::fs::read(f.root.join("k.txt")).unwrap(), edited);
    // Text the encoding cannot hold is refused, naming it; nothing changes.
    let out = f
        .call(
            "edit",
            json!({"file_path": "k.txt", "old_string": "Büroraum", "new_string": "事務所 → Büro"}),
        )
        .await;
    assert!(
        out.error()
            .contains("is windows-1252 text, which cannot hold \"事務所→\"")
            && out
                .error()
                .contains("iconv -f windows-1252 -t utf-8 'k.txt' > NEW"),
        "{}",
        out.error()
    );
    assert_eq!(std::fs::read(f.root.join("k.txt")).unwrap(), edited);
    // UTF-8 with a stray byte reads as an 8-bit encoding too: edited in it, every other byte
    // (the UTF-8 ones included) stays as it was, and the note says which encoding was taken.
    let utf8 = "naïve café déjà vu ".repeat(20).into_bytes();
    f.file("d.txt", [&utf8[..], b"\xff abc\n"].concat());
    let out = f
        .call(
            "edit",
            json!({"file_path": "d.txt", "old_string": "abc", "new_string": "x"}),
        )
        .await;
    assert!(
        out.note()
            .is_some_and(|n| n.contains("edited and written in")),
        "{:?}",
        out.note()
    );
    assert_eq!(
        std::fs::read(f.root.join("d.txt")).unwrap(),
        [&utf8[..], b"\xff x\n"].concat()
    );
    assert_eq!(std::fs::read(f.root.join("b.bin")).unwrap(), bin);
}

#[tokio::test]
async fn edit_denies_escapes_and_leaves_outside_files_alone() {
    let f = Fixture::new();
    f.symlink("link.txt", f.outside.join("secret.txt"));
    f.symlink("linkdir", &f.outside);
    let abs = f.outside.join("secret.txt").display().to_string();
    for path in [
        "../outside/secret.txt",
        abs.as_str(),
        "link.txt",
        "linkdir/secret.txt",
    ] {
        f.call(
            "edit",
            json!({"file_path": path, "old_string": "secret", "new_string": "public"}),
        )
        .await
        .assert_escape();
    }
    assert_eq!(
        std::fs::read_to_string(f.outside.join("secret.txt")).unwrap(),
        SECRET
    );
}

#[tokio::test]
async fn edit_presents_the_snippet_then_the_applied_hunks() {
    let f = Fixture::new();
    let text: String = (1..=12).map(|i| format!("line {i}\n")).collect();
    f.file("t.txt", &text);
    let args = json!({"file_path": "t.txt", "old_string": "line 6\n", "new_string": "six\n"});
    match f.present_call("edit", &args).unwrap() {
        ToolCallView::Diff { title, diffs, .. } => {
            assert_eq!(title, "Edit t.txt");
            assert_eq!(diffs[0].old_text.as_deref(), Some("line 6\n"));
            assert_eq!(diffs[0].new_text, "six\n");
        }
        other => panic!("unexpected call card {other:?}"),
    }
    let out = f.call("edit", args).await;
    assert_eq!(
        f.present_result(&out),
        Some(ToolResultView::Diff {
            title: Some("Edit t.txt".into()),
            diffs: vec![FileDiff {
                path: "t.txt".into(),
                old_text: Some("line 3\nline 4\nline 5\nline 6\nline 7\nline 8\nline 9\n".into()),
                new_text: "line 3\nline 4\nline 5\nsix\nline 7\nline 8\nline 9\n".into(),
            }],
        })
    );
}
