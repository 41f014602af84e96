//! Hostile paths and files for the file tools: deny paths reached through every tool, files
//! sized to make a tool allocate without bound, and a tree too deep to remove recursively.

use std::path::Path;

use crate::cli::{ptc, ptc_with_env, Ran};
use crate::tools::workspace;

/// `ptc run --tools builtin --root ROOT --config CONFIG -` with `program` on standard input,
/// under an operator's configuration holding `config`.
fn run_with(dir: &Path, root: &Path, config: &str, program: &str) -> Ran {
    let file = dir.join("ptc.toml");
    std::fs::write(&file, config).unwrap();
    let args = [
        "run",
        "--tools",
        "builtin",
        "--root",
        root.to_str().unwrap(),
        "--config",
        file.to_str().unwrap(),
        "-",
    ];
    ptc(root, &args, program)
}

#[test]
fn hostile_deny_read_binds_read_grep_glob_edit_and_write() {
    let (dir, root) = workspace();
    std::fs::create_dir_all(root.join("private")).unwrap();
    std::fs::create_dir_all(root.join(".ssh")).unwrap();
    std::fs::write(root.join("private/key.txt"), "swordfish\n").unwrap();
    std::fs::write(root.join(".ssh/id_rsa"), "PRIVATE KEY swordfish\n").unwrap();
    std::fs::write(root.join("notes.txt"), "nothing here\n").unwrap();
    let program = "const out = [];\n\
        const attempt = async (f) => { try { out.push(JSON.stringify(await f())) } catch (e) { out.push(e.message) } };\n\
        for (const file_path of ['private/key.txt', '.ssh/id_rsa', 'private/../.ssh/id_rsa']) {\n\
          await attempt(() => tools.read({ file_path }));\n\
          await attempt(() => tools.edit({ file_path, old_string: 'swordfish', new_string: 'x' }));\n\
        }\n\
        await attempt(() => tools.write({ file_path: 'private/new.txt', content: 'x' }));\n\
        await attempt(() => tools.grep({ pattern: 'sw.rdfish', path: 'private' }));\n\
        const g = await tools.grep({ pattern: 'sw.rdfish|nothing' });\n\
        const l = await tools.glob({ pattern: '**/*' });\n\
        return { out, grep: g.matches.map(m => m.path), grepDenied: g.denied, glob: l.paths, globDenied: l.denied }";
    let ran = run_with(
        dir.path(),
        &root,
        "[sandbox]\ndeny_read = [\"private\"]\n",
        program,
    );
    assert_eq!(ran.code(), 0, "{}", ran.all());
    assert!(!ran.stdout.contains("swordfish"), "{}", ran.stdout);
    assert_eq!(
        ran.stdout
            .matches("is under a path the sandbox denies")
            .count(),
        8,
        "{}",
        ran.stdout
    );
    // The value, then the notes on what the searches left out.
    let (json, notes) = ran.stdout.split_once("\n[cut short]").expect("notes");
    assert!(
        notes.contains("grep: 2 entries left out: the sandbox denies them"),
        "{notes}"
    );
    let value: serde_json::Value = serde_json::from_str(json).expect("a JSON value");
    assert_eq!(value["glob"], serde_json::json!(["notes.txt"]), "{value}");
    assert_eq!(value["globDenied"], 2, "{value}");
    assert_eq!(value["grep"], serde_json::json!(["notes.txt"]), "{value}");
    // `private` at least (grep skips hidden `.ssh` on its own).
    assert!(value["grepDenied"].as_u64() >= Some(1), "{value}");
    assert!(!root.join("private/new.txt").exists());
    assert_eq!(
        std::fs::read_to_string(root.join(".ssh/id_rsa")).unwrap(),
        "PRIVATE KEY swordfish\n"
    );
}

