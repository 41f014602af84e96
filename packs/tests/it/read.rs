//! The `read` tool: line-numbered windows, bounds, binary and odd files, confinement,
//! and its `read` card.

use crate::builtin_support;

use builtin_support::Fixture;
use ptc::presentation::{ReadFileLine, ToolCallKind, ToolCallView, ToolResultView};
use serde_json::json;

fn numbered(n: u64) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

#[tokio::test]
async fn read_returns_a_line_numbered_window_from_offset_and_limit() {
    let f = Fixture::new();
    f.file("a.txt", numbered(10));
    let out = f
        .call(
            "read",
            json!({"file_path": "a.txt", "offset": 3, "limit": 2}),
        )
        .await;
    let v = out.value();
    assert_eq!(v["path"], "a.txt");
    assert_eq!(v["offset"], 3);
    assert_eq!(
        v["lines"],
        json!([{"number": 3, "text": "line 3"}, {"number": 4, "text": "line 4"}])
    );
    assert_eq!(v["total_lines"], 10);
    assert_eq!(v["truncated"], true);
    assert_eq!(v["next_offset"], 5);
    assert_eq!(
        out.text(),
        "     3\tline 3\n     4\tline 4\n[lines 3-4 of 10; continue with offset=5]\n"
    );
}

#[tokio::test]
async fn read_whole_small_file_is_not_truncated() {
    let f = Fixture::new();
    f.file("a.txt", "one\r\ntwo\n");
    let out = f.call("read", json!({"file_path": "a.txt"})).await;
    let v = out.value();
    assert_eq!(v["total_lines"], 2);
    assert_eq!(v["truncated"], false);
    assert!(v.get("next_offset").is_none());
    assert_eq!(
        out.text(),
        "     1\tone\n     2\ttwo\n[`a.txt` has both CRLF (1) and LF (1) line endings, which read \
         does not show: write and edit keep only the endings written (`\\r\\n` where a line \
         ends in CRLF; or change the file with bash)]\n"
    );
}

#[tokio::test]
async fn read_defaults_to_2000_lines() {
    let f = Fixture::new();
    f.file("a.txt", numbered(2500));
    let v = f
        .call("read", json!({"file_path": "a.txt"}))
        .await
        .value()
        .clone();
    assert_eq!(v["lines"].as_array().unwrap().len(), 2000);
    assert_eq!(v["next_offset"], 2001);
    assert_eq!(v["total_lines"], 2500);
}

