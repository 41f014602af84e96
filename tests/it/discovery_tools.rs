//! Discovery on a small registry (testkit): when it switches on, what stays in full, and the
//! discovery tools (`search_tools`, `describe_tools`, `call_tool`) in the pipeline.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use ptc_testing::code as code_support;

use code_support::*;
use ptc::discovery::{Discovery, DiscoveryMode, ToolGroup};
use ptc::{
    codes, Agent, Owner, ScopeKey, ToolBatchInput, ToolCallBlock, ToolExecutionResult, ToolMode,
    ToolRegistry, ToolRestriction,
};
use serde_json::{json, Value};

/// testkit, the discovery pack and code mode in `mode`, discovery as `discovery`.
fn registry(mode: ToolMode, discovery: Discovery) -> ToolRegistry {
    let registry = code_registry();
    ptc::discovery::register(&registry).unwrap();
    registry.set_mode(mode);
    std::mem::forget(registry.set_discovery(discovery));
    registry
}

fn on(pinned: &[&str]) -> Discovery {
    Discovery {
        mode: DiscoveryMode::On,
        pinned: pinned.iter().map(|s| s.to_string()).collect(),
        ..Discovery::default()
    }
}

/// The names declared in the SDK (code mode) and the up-front text.
fn up_front(registry: &ToolRegistry) -> (Vec<String>, String) {
    let (input, sections) = registry.view(None, None).model_input().unwrap();
    let text: String = sections.iter().map(|s| s.text.as_str()).collect();
    let sdk = text
        .split("interface ToolOutputMap")
        .next()
        .unwrap_or_default();
    let mut declared: Vec<String> = [
        "add",
        "call_tool",
        "counter",
        "describe_tools",
        "echo",
        "fail",
    ]
    .into_iter()
    .chain(["search_tools", "sleep"])
    .filter(|n| sdk.contains(&format!("\n{n}: ")))
    .map(String::from)
    .collect();
    if input.known_names.iter().all(|n| n != ptc::RUN_CODE) {
        declared = input.known_names.clone();
    }
    (declared, text)
}

/// One direct call of `name` by an agent of `scope` owned by `owner`.
async fn call_as(
    registry: &ToolRegistry,
    scope: &ScopeKey,
    owner: &Owner,
    name: &str,
    args: Value,
) -> ToolExecutionResult {
    let agent = Agent::new(scope.clone()).with_owner(owner.clone());
    let batch = ToolBatchInput::new(vec![ToolCallBlock::new("c1", name, args)]).with_agent(agent);
    registry
        .execute(batch)
        .await
        .unwrap()
        .results
        .remove(0)
        .result
}

fn text(result: &ToolExecutionResult) -> String {
    ptc::content_text(&result.content)
}

#[test]
fn discovery_auto_switches_on_above_the_threshold_and_off_below() {
    let small = Discovery {
        threshold_bytes: 100,
        ..Discovery::default()
    };
    let big = Discovery {
        threshold_bytes: 1_000_000,
        ..Discovery::default()
    };
    let registry = registry(ToolMode::Code, big);
    let (declared, text) = up_front(&registry);
    assert_eq!(
        declared,
        ["add", "counter", "echo", "fail", "sleep"],
        "{text}"
    );
    assert!(!text.contains("## Finding tools"));

    std::mem::forget(registry.set_discovery(small.clone()));
    let (declared, text) = up_front(&registry);
    assert_eq!(
        declared,
        ["call_tool", "describe_tools", "search_tools"],
        "{text}"
    );
    assert!(
        text.contains("5 of the 5 tools are not declared above"),
        "{text}"
    );
    assert!(
        text.contains("\n- other (5): add, counter, echo, fail, sleep\n"),
        "{text}"
    );

    // Off wins over any threshold.
    std::mem::forget(registry.set_discovery(Discovery {
        mode: DiscoveryMode::Off,
        ..small
    }));
    assert_eq!(
        up_front(&registry).0,
        ["add", "counter", "echo", "fail", "sleep"]
    );
}

#[test]
fn discovery_pinned_tools_and_groups_stay_in_full() {
    let registry = registry(ToolMode::Code, on(&["echo", "kit"]));
    std::mem::forget(registry.add_tool_group(ToolGroup {
        name: "kit".into(),
        about: Some("Arithmetic\nand waiting.".into()),
        tools: vec!["add".into(), "sleep".into()],
    }));
    let (declared, text) = up_front(&registry);
    assert_eq!(
        declared,
        [
            "add",
            "call_tool",
            "describe_tools",
            "echo",
            "search_tools",
            "sleep"
        ],
        "{text}"
    );
    assert!(
        text.contains("\n- kit (2): Arithmetic and waiting.\n"),
        "{text}"
    );
    assert!(
        text.contains("2 of the 5 tools are not declared above"),
        "{text}"
    );

    // The `builtin` pack is pinned by default.
    let registry = registry_with_builtin_group();
    assert!(up_front(&registry).0.contains(&"counter".to_string()));
}