#[test]
fn hostile_sparse_files_and_blown_up_replace_all_keep_memory_bounded() {
    let (dir, root) = workspace();
    let sparse = root.join("sparse.txt");
    std::fs::write(&sparse, "a\n").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&sparse)
        .unwrap()
        .set_len(10 * 1024 * 1024 * 1024)
        .unwrap();
    // 8 MiB of `a`: a replace_all of each with 1,000 bytes would ask for 8 GiB.
    std::fs::write(root.join("many.txt"), "a".repeat(8 * 1024 * 1024)).unwrap();
    std::fs::write(root.join("small.txt"), "one two\n").unwrap();
    let program = "const out = [];\n\
        const attempt = async (f) => { try { out.push(JSON.stringify(await f())) } catch (e) { out.push(e.message) } };\n\
        await attempt(() => tools.edit({ file_path: 'sparse.txt', old_string: 'a', new_string: 'b', replace_all: true }));\n\
        await attempt(() => tools.read({ file_path: 'sparse.txt' }));\n\
        await attempt(() => tools.edit({ file_path: 'many.txt', old_string: 'a', new_string: 'b'.repeat(1000), replace_all: true }));\n\
        const after = await tools.edit({ file_path: 'small.txt', old_string: 'two', new_string: 'three' });\n\
        return { out, after: after.replacements }";
    let ran = run_with(dir.path(), &root, "", program);
    assert_eq!(ran.code(), 0, "{}", ran.all());
    let value: serde_json::Value = serde_json::from_str(&ran.stdout).expect("a JSON value");
    let out = value["out"].as_array().unwrap();
    assert!(
        out[0]
            .as_str()
            .unwrap()
            .contains("10.0 GiB (10737418240 bytes); edit handles files up to 32.0 MiB"),
        "{out:?}"
    );
    assert!(
        out[1].as_str().unwrap().contains("up to 1.0 GiB"),
        "{out:?}"
    );
    assert!(
        out[2]
            .as_str()
            .unwrap()
            .contains("replacing the 8388608 occurrences would make `many.txt` 7.8 GiB"),
        "{out:?}"
    );
    // The process kept serving: a later call worked.
    assert_eq!(value["after"], 1, "{}", ran.stdout);
    assert_eq!(
        std::fs::read_to_string(root.join("small.txt")).unwrap(),
        "one three\n"
    );
    // ~50 MiB alone; the kernel starts a spawned child's peak at the test process's own size
    // (exec keeps the old image's high-water mark), which a loaded parallel run makes larger.
    // The point: nothing asked for the gigabytes.
    assert!(ran.peak_kb < 400 * 1024, "{} KiB", ran.peak_kb);
}

/// Makes a chain of 20,000 directories in `$TMPDIR`, each relative to the last (the whole
/// path is far past `PATH_MAX`). Run outside the sandbox: under Landlock every access walks
/// back up the tree, so a program building it there takes minutes.
const DEEP_TREE: &str = "import os\n\
fd = os.open(os.environ['TMPDIR'], os.O_RDONLY)\n\
for _ in range(20000):\n    \
    os.mkdir('d', dir_fd=fd)\n    \
    inner = os.open('d', os.O_RDONLY, dir_fd=fd)\n    \
    os.close(fd)\n    \
    fd = inner\n";

/// Wait for the owner's private `$TMPDIR` under `tmp` to hold `ready`, nest 20,000 directories
/// in it, then let the call finish (`go`).
fn nest_when_ready(tmp: &Path, script: &Path) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let call_tmp = loop {
        // The owner's scratch directory is the calls' `$TMPDIR`.
        let found = std::fs::read_dir(tmp)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|t| t.join("ready").exists());
        if let Some(found) = found {
            break found;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the call never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let made = std::process::Command::new("python3")
        .arg(script)
        .env("TMPDIR", &call_tmp)
        .status()
        .unwrap();
    assert!(made.success());
    std::fs::write(call_tmp.join("go"), "").unwrap();
}

#[test]
fn hostile_a_tree_too_deep_to_remove_recursively_leaves_no_scratch_behind() {
    let (dir, root) = workspace();
    // The calls' temp dirs in memory where there is a tmpfs: 20,000 levels on a busy disk
    // take a minute to make and remove.
    let shm = Path::new("/dev/shm");
    let scratch = match shm.is_dir() {
        true => tempfile::tempdir_in(shm).unwrap(),
        false => tempfile::tempdir().unwrap(),
    };
    let tmp = scratch.path().to_path_buf();
    let script = dir.path().join("deep.py");
    std::fs::write(&script, DEEP_TREE).unwrap();
    let nester = {
        let (tmp, script) = (tmp.clone(), script.clone());
        std::thread::spawn(move || nest_when_ready(&tmp, &script))
    };
    let program = "const made = await tools.bash({ description: 'wait', command: \
        'touch \"$TMPDIR/ready\"; while [ ! -e \"$TMPDIR/go\" ]; do sleep 0.05; done; echo deep' });\n\
        const again = await tools.bash({ description: 'again', command: 'echo again' });\n\
        return made.stdout + again.stdout";
    let args = [
        "run",
        "--tools",
        "builtin",
        "--root",
        root.to_str().unwrap(),
        "-",
    ];
    let ran = ptc_with_env(&root, &args, program, &[("TMPDIR", &tmp)]);
    nester.join().unwrap();
    let left: Vec<_> = std::fs::read_dir(&tmp)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    // Whatever is left is removed before asserting (a recursive removal would abort the test).
    for path in &left {
        ptc_packs::fs_tree::remove_tree(path).unwrap();
    }
    assert_eq!(ran.code(), 0, "{}", ran.all());
    assert!(ran.stdout.contains("deep\nagain"), "{}", ran.all());
    assert!(left.is_empty(), "scratch left behind: {left:?}");
}
