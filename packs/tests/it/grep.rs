//! The `grep` tool: ripgrep syntax and filters, grouped `path:line:text` output, the
//! 250-match cap with true totals, binary and odd files, confinement, its card.

use crate::builtin_support;

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

use builtin_support::{match_sites, Fixture};
use ptc::presentation::{SearchShape, ToolCallKind, ToolCallView, ToolResultView};
use serde_json::json;

#[tokio::test]
async fn grep_returns_matching_lines_grouped_by_file_in_path_order() {
    let f = Fixture::new();
    f.file("b.rs", "fn b() {}\n// TODO: b\n");
    f.file("a/x.rs", "// TODO: first\nok\n// TODO: second\n");
    f.file("c.txt", "nothing here\n");
    let out = f.call("grep", json!({"pattern": "TODO"})).await;
    let v = out.value();
    assert_eq!(
        v["matches"],
        json!([
            {"path": "a/x.rs", "line": 1, "text": "// TODO: first"},
            {"path": "a/x.rs", "line": 3, "text": "// TODO: second"},
            {"path": "b.rs", "line": 2, "text": "// TODO: b"},
        ])
    );
    assert_eq!(v["total"], 3);
    assert_eq!(v["files"], 2);
    assert_eq!(v["truncated"], false);
    assert_eq!(
        out.text(),
        "3 matching lines in 2 files\n\na/x.rs:1:// TODO: first\na/x.rs:3:// TODO: second\n\nb.rs:2:// TODO: b\n"
    );
    let out = f.call("grep", json!({"pattern": "absent"})).await;
    assert_eq!(out.value()["total"], 0);
    assert_eq!(out.text(), "No matches for `absent`.");
}

#[tokio::test]
async fn grep_speaks_ripgrep_regex_syntax() {
    let f = Fixture::new();
    f.file("a.txt", "Foo\nfoobar\nfoo bar\n");
    let v = f
        .call("grep", json!({"pattern": r"\bfoo\b"}))
        .await
        .value()
        .clone();
    assert_eq!(match_sites(&v), ["a.txt:3"]);
    let v = f
        .call("grep", json!({"pattern": "(?i)^foo$"}))
        .await
        .value()
        .clone();
    assert_eq!(match_sites(&v), ["a.txt:1"]);
}

#[tokio::test]
async fn grep_filters_files_with_one_include_glob() {
    let f = Fixture::new();
    for name in ["a.ts", "b.js", "c.jsx", "d.rs", "sub/e.ts"] {
        f.file(name, "needle\n");
    }
    let v = f
        .call("grep", json!({"pattern": "needle", "include": "*.ts"}))
        .await
        .value()
        .clone();
    assert_eq!(match_sites(&v), ["a.ts:1", "sub/e.ts:1"]);
    let v = f
        .call(
            "grep",
            json!({"pattern": "needle", "include": "*.{js,jsx}"}),
        )
        .await
        .value()
        .clone();
    assert_eq!(match_sites(&v), ["b.js:1", "c.jsx:1"]);
    // A leading `./` anchors the glob at the searched directory.
    let v = f
        .call(
            "grep",
            json!({"pattern": "needle", "include": "./sub/*.ts"}),
        )
        .await
        .value()
        .clone();
    assert_eq!(match_sites(&v), ["sub/e.ts:1"]);
    let v = f
        .call("grep", json!({"pattern": "needle", "include": "./*.ts"}))
        .await
        .value()
        .clone();
    assert_eq!(match_sites(&v), ["a.ts:1"]);
    let v = f
        .call("grep", json!({"pattern": "needle", "path": "sub"}))
        .await
        .value()
        .clone();
    assert_eq!(match_sites(&v), ["sub/e.ts:1"]);
    let v = f
        .call("grep", json!({"pattern": "needle", "path": "d.rs"}))
        .await
        .value()
        .clone();
    assert_eq!(match_sites(&v), ["d.rs:1"]);
}

