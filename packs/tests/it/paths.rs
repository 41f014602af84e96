//! The path policy every file tool shares: the sandbox's deny paths, opens that a symlink
//! swapped in cannot redirect, walks that stop at a depth cap, and size caps.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::builtin_support::{Fixture, SECRET};

const KEY: &str = "-----BEGIN OPENSSH PRIVATE KEY----- swordfish\n";

#[tokio::test]
async fn deny_paths_bind_read_grep_glob_edit_and_write_alike() {
    let f = Fixture::with_deny(&["private"]);
    f.file("private/key.txt", "the password is swordfish\n");
    f.file(".ssh/id_rsa", KEY);
    f.file("home/.aws/credentials", "aws swordfish\n");
    f.file("notes.txt", "the password is elsewhere\n");
    f.symlink("link", f.root.join("private/key.txt"));
    let denied = |message: &str| {
        assert!(message.contains("the sandbox denies"), "{message}");
    };
    let mut messages = Vec::new();
    for path in [
        "private/key.txt",
        "private/missing.txt",
        ".ssh/id_rsa",
        "home/.aws/credentials",
        "link",
    ] {
        let out = f.call("read", json!({"file_path": path})).await;
        assert_eq!(out.code(), Some(ptc::codes::TOOL_DENIED));
        let message = out.error();
        denied(&message);
        messages.push(message.replace(path, "P"));
    }
    // The same words whether or not the file exists.
    assert_eq!(messages[0], messages[1]);

    let grep = f
        .call("grep", json!({"pattern": "swordfish|password"}))
        .await;
    let value = grep.value();
    assert_eq!(value["total"], 1, "{value}");
    assert_eq!(value["matches"][0]["path"], "notes.txt");
    assert!(value["denied"].as_u64().unwrap() >= 1, "{value}");
    assert!(grep.text().contains("left out: the sandbox denies them"));
    assert!(!grep.text().contains("private"), "{}", grep.text());
    denied(
        &f.call("grep", json!({"pattern": "x", "path": "private"}))
            .await
            .error(),
    );

    let glob = f.call("glob", json!({"pattern": "**/*"})).await;
    let paths = glob.value()["paths"].to_string();
    assert!(paths.contains("notes.txt"), "{paths}");
    for hidden in ["private", ".ssh", ".aws"] {
        assert!(!paths.contains(hidden), "{paths}");
    }
    assert_eq!(glob.value()["denied"], 3, "{}", glob.value());

    for (tool, args) in [
        (
            "write",
            json!({"file_path": "private/new.txt", "content": "x"}),
        ),
        (
            "write",
            json!({"file_path": ".ssh/authorized_keys", "content": "x"}),
        ),
        (
            "edit",
            json!({"file_path": "private/key.txt", "old_string": "swordfish", "new_string": "x"}),
        ),
        (
            "edit",
            json!({"file_path": "link", "old_string": "swordfish", "new_string": "x"}),
        ),
    ] {
        denied(&f.call(tool, args).await.error());
    }
    assert!(!f.root.join("private/new.txt").exists());
    assert!(!f.root.join(".ssh/authorized_keys").exists());
    assert_eq!(f.read("private/key.txt"), "the password is swordfish\n");
}

#[tokio::test]
async fn env_files_are_read_with_a_note_that_they_may_hold_secrets() {
    let f = Fixture::new();
    f.file(".env", "API_KEY=abc\n");
    f.file("env.txt", "plain\n");
    let out = f.call("read", json!({"file_path": ".env"})).await;
    assert!(out.value()["note"].as_str().unwrap().contains("secrets"));
    assert!(out.text().contains("may hold secrets"), "{}", out.text());
    let plain = f.call("read", json!({"file_path": "env.txt"})).await;
    assert!(plain.value().get("note").is_none());
}

/// Flip `root/x` between a regular file and symlinks (to a file outside the root, and to a
/// denied file inside it) until `stop`, each flip an atomic rename.
fn flipper(root: &Path, outside: &Path, stop: Arc<AtomicBool>, ready: std::sync::mpsc::Sender<()>) {
    let tmp = root.join("x.tmp");
    let targets = [outside.join("secret.txt"), root.join(".ssh/id_rsa")];
    let mut n = 0usize;
    while !stop.load(Ordering::Relaxed) {
        let _ = std::fs::remove_file(&tmp);
        match n % 4 {
            1 => std::os::unix::fs::symlink(&targets[0], &tmp).unwrap(),
            3 => std::os::unix::fs::symlink(&targets[1], &tmp).unwrap(),
            _ => std::fs::write(&tmp, "harmless\n").unwrap(),
        }
        std::fs::rename(&tmp, root.join("x")).unwrap();
        if n == 0 {
            ready.send(()).unwrap();
        }
        n += 1;
    }
}

/// Matches every line of the three targets (and not its own text, which a result repeats).
const PATTERN: &str = "t.p s|sw.rdfish|h.rmless";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_symlink_flipped_during_reads_and_searches_never_reveals_its_target() {
    let f = Fixture::new();
    f.file(".ssh/id_rsa", KEY);
    let stop = Arc::new(AtomicBool::new(false));
    let (ready, started) = std::sync::mpsc::channel();
    let flips = {
        let (root, outside, stop) = (f.root.clone(), f.outside.clone(), stop.clone());
        std::thread::spawn(move || flipper(&root, &outside, stop, ready))
    };
    started.recv().unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let (mut tries, mut harmless) = (0, 0);
    while tries < 3000 && Instant::now() < deadline {
        for (tool, args) in [
            ("read", json!({"file_path": "x"})),
            ("grep", json!({"pattern": PATTERN, "path": "x"})),
            ("grep", json!({"pattern": PATTERN})),
        ] {
            let out = f.call(tool, args).await;
            let text = format!("{} {:?}", out.text(), out.result.value());
            assert!(
                !text.contains(SECRET.trim()) && !text.contains("swordfish"),
                "try {tries}: {tool} revealed a target: {text}"
            );
            harmless += usize::from(text.contains("harmless"));
        }
        tries += 1;
    }
    stop.store(true, Ordering::Relaxed);
    flips.join().unwrap();
    // The flips interleaved with the calls: the file was seen, and so were the links.
    assert!(
        harmless > 0 && harmless < tries * 3,
        "{harmless} of {}",
        tries * 3
    );
}

