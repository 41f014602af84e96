//! `tools`: calls, strict JSON arguments, ToolCallError, awkward names.

use crate::common;

use common::{failure, run, run_full, value, TestHost};
use ptc_engine::FailureKind;
use serde_json::json;

engine_test! {
    async fn a_tool_call_reaches_the_host_and_returns_its_value() {
        let host = TestHost::new();
        let report = run_full(
            "const r = await tools.add({ a: 2, b: 3 });\nreturn [r, await tools.echo({ text: 'hi' }), await tools.echo()]",
            host.clone(),
            Default::default(),
            Default::default(),
        )
        .await;
        assert_eq!(report.outcome, Ok(Some(json!([5, { "text": "hi" }, {}]))));
        assert_eq!(
            host.calls(),
            vec![
                ("add".to_string(), json!({ "a": 2, "b": 3 })),
                ("echo".to_string(), json!({ "text": "hi" })),
                ("echo".to_string(), json!({})),
            ]
        );
    }
}

engine_test! {
    async fn calls_reach_the_host_in_submission_order() {
        let host = TestHost::new();
        let report = run_full(
            "const ps = [];\nfor (let i = 0; i < 20; i++) ps.push(tools.sleep({ ms: 20 - i, i }));\nreturn (await Promise.all(ps)).length",
            host.clone(),
            Default::default(),
            Default::default(),
        )
        .await;
        assert_eq!(report.outcome, Ok(Some(json!(20))));
        let order: Vec<u64> = host
            .calls()
            .iter()
            .map(|(_, args)| args["i"].as_u64().unwrap())
            .collect();
        assert_eq!(order, (0..20).collect::<Vec<_>>());
    }
}

engine_test! {
    async fn a_tool_failure_is_a_catchable_tool_call_error() {
        assert_eq!(
            value(
                "try { await tools.fail({}) } catch (e) {\n  return [e instanceof ToolCallError, e instanceof Error, e.name, e.toolName, e.message]\n}"
            )
            .await,
            Some(json!([true, true, "ToolCallError", "fail", "it failed"]))
        );
        // Uncaught, it names the tool and the line that called it.
        let report = run("const x = 1;\nawait tools.fail()").await;
        let failure = failure(&report);
        assert_eq!(failure.kind, FailureKind::Exception);
        assert!(
            failure.message.starts_with("ToolCallError: fail failed at run_code.ts:2:"),
            "{}",
            failure.message
        );
        assert!(failure.message.contains(": it failed\n 2 | await tools.fail()\n"), "{}", failure.message);
    }
}

engine_test! {
    async fn a_call_site_is_the_programs_innermost_frame() {
        // The line of each failing call: called directly, through a native function, from the
        // program's own helper, and from a nested async function after an await; then with the
        // program's own stack settings, which neither break sites nor see them taken.
        let program = "\
const line = (e) => Number(e.callSite.split(':')[0]);
const lines = [];
try { await tools.fail({}) } catch (e) { lines.push(line(e)) }
for (const r of await Promise.allSettled([1].map(tools.fail))) lines.push(line(r.reason));
function helper() {
  return tools.fail({});
}
try { await helper() } catch (e) { lines.push(line(e)) }
try { await (async () => { await null; return tools.fail({}) })() } catch (e) { lines.push(line(e)) }
let prepared = 0;
const prepare = () => { prepared += 1; return 'mine'; };
Error.prepareStackTrace = prepare;
Error.stackTraceLimit = 0;
await tools.echo({});
try { await tools.fail({}) } catch (e) { lines.push(line(e)) }
return [lines, prepared, Error.prepareStackTrace === prepare, Error.stackTraceLimit];";
        let report = run_full(program, TestHost::new(), Default::default(), Default::default()).await;
        let value = report.outcome.expect("the program runs");
        // Making the ToolCallError is the program's own Error (QuickJS prepares its stack then).
        let prepared = if common::backend() == common::Backend::QuickJs { 1 } else { 0 };
        assert_eq!(value, Some(json!([[3, 4, 6, 9, 15], prepared, true, 0])));

        // A call left pending when the program ended names its line too.
        let report = run("const x = 1;\ntools.never({});\nreturn x").await;
        let sites: Vec<_> = report.left_behind.iter().map(|l| l.site.map(|(line, _)| line)).collect();
        assert_eq!(sites, [Some(2)]);
    }
}

