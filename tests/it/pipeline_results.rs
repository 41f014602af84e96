//! Behaviours 23–29: output handling, post-execute, finalization, observers, errors,
//! cancellation, deferred context.

use ptc_testing::tools as common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use ptc::schema::ValueSpec;
use ptc::{
    codes, ContentBlock, PostNext, PostToolDecision, PreNext, PreToolDecision, Replacement,
    ToolDefinition, ToolError, ToolExecution, ToolExecutionInput, ToolExecutionResult,
    ToolRegistry, UserMessage,
};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

type Results = Arc<Mutex<Vec<Arc<ToolExecutionResult>>>>;

fn observe(registry: &ToolRegistry) -> Results {
    let seen: Results = Arc::default();
    let s = seen.clone();
    registry.on_result(
        move |_: &Arc<ToolExecution>, r: &Arc<ToolExecutionResult>| {
            s.lock().unwrap().push(r.clone())
        },
    );
    seen
}

fn counter_tool() -> ptc::ToolBuilder {
    ToolDefinition::builder("count")
        .parameters_schema(json!({"type": "object", "properties": {"q": {"type": "integer"}}}))
        .output(ValueSpec::object(false).required_property("n", ValueSpec::integer()))
        .render(|_, v| vec![ContentBlock::text(format!("n = {}", v["n"]))])
        .presentation_meta(|args, v| Some(json!({"args": args, "n": v["n"]})))
        .execute_raw(|_, _| async { Ok(json!({"n": 7})) })
}

#[tokio::test]
async fn b23_success_validated_rendered_with_meta() {
    let registry = ToolRegistry::new();
    registry.register(counter_tool()).unwrap();
    let r = call(&registry, "count", json!({"q": 1})).await;
    assert_eq!(r.value().unwrap().as_ref(), &json!({"n": 7}));
    assert_eq!(text(&r), "n = 7");
    assert_eq!(r.meta, Some(json!({"args": {"q": 1}, "n": 7})));
}

#[tokio::test]
async fn b23_default_render_string_raw_other_pretty() {
    let registry = ToolRegistry::new();
    registry
        .register(constant("s", json!("plain text")))
        .unwrap();
    registry
        .register(constant("o", json!({"a": [1, 2]})))
        .unwrap();
    assert_eq!(text(&call(&registry, "s", json!({})).await), "plain text");
    assert_eq!(
        text(&call(&registry, "o", json!({})).await),
        "{\n  \"a\": [\n    1,\n    2\n  ]\n}"
    );
}

#[tokio::test]
async fn b23_panicking_renderer_becomes_invalid_output() {
    let registry = ToolRegistry::new();
    registry
        .register(
            constant("r", json!(1)).render(|_, _| -> Vec<ContentBlock> { panic!("render bug") }),
        )
        .unwrap();
    let r = call(&registry, "r", json!({})).await;
    assert_eq!(r.error_code(), Some(codes::INVALID_TOOL_OUTPUT));
    assert!(text(&r).contains("render bug"));
}

#[tokio::test]
async fn b24_project_content_runs_before_post_execute() {
    let registry = ToolRegistry::new();
    registry
        .register(
            counter_tool().project_content(|_, _| Some(vec![ContentBlock::text("projected")])),
        )
        .unwrap();
    let seen = Arc::new(Mutex::new(String::new()));
    let s = seen.clone();
    registry.on_post_execute(
        move |_: Arc<ToolExecution>, r: Arc<ToolExecutionResult>, next: PostNext| {
            *s.lock().unwrap() = text(&r).to_string();
            next.run()
        },
    );
    let r = call(&registry, "count", json!({})).await;
    assert_eq!(*seen.lock().unwrap(), "projected");
    assert_eq!(text(&r), "projected");
}

