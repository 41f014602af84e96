//! Behaviours 17–22: materialisation, identity, pre-execute, guards, execute wrappers, timeouts.

use ptc_testing::tools as common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use ptc::policy::approval::ApprovalAnswer;
use ptc::policy::approval::ApprovalRequest;
use ptc::schema::{ParameterSpec, ValueSpec};
use ptc::{
    codes, Agent, DispatchExecution, ExecuteNext, PreNext, PreToolDecision, ScopeKey,
    ToolDefinition, ToolError, ToolErrorInfo, ToolExecution, ToolExecutionInput, ToolRegistry,
};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

/// Counts how often the body ran.
fn counted(name: &str, runs: Arc<AtomicUsize>) -> ptc::ToolBuilder {
    ToolDefinition::builder(name)
        // Returns whatever it is given: parameters open to any key.
        .parameters_schema(json!({"type": "object", "additionalProperties": true}))
        .output(ValueSpec::json())
        .execute_raw(move |args, _| {
            runs.fetch_add(1, Ordering::SeqCst);
            async move { Ok(args.as_ref().clone()) }
        })
}

#[tokio::test]
async fn b17_args_materialised_once_and_frozen_before_policy() {
    let registry = ToolRegistry::new();
    registry
        .register(counted("t", Arc::new(AtomicUsize::new(0))))
        .unwrap();
    let seen: Arc<Mutex<Vec<Arc<Value>>>> = Arc::default();
    for _ in 0..2 {
        let s = seen.clone();
        registry.on_pre_execute(move |exec: Arc<ToolExecution>, next: PreNext| {
            s.lock().unwrap().push(exec.arguments().clone());
            next.run()
        });
    }
    let s = seen.clone();
    registry.on_result(
        move |exec: &Arc<ToolExecution>, _: &Arc<ptc::ToolExecutionResult>| {
            s.lock().unwrap().push(exec.arguments().clone());
        },
    );
    let r = registry
        .dispatch(ToolExecutionInput::new(
            "c",
            "t",
            r#"{"big": 12345678901234567890, "x": [1, 2.5]}"#,
        ))
        .await;
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 3);
    // the very same allocation everywhere: materialised exactly once
    assert!(seen.iter().all(|a| Arc::ptr_eq(a, &seen[0])));
    assert_eq!(seen[0]["x"], json!([1, 2.5]));
    assert_eq!(r.value().unwrap().as_ref(), seen[0].as_ref());
}