/// Where an uncaught ToolCallError's message says the call was (`line:col` as written).
fn failed_at(report: &ptc_engine::RunReport) -> String {
    let message = &failure(report).message;
    let at = message
        .strip_prefix("ToolCallError: fail failed at run_code.ts:")
        .unwrap_or_else(|| panic!("{message}"));
    at.split(':').take(2).collect::<Vec<_>>().join(":")
}

engine_test! {
    async fn a_marked_call_site_is_where_the_engine_places_the_call() {
        // Direct calls carry their site (see program/sites.rs); a program with a `tools` of its
        // own is not marked, so there the engine's own trace says where the call is.
        for line in [
            "await tools.fail({})",
            "await tools.echo(), await tools.fail({},)",
            "await tools.echo({ x: await tools.echo() }), await tools.fail()",
            "const [, r] = await Promise.allSettled([tools.echo({}), tools.fail({ a: 1 })]); throw r.reason",
            "await tools.echo({\n  a: 1,\n}); await tools.fail({\n  a: 1,\n})",
        ] {
            let marked = run(&format!("const x = 1;\n{line}")).await;
            let traced = run(&format!("var tools = globalThis.tools;\n{line}")).await;
            assert_eq!(failed_at(&marked), failed_at(&traced), "{line}");
        }
        // Columns count characters, on both engines; a site is the tool's name however the call
        // is spaced.
        let report = run("const é = '日本'; await tools.fail({})").await;
        assert_eq!(failed_at(&report), "1:29");
        for (spaced, at) in [
            ("   await   tools .  fail  ( {} )", "1:21"),
            ("await tools.fail<{ a: number }>({ a: 1 } as const)", "1:13"),
        ] {
            assert_eq!(failed_at(&run(spaced).await), at, "{spaced}");
        }
    }
}

engine_test! {
    async fn a_byte_order_mark_before_the_program_changes_nothing() {
        // swc reads past a leading BOM: edits placed by its offsets must still land in place.
        let host = TestHost::new();
        let program = "\u{feff}const é = 'x';\nawait tools.echo({ path: 'notes.txt' });\n\
                       return await tools.add({ a: 40, b: 2 })";
        let report = run_full(program, host.clone(), Default::default(), Default::default()).await;
        assert_eq!(report.outcome, Ok(Some(json!(42))));
        assert_eq!(
            host.calls(),
            vec![
                ("echo".to_string(), json!({ "path": "notes.txt" })),
                ("add".to_string(), json!({ "a": 40, "b": 2 })),
            ]
        );
        assert_eq!(value("\u{feff}const a = 41;\na + 1").await, Some(json!(42)));
        let report = run("\u{feff}await tools.fail({})").await;
        assert_eq!(failed_at(&report), "1:13");
    }
}

engine_test! {
    async fn an_export_default_split_over_lines_keeps_every_later_position() {
        let body = "async () => {\n  const o = null;\n  return o.x;\n}";
        let at = |report: &ptc_engine::RunReport| {
            let message = &failure(report).message;
            let at = message.strip_prefix("run_code.ts:").unwrap_or_else(|| panic!("{message}"));
            let mut parts = at.split(':').map(|n| n.parse::<usize>().unwrap_or(0));
            (parts.next().unwrap(), parts.next().unwrap())
        };
        let (line, col) = at(&run(&format!("export default {body}")).await);
        for split in ["export\ndefault ", "export /*\n*/ default "] {
            let report = run(&format!("{split}{body}")).await;
            assert_eq!(at(&report), (line + 1, col), "{split:?}: {}", failure(&report).message);
        }
    }
}

