//! The discovery tools (`search_tools`, `describe_tools`, `call_tool`) in the pipeline, on a
//! small registry (testkit), and the helpers the discovery tests share.

use ptc_testing::code as code_support;

use code_support::*;
use ptc::discovery::{Discovery, DiscoveryMode};
use ptc::{
    codes, Agent, Owner, ScopeKey, ToolBatchInput, ToolCallBlock, ToolExecutionResult, ToolMode,
    ToolRegistry, ToolRestriction,
};
use serde_json::{json, Value};

/// testkit, the discovery pack and code mode in `mode`, discovery as `discovery`.
pub(crate) fn registry(mode: ToolMode, discovery: Discovery) -> ToolRegistry {
    let registry = code_registry();
    ptc::discovery::register(&registry).unwrap();
    registry.set_mode(mode);
    std::mem::forget(registry.set_discovery(discovery));
    registry
}

pub(crate) fn on(pinned: &[&str]) -> Discovery {
    Discovery {
        mode: DiscoveryMode::On,
        pinned: pinned.iter().map(|s| s.to_string()).collect(),
        ..Discovery::default()
    }
}

/// The names declared in the SDK (code mode) and the up-front text.
pub(crate) fn up_front(registry: &ToolRegistry) -> (Vec<String>, String) {
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
pub(crate) async fn call_as(
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

pub(crate) fn text(result: &ToolExecutionResult) -> String {
    ptc::content_text(&result.content)
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
    let call_tool = |args| call_as(&registry, &scope, &owner, "call_tool", args);
    let ok = call_tool(json!({"name": "echo", "arguments": {"text": "hi"}})).await;
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

    let denied = call_tool(json!({"name": "fail", "arguments": {"message": "x"}})).await;
    assert_eq!(
        denied.error_code(),
        Some(codes::TOOL_DENIED),
        "{}",
        text(&denied)
    );

    let bad = call_tool(json!({"name": "echo", "arguments": {"txt": "hi"}})).await;
    assert_eq!(
        bad.error_code(),
        Some(codes::INVALID_ARGS),
        "{}",
        text(&bad)
    );

    let unknown = call_tool(json!({"name": "eco"})).await;
    assert_eq!(unknown.error_code(), Some(codes::UNKNOWN_TOOL));
    assert!(
        text(&unknown).contains("Did you mean echo?"),
        "{}",
        text(&unknown)
    );
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