#[tokio::test]
async fn grep_searches_hidden_files_but_skips_binary_vcs_and_git_ignored_ones() {
    let f = Fixture::new();
    f.file("bin.dat", b"needle\x00\x01\x02needle\n");
    f.file(".hidden.txt", "needle\n");
    f.file(".git/HEAD", "needle\n");
    f.file(".gitignore", "ignored.txt\n");
    f.file("ignored.txt", "needle\n");
    f.file("text.txt", "needle\n");
    let v = f
        .call("grep", json!({"pattern": "needle"}))
        .await
        .value()
        .clone();
    // Hidden files are searched (glob finds them too); VCS metadata and .gitignored are not.
    assert_eq!(match_sites(&v), [".hidden.txt:1", "text.txt:1"]);
    // A binary file named explicitly is still skipped.
    let v = f
        .call("grep", json!({"pattern": "needle", "path": "bin.dat"}))
        .await
        .value()
        .clone();
    assert_eq!(v["total"], 0);
}

#[tokio::test]
async fn grep_searches_a_text_file_with_a_stray_nul_past_its_first_8_kib_as_text() {
    let f = Fixture::new();
    let mut log = Vec::new();
    for i in 1..=600 {
        if i == 501 {
            log.extend_from_slice(b"garbled \x00 line\n");
        }
        log.extend_from_slice(format!("2026-12-02 ERROR request {i} failed\n").as_bytes());
    }
    f.file("events.txt", &log[..]);
    // A binary format shows a NUL in its first bytes: still skipped.
    f.file("image.bin", b"\x89PNG\x00\x00ERROR\n");
    for args in [
        json!({"pattern": "ERROR", "path": "events.txt"}),
        json!({"pattern": "ERROR"}),
    ] {
        let v = f.call("grep", args).await.value().clone();
        assert_eq!(
            v["total"], 600,
            "every line, the ones past the NUL too: {v}"
        );
        assert_eq!(v["files"], 1);
    }
}

#[tokio::test]
async fn grep_caps_inline_matches_at_250_with_the_true_totals() {
    let f = Fixture::new();
    for i in 0..4 {
        let body: String = (0..100).map(|j| format!("hit {i} {j}\n")).collect();
        f.file(format!("f{i}.txt"), body);
    }
    let out = f.call("grep", json!({"pattern": "hit"})).await;
    let v = out.value();
    let matches = v["matches"].as_array().unwrap();
    assert_eq!(matches.len(), 250);
    assert_eq!(v["total"], 400);
    assert_eq!(v["files"], 4);
    assert_eq!(v["truncated"], true);
    // The first 250 in path order: all of f0 and f1, half of f2.
    assert_eq!(matches[0]["path"], "f0.txt");
    assert_eq!(
        matches[249],
        json!({"path": "f2.txt", "line": 50, "text": "hit 2 49"})
    );
    assert!(out.text().starts_with("400 matching lines in 4 files\n"));
    assert!(out.text().ends_with(
        "[showing the first 250 of 400 matching lines, by path; narrow the pattern, path or include, or page with offset=250, to see the rest]\n"
    ));
}

#[tokio::test]
async fn grep_counts_every_match_of_a_huge_file_and_cuts_long_lines() {
    let f = Fixture::new();
    let body: String = (0..200_000)
        .map(|i| format!("row {i} {}\n", if i % 2 == 0 { "even" } else { "odd" }))
        .collect();
    f.file("huge.txt", body);
    f.file("long.txt", format!("{}needle\n", "x".repeat(10_000)));
    let v = f
        .call("grep", json!({"pattern": "even$"}))
        .await
        .value()
        .clone();
    assert_eq!(v["total"], 100_000);
    assert_eq!(v["matches"].as_array().unwrap().len(), 250);
    let v = f
        .call("grep", json!({"pattern": "needle"}))
        .await
        .value()
        .clone();
    let text = v["matches"][0]["text"].as_str().unwrap();
    assert!(
        text.len() < 600 && text.ends_with("[line cut: 10006 characters]"),
        "{text}"
    );
}

#[tokio::test]
async fn grep_finds_matches_in_files_with_non_utf8_names_and_contents() {
    let f = Fixture::new();
    std::fs::write(
        f.root.join(OsStr::from_bytes(b"na\xefve.txt")),
        b"caf\xe9 needle\n",
    )
    .unwrap();
    let v = f
        .call("grep", json!({"pattern": "needle"}))
        .await
        .value()
        .clone();
    assert_eq!(
        v["matches"],
        json!([{"path": "na\u{FFFD}ve.txt", "line": 1, "text": "caf\u{FFFD} needle"}])
    );
}