engine_test! {
    async fn a_call_site_a_program_forges_misplaces_only_its_own_message() {
        // A mark naming line 999 of a one-line program, and a number that is no mark.
        for forged in ["-(999 * 2 ** 24 + 1)", "-(2 ** 24) - 0.5", "-(2 ** 60)"] {
            let report = run(&format!("await tools.fail({{}}, {forged})")).await;
            assert_eq!(failure(&report).kind, FailureKind::Exception, "{forged}");
            assert!(failure(&report).message.contains("it failed"), "{}", failure(&report).message);
        }
        // A `tools` of the program's own gets exactly the arguments written.
        for own in ["const tools = { a: (...x) => x.length };", "tools = { a: (...x) => x.length };"] {
            assert_eq!(value(&format!("{own}\nreturn tools.a(1)")).await, Some(json!(1)), "{own}");
        }
    }
}

engine_test! {
    async fn arguments_json_would_corrupt_reject_and_never_reach_the_host() {
        for (args, says) in [
            ("{ f() {} }", "$.f is a function"),
            ("{ s: Symbol('x') }", "$.s is a symbol"),
            ("{ n: 1n }", "$.n is a BigInt"),
            ("(() => { const o = {}; o.o = o; return o })()", "$.o is a cycle"),
            ("{ m: new Map() }", "$.m is a Map (use Object.fromEntries(map))"),
            (
                "{ m: new Map([['a', new Set([1])]]) }",
                "$.m is a Map of Sets (use Object.fromEntries([...map].map(([k, v]) => [k, [...v]])))",
            ),
            (
                "{ m: new Map([['a', 1], ['b', new Map()]]) }",
                "$.m is a Map of Maps (use Object.fromEntries([...map].map(([k, v]) => [k, Object.fromEntries(v)])))",
            ),
            ("new Set()", "$ is a Set (use [...set])"),
            ("{ p: Promise.resolve(1) }", "$.p is a Promise (await it)"),
        ] {
            let host = TestHost::new();
            let program = format!(
                "try {{ await tools.echo({args}); return 'called' }} catch (e) {{ return [e.name, e.toolName, e.message] }}"
            );
            let report = run_full(&program, host.clone(), Default::default(), Default::default()).await;
            let value = report.outcome.unwrap().unwrap();
            assert_eq!(value[0], json!("ToolCallError"), "{args}: {value}");
            assert_eq!(value[1], json!("echo"), "{args}: {value}");
            let message = value[2].as_str().unwrap();
            assert!(message.starts_with("arguments are not JSON: "), "{args}: {value}");
            assert!(message.contains(says), "{args}: {value}");
            assert!(host.calls().is_empty(), "{args} reached the host");
        }
    }
}

engine_test! {
    async fn a_to_json_anywhere_json_looks_applies_to_arguments() {
        for (program, expected) in [
            (
                "class Secret extends Array { toJSON() { return '[redacted]' } }\n\
                 const s = new Secret(); s.push('hunter2');\n\
                 const o = { b: 1 };\n\
                 Object.defineProperty(o, 'toJSON', { value: () => 'own', enumerable: false });\n\
                 await tools.echo({ a: s, o })",
                json!({ "a": "[redacted]", "o": "own" }),
            ),
            (
                "Array.prototype.toJSON = function () { return this.length };\n\
                 await tools.echo({ a: [1, 2, 3] })",
                json!({ "a": 3 }),
            ),
            (
                "Object.prototype.toJSON = function () { return 'proto' };\n\
                 await tools.echo({ x: 1 })",
                json!("proto"),
            ),
        ] {
            let host = TestHost::new();
            let report = run_full(program, host.clone(), Default::default(), Default::default()).await;
            assert!(report.outcome.is_ok(), "{program}: {:?}", report.outcome);
            assert_eq!(host.calls(), vec![("echo".to_string(), expected)], "{program}");
        }
    }
}

