//! Discovery's up-front text on a small registry (testkit): when it switches on, what stays
//! in full, and which tools a session's searches add to its list.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::discovery_tools::{call_as, on, registry, text, up_front};
use ptc::discovery::{Discovery, DiscoveryMode, ToolGroup};
use ptc::{Agent, Owner, ScopeKey, ToolBatchInput, ToolCallBlock, ToolMode, ToolRegistry};
use serde_json::json;

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
async fn a_program_has_the_discovery_tools_only_while_discovery_is_on() {
    let code = "const missing = await tools.nope({}).catch((e) => e.message);\n\
                return JSON.stringify(['search_tools' in tools, 'call_tool' in tools, missing]);";
    let program = json!({ "code": code, "description": "which tools" });
    let (scope, owner) = (ScopeKey::root("agent"), Owner::new("me"));
    let said = |registry: ToolRegistry| {
        let (scope, owner, program) = (scope.clone(), owner.clone(), program.clone());
        async move { text(&call_as(&registry, &scope, &owner, "run_code", program).await) }
    };
    // Off (auto, below the threshold): the model was told of no discovery tool.
    let off = said(registry(ToolMode::Code, Discovery::default())).await;
    assert!(off.starts_with("[false,false,"), "{off}");
    assert!(
        off.contains("available: add, counter, echo, fail, sleep\"]"),
        "{off}"
    );
    let on = said(registry(ToolMode::Code, on(&[]))).await;
    assert!(on.starts_with("[true,true,"), "{on}");
    assert!(on.contains("search_tools"), "{on}");
}
