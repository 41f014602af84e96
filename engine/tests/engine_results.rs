//! Return values, console output and exceptions.

#[macro_use]
mod common;

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
    async fn non_json_return_values_are_invalid_output() {
        for (program, what) in [
            ("return () => 1", "a function"),
            ("return Symbol('s')", "a symbol"),
            ("return 10n", "a BigInt"),
            ("return NaN", "NaN"),
            ("return { x: Infinity }", "Infinity at $.x"),
            ("return [1, undefined]", "undefined at $[1]"),
            ("return { a: undefined }", "undefined at $.a"),
            ("const a = []; a[2] = 1; return a", "an array hole at $[0]"),
            ("const o = {}; o.self = o; return o", "a cycle at $.self"),
            ("return new Date(0)", "a Date object"),
            ("return { m: new Map() }", "a Map object at $.m"),
            ("class P { x = 1 }; return new P()", "a P object"),
            ("return { [Symbol('k')]: 1 }", "symbol keys"),
        ] {
            let report = run(program).await;
            let failure = failure(&report);
            assert_eq!(
                failure.kind,
                FailureKind::InvalidOutput,
                "{program}: {failure:?}"
            );
            assert!(
                failure.message.contains(what),
                "{program}: {}",
                failure.message
            );
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
        assert_eq!(report.logs[0], r#"a 1 {"b":[2]} undefined null true"#);
        assert_eq!(report.logs[1], "info");
        assert_eq!(report.logs[2], "warn");
        // QuickJS names the anonymous frame, V8 does not.
        let frame = match common::backend() {
            common::Backend::QuickJs => "TypeError: bad\n    at <anonymous> (run_code.ts:4:",
            common::Backend::Deno => "TypeError: bad\n    at run_code.ts:4:",
        };
        assert!(report.logs[3].starts_with(frame), "{}", report.logs[3]);
        assert_eq!(report.logs[4], "[Function: anonymous] 5n Symbol(s) NaN");
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
    async fn console_output_is_kept_when_the_run_fails() {
        let report = run("console.log('before');\nthrow new Error('after')").await;
        assert_eq!(report.logs, vec!["before".to_string()]);
        assert_eq!(failure(&report).kind, FailureKind::Exception);
    }
}

engine_test! {
    async fn exceptions_keep_the_programs_line_and_column() {
        let report = run("const a = 1;\nconst b = 2;\n  throw new Error('boom')").await;
        let failure = failure(&report);
        assert_eq!(failure.kind, FailureKind::Exception);
        assert!(
            failure.message.starts_with("Error: boom\n"),
            "{}",
            failure.message
        );
        // QuickJS points at the call, V8 at the `new` expression.
        let position = match common::backend() {
            common::Backend::QuickJs => "run_code.ts:3:13",
            common::Backend::Deno => "run_code.ts:3:9",
        };
        assert!(failure.message.contains(position), "{}", failure.message);

        // Line 1 has no column shift from the wrapper either.
        let report = run("null.x").await;
        let failure = common::failure(&report);
        assert!(
            failure.message.starts_with("TypeError: "),
            "{}",
            failure.message
        );
        let column = failure
            .message
            .split_once("run_code.ts:1:")
            .and_then(|(_, rest)| rest.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|col| col.parse::<usize>().ok());
        assert!(
            matches!(column, Some(1..=6)),
            "a column within `null.x`: {}",
            failure.message
        );

        // After an await, inside nested functions.
        let report = run("await tools.echo({});\nfunction f() {\n  return g();\n}\nfunction g() { throw new RangeError('deep') }\nf();").await;
        let message = &common::failure(&report).message;
        let g = match common::backend() {
            common::Backend::QuickJs => "at g (run_code.ts:5:26)",
            common::Backend::Deno => "at g (run_code.ts:5:22)",
        };
        assert!(message.contains(g), "{message}");
        assert!(message.contains("at f (run_code.ts:3:10)"), "{message}");
    }
}

engine_test! {
    async fn thrown_non_errors_and_rejections_are_exceptions() {
        let report = run("throw 'plain'").await;
        assert_eq!(failure(&report).kind, FailureKind::Exception);
        assert_eq!(failure(&report).message, "plain");
        let report = run("await Promise.reject({ code: 7 })").await;
        assert_eq!(failure(&report).message, r#"{"code":7}"#);
    }
}

engine_test! {
    async fn a_js_syntax_error_is_a_syntax_failure_with_its_position() {
        // Stripping accepts what the engine rejects only in odd cases, such as a redeclaration.
        let program = ptc_engine::Program {
            source: "const a = 1;\nlet a = 2;".into(),
            tool_names: vec![],
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
        assert!(failure.message.starts_with("2:"), "{}", failure.message);
        assert!(
            failure.message.contains("SyntaxError"),
            "{}",
            failure.message
        );
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
