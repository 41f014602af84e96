//! The `todo_write` tool: whole-list replacement, per-session ownership, and the host
//! reading the latest list from the pack's `TodoStore`.

use crate::builtin_support;

use builtin_support::Fixture;
use ptc::{Agent, ScopeKey, ToolExecutionInput, ToolRegistry};
use ptc_packs::builtin::{Todo, TodoStatus};
use ptc_packs::PackContext;
use serde_json::json;

fn todo(content: &str, status: TodoStatus) -> Todo {
    Todo {
        content: content.into(),
        status,
    }
}

#[tokio::test]
async fn todo_write_replaces_the_list_and_the_host_reads_the_latest() {
    let f = Fixture::new();
    assert_eq!(f.todos.latest(), None);
    let out = f
        .call(
            "todo_write",
            json!({"todos": [
                {"content": "Write the parser", "status": "completed"},
                {"content": "Test the parser", "status": "in_progress"},
                {"content": "Ship it", "status": "pending"},
            ]}),
        )
        .await;
    let v = out.value();
    assert_eq!(v["completed"], 1);
    assert_eq!(v["in_progress"], 1);
    assert_eq!(v["pending"], 1);
    assert_eq!(
        out.text(),
        "Todo list updated: 1 completed, 1 in progress, 1 pending.\n\
         [x] Write the parser\n[~] Test the parser\n[ ] Ship it"
    );
    let latest = f.todos.latest().unwrap();
    assert_eq!(latest.version, 1);
    assert_eq!(latest.session, None);
    assert_eq!(
        latest.todos,
        [
            todo("Write the parser", TodoStatus::Completed),
            todo("Test the parser", TodoStatus::InProgress),
            todo("Ship it", TodoStatus::Pending),
        ]
    );

    // The next call replaces the whole list.
    f.call(
        "todo_write",
        json!({"todos": [{"content": "Only this", "status": "pending"}]}),
    )
    .await
    .value();
    let latest = f.todos.latest().unwrap();
    assert_eq!(latest.version, 2);
    assert_eq!(latest.todos, [todo("Only this", TodoStatus::Pending)]);
    assert_eq!(f.todos.without_agent(), Some(latest));
}

#[tokio::test]
async fn todo_write_keeps_one_list_per_agent_session() {
    let f = Fixture::new();
    let (a, b) = (ScopeKey::root("agent-a"), ScopeKey::root("agent-b"));
    let mut updates = f.todos.subscribe();
    for (scope, content) in [(&a, "a's task"), (&b, "b's task")] {
        let input = ToolExecutionInput::new(
            "call-1",
            "todo_write",
            json!({"todos": [{"content": content, "status": "in_progress"}]}),
        )
        .with_agent(Agent::new(scope.clone()));
        assert!(!f.registry.dispatch(input).await.is_error());
    }
    let for_a = f.todos.for_scope(&a).unwrap();
    assert_eq!(for_a.session.as_deref(), Some("agent-a"));
    assert_eq!(for_a.todos, [todo("a's task", TodoStatus::InProgress)]);
    assert_eq!(
        f.todos.for_scope(&b).unwrap().todos,
        [todo("b's task", TodoStatus::InProgress)]
    );
    assert_eq!(
        f.todos.latest().unwrap().session.as_deref(),
        Some("agent-b")
    );
    assert_eq!(f.todos.without_agent(), None);
    assert!(updates.has_changed().unwrap());
    assert_eq!(updates.borrow_and_update().as_ref().unwrap().version, 2);
}

#[tokio::test]
async fn todo_write_rejects_bad_lists_and_keeps_the_previous_one() {
    let f = Fixture::new();
    f.call(
        "todo_write",
        json!({"todos": [{"content": "keep", "status": "pending"}]}),
    )
    .await
    .value();
    for args in [
        json!({}),
        json!({"todos": "do stuff"}),
        json!({"todos": [{"content": "x", "status": "done"}]}),
        json!({"todos": [{"status": "pending"}]}),
        json!({"todos": [{"content": "  ", "status": "pending"}]}),
    ] {
        let out = f.call("todo_write", args.clone()).await;
        assert_eq!(
            out.code(),
            Some(ptc::codes::INVALID_ARGS),
            "{args}: {}",
            out.error()
        );
    }
    assert_eq!(
        f.todos.latest().unwrap().todos,
        [todo("keep", TodoStatus::Pending)]
    );
    // An empty list is a valid list: everything is done and cleared.
    f.call("todo_write", json!({"todos": []})).await.value();
    assert_eq!(f.todos.latest().unwrap().todos, []);
}

#[tokio::test]
async fn todo_write_refuses_an_unknown_key_inside_an_item_naming_its_path() {
    let f = Fixture::new();
    let out = f
        .call(
            "todo_write",
            json!({"todos": [
                {"content": "a", "status": "pending"},
                {"content": "b", "status": "pending", "statsu": "x", "prio": 1}
            ]}),
        )
        .await;
    assert_eq!(out.code(), Some(ptc::codes::INVALID_ARGS));
    assert_eq!(
        out.error(),
        "Invalid arguments for tool todo_write: /todos/1/statsu: unknown key (todos[] items \
         have content, status); /todos/1/prio: unknown key; the arguments are: todos"
    );
    assert!(f.todos.latest().is_none(), "nothing was written");
}

#[tokio::test]
async fn todo_write_registered_by_name_writes_to_the_store_register_returns() {
    let root = tempfile::tempdir().unwrap();
    let registry = ToolRegistry::new();
    let store =
        ptc_packs::builtin::register(&registry, &PackContext::new(root.path().to_path_buf()))
            .unwrap();
    let input = ToolExecutionInput::new(
        "call-1",
        "todo_write",
        json!({"todos": [{"content": "from the pack", "status": "pending"}]}),
    );
    assert!(!registry.dispatch(input).await.is_error());
    assert_eq!(
        store.latest().unwrap().todos,
        [todo("from the pack", TodoStatus::Pending)]
    );
}