#[tokio::test]
async fn grep_never_reads_outside_the_root() {
    let f = Fixture::new();
    f.file("in.txt", "secret inside\n");
    f.symlink("linkdir", &f.outside);
    f.symlink("link.txt", f.outside.join("secret.txt"));
    let v = f
        .call("grep", json!({"pattern": "secret"}))
        .await
        .value()
        .clone();
    assert_eq!(match_sites(&v), ["in.txt:1"]);
    let abs = f.outside.join("secret.txt").display().to_string();
    for path in [
        "..",
        "../outside",
        abs.as_str(),
        "linkdir",
        "link.txt",
        "linkdir/dir",
    ] {
        f.call("grep", json!({"pattern": "secret", "path": path}))
            .await
            .assert_escape();
    }
}

#[tokio::test]
async fn grep_rejects_bad_patterns_includes_and_paths() {
    let f = Fixture::new();
    for (args, expect) in [
        (json!({"pattern": ""}), "`pattern` is empty"),
        (
            json!({"pattern": "(unclosed"}),
            "not a usable regular expression",
        ),
        (
            json!({"pattern": "fn main\\(\\)\\n\\s*where"}),
            "lines are searched one at a time: search for one line of the text",
        ),
        (
            json!({"pattern": "x", "include": "!*.rs"}),
            "negated globs are not supported",
        ),
        (
            json!({"pattern": "x", "include": "a[b"}),
            "`include` is not a valid glob",
        ),
        (json!({"pattern": ["x"]}), "Invalid arguments"),
    ] {
        let out = f.call("grep", args).await;
        assert_eq!(
            out.code(),
            Some(ptc::codes::INVALID_ARGS),
            "{}",
            out.error()
        );
        assert!(out.error().contains(expect), "{}", out.error());
    }
    let out = f
        .call("grep", json!({"pattern": "x", "path": "nowhere"}))
        .await;
    assert!(out.error().starts_with("Path not found"), "{}", out.error());
}

#[tokio::test]
async fn grep_presents_a_search_call_and_a_grouped_matches_card() {
    let f = Fixture::new();
    f.file("a.rs", "TODO 1\nTODO 2\n");
    f.file("b.rs", "TODO 3\n");
    let args = json!({"pattern": "TODO"});
    match f.present_call("grep", &args).unwrap() {
        ToolCallView::Generic { title, kind, .. } => {
            assert_eq!(title, "Grep TODO");
            assert_eq!(kind, Some(ToolCallKind::Search));
        }
        other => panic!("unexpected call card {other:?}"),
    }
    let out = f.call("grep", args).await;
    let card = f.present_result(&out).unwrap();
    assert_eq!(
        card,
        ToolResultView::Search {
            shape: SearchShape::Matches,
            title: Some("Grep TODO".into()),
            truncated: false,
            total: 3,
            data: Some(json!({"files": [
                {"path": "a.rs", "matches": [{"line": 1, "text": "TODO 1"}, {"line": 2, "text": "TODO 2"}]},
                {"path": "b.rs", "matches": [{"line": 1, "text": "TODO 3"}]},
            ]})),
        }
    );
    let json = serde_json::to_value(&card).unwrap();
    assert_eq!(json["card"], "search");
    assert_eq!(json["shape"], "matches");
}

/// A git workspace whose `.gitignore` leaves out `logs/` and `*.log`, with errors only in logs.
fn ignored_logs() -> Fixture {
    let f = Fixture::new();
    f.file(".git/HEAD", "ref: refs/heads/main\n");
    f.file(".gitignore", "logs/\n*.log\n");
    f.file("logs/server.log", "a INFO\nb ERROR x\nc ERROR y\n");
    f.file("logs/old/notes.txt", "d ERROR z\n");
    f.file("build.log", "e ERROR w\n");
    f.file("src/main.rs", "fn main() {}\n");
    f
}

#[tokio::test]
async fn grep_searches_an_ignored_folder_named_as_path() {
    let f = ignored_logs();
    let v = f
        .call("grep", json!({"pattern": " ERROR ", "path": "logs"}))
        .await
        .value()
        .clone();
    assert_eq!(
        match_sites(&v),
        [
            "logs/old/notes.txt:1",
            "logs/server.log:2",
            "logs/server.log:3"
        ]
    );
    // A folder inside the ignored one, too; and a file named is searched as before.
    for (path, total) in [("logs/old", 1), ("logs/server.log", 2), ("build.log", 1)] {
        let v = f
            .call("grep", json!({"pattern": " ERROR ", "path": path}))
            .await
            .value()
            .clone();
        assert_eq!(v["total"], total, "{path}");
    }
}

