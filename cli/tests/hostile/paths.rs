//! Hostile paths and files for the file tools: deny paths reached through every tool, and
//! files sized to make a tool allocate without bound.

use std::path::Path;

use crate::cli::{ptc, Ran};

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

/// A workspace `root` inside a scratch directory.
fn workspace() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir(&root).unwrap();
    (dir, root)
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
        ran.stdout.matches("the sandbox denies").count(),
        8,
        "{}",
        ran.stdout
    );
    let value: serde_json::Value = serde_json::from_str(&ran.stdout).expect("a JSON value");
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
    assert!(ran.peak_kb < 200 * 1024, "{} KiB", ran.peak_kb);
}