#[tokio::test]
async fn b17_non_json_arguments_rejected_and_nothing_dispatched() {
    let registry = ToolRegistry::new();
    let runs = Arc::new(AtomicUsize::new(0));
    registry.register(counted("t", runs.clone())).unwrap();
    let policy_runs = Arc::new(AtomicUsize::new(0));
    let p = policy_runs.clone();
    registry.on_pre_execute(move |_: Arc<ToolExecution>, next: PreNext| {
        p.fetch_add(1, Ordering::SeqCst);
        next.run()
    });
    for bad in ["{not json", "", "{\"a\":1} trailing", "NaN", "[1,]"] {
        let r = registry
            .dispatch(ToolExecutionInput::new("c", "t", bad))
            .await;
        assert_eq!(r.error_code(), Some(codes::INVALID_ARGS), "input {bad:?}");
        assert!(text(&r).contains("not valid JSON"), "{}", text(&r));
    }
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    assert_eq!(policy_runs.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn b17_deep_arguments_parse_and_validate_without_overflow() {
    let registry = ToolRegistry::new();
    let runs = Arc::new(AtomicUsize::new(0));
    let counter = runs.clone();
    registry
        .register(
            ToolDefinition::builder("deep")
                .parameters(ParameterSpec::new().required("v", ValueSpec::json()))
                .output(ValueSpec::integer())
                .execute_raw(move |args, _| {
                    counter.fetch_add(1, Ordering::SeqCst);
                    async move {
                        let mut depth = 0;
                        let mut v = &args["v"];
                        while let Some(inner) = v.get(0) {
                            depth += 1;
                            v = inner;
                        }
                        Ok(json!(depth))
                    }
                }),
        )
        .unwrap();
    // Up to the documented depth (the arguments object is one level), the call runs.
    let limit = ptc::schema::value::MAX_DEPTH;
    let nested = |n: usize| format!("{{\"v\":{}1{}}}", "[".repeat(n), "]".repeat(n));
    let r = registry
        .dispatch(ToolExecutionInput::new("c", "deep", nested(limit - 1)))
        .await;
    assert_eq!(r.value().unwrap().as_ref(), &json!(limit - 1));
    // Deeper text, or an already-parsed deeper value, is INVALID_ARGS before any policy, with
    // no stack overflow on the way (parsing, measuring and dropping are all iterative).
    for n in [limit, 5_000, 100_000] {
        let r = registry
            .dispatch(ToolExecutionInput::new("c", "deep", nested(n)))
            .await;
        assert_eq!(r.error().unwrap().code(), Some(codes::INVALID_ARGS), "{n}");
        assert!(
            text(&r).contains("nests deeper than 1000 levels"),
            "{}",
            text(&r)
        );
        // Built by hand: `json!` would serialize (recursively) whatever it embeds.
        let mut value = json!(1);
        for _ in 0..n {
            value = Value::Array(vec![value]);
        }
        let args = Value::Object([("v".to_string(), value)].into_iter().collect());
        let r = registry
            .dispatch(ToolExecutionInput::new("c", "deep", args))
            .await;
        assert_eq!(r.error().unwrap().code(), Some(codes::INVALID_ARGS), "{n}");
    }
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn b18_execution_identity_is_immutable_and_tokens_unique() {
    let registry = ToolRegistry::new();
    registry.register(constant("t", json!(1))).unwrap();
    let tokens = Arc::new(Mutex::new(Vec::new()));
    let t = tokens.clone();
    registry.on_pre_execute(move |exec: Arc<ToolExecution>, next: PreNext| {
        t.lock().unwrap().push((
            exec.token(),
            exec.call_id().to_string(),
            exec.root_call_id().to_string(),
        ));
        next.run()
    });
    let caller = CancellationToken::new();
    let agent = Agent::new(ScopeKey::root("a"));
    registry
        .dispatch(
            ToolExecutionInput::new("root", "t", json!({}))
                .with_signal(caller.clone())
                .with_agent(agent),
        )
        .await;
    let mut nested = ToolExecutionInput::new("root:ptc:1", "t", json!({}));
    nested.root_call_id = Some("root".into());
    registry.dispatch(nested).await;
    let tokens = tokens.lock().unwrap();
    assert_ne!(
        tokens[0].0, tokens[1].0,
        "every execution gets its own token"
    );
    assert_eq!(
        (tokens[0].1.as_str(), tokens[0].2.as_str()),
        ("root", "root")
    );
    assert_eq!(
        (tokens[1].1.as_str(), tokens[1].2.as_str()),
        ("root:ptc:1", "root")
    );
}

#[tokio::test]
async fn b19_pre_execute_deny_with_structured_info() {
    let registry = ToolRegistry::new();
    let runs = Arc::new(AtomicUsize::new(0));
    registry.register(counted("t", runs.clone())).unwrap();
    registry.on_pre_execute(|_: Arc<ToolExecution>, _: PreNext| async {
        PreToolDecision::Deny {
            reason: "not today".into(),
            info: Some(ToolErrorInfo {
                name: "PolicyError".into(),
                code: "POLICY".into(),
                reason: Some("raw detail".into()),
            }),
        }
    });
    let r = call(&registry, "t", json!({})).await;
    assert_eq!(text(&r), "Error: not today");
    assert_eq!(r.error_code(), Some("POLICY"));
    assert_eq!(
        r.error().unwrap().info.as_ref().unwrap().reason.as_deref(),
        Some("raw detail")
    );
    assert!(!text(&r).contains("raw detail"));
    assert_eq!(runs.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn b19_pre_execute_is_a_waterfall_in_order() {
    let registry = ToolRegistry::new();
    registry.register(constant("t", json!(1))).unwrap();
    let order = Arc::new(Mutex::new(Vec::new()));
    for i in 0..3 {
        let o = order.clone();
        registry.on_pre_execute(move |_: Arc<ToolExecution>, next: PreNext| {
            let o = o.clone();
            async move {
                o.lock().unwrap().push(format!("enter {i}"));
                let d = next.run().await;
                o.lock().unwrap().push(format!("leave {i}"));
                d
            }
        });
    }
    assert!(!call(&registry, "t", json!({})).await.is_error());
    assert_eq!(
        *order.lock().unwrap(),
        ["enter 0", "enter 1", "enter 2", "leave 2", "leave 1", "leave 0"]
    );
}

#[tokio::test]
async fn b19_cancel_decision_gives_canonical_cancellation() {
    let registry = ToolRegistry::new();
    registry.register(constant("t", json!(1))).unwrap();
    registry.on_pre_execute(|_: Arc<ToolExecution>, _: PreNext| async { PreToolDecision::Cancel });
    let r = call(&registry, "t", json!({})).await;
    assert_eq!(r.error_code(), Some(codes::ABORTED_BEFORE_DISPATCH));
}

#[tokio::test]
async fn b19_ask_runs_only_after_allowed_once() {
    let registry = ToolRegistry::new();
    let runs = Arc::new(AtomicUsize::new(0));
    registry.register(counted("t", runs.clone())).unwrap();
    registry.on_pre_execute(|_: Arc<ToolExecution>, _: PreNext| async {
        PreToolDecision::ask("writes files")
    });
    let agent = Agent::new(ScopeKey::root("a"));
    let with_agent = || ToolExecutionInput::new("c", "t", json!({})).with_agent(agent.clone());

    // no approval service: denial
    let r = registry.dispatch(with_agent()).await;
    assert_eq!(r.error_code(), Some(codes::TOOL_DENIED));
    assert!(text(&r).contains("writes files"));

    let answer = Arc::new(Mutex::new(ApprovalAnswer::Denied));
    let asked: Arc<Mutex<Vec<Option<String>>>> = Arc::default();
    let (a, q) = (answer.clone(), asked.clone());
    registry.set_approval(Arc::new(move |req: ApprovalRequest| {
        q.lock().unwrap().push(req.reason.clone());
        let answer = a.lock().unwrap().clone();
        async move { answer }
    }));
    for other in [
        ApprovalAnswer::Denied,
        ApprovalAnswer::Dismissed,
        ApprovalAnswer::Other("always".into()),
    ] {
        *answer.lock().unwrap() = other;
        assert_eq!(
            registry.dispatch(with_agent()).await.error_code(),
            Some(codes::TOOL_DENIED)
        );
    }
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    *answer.lock().unwrap() = ApprovalAnswer::AllowedOnce;
    assert!(!registry.dispatch(with_agent()).await.is_error());
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert_eq!(asked.lock().unwrap()[0].as_deref(), Some("writes files"));

    // no agent on the call: denial even though a service exists
    let r = call(&registry, "t", json!({})).await;
    assert_eq!(r.error_code(), Some(codes::TOOL_DENIED));
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn b19_panicking_pre_execute_listener_denies() {
    let registry = ToolRegistry::new();
    let runs = Arc::new(AtomicUsize::new(0));
    registry.register(counted("t", runs.clone())).unwrap();
    registry.on_pre_execute(
        |_: Arc<ToolExecution>, _: PreNext| -> std::future::Ready<PreToolDecision> {
            panic!("policy bug")
        },
    );
    let r = call(&registry, "t", json!({})).await;
    assert_eq!(r.error_code(), Some(codes::TOOL_DENIED));
    assert!(text(&r).contains("policy bug"));
    assert_eq!(runs.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn b19_scoped_listener_sees_only_its_agent() {
    let registry = ToolRegistry::new();
    registry.register(constant("t", json!(1))).unwrap();
    let a = ScopeKey::root("a");
    let b = ScopeKey::root("b");
    registry
        .scoped(&a)
        .on_pre_execute(|_: Arc<ToolExecution>, _: PreNext| async {
            PreToolDecision::deny("a only")
        });
    let in_a = registry
        .dispatch(ToolExecutionInput::new("c", "t", json!({})).with_agent(Agent::new(a)))
        .await;
    let in_b = registry
        .dispatch(ToolExecutionInput::new("c", "t", json!({})).with_agent(Agent::new(b)))
        .await;
    assert_eq!(in_a.error_code(), Some(codes::TOOL_DENIED));
    assert!(!in_b.is_error());
    assert!(!call(&registry, "t", json!({})).await.is_error());
}

#[tokio::test]
async fn b20_guard_denies_after_pre_execute_allows() {
    let registry = ToolRegistry::new();
    registry.register(constant("t", json!(1))).unwrap();
    let order = Arc::new(Mutex::new(Vec::new()));
    let o = order.clone();
    registry.guard(move |_: &ToolExecution| {
        o.lock().unwrap().push("guard");
        Some("guarded".to_string())
    });
    let o = order.clone();
    // registered after the guard, but still runs before it: guards are final
    registry.on_pre_execute(move |_: Arc<ToolExecution>, _: PreNext| {
        o.lock().unwrap().push("pre");
        async { PreToolDecision::Allow }
    });
    let r = call(&registry, "t", json!({})).await;
    assert_eq!(text(&r), "Error: guarded");
    assert_eq!(r.error_code(), Some(codes::TOOL_DENIED));
    assert_eq!(*order.lock().unwrap(), ["pre", "guard"]);
}

#[tokio::test]
async fn b20_first_guard_denial_wins_and_order_cannot_permit() {
    let registry = ToolRegistry::new();
    registry.register(constant("t", json!(1))).unwrap();
    registry.guard(|_: &ToolExecution| None);
    registry.guard(|_: &ToolExecution| Some("first".to_string()));
    registry.guard(|_: &ToolExecution| Some("second".to_string()));
    registry.guard(|_: &ToolExecution| None);
    assert_eq!(text(&call(&registry, "t", json!({})).await), "Error: first");
}

#[tokio::test]
async fn b20_scoped_guard_applies_to_scope_and_descendants_and_panics_fail_closed() {
    let registry = ToolRegistry::new();
    registry.register(constant("t", json!(1))).unwrap();
    let parent = ScopeKey::root("p");
    let child = parent.child("c");
    registry
        .scoped(&parent)
        .guard(|e: &ToolExecution| (e.name() == "t").then(|| "parent says no".to_string()));
    let r = registry
        .dispatch(ToolExecutionInput::new("c", "t", json!({})).with_agent(Agent::new(child)))
        .await;
    assert_eq!(text(&r), "Error: parent says no");
    assert!(!call(&registry, "t", json!({})).await.is_error());
    registry.guard(|_: &ToolExecution| -> Option<String> { panic!("guard bug") });
    let r = call(&registry, "t", json!({})).await;
    assert_eq!(r.error_code(), Some(codes::TOOL_DENIED));
    assert!(text(&r).contains("guard bug"));
}

#[tokio::test]
async fn b21_execute_wrapper_wraps_dispatch() {
    let registry = ToolRegistry::bare();
    registry.register(constant("t", json!("v"))).unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let c = calls.clone();
    registry.on_execute(move |d: DispatchExecution, next: ExecuteNext| {
        let c = c.clone();
        async move {
            c.fetch_add(1, Ordering::SeqCst);
            let first = next.clone().run(d.clone()).await;
            // a retry wrapper may dispatch again
            let second = next.run(d).await;
            assert_eq!(first, second);
            second
        }
    });
    let r = call(&registry, "t", json!({})).await;
    assert_eq!(r.value().unwrap().as_str(), Some("v"));
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn b21_replaced_signal_still_carries_caller_cancellation() {
    let registry = ToolRegistry::bare();
    registry
        .register(
            ToolDefinition::builder("wait")
                .output(ValueSpec::string())
                .execute_raw(|_, ctx| async move {
                    ctx.signal().cancelled().await;
                    Ok(json!("saw cancel"))
                }),
        )
        .unwrap();
    // the wrapper detaches the signal completely
    registry.on_execute(|d: DispatchExecution, next: ExecuteNext| {
        next.run(d.with_signal(CancellationToken::new()))
    });
    let caller = CancellationToken::new();
    let c = caller.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(20)).await;
        c.cancel();
    });
    let r = tokio::time::timeout(
        Duration::from_secs(5),
        registry.dispatch(ToolExecutionInput::new("c", "wait", json!({})).with_signal(caller)),
    )
    .await
    .expect("caller cancellation reached the body");
    assert_eq!(r.error_code(), Some(codes::ABORTED));
}

#[tokio::test]
async fn b21_wrapper_replacement_signal_reaches_body() {
    let registry = ToolRegistry::bare();
    registry
        .register(
            ToolDefinition::builder("wait")
                .output(ValueSpec::string())
                .execute_raw(|_, ctx| async move {
                    ctx.signal().cancelled().await;
                    Err(ToolError::new("stopped by wrapper"))
                }),
        )
        .unwrap();
    registry.on_execute(|d: DispatchExecution, next: ExecuteNext| async move {
        let mine = CancellationToken::new();
        mine.cancel();
        next.run(d.with_signal(mine)).await
    });
    let r = call(&registry, "wait", json!({})).await;
    assert_eq!(text(&r), "Error: stopped by wrapper");
}

#[tokio::test(start_paused = true)]
async fn b22_timeout_enforced_by_policy_and_not_sent_to_model() {
    let registry = ToolRegistry::new();
    let tracker = Arc::new(Concurrency::default());
    registry
        .register(sleeper("slow", false, tracker.clone()).timeout_ms(50))
        .unwrap();
    let r = call(&registry, "slow", json!({"ms": 10_000})).await;
    assert_eq!(r.error_code(), Some(codes::TOOL_TIMEOUT));
    assert_eq!(text(&r), "Error: Tool slow timed out after 50 ms");
    // the body observed its signal and finished (quiescence)
    assert_eq!(tracker.finished.load(Ordering::SeqCst), 1);
    let fast = call(&registry, "slow", json!({"ms": 10})).await;
    assert_eq!(fast.value().unwrap().as_ref(), &json!(10));
    assert!(!serde_json::to_string(&registry.view(None, None).schemas())
        .unwrap()
        .contains("50"));
}

#[tokio::test(start_paused = true)]
async fn b22_timeout_drops_a_body_that_ignores_its_signal() {
    let registry = ToolRegistry::new();
    registry
        .register(
            ToolDefinition::builder("stubborn")
                .output(ValueSpec::null())
                .timeout_ms(10)
                .execute_raw(|_, _| async {
                    std::future::pending::<()>().await;
                    Ok(Value::Null)
                }),
        )
        .unwrap();
    let r = call(&registry, "stubborn", json!({})).await;
    assert_eq!(r.error_code(), Some(codes::TOOL_TIMEOUT));
}

#[tokio::test]
async fn b22_bare_registry_has_no_timeout_policy() {
    let registry = ToolRegistry::bare();
    let tracker = Arc::new(Concurrency::default());
    registry
        .register(sleeper("slow", false, tracker).timeout_ms(1))
        .unwrap();
    let r = call(&registry, "slow", json!({"ms": 30})).await;
    assert!(
        !r.is_error(),
        "without the policy the budget is not enforced"
    );
}
