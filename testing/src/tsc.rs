//! A scratch TypeScript project checked with the real compiler (`npm ci` installs it):
//! a generated SDK, the globals the runtime provides, and programs wrapped the way the
//! runtime runs them (the body of an async function).
#![allow(dead_code)]

use std::process::Command;

/// The SDK, the runtime's globals, and the programs added so far.
pub struct TsProject {
    dir: tempfile::TempDir,
    files: Vec<String>,
}

impl TsProject {
    /// A project holding `sdk` (as `sdk.ts`) and `globals.d.ts` (`console`).
    pub fn new(sdk: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("sdk.ts"), sdk).unwrap();
        std::fs::write(
            dir.path().join("globals.d.ts"),
            "declare const console: { log(...args: unknown[]): void };\n",
        )
        .unwrap();
        TsProject {
            dir,
            files: vec!["globals.d.ts".into(), "sdk.ts".into()],
        }
    }

    /// Add a program body as `name`, wrapped in a uniquely named async function (the
    /// files share the global scope).
    pub fn add_program(&mut self, name: &str, body: &str) {
        let id = self.files.len();
        let source = format!(
            "async function program{id}(): Promise<unknown> {{\n{body}\n}}\nvoid program{id};\n"
        );
        std::fs::write(self.dir.path().join(name), source).unwrap();
        self.files.push(name.to_string());
    }

    /// How many files the project has (SDK and globals included).
    pub fn file_count(&self) -> usize {
        self.files.len()
    }

    /// Run `tsc --noEmit --strict` on every file; (success, diagnostics).
    pub fn check(&self) -> (bool, String) {
        let tsc = crate::repo().join("node_modules/.bin/tsc");
        assert!(
            tsc.exists(),
            "TypeScript compiler not found at {}: run `npm ci` first",
            tsc.display()
        );
        let out = Command::new(tsc)
            .current_dir(self.dir.path())
            .args([
                "--noEmit", "--strict", "--target", "es2022", "--lib", "es2022", "--pretty",
                "false",
            ])
            .args(&self.files)
            .output()
            .expect("tsc starts");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.success(), text)
    }
}