#[tokio::test]
async fn b24_post_execute_replaces_content_keeping_value() {
    let registry = ToolRegistry::new();
    registry.register(counter_tool()).unwrap();
    registry.on_post_execute(
        |_: Arc<ToolExecution>, _: Arc<ToolExecutionResult>, _: PostNext| async {
            PostToolDecision::Accept {
                replace: Some(Replacement::Content(vec![ContentBlock::text("redacted")])),
                additional_contexts: vec![UserMessage::text("policy", "note")],
            }
        },
    );
    let r = call(&registry, "count", json!({})).await;
    assert_eq!(text(&r), "redacted");
    assert_eq!(r.value().unwrap().as_ref(), &json!({"n": 7}));
    assert!(r.meta.is_some());
    assert_eq!(
        r.additional_contexts,
        vec![UserMessage::text("policy", "note")]
    );
}

#[tokio::test]
async fn b24_post_execute_value_replacement_is_revalidated_and_rerendered() {
    let registry = ToolRegistry::new();
    registry.register(counter_tool()).unwrap();
    let replacement = Arc::new(Mutex::new(json!({"n": 9})));
    let rep = replacement.clone();
    registry.on_post_execute(
        move |_: Arc<ToolExecution>, _: Arc<ToolExecutionResult>, _: PostNext| {
            let v = rep.lock().unwrap().clone();
            async move {
                PostToolDecision::Accept {
                    replace: Some(Replacement::Value(v)),
                    additional_contexts: vec![],
                }
            }
        },
    );
    let r = call(&registry, "count", json!({})).await;
    assert_eq!(r.value().unwrap().as_ref(), &json!({"n": 9}));
    assert_eq!(text(&r), "n = 9");
    assert_eq!(r.meta.as_ref().unwrap()["n"], json!(9));
    *replacement.lock().unwrap() = json!({"n": "nine"});
    let r = call(&registry, "count", json!({})).await;
    assert_eq!(r.error_code(), Some(codes::INVALID_TOOL_OUTPUT));
}

#[tokio::test]
async fn b24_post_execute_block_becomes_error_with_feedback() {
    let registry = ToolRegistry::new();
    registry
        .register(
            ToolDefinition::builder("finisher")
                .output(ValueSpec::integer())
                .execute_raw(|_, ctx| async move {
                    ctx.conclude_turn();
                    ctx.defer_context(UserMessage::text("tool", "from body"));
                    Ok(json!(1))
                }),
        )
        .unwrap();
    registry.on_post_execute(
        |_: Arc<ToolExecution>, _: Arc<ToolExecutionResult>, _: PostNext| async {
            PostToolDecision::block("use the other tool")
        },
    );
    let r = call(&registry, "finisher", json!({})).await;
    assert!(r.is_error());
    assert_eq!(r.error_code(), Some(codes::TOOL_BLOCKED));
    assert_eq!(text(&r), "use the other tool");
    assert!(r.value().is_none());
    assert!(
        !r.concludes_turn(),
        "a blocked call cannot conclude the turn"
    );
    assert!(
        r.additional_contexts.is_empty(),
        "the blocked body's contexts are not forwarded"
    );
}

#[tokio::test]
async fn b24_thrown_tools_reach_post_execute_as_errors() {
    let registry = ToolRegistry::new();
    registry.register(failing("f", "kaput")).unwrap();
    let seen = Arc::new(Mutex::new(None));
    let s = seen.clone();
    registry.on_post_execute(
        move |_: Arc<ToolExecution>, r: Arc<ToolExecutionResult>, next: PostNext| {
            *s.lock().unwrap() = Some(r.is_error());
            next.run()
        },
    );
    call(&registry, "f", json!({})).await;
    assert_eq!(*seen.lock().unwrap(), Some(true));
}