#[tokio::test]
async fn grep_that_found_nothing_or_ran_in_a_program_says_how_many_ignored_files_it_left_out() {
    let f = ignored_logs();
    let out = f.call("grep", json!({"pattern": " ERROR "})).await;
    assert_eq!(out.value()["total"], 0);
    assert_eq!(out.value()["ignored"], 3);
    assert_eq!(
        out.text(),
        "No matches for ` ERROR `.\n[3 .gitignored file(s) under `.` not searched; pass an \
         ignored folder or file as path to search it (glob lists them)]"
    );
    let program = f
        .call_in_program("run-1", 1, "grep", json!({"pattern": " ERROR "}))
        .await;
    // In a program the folders left out whole are named (not `build.log`, left out alone).
    let said = "3 .gitignored file(s) under `.` not searched (in `logs/`); pass an ignored \
                folder or file as path to search it (glob lists them)";
    // Left out by rule, not cut: a note.
    assert_eq!(program.note(), Some(said));
    assert_eq!(program.cut_short(), None);
    // A search that found something is not slowed by counting them for the model's context;
    // in a program, where a total is data, they are counted and said.
    let found = f.call("grep", json!({"pattern": "main"})).await;
    assert_eq!(found.value().get("ignored"), None);
    let found = f
        .call_in_program("run-1", 2, "grep", json!({"pattern": "main"}))
        .await;
    assert!(found.value()["total"].as_u64() > Some(0));
    assert_eq!(found.value()["ignored"], 3);
    assert_eq!(found.note(), Some(said));
}

#[tokio::test]
async fn grep_names_every_folder_a_gitignore_line_hides_and_says_when_there_is_no_repository() {
    // A copy of a project, no git repository: `dist/` hides the vendored packages' `dist` too.
    let f = Fixture::new();
    f.file(".gitignore", "dist/\n");
    f.file("src/a.ts", "safeTry();\n");
    f.file("dist/a.js", "safeTry();\n");
    for pkg in ["a", "b", "c", "d"] {
        f.file(format!("vendor/{pkg}/dist/index.js"), "safeTry();\n");
        f.file(format!("vendor/{pkg}/dist/deep/more.js"), "safeTry();\n");
    }
    let out = f
        .call_in_program("run-1", 1, "grep", json!({"pattern": "safeTry"}))
        .await;
    assert_eq!(out.value()["total"], 1);
    assert_eq!(out.value()["ignored"], 9);
    assert_eq!(
        out.note(),
        Some(
            "9 .gitignored file(s) under `.` not searched (in `dist/`, `vendor/a/dist/`, \
             `vendor/b/dist/` and 2 more folder(s)) (a .gitignore counts here though this is no \
             git repository); pass an ignored folder or file as path to search it (glob lists \
             them)"
        )
    );
}

#[tokio::test]
async fn grep_of_a_slash_delimited_pattern_that_found_nothing_says_to_drop_the_slashes() {
    let f = Fixture::new();
    f.file("a.ts", "export default 1;\n");
    let out = f.call("grep", json!({"pattern": "/export default/"})).await;
    assert_eq!(out.value()["total"], 0);
    assert_eq!(
        out.text(),
        "No matches for `/export default/`.\n[patterns take no /…/ delimiters: search for \
         `export default`]"
    );
    let program = f
        .call_in_program("run-1", 1, "grep", json!({"pattern": "/EXPORT/i"}))
        .await;
    assert_eq!(
        program.note(),
        Some("patterns take no /…/ delimiters: search for `(?i)EXPORT`")
    );
    assert_eq!(program.cut_short(), None);
    // A path between slashes is searched for with its slashes too: said, without advice.
    let path = f
        .call_in_program("run-1", 2, "grep", json!({"pattern": "/usr/bin/"}))
        .await;
    assert_eq!(
        path.note(),
        Some(
            "the pattern's /…/ were searched for as characters (patterns take no delimiters; \
             without them: `usr/bin`)"
        )
    );
    let slash = f.call_in_program("run-1", 3, "grep", json!({"pattern": "/"}));
    assert_eq!(slash.await.note(), None);
}

