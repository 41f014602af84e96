//! Behaviours 10–16: layers, restrictions, disposal, conditional activation, change events.

use ptc_testing::tools as common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use common::*;
use ptc::{
    codes, ActivationContext, Agent, ModelSelection, RegistrationOptions, RegistryError, ScopeKey,
    ToolExecutionInput, ToolRegistry, ToolRestriction,
};
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn names(registry: &ToolRegistry, scope: Option<&ScopeKey>) -> Vec<String> {
    registry
        .view(scope, None)
        .definitions()
        .iter()
        .map(|d| d.name().to_string())
        .collect()
}

fn activation(agent: Option<Agent>) -> ActivationContext {
    ActivationContext {
        agent,
        model_selection: ModelSelection::default(),
        signal: CancellationToken::new(),
    }
}

#[tokio::test]
async fn b10_scoped_registration_shadows_global() {
    let registry = ToolRegistry::new();
    registry.register(constant("who", json!("global"))).unwrap();
    let scope = ScopeKey::root("agent");
    registry
        .scoped(&scope)
        .register(constant("who", json!("scoped")))
        .unwrap();
    let scoped = registry
        .dispatch(
            ToolExecutionInput::new("c", "who", json!({})).with_agent(Agent::new(scope.clone())),
        )
        .await;
    assert_eq!(scoped.value().unwrap().as_str(), Some("scoped"));
    assert_eq!(
        call(&registry, "who", json!({}))
            .await
            .value()
            .unwrap()
            .as_str(),
        Some("global")
    );
    // a child scope inherits the nearest registration
    let child = scope.child("sub");
    assert_eq!(
        registry
            .view(Some(&child), None)
            .get("who")
            .unwrap()
            .output()
            .render(&json!({}), &json!(1))
            .len(),
        1
    );
    let from_child = registry
        .dispatch(ToolExecutionInput::new("c", "who", json!({})).with_agent(Agent::new(child)))
        .await;
    assert_eq!(from_child.value().unwrap().as_str(), Some("scoped"));
}

#[test]
fn b10_duplicates_inside_one_layer_fail() {
    let registry = ToolRegistry::new();
    let scope = ScopeKey::root("agent");
    registry
        .scoped(&scope)
        .register(constant("t", json!(1)))
        .unwrap();
    assert_eq!(
        registry
            .scoped(&scope)
            .register(constant("t", json!(2)))
            .unwrap_err(),
        RegistryError::Duplicate("t".into())
    );
}

#[test]
fn b11_allow_keeps_only_listed_and_excludes_later_globals() {
    let registry = ToolRegistry::new();
    for n in ["a", "b", "c"] {
        registry.register(constant(n, json!(n))).unwrap();
    }
    let scope = ScopeKey::root("agent");
    registry
        .scoped(&scope)
        .register(constant("own", json!(0)))
        .unwrap();
    registry
        .scoped(&scope)
        .restrict(ToolRestriction::allow(["a", "b"]))
        .unwrap();
    assert_eq!(names(&registry, Some(&scope)), ["a", "b", "own"]);
    registry.register(constant("later", json!(1))).unwrap();
    assert_eq!(names(&registry, Some(&scope)), ["a", "b", "own"]);
    assert_eq!(names(&registry, None), ["a", "b", "c", "later"]);
}

#[test]
fn b11_deny_removes_listed_and_admits_later_globals() {
    let registry = ToolRegistry::new();
    for n in ["a", "b"] {
        registry.register(constant(n, json!(n))).unwrap();
    }
    let scope = ScopeKey::root("agent");
    registry
        .scoped(&scope)
        .restrict(ToolRestriction::deny(["a"]))
        .unwrap();
    assert_eq!(names(&registry, Some(&scope)), ["b"]);
    registry.register(constant("later", json!(1))).unwrap();
    assert_eq!(names(&registry, Some(&scope)), ["b", "later"]);
}