#[tokio::test]
async fn b25_finalize_content_runs_exactly_once_for_every_outcome() {
    let registry = ToolRegistry::new();
    let finalized = Arc::new(AtomicUsize::new(0));
    let f = finalized.clone();
    registry
        .register(
            ToolDefinition::builder("t")
                .parameters(ptc::schema::ParameterSpec::new().required("mode", ValueSpec::string()))
                .output(ValueSpec::string())
                .finalize_content(move |_, r| {
                    f.fetch_add(1, Ordering::SeqCst);
                    Some(vec![ContentBlock::text(format!(
                        "[{}] {}",
                        if r.is_error() { "err" } else { "ok" },
                        text(r)
                    ))])
                })
                .execute_raw(|args, _| async move {
                    match args["mode"].as_str() {
                        Some("throw") => Err(ToolError::new("thrown")),
                        _ => Ok(json!("fine")),
                    }
                }),
        )
        .unwrap();
    let deny = registry.on_pre_execute(|e: Arc<ToolExecution>, next: PreNext| async move {
        if e.arguments()["mode"] == "deny" {
            PreToolDecision::deny("denied")
        } else {
            next.run().await
        }
    });
    let cases = [
        (json!({"mode": "ok"}), "[ok] fine"),
        (json!({"mode": "throw"}), "[err] Error: thrown"),
        (json!({"mode": "deny"}), "[err] Error: denied"),
        (
            json!({"mode": 5}),
            "[err] Error: Invalid arguments for tool t: /mode: expected string, got number",
        ),
    ];
    for (i, (args, expected)) in cases.iter().enumerate() {
        let r = call(&registry, "t", args.clone()).await;
        assert_eq!(text(&r), *expected);
        assert_eq!(finalized.load(Ordering::SeqCst), i + 1);
    }
    // pipeline failure before dispatch: caller already cancelled
    let signal = CancellationToken::new();
    signal.cancel();
    let r = registry
        .dispatch(ToolExecutionInput::new("c", "t", json!({"mode": "ok"})).with_signal(signal))
        .await;
    assert!(text(&r).starts_with("[err]"));
    assert_eq!(finalized.load(Ordering::SeqCst), cases.len() + 1);
    deny.dispose();
}

#[tokio::test]
async fn b26_observers_get_final_result_and_failures_are_contained() {
    let registry = ToolRegistry::new();
    registry
        .register(
            constant("t", json!("v"))
                .finalize_content(|_, _| Some(vec![ContentBlock::text("final")])),
        )
        .unwrap();
    registry
        .on_result(|_: &Arc<ToolExecution>, _: &Arc<ToolExecutionResult>| panic!("observer bug"));
    let seen = observe(&registry);
    let r = call(&registry, "t", json!({})).await;
    assert_eq!(text(&r), "final");
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!(*seen[0], r);
}