engine_test! {
    async fn a_programs_regexp_exec_cannot_change_how_arguments_are_escaped() {
        let host = TestHost::new();
        // The symbol key sends the value through the glue's own encoder on both engines.
        let program = "RegExp.prototype.exec = function () { return null };\n\
                       await tools.echo({ content: 'notes\",\"file_path\":\"injected.txt', \
                       [Symbol()]: 1, 'odd key': [1] })";
        let report = run_full(program, host.clone(), Default::default(), Default::default()).await;
        assert!(report.outcome.is_ok(), "{:?}", report.outcome);
        assert_eq!(
            host.calls(),
            vec![(
                "echo".to_string(),
                json!({ "content": "notes\",\"file_path\":\"injected.txt", "odd key": [1] })
            )]
        );
    }
}

engine_test! {
    async fn arguments_cross_as_json_stringify_writes_them() {
        for (args, expected) in [
            ("{ u: undefined, k: 1 }", json!({ "k": 1 })),
            ("[undefined, 1]", json!([null, 1])),
            ("{ n: NaN, i: -Infinity }", json!({ "n": null, "i": null })),
            ("{ d: new Date(0) }", json!({ "d": "1970-01-01T00:00:00.000Z" })),
            ("(() => { const a = [1]; a[3] = 2; return a })()", json!([1, null, null, 2])),
            ("'not an object but fine'", json!("not an object but fine")),
        ] {
            let host = TestHost::new();
            let program = format!("await tools.echo({args}); return 'called'");
            let report = run_full(&program, host.clone(), Default::default(), Default::default()).await;
            assert_eq!(report.outcome, Ok(Some(json!("called"))), "{args}");
            assert_eq!(host.calls()[0].1, expected, "{args}");
        }
    }
}

engine_test! {
    async fn awkward_tool_names_are_ordinary_bindings() {
        let host = TestHost::new();
        let report = run_full(
            "const results = [];\n\
             results.push(await tools['__proto__']({ n: 1 }));\n\
             results.push(await tools.constructor({ n: 2 }));\n\
             results.push(await tools.then({ n: 3 }));\n\
             results.push(await tools['my-tool']({ n: 4 }));\n\
             results.push(Object.keys(tools).includes('then'), Object.isFrozen(tools), Object.isFrozen(tools.echo));\n\
             results.push(typeof ({}).n, Object.prototype.hasOwnProperty('then'), ({}).constructor === Object);\n\
             return results",
            host.clone(),
            Default::default(),
            Default::default(),
        )
        .await;
        assert_eq!(
            report.outcome,
            Ok(Some(json!([
                { "tool": "__proto__", "args": { "n": 1 } },
                { "tool": "constructor", "args": { "n": 2 } },
                { "tool": "then", "args": { "n": 3 } },
                { "tool": "my-tool", "args": { "n": 4 } },
                true, true, true,
                "undefined", false, true
            ])))
        );
        assert_eq!(host.calls().len(), 4);
    }
}

engine_test! {
    async fn tools_cannot_be_changed_and_unknown_names_say_which_exist() {
        assert_eq!(
            value(
                "'use strict';\nconst r = [];\ntry { tools.echo = 1 } catch (e) { r.push(e.name) }\ntry { tools.extra = 1 } catch (e) { r.push(e.name) }\nr.push('nope' in tools, Object.keys(tools).includes('nope'), typeof tools.toString, typeof tools.toJSON);\nreturn r"
            )
            .await,
            Some(json!(["TypeError", "TypeError", false, false, "undefined", "undefined"]))
        );
        // Calling a tool that does not exist rejects naming the closest tool and all of them.
        let said = value("try { await tools.ech({}) } catch (e) { return [e.name, e.toolName, e.message] }")
            .await
            .unwrap();
        assert_eq!(said[0], json!("ToolCallError"));
        assert_eq!(said[1], json!("ech"));
        let message = said[2].as_str().unwrap();
        assert!(message.starts_with("no tool named \"ech\" (did you mean \"echo\"?); available: "), "{message}");
    }
}

engine_test! {
    async fn there_is_never_a_run_code_binding() {
        assert_eq!(
            value("return ['run_code' in tools, Object.keys(tools).includes('run_code'), typeof run_code]").await,
            Some(json!([false, false, "undefined"]))
        );
        let said = value("try { await tools.run_code({ code: '1' }) } catch (e) { return e.message }").await;
        assert!(said.unwrap().as_str().unwrap().starts_with("no tool named \"run_code\""));
    }
}