#[test]
fn b11_restrictions_intersect_and_apply_to_descendants() {
    let registry = ToolRegistry::new();
    for n in ["a", "b", "c", "d"] {
        registry.register(constant(n, json!(n))).unwrap();
    }
    let scope = ScopeKey::root("agent");
    registry
        .scoped(&scope)
        .restrict(ToolRestriction::allow(["a", "b", "c"]))
        .unwrap();
    registry
        .scoped(&scope)
        .restrict(ToolRestriction::allow(["b", "c", "d"]))
        .unwrap();
    registry
        .scoped(&scope)
        .restrict(ToolRestriction::deny(["c"]))
        .unwrap();
    assert_eq!(names(&registry, Some(&scope)), ["b"]);
    let child = scope.child("sub");
    assert_eq!(names(&registry, Some(&child)), ["b"]);
}

#[tokio::test]
async fn b11_restricted_tool_is_unknown_to_dispatch() {
    let registry = ToolRegistry::new();
    registry.register(constant("secret", json!(1))).unwrap();
    let scope = ScopeKey::root("agent");
    registry
        .scoped(&scope)
        .restrict(ToolRestriction::deny(["secret"]))
        .unwrap();
    let r = registry
        .dispatch(ToolExecutionInput::new("c", "secret", json!({})).with_agent(Agent::new(scope)))
        .await;
    assert_eq!(r.error_code(), Some(codes::UNKNOWN_TOOL));
}

#[test]
fn b12_invalid_restrictions_fail() {
    let registry = ToolRegistry::new();
    registry.register(constant("g", json!(1))).unwrap();
    let scope = ScopeKey::root("agent");
    registry
        .scoped(&scope)
        .register(constant("local", json!(1)))
        .unwrap();
    let s = registry.scoped(&scope);
    assert!(matches!(
        s.restrict(ToolRestriction::default()),
        Err(RegistryError::InvalidRestriction(_))
    ));
    assert!(matches!(
        s.restrict(ToolRestriction::allow(Vec::<String>::new())),
        Err(RegistryError::InvalidRestriction(_))
    ));
    let unknown = s.restrict(ToolRestriction::deny(["nope"])).unwrap_err();
    assert!(
        unknown.to_string().contains("unknown tool `nope`"),
        "{unknown}"
    );
    let local = s.restrict(ToolRestriction::allow(["local"])).unwrap_err();
    assert!(
        local.to_string().contains("registered in this scope"),
        "{local}"
    );
    assert_eq!(
        s.restrict(ToolRestriction::deny(["run_code"])).unwrap_err(),
        RegistryError::Reserved
    );
    // nothing was applied by the failed attempts
    assert_eq!(names(&registry, Some(&scope)), ["g", "local"]);
}

#[test]
fn b13_disposing_undoes_exactly_that_registration() {
    let registry = ToolRegistry::new();
    let scope = ScopeKey::root("agent");
    let global = registry.register(constant("t", json!("global"))).unwrap();
    let scoped = registry
        .scoped(&scope)
        .register(constant("t", json!("scoped")))
        .unwrap();
    registry.register(constant("other", json!(1))).unwrap();
    scoped.dispose();
    assert!(
        registry.view(Some(&scope), None).get("t").is_some(),
        "global still visible"
    );
    assert_eq!(names(&registry, Some(&scope)), ["other", "t"]);
    global.dispose();
    assert_eq!(names(&registry, None), ["other"]);
}

#[test]
fn b13_stale_disposer_does_not_remove_a_replacement() {
    let registry = ToolRegistry::new();
    let first = registry.register(constant("t", json!(1))).unwrap();
    let first_clone_name = "t";
    // dispose, re-register, then a *second* dispose path must not touch the new one
    first.dispose();
    let _second = registry
        .register(constant(first_clone_name, json!(2)))
        .unwrap();
    assert!(registry.view(None, None).get("t").is_some());
}