#[tokio::test]
async fn grep_of_a_slash_delimited_pattern_that_found_something_says_the_slashes_were_searched_too()
{
    let f = Fixture::new();
    f.file("b.txt", "see /export/ here\nexport default 1;\n");
    let found = f
        .call_in_program("run-1", 1, "grep", json!({"pattern": "/export/"}))
        .await;
    assert_eq!(found.value()["total"], 1);
    let said = "the pattern's /…/ were searched for as characters (patterns take no \
                delimiters; without them: `export`)";
    assert_eq!(found.note(), Some(said));
    let native = f.call("grep", json!({"pattern": "/export/"})).await;
    assert!(
        native.text().ends_with(&format!("\n[{said}]\n")),
        "{}",
        native.text()
    );
    // Plain patterns get no such note.
    let plain = f
        .call_in_program("run-1", 2, "grep", json!({"pattern": "export"}))
        .await;
    assert_eq!(plain.note(), None);
}

#[tokio::test]
async fn grep_in_a_program_says_when_the_sandbox_denied_entries() {
    let f = Fixture::with_deny(&["private"]);
    f.file("private/key.txt", "needle\n");
    f.file("open.txt", "needle\n");
    let out = f
        .call_in_program("run-1", 1, "grep", json!({"pattern": "needle"}))
        .await;
    assert_eq!(out.value()["total"], 1);
    assert_eq!(out.value()["denied"], 1);
    assert_eq!(
        out.cut_short(),
        Some("1 entry left out: the sandbox denies them")
    );
}

#[tokio::test]
async fn grep_counts_ignored_files_only_up_to_a_cap() {
    let f = Fixture::new();
    f.file(".git/HEAD", "ref: refs/heads/main\n");
    f.file(".gitignore", "deps/\n");
    let deps = f.root.join("deps");
    std::fs::create_dir_all(&deps).unwrap();
    for i in 0..10_050 {
        std::fs::write(deps.join(format!("m{i}.js")), "x\n").unwrap();
    }
    let out = f.call("grep", json!({"pattern": "absent"})).await;
    assert_eq!(out.value()["ignored"], 10_000);
    assert!(
        out.text()
            .contains("[10,000+ .gitignored file(s) under `.` not searched"),
        "{}",
        out.text()
    );
}

#[tokio::test]
async fn grep_for_a_byte_order_mark_says_it_can_never_match_one() {
    let f = Fixture::new();
    f.file("bom.json", "\u{feff}{\"a\": 1}\n");
    for pattern in ["^\\x{FEFF}", "\\uFEFF", "(?-u)\\xEF\\xBB\\xBF", "^\u{feff}"] {
        let out = f.call("grep", json!({ "pattern": pattern })).await;
        assert_eq!(out.value()["total"], 0, "{pattern}");
        assert!(
            out.text()
                .contains("byte order mark is dropped before matching"),
            "{pattern}: {}",
            out.text()
        );
    }
    let plain = f.call("grep", json!({ "pattern": "^\\{" })).await;
    assert_eq!(
        plain.value()["total"],
        1,
        "line 1 is matched without its BOM"
    );
    assert!(!plain.text().contains("byte order mark"));
}

#[tokio::test]
async fn grep_leaves_out_gitignored_files_outside_a_git_repository_too() {
    // A copy of a project, without its .git: the description's rule still holds.
    let f = Fixture::new();
    f.file(".gitignore", "Cargo.lock\n");
    f.file("Cargo.lock", "needle\n");
    f.file("src/lib.rs", "needle\n");
    let v = f
        .call("grep", json!({"pattern": "needle"}))
        .await
        .value()
        .clone();
    assert_eq!(match_sites(&v), ["src/lib.rs:1"]);
}

