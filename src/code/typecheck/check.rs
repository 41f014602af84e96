//! One check: the program shaped as the engines shape it, wrapped in an async function, checked
//! with the SDK declarations and the sandbox's globals by one `tsc` process in a fresh folder,
//! and its diagnostics mapped back to the program as written.
//!
//! Compiler options, chosen not to nag a model about code that runs fine:
//! - `strict: false` (so no `strictNullChecks`): an optional result field read without a check is
//!   what models write when the tool always returns it; `noImplicitAny` off for the same reason.
//!   What stays: unknown properties (`m.file` on a match that has `path`), unknown argument keys,
//!   wrong argument types, names that do not exist, calls that do not type.
//! - `lib: es2025` and no DOM (the engines have ES2025's built-ins: `Object.groupBy`, set
//!   methods, iterator helpers, `RegExp.escape`…); the sandbox's own globals ([`GLOBALS`]) are
//!   declared.
//! - `noResolve`: the compiler runs outside the sandbox, so it reads no file the program names
//!   (`/// <reference path>`, `import("…")` types); `types: []` loads no `@types`.
//! - Dropped, as the program runs fine: diagnostics about values the SDK does not know the shape
//!   of (`JsonValue`, `unknown`: the tool did not say, so the check cannot know better than the
//!   program); a call with no argument where one is declared (`tools.task_list()` runs as
//!   `tools.task_list({})`); a name a type-only `import` brings (the import is erased, and
//!   the check resolves no module).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::Tsc;

/// The sandbox's globals beyond the ECMAScript library.
const GLOBALS: &str = include_str!("globals.d.ts");

/// The checked file's name; positions in it are reported.
const PROGRAM_FILE: &str = "run_code.ts";

/// The line the program is wrapped in (one line: the program's lines follow it).
const WRAPPER_HEAD: &str = "async function __ptc_run_code(): Promise<unknown> {\n";

const TSCONFIG: &str = r#"{
  "compilerOptions": {
    "target": "es2025",
    "lib": ["es2025"],
    "strict": false,
    "noImplicitAny": false,
    "noEmit": true,
    "skipLibCheck": true,
    "types": [],
    "noResolve": true,
    "pretty": false
  },
  "files": ["globals.d.ts", "sdk.d.ts", "run_code.ts"]
}
"#;

/// How long one check may take before it is given up (the run goes on, unchecked).
pub(super) const CHECK_TIMEOUT: Duration = Duration::from_secs(20);

/// One diagnostic, at the program as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub col: usize,
    /// The TypeScript error code (`2339`).
    pub code: u32,
    /// The message, its elaboration lines joined by spaces.
    pub message: String,
}

/// Check `source` against `declarations` (the SDK of the visible tools). `Ok(None)`: the program
/// does not shape or parse (the run reports its syntax error); `Err`: the check could not be made.
pub(super) async fn check(
    tsc: &Tsc,
    source: &str,
    declarations: &str,
    cancel: &CancellationToken,
) -> Result<Option<Vec<Diagnostic>>, String> {
    let Ok(shaped) = ptc_engine::shape_program(source) else {
        return Ok(None);
    };
    if ptc_engine::strip_types(&shaped.text).is_err() {
        // A syntax error: the engine reports it, with its hints, better than a cascade of TS1005.
        return Ok(None);
    }
    let folder = Folder::new()?;
    folder.write("globals.d.ts", GLOBALS)?;
    folder.write("sdk.d.ts", declarations)?;
    folder.write("tsconfig.json", TSCONFIG)?;
    folder.write(
        PROGRAM_FILE,
        &format!("{WRAPPER_HEAD}{}\n}}\n", shaped.text),
    )?;
    // One thread and no garbage collection below GOMEMLIMIT: for a process that lives tens of
    // milliseconds this halves its time on a busy machine (benches/typecheck.sh).
    let mut child = tokio::process::Command::new(tsc.path())
        .args(["-p", "tsconfig.json", "--singleThreaded"])
        .env("GOGC", "off")
        .env("GOMEMLIMIT", "512MiB")
        .current_dir(&folder.0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("{} did not start: {e}", tsc.path().display()))?;
    let stdout = child.stdout.take();
    let read = async {
        let mut text = String::new();
        if let Some(mut out) = stdout {
            use tokio::io::AsyncReadExt;
            out.read_to_string(&mut text)
                .await
                .map_err(|e| e.to_string())?;
        }
        let status = child.wait().await.map_err(|e| e.to_string())?;
        Ok::<_, String>((status, text))
    };
    let (status, text) = tokio::select! {
        done = tokio::time::timeout(CHECK_TIMEOUT, read) => done
            .map_err(|_| format!("the check took over {} s", CHECK_TIMEOUT.as_secs()))??,
        _ = cancel.cancelled() => return Err("the run was cancelled".into()),
    };
    // Exit 0: clean; 1 or 2: diagnostics reported; anything else: the compiler failed.
    if !matches!(status.code(), Some(0..=2)) {
        return Err(format!("tsc failed ({status})"));
    }
    let found = parse(&text);
    if found.is_empty() && !status.success() {
        // Diagnostics, but none in the program: the compiler could not check it.
        let said = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        return Err(format!("tsc failed ({status}): {said}"));
    }
    let checked_lines = WRAPPER_HEAD.matches('\n').count();
    let written_lines = source.split('\n').count();
    let program_text = format!("{WRAPPER_HEAD}{}", shaped.text);
    let imported = imported_names(source);
    let diagnostics = found
        .into_iter()
        .filter(|d| !runs_fine(d, &imported))
        .filter_map(|d| {
            let line = d.line.checked_sub(checked_lines)?;
            // A line the shaping appended (`return await main();`) is not the model's.
            if line == 0 || line > written_lines {
                return None;
            }
            let text = program_text.split('\n').nth(d.line - 1).unwrap_or("");
            let (line, col) = shaped.original(line, utf16_to_chars(text, d.col));
            Some(Diagnostic { line, col, ..d })
        })
        .collect();
    Ok(Some(diagnostics))
}

