//! `ptc replay`: a session log rendered as a tree of root calls and their sub-calls.

use ptc_testing::code as code_support;

use code_support::*;
use ptc::session::{build_tree, render_tree};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replay_tree_nests_sub_calls_under_their_run() {
    let registry = code_registry();
    let r = run(&registry, "await tools.echo({text: 'a'}); try { await tools.fail({message: 'no'}) } catch {} return 1").await;
    let tree = build_tree(&r.events);
    assert_eq!(tree.len(), 1);
    assert_eq!(tree[0].name, "run_code");
    let names: Vec<&str> = tree[0].children.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["echo", "fail"]);
    assert!(tree[0].children.iter().all(|c| c.settled.is_some()));
    let text = render_tree(&tree, Some(&registry));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(
        lines[0].starts_with("call-1 run_code") && lines[0].ends_with("ok: 1"),
        "{text}"
    );
    assert!(
        lines[1].starts_with("├─ call-1:ptc:1 echo") && lines[1].ends_with("ok: a"),
        "{text}"
    );
    assert!(
        lines[2].starts_with("└─ call-1:ptc:2 fail") && lines[2].contains("error: Error: no"),
        "{text}"
    );
}

#[test]
fn replay_marks_calls_that_never_settled() {
    let events: Vec<ptc::session::SessionEvent> = vec![serde_json::from_value(serde_json::json!({
        "type": "tool/call", "atMs": 1, "turn": 0, "step": 0, "callId": "x", "name": "echo", "arguments": {}
    }))
    .unwrap()];
    let text = render_tree(&build_tree(&events), None);
    assert_eq!(text, "x echo  (never settled)\n");
}