#[tokio::test]
async fn a_non_ascii_pattern_searches_files_in_another_encoding_decoded_and_says_so() {
    let f = Fixture::new();
    f.file("data/i18n.txt", "naïve café\n");
    // "café au lait" in Latin-1.
    f.file("data/legacy.txt", b"caf\xe9 au lait\n");
    f.file("data/plain.txt", "tea\n");
    f.file("data/image.bin", b"\x89PNG\x00\xff\xfe");
    let out = f
        .call_in_program("run", 1, "grep", json!({"pattern": "café", "path": "data"}))
        .await;
    assert_eq!(
        match_sites(out.value()),
        ["data/i18n.txt:1", "data/legacy.txt:1"]
    );
    assert_eq!(out.value()["matches"][1]["text"], "café au lait");
    assert_eq!(
        out.note(),
        Some(
            "1 file(s) not in UTF-8 were searched decoded (first: `data/legacy.txt`, \
             windows-1252); read shows them decoded too"
        )
    );
    // An ASCII pattern matches the same bytes in any ASCII-based encoding: nothing to say.
    let out = f
        .call_in_program("run", 2, "grep", json!({"pattern": "tea", "path": "data"}))
        .await;
    assert_eq!(match_sites(out.value()), ["data/plain.txt:1"]);
    assert_eq!(out.note(), None);
    // A file in another encoding whose other lines match is decoded too (the twelfth fresh
    // pass counted München and Paris over a UTF-8 and a cp1252 export: 43 of 92 found).
    f.file("exports/q1.csv", "1;München;5\n2;Paris;7\n");
    f.file("exports/q2.csv", b"1;M\xfcnchen;5\n2;Paris;7\n");
    let across = json!({"pattern": ";(München|Paris);", "path": "exports"});
    let out = f.call_in_program("run", 3, "grep", across).await;
    assert_eq!(
        match_sites(out.value()),
        [
            "exports/q1.csv:1",
            "exports/q1.csv:2",
            "exports/q2.csv:1",
            "exports/q2.csv:2"
        ]
    );
    // UTF-8 for as far as the encoding is judged from: what it cannot decode, it says.
    let mut late = "# header\n".repeat(1000).into_bytes();
    late.extend_from_slice(b"caf\xe9\n");
    f.file("late/notes.txt", late);
    let out = f
        .call_in_program("run", 4, "grep", json!({"pattern": "café", "path": "late"}))
        .await;
    assert_eq!(out.value()["total"], 0);
    assert_eq!(
        out.note(),
        Some(
            "1 file(s) searched are not UTF-8 (first: `late/notes.txt`), and the pattern's \
             non-ASCII characters match UTF-8 text only: lines of theirs in another encoding \
             were not found (read says which encoding; convert with bash iconv)"
        )
    );
}

#[tokio::test]
async fn a_search_whose_include_matches_nothing_as_written_says_what_it_may_have_meant() {
    let f = Fixture::new();
    f.file("click/core.py", "def main():\n    pass\n");
    let said = "`include` may have matched no file: `.py` matches only a name that is exactly \
                `.py`: `*.py` is the files ending in it";
    let out = f
        .call("grep", json!({"pattern": "def ", "include": ".py"}))
        .await;
    assert_eq!(out.value()["total"], 0);
    assert!(out.text().ends_with(&format!("[{said}]")), "{}", out.text());
    let program = f
        .call_in_program(
            "run-1",
            1,
            "grep",
            json!({"pattern": "def ", "include": ".py"}),
        )
        .await;
    assert_eq!(program.note(), Some(said));
    let found = f
        .call_in_program(
            "run-1",
            2,
            "grep",
            json!({"pattern": "def ", "include": "*.py"}),
        )
        .await;
    assert_eq!(found.value()["total"], 1);
    assert_eq!(found.note(), None);
}

#[tokio::test]
async fn an_include_anchored_in_a_folder_that_is_not_there_is_named_before_the_pattern() {
    let f = Fixture::new();
    f.file("flask/tests/test_app.py", "    assert app\n");
    // `\s*` at the start could not be why nothing matched: the include is.
    let asked = json!({"pattern": "^\\s*assert\\b", "include": "tests/**/*.py"});
    let out = f.call_in_program("run-1", 1, "grep", asked).await;
    assert_eq!(out.value()["total"], 0);
    assert_eq!(
        out.note(),
        Some(
            "`include` may have matched no file: `tests/**/*.py` is anchored at `.`, which has \
             no folder `tests`: `**/tests/**/*.py` matches it at any depth"
        )
    );
    let anywhere = json!({"pattern": "^\\s*assert\\b", "include": "**/tests/**/*.py"});
    let found = f.call_in_program("run-1", 2, "grep", anywhere).await;
    assert_eq!(found.value()["total"], 1);
    assert_eq!(found.note(), None);
}

