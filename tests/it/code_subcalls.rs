//! Behaviours 43, 44, 46, 47 and 48: sub-dispatches from a program through the full
//! pipeline, their failures, their session events, the `tools/ptc-dispatch-log`
//! waterfall, and nested effects carried onto the outer `run_code` result.

use ptc_testing::code as code_support;

use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use code_support::*;
use ptc::schema::ValueSpec;
use ptc::session::MemoryLog;
use ptc::session::SessionEvent;
use ptc::{
    codes, ContentBlock, Disposer, PostNext, PostToolDecision, PtcDispatchLog, PtcDispatchLogNext,
    Replacement, ToolDefinition, ToolError, ToolExecution, ToolExecutionResult, UserMessage,
};
use ptc_testing::tools::*;
use serde_json::{json, Value};

fn parse(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

// ---- b43: identity and the full pipeline -----------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b43_subcall_ids_are_numbered_in_submission_order() {
    let registry = code_registry();
    let seen = record_pre_execute(&registry);
    let code = "await tools.echo({ text: 'a' });\n\
                await Promise.all([tools.echo({ text: 'b' }), tools.add({ a: 1, b: 2 })]);\n\
                await tools.fail({ message: 'x' }).catch(() => null);\n\
                return 'done';";
    let r = run(&registry, code).await;
    assert_eq!(r.text(), "done");

    let seen = seen.lock().unwrap().clone();
    let outer = seen
        .iter()
        .find(|s| s.name == "run_code")
        .expect("the outer call goes through pre-execute");
    assert_eq!(outer.call_id, CALL_ID);
    assert_eq!(outer.parent, None);
    let subs: Vec<_> = seen.iter().filter(|s| s.name != "run_code").collect();
    let ids: Vec<&str> = subs.iter().map(|s| s.call_id.as_str()).collect();
    assert_eq!(ids, [sub(1), sub(2), sub(3), sub(4)]);
    let names: Vec<&str> = subs.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["echo", "echo", "add", "fail"]);
    for s in &subs {
        assert_eq!(
            s.parent,
            Some(outer.token),
            "{} has the outer call as parent",
            s.call_id
        );
        assert_ne!(s.token, outer.token);
        assert_eq!(s.root_call_id, CALL_ID);
    }
    assert_eq!(r.starts(), [sub(1), sub(2), sub(3), sub(4)]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b43_subcalls_go_through_the_full_pipeline() {
    let registry = code_registry();
    deny_tool(&registry, "add", "adding is not allowed");
    registry.guard(|exec: &ToolExecution| {
        (exec.arguments()["text"] == "secret").then(|| "no secrets".to_string())
    });
    registry.on_post_execute(
        |exec: Arc<ToolExecution>, _result: Arc<ToolExecutionResult>, next: PostNext| async move {
            if exec.arguments()["text"] == "replace-me" {
                PostToolDecision::Accept {
                    replace: Some(Replacement::Content(vec![ContentBlock::text("[replaced]")])),
                    additional_contexts: Vec::new(),
                }
            } else {
                next.run().await
            }
        },
    );
    let observed = Arc::new(Mutex::new(Vec::new()));
    let sink = observed.clone();
    registry.on_result(
        move |exec: &Arc<ToolExecution>, result: &Arc<ToolExecutionResult>| {
            sink.lock()
                .unwrap()
                .push((exec.call_id().to_string(), result.is_error()));
        },
    );
    let code = "const out = [];\n\
                try { await tools.add({ a: 1, b: 2 }); out.push('added'); } catch (e) { out.push(e.message); }\n\
                try { await tools.echo({ text: 'secret' }); out.push('echoed'); } catch (e) { out.push(e.message); }\n\
                out.push(await tools.echo({ text: 'replace-me' }));\n\
                return out;";
    let r = run(&registry, code).await;
    assert_eq!(
        parse(&r.text()),
        json!(["adding is not allowed", "no secrets", "replace-me"]),
        "the program gets the value, not the replaced content"
    );
    let dispatches = r.dispatches();
    assert_eq!(dispatches.len(), 3);
    assert_eq!(dispatches[0].code.as_deref(), Some(codes::TOOL_DENIED));
    assert_eq!(dispatches[1].code.as_deref(), Some(codes::TOOL_DENIED));
    assert_eq!(dispatches[1].message.as_deref(), Some("no secrets"));
    assert!(!dispatches[2].is_error);
    assert_eq!(dispatches[2].text, "[replaced]");
    assert_eq!(
        *observed.lock().unwrap(),
        [
            (sub(1), true),
            (sub(2), true),
            (sub(3), false),
            (CALL_ID.to_string(), false)
        ],
        "tools/result observers see every sub-call, then the outer call"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b43_subcall_timeouts_come_from_the_execute_waterfall() {
    let registry = code_registry();
    registry
        .register(
            ToolDefinition::builder("slowpoke")
                .output(ValueSpec::string())
                .timeout_ms(50)
                .execute_raw(|_, ctx| async move {
                    tokio::select! {
                        _ = tokio::time::sleep(Duration::from_secs(30)) => Ok(json!("late")),
                        _ = ctx.signal().cancelled() => Err(ToolError::new("stopped")),
                    }
                }),
        )
        .unwrap();
    let code =
        "try { await tools.slowpoke({}); return 'finished'; } catch (e) { return e.toolName; }";
    let r = run(&registry, code).await;
    assert_eq!(r.text(), "slowpoke");
    let dispatches = r.dispatches();
    assert_eq!(dispatches.len(), 1);
    assert_eq!(dispatches[0].code.as_deref(), Some(codes::TOOL_TIMEOUT));
}

// ---- b44: failures reject with ToolCallError ----------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b44_subcall_failures_reject_with_a_catchable_tool_call_error() {
    let registry = code_registry();
    deny_tool(&registry, "add", "adding is not allowed");
    registry.guard(|exec: &ToolExecution| {
        (exec.arguments()["text"] == "secret").then(|| "no secrets".to_string())
    });
    // `ephemeral` is bound when the run starts; `vanish` unregisters it, so the program's
    // next call to it reaches the registry as an unknown tool.
    let handle: Arc<Mutex<Option<Disposer>>> = Arc::new(Mutex::new(None));
    *handle.lock().unwrap() = Some(
        registry
            .register(constant("ephemeral", json!("still here")))
            .unwrap(),
    );
    let slot = handle.clone();
    registry
        .register(
            ToolDefinition::builder("vanish")
                .output(ValueSpec::null())
                .execute_raw(move |_, _| {
                    if let Some(d) = slot.lock().unwrap().take() {
                        d.dispose();
                    }
                    async { Ok(Value::Null) }
                }),
        )
        .unwrap();
    let code = "await tools.vanish({});\n\
                const attempts = {\n\
                  denied: () => tools.add({ a: 1, b: 2 }),\n\
                  unknown: () => tools.ephemeral({}),\n\
                  invalid: () => tools.echo({ text: 5 }),\n\
                  thrown: () => tools.fail({ message: 'boom' }),\n\
                  guarded: () => tools.echo({ text: 'secret' }),\n\
                };\n\
                const out = {};\n\
                for (const [k, f] of Object.entries(attempts)) {\n\
                  try { await f(); out[k] = 'no error'; }\n\
                  catch (e) { out[k] = [e.name, e.toolName, e.message, e instanceof ToolCallError]; }\n\
                }\n\
                return out;";
    let r = run(&registry, code).await;
    let out = parse(&r.text());
    let expect = |key: &str, tool: &str, message: &str| {
        assert_eq!(out[key][0], "ToolCallError", "{key}: {out}");
        assert_eq!(out[key][1], tool, "{key}: {out}");
        assert!(
            out[key][2].as_str().unwrap().starts_with(message),
            "{key}: {out}"
        );
        assert_eq!(out[key][3], true, "{key}: {out}");
    };
    expect("denied", "add", "adding is not allowed");
    expect("unknown", "ephemeral", "Unknown tool: ephemeral");
    expect("invalid", "echo", "Invalid arguments for tool echo: /text");
    expect("thrown", "fail", "boom");
    expect("guarded", "echo", "no secrets");
    let codes_seen: Vec<Option<String>> = r.dispatches().into_iter().map(|d| d.code).collect();
    assert_eq!(
        codes_seen,
        [
            None,
            Some(codes::TOOL_DENIED.into()),
            Some(codes::UNKNOWN_TOOL.into()),
            Some(codes::INVALID_ARGS.into()),
            Some(codes::TOOL_ERROR.into()),
            Some(codes::TOOL_DENIED.into()),
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_argument_keys_reject_sub_calls_as_they_fail_native_calls() {
    let registry = code_registry();
    let code = "try { await tools.echo({ txt: 'hi' }); return 'no error'; }\n\
                catch (e) { return [e.toolName, e.message]; }";
    let out = parse(&run(&registry, code).await.text());
    let expected = "Invalid arguments for tool echo: /txt: unknown argument (did you mean \
                    `text`?); /: missing required property \"text\"; the arguments are: text";
    assert_eq!(out, json!(["echo", expected]));
    let native = Call::direct("echo", json!({"txt": "hi"}))
        .send(&registry)
        .await;
    assert_eq!(native.error_code(), Some(codes::INVALID_ARGS));
    assert!(native.text().ends_with(expected), "{}", native.text());
    // The operator's switch reaches sub-calls too.
    registry.set_unknown_arguments(ptc::UnknownArguments::Allow);
    let code = "return await tools.echo({ text: 'hi', loud: true });";
    assert_eq!(run(&registry, code).await.text(), "hi");
}

// ---- b46: session events --------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b46_dispatch_events_carry_outcome_error_and_content() {
    let registry = code_registry();
    let code = "await tools.echo({ text: 'hi' });\n\
                try { await tools.fail({ message: 'boom' }); } catch {}\n\
                return 'done';";
    let r = run(&registry, code).await;
    assert_eq!(
        r.kinds(),
        [
            "tool/call",
            "tool/ptc-dispatch-start",
            "tool/ptc-dispatch",
            "tool/ptc-dispatch-start",
            "tool/ptc-dispatch",
            "tool/result"
        ]
    );
    match &r.events[1] {
        SessionEvent::PtcDispatchStart {
            parent_call_id,
            sub_call_id,
            name,
            arguments,
            ..
        } => {
            assert_eq!(parent_call_id, CALL_ID);
            assert_eq!(sub_call_id, &sub(1));
            assert_eq!(name, "echo");
            assert_eq!(arguments.as_ref(), &json!({"text": "hi"}));
        }
        other => panic!("unexpected {other:?}"),
    }
    let d = r.dispatches();
    assert_eq!(
        d[0],
        Dispatch {
            sub_call_id: sub(1),
            parent_call_id: CALL_ID.into(),
            name: "echo".into(),
            is_error: false,
            text: "hi".into(),
            code: None,
            message: None,
        }
    );
    assert_eq!(
        d[1],
        Dispatch {
            sub_call_id: sub(2),
            parent_call_id: CALL_ID.into(),
            name: "fail".into(),
            is_error: true,
            text: "Error: boom".into(),
            code: Some(codes::TOOL_ERROR.into()),
            message: Some("boom".into()),
        }
    );
    // Not model messages: the outer result is only the program's own output.
    assert_eq!(r.result.content, vec![ContentBlock::text("done")]);
    assert!(r.result.additional_contexts.is_empty());
    assert!(r.batch_contexts.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b46_start_events_share_the_calls_arguments_instead_of_copying_them() {
    // A program that sends one large value to many calls must not make the log hold a copy
    // per call: the event holds the call's own frozen arguments.
    let registry = code_registry();
    let seen: Arc<Mutex<Vec<Arc<Value>>>> = Arc::default();
    let sink = seen.clone();
    registry.on_result(
        move |exec: &Arc<ptc::ToolExecution>, _: &Arc<ptc::ToolExecutionResult>| {
            if exec.parent().is_some() {
                sink.lock().unwrap().push(exec.arguments().clone());
            }
        },
    );
    let r = run(
        &registry,
        "await tools.echo({ text: 'x'.repeat(100000) }); return 1;",
    )
    .await;
    let SessionEvent::PtcDispatchStart { arguments, .. } = &r.events[1] else {
        panic!("unexpected {:?}", r.events[1]);
    };
    let seen = seen.lock().unwrap();
    assert!(
        Arc::ptr_eq(arguments, &seen[0]),
        "the start event copied the arguments"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b46_start_is_logged_when_the_subcall_actually_starts() {
    let registry = code_registry();
    let log = Arc::new(MemoryLog::new());
    let snapshot: Arc<Mutex<Option<Vec<SessionEvent>>>> = Arc::new(Mutex::new(None));
    let (peek_log, peek_snapshot) = (log.clone(), snapshot.clone());
    registry
        .register(
            ToolDefinition::builder("peek")
                .output(ValueSpec::null())
                .concurrency_safe(true)
                .execute_raw(move |_, _| {
                    let (log, snapshot) = (peek_log.clone(), peek_snapshot.clone());
                    async move {
                        tokio::time::sleep(Duration::from_millis(150)).await;
                        *snapshot.lock().unwrap() = Some(log.events());
                        Ok(Value::Null)
                    }
                }),
        )
        .unwrap();
    let hits = Arc::new(AtomicUsize::new(0));
    registry.register(counting("tally", false, hits)).unwrap();
    let code = "await Promise.all([tools.peek({}), tools.tally({})]);";
    let r = Call::run_code(code).with_log(log).send(&registry).await;
    assert!(!r.result.is_error(), "{}", r.text());
    let during = snapshot.lock().unwrap().take().expect("peek ran");
    let started_during: Vec<String> = during
        .iter()
        .filter_map(|e| match e {
            SessionEvent::PtcDispatchStart { sub_call_id, .. } => Some(sub_call_id.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        started_during,
        [sub(1)],
        "the exclusive tally waits for peek and has not started yet"
    );
    assert_eq!(r.starts(), [sub(1), sub(2)]);
}

// ---- b47: the ptc-dispatch-log waterfall ------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b47_dispatch_log_listeners_change_only_the_logged_copy() {
    let registry = code_registry();
    let saw = Arc::new(Mutex::new(Vec::new()));
    let sink = saw.clone();
    registry.on_ptc_dispatch_log(move |d: Arc<PtcDispatchLog>, next: PtcDispatchLogNext| {
        sink.lock().unwrap().push((
            d.exec.call_id().to_string(),
            d.sub_call_id.clone(),
            d.name.clone(),
            d.is_error,
            ptc::content_text(&d.content),
        ));
        let redact = d.name == "echo";
        async move {
            if redact {
                vec![ContentBlock::text("[redacted]")]
            } else {
                next.run().await
            }
        }
    });
    let code = "const a = await tools.echo({ text: 'top secret value' });\n\
                const b = await tools.add({ a: 2, b: 3 });\n\
                return `${a} ${b}`;";
    let r = run(&registry, code).await;
    assert_eq!(
        r.text(),
        "top secret value 5",
        "the program keeps the full value"
    );
    let texts: Vec<String> = r.dispatches().into_iter().map(|d| d.text).collect();
    assert_eq!(texts, ["[redacted]", "5"]);
    assert_eq!(
        *saw.lock().unwrap(),
        [
            (
                CALL_ID.into(),
                sub(1),
                "echo".into(),
                false,
                "top secret value".into()
            ),
            (CALL_ID.into(), sub(2), "add".into(), false, "5".into()),
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b47_a_panicking_dispatch_log_listener_is_contained() {
    let registry = code_registry();
    // Panics while being called...
    let sync = registry.on_ptc_dispatch_log(
        |_: Arc<PtcDispatchLog>,
         _: PtcDispatchLogNext|
         -> futures::future::Ready<Vec<ContentBlock>> { panic!("listener exploded") },
    );
    let r = run(&registry, "return await tools.echo({ text: 'hello' });").await;
    assert_eq!(r.text(), "hello");
    assert_eq!(r.dispatches()[0].text, "hello");
    sync.dispose();

    // ...and while being polled, after an earlier listener already rewrote the content.
    registry.on_ptc_dispatch_log(
        |_: Arc<PtcDispatchLog>, next: PtcDispatchLogNext| async move {
            let mut content = next.run().await;
            content.push(ContentBlock::text("[appended]"));
            content
        },
    );
    registry.on_ptc_dispatch_log(|_: Arc<PtcDispatchLog>, _: PtcDispatchLogNext| async move {
        if true {
            panic!("listener exploded later");
        }
        Vec::new()
    });
    let r = run(
        &registry,
        "return await tools.echo({ text: 'hello again' });",
    )
    .await;
    assert_eq!(r.text(), "hello again");
    assert!(!r.result.is_error());
    assert_eq!(
        r.dispatches()[0].text,
        "hello again",
        "the original content is logged"
    );
}

// ---- b48: nested effects ---------------------------------------------------------------------------

fn wrap_up() -> ptc::ToolBuilder {
    ToolDefinition::builder("wrap_up")
        .output(ValueSpec::string())
        .execute_raw(|_, ctx| async move {
            ctx.defer_context(UserMessage::text("wrap_up", "remember the nested context"));
            ctx.conclude_turn();
            Ok(json!("wrapped"))
        })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b48_nested_deferred_context_and_conclude_turn_reach_the_outer_result() {
    let registry = code_registry();
    registry.register(wrap_up()).unwrap();
    let r = run(&registry, "return await tools.wrap_up({});").await;
    assert_eq!(r.text(), "wrapped");
    let expected = vec![UserMessage::text("wrap_up", "remember the nested context")];
    assert_eq!(r.result.additional_contexts, expected);
    assert!(r.result.concludes_turn());
    assert_eq!(r.batch_contexts, expected);
    assert!(r.concluded);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b48_a_blocked_nested_call_carries_nothing() {
    let registry = code_registry();
    registry.register(wrap_up()).unwrap();
    registry.on_post_execute(
        |exec: Arc<ToolExecution>, _: Arc<ToolExecutionResult>, next: PostNext| async move {
            if exec.name() == "wrap_up" {
                PostToolDecision::block("not now")
            } else {
                next.run().await
            }
        },
    );
    let r = run(
        &registry,
        "try { await tools.wrap_up({}); return 'ok'; } catch (e) { return e.message; }",
    )
    .await;
    assert_eq!(r.text(), "not now");
    assert_eq!(r.dispatches()[0].code.as_deref(), Some(codes::TOOL_BLOCKED));
    assert!(r.result.additional_contexts.is_empty());
    assert!(!r.result.concludes_turn());
    assert!(r.batch_contexts.is_empty());
    assert!(!r.concluded);
}
