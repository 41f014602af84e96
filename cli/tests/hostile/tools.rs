//! Hostile use of the builtin tools: patterns that would compile to gigabytes, single lines
//! of many megabytes, policy rules spelt around, and denials that would tell what exists
//! outside the root.

use std::path::Path;

use crate::cli::{ptc, Ran};

/// `ptc run --tools builtin --root ROOT EXTRA… -` with `program` on standard input.
fn run_in(root: &Path, program: &str, extra: &[&str]) -> Ran {
    let mut args = vec![
        "run",
        "--tools",
        "builtin",
        "--root",
        root.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    args.push("-");
    ptc(root, &args, program)
}

/// A workspace `root` inside a scratch directory (which also holds files outside it).
pub(crate) fn workspace() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir(&root).unwrap();
    (dir, root)
}

/// A file of one line of `bytes` letters.
fn one_line(path: &Path, bytes: usize) {
    std::fs::write(path, "a".repeat(bytes)).unwrap();
}

const MEMORY_CEILING_KB: u64 = 400 * 1024;

#[test]
fn hostile_regexes_that_compile_huge_are_invalid_arguments() {
    let (_dir, root) = workspace();
    std::fs::write(root.join("a.txt"), "aaaa\n").unwrap();
    for pattern in ["a{100000}", "a{1000}{1000}", "(\\\\w+\\\\s+){40}x"] {
        let program = format!(
            "try {{ await tools.grep({{ pattern: '{pattern}' }}) }} catch (e) {{ return e.message }}"
        );
        let ran = run_in(&root, &program, &["--timeout-ms", "20000"]);
        assert_eq!(ran.code(), 0, "{pattern}: {}", ran.all());
        assert!(
            ran.stdout.contains("exceeds size limit"),
            "{pattern}: {}",
            ran.stdout
        );
        assert!(
            ran.peak_kb < MEMORY_CEILING_KB,
            "{pattern}: {} KiB",
            ran.peak_kb
        );
    }
}

#[test]
fn hostile_huge_single_lines_keep_memory_bounded() {
    let (_dir, root) = workspace();
    // 64 MiB in one line: over grep's 8 MiB line cap, far over read's kept line.
    one_line(&root.join("line.txt"), 64 * 1024 * 1024);
    std::fs::write(root.join("small.txt"), "a match\n").unwrap();
    let ran = run_in(
        &root,
        "const g = await tools.grep({ pattern: 'a' });\n\
         const reads = await Promise.allSettled(Array.from({ length: 8 }, () => tools.read({ file_path: 'line.txt' })));\n\
         return { files: g.files, skipped: g.skipped, cut: reads.every(r => r.status === 'rejected' && r.reason.message.includes('has 67,108,864 characters, more than the 8 MiB')) }",
        &[],
    );
    assert_eq!(ran.code(), 0, "{}", ran.all());
    assert!(ran.stdout.contains("\"files\": 1"), "{}", ran.stdout);
    assert!(ran.stdout.contains("\"skipped\": 1"), "{}", ran.stdout);
    assert!(ran.stdout.contains("\"cut\": true"), "{}", ran.stdout);
    // Eight concurrent reads of a 64 MiB line (refused: a program gets a line whole or not at
    // all), and a search of it, hold at most a program's read cap (8 MiB of the line) each, with its copies on the way to the program: less
    // than one copy of the whole line per read would take (512 MiB).
    assert!(ran.peak_kb < 480 * 1024, "{} KiB", ran.peak_kb);
}

#[test]
fn hostile_policies_match_every_spelling_of_a_path() {
    let (dir, root) = workspace();
    std::fs::create_dir(root.join("secrets")).unwrap();
    std::fs::write(root.join("secrets/key.txt"), "the password is swordfish\n").unwrap();
    std::fs::write(root.join("notes.txt"), "the password is elsewhere\n").unwrap();
    // The operator's configuration, outside the workspace.
    let config = dir.path().join("ptc.toml");
    std::fs::write(
        &config,
        "[[policy]]\ntool = \"*\"\naction = \"deny\"\nmatch = { path = \"^secrets(/|$)\" }\nreason = \"secrets are off limits\"\n",
    )
    .unwrap();
    let absolute = root.join("secrets/key.txt");
    let program = format!(
        "const out = [];\n\
         for (const file_path of ['secrets/key.txt', './secrets/key.txt', 'secrets/../secrets/key.txt', '{}']) {{\n\
           try {{ await tools.read({{ file_path }}); out.push('read ' + file_path) }} catch (e) {{ out.push(e.message) }}\n\
         }}\n\
         const g = await tools.grep({{ pattern: 'password' }});\n\
         const l = await tools.glob({{ pattern: '**/*.txt' }});\n\
         return {{ out, grep: g.matches.map(m => m.path), hidden: g.hidden, glob: l.paths }}",
        absolute.display()
    );
    let ran = run_in(&root, &program, &["--config", config.to_str().unwrap()]);
    assert_eq!(ran.code(), 0, "{}", ran.all());
    assert_eq!(
        ran.stdout.matches("secrets are off limits").count(),
        4,
        "{}",
        ran.stdout
    );
    assert!(!ran.stdout.contains("swordfish"), "{}", ran.stdout);
    assert!(!ran.stdout.contains("secrets/key.txt\""), "{}", ran.stdout);
    assert!(ran.stdout.contains("\"hidden\": 1"), "{}", ran.stdout);
    assert!(ran.stdout.contains("notes.txt"), "{}", ran.stdout);
}

#[test]
fn hostile_denials_tell_nothing_about_the_outside() {
    let (dir, root) = workspace();
    std::fs::write(dir.path().join("exists.txt"), "outside\n").unwrap();
    std::os::unix::fs::symlink(dir.path().join("exists.txt"), root.join("to-existing")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("missing.txt"), root.join("to-missing")).unwrap();
    let program = "const out = [];\n\
        for (const file_path of ['../exists.txt', '../missing.txt', 'to-existing', 'to-missing']) {\n\
          try { await tools.read({ file_path }); out.push('read') } catch (e) { out.push(e.message.replace(file_path, 'P')) }\n\
        }\n\
        return out";
    let ran = run_in(&root, program, &[]);
    assert_eq!(ran.code(), 0, "{}", ran.all());
    let messages: Vec<String> = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(messages.len(), 4);
    for message in &messages {
        assert_eq!(message, &messages[0], "{messages:#?}");
    }
    assert!(
        messages[0].contains("not inside the workspace root"),
        "{}",
        messages[0]
    );
    assert!(!ran.stdout.contains("exists.txt") && !ran.stdout.contains("missing.txt"));
}

#[test]
fn hostile_policy_for_a_tool_that_does_not_exist_is_refused() {
    let (dir, root) = workspace();
    let config = dir.path().join("ptc.toml");
    std::fs::write(&config, "[[policy]]\ntool = \"Bash\"\naction = \"deny\"\n").unwrap();
    let ran = run_in(&root, "return 1", &["--config", config.to_str().unwrap()]);
    assert_eq!(ran.code(), 2, "{}", ran.all());
    assert!(
        ran.stderr
            .contains("policy.tool `Bash` names no tool (did you mean `bash`?)"),
        "{}",
        ran.stderr
    );
}