#[tokio::test]
async fn links_a_search_does_not_follow_are_counted_and_the_first_named() {
    let f = Fixture::new();
    f.file("packages/minimist/index.js", "module.exports = parse\n");
    f.symlink("node_modules/minimist", f.root.join("packages/minimist"));
    let out = f
        .call_in_program(
            "run-1",
            1,
            "grep",
            json!({"pattern": "exports", "path": "node_modules"}),
        )
        .await;
    assert_eq!(out.value()["total"], 0);
    assert_eq!(out.value()["links"], 1);
    assert_eq!(
        out.note(),
        Some(
            "1 symbolic link(s) not followed (first: `node_modules/minimist`): to search what \
             one leads to, pass it as `path` (it must stay inside the workspace)"
        )
    );
    let named = json!({"pattern": "exports", "path": "node_modules/minimist"});
    assert_eq!(f.call("grep", named).await.value()["total"], 1);
}

#[tokio::test]
async fn a_pattern_written_to_match_across_lines_says_grep_matches_one_line_at_a_time() {
    let f = Fixture::new();
    f.file(
        "index.js",
        "module.exports = {\n  SemVer,\n  parse,\n}\nfunction  main() {}\n",
    );
    let said =
        "lines are searched one at a time: `[\\s\\S]` and `(?s).` stop at the line's end, so \
                no match spans lines (to match across lines, read the file and search its text \
                with a JS regex)";
    let across = json!({"pattern": "module.exports = \\{[\\s\\S]*?SemVer"});
    let out = f.call_in_program("run-1", 1, "grep", across.clone()).await;
    assert_eq!(out.value()["total"], 0);
    assert_eq!(out.note(), Some(said));
    let native = f.call("grep", across).await;
    assert!(
        native.text().ends_with(&format!("[{said}]")),
        "{}",
        native.text()
    );
    // `\s` within a line finds what it finds: nothing to say; when it finds nothing, it may
    // have been meant to reach the next line.
    let within = json!({"pattern": "function\\s+main"});
    let out = f.call_in_program("run-1", 2, "grep", within).await;
    assert_eq!(out.value()["total"], 1);
    assert_eq!(out.note(), None);
    let out = f
        .call_in_program("run-1", 3, "grep", json!({"pattern": "\\{\\s+SemVer"}))
        .await;
    assert_eq!(out.value()["total"], 0);
    assert!(
        out.note().is_some_and(|n| n.contains("a class that includes a line break (`\\s`, `[^…]`) stops")),
        "{:?}",
        out.note()
    );
}

#[tokio::test]
async fn an_include_of_globs_separated_by_spaces_is_refused_as_a_list() {
    let f = Fixture::new();
    f.file("a.ts", "export const a = 1\n");
    let out = f
        .call("grep", json!({"pattern": "export", "include": "*.ts *.js"}))
        .await;
    let error = out.error();
    assert!(
        error.contains("is one glob, not a list") && error.contains("`{*.ts,*.js}`"),
        "{error}"
    );
}

#[tokio::test]
async fn look_around_and_backreferences_search_with_pcre2() {
    let f = Fixture::new();
    f.file(
        "prices.txt",
        "price: $12\ncost: 30\nfoo bar\nfoobaz\nhello hello\n",
    );
    let found = |pattern: &'static str| {
        let f = &f;
        async move {
            let out = f.call("grep", json!({"pattern": pattern})).await;
            assert!(!out.result.is_error(), "{pattern}: {}", out.error());
            match_sites(out.value())
        }
    };
    assert_eq!(found("(?<=\\$)\\d+").await, ["prices.txt:1"]);
    assert_eq!(found("foo(?! bar)").await, ["prices.txt:4"]);
    assert_eq!(found("\\b(\\w+) \\1\\b").await, ["prices.txt:5"]);
}

#[tokio::test]
async fn a_pattern_pcre2_gives_up_on_says_which_files_were_not_searched_to_the_end() {
    let f = Fixture::new();
    f.file("a.txt", format!("{}b\n", "a".repeat(40)));
    let out = f
        .call_in_program("run-1", 1, "grep", json!({"pattern": "^(a+)+(?=c)"}))
        .await;
    assert_eq!(out.value()["total"], 0);
    assert_eq!(
        out.cut_short(),
        Some(
            "1 file(s) not searched to the end: PCRE2, which runs look-around patterns, gave up \
             backtracking on a line (first: `a.txt`; simplify the pattern)"
        )
    );
}