engine_test! {
    async fn awaiting_tools_with_a_then_tool_dispatches_nothing() {
        // `await tools` calls tools.then(resolve, reject): function arguments fail the JSON check, so
        // nothing reaches the host and the await can never settle.
        let host = TestHost::new();
        let report = run_full(
            "await tools;\nreturn 1",
            host.clone(),
            Default::default(),
            Default::default(),
        )
        .await;
        assert_eq!(failure(&report).kind, FailureKind::Exception);
        assert!(host.calls().is_empty(), "{:?}", host.calls());

        let host = TestHost::new();
        let report = run_full(
            "return tools",
            host.clone(),
            Default::default(),
            Default::default(),
        )
        .await;
        assert!(report.outcome.is_err());
        assert!(host.calls().is_empty(), "{:?}", host.calls());
    }
}

engine_test! {
    async fn deeply_nested_arguments_and_results_do_not_crash() {
        // Arguments nest at most 1,000 containers deep (the arguments object is one); deeper is a
        // rejected call, not a crash. Tool results of any depth reach the program.
        let host = TestHost::new();
        let report = run_full(
            "const nest = (n) => { let v = 0; for (let i = 0; i < n; i++) v = [v]; return v };\nconst echoed = await tools.echo({ v: nest(999) });\nlet d = 0;\nfor (let x = echoed.v; Array.isArray(x); x = x[0]) d++;\nlet refused = '';\ntry { await tools.echo({ v: nest(1000) }) } catch (e) { refused = e.message }\ntry { await tools.echo({ v: nest(40000) }) } catch (e) { refused += ' / ' + e.message.slice(0, 40) }\nconst deep = await tools.deep({ depth: 5000 });\nlet e = 0;\nfor (let x = deep; Array.isArray(x); x = x[0]) e++;\nreturn [d, e, refused]",
            host.clone(),
            Default::default(),
            Default::default(),
        )
        .await;
        let values = report.outcome.expect("the deep run succeeds").unwrap();
        assert_eq!(values[0], json!(999));
        assert_eq!(values[1], json!(5000));
        let refused = values[2].as_str().unwrap();
        assert!(refused.contains("nests deeper than 1000 levels"), "{refused}");
        assert!(refused.contains(" / arguments are not JSON: the value at"), "{refused}");
        assert_eq!(host.calls().len(), 2);
        // A returned value follows the same limit.
        let report = run("let v = 0;\nfor (let i = 0; i < 5000; i++) v = [v];\nreturn v").await;
        let failure = report.outcome.unwrap_err();
        assert_eq!(failure.kind, FailureKind::InvalidOutput);
        assert!(failure.message.contains("nests deeper than 1000 levels"), "{}", failure.message);
        // Its path is abbreviated: the first and last steps, and how many are left out.
        assert!(
            failure.message.contains("$[0][0][0][0]...(992 more levels)...[0][0][0][0] nests"),
            "{}",
            failure.message
        );
        assert!(failure.message.len() < 300, "{}", failure.message);
        let ok = value("let v = 0;\nfor (let i = 0; i < 999; i++) v = [v];\nreturn v").await.unwrap();
        assert_eq!(common::depth(&ok), 999);
    }
}

