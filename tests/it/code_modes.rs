//! Behaviours 54–57: what the model is offered in `native`, `code` and `both` mode, how
//! direct calls are treated, and the mode per scope (nearest wins).

use ptc_testing::code as code_support;

use code_support::*;
use ptc::{codes, CodeExecutor, ScopeKey, ToolMode, ToolRegistry, RUN_CODE};
use serde_json::json;

const NATIVE: [&str; 5] = ["add", "counter", "echo", "fail", "sleep"];

fn offered(registry: &ToolRegistry, scope: Option<&ScopeKey>) -> Vec<String> {
    let (input, _) = registry.view(scope, None).model_input().unwrap();
    let names: Vec<String> = input.schemas.iter().map(|s| s.name.clone()).collect();
    assert_eq!(names, input.known_names, "schemas and callable names agree");
    names
}

fn sorted(mut names: Vec<String>) -> Vec<String> {
    names.sort();
    names
}

fn declarations(registry: &ToolRegistry, scope: Option<&ScopeKey>) -> String {
    CodeExecutor::declarations(&registry.view(scope, None).executable_definitions())
}

async fn echo_directly(registry: &ToolRegistry, scope: &ScopeKey) -> Run {
    Call::direct("echo", json!({"text": "direct"}))
        .in_scope(scope)
        .send(registry)
        .await
}

async fn run_code_in(registry: &ToolRegistry, scope: &ScopeKey) -> Run {
    run_in(
        registry,
        scope,
        "return await tools.echo({ text: 'via code' });",
    )
    .await
}

// ---- b54: native -------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b54_native_mode_offers_every_schema_and_no_run_code() {
    let registry = code_registry();
    registry.set_mode(ToolMode::Native);
    assert_eq!(sorted(offered(&registry, None)), NATIVE);
    let (_, sections) = registry.view(None, None).model_input().unwrap();
    assert!(sections.is_empty(), "no SDK in native mode: {sections:?}");

    let scope = ScopeKey::root("agent");
    let r = run_code_in(&registry, &scope).await;
    assert_eq!(r.error_code(), Some(codes::UNKNOWN_TOOL), "{}", r.text());
    assert!(r.starts().is_empty());
    assert_eq!(echo_directly(&registry, &scope).await.text(), "direct");
}

// ---- b55: code -----------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b55_code_mode_offers_only_run_code_with_guidance_and_the_sdk() {
    let registry = code_registry();
    registry.set_mode(ToolMode::Code);
    assert_eq!(offered(&registry, None), [RUN_CODE]);
    let (_, sections) = registry.view(None, None).model_input().unwrap();
    assert_eq!(sections.len(), 1, "{sections:?}");
    let text = &sections[0].text;
    let limits = ptc_sdk_gen::RuntimeLimits::default();
    assert!(
        text.starts_with(&ptc_sdk_gen::code_only_guidance(&limits)),
        "{text}"
    );
    assert!(text.contains(&declarations(&registry, None)), "{text}");
    for name in NATIVE {
        assert!(text.contains(name), "the SDK declares {name}");
    }

    let r = run_code_in(&registry, &ScopeKey::root("agent")).await;
    assert_eq!(r.text(), "via code", "programs still reach every tool");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b55_direct_calls_fail_as_unknown_tool_with_a_hint_before_any_policy() {
    let registry = code_registry();
    registry.set_mode(ToolMode::Code);
    let seen = record_pre_execute(&registry);
    let r = echo_directly(&registry, &ScopeKey::root("agent")).await;
    assert_eq!(r.error_code(), Some(codes::UNKNOWN_TOOL));
    assert!(r.text().contains("run_code"), "{}", r.text());
    assert!(r.text().contains("tools[\"echo\"]"), "{}", r.text());
    assert!(
        seen.lock().unwrap().is_empty(),
        "pre-execute never saw the refused call"
    );

    let r = Call::direct("no_such_tool", json!({}))
        .send(&registry)
        .await;
    assert_eq!(r.error_code(), Some(codes::UNKNOWN_TOOL));
    assert!(seen.lock().unwrap().is_empty());
}

// ---- b56: both -----------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b56_both_mode_offers_native_schemas_then_run_code_last() {
    let registry = code_registry();
    registry.set_mode(ToolMode::Both);
    let names = offered(&registry, None);
    assert_eq!(names.last().map(String::as_str), Some(RUN_CODE));
    assert_eq!(sorted(names[..names.len() - 1].to_vec()), NATIVE);
    let (_, sections) = registry.view(None, None).model_input().unwrap();
    assert_eq!(sections.len(), 1, "{sections:?}");
    assert!(
        sections[0].text.contains(&declarations(&registry, None)),
        "{}",
        sections[0].text
    );
    let limits = ptc_sdk_gen::RuntimeLimits::default();
    assert!(!sections[0]
        .text
        .contains(&ptc_sdk_gen::code_only_guidance(&limits)));

    let scope = ScopeKey::root("agent");
    assert_eq!(echo_directly(&registry, &scope).await.text(), "direct");
    assert_eq!(run_code_in(&registry, &scope).await.text(), "via code");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b56_both_is_the_default_mode() {
    let registry = code_registry();
    assert_eq!(registry.mode_for(None), None);
    let names = offered(&registry, None);
    assert_eq!(names.len(), NATIVE.len() + 1);
    assert_eq!(names.last().map(String::as_str), Some(RUN_CODE));
}

// ---- b57: per scope --------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b57_the_nearest_scope_sets_the_mode() {
    let registry = code_registry();
    registry.set_mode(ToolMode::Code);
    let plain = ScopeKey::root("plain");
    let native = ScopeKey::root("native");
    let child = native.child("worker");
    let both = ScopeKey::root("both");
    let native_mode = registry.scoped(&native).set_mode(ToolMode::Native);
    registry.scoped(&both).set_mode(ToolMode::Both);

    assert_eq!(offered(&registry, None), [RUN_CODE]);
    assert_eq!(offered(&registry, Some(&plain)), [RUN_CODE]);
    assert_eq!(sorted(offered(&registry, Some(&native))), NATIVE);
    assert_eq!(
        sorted(offered(&registry, Some(&child))),
        NATIVE,
        "inherited"
    );
    let names = offered(&registry, Some(&both));
    assert_eq!(names.len(), NATIVE.len() + 1);
    assert_eq!(names.last().map(String::as_str), Some(RUN_CODE));

    // Dispatch follows the same mode.
    assert_eq!(
        echo_directly(&registry, &plain).await.error_code(),
        Some(codes::UNKNOWN_TOOL)
    );
    assert_eq!(run_code_in(&registry, &plain).await.text(), "via code");
    assert_eq!(echo_directly(&registry, &child).await.text(), "direct");
    assert_eq!(
        run_code_in(&registry, &child).await.error_code(),
        Some(codes::UNKNOWN_TOOL)
    );
    assert_eq!(echo_directly(&registry, &both).await.text(), "direct");
    assert_eq!(run_code_in(&registry, &both).await.text(), "via code");

    // Withdrawing the scope's mode falls back to the deployment's.
    native_mode.dispose();
    assert_eq!(offered(&registry, Some(&child)), [RUN_CODE]);
    assert_eq!(
        echo_directly(&registry, &child).await.error_code(),
        Some(codes::UNKNOWN_TOOL)
    );
}