/// `run_code.ts(L,C): error TS1234: message` lines and their indented elaborations, in the
/// checked file's positions (columns in UTF-16 units, as tsc counts).
fn parse(output: &str) -> Vec<Diagnostic> {
    let mut diagnostics: Vec<Diagnostic> = Vec::new();
    let mut in_program = false;
    for line in output.lines() {
        if line.starts_with(' ') {
            if let (true, Some(last)) = (in_program, diagnostics.last_mut()) {
                last.message.push(' ');
                last.message.push_str(line.trim());
            }
            continue;
        }
        in_program = false;
        let Some(rest) = line
            .strip_prefix(PROGRAM_FILE)
            .and_then(|r| r.strip_prefix('('))
        else {
            continue;
        };
        let Some((position, rest)) = rest.split_once("): error TS") else {
            continue;
        };
        let Some((code, message)) = rest.split_once(": ") else {
            continue;
        };
        let Some((line, col)) = position.split_once(',') else {
            continue;
        };
        let (Ok(line), Ok(col), Ok(code)) = (line.parse(), col.parse(), code.parse()) else {
            continue;
        };
        in_program = true;
        diagnostics.push(Diagnostic {
            line,
            col,
            code,
            message: message.to_string(),
        });
    }
    diagnostics
}

/// Whether `d` is about code that runs fine (see the module docs); `imported` are the names
/// type-only imports bring.
fn runs_fine(d: &Diagnostic, imported: &[&str]) -> bool {
    let m = &d.message;
    let unknown_shape = m.contains("JsonValue") || m.contains("type 'unknown'");
    let no_argument = matches!(d.code, 2554 | 2555) && m.ends_with("but got 0.");
    let imported_name = matches!(d.code, 2304 | 2552)
        && imported
            .iter()
            .any(|name| m.starts_with(&format!("Cannot find name '{name}'")));
    unknown_shape || no_argument || imported_name
}

/// The identifiers of every `import … from` in `source` (a program's imports are type-only:
/// the engines refuse the others).
fn imported_names(source: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let mut rest = source;
    while let Some(at) = rest.find("import") {
        let before = &rest[..at];
        let starts_line = before
            .rsplit('\n')
            .next()
            .is_some_and(|l| l.trim().is_empty());
        rest = &rest[at + "import".len()..];
        let Some(end) = rest.find("from") else {
            break;
        };
        if starts_line {
            let clause = &rest[..end];
            names.extend(
                clause
                    .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                    .filter(|w| !w.is_empty() && !matches!(*w, "type" | "as")),
            );
        }
    }
    names
}

/// The 1-based character column of 1-based UTF-16 column `col` in `line`.
fn utf16_to_chars(line: &str, col: usize) -> usize {
    let mut units = 0;
    for (i, c) in line.chars().enumerate() {
        if units + 1 >= col {
            return i + 1;
        }
        units += c.len_utf16();
    }
    line.chars().count() + 1
}

/// A fresh folder for one check, removed when dropped.
struct Folder(PathBuf);

impl Folder {
    fn new() -> Result<Folder, String> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let name = format!(
            "ptc-typecheck-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let path = std::env::temp_dir().join(name);
        std::fs::create_dir(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Folder(path))
    }

    fn write(&self, name: &str, text: &str) -> Result<(), String> {
        let path: &Path = &self.0;
        std::fs::write(path.join(name), text).map_err(|e| format!("{name}: {e}"))
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_reads_program_diagnostics_with_their_elaborations() {
        let out = "run_code.ts(3,42): error TS2339: Property 'file' does not exist on type 'M'.\n\
                   sdk.d.ts(1,1): error TS1000: elsewhere\n  ignored\n\
                   run_code.ts(4,1): error TS2322: Type 'string' is not assignable.\n  \
                   Details here.\n";
        let found = parse(out);
        assert_eq!(found.len(), 2);
        assert_eq!((found[0].line, found[0].col, found[0].code), (3, 42, 2339));
        assert_eq!(
            found[1].message,
            "Type 'string' is not assignable. Details here."
        );
    }

    #[test]
    fn imported_names_are_read_from_type_only_imports() {
        let source =
            "import type { A, B as C } from \"./x\";\nimport {\n  type D,\n} from \"y\";\n\
                      const s = \"no import here from\";";
        assert_eq!(imported_names(source), ["A", "B", "C", "D"]);
    }

    #[test]
    fn utf16_columns_become_character_columns() {
        // `😀` is two UTF-16 units and one character.
        assert_eq!(utf16_to_chars("'😀'.x", 5), 4);
        assert_eq!(utf16_to_chars("abc", 2), 2);
    }
}
