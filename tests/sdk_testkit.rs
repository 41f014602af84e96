//! Behaviour 39 on the real catalog: the SDK generated from the `testkit` registry is
//! valid TypeScript, and the example programs type-check against it with `tsc --strict`.

use std::path::Path;
use std::process::Command;

use ptc::{CodeExecutor, ToolRegistry};

fn tsc_check(dir: &Path, files: &[&str]) -> (bool, String) {
    let tsc = Path::new(env!("CARGO_MANIFEST_DIR")).join("node_modules/.bin/tsc");
    assert!(
        tsc.exists(),
        "TypeScript compiler not found at {}: run `npm ci` first",
        tsc.display()
    );
    let out = Command::new(tsc)
        .current_dir(dir)
        .args([
            "--noEmit", "--strict", "--target", "es2022", "--lib", "es2022", "--pretty", "false",
        ])
        .args(files)
        .output()
        .expect("tsc starts");
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// A program body as the runtime runs it: the body of an async function (one uniquely
/// named function per file, since the files share the global scope).
fn wrap(body: &str, id: usize) -> String {
    format!("async function program{id}(): Promise<unknown> {{\n{body}\n}}\nvoid program{id};\n")
}

#[test]
fn b39_testkit_sdk_and_example_programs_typecheck() {
    let registry = ToolRegistry::new();
    ptc::packs::testkit::register(&registry).unwrap();
    let sdk = CodeExecutor::declarations(&registry.executable_definitions(None, None));
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("sdk.ts"), &sdk).unwrap();
    std::fs::write(
        dir.path().join("globals.d.ts"),
        "declare const console: { log(...args: unknown[]): void };\n",
    )
    .unwrap();
    let mut files = vec!["globals.d.ts".to_string(), "sdk.ts".to_string()];
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/programs");
    for entry in std::fs::read_dir(&examples).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "ts") {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let id = files.len();
            std::fs::write(
                dir.path().join(&name),
                wrap(&std::fs::read_to_string(&path).unwrap(), id),
            )
            .unwrap();
            files.push(name);
        }
    }
    assert!(files.len() >= 4, "the example programs are there");
    let refs: Vec<&str> = files.iter().map(String::as_str).collect();
    let (ok, diagnostics) = tsc_check(dir.path(), &refs);
    assert!(
        ok,
        "tsc rejected the SDK or an example:\n{diagnostics}\n--- sdk.ts ---\n{sdk}"
    );

    // and it is not vacuous: a wrong argument type is rejected
    std::fs::write(
        dir.path().join("wrong.ts"),
        wrap("await tools.add({ a: 'one', b: 2 });", 0),
    )
    .unwrap();
    let (ok, diagnostics) = tsc_check(dir.path(), &["globals.d.ts", "sdk.ts", "wrong.ts"]);
    assert!(!ok && diagnostics.contains("wrong.ts"), "{diagnostics}");
}
