//! The `glob` tool: rg-style glob semantics, newest-first order, hidden and ignored
//! files, the 100-path cap with the true total, confinement, odd names, its card.

use crate::builtin_support;

use std::ffi::OsStr;
use std::fs::File;
use std::os::unix::ffi::OsStrExt;
use std::time::{Duration, SystemTime};

use builtin_support::Fixture;
use ptc::presentation::{SearchShape, ToolCallKind, ToolCallView, ToolResultView};
use serde_json::{json, Value};

fn paths(v: &Value) -> Vec<String> {
    let mut p: Vec<String> = v["paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().to_string())
        .collect();
    p.sort();
    p
}

fn tree(f: &Fixture) {
    f.file("main.rs", "");
    f.file("src/lib.rs", "");
    f.file("src/deep/mod.rs", "");
    f.file("src/app.test.js", "");
    f.file("web/app.ts", "");
}

#[tokio::test]
async fn glob_matches_names_at_any_depth_and_anchors_patterns_with_slashes() {
    let f = Fixture::new();
    tree(&f);
    let v = f
        .call("glob", json!({"pattern": "*.rs"}))
        .await
        .value()
        .clone();
    assert_eq!(paths(&v), ["main.rs", "src/deep/mod.rs", "src/lib.rs"]);
    let v = f
        .call("glob", json!({"pattern": "src/**/*.rs"}))
        .await
        .value()
        .clone();
    assert_eq!(paths(&v), ["src/deep/mod.rs", "src/lib.rs"]);
    let v = f
        .call("glob", json!({"pattern": "src/*.rs"}))
        .await
        .value()
        .clone();
    assert_eq!(paths(&v), ["src/lib.rs"]);
    let v = f
        .call("glob", json!({"pattern": "**/*.{ts,js}"}))
        .await
        .value()
        .clone();
    assert_eq!(paths(&v), ["src/app.test.js", "web/app.ts"]);
    let v = f
        .call("glob", json!({"pattern": "*.rs", "path": "src"}))
        .await
        .value()
        .clone();
    assert_eq!(paths(&v), ["src/deep/mod.rs", "src/lib.rs"]);
    assert_eq!(v["total"], 2);
    assert_eq!(v["truncated"], false);
    let out = f.call("glob", json!({"pattern": "*.py"})).await;
    assert_eq!(out.value()["total"], 0);
    assert_eq!(out.text(), "No files match `*.py`.");
}

#[tokio::test]
async fn glob_reads_a_leading_dot_slash_or_the_directory_s_own_path_as_an_anchor() {
    let f = Fixture::new();
    tree(&f);
    let root = f.root.display().to_string();
    for (pattern, path, expect) in [
        ("./src/**/*.rs", None, vec!["src/deep/mod.rs", "src/lib.rs"]),
        // The directory's own files, not every `.rs` below it.
        ("./*.rs", None, vec!["main.rs"]),
        ("./*.rs", Some("./src"), vec!["src/lib.rs"]),
        (&format!("{root}/src/*.rs"), None, vec!["src/lib.rs"]),
        (&format!("{root}/src/*.rs"), Some("src"), vec!["src/lib.rs"]),
        // An absolute path elsewhere is a glob like any other: it names nothing under `src`.
        (&format!("{root}/web/*.ts"), Some("src"), vec![]),
        (
            &format!("{root}/src/*.rs"),
            Some(root.as_str()),
            vec!["src/lib.rs"],
        ),
    ] {
        let mut args = json!({ "pattern": pattern });
        if let Some(path) = path {
            args["path"] = json!(path);
        }
        let v = f.call("glob", args).await.value().clone();
        assert_eq!(paths(&v), expect, "{pattern} in {path:?}");
    }
}

#[tokio::test]
async fn glob_sorts_newest_first() {
    let f = Fixture::new();
    let now = SystemTime::now();
    for (name, age) in [("old.txt", 300), ("new.txt", 10), ("mid.txt", 100)] {
        let path = f.file(name, "x");
        File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(now - Duration::from_secs(age))
            .unwrap();
    }
    let out = f.call("glob", json!({"pattern": "*.txt"})).await;
    assert_eq!(
        out.value()["paths"],
        json!(["new.txt", "mid.txt", "old.txt"])
    );
    assert_eq!(out.text(), "new.txt\nmid.txt\nold.txt\n");
}

#[tokio::test]
async fn glob_includes_hidden_and_ignored_files_but_skips_vcs_directories() {
    let f = Fixture::new();
    f.file(".git/config", "");
    f.file(".git/HEAD", "");
    f.file(".gitignore", "ignored.txt\n");
    f.file("ignored.txt", "");
    f.file(".hidden/h.txt", "");
    f.file("plain.txt", "");
    let v = f
        .call("glob", json!({"pattern": "**/*"}))
        .await
        .value()
        .clone();
    assert_eq!(
        paths(&v),
        [".gitignore", ".hidden/h.txt", "ignored.txt", "plain.txt"]
    );
}

#[tokio::test]
async fn glob_caps_inline_paths_at_100_and_reports_the_true_total() {
    let f = Fixture::new();
    for i in 0..150 {
        f.file(format!("many/f{i:03}.txt"), "");
    }
    let out = f.call("glob", json!({"pattern": "*.txt"})).await;
    let v = out.value();
    assert_eq!(v["paths"].as_array().unwrap().len(), 100);
    assert_eq!(v["total"], 150);
    assert_eq!(v["truncated"], true);
    assert!(
        out.text()
            .ends_with("[showing the 100 newest of 150 matching files; narrow the pattern or path, or page with offset=100]\n"),
        "{}",
        out.text()
    );
}

#[tokio::test]
async fn glob_confines_the_search_directory_and_never_follows_links_out() {
    let f = Fixture::new();
    f.file("in.txt", "");
    f.symlink("linkdir", &f.outside);
    f.symlink("link.txt", f.outside.join("secret.txt"));
    let v = f
        .call("glob", json!({"pattern": "**/*.txt"}))
        .await
        .value()
        .clone();
    assert_eq!(paths(&v), ["in.txt"]);
    let abs = f.outside.display().to_string();
    for path in ["..", "../outside", abs.as_str(), "linkdir", "/"] {
        f.call("glob", json!({"pattern": "*", "path": path}))
            .await
            .assert_escape();
    }
}

#[tokio::test]
async fn glob_lists_non_utf8_names_lossily() {
    let f = Fixture::new();
    let name = OsStr::from_bytes(b"caf\xe9.txt");
    std::fs::write(f.root.join(name), "x").unwrap();
    let v = f
        .call("glob", json!({"pattern": "*.txt"}))
        .await
        .value()
        .clone();
    assert_eq!(v["paths"], json!(["caf\u{FFFD}.txt"]));
}

#[tokio::test]
async fn glob_rejects_bad_patterns_and_paths() {
    let f = Fixture::new();
    f.file("file.txt", "");
    for (args, expect) in [
        (json!({"pattern": ""}), "`pattern` is empty"),
        (json!({"pattern": "a[b"}), "not a valid glob"),
        (
            json!({"pattern": "!*.txt"}),
            "negated globs are not supported",
        ),
        (json!({"pattern": 5}), "Invalid arguments"),
    ] {
        let out = f.call("glob", args).await;
        assert_eq!(out.code(), Some(ptc::codes::INVALID_ARGS));
        assert!(out.error().contains(expect), "{}", out.error());
    }
    let out = f
        .call("glob", json!({"pattern": "*", "path": "file.txt"}))
        .await;
    assert!(
        out.error().contains("is a file, not a directory"),
        "{}",
        out.error()
    );
    let out = f
        .call("glob", json!({"pattern": "*", "path": "nowhere"}))
        .await;
    assert!(
        out.error().starts_with("Directory not found"),
        "{}",
        out.error()
    );
}

#[tokio::test]
async fn glob_presents_a_search_call_and_a_paths_card() {
    let f = Fixture::new();
    tree(&f);
    let args = json!({"pattern": "*.rs"});
    match f.present_call("glob", &args).unwrap() {
        ToolCallView::Generic { title, kind, .. } => {
            assert_eq!(title, "Glob *.rs");
            assert_eq!(kind, Some(ToolCallKind::Search));
        }
        other => panic!("unexpected call card {other:?}"),
    }
    let out = f.call("glob", args).await;
    match f.present_result(&out).unwrap() {
        ToolResultView::Search {
            shape,
            title,
            truncated,
            total,
            data,
        } => {
            assert_eq!(shape, SearchShape::Paths);
            assert_eq!(title.as_deref(), Some("Glob *.rs"));
            assert!(!truncated);
            assert_eq!(total, 3);
            assert_eq!(data.unwrap()["paths"].as_array().unwrap().len(), 3);
        }
        other => panic!("unexpected result card {other:?}"),
    }
}

#[tokio::test]
async fn glob_in_a_program_says_when_the_sandbox_denied_entries() {
    let f = Fixture::with_deny(&["private"]);
    f.file("private/key.txt", "k\n");
    f.file("open.txt", "o\n");
    let out = f
        .call_in_program("run-1", 1, "glob", json!({"pattern": "**/*.txt"}))
        .await;
    assert_eq!(out.value()["paths"], json!(["open.txt"]));
    assert_eq!(
        out.cut_short(),
        Some("1 entry left out: the sandbox denies them")
    );
}

#[tokio::test]
async fn a_glob_that_matches_nothing_as_written_says_what_it_may_have_meant() {
    let f = Fixture::new();
    f.file("click/tests/test_a.py", "x\n");
    let folder = f.call("glob", json!({"pattern": "click/"})).await;
    assert_eq!(folder.value()["total"], 0);
    assert_eq!(
        folder.text(),
        "No files match `click/`. [`click/` names a folder, and only files match: `click/**` is \
         every file under it]"
    );
    let program = f
        .call_in_program(
            "run-1",
            1,
            "glob",
            json!({"pattern": "click/tests/*.py", "path": "click"}),
        )
        .await;
    assert_eq!(program.value()["total"], 0);
    assert_eq!(
        program.note(),
        Some("`click/tests/*.py` is matched relative to `click`, which is already `click`: write `tests/*.py`")
    );
    // A glob that means what it says, and matched nothing, is left at that.
    let none = f
        .call_in_program("run-1", 2, "glob", json!({"pattern": "**/*.rs"}))
        .await;
    assert_eq!(none.note(), None);
}

#[tokio::test]
async fn a_glob_anchored_in_a_folder_that_is_not_there_says_so() {
    let f = Fixture::new();
    f.file("pkg/src/tests/test_a.py", "x\n");
    let out = f
        .call_in_program("run-1", 1, "glob", json!({"pattern": "tests/**/*.py"}))
        .await;
    assert_eq!(out.value()["total"], 0);
    let said = "`tests/**/*.py` is anchored at `.`, which has no folder `tests`: \
                `**/tests/**/*.py` matches it at any depth";
    assert_eq!(out.note(), Some(said));
    let native = f.call("glob", json!({"pattern": "tests/**/*.py"})).await;
    assert_eq!(
        native.text(),
        format!("No files match `tests/**/*.py`. [{said}]")
    );
    // The folder is there: nothing matched because nothing is there, unsaid.
    let there = f
        .call_in_program("run-1", 2, "glob", json!({"pattern": "pkg/**/*.rs"}))
        .await;
    assert_eq!(there.note(), None);
}

#[tokio::test]
async fn links_a_glob_does_not_follow_are_counted_and_the_first_named() {
    let f = Fixture::new();
    f.file("packages/minimist/index.js", "x\n");
    f.file("src/main.ts", "x\n");
    f.symlink("node_modules/minimist", f.root.join("packages/minimist"));
    f.symlink("node_modules/outside", &f.outside);
    let out = f
        .call_in_program(
            "run-1",
            1,
            "glob",
            json!({"pattern": "node_modules/*/index.js"}),
        )
        .await;
    assert_eq!(out.value()["paths"], json!([]));
    assert_eq!(out.value()["links"], 2);
    assert_eq!(
        out.note(),
        Some(
            "2 symbolic link(s) not followed (first: `node_modules/minimist`): to search what \
             one leads to, pass it as `path` (it must stay inside the workspace)"
        )
    );
    let native = f
        .call("glob", json!({"pattern": "node_modules/*/index.js"}))
        .await;
    assert!(
        native.text().contains("[2 symbolic link(s) not followed"),
        "{}",
        native.text()
    );
    // A glob anchored elsewhere does not count links it could not have matched through.
    let elsewhere = f
        .call_in_program("run-1", 2, "glob", json!({"pattern": "src/**/*.ts"}))
        .await;
    assert_eq!(elsewhere.value()["paths"], json!(["src/main.ts"]));
    assert_eq!(elsewhere.cut_short(), None);
}