#[test]
fn b13_disposing_a_restriction_undoes_only_it() {
    let registry = ToolRegistry::new();
    for n in ["a", "b", "c"] {
        registry.register(constant(n, json!(n))).unwrap();
    }
    let scope = ScopeKey::root("agent");
    let deny_a = registry
        .scoped(&scope)
        .restrict(ToolRestriction::deny(["a"]))
        .unwrap();
    let _deny_b = registry
        .scoped(&scope)
        .restrict(ToolRestriction::deny(["b"]))
        .unwrap();
    assert_eq!(names(&registry, Some(&scope)), ["c"]);
    deny_a.dispose();
    assert_eq!(names(&registry, Some(&scope)), ["a", "c"]);
}

#[tokio::test]
async fn b14_when_condition_decides_declarations_and_dispatch() {
    let registry = ToolRegistry::new();
    let enabled = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = enabled.clone();
    registry
        .register_with(
            constant("cond", json!("ran")),
            RegistrationOptions::when(move |_| {
                let on = flag.load(Ordering::SeqCst);
                async move { Ok(on) }
            }),
        )
        .unwrap();
    registry.register(constant("plain", json!(1))).unwrap();

    // without an admitted set, conditional tools are not executable
    assert_eq!(
        call(&registry, "cond", json!({})).await.error_code(),
        Some(codes::UNKNOWN_TOOL)
    );

    let off = registry.resolve(activation(None)).await.unwrap();
    assert_eq!(
        registry
            .view(None, Some(&off))
            .schemas()
            .iter()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>(),
        ["plain"]
    );
    let r = registry
        .dispatch(ToolExecutionInput::new("c", "cond", json!({})).with_tool_set(off))
        .await;
    assert_eq!(r.error_code(), Some(codes::UNKNOWN_TOOL));

    enabled.store(true, Ordering::SeqCst);
    let on = registry.resolve(activation(None)).await.unwrap();
    assert_eq!(registry.view(None, Some(&on)).schemas().len(), 2);
    let r = registry
        .dispatch(ToolExecutionInput::new("c", "cond", json!({})).with_tool_set(on.clone()))
        .await;
    assert_eq!(r.value().unwrap().as_str(), Some("ran"));

    // disposing the set closes admission
    on.dispose();
    let r = registry
        .dispatch(ToolExecutionInput::new("c", "cond", json!({})).with_tool_set(on))
        .await;
    assert_eq!(r.error_code(), Some(codes::UNKNOWN_TOOL));
}