fn registry_with_builtin_group() -> ToolRegistry {
    let registry = registry(ToolMode::Native, Discovery::with_mode(DiscoveryMode::On));
    std::mem::forget(registry.add_tool_group(ToolGroup {
        name: "builtin".into(),
        about: None,
        tools: vec!["counter".into()],
    }));
    registry
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_describe_tools_declares_named_tools_and_suggests_near_names() {
    let registry = registry(ToolMode::Both, on(&[]));
    let run = Call::direct("describe_tools", json!({"names": ["echo", "ech"]}))
        .send(&registry)
        .await;
    let sdk = run.text();
    assert!(!run.result.is_error(), "{sdk}");
    assert!(
        sdk.contains("// Unknown tool: ech. Did you mean echo?\n"),
        "{sdk}"
    );
    assert!(
        sdk.contains("// Return the given text unchanged.\necho: {"),
        "{sdk}"
    );
    assert!(
        sdk.contains("echo: string;"),
        "the result type is declared: {sdk}"
    );
    assert!(!sdk.contains("\nadd: "), "only the named tools: {sdk}");

    let run = Call::direct("describe_tools", json!({"names": ["ad"]}))
        .send(&registry)
        .await;
    assert_eq!(run.error_code(), Some(codes::UNKNOWN_TOOL));
    assert!(
        run.text().contains("Unknown tool: ad. Did you mean add?"),
        "{}",
        run.text()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_hidden_tool_is_callable_from_a_program() {
    let registry = registry(ToolMode::Code, on(&[]));
    let (declared, _) = up_front(&registry);
    assert!(!declared.contains(&"add".to_string()));
    let out = run_ok(&registry, "return await tools.add({ a: 2, b: 3 });").await;
    assert_eq!(out, "5");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_call_tool_runs_the_tool_natively_through_the_pipeline() {
    let registry = registry(ToolMode::Native, on(&[]));
    let seen = record_pre_execute(&registry);
    deny_tool(&registry, "fail", "not here");
    let scope = ScopeKey::root("agent");
    let owner = Owner::new("test");
    let ok = call_as(
        &registry,
        &scope,
        &owner,
        "call_tool",
        json!({"name": "echo", "arguments": {"text": "hi"}}),
    )
    .await;
    assert_eq!(
        ok.value().map(|v| (**v).clone()),
        Some(json!("hi")),
        "{}",
        text(&ok)
    );
    let names: Vec<String> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|s| s.name.clone())
        .collect();
    assert_eq!(
        names,
        ["call_tool", "echo"],
        "the nested call passes pre-execute"
    );
    assert!(seen.lock().unwrap()[1].parent.is_some(), "as a nested call");

    let denied = call_as(
        &registry,
        &scope,
        &owner,
        "call_tool",
        json!({"name": "fail", "arguments": {"message": "x"}}),
    )
    .await;
    assert_eq!(
        denied.error_code(),
        Some(codes::TOOL_DENIED),
        "{}",
        text(&denied)
    );

    let bad = call_as(
        &registry,
        &scope,
        &owner,
        "call_tool",
        json!({"name": "echo", "arguments": {"txt": "hi"}}),
    )
    .await;
    assert_eq!(
        bad.error_code(),
        Some(codes::INVALID_ARGS),
        "{}",
        text(&bad)
    );

    let unknown = call_as(
        &registry,
        &scope,
        &owner,
        "call_tool",
        json!({"name": "eco"}),
    )
    .await;
    assert_eq!(unknown.error_code(), Some(codes::UNKNOWN_TOOL));
    assert!(
        text(&unknown).contains("Did you mean echo?"),
        "{}",
        text(&unknown)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_search_results_join_the_owners_native_list() {
    let registry = registry(ToolMode::Native, on(&[]));
    let changes = Arc::new(AtomicUsize::new(0));
    let counter = changes.clone();
    std::mem::forget(registry.on_change(move || {
        counter.fetch_add(1, Ordering::SeqCst);
    }));
    let scope = ScopeKey::root("agent");
    let (me, other) = (Owner::new("me"), Owner::new("other"));
    let listed = |owner: &Owner| -> Vec<String> {
        let view = registry.view(Some(&scope), None).for_owner(owner.id());
        view.listed_tools()
            .unwrap()
            .into_iter()
            .map(|t| t.schema.name)
            .collect()
    };
    assert_eq!(listed(&me), ["call_tool", "describe_tools", "search_tools"]);

    let found = call_as(
        &registry,
        &scope,
        &me,
        "search_tools",
        json!({"query": "add two numbers", "limit": 1}),
    )
    .await;
    let value = found.value().unwrap();
    assert_eq!(value["tools"][0]["name"], "add", "{value}");
    assert_eq!(
        value["tools"][0]["signature"],
        "tools.add(args: { a: number; b: number }) => Promise<number>"
    );
    assert_eq!(
        listed(&me),
        ["add", "call_tool", "describe_tools", "search_tools"]
    );
    assert_eq!(
        listed(&other),
        ["call_tool", "describe_tools", "search_tools"],
        "per owner"
    );
    assert_eq!(
        changes.load(Ordering::SeqCst),
        1,
        "the registry tells its listeners"
    );

    // The same result again changes nothing.
    call_as(
        &registry,
        &scope,
        &me,
        "search_tools",
        json!({"query": "add two numbers", "limit": 1}),
    )
    .await;
    assert_eq!(changes.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_search_sees_only_the_callers_tools() {
    let registry = registry(ToolMode::Native, on(&[]));
    let scope = ScopeKey::root("agent");
    std::mem::forget(
        registry
            .scoped(&scope)
            .restrict(ToolRestriction {
                allow: None,
                deny: vec!["add".into()],
            })
            .unwrap(),
    );
    let owner = Owner::new("me");
    let found = call_as(
        &registry,
        &scope,
        &owner,
        "search_tools",
        json!({"query": "add two numbers"}),
    )
    .await;
    let names: Vec<Value> = found.value().unwrap()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].clone())
        .collect();
    assert!(!names.contains(&json!("add")), "{names:?}");
    let described = call_as(
        &registry,
        &scope,
        &owner,
        "describe_tools",
        json!({"names": ["add"]}),
    )
    .await;
    assert_eq!(described.error_code(), Some(codes::UNKNOWN_TOOL));
    let called = call_as(
        &registry,
        &scope,
        &owner,
        "call_tool",
        json!({"name": "add", "arguments": {"a": 1, "b": 2}}),
    )
    .await;
    assert_eq!(called.error_code(), Some(codes::UNKNOWN_TOOL));

    let bad = call_as(
        &registry,
        &scope,
        &owner,
        "search_tools",
        json!({"query": "x", "limit": 0}),
    )
    .await;
    assert_eq!(
        bad.error_code(),
        Some(codes::INVALID_ARGS),
        "{}",
        text(&bad)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_describe_tools_refuses_too_many_names_and_cuts_long_ones() {
    let registry = registry(ToolMode::Native, on(&[]));
    let many: Vec<String> = (0..51).map(|i| format!("t{i}")).collect();
    let run = Call::direct("describe_tools", json!({ "names": many }))
        .send(&registry)
        .await;
    assert_eq!(run.error_code(), Some(codes::INVALID_ARGS));
    assert!(
        run.text()
            .contains("/names: at most 50 names at once, got 51"),
        "{}",
        run.text()
    );

    let long = "echo".repeat(250_000);
    let run = Call::direct("describe_tools", json!({ "names": [long] }))
        .send(&registry)
        .await;
    assert_eq!(run.error_code(), Some(codes::UNKNOWN_TOOL));
    assert!(
        run.text().len() < 300,
        "the name is cut: {} bytes",
        run.text().len()
    );
    assert!(
        run.text().contains("Find tools with search_tools."),
        "{}",
        run.text()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_search_results_leave_the_code_mode_description_unchanged() {
    let registry = registry(ToolMode::Code, on(&[]));
    let scope = ScopeKey::root("agent");
    let owner = Owner::new("me");
    let description = || {
        let view = registry.view(Some(&scope), None).for_owner(owner.id());
        view.listed_tools().unwrap().remove(0).schema.description
    };
    let before = description();
    let agent = Agent::new(scope.clone()).with_owner(owner.clone());
    let program = json!({"code": "return await tools.search_tools({ query: 'add two numbers' });", "description": "search"});
    let batch =
        ToolBatchInput::new(vec![ToolCallBlock::new("c1", "run_code", program)]).with_agent(agent);
    let result = registry
        .execute(batch)
        .await
        .unwrap()
        .results
        .remove(0)
        .result;
    assert!(
        text(&result).contains("\"name\": \"add\""),
        "{}",
        text(&result)
    );
    assert_eq!(
        description(),
        before,
        "run_code's description stays the same all session"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_search_index_follows_registry_changes() {
    let registry = registry(ToolMode::Native, on(&[]));
    let scope = ScopeKey::root("agent");
    let owner = Owner::new("me");
    let search = || async {
        let found = call_as(
            &registry,
            &scope,
            &owner,
            "search_tools",
            json!({"query": "weather forecast"}),
        )
        .await;
        let value = found.value().unwrap().clone();
        value["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert!(search().await.is_empty());
    let added = registry
        .register(
            ptc_testing::tools::constant("weather", json!("sunny"))
                .description("The weather forecast for a city."),
        )
        .unwrap();
    assert_eq!(
        search().await,
        ["weather"],
        "a new tool is searched at once"
    );
    added.dispose();
    assert!(search().await.is_empty(), "a removed one is gone");
}
