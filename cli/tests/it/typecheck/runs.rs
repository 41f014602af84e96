//! Runs under the check: what is reported, where, and what is left alone.

use futures::StreamExt;
use ptc_testing::code as code_support;

use std::fs;

use ptc::typecheck::{Tsc, TypecheckMode};

use super::{registry, registry_over, registry_with, tsc};

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

/// The corpus programs that run fine and still get a diagnostic, each a real mistake
/// (`forgotten_await_failing_call`, whose never-awaited `tools.edit({ old: … })` the check
/// rightly flags, fails its run: a change left behind that failed fails the run).
const TRUE_POSITIVES: [&str; 2] = [
    // `m.file` on grep matches (they have `path`): the run notes it too.
    "grep_match_wrong_field",
    // `/re/.test(l)` of a read line (an object): the run notes its text conversion too.
    "regex_test_on_read_lines",
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
    // A few at a time: each waits on its program and on the compiler.
    let (corpus, tsc) = (&corpus, &tsc);
    let mut flagged: Vec<String> = futures::stream::iter(&names)
        .map(|name| async move {
            let program = fs::read_to_string(corpus.join(format!("{name}.ts"))).unwrap();
            let (_tmp, root) = crate::code_programs::workspace();
            let registry = registry_over(&root, TypecheckMode::Warn, tsc.clone());
            let text = code_support::run(&registry, &program).await.text();
            text.find("[typecheck]")
                .map(|at| format!("{name}: {}", &text[at..]))
        })
        .buffer_unordered(3)
        .filter_map(std::future::ready)
        .collect()
        .await;
    flagged.sort();
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
