//! Return values, console output and exceptions.

use crate::common;

use common::{failure, run, value};
use ptc_engine::{FailureKind, LogLevel};
use serde_json::json;

engine_test! {
    async fn returns_strings_objects_and_undefined() {
        assert_eq!(value("return 'hello'").await, Some(json!("hello")));
        assert_eq!(
            value("return { a: [1, 2.5, null, true], b: { c: 'd' } }").await,
            Some(json!({ "a": [1, 2.5, null, true], "b": { "c": "d" } }))
        );
        assert_eq!(value("const x = 1;").await, None);
        assert_eq!(value("return undefined").await, None);
        assert_eq!(value("return null").await, Some(json!(null)));
        assert_eq!(
            value("return await Promise.resolve(42)").await,
            Some(json!(42))
        );
    }
}

engine_test! {
    async fn keeps_key_order_and_shared_references() {
        assert_eq!(
            value("const s = { v: 1 }; return { z: s, a: s, m: [s, s] }")
                .await
                .map(|v| v.to_string()),
            Some(r#"{"z":{"v":1},"a":{"v":1},"m":[{"v":1},{"v":1}]}"#.to_string())
        );
        assert_eq!(
            value("return JSON.parse('{\"__proto__\": 1}')").await,
            Some(json!({ "__proto__": 1 }))
        );
    }
}

engine_test! {
    async fn return_values_follow_json_stringify_where_it_keeps_meaning() {
        for (program, expected) in [
            ("return NaN", json!(null)),
            ("return { x: Infinity, y: -Infinity }", json!({ "x": null, "y": null })),
            ("return [1, undefined, Symbol('s')]", json!([1, null, null])),
            ("return { a: undefined, b: 1 }", json!({ "b": 1 })),
            ("const a = []; a[2] = 1; return a", json!([null, null, 1])),
            ("return new Date(0)", json!("1970-01-01T00:00:00.000Z")),
            ("return { d: new Date(0) }", json!({ "d": "1970-01-01T00:00:00.000Z" })),
            ("class P { x = 1 }; return new P()", json!({ "x": 1 })),
            ("return { [Symbol('k')]: 1, k: 2 }", json!({ "k": 2 })),
            ("return { toJSON() { return 'mine' } }", json!("mine")),
        ] {
            assert_eq!(value(program).await, Some(expected), "{program}");
        }
    }
}

engine_test! {
    async fn values_json_would_corrupt_are_invalid_output_with_every_path() {
        for (program, what) in [
            ("return () => 1", "$ is a function"),
            ("return Symbol('s')", "$ is a symbol"),
            ("return 10n", "$ is a BigInt (use String(x) or Number(x))"),
            ("const o = {}; o.self = o; return o", "$.self is a cycle"),
            ("return { m: new Map() }", "$.m is a Map (use Object.fromEntries(map))"),
            ("return [new Set()]", "$[0] is a Set (use [...set])"),
            ("return { p: Promise.resolve(1) }", "$.p is a Promise (await it)"),
        ] {
            let report = run(program).await;
            let failure = failure(&report);
            assert_eq!(failure.kind, FailureKind::InvalidOutput, "{program}: {failure:?}");
            assert!(failure.message.contains(what), "{program}: {}", failure.message);
        }
        // Every offending path, in one message.
        let report = run("return { m: new Map(), s: new Set(), f() {}, n: 1n }").await;
        let message = &failure(&report).message;
        for path in ["$.m is a Map", "$.s is a Set", "$.f is a function", "$.n is a BigInt"] {
            assert!(message.contains(path), "{message}");
        }
    }
}

engine_test! {
    async fn console_lines_keep_their_order_and_levels() {
        let report = run("console.log('a', 1, { b: [2] }, undefined, null, true);\n\
             console.info('info');\n\
             console.warn('warn');\n\
             console.error(new TypeError('bad'));\n\
             console.debug(() => 1, 5n, Symbol('s'), NaN);\n\
             console.log();\n\
             return 'done'")
        .await;
        assert_eq!(report.outcome, Ok(Some(json!("done"))));
        assert_eq!(report.logs.len(), 6, "{:?}", report.logs);
        assert_eq!(report.logs[0], "a 1 { b: [ 2 ] } undefined null true");
        assert_eq!(report.logs[1], "info");
        assert_eq!(report.logs[2], "warn: warn");
        assert_eq!(report.logs[3], "error: TypeError: bad");
        assert_eq!(report.logs[4], "[Function (anonymous)] 5n Symbol(s) NaN");
        assert_eq!(report.logs[5], "");
        assert_eq!(
            report.log_levels,
            vec![
                LogLevel::Log,
                LogLevel::Info,
                LogLevel::Warn,
                LogLevel::Error,
                LogLevel::Debug,
                LogLevel::Log
            ]
        );
    }
}

engine_test! {
    async fn console_formats_like_node_for_the_common_cases() {
        let report = run("console.log(new Map([['a', 1]]), new Set([1, 2]), [], {}, { a: { b: { c: { d: 1 } } } });\n\
             console.log('%s has %d items costing %f (%i) %j %%', 'cart', 3, 2.5, 7.9, { k: 'v' });\n\
             console.log([1, , 3], new Uint8Array([1, 2]), 'quote \\'s', ['quote \\'s']);\n\
             console.log(class Foo {}, function named() {}, new (class Point { x = 1 })());")
        .await;
        assert_eq!(
            report.logs,
            vec![
                "Map(1) { 'a' => 1 } Set(2) { 1, 2 } [] {} { a: { b: { c: [Object] } } }",
                "cart has 3 items costing 2.5 (7) {\"k\":\"v\"} %",
                "[ 1, <1 empty item>, 3 ] Uint8Array(2) [ 1, 2 ] quote 's [ \"quote 's\" ]",
                "[class Foo] [Function: named] Point { x: 1 }",
            ]
        );
    }
}

engine_test! {
    async fn console_output_is_kept_when_the_run_fails() {
        let report = run("console.log('before');\nthrow new Error('after')").await;
        assert_eq!(report.logs, vec!["before".to_string()]);
        assert_eq!(failure(&report).kind, FailureKind::Exception);
    }
}

engine_test! {
    async fn exceptions_point_at_the_programs_line_and_column() {
        let report = run("const a = 1;\nconst b = 2;\n  throw new Error('boom')").await;
        let failure = failure(&report);
        assert_eq!(failure.kind, FailureKind::Exception);
        // QuickJS points at the call, V8 at the `new` expression, deno_core's QuickJS facade
        // past the statement.
        let positions: &[&str] = match common::backend() {
            common::Backend::QuickJs => &["run_code.ts:3:13: Error: boom\n"],
            common::Backend::Deno => &["run_code.ts:3:9: Error: boom\n", "run_code.ts:3:26: Error: boom\n"],
        };
        assert!(positions.iter().any(|p| failure.message.starts_with(p)), "{}", failure.message);
        assert!(failure.message.contains("\n 3 |   throw new Error('boom')\n   | "), "{}", failure.message);
        assert!(!failure.message.contains("glue"), "{}", failure.message);

        // A bare last expression is returned, and still points at its own line.
        let report = run("let o = null;\no.x").await;
        let failure = common::failure(&report);
        assert!(failure.message.starts_with("run_code.ts:2:"), "{}", failure.message);
        assert!(failure.message.contains("TypeError"), "{}", failure.message);
        let column = failure
            .message
            .split_once("run_code.ts:2:")
            .and_then(|(_, rest)| rest.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|col| col.parse::<usize>().ok());
        // Within `o.x`, or just past it (deno_core's QuickJS facade).
        assert!(matches!(column, Some(1..=4)), "a column at `o.x`: {}", failure.message);

        // After an await, inside nested functions: the innermost frame of the program.
        let report = run("await tools.echo({});\nfunction f() {\n  return g();\n}\nfunction g() { throw new RangeError('deep') }\nf();").await;
        let message = &common::failure(&report).message;
        let g = match common::backend() {
            common::Backend::QuickJs => "run_code.ts:5:26: RangeError: deep",
            common::Backend::Deno => "run_code.ts:5:22: RangeError: deep",
        };
        assert!(message.starts_with(g), "{message}");
    }
}

engine_test! {
    async fn thrown_non_errors_and_rejections_are_exceptions() {
        let report = run("throw 'plain'").await;
        assert_eq!(failure(&report).kind, FailureKind::Exception);
        let hint = " (a thrown value that is not an Error has no line: throw new Error(…))";
        assert_eq!(failure(&report).message, format!("Uncaught plain{hint}"));
        let report = run("await Promise.reject({ code: 7 })").await;
        assert_eq!(failure(&report).message, format!("Uncaught {{ code: 7 }}{hint}"));
    }
}

engine_test! {
    async fn a_js_syntax_error_is_a_syntax_failure_with_its_position() {
        // Stripping accepts what the engine rejects only in odd cases, such as a redeclaration.
        let program = ptc_engine::Program {
            source: "const a = 1;\nlet a = 2;".into(),
            tool_names: vec![],
            result_shapes: Default::default(),
            filename: "run_code.ts".into(),
        };
        let report = ptc_engine::Engine::run(
            &*common::engine(),
            program,
            common::TestHost::new(),
            Default::default(),
            Default::default(),
        )
        .await;
        let failure = failure(&report);
        assert_eq!(failure.kind, FailureKind::Syntax);
        assert!(failure.message.starts_with("run_code.ts:2:"), "{}", failure.message);
        assert!(failure.message.contains("\n 2 | let a = 2;"), "{}", failure.message);
    }
}

engine_test! {
    async fn a_promise_that_can_never_settle_ends_the_run() {
        let report = run("await new Promise(() => {})").await;
        let failure = failure(&report);
        assert_eq!(failure.kind, FailureKind::Exception);
        assert!(
            failure.message.contains("never settle"),
            "{}",
            failure.message
        );
    }
}
