//! The sandbox: no ambient authority, and no run sees another.

use crate::common;

use common::{run, value};
use serde_json::json;

engine_test! {
    async fn no_ambient_globals() {
        assert_eq!(
            value(
                "return [typeof std, typeof os, typeof print, typeof XMLHttpRequest, typeof WebSocket,\n\
                 typeof importScripts, typeof module, typeof exports, typeof global]"
            )
            .await,
            Some(json!(vec!["undefined"; 9]))
        );
        // What a model reaches for from Node, Deno or Bun says what to do instead, and does
        // nothing: every use throws.
        for (expression, says) in [
            ("fetch('https://example.com')", "fetch is not available in programs: a program has no network access"),
            ("require('fs')", "require is not available in programs"),
            ("process.env.HOME", "process is not available in programs"),
            ("process.exit(1)", "process is not available in programs"),
            ("Buffer.from('x')", "Buffer is not available in programs"),
            ("Deno.readTextFile('x')", "Deno is not available in programs"),
            ("new Bun.file('x')", "Bun is not available in programs"),
        ] {
            let program = format!("try {{ {expression}; return 'ran' }} catch (e) {{ return e.message }}");
            let said = value(&program).await.unwrap();
            assert!(said.as_str().unwrap().starts_with(says), "{expression}: {said}");
        }
    }
}

engine_test! {
    async fn only_the_language_and_the_three_bindings_are_global() {
        let names = value("return Object.getOwnPropertyNames(globalThis)")
            .await
            .unwrap();
        let names: Vec<&str> = names
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        for name in ["tools", "ToolCallError", "console"] {
            assert!(names.contains(&name), "{name} missing from {names:?}");
        }
        for name in &names {
            assert!(
                !name.starts_with("__")
                    && !name.to_lowercase().contains("ptc")
                    && !name.contains("host"),
                "unexpected global {name}"
            );
        }
    }
}

engine_test! {
    async fn raw_host_functions_are_unreachable() {
        // The glue keeps them in a closure: nothing on globalThis, on tools, or on the tool functions.
        assert_eq!(
            value(
                "const seen = [];\n\
                 for (const o of [globalThis, tools, tools.echo, console, ToolCallError, ToolCallError.prototype]) {\n\
                   for (const k of Reflect.ownKeys(o)) if (/host|ptc/i.test(String(k))) seen.push(String(k));\n\
                 }\n\
                 return seen"
            )
            .await,
            Some(json!([]))
        );
    }
}

engine_test! {
    async fn no_module_loading_or_host_escape() {
        let report = run("const m = await import('os');\nreturn typeof m").await;
        assert!(report.outcome.is_err(), "{:?}", report.outcome);
        // eval is the language's own, and sees only the sandbox.
        assert_eq!(
            value("return eval('typeof tools')").await,
            Some(json!("object"))
        );
        assert_eq!(
            value("try { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10) } catch (e) { return e.name }").await,
            Some(json!("TypeError"))
        );
    }
}

engine_test! {
    async fn runs_cannot_see_each_other() {
        assert_eq!(
            value("globalThis.leak = 1; Object.prototype.polluted = 2; Array.prototype.push = null; leaked = 3; return 'set'").await,
            Some(json!("set"))
        );
        assert_eq!(
            value("return [typeof leak, typeof leaked, typeof ({}).polluted, typeof [].push]").await,
            Some(json!(["undefined", "undefined", "undefined", "function"]))
        );
    }
}

engine_test! {
    async fn a_program_that_patches_builtins_cannot_bypass_the_json_check() {
        let host = common::TestHost::new();
        let report = common::run_full(
            "Array.isArray = () => true;\nJSON.stringify = () => '{}';\nObject.getPrototypeOf = () => Object.prototype;\nObject.prototype.toString = () => '[object Object]';\nMap.prototype.toJSON = () => ({});\ndelete Map.prototype.toJSON;\ntry { await tools.echo({ m: new Map([[1, 2]]) }) } catch (e) { return e.name }",
            host.clone(),
            Default::default(),
            Default::default(),
        )
        .await;
        assert_eq!(report.outcome, Ok(Some(json!("ToolCallError"))));
        assert!(host.calls().is_empty());
    }
}