/// `levels` directories `d/d/…` under `top`, each made relative to the last (the whole path
/// is far longer than `PATH_MAX`), with `needle.txt` at the bottom and at level 3.
fn deep_tree(top: &Path, levels: usize) {
    use rustix::fs::{mkdirat, openat, Mode, OFlags};
    std::fs::create_dir_all(top.join("d/d/d")).unwrap();
    std::fs::write(top.join("d/d/d/needle.txt"), "needle\n").unwrap();
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let mut dir = rustix::fs::open(top, flags, Mode::empty()).unwrap();
    for _ in 0..levels {
        match mkdirat(&dir, "d", Mode::RWXU) {
            Ok(()) | Err(rustix::io::Errno::EXIST) => {}
            Err(e) => panic!("mkdirat: {e}"),
        }
        dir = openat(&dir, "d", flags, Mode::empty()).unwrap();
    }
    let file = openat(
        &dir,
        "needle.txt",
        OFlags::CREATE | OFlags::WRONLY,
        Mode::RUSR,
    )
    .unwrap();
    rustix::io::write(&file, b"needle\n").unwrap();
}

#[test]
fn a_tree_deeper_than_the_stack_allows_stops_glob_and_grep_at_the_depth_cap() {
    let f = Fixture::new();
    deep_tree(&f.root.join("deep"), 20_000);
    // Every thread of the runtime, blocking pool included, on a stack a recursive walk over
    // 20,000 levels would overflow.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_stack_size(256 * 1024)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let glob = f.call("glob", json!({"pattern": "**/needle.txt"})).await;
        let value = glob.value();
        assert_eq!(value["deep"], true, "{value}");
        assert!(value["paths"].to_string().contains("deep/d/d/d/needle.txt"));
        assert!(
            glob.text().contains("deeper than 256 levels"),
            "{}",
            glob.text()
        );
        let grep = f.call("grep", json!({"pattern": "needle"})).await;
        let value = grep.value();
        assert_eq!(value["deep"], true, "{value}");
        assert_eq!(value["matches"][0]["path"], "deep/d/d/d/needle.txt");
        assert!(
            grep.text().contains("deeper than 256 levels"),
            "{}",
            grep.text()
        );
    });
    ptc_packs::fs_tree::remove_tree(&f.root.join("deep")).unwrap();
}

#[tokio::test]
async fn edit_and_read_refuse_files_past_their_cap_before_reading_them() {
    let f = Fixture::new();
    let sparse = f.file("sparse.txt", "a\n");
    std::fs::File::options()
        .write(true)
        .open(&sparse)
        .unwrap()
        .set_len(10 * 1024 * 1024 * 1024)
        .unwrap();
    let edit = json!({"file_path": "sparse.txt", "old_string": "a", "new_string": "b"});
    let message = f.call("edit", edit).await.error();
    assert!(
        message.contains("10.0 GiB (10737418240 bytes)") && message.contains("up to 32.0 MiB"),
        "{message}"
    );
    let message = f
        .call("read", json!({"file_path": "sparse.txt"}))
        .await
        .error();
    assert!(message.contains("up to 1.0 GiB"), "{message}");

    // A replace_all whose result would pass the cap: refused before it is built.
    f.file("many.txt", "a".repeat(512 * 1024));
    let blow_up = "b".repeat(100);
    let out = f
        .call(
            "edit",
            json!({"file_path": "many.txt", "old_string": "a", "new_string": blow_up, "replace_all": true}),
        )
        .await;
    let message = out.error();
    assert!(
        message.contains("replacing the 524288 occurrences would make `many.txt` 50.0 MiB"),
        "{message}"
    );
    assert_eq!(
        std::fs::metadata(f.root.join("many.txt")).unwrap().len(),
        512 * 1024
    );
    // Within the cap, every occurrence is replaced in one pass.
    let out = f
        .call(
            "edit",
            json!({"file_path": "many.txt", "old_string": "a", "new_string": "bb", "replace_all": true}),
        )
        .await;
    assert_eq!(out.value()["replacements"], 512 * 1024);
    assert_eq!(f.read("many.txt"), "b".repeat(1024 * 1024));
}

#[tokio::test]
async fn a_workspace_ssh_denial_makes_no_claim_about_bash_which_reads_it() {
    let f = Fixture::with_deny(&[]);
    f.file("sub/.ssh/k", KEY);
    let out = f.call("read", json!({"file_path": "sub/.ssh/k"})).await;
    assert_eq!(out.code(), Some(ptc::codes::TOOL_DENIED));
    let message = out.error();
    assert!(message.contains("the sandbox denies"), "{message}");
    // Only home credential paths and `[sandbox] deny_read` are masked for bash: a `.ssh`
    // directory under the workspace is not, so the denial must not say bash cannot read it.
    let shown = f
        .call(
            "bash",
            json!({"command": "cat sub/.ssh/k", "description": "t"}),
        )
        .await;
    assert!(shown.value()["stdout"]
        .as_str()
        .unwrap()
        .contains("swordfish"));
    assert!(!message.contains("bash"), "{message}");
}
