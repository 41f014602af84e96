//! `lsp` on real language servers: typescript-language-server and pyright from the
//! repository's `node_modules` (`npm ci`), over small projects in temporary workspaces;
//! rust-analyzer where it runs. Servers run in the pack's default sandbox.

use std::path::{Path, PathBuf};

use crate::builtin_support::{Fixture, Outcome};
use ptc::{CodeConfig, CodeExecutor, ToolMode};
use ptc_packs::builtin::LspServerConfig;
use serde_json::{json, Value};

/// `node_modules/.bin/<name>`, failing loudly when `npm ci` has not been run.
fn npm_bin(name: &str) -> String {
    let path = ptc_testing::repo().join("node_modules/.bin").join(name);
    assert!(path.exists(), "{} is missing: run `npm ci`", path.display());
    path.display().to_string()
}

fn servers() -> Vec<LspServerConfig> {
    let server = |name: &str, bin: &str, exts: &[&str]| LspServerConfig {
        name: name.into(),
        command: npm_bin(bin),
        args: vec!["--stdio".into()],
        extensions: exts.iter().map(|e| e.to_string()).collect(),
    };
    vec![
        server("typescript", "typescript-language-server", &["ts", "js"]),
        server("python", "pyright-langserver", &["py"]),
    ]
}

const UTIL_TS: &str = "export function greet(name: string): string {
  return \"hi \" + name;
}

export interface Shape {
  area(): number;
}

export class Square implements Shape {
  constructor(private side: number) {}
  area(): number {
    return this.side * this.side;
  }
}
";

const MAIN_TS: &str = "import { greet, Square } from \"./util\";