#[tokio::test]
async fn read_window_of_a_200k_line_file_is_capped() {
    let f = Fixture::new();
    f.file("big.txt", numbered(200_000));
    let out = f
        .call(
            "read",
            json!({"file_path": "big.txt", "offset": 150000, "limit": 1000}),
        )
        .await;
    let v = out.value();
    assert_eq!(v["total_lines"], 200_000);
    let lines = v["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 1000);
    assert_eq!(lines[0], json!({"number": 150000, "text": "line 150000"}));
    assert_eq!(v["next_offset"], 151_000);

    // A huge limit is capped by the window's byte budget (256 KiB of text).
    let v = f
        .call("read", json!({"file_path": "big.txt", "limit": 1e9}))
        .await
        .value()
        .clone();
    let n = v["lines"].as_array().unwrap().len();
    assert!((20_000..40_000).contains(&n), "{n} lines returned");
    assert_eq!(v["total_lines"], 200_000);

    // A window wider than 256 KiB of text ends early, with a way to continue.
    let wide: String = (0..1000)
        .map(|_| format!("{}\n", "y".repeat(1000)))
        .collect();
    f.file("wide.txt", wide);
    let v = f
        .call("read", json!({"file_path": "wide.txt"}))
        .await
        .value()
        .clone();
    let n = v["lines"].as_array().unwrap().len() as u64;
    assert!(n < 1000, "{n} lines returned");
    assert_eq!(v["truncated"], true);
    assert_eq!(v["next_offset"], n + 1);
}

#[tokio::test]
async fn read_cuts_very_long_lines() {
    let f = Fixture::new();
    f.file("long.txt", format!("{}\nshort\n", "é".repeat(5000)));
    let v = f
        .call("read", json!({"file_path": "long.txt"}))
        .await
        .value()
        .clone();
    let first = v["lines"][0]["text"].as_str().unwrap();
    assert!(first.starts_with(&"é".repeat(2000)));
    assert!(first.ends_with("[line cut: 5000 characters]"), "{first}");
    assert_eq!(v["lines"][1]["text"], "short");
}

#[tokio::test]
async fn read_past_the_end_returns_no_lines_and_says_so() {
    let f = Fixture::new();
    f.file("a.txt", numbered(3));
    let out = f
        .call("read", json!({"file_path": "a.txt", "offset": 10}))
        .await;
    assert_eq!(out.value()["lines"], json!([]));
    assert_eq!(out.value()["offset"], 10);
    assert_eq!(out.value()["total_lines"], 3);
    assert_eq!(
        out.text(),
        "[`a.txt` has 3 lines; offset 10 is past the end]\n"
    );
    // A program reads only the value: the run's result says it.
    let program = f
        .call_in_program(
            "run-1",
            1,
            "read",
            json!({"file_path": "a.txt", "offset": 10}),
        )
        .await;
    assert_eq!(program.value()["lines"], json!([]));
    assert_eq!(program.note(), Some("offset 10 is past the end (3 lines)"));
    assert_eq!(program.cut_short(), None);
    // Reading an empty file from its start is not past its end.
    f.file("empty.txt", "");
    let empty = f
        .call_in_program("run-1", 2, "read", json!({"file_path": "empty.txt"}))
        .await;
    assert_eq!(empty.cut_short(), None);
}

#[tokio::test]
async fn read_counts_empty_files_and_unterminated_last_lines() {
    let f = Fixture::new();
    f.file("empty.txt", "");
    let out = f.call("read", json!({"file_path": "empty.txt"})).await;
    assert_eq!(out.value()["total_lines"], 0);
    assert_eq!(out.text(), "[`empty.txt` is empty]\n");

    f.file("tail.txt", "a\nb\nc");
    let v = f
        .call("read", json!({"file_path": "tail.txt", "limit": 1}))
        .await
        .value()
        .clone();
    assert_eq!(v["total_lines"], 3);
    let v = f
        .call("read", json!({"file_path": "tail.txt"}))
        .await
        .value()
        .clone();
    assert_eq!(v["lines"][2], json!({"number": 3, "text": "c"}));
    assert_eq!(v["total_lines"], 3);
}

#[tokio::test]
async fn read_refuses_binary_files() {
    let f = Fixture::new();
    f.file("blob.bin", b"\x7fELF\x00\x01\x02binary\n".repeat(10));
    let out = f.call("read", json!({"file_path": "blob.bin"})).await;
    let message = out.error();
    assert!(message.contains("`blob.bin` is a binary file"), "{message}");
}

#[tokio::test]
async fn read_decodes_utf16_text_and_says_so() {
    let f = Fixture::new();
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain("id,name\n1,Åsa\n".encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    f.file("export.csv", utf16);
    let out = f.call("read", json!({"file_path": "export.csv"})).await;
    assert_eq!(out.value()["lines"][1]["text"], "1,Åsa");
    assert_eq!(
        out.value()["note"],
        "decoded from UTF-16LE: the file is not UTF-8, and write and edit refuse it until it is \
         converted (bash: iconv -f UTF-16LE -t utf-8 'export.csv' > NEW)"
    );
}

#[tokio::test]
async fn read_decodes_text_in_another_encoding_and_says_which() {
    let f = Fixture::new();
    // An export from a spreadsheet in Windows-1252.
    f.file(
        "sales.csv",
        b"name;city\n\xc5sa;M\xfcnchen\nJos\xe9;Paris\n",
    );
    let read = json!({"file_path": "sales.csv"});
    let out = f.call("read", read.clone()).await;
    assert_eq!(out.value()["lines"][1]["text"], "Åsa;München");
    let said = "decoded from windows-1252: the file is not UTF-8, and edit changes it in that \
                encoding, write refuses it until it is converted (bash: iconv -f windows-1252 -t \
                utf-8 'sales.csv' > NEW)";
    assert_eq!(out.value()["note"], said);
    assert!(out.text().contains(&format!("[{said}]")), "{}", out.text());
    let out = f.call_in_program("run-1", 1, "read", read).await;
    assert_eq!(out.value()["lines"][2]["text"], "José;Paris");
    assert_eq!(out.note(), Some(said));
}

#[tokio::test]
async fn read_rejects_bad_offset_and_limit() {
    let f = Fixture::new();
    f.file("a.txt", "x\n");
    for args in [
        json!({"file_path": "a.txt", "offset": 0}),
        json!({"file_path": "a.txt", "offset": 1.5}),
        json!({"file_path": "a.txt", "limit": 0}),
        json!({"file_path": "a.txt", "limit": -3}),
    ] {
        let out = f.call("read", args.clone()).await;
        let message = out.error();
        assert_eq!(
            out.code(),
            Some(ptc::codes::INVALID_ARGS),
            "{args}: {message}"
        );
        assert!(message.contains("must be a whole number"), "{message}");
    }
    // Wrong types and a missing path fail schema validation.
    for args in [
        json!({"file_path": "a.txt", "offset": "2"}),
        json!({"offset": 2}),
    ] {
        let out = f.call("read", args).await;
        assert_eq!(
            out.code(),
            Some(ptc::codes::INVALID_ARGS),
            "{}",
            out.error()
        );
    }
    let out = f.call("read", json!({"file_path": ""})).await;
    assert!(out.error().contains("`file_path` is empty"));
}

#[tokio::test]
async fn read_reports_missing_files_directories_and_pipes() {
    let f = Fixture::new();
    std::fs::create_dir(f.root.join("dir")).unwrap();
    let out = f.call("read", json!({"file_path": "nope.txt"})).await;
    assert!(
        out.error().starts_with("File not found: `nope.txt`"),
        "{}",
        out.error()
    );
    let out = f.call("read", json!({"file_path": "dir"})).await;
    assert!(
        out.error().contains("`dir` is a directory"),
        "{}",
        out.error()
    );
    let status = std::process::Command::new("mkfifo")
        .arg(f.root.join("fifo"))
        .status()
        .unwrap();
    assert!(status.success());
    let out = f.call("read", json!({"file_path": "fifo"})).await;
    assert!(
        out.error().contains("not a regular file"),
        "{}",
        out.error()
    );
}

#[tokio::test]
async fn read_denies_escapes_through_dotdot_absolute_paths_and_symlinks() {
    let f = Fixture::new();
    let secret = f.outside.join("secret.txt");
    f.symlink("link.txt", &secret);
    f.symlink("linkdir", &f.outside);
    f.symlink("sub/deeper", f.outside.join("dir"));
    f.symlink("dangling", f.outside.join("missing.txt"));
    for path in [
        "../outside/secret.txt".to_string(),
        "sub/../../outside/secret.txt".to_string(),
        "..".to_string(),
        secret.display().to_string(),
        "/etc/passwd".to_string(),
        "link.txt".to_string(),
        "linkdir/secret.txt".to_string(),
        "sub/deeper/inner.txt".to_string(),
        "linkdir/not-there.txt".to_string(),
        "dangling".to_string(),
    ] {
        f.call("read", json!({"file_path": path}))
            .await
            .assert_escape();
    }
}

#[tokio::test]
async fn read_follows_symlinks_and_absolute_paths_that_stay_inside() {
    let f = Fixture::new();
    f.file("real/a.txt", "inside\n");
    f.symlink("alias.txt", f.root.join("real/a.txt"));
    f.symlink("aliasdir", "real");
    let abs = f.root.join("real/a.txt").display().to_string();
    for path in [
        "alias.txt",
        "aliasdir/a.txt",
        abs.as_str(),
        "./real/../real/a.txt",
    ] {
        let out = f.call("read", json!({"file_path": path})).await;
        assert_eq!(out.value()["lines"][0]["text"], "inside", "{path}");
        assert_eq!(out.value()["path"], "real/a.txt", "{path}");
    }
}

#[tokio::test]
async fn read_presents_a_generic_read_call_and_a_read_card() {
    let f = Fixture::new();
    f.file("src/lib.rs", numbered(5));
    let args = json!({"file_path": "src/lib.rs", "offset": 2, "limit": 2});
    match f.present_call("read", &args).unwrap() {
        ToolCallView::Generic {
            title,
            kind,
            locations,
            ..
        } => {
            assert_eq!(title, "Read src/lib.rs");
            assert_eq!(kind, Some(ToolCallKind::Read));
            assert_eq!(locations.unwrap()[0].line, Some(2));
        }
        other => panic!("unexpected call card {other:?}"),
    }
    let out = f.call("read", args).await;
    let card = f.present_result(&out).unwrap();
    assert_eq!(
        card,
        ToolResultView::Read {
            title: Some("Read src/lib.rs".into()),
            path: "src/lib.rs".into(),
            offset: 2,
            lines: vec![
                ReadFileLine {
                    number: 2,
                    text: "line 2".into()
                },
                ReadFileLine {
                    number: 3,
                    text: "line 3".into()
                },
            ],
            total_lines: 5,
            lang: Some("rust".into()),
            content: None,
        }
    );
    let json = serde_json::to_value(&card).unwrap();
    assert_eq!(json["card"], "read");
    assert_eq!(json["totalLines"], 5);

    // A failed read keeps the pending card.
    let out = f.call("read", json!({"file_path": "missing.rs"})).await;
    assert_eq!(f.present_result(&out), None);
}

#[tokio::test]
async fn read_of_a_file_that_is_not_utf8_says_so_natively_and_in_a_program() {
    let f = Fixture::new();
    // UTF-8 for as far as the encoding is judged from (8 KiB), then a Latin-1 byte.
    let mut conf = "# comment\n".repeat(1000).into_bytes();
    conf.extend_from_slice(b"version=1\nname=J\xfcrgen\n");
    f.file("kunden.conf", conf);
    let out = f.call("read", json!({"file_path": "kunden.conf"})).await;
    let note = out.value()["note"].as_str().unwrap_or_default().to_string();
    assert!(
        note.starts_with("not valid UTF-8 from line 1002: those bytes show as \u{FFFD}"),
        "{note}"
    );
    assert!(out.text().contains(&format!("[{note}]")), "{}", out.text());
    let out = f
        .call_in_program("run-1", 1, "read", json!({"file_path": "kunden.conf"}))
        .await;
    assert_eq!(
        out.note(),
        Some(
            "not valid UTF-8 from line 1002 (those bytes read as \u{FFFD}; write refuses the file)"
        )
    );
    assert_eq!(out.cut_short(), None);
}

#[tokio::test]
async fn read_of_a_missing_file_names_the_one_whose_name_differs_only_in_case() {
    let f = Fixture::new();
    f.file("Readme.md", "# hi\n");
    f.file("docs/Guide.md", "guide\n");
    let out = f.call("read", json!({"file_path": "README.md"})).await;
    assert_eq!(
        out.error(),
        "File not found: `README.md` does not exist in the workspace. Did you mean \
         `Readme.md`? Use glob to find files."
    );
    let out = f.call("read", json!({"file_path": "docs/guide.md"})).await;
    assert!(
        out.error().contains("Did you mean `docs/Guide.md`?"),
        "{}",
        out.error()
    );
    // Two candidates, or none: no guess.
    f.file("readme.MD", "# other\n");
    let out = f.call("read", json!({"file_path": "README.md"})).await;
    assert!(!out.error().contains("Did you mean"), "{}", out.error());
    let out = f.call("read", json!({"file_path": "nope.md"})).await;
    assert!(!out.error().contains("Did you mean"), "{}", out.error());
}

#[tokio::test]
async fn a_name_written_in_another_unicode_normalization_is_told_apart_from_a_missing_one() {
    let f = Fixture::new();
    // Decomposed accents (NFD), as macOS writes names; the model types them composed.
    f.file("notes/re\u{301}sume\u{301}.md", "# CV\n");
    let out = f
        .call("read", json!({"file_path": "notes/r\u{e9}sum\u{e9}.md"}))
        .await;
    assert!(out.result.is_error());
    assert!(
        out.error().contains(
            "its name written in other Unicode code points (decomposed accents, as macOS writes \
             names): pass \"notes/re\\u0301sume\\u0301.md\""
        ),
        "{}",
        out.error()
    );
    let asked = f
        .call(
            "read",
            json!({"file_path": "notes/re\u{301}sume\u{301}.md"}),
        )
        .await;
    assert!(!asked.result.is_error(), "{}", asked.error());
}