engine_test! {
    async fn arguments_reach_the_host_as_the_json_check_reads_them() {
        // QuickJS reads plain data in Rust and leaves everything else to the glue's check; either
        // way the host must see what the check reads, and getters and traps run exactly once.
        let cases = [
            ("{ a: [1, 'two', null, true, { b: 2.5 }] }", r#"{"a":[1,"two",null,true,{"b":2.5}]}"#),
            ("{ b: 1, 2: 'x', a: 2, 1: 'y' }", r#"{"1":"y","2":"x","b":1,"a":2}"#),
            ("{ z: -0, big: 2 ** 60, e: 1e21, tiny: 5e-324, i: 2 ** 31 }", r#"{"z":0,"big":1152921504606847000,"e":1e+21,"tiny":5e-324,"i":2147483648}"#),
            ("Object.assign(Object.create(null), { k: 1 })", r#"{"k":1}"#),
            ("Object.defineProperty({ v: 1 }, 'hidden', { value: 2, enumerable: false })", r#"{"v":1}"#),
            ("JSON.parse('{\"__proto__\": 1}')", r#"{"__proto__":1}"#),
            ("(() => { Array.prototype[1] = 'from the prototype'; return [1, , 3] })()", r#"[1,"from the prototype",3]"#),
            ("[1, , 3]", r#"[1,null,3]"#),
            ("{ get g() { globalThis.reads = (globalThis.reads ?? 0) + 1; return 'got' } }", r#"{"g":"got"}"#),
            ("new Proxy({ p: 1 }, { get(t, k) { globalThis.reads = (globalThis.reads ?? 0) + 1; return t[k] } })", r#"{"p":1}"#),
            ("(() => { let v = 'leaf'; for (let i = 0; i < 100; i++) v = { v }; return v })()", "deep"),
        ];
        for (args, expected) in cases {
            let host = TestHost::new();
            let program = format!(
                "const r = await tools.echo({args});\nreturn [JSON.stringify(r), globalThis.reads ?? 0]"
            );
            let report = run_full(&program, host.clone(), Default::default(), Default::default()).await;
            let value = report.outcome.unwrap_or_else(|f| panic!("{args}: {f:?}")).unwrap();
            if expected == "deep" {
                assert_eq!(host.calls()[0].1, json!("<deep>"), "{args}");
                assert!(value[0].as_str().unwrap().starts_with(r#"{"v":{"v":"#), "{args}");
                continue;
            }
            let back: serde_json::Value = serde_json::from_str(value[0].as_str().unwrap()).unwrap();
            let expected_value: serde_json::Value = serde_json::from_str(expected).unwrap();
            assert_eq!(back, expected_value, "{args}: what the program got back");
            assert_eq!(host.calls()[0].1.to_string(), expected, "{args}: what the host got");
            // Each property is read once; a proxy's `get` also sees the `toJSON` probe.
            let reads = if args.contains("Proxy") { 2 } else if args.contains("reads") { 1 } else { 0 };
            assert_eq!(value[1], json!(reads), "{args}: reads");
        }
    }
}

engine_test! {
    async fn arguments_that_are_not_plain_json_fail_with_the_checks_messages() {
        for (args, message) in [
            ("{ get g() { throw new Error('boom') } }", "arguments are not JSON: boom"),
            ("(() => { const o = {}; let v = o; for (let i = 0; i < 100; i++) v = { v }; o.v = v; return o })()", "arguments are not JSON: $.v"),
            ("new Proxy({}, { ownKeys() { throw new Error('trap') } })", "arguments are not JSON: trap"),
        ] {
            let host = TestHost::new();
            let program = format!(
                "try {{ await tools.echo({args}); return 'called' }} catch (e) {{ return [e.name, e.message] }}"
            );
            let report = run_full(&program, host.clone(), Default::default(), Default::default()).await;
            let value = report.outcome.unwrap_or_else(|f| panic!("{args}: {f:?}")).unwrap();
            assert_eq!(value[0], json!("ToolCallError"), "{args}: {value}");
            let got = value[1].as_str().unwrap();
            assert!(got.starts_with(message), "{args}: {got}");
            assert!(host.calls().is_empty(), "{args} reached the host");
        }
        // Lone surrogates are not text in any encoding: they arrive as U+FFFD.
        let host = TestHost::new();
        let report = run_full("await tools.echo({ s: 'lone \\ud800 surrogate' })", host.clone(), Default::default(), Default::default()).await;
        assert!(report.outcome.is_ok(), "{:?}", report.outcome);
        assert_eq!(host.calls()[0].1, json!({ "s": "lone \u{fffd} surrogate" }));
    }
}
