//! The static type check with the real TypeScript 7 compiler (`npm ci` installs it as the
//! `typescript7` alias): `run_code` programs over the builtin pack, checked against the SDK of the
//! visible tools, in `warn` and `error` modes, with positions at the model's own line:col
//! through fences and shapes.

use ptc_testing::code as code_support;

use std::fs;
use std::path::{Path, PathBuf};

use ptc::typecheck::{Tsc, Typecheck, TypecheckMode};
use ptc::{CodeExecutor, ToolMode, ToolRegistry};
use ptc_packs::{builtin, PackContext};

/// The repository's `node_modules`.
fn node_modules() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../node_modules")
}

/// The compiler `npm ci` installed.
fn tsc() -> Tsc {
    Tsc::at(&node_modules().join("typescript7/bin/tsc"))
        .expect("TypeScript 7 is installed (npm ci)")
}

/// testkit and builtin over a small workspace, code mode, the check in `mode`.
fn registry(mode: TypecheckMode) -> (tempfile::TempDir, ToolRegistry) {
    registry_with(mode, tsc())
}

/// [`registry`] with the compiler `tsc`.
fn registry_with(mode: TypecheckMode, tsc: Tsc) -> (tempfile::TempDir, ToolRegistry) {
    let tmp = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(tmp.path()).unwrap();
    fs::create_dir(root.join("src")).unwrap();
    fs::write(
        root.join("src/a.ts"),
        "// TODO: one\nlet a = 1;\n// TODO: two\n",
    )
    .unwrap();
    let registry = registry_over(&root, mode, tsc);
    (tmp, registry)
}

/// testkit and builtin over `root`, code mode, the check in `mode` with `tsc`.
fn registry_over(root: &Path, mode: TypecheckMode, tsc: Tsc) -> ToolRegistry {
    let registry = ToolRegistry::new();
    ptc::testkit::register(&registry).unwrap();
    builtin::register(&registry, &PackContext::new(root.to_path_buf())).unwrap();
    let config = code_support::config(|c| {
        c.typecheck = Some(Typecheck { mode, tsc });
    });
    CodeExecutor::new(config).install(&registry);
    registry.set_mode(ToolMode::Code);
    registry
}