#[tokio::test]
async fn b27_unknown_tool_is_structured_error() {
    let registry = ToolRegistry::new();
    let seen = observe(&registry);
    let r = call(&registry, "nope", json!({})).await;
    assert_eq!(r.error_code(), Some(codes::UNKNOWN_TOOL));
    assert_eq!(text(&r), "Error: Unknown tool: nope");
    assert_eq!(seen.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn b27_thrown_and_panicking_tools_report_their_message() {
    let registry = ToolRegistry::new();
    registry.register(failing("f", "disk full")).unwrap();
    registry
        .register(
            ToolDefinition::builder("p")
                .output(ValueSpec::null())
                .execute_raw(|_, _| async { panic!("body exploded") }),
        )
        .unwrap();
    registry
        .register(
            ToolDefinition::builder("sync_panic")
                .output(ValueSpec::null())
                .execute_raw(|_, _| -> std::future::Ready<Result<Value, ToolError>> {
                    std::panic::panic_any(String::from("before the future"))
                }),
        )
        .unwrap();
    let f = call(&registry, "f", json!({})).await;
    assert_eq!(text(&f), "Error: disk full");
    assert_eq!(f.error_code(), Some(codes::TOOL_ERROR));
    assert_eq!(
        text(&call(&registry, "p", json!({})).await),
        "Error: body exploded"
    );
    assert_eq!(
        text(&call(&registry, "sync_panic", json!({})).await),
        "Error: before the future"
    );
    // the registry still works afterwards
    registry.register(echo()).unwrap();
    assert!(!call(&registry, "echo", json!({"text": "ok"}))
        .await
        .is_error());
}

#[tokio::test]
async fn b28_cancellation_before_dispatch() {
    let registry = ToolRegistry::new();
    let tracker = Arc::new(Concurrency::default());
    registry
        .register(sleeper("s", true, tracker.clone()))
        .unwrap();
    let signal = CancellationToken::new();
    signal.cancel();
    let r = registry
        .dispatch(ToolExecutionInput::new("c", "s", json!({"ms": 1})).with_signal(signal))
        .await;
    assert_eq!(r.error_code(), Some(codes::ABORTED_BEFORE_DISPATCH));
    assert_eq!(tracker.started.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn b28_cancellation_during_a_pre_execute_gate() {
    let registry = ToolRegistry::new();
    let tracker = Arc::new(Concurrency::default());
    registry
        .register(sleeper("s", true, tracker.clone()))
        .unwrap();
    let signal = CancellationToken::new();
    let s = signal.clone();
    registry.on_pre_execute(move |_: Arc<ToolExecution>, next: PreNext| {
        s.cancel();
        next.run()
    });
    let r = registry
        .dispatch(ToolExecutionInput::new("c", "s", json!({"ms": 1})).with_signal(signal))
        .await;
    assert_eq!(r.error_code(), Some(codes::ABORTED_BEFORE_DISPATCH));
    assert_eq!(tracker.started.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn b28_cancellation_during_dispatch() {
    let registry = ToolRegistry::new();
    let tracker = Arc::new(Concurrency::default());
    registry
        .register(sleeper("s", true, tracker.clone()))
        .unwrap();
    let signal = CancellationToken::new();
    let s = signal.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(20)).await;
        s.cancel();
    });
    let r = registry
        .dispatch(ToolExecutionInput::new("c", "s", json!({"ms": 60_000})).with_signal(signal))
        .await;
    assert_eq!(r.error_code(), Some(codes::ABORTED));
    assert_eq!(tracker.finished.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn b28_success_racing_cancellation_is_reported_aborted() {
    // the body ignores the signal and succeeds after the caller cancelled
    let registry = ToolRegistry::new();
    let signal = CancellationToken::new();
    let s = signal.clone();
    registry
        .register(
            ToolDefinition::builder("racy")
                .output(ValueSpec::integer())
                .execute_raw(move |_, _| {
                    s.cancel();
                    async { Ok(json!(1)) }
                }),
        )
        .unwrap();
    let r = registry
        .dispatch(ToolExecutionInput::new("c", "racy", json!({})).with_signal(signal))
        .await;
    assert_eq!(r.error_code(), Some(codes::ABORTED));
}

#[tokio::test]
async fn b29_deferred_contexts_and_conclude_turn() {
    let registry = ToolRegistry::new();
    registry
        .register(
            ToolDefinition::builder("done")
                .output(ValueSpec::string())
                .execute_raw(|_, ctx| async move {
                    ctx.defer_context(UserMessage::text("done", "first"));
                    ctx.defer_context(UserMessage::text("done", "second"));
                    ctx.conclude_turn();
                    Ok(json!("ok"))
                }),
        )
        .unwrap();
    let r = call(&registry, "done", json!({})).await;
    assert!(r.concludes_turn());
    let texts: Vec<&str> = r
        .additional_contexts
        .iter()
        .map(|m| m.content[0].as_text().unwrap())
        .collect();
    assert_eq!(texts, ["first", "second"]);
}

#[tokio::test]
async fn b29_failed_call_never_concludes_turn() {
    let registry = ToolRegistry::new();
    registry
        .register(
            ToolDefinition::builder("half")
                .output(ValueSpec::string())
                .execute_raw(|_, ctx| async move {
                    ctx.conclude_turn();
                    Err(ToolError::new("no"))
                }),
        )
        .unwrap();
    assert!(!call(&registry, "half", json!({})).await.concludes_turn());
}
