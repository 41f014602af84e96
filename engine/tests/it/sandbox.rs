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
        // Node's, Deno's and Bun's namespaces are objects, as there; what a program calls is a
        // function (`typeof process === "function"` surprised a tester).
        assert_eq!(
            value(
                "return [typeof process, typeof Deno, typeof Bun, typeof fetch, typeof require, \
                 typeof Buffer]"
            )
            .await,
            Some(json!(["object", "object", "object", "function", "function", "function"]))
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

engine_test! {
    async fn web_globals_work_and_become_plain_values_once_read() {
        assert_eq!(
            value(
                "const before = Object.getOwnPropertyDescriptor(globalThis, 'URL').value;\n\
                 const url = new URL('https://example.com/a/../b?q=1#top');\n\
                 return [before === undefined, url.href, new URLSearchParams('a=1&a=2').getAll('a'),\n\
                   new TextDecoder().decode(new TextEncoder().encode('h\u{e9}')), atob(btoa('hi')),\n\
                   structuredClone({ a: [1, { b: 2 }] }),\n\
                   typeof Object.getOwnPropertyDescriptor(globalThis, 'URL').value,\n\
                   Object.keys(globalThis).includes('URL')]"
            )
            .await,
            Some(json!([
                true,
                "https://example.com/b?q=1#top",
                ["1", "2"],
                "h\u{e9}",
                "hi",
                {"a": [1, {"b": 2}]},
                "function",
                false
            ]))
        );
    }
}

engine_test! {
    async fn a_web_global_assigned_before_it_is_read_keeps_the_programs_value() {
        assert_eq!(
            value("URL = 5;\nglobalThis.atob = 'mine';\nreturn [URL, atob, typeof btoa]").await,
            Some(json!([5, "mine", "function"]))
        );
    }
}

engine_test! {
    async fn parts_loaded_after_a_program_patches_builtins_use_the_originals() {
        // The glue's parts (console formatting, the web globals, the JSON encoder) load on first
        // use, and `console` and the stand-ins are made when first read, after this program has
        // replaced what they rely on.
        let report = run(
            "Object.keys = () => [];\nArray.isArray = () => false;\nJSON.stringify = () => 'patched';\n\
             Map.prototype.entries = function* () {};\nString.fromCharCode = () => '?';\n\
             encodeURIComponent = () => 'patched';\nObject.is = () => true;\nObject.entries = () => [];\n\
             Object = null;\n\
             RegExp.prototype.test = () => true;\nArray.prototype.filter = () => [];\n\
             console.log({ a: [1, 'x'] }, new Map([[1, 2]]));\n\
             let fetched;\ntry { fetch('https://example.com') } catch (e) { fetched = e.message }\n\
             return [new URLSearchParams({ q: 'a b' }).toString(), btoa('hi'), { m: [1] }, fetched]",
        )
        .await;
        assert_eq!(report.logs, vec!["{ a: [ 1, 'x' ] } Map(1) { 1 => 2 }"]);
        assert_eq!(
            report.outcome,
            Ok(Some(json!(["q=a+b", "aGk=", {"m": [1]},
                "fetch is not available in programs: a program has no network access; \
                 only tools.* reach outside the program"])))
        );
    }
}

/// deno_core embeds the glue and its parts as static one-byte strings, which must be ASCII
/// (a non-ASCII character, even in a comment, fails that backend's build).
#[test]
fn the_glue_and_its_parts_are_ascii() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime-js");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "js") {
            let text = std::fs::read_to_string(&path).unwrap();
            let line = text.lines().position(|l| !l.is_ascii());
            assert_eq!(line, None, "{} has a non-ASCII line", path.display());
            checked += 1;
        }
    }
    assert!(checked >= 10, "{checked} files");
}

engine_test! {
    async fn text_decoder_fatal_refuses_bytes_that_are_not_utf8_and_a_bom_is_dropped() {
        assert_eq!(
            value(
                "const latin1 = new Uint8Array([0x4a, 0x6f, 0x73, 0xe9]);\n\
                 const bom = new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0x69]);\n\
                 let fatal;\n\
                 try { new TextDecoder('utf-8', { fatal: true }).decode(latin1); fatal = 'decoded'; }\n\
                 catch (e) { fatal = e.name + ': ' + e.message; }\n\
                 let stream;\n\
                 try { new TextDecoder().decode(bom, { stream: true }); } catch (e) { stream = e.name; }\n\
                 return [fatal, new TextDecoder().decode(latin1), new TextDecoder().decode(bom),\n\
                   new TextDecoder('utf-8', { ignoreBOM: true }).decode(bom).length,\n\
                   new TextDecoder('utf-8', { fatal: true }).decode(bom), stream]"
            )
            .await,
            Some(json!([
                "TypeError: The encoded data was not valid for encoding utf-8",
                "Jos\u{fffd}",
                "hi",
                3,
                "hi",
                "TypeError"
            ]))
        );
    }
}