/// A model's program reading a field grep matches do not have (`file`; they have `path`).
const WRONG_FIELD: &str = "\
const r = await tools.grep({ pattern: \"TODO\", path: \"src\" });
for (const m of r.matches) console.log(m.file);
return r.matches.length;";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn warn_runs_a_program_with_a_wrong_field_and_names_it_at_the_models_line() {
    let (_tmp, registry) = registry(TypecheckMode::Warn);
    let run = code_support::run(&registry, WRONG_FIELD).await;
    let text = run.text();
    assert!(!run.result.is_error(), "{text}");
    assert!(
        text.starts_with("undefined\nundefined\n"),
        "the program ran: {text}"
    );
    assert!(
        text.contains(
            "\n\n[typecheck] 1 type error (the program ran):\n\
             run_code.ts:2:42 TS2339: Property 'file' does not exist on type"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "\n 2 | for (const m of r.matches) console.log(m.file);\n   | \
             \x20                                        ^"
        ),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn error_refuses_a_program_with_a_wrong_field_before_any_call() {
    let (_tmp, registry) = registry(TypecheckMode::Error);
    let run = code_support::run(&registry, WRONG_FIELD).await;
    let text = run.text();
    assert!(run.result.is_error(), "{text}");
    assert!(
        text.contains(
            "The program did not run: 1 type error (typecheck = \"error\"); fix and run again.\n\
             run_code.ts:2:42 TS2339: Property 'file' does not exist on type"
        ),
        "{text}"
    );
    assert!(run.dispatches().is_empty(), "no tool was called");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clean_program_runs_with_no_typecheck_block() {
    let (_tmp, registry) = registry(TypecheckMode::Error);
    let program = "\
const r = await tools.grep({ pattern: \"TODO\", path: \"src\" });
const lines: number[] = r.matches.map((m) => m.line);
console.log(new URL(\"https://x.test/a?b=1\").searchParams.get(\"b\"), crypto.randomUUID().length);
return lines;";
    let run = code_support::run(&registry, program).await;
    let text = run.text();
    assert!(!run.result.is_error(), "{text}");
    assert_eq!(text, "1 36\n[\n  1,\n  3\n]");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fenced_program_is_checked_at_its_own_lines() {
    let (_tmp, registry) = registry(TypecheckMode::Warn);
    let program = "\
Here is the program:

```ts
const r = await tools.grep({ pattern: \"TODO\", path: \"src\" });
return r.matches.map((m) => m.file);
```
";
    let run = code_support::run(&registry, program).await;
    let text = run.text();
    assert!(
        text.contains("run_code.ts:5:31 TS2339: Property 'file' does not exist"),
        "{text}"
    );
    assert!(
        text.contains("\n 5 | return r.matches.map((m) => m.file);\n"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shaped_program_maps_through_the_inserted_return() {
    let (_tmp, registry) = registry(TypecheckMode::Warn);
    // A final bare expression becomes `return …`: seven characters inserted before column 1.
    let program = "\
const r = await tools.grep({ pattern: \"TODO\", path: \"src\" });
r.matches.map((m) => m.file).length";
    let run = code_support::run(&registry, program).await;
    let text = run.text();
    assert!(
        text.contains("run_code.ts:2:24 TS2339: Property 'file' does not exist"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_arrow_function_program_and_an_unknown_argument_key_are_reported() {
    let (_tmp, registry) = registry(TypecheckMode::Error);
    let program = "\
async () => {
  const r = await tools.grep({ pattern: \"TODO\", paht: \"src\" });
  return r.matches.length;
}";
    let run = code_support::run(&registry, program).await;
    let text = run.text();
    assert!(run.result.is_error(), "{text}");
    assert!(
        text.contains("run_code.ts:2:49 TS2353: Object literal may only specify known properties, and 'paht' does not exist"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_diagnostics_are_capped_with_a_count_of_the_rest() {
    let (_tmp, registry) = registry(TypecheckMode::Error);
    let program = (1..=7)
        .map(|i| format!("const v{i}: number = \"{i}\";\n"))
        .collect::<String>();
    let run = code_support::run(&registry, &program).await;
    let text = run.text();
    assert!(text.contains("7 type errors"), "{text}");
    assert_eq!(text.matches("TS2322").count(), 5, "{text}");
    assert!(text.ends_with("\n… and 2 more"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_the_sdk_does_not_describe_is_not_nagged_about() {
    let (_tmp, registry) = registry(TypecheckMode::Error);
    // `lookup` declares no output schema: its result is a `JsonValue`, which may be anything.
    registry
        .register(ptc_testing::tools::constant(
            "lookup",
            serde_json::json!({ "a": { "b": 2 } }),
        ))
        .unwrap();
    let program = "\
const found = await tools.lookup({});
return found.a.b;";
    let run = code_support::run(&registry, program).await;
    let text = run.text();
    assert!(!run.result.is_error(), "{text}");
    assert_eq!(text, "2");
}

/// The corpus programs that run fine and still get a diagnostic, each a real mistake.
const TRUE_POSITIVES: [&str; 1] = [
    // `tools.edit({ old: … })`, never awaited: the call's INVALID_ARGS is left behind.
    "forgotten_await_failing_call",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_corpus_programs_that_run_fine_are_not_nagged_about() {
    // Every `# ok` program of the model-written corpus, checked in `warn`: a diagnostic on one
    // is a nag to fix in the check (or a real mistake, listed in TRUE_POSITIVES).
    let corpus = crate::code_programs::corpus();
    let mut names: Vec<String> = fs::read_dir(&corpus)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ts"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .filter(|name| {
            fs::read_to_string(corpus.join(format!("{name}.expected")))
                .is_ok_and(|e| e.starts_with("# ok\n"))
        })
        .collect();
    names.sort();
    assert!(names.len() >= 40, "{} programs", names.len());
    let tsc = tsc();
    let mut flagged = Vec::new();
    for name in &names {
        let program = fs::read_to_string(corpus.join(format!("{name}.ts"))).unwrap();
        let (_tmp, root) = crate::code_programs::workspace();
        let registry = registry_over(&root, TypecheckMode::Warn, tsc.clone());
        let text = code_support::run(&registry, &program).await.text();
        if let Some(at) = text.find("[typecheck]") {
            flagged.push(format!("{name}: {}", &text[at..]));
        }
    }
    let unexpected: Vec<&String> = flagged
        .iter()
        .filter(|f| {
            !TRUE_POSITIVES
                .iter()
                .any(|t| f.starts_with(&format!("{t}: ")))
        })
        .collect();
    assert!(unexpected.is_empty(), "{unexpected:#?}");
    assert_eq!(flagged.len(), TRUE_POSITIVES.len(), "{flagged:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_syntax_error_is_left_to_the_engine_to_report() {
    let (_tmp, registry) = registry(TypecheckMode::Error);
    let run = code_support::run(&registry, "const s = \"open;\nreturn s;").await;
    let text = run.text();
    assert!(run.result.is_error(), "{text}");
    assert!(
        text.starts_with("Error: code run failed (syntax): "),
        "{text}"
    );
    assert!(!text.contains("TS1"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_misnamed_tool_keeps_the_suggestion_in_view() {
    let (_tmp, registry) = registry(TypecheckMode::Error);
    let run = code_support::run(&registry, "return await tools.Read({ file_path: \"a\" });").await;
    let text = run.text();
    assert!(
        text.contains("run_code.ts:1:20 TS2551: Property 'Read' does not exist on type '{ add:"),
        "{text}"
    );
    assert!(text.contains("…'. Did you mean 'read'?\n"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn es2025_built_ins_the_engines_have_are_not_reported() {
    let (_tmp, registry) = registry(TypecheckMode::Error);
    let program = "\
const groups = Object.groupBy([1, 2, 3], (n) => (n % 2 ? \"odd\" : \"even\"));
const both = new Set([1]).union(new Set([2]));
const doubled = Iterator.from([1, 2]).map((x) => x * 2).toArray();
return [groups.odd, [...both], doubled, RegExp.escape(\"a.b\").length];";
    let run = code_support::run(&registry, program).await;
    let text = run.text();
    assert!(!run.result.is_error(), "{text}");
    assert!(!text.contains("typecheck"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_compiler_that_fails_leaves_the_run_going_with_a_note() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("tsc");
    fs::write(
        &fake,
        "#!/bin/sh\n[ \"$1\" = --version ] && { echo 'Version 7.0.0'; exit 0; }\n\
         echo 'error TS5023: Unknown compiler option'; exit 1\n",
    )
    .unwrap();
    fs::set_permissions(&fake, fs::Permissions::from_mode(0o755)).unwrap();
    let (_tmp, registry) = registry_with(TypecheckMode::Error, Tsc::at(&fake).unwrap());
    let run = code_support::run(&registry, "return 1 + 1;").await;
    let text = run.text();
    assert!(!run.result.is_error(), "{text}");
    assert_eq!(
        text,
        "2\n\n[typecheck] not checked: tsc failed (exit status: 1): error TS5023: Unknown \
         compiler option"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_check_reads_no_file_the_program_names() {
    // The compiler runs outside the sandbox: a reference to a file elsewhere must not be read.
    let elsewhere = tempfile::tempdir().unwrap();
    let secret = elsewhere.path().join("secret.d.ts");
    fs::write(&secret, "declare const SECRET: \"hunter2\";\n").unwrap();
    let (_tmp, registry) = registry(TypecheckMode::Warn);
    let program = format!(
        "/// <reference path={:?} />\nconst n: number = SECRET;\nreturn 1;",
        secret.to_str().unwrap()
    );
    let run = code_support::run(&registry, &program).await;
    let text = run.text();
    assert!(
        text.contains("run_code.ts:2:19 TS2304: Cannot find name 'SECRET'."),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn warn_checks_while_the_program_runs() {
    use std::os::unix::fs::PermissionsExt;
    // A compiler that answers only once the program has written `go`: were the check made
    // before the run, it would wait for a file nobody writes and give up after its timeout.
    let (tmp, bin) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = fs::canonicalize(tmp.path()).unwrap();
    let go = root.join("go");
    let fake = bin.path().join("tsc");
    fs::write(
        &fake,
        format!(
            "#!/bin/sh\n[ \"$1\" = --version ] && {{ echo 'Version 7.0.0'; exit 0; }}\n\
             while [ ! -e {go:?} ]; do sleep 0.01; done\n\
             echo \"run_code.ts(3,1): error TS2322: Type 'string' is not assignable.\"; exit 2\n"
        ),
    )
    .unwrap();
    fs::set_permissions(&fake, fs::Permissions::from_mode(0o755)).unwrap();
    let registry = registry_over(&root, TypecheckMode::Warn, Tsc::at(&fake).unwrap());
    let program =
        "await tools.write({ file_path: \"go\", content: \"now\" });\nreturn \"written\";";
    let run = code_support::run(&registry, program).await;
    let text = run.text();
    assert!(
        text.starts_with(
            "written\n\n[typecheck] 1 type error (the program ran):\nrun_code.ts:2:1 TS2322"
        ),
        "{text}"
    );
}

#[test]
fn the_typescript_7_compiler_is_found_through_node_modules() {
    // `node_modules/typescript7` (the alias) is a node shim: resolved to the native binary.
    let dir = node_modules().join("..");
    let found = Tsc::find(None, &dir).unwrap();
    assert!(found.version().starts_with("7."), "{found:?}");
    let native = node_modules()
        .join("@typescript")
        .join(format!("typescript-linux-{}", "x64"))
        .join("lib/tsc");
    if cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        assert_eq!(found.path(), native.canonicalize().unwrap());
    }
}

#[test]
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
fn an_npm_install_of_typescript_7_is_resolved_from_bin_to_the_native_binary() {
    // `npm i typescript@7`: node_modules/.bin/tsc → ../typescript/bin/tsc (a node shim), whose
    // native compiler is the optional package @typescript/typescript-linux-x64.
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let modules = dir.path().join("node_modules");
    fs::create_dir_all(modules.join(".bin")).unwrap();
    fs::create_dir_all(modules.join("typescript/bin")).unwrap();
    fs::write(
        modules.join("typescript/package.json"),
        r#"{ "name": "typescript", "version": "7.0.2", "bin": { "tsc": "./bin/tsc" } }"#,
    )
    .unwrap();
    fs::write(
        modules.join("typescript/bin/tsc"),
        "#!/usr/bin/env node\nimport \"../lib/tsc.js\";\n",
    )
    .unwrap();
    symlink("../typescript/bin/tsc", modules.join(".bin/tsc")).unwrap();
    let platform = modules.join("@typescript/typescript-linux-x64/lib");
    fs::create_dir_all(&platform).unwrap();
    let native = node_modules().join("@typescript/typescript-linux-x64/lib/tsc");
    symlink(native.canonicalize().unwrap(), platform.join("tsc")).unwrap();
    let found = Tsc::at(&modules.join(".bin/tsc")).unwrap();
    assert_eq!(found.version(), "7.0.2");
    assert_eq!(
        found.path(),
        modules
            .canonicalize()
            .unwrap()
            .join("@typescript/typescript-linux-x64/lib/tsc")
    );
    // Without the platform package, it says which one is missing.
    fs::remove_file(platform.join("tsc")).unwrap();
    let err = Tsc::at(&modules.join(".bin/tsc")).unwrap_err();
    assert!(
        err.contains("@typescript/typescript-linux-x64 is not installed"),
        "{err}"
    );
}

#[test]
fn a_compiler_that_is_not_typescript_7_is_refused_with_its_version() {
    // TypeScript 5's `bin/tsc` is a node script of another package layout: not a 7.x compiler.
    let five = node_modules().join("typescript/bin/tsc");
    let err = Tsc::at(&five).unwrap_err();
    assert!(err.contains("is not TypeScript 7"), "{err}");
}

#[test]
fn config_code_section_sets_the_mode_and_a_compiler_relative_to_the_file() {
    let file = Path::new("/etc/ptc/ptc.toml");
    let config = ptc_cli::config::Config::parse(
        "[code]\ntypecheck = \"error\"\ntsc = \"ts7/bin/tsc\"\n",
        Some(file),
    )
    .unwrap();
    assert_eq!(config.code.typecheck, Some(TypecheckMode::Error));
    assert_eq!(
        config.code.tsc.as_deref(),
        Some(Path::new("/etc/ptc/ts7/bin/tsc"))
    );
    let bad = |text: &str| {
        ptc_cli::config::Config::parse(text, Some(Path::new("ptc.toml")))
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        bad("[code]\n\ntypecheck = \"strict\"\n"),
        "ptc.toml:3: code.typecheck: unknown typecheck mode `strict` (expected off, warn or error)"
    );
    let e = bad("[code]\ntypechek = \"warn\"\n");
    assert!(
        e.starts_with("ptc.toml:2:") && e.contains("typechek"),
        "{e}"
    );
    let e = bad("[code]\ntsc = \"\"\n");
    assert_eq!(e, "ptc.toml:2: code.tsc must not be empty");
}

#[test]
fn config_an_untrusted_workspace_file_sets_no_type_check() {
    // The check runs a compiler outside the sandbox: a file a program may have written (and
    // the `node_modules` it would find) must not turn it on.
    let root = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let store = ptc_cli::config::TrustStore::new(home.path().join("trusted.toml"));
    fs::write(
        root.path().join("ptc.toml"),
        "[code]\ntypecheck = \"warn\"\ntsc = \"node_modules/.bin/tsc\"\n",
    )
    .unwrap();
    let loaded =
        ptc_cli::config::Config::discover_trusted(None, root.path(), Some(&store)).unwrap();
    assert_eq!(loaded.config.code, Default::default());
    assert!(
        loaded.notices.iter().any(|n| n.contains("[code]")),
        "{:?}",
        loaded.notices
    );
}

/// `ptc run` in `dir` with `env` set, PATH emptied and PTC_TSC unset unless `env` sets them.
fn ptc_run(dir: &Path, args: &[&str], env: &[(&str, &Path)]) -> std::process::Output {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_ptc"));
    command
        .arg("run")
        .args(args)
        .current_dir(dir)
        .env("PATH", "")
        .env_remove(ptc::typecheck::TSC_ENV)
        .stdin(std::process::Stdio::null());
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("ptc runs")
}

#[test]
fn cli_without_a_compiler_the_check_is_off_with_one_line_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("p.ts"), "const n: number = 'x';\nreturn n;").unwrap();
    let o = ptc_run(
        dir.path(),
        &[
            "--tools",
            "testkit",
            "--typecheck",
            "error",
            "--repeat",
            "3",
            "p.ts",
        ],
        &[],
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    let said: Vec<&str> = stderr.lines().filter(|l| l.contains("typecheck")).collect();
    assert_eq!(
        said,
        [
            "ptc: warning: typecheck = \"error\" is off: no TypeScript 7 compiler: install \
          `typescript@7` (npm), or set PTC_TSC or `[code] tsc`"
        ],
        "{stderr}"
    );
}

#[test]
fn cli_typecheck_flag_and_config_reach_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let program = "const r = await tools.echo({ text: 1 });\nreturn r;";
    fs::write(dir.path().join("p.ts"), program).unwrap();
    let shim = node_modules().join("typescript7/bin/tsc");
    // --typecheck error, the compiler from PTC_TSC: refused, exit 1.
    let o = ptc_run(
        dir.path(),
        &["--tools", "testkit", "--typecheck", "error", "p.ts"],
        &[("PTC_TSC", &shim)],
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.starts_with(
            "Error: The program did not run: 1 type error (typecheck = \"error\"); fix and run \
             again.\nrun_code.ts:1:30 TS2322: Type 'number' is not assignable to type 'string'."
        ),
        "{stdout}"
    );
    // `[code]` of an explicit (operator's) file: warn, with its own compiler.
    let etc = tempfile::tempdir().unwrap();
    let config = etc.path().join("ptc.toml");
    fs::write(
        &config,
        format!(
            "[code]\ntypecheck = \"warn\"\ntsc = {:?}\n",
            shim.to_str().unwrap()
        ),
    )
    .unwrap();
    let o = ptc_run(
        dir.path(),
        &[
            "--tools",
            "testkit",
            "--config",
            config.to_str().unwrap(),
            "p.ts",
        ],
        &[],
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("[typecheck] 1 type error (the program ran):\nrun_code.ts:1:30 TS2322"),
        "{stdout}"
    );
    // The flag wins over the file.
    let o = ptc_run(
        dir.path(),
        &[
            "--tools",
            "testkit",
            "--config",
            config.to_str().unwrap(),
            "--typecheck",
            "off",
            "p.ts",
        ],
        &[],
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(!stdout.contains("typecheck"), "{stdout}");
}

#[test]
fn serve_typecheck_flag_refuses_a_program_over_mcp() {
    use crate::mcp_support::serve::StdioPeer;
    let dir = tempfile::tempdir().unwrap();
    let shim = node_modules().join("typescript7/bin/tsc");
    let mut peer = StdioPeer::start_with_env(
        dir.path(),
        &[
            "--tools",
            "testkit",
            "--mode",
            "code",
            "--typecheck",
            "error",
        ],
        &[("PTC_TSC", shim.to_str().unwrap())],
    );
    let result = peer.call(
        1,
        "run_code",
        serde_json::json!({
            "code": "return await tools.add({ a: 1, b: \"2\" });",
            "description": "add two numbers",
        }),
    );
    assert_eq!(result["isError"], true, "{result}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("run_code.ts:1:32 TS2322: Type 'string' is not assignable to type 'number'."),
        "{text}"
    );
    assert_eq!(peer.finish(), Some(0));
}
