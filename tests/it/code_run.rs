//! Behaviours 40–42, 49, 50 and 53: the `run_code` tool, the program's sandbox, and
//! what a finished or failed run shows the model.

use ptc_testing::code as code_support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use code_support::*;
use ptc::{codes, RUN_CODE};
use ptc_testing::tools::*;
use serde_json::{json, Value};

fn parse(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

// ---- b40: parameters -------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b40_run_code_requires_code_and_description() {
    let registry = code_registry();
    let (input, _) = registry.view(None, None).model_input().unwrap();
    let schema = input
        .schemas
        .iter()
        .find(|s| s.name == RUN_CODE)
        .expect("run_code is offered in mode both");
    let required: Vec<&str> = schema.parameters["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(required.contains(&"code"), "{required:?}");
    assert!(required.contains(&"description"), "{required:?}");

    let ok = Call::direct(
        RUN_CODE,
        json!({"code": "return 'ran'", "description": "return a fixed word"}),
    )
    .send(&registry)
    .await;
    assert_eq!(ok.text(), "ran");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b40_blank_description_is_invalid_args_and_nothing_runs() {
    let registry = code_registry();
    let hits = Arc::new(AtomicUsize::new(0));
    registry
        .register(counting("bump", false, hits.clone()))
        .unwrap();
    for description in ["", "   \n\t"] {
        let r = Call::direct(
            RUN_CODE,
            json!({"code": "await tools.bump({}); return 'ran'", "description": description}),
        )
        .send(&registry)
        .await;
        assert_eq!(r.error_code(), Some(codes::INVALID_ARGS), "{}", r.text());
        assert!(r.text().contains("description"), "{}", r.text());
        assert!(r.starts().is_empty());
    }
    assert_eq!(hits.load(Ordering::SeqCst), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b40_missing_code_or_description_is_invalid_args() {
    let registry = code_registry();
    for args in [
        json!({"description": "a program without code"}),
        json!({"code": "return 1"}),
        json!({"code": 42, "description": "code is not a string"}),
    ] {
        let r = Call::direct(RUN_CODE, args.clone()).send(&registry).await;
        assert_eq!(
            r.error_code(),
            Some(codes::INVALID_ARGS),
            "{args}: {}",
            r.text()
        );
    }
}

// ---- b41: type stripping -----------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b41_types_are_stripped_before_the_program_runs() {
    let registry = code_registry();
    let code = "interface Point { x: number; y: number }\n\
                type Pair<T> = [T, T];\n\
                function sum<T extends Point>(p: T): number { return p.x + p.y; }\n\
                const pair: Pair<string> = ['a', 'b'];\n\
                const p = { x: 2, y: 3 } satisfies Point;\n\
                const text = (await tools.echo({ text: pair.join('') })) as string;\n\
                return `${text}:${sum<Point>(p)}`;";
    assert_eq!(run_ok(&registry, code).await, "ab:5");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b41_enum_fails_as_a_syntax_error_with_position_before_anything_runs() {
    let registry = code_registry();
    let hits = Arc::new(AtomicUsize::new(0));
    registry
        .register(counting("bump", false, hits.clone()))
        .unwrap();
    let seen = record_pre_execute(&registry);
    let code = "await tools.bump({});\nconsole.log('started');\n  enum Color { Red }\nreturn 1;";
    let r = run(&registry, code).await;
    assert_eq!(r.error_code(), Some(codes::CODE_RUN_FAILED));
    assert!(
        r.text()
            .starts_with("Error: code run failed (syntax): run_code.ts:3:3: "),
        "{}",
        r.text()
    );
    assert!(!r.text().contains("Captured output"), "{}", r.text());
    assert!(r.starts().is_empty() && r.dispatches().is_empty());
    assert_eq!(hits.load(Ordering::SeqCst), 0);
    let seen = seen.lock().unwrap();
    assert!(
        seen.iter().all(|s| s.parent.is_none()),
        "no sub-call reached pre-execute: {seen:?}"
    );
}

// ---- b42: fresh context, no ambient authority ---------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b42_each_run_gets_a_fresh_context() {
    let registry = code_registry();
    let set = "globalThis.leak = 41;\n\
               Array.prototype.extra = 1;\n\
               Object.prototype.polluted = true;\n\
               return typeof leak;";
    assert_eq!(run_ok(&registry, set).await, "number");
    let read = "return [typeof leak, typeof [].extra, typeof ({}).polluted];";
    assert_eq!(
        parse(&run_ok(&registry, read).await),
        json!(["undefined", "undefined", "undefined"])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b42_concurrent_runs_cannot_see_each_other() {
    let registry = code_registry();
    let a = "globalThis.fromA = 1;\nawait tools.sleep({ms: 150});\nreturn typeof globalThis.fromB;";
    let b = "globalThis.fromB = 1;\nawait tools.sleep({ms: 150});\nreturn typeof globalThis.fromA;";
    let (ra, rb) = tokio::join!(run(&registry, a), run(&registry, b));
    assert_eq!(ra.text(), "undefined");
    assert_eq!(rb.text(), "undefined");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b42_programs_have_no_ambient_authority() {
    let registry = code_registry();
    let names = [
        "process",
        "require",
        "module",
        "Deno",
        "Bun",
        "fetch",
        "XMLHttpRequest",
        "WebSocket",
        "setTimeout",
        "setInterval",
        "std",
        "os",
        "scriptArgs",
        "print",
    ];
    let code = format!(
        "return [{}];",
        names
            .iter()
            .map(|n| format!("typeof {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let text = run_ok(&registry, &code).await;
    // Node's, Deno's and Bun's authority is absent; the names a model reaches for are
    // stand-ins that only say what to do instead (the timers are real, and end with the run).
    let expected: Vec<&str> = names
        .iter()
        .map(|n| match *n {
            // Namespaces are objects, as in Node; what a program calls is a function.
            "process" | "Deno" | "Bun" => "object",
            "require" | "fetch" | "setTimeout" | "setInterval" => "function",
            _ => "undefined",
        })
        .collect();
    assert_eq!(parse(&text), json!(expected), "{names:?}");
    for stand_in in [
        "process.env",
        "require('fs')",
        "Deno.env",
        "Bun.file('x')",
        "fetch('x')",
    ] {
        let code =
            format!("try {{ {stand_in}; return 'reached' }} catch (e) {{ return e.message }}");
        let said = run_ok(&registry, &code).await;
        assert!(
            said.contains("is not available in programs"),
            "{stand_in}: {said}"
        );
    }

    let import = "try { await import('os'); return 'imported'; } catch (e) { return 'refused'; }";
    let r = run(&registry, import).await;
    assert_ne!(r.text(), "imported");
}

// ---- b49: output ---------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b49_console_lines_in_order_then_the_pretty_printed_value() {
    let registry = code_registry();
    let code = "console.log('one');\n\
                console.info('two');\n\
                console.warn('three');\n\
                console.error('four');\n\
                console.debug('five', 6);\n\
                return { ok: true, items: [1, 'x'] };";
    assert_eq!(
        run_ok(&registry, code).await,
        "one\ntwo\nwarn: three\nerror: four\nfive 6\n{\n  \"ok\": true,\n  \"items\": [\n    1,\n    \"x\"\n  ]\n}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b49_a_returned_string_is_shown_raw() {
    let registry = code_registry();
    let code = "console.log('log');\nreturn 'line \"1\"\\nline 2';";
    assert_eq!(run_ok(&registry, code).await, "log\nline \"1\"\nline 2");
    assert_eq!(run_ok(&registry, "return 'only';").await, "only");
    assert_eq!(
        run_ok(&registry, "console.log('only a log');").await,
        "only a log"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b49_no_output_and_no_value_shows_a_placeholder() {
    let registry = code_registry();
    for code in [
        "const a = 1;",
        "",
        "return undefined;",
        "const r = await tools.echo({text: 'x'});",
    ] {
        assert_eq!(
            run_ok(&registry, code).await,
            "(run_code completed with no output)",
            "{code:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b49_a_non_json_return_value_fails_as_invalid_output() {
    let registry = code_registry();
    for code in [
        "return () => 1;",
        "return 10n;",
        "return { when: new Map() };",
        "return [1, new Set()];",
    ] {
        let r = run(&registry, &format!("console.log('before');\n{code}")).await;
        assert_eq!(r.error_code(), Some(codes::CODE_RUN_FAILED), "{code}");
        assert!(
            r.text()
                .starts_with("Error: code run failed (invalid-output): "),
            "{code}: {}",
            r.text()
        );
        assert!(
            r.text().ends_with("\nCaptured output:\nbefore"),
            "{}",
            r.text()
        );
    }
}

// ---- b50: failed runs ----------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b50_a_failed_run_shows_kind_message_position_and_captured_output() {
    let registry = code_registry();
    let code = "console.log('before');\n\
                console.warn('still before');\n\
                throw new Error('kaboom');\n\
                console.log('after');";
    let r = run(&registry, code).await;
    assert!(r.result.is_error());
    assert_eq!(r.error_code(), Some(codes::CODE_RUN_FAILED));
    let text = r.text();
    assert!(
        text.starts_with("Error: code run failed (exception): run_code.ts:3:"),
        "keeps the program's own line: {text}"
    );
    assert!(
        text.contains(": Error: kaboom\n 3 | throw new Error('kaboom');\n"),
        "{text}"
    );
    assert!(
        text.ends_with("\nCaptured output:\nbefore\nwarn: still before"),
        "{text}"
    );
    assert!(!text.contains("after"), "{text}");
    let failure = r.result.error().unwrap();
    assert_eq!(failure.info.as_ref().unwrap().name, "CodeRunError");
    assert_eq!(format!("Error: {}", failure.message), text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b50_a_failed_run_without_output_has_no_captured_section() {
    let registry = code_registry();
    let r = run(&registry, "throw new TypeError('bad input');").await;
    assert_eq!(r.error_code(), Some(codes::CODE_RUN_FAILED));
    assert!(
        r.text()
            .starts_with("Error: code run failed (exception): run_code.ts:1:"),
        "{}",
        r.text()
    );
    assert!(!r.text().contains("Captured output"), "{}", r.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b50_an_uncaught_tool_call_error_fails_the_run() {
    let registry = code_registry();
    let code =
        "console.log('calling');\nawait tools.fail({ message: 'boom' });\nreturn 'unreachable';";
    let r = run(&registry, code).await;
    assert_eq!(r.error_code(), Some(codes::CODE_RUN_FAILED));
    assert!(
        r.text().starts_with(
            "Error: code run failed (exception): ToolCallError: fail failed at run_code.ts:2:13: boom"
        ),
        "{}",
        r.text()
    );
    assert!(
        r.text().ends_with("\nCaptured output:\ncalling"),
        "{}",
        r.text()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b50_a_failed_run_lists_what_its_calls_changed_before_it() {
    // A retry of the whole program would do these again: the failure says they were done.
    let registry = code_registry();
    let hits = Arc::new(AtomicUsize::new(0));
    registry
        .register(counting("tally", false, hits.clone()))
        .unwrap();
    registry.register(counting("peek", true, hits)).unwrap();
    let code = "await tools.tally({});\nawait tools.peek({});\nawait tools.tally({});\n\
                await tools.fail({ message: 'boom' });";
    let r = run(&registry, code).await;
    assert_eq!(r.error_code(), Some(codes::CODE_RUN_FAILED));
    assert!(
        r.text().ends_with(
            "boom\n 4 | await tools.fail({ message: 'boom' });\n   |             ^\n\
             [done before the failure, and not undone: check before retrying]\n- tally\n- tally"
        ),
        "only the calls that may change something, in order: {}",
        r.text()
    );
}

// ---- b53: bindings -------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b53_programs_never_get_a_run_code_binding() {
    let registry = code_registry();
    let code = "return ['run_code' in tools, Object.keys(tools).includes('run_code'), Object.keys(tools).sort()];";
    assert_eq!(
        parse(&run_ok(&registry, code).await),
        json!([false, false, ["add", "counter", "echo", "fail", "sleep"]])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b53_proto_constructor_and_then_are_ordinary_bindings() {
    let registry = code_registry();
    for name in ["__proto__", "constructor", "then"] {
        registry
            .register(constant(name, json!(format!("from {name}"))))
            .unwrap();
    }
    let code = "const a = await tools['__proto__']({});\n\
                const b = await tools.constructor({});\n\
                const c = await tools.then({});\n\
                const types = [typeof tools['__proto__'], typeof tools.constructor, typeof tools.then];\n\
                const clean = [\n\
                  Object.keys(Object.prototype).length === 0,\n\
                  typeof ({}).then === 'undefined',\n\
                  ({}).constructor === Object,\n\
                  Object.getPrototypeOf({}) === Object.prototype,\n\
                  typeof Object.prototype.echo === 'undefined',\n\
                ];\n\
                return { values: [a, b, c], types, clean };";
    let value = parse(&run_ok(&registry, code).await);
    assert_eq!(
        value,
        json!({
            "values": ["from __proto__", "from constructor", "from then"],
            "types": ["function", "function", "function"],
            "clean": [true, true, true, true, true],
        })
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b53_hostile_names_reach_their_own_tools() {
    let registry = code_registry();
    for name in ["__proto__", "constructor", "then"] {
        registry
            .register(constant(name, json!(format!("from {name}"))))
            .unwrap();
    }
    let r = run(
        &registry,
        "await tools['__proto__']({}); await tools.constructor({}); await tools.then({});",
    )
    .await;
    let names: Vec<String> = r.dispatches().into_iter().map(|d| d.name).collect();
    assert_eq!(names, ["__proto__", "constructor", "then"]);
    assert!(r.dispatches().iter().all(|d| !d.is_error));
}

// ---- the result cap ------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_over_max_result_chars_is_cut_to_head_and_tail_and_kept_whole_in_meta() {
    let registry = code_registry_with(config(|c| c.max_result_chars = 1_000));
    let code = "return 'h'.repeat(700) + 'm'.repeat(5000) + 't'.repeat(500);";
    let r = run(&registry, code).await;
    let text = r.text();
    assert!(text.starts_with(&"h".repeat(600)), "{text}");
    assert!(text.ends_with(&"t".repeat(400)), "{text}");
    assert!(
        text.contains("5200 of 6200 characters cut here: return or print less"),
        "{text}"
    );
    assert!(text.chars().count() < 1_200, "{}", text.chars().count());
    // The value and the log keep all of it.
    let full = r.result.meta.as_ref().expect("meta carries the full text")["fullText"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(full.len(), 6_200);
    assert_eq!(r.result.value().unwrap().as_str().unwrap(), full);
    // Under the cap: as is, and no meta.
    let r = run(&registry, "return 'x'.repeat(1000)").await;
    assert_eq!(r.text(), "x".repeat(1000));
    assert!(r.result.meta.is_none());
    // The guidance states the cap in force.
    registry.set_mode(ptc::ToolMode::Code);
    let (_, sections) = registry.view(None, None).model_input().unwrap();
    assert!(
        sections[0].text.contains("past 1,000 chars"),
        "{}",
        sections[0].text
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b44_rejections_nothing_handled_are_reported_and_failed_changes_fail_the_run() {
    let registry = code_registry();
    let program = r#"
async function check() {
  await tools.echo({ text: "x" });
  throw new Error("no tests found");
}
check();
tools.fail({ message: "boom" });
tools.fail({ message: "chained" }).then((r) => r);
Promise.reject(42);
const caught = tools.fail({ message: "caught later" });
await tools.sleep({ ms: 20 });
await caught.catch(() => {});
return "done";
"#;
    // `fail` may change something (it is not concurrency-safe): its unawaited failures make
    // the run a failure, listed first, the output after them.
    let r = run(&registry, program).await;
    assert!(r.result.is_error());
    let text = r.text();
    let (head, note) = text
        .split_once("\n[left behind when the program ended]\n")
        .unwrap();
    assert_eq!(
        head,
        "Error: code run failed (left behind): calls that change things did not all happen, \
         and the program ended without awaiting them"
    );
    let (note, output) = note.split_once("\nCaptured output:\n").unwrap();
    assert_eq!(output, "done");
    let mut lines: Vec<&str> = note.lines().filter(|l| l.starts_with("- ")).collect();
    lines.sort();
    assert_eq!(lines.len(), 4, "{note}");
    assert_eq!(
        lines[0],
        "- a promise rejected and nothing handled it (an un-awaited async function?): 42"
    );
    assert_eq!(
        lines[1],
        "- a promise rejected and nothing handled it (an un-awaited async function?): \
         Error: no tests found"
    );
    assert!(
        lines[2].starts_with("- run_code.ts:7:7 fail: failed and nothing awaited it: "),
        "{note}"
    );
    assert!(lines[2].ends_with("boom"), "{note}");
    assert!(
        lines[3].starts_with("- run_code.ts:8:7 fail: failed and nothing awaited it: "),
        "{note}"
    );
    assert!(lines[3].ends_with("chained"), "{note}");
    assert!(
        !note.contains("caught later"),
        "a rejection handled later is not reported: {note}"
    );
}