#[tokio::test]
async fn b14_conditions_evaluated_once_per_step() {
    let registry = ToolRegistry::new();
    let evaluations = Arc::new(AtomicUsize::new(0));
    let count = evaluations.clone();
    registry
        .register_with(
            constant("cond", json!(1)),
            RegistrationOptions::when(move |_| {
                count.fetch_add(1, Ordering::SeqCst);
                async { Ok(true) }
            }),
        )
        .unwrap();
    let set = registry.resolve(activation(None)).await.unwrap();
    for i in 0..5 {
        let r = registry
            .dispatch(
                ToolExecutionInput::new(format!("c{i}"), "cond", json!({}))
                    .with_tool_set(set.clone()),
            )
            .await;
        assert!(!r.is_error());
    }
    let _ = registry.view(None, Some(&set)).definitions();
    assert_eq!(evaluations.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn b14_rejected_or_panicking_condition_fails_the_step() {
    let registry = ToolRegistry::new();
    registry
        .register_with(
            constant("bad", json!(1)),
            RegistrationOptions::when(|_| async { Err("no model".to_string()) }),
        )
        .unwrap();
    let err = registry.resolve(activation(None)).await.unwrap_err();
    assert_eq!(err, RegistryError::Activation("no model".into()));

    let registry = ToolRegistry::new();
    registry
        .register_with(
            constant("boom", json!(1)),
            RegistrationOptions::when(|_| -> std::future::Ready<Result<bool, String>> {
                panic!("condition exploded")
            }),
        )
        .unwrap();
    let err = registry.resolve(activation(None)).await.unwrap_err();
    assert!(err.to_string().contains("condition exploded"), "{err}");
}

#[tokio::test]
async fn b14_cancelled_resolution_publishes_nothing() {
    let registry = ToolRegistry::new();
    registry
        .register_with(
            constant("slow", json!(1)),
            RegistrationOptions::when(|_| std::future::pending::<Result<bool, String>>()),
        )
        .unwrap();
    let ctx = activation(None);
    ctx.signal.cancel();
    assert!(matches!(
        registry.resolve(ctx).await,
        Err(RegistryError::Activation(_))
    ));
}

#[tokio::test]
async fn b14_admitted_set_is_scope_exact() {
    let registry = ToolRegistry::new();
    registry
        .register_with(
            constant("cond", json!(1)),
            RegistrationOptions::when(|_| async { Ok(true) }),
        )
        .unwrap();
    let a = ScopeKey::root("a");
    let b = ScopeKey::root("b");
    let set = registry
        .resolve(activation(Some(Agent::new(a.clone()))))
        .await
        .unwrap();
    assert_eq!(registry.view(Some(&a), Some(&set)).definitions().len(), 1);
    assert!(registry.view(Some(&b), Some(&set)).definitions().is_empty());
    let r = registry
        .dispatch(
            ToolExecutionInput::new("c", "cond", json!({}))
                .with_agent(Agent::new(b))
                .with_tool_set(set),
        )
        .await;
    assert_eq!(r.error_code(), Some(codes::UNKNOWN_TOOL));
}

#[tokio::test]
async fn b15_replacement_stops_use_of_earlier_admission() {
    let registry = ToolRegistry::new();
    let first = registry
        .register_with(
            constant("cond", json!("first")),
            RegistrationOptions::when(|_| async { Ok(true) }),
        )
        .unwrap();
    let set = registry.resolve(activation(None)).await.unwrap();
    first.dispose();
    registry
        .register_with(
            constant("cond", json!("second")),
            RegistrationOptions::when(|_| async { Ok(true) }),
        )
        .unwrap();
    let r = registry
        .dispatch(ToolExecutionInput::new("c", "cond", json!({})).with_tool_set(set))
        .await;
    assert_eq!(
        r.error_code(),
        Some(codes::UNKNOWN_TOOL),
        "the replacement was never admitted"
    );
}

#[tokio::test]
async fn b15_new_restriction_stops_unstarted_calls() {
    let registry = ToolRegistry::new();
    registry
        .register_with(
            constant("cond", json!(1)),
            RegistrationOptions::when(|_| async { Ok(true) }),
        )
        .unwrap();
    let scope = ScopeKey::root("agent");
    let agent = Agent::new(scope.clone());
    let set = registry
        .resolve(activation(Some(agent.clone())))
        .await
        .unwrap();
    registry
        .scoped(&scope)
        .restrict(ToolRestriction::deny(["cond"]))
        .unwrap();
    let r = registry
        .dispatch(
            ToolExecutionInput::new("c", "cond", json!({}))
                .with_agent(agent)
                .with_tool_set(set),
        )
        .await;
    assert_eq!(r.error_code(), Some(codes::UNKNOWN_TOOL));
}

#[test]
fn b16_change_emitted_on_register_unregister_restrict() {
    let registry = ToolRegistry::new();
    let changes = Arc::new(AtomicUsize::new(0));
    let c = changes.clone();
    let listener = registry.on_change(move || {
        c.fetch_add(1, Ordering::SeqCst);
    });
    let reg = registry.register(constant("a", json!(1))).unwrap();
    assert_eq!(changes.load(Ordering::SeqCst), 1);
    let scope = ScopeKey::root("agent");
    let restriction = registry
        .scoped(&scope)
        .restrict(ToolRestriction::deny(["a"]))
        .unwrap();
    assert_eq!(changes.load(Ordering::SeqCst), 2);
    restriction.dispose();
    assert_eq!(changes.load(Ordering::SeqCst), 3);
    reg.dispose();
    assert_eq!(changes.load(Ordering::SeqCst), 4);
    // failed registrations emit nothing; a disposed listener hears nothing
    let _ = registry.register(constant("run_code", json!(1)));
    assert_eq!(changes.load(Ordering::SeqCst), 4);
    listener.dispose();
    registry.register(constant("b", json!(1))).unwrap();
    assert_eq!(changes.load(Ordering::SeqCst), 4);
}