const message: string = greet(\"world\");
console.log(message, greet(\"again\"), new Square(2).area());
";

/// A TypeScript project: `src/util.ts` declares, `src/main.ts` uses.
fn ts_project() -> Fixture {
    let f = Fixture::with_context(|ctx| ctx.lsp = servers());
    f.file(
        "tsconfig.json",
        r#"{"compilerOptions": {"strict": true, "target": "es2020", "module": "commonjs"}, "include": ["src"]}"#,
    );
    f.file("src/util.ts", UTIL_TS);
    f.file("src/main.ts", MAIN_TS);
    f
}

async fn lsp(f: &Fixture, args: Value) -> Value {
    let out = f.call("lsp", args).await;
    assert!(!out.result.is_error(), "{}", out.error());
    out.value().clone()
}

/// `(path, line, character)` of every location.
fn places(value: &Value, key: &str) -> Vec<(String, u64, u64)> {
    value[key]
        .as_array()
        .unwrap_or_else(|| panic!("no `{key}` in {value}"))
        .iter()
        .map(|l| {
            let s = l["path"].as_str().unwrap().to_string();
            (
                s,
                l["line"].as_u64().unwrap(),
                l["character"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn go_to_definition_crosses_files_with_one_based_positions_and_the_line_text() {
    let f = ts_project();
    // `greet` in `const message: string = greet("world");` starts at character 25.
    let v = lsp(&f, json!({"operation": "goToDefinition", "file_path": "src/main.ts", "line": 3, "character": 26})).await;
    assert_eq!(
        v["locations"],
        json!([{"path": "src/util.ts", "line": 1, "character": 17,
                "text": "export function greet(name: string): string {"}]),
        "{v}"
    );
    let out = f.call("lsp", json!({"operation": "goToDefinition", "file_path": "src/main.ts", "line": 3, "character": 26})).await;
    assert!(
        out.text()
            .contains("src/util.ts:1:17: export function greet"),
        "{}",
        out.text()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn find_references_lists_the_declaration_the_import_and_every_call() {
    let f = ts_project();
    let v = lsp(&f, json!({"operation": "findReferences", "file_path": "src/util.ts", "line": 1, "character": 17})).await;
    let mut found = places(&v, "locations");
    found.sort();
    assert_eq!(found, greet_references(), "{v}");
}

/// Where `ts_project` refers to `greet` (its declaration, the import and each call), sorted.
fn greet_references() -> Vec<(String, u64, u64)> {
    vec![
        ("src/main.ts".into(), 1, 10),
        ("src/main.ts".into(), 3, 25),
        ("src/main.ts".into(), 4, 22),
        ("src/util.ts".into(), 1, 17),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_answer_names_the_line_and_a_search_without_a_project_says_what_it_missed() {
    let f = ts_project();
    // A cursor past the end of its line or of the file is refused, saying what is there.
    let past = |line: u32, character: u32| {
        let args = json!({"operation": "hover", "file_path": "src/util.ts", "line": line, "character": character});
        let f = &f;
        async move { f.call("lsp", args).await.error() }
    };
    let error = past(2, 40).await;
    assert!(
        error.contains(
            "`character` 40 is past the end of line 2 of `src/util.ts`, which has 22 \
                        characters (UTF-16; line and character are one-based): it reads \
                        \"  return \\\"hi \\\" + name;\""
        ),
        "{error}"
    );
    let error = past(99, 1).await;
    assert!(
        error.contains("`line` 99 is past the end of `src/util.ts`, which has 14 lines"),
        "{error}"
    );
    // One-based: line 2, character 1 is the indentation of `return`, where nothing is.
    let out = f
        .call(
            "lsp",
            json!({"operation": "hover", "file_path": "src/util.ts", "line": 3, "character": 1}),
        )
        .await;
    assert_eq!(out.value()["markdown"], "");
    let note = out.note().expect("a note on an empty hover");
    assert!(
        note.contains("nothing at src/util.ts:3:1 (line and character are one-based)")
            && note.contains("that line reads \"}\""),
        "{note}"
    );
    // With its tsconfig.json the project is searched: no note.
    let out = f.call("lsp", json!({"operation": "findReferences", "file_path": "src/util.ts", "line": 1, "character": 17})).await;
    assert_eq!(out.note(), None);

    // Without one, the TypeScript server knows only the files opened so far, and says so.
    let bare = Fixture::with_context(|ctx| ctx.lsp = servers());
    bare.file(
        "lib/util.js",
        "function greet(name) {\n  return 'hi ' + name;\n}\nmodule.exports = { greet };\n",
    );
    bare.file(
        "app.js",
        "const { greet } = require('./lib/util');\nconsole.log(greet('world'));\n",
    );
    let out = bare.call("lsp", json!({"operation": "findReferences", "file_path": "lib/util.js", "line": 1, "character": 10})).await;
    let note = out.note().expect("a note on a search without a project");
    assert!(
        note.contains(
            "without a tsconfig.json or jsconfig.json the TypeScript server has no project"
        ),
        "{note}"
    );
    // It did miss the caller in app.js.
    let found = places(out.value(), "locations");
    assert!(
        found.iter().all(|(path, ..)| path == "lib/util.js"),
        "{found:?}"
    );
    // A workspace symbol search says it too.
    let out = bare
        .call(
            "lsp",
            json!({"operation": "workspaceSymbol", "file_path": "lib/util.js", "query": "greet"}),
        )
        .await;
    let note = out
        .note()
        .expect("a note on a symbol search without a project");
    assert!(
        note.contains("so symbols (even this file's; documentSymbol lists those) may be missing"),
        "{note}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn find_references_searches_the_files_outside_the_project_that_use_the_name() {
    // The tsconfig includes `src` only; the tests have a tsconfig of another name, which the
    // TypeScript server never loads: it would search `src` alone.
    let f = ts_project();
    f.file(
        "tests/tsconfig.tests.json",
        r#"{"extends": "../tsconfig.json", "include": ["."]}"#,
    );
    f.file(
        "tests/util.test.ts",
        "import { greet } from \"../src/util\";\nconsole.assert(greet(\"x\") === \"hi x\");\n",
    );
    // Another symbol of the name, a longer name, and a dependency's.
    f.file(
        "tests/other.test.ts",
        "const greet = 'hello';\nconst greeting = greet;\n",
    );
    f.file("node_modules/dep/index.ts", "export const greet = 1;\n");
    let args = json!({"operation": "findReferences", "file_path": "src/util.ts", "line": 1, "character": 17});
    let out = f.call("lsp", args.clone()).await;
    let mut found = places(out.value(), "locations");
    found.sort();
    let mut expected = greet_references();
    expected.push(("tests/util.test.ts".into(), 1, 10));
    expected.push(("tests/util.test.ts".into(), 2, 16));
    assert_eq!(found, expected);
    assert_eq!(
        out.note(),
        Some(
            "`greet` also appears in 1 file(s) outside this file's project (`tsconfig.json`'s \
             files) where the TypeScript server, with them open, found no reference to it \
             (another symbol of that name, or an import it could not resolve): \
             tests/other.test.ts; grep them to be sure"
        )
    );

    // Past 50 such files they are not opened (the test file opened above stays open), and
    // named as not searched.
    for i in 0..51 {
        f.file(format!("more/m{i:02}.ts"), "greet;\n");
    }
    let out = f.call("lsp", args).await;
    assert_eq!(places(out.value(), "locations").len(), 6);
    let note = out.note().expect("a note naming the files not searched");
    assert!(
        note.starts_with(
            "`greet` is also used in 52 file(s) the TypeScript server did not search, outside \
             this file's project (`tsconfig.json`'s files): more/m00.ts, more/m01.ts, \
             more/m02.ts, more/m03.ts, more/m04.ts and 47 more; grep them"
        ),
        "{note}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workspace_symbols_are_found_in_the_other_packages_of_a_monorepo() {
    // Two packages, each its own TypeScript project; the query is asked from the second.
    let f = Fixture::with_context(|ctx| ctx.lsp = servers());
    let tsconfig =
        r#"{"compilerOptions": {"strict": true, "target": "es2020"}, "include": ["src"]}"#;
    f.file("packages/queue/tsconfig.json", tsconfig);
    f.file(
        "packages/queue/src/queue.ts",
        "export class PriorityQueue {\n  size = 0;\n}\n",
    );
    f.file("packages/app/tsconfig.json", tsconfig);
    f.file("packages/app/src/app.ts", "export const app = 1;\n");
    let out = f
        .call(
            "lsp",
            json!({"operation": "workspaceSymbol", "file_path": "packages/app/src/app.ts", "query": "PriorityQueue"}),
        )
        .await;
    let symbols = out.value()["symbols"].as_array().unwrap().clone();
    assert!(
        symbols
            .iter()
            .any(|s| s["name"] == "PriorityQueue" && s["path"] == "packages/queue/src/queue.ts"),
        "{}",
        out.value()
    );
    assert_eq!(out.note(), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hover_gives_the_signature_as_markdown_and_implementation_finds_the_class() {
    let f = ts_project();
    let v = lsp(
        &f,
        json!({"operation": "hover", "file_path": "src/main.ts", "line": 3, "character": 26}),
    )
    .await;
    let markdown = v["markdown"].as_str().unwrap();
    assert!(
        markdown.contains("greet(name: string): string"),
        "{markdown}"
    );
    let v = lsp(&f, json!({"operation": "goToImplementation", "file_path": "src/util.ts", "line": 5, "character": 18})).await;
    assert_eq!(
        places(&v, "locations"),
        vec![("src/util.ts".into(), 9, 14)],
        "{v}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn document_and_workspace_symbols_name_kind_place_and_container() {
    let f = ts_project();
    let v = lsp(
        &f,
        json!({"operation": "documentSymbol", "file_path": "src/util.ts"}),
    )
    .await;
    let symbols = v["symbols"].as_array().unwrap();
    // In the file's order, not the server's by name.
    let lines: Vec<u64> = symbols
        .iter()
        .map(|s| s["line"].as_u64().unwrap())
        .collect();
    assert!(lines.windows(2).all(|w| w[0] <= w[1]), "{lines:?}");
    let find = |name: &str| {
        symbols
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {v}"))
    };
    assert_eq!(find("greet")["kind"], "function");
    assert_eq!(
        (
            find("greet")["line"].clone(),
            find("greet")["character"].clone()
        ),
        (json!(1), json!(17))
    );
    assert_eq!(find("Shape")["kind"], "interface");
    assert_eq!(find("Square")["kind"], "class");
    assert!(
        symbols
            .iter()
            .any(|s| s["name"] == "area" && s["container"] == "Square" && s["line"] == 11),
        "{v}"
    );
    let v = lsp(
        &f,
        json!({"operation": "workspaceSymbol", "file_path": "src/main.ts", "query": "Square"}),
    )
    .await;
    let symbols = v["symbols"].as_array().unwrap();
    assert!(
        symbols
            .iter()
            .any(|s| s["name"] == "Square" && s["path"] == "src/util.ts" && s["line"] == 9),
        "{v}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn diagnostics_follow_an_edit_that_breaks_the_types_and_the_one_that_fixes_them() {
    let f = ts_project();
    let clean = lsp(
        &f,
        json!({"operation": "diagnostics", "file_path": "src/main.ts"}),
    )
    .await;
    assert_eq!(clean["diagnostics"], json!([]), "{clean}");
    // The broken call is in another file than the one the server has open.
    let edit = f.call("edit", json!({"file_path": "src/util.ts", "old_string": "greet(name: string)", "new_string": "greet(name: number)"})).await;
    assert!(!edit.result.is_error(), "{}", edit.error());
    let broken = lsp(
        &f,
        json!({"operation": "diagnostics", "file_path": "src/main.ts"}),
    )
    .await;
    let problems = broken["diagnostics"].as_array().unwrap();
    assert!(!problems.is_empty(), "{broken}");
    assert!(
        problems
            .iter()
            .all(|d| d["severity"] == "error" && d["path"] == "src/main.ts"),
        "{broken}"
    );
    assert!(
        problems
            .iter()
            .any(|d| d["line"] == 3 && d["message"].as_str().unwrap().contains("not assignable")),
        "{broken}"
    );
    let text = f
        .call(
            "lsp",
            json!({"operation": "diagnostics", "file_path": "src/main.ts"}),
        )
        .await
        .text();
    assert!(
        text.contains("src/main.ts:3:") && text.contains(": error: "),
        "{text}"
    );
    let fix = f.call("edit", json!({"file_path": "src/util.ts", "old_string": "greet(name: number)", "new_string": "greet(name: string)"})).await;
    assert!(!fix.result.is_error(), "{}", fix.error());
    let fixed = lsp(
        &f,
        json!({"operation": "diagnostics", "file_path": "src/main.ts"}),
    )
    .await;
    assert_eq!(fixed["diagnostics"], json!([]), "{fixed}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pyright_goes_to_a_definition_in_another_module_and_reports_a_bad_argument() {
    let f = Fixture::with_context(|ctx| ctx.lsp = servers());
    f.file(
        "greeting.py",
        "def greet(name: str) -> str:\n    return \"hi \" + name\n",
    );
    f.file(
        "app.py",
        "from greeting import greet\n\nprint(greet(\"x\"))\n",
    );
    let v = lsp(
        &f,
        json!({"operation": "goToDefinition", "file_path": "app.py", "line": 3, "character": 8}),
    )
    .await;
    assert_eq!(
        places(&v, "locations"),
        vec![("greeting.py".into(), 1, 5)],
        "{v}"
    );
    assert_eq!(v["locations"][0]["text"], "def greet(name: str) -> str:");
    let clean = lsp(
        &f,
        json!({"operation": "diagnostics", "file_path": "app.py"}),
    )
    .await;
    assert_eq!(clean["diagnostics"], json!([]), "{clean}");
    let edit = f
        .call(
            "edit",
            json!({"file_path": "app.py", "old_string": "greet(\"x\")", "new_string": "greet(1)"}),
        )
        .await;
    assert!(!edit.result.is_error(), "{}", edit.error());
    let broken = lsp(
        &f,
        json!({"operation": "diagnostics", "file_path": "app.py"}),
    )
    .await;
    let problems = broken["diagnostics"].as_array().unwrap();
    assert!(
        problems
            .iter()
            .any(|d| d["severity"] == "error" && d["line"] == 3 && d["character"] == 13),
        "{broken}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pyright_finds_references_in_the_tests_of_a_project_below_the_workspace_root() {
    // A package unpacked into the workspace: `src` layout, tests beside it importing it by
    // name. Started at the workspace root, pyright resolves those imports only when told the
    // project's `src` is an import root.
    let f = Fixture::with_context(|ctx| ctx.lsp = servers());
    f.file("pkg-1.0/pyproject.toml", "[project]\nname = \"pkg\"\n");
    f.file("pkg-1.0/src/pkg/__init__.py", "");
    f.file(
        "pkg-1.0/src/pkg/utils.py",
        "def canonical(name: str) -> str:\n    return name.lower()\n",
    );
    f.file(
        "pkg-1.0/tests/test_utils.py",
        "from pkg.utils import canonical\n\n\ndef test_it():\n    assert canonical(\"A\") == \"a\"\n",
    );
    let v = lsp(
        &f,
        json!({"operation": "findReferences", "file_path": "pkg-1.0/src/pkg/utils.py", "line": 1, "character": 5}),
    )
    .await;
    let mut found = places(&v, "locations");
    found.sort();
    assert_eq!(
        found,
        vec![
            ("pkg-1.0/src/pkg/utils.py".into(), 1, 5),
            ("pkg-1.0/tests/test_utils.py".into(), 1, 23),
            ("pkg-1.0/tests/test_utils.py".into(), 5, 12),
        ],
        "{v}"
    );
}

/// Processes whose working directory is under `root` (the servers and what they started).
fn processes_in(root: &Path) -> Vec<i32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let cwd: Option<PathBuf> = std::fs::read_link(entry.path().join("cwd")).ok();
        if cwd.is_some_and(|c| c.starts_with(root)) {
            found.push(pid);
        }
    }
    found
}

/// Wait (bounded) until no process runs under `root`.
async fn until_none_in(root: &Path) -> Vec<i32> {
    for _ in 0..200 {
        if processes_in(root).is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    processes_in(root)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crashed_server_is_started_again_by_the_next_call() {
    let f = ts_project();
    let ask = json!({"operation": "goToDefinition", "file_path": "src/main.ts", "line": 3, "character": 26});
    lsp(&f, ask.clone()).await;
    let running = processes_in(&f.root);
    assert!(!running.is_empty(), "no server process under the root");
    for pid in running {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    assert_eq!(until_none_in(&f.root).await, Vec::<i32>::new());
    // The call that meets the dead server may fail, saying so; the one after it answers.
    let first = f.call("lsp", ask.clone()).await;
    if first.result.is_error() {
        assert!(
            first.error().contains("starts it again"),
            "{}",
            first.error()
        );
    }
    let again = lsp(&f, ask).await;
    assert_eq!(again["locations"][0]["path"], "src/util.ts", "{again}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_servers_end_with_their_owner() {
    let f = ts_project();
    lsp(
        &f,
        json!({"operation": "hover", "file_path": "src/main.ts", "line": 3, "character": 26}),
    )
    .await;
    lsp(
        &f,
        json!({"operation": "hover", "file_path": "src/util.ts", "line": 1, "character": 17}),
    )
    .await;
    assert!(!processes_in(&f.root).is_empty());
    // `close` returns once every process the owner held is reaped.
    f.pack.owner().close().await;
    let left: Vec<String> = processes_in(&f.root)
        .iter()
        .map(|p| {
            std::fs::read_to_string(format!("/proc/{p}/cmdline"))
                .unwrap_or_default()
                .replace('\0', " ")
        })
        .collect();
    assert_eq!(left, Vec::<String>::new(), "a server outlived its owner");
    let after = f
        .call(
            "lsp",
            json!({"operation": "hover", "file_path": "src/main.ts", "line": 3, "character": 26}),
        )
        .await;
    assert!(
        after.error().contains("owner has ended"),
        "{}",
        after.error()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_are_refused_naming_what_is_wrong() {
    let f = ts_project();
    let cases = [
        (
            json!({"operation": "hover", "file_path": "src/main.ts"}),
            "give `line` and `character`",
        ),
        (
            json!({"operation": "hover", "file_path": "src/main.ts", "line": 0, "character": 1}),
            "`line` must be a whole number ≥ 1",
        ),
        (
            json!({"operation": "workspaceSymbol", "file_path": "src/main.ts"}),
            "needs a `query`",
        ),
        (
            json!({"operation": "hover", "file_path": "notes.md", "line": 1, "character": 1}),
            "no language server for `.md` files",
        ),
        (
            json!({"operation": "hover", "file_path": "src/missing.ts", "line": 1, "character": 1}),
            "missing.ts",
        ),
    ];
    f.file("notes.md", "# notes\n");
    for (args, says) in cases {
        let out: Outcome = f.call("lsp", args.clone()).await;
        assert!(out.error().contains(says), "{args}: {}", out.error());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rust_analyzer_finds_a_definition_where_it_runs() {
    let runs = std::process::Command::new("rust-analyzer")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !runs {
        eprintln!("skipped: rust-analyzer does not run here (not installed as a rustup component)");
        return;
    }
    let f = Fixture::new();
    f.file(
        "Cargo.toml",
        "[package]\nname = \"fixture\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    f.file(
        "src/main.rs",
        "mod util;\n\nfn main() {\n    util::greet();\n}\n",
    );
    f.file("src/util.rs", "pub fn greet() {}\n");
    let v = lsp(&f, json!({"operation": "goToDefinition", "file_path": "src/main.rs", "line": 4, "character": 11})).await;
    assert_eq!(
        places(&v, "locations"),
        vec![("src/util.rs".into(), 1, 8)],
        "{v}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rename_example_program_edits_every_reference_from_run_code() {
    let f = ts_project();
    let registry = &f.registry;
    CodeExecutor::new(CodeConfig::default()).install(registry);
    registry.set_mode(ToolMode::Both);
    let (failed, text) =
        crate::pack::run_code(registry, &crate::pack::example("lsp_rename.ts")).await;
    assert!(!failed, "{text}");
    assert!(text.contains("\"edited\": 4"), "{text}");
    assert_eq!(f.read("src/main.ts"), MAIN_TS.replace("greet", "welcome"),);
    assert!(f
        .read("src/util.ts")
        .starts_with("export function welcome(name: string)"));
    assert!(text.contains("\"diagnostics\": 0"), "{text}");
}

/// A workspace whose `.fake` files are answered by `fixtures/fake_lsp.py`.
fn fake_project() -> Fixture {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fake_lsp.py");
    let f = Fixture::with_context(|ctx| {
        ctx.lsp = vec![LspServerConfig {
            name: "fake".into(),
            command: "python3".into(),
            args: vec![script.display().to_string()],
            extensions: vec!["fake".into()],
        }]
    });
    f.file("a.fake", "anything\n");
    f
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_query_waits_until_the_server_reports_its_indexing_ended() {
    let f = fake_project();
    let v = lsp(
        &f,
        json!({"operation": "hover", "file_path": "a.fake", "line": 1, "character": 1}),
    )
    .await;
    assert_eq!(v["markdown"], "indexed", "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_is_reported_with_the_servers_stderr_and_the_next_call_restarts_it() {
    let f = fake_project();
    let crash = f
        .call("lsp", json!({"operation": "goToDefinition", "file_path": "a.fake", "line": 1, "character": 1}))
        .await;
    let error = crash.error();
    assert!(
        error.contains("the fake language server failed: it exited"),
        "{error}"
    );
    assert!(error.contains("fake_lsp: boom on purpose"), "{error}");
    assert!(
        error.contains("the next lsp call starts it again"),
        "{error}"
    );
    let v = lsp(
        &f,
        json!({"operation": "hover", "file_path": "a.fake", "line": 1, "character": 1}),
    )
    .await;
    assert_eq!(v["markdown"], "indexed", "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_operation_the_server_does_not_offer_is_refused_by_name() {
    let f = fake_project();
    let out = f
        .call("lsp", json!({"operation": "findReferences", "file_path": "a.fake", "line": 1, "character": 1}))
        .await;
    assert!(
        out.error()
            .contains("the fake language server does not offer findReferences"),
        "{}",
        out.error()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_servers_end_when_the_pack_and_its_tools_are_dropped() {
    let f = ts_project();
    lsp(
        &f,
        json!({"operation": "hover", "file_path": "src/main.ts", "line": 3, "character": 26}),
    )
    .await;
    let running = processes_in(&f.root);
    assert!(!running.is_empty());
    // The pack's own owner ends with its last clone: the registry's tools and the pack.
    drop(f);
    let alive = |pid: &i32| {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next());
        !matches!(state, None | Some("Z" | "X"))
    };
    for _ in 0..200 {
        if !running.iter().any(alive) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let left: Vec<&i32> = running.iter().filter(|p| alive(p)).collect();
    assert!(left.is_empty(), "still running: {left:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn diagnostics_are_the_servers_last_publication_once_it_has_gone_quiet() {
    // The fake publishes an empty list, then the problem 300 ms later.
    let f = fake_project();
    let v = lsp(
        &f,
        json!({"operation": "diagnostics", "file_path": "a.fake"}),
    )
    .await;
    let problems = v["diagnostics"].as_array().unwrap();
    assert_eq!(problems.len(), 1, "{v}");
    assert_eq!(
        problems[0]["message"], "found after a first, empty publication",
        "{v}"
    );
}
