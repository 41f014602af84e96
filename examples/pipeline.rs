//! Register two tools, a pre-execute policy and a guard, run one batch, print the session log.
//!
//! Run with `cargo run --example pipeline`.

use std::sync::Arc;

use ptc::schema::{ParameterSpec, ValueSpec};
use ptc::session::MemoryLog;
use ptc::{
    Agent, LogStep, PreNext, PreToolDecision, ScopeKey, ToolBatchInput, ToolCallBlock,
    ToolDefinition, ToolError, ToolExecution, ToolRegistry,
};

#[derive(serde::Deserialize)]
struct Add {
    a: f64,
    b: f64,
}

#[derive(serde::Deserialize)]
struct Write {
    path: String,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = ToolRegistry::new();

    registry.register(
        ToolDefinition::builder("add")
            .description("Add two numbers.")
            .parameters(
                ParameterSpec::new()
                    .required("a", ValueSpec::number())
                    .required("b", ValueSpec::number()),
            )
            .output(ValueSpec::number())
            .concurrency_safe(true)
            .execute(|args: Add, _ctx| async move { Ok::<_, ToolError>(args.a + args.b) }),
    )?;
    registry.register(
        ToolDefinition::builder("write_note")
            .description("Pretend to write a note to a file.")
            .parameters(ParameterSpec::new().required("path", ValueSpec::string()))
            .output(ValueSpec::string())
            .execute(|args: Write, _ctx| async move {
                Ok::<_, ToolError>(format!("wrote {}", args.path))
            }),
    )?;

    // A pre-execute policy: writes outside notes/ are denied.
    registry.on_pre_execute(|exec: Arc<ToolExecution>, next: PreNext| async move {
        let path = exec.arguments()["path"].as_str().unwrap_or("");
        if exec.name() == "write_note" && !path.starts_with("notes/") {
            return PreToolDecision::deny(format!(
                "write_note may only write under notes/, not {path}"
            ));
        }
        next.run().await
    });
    // A guard: a final, monotonic denial no listener can undo.
    registry.guard(|exec: &ToolExecution| {
        (exec.arguments()["path"].as_str() == Some("notes/secret.txt"))
            .then(|| "notes/secret.txt is off limits".to_string())
    });

    let log = Arc::new(MemoryLog::new());
    let agent = Agent::new(ScopeKey::root("example")).with_session(log.clone());
    let mut batch = ToolBatchInput::new(vec![
        ToolCallBlock::new("call-1", "add", r#"{"a": 2, "b": 40}"#),
        ToolCallBlock::new("call-2", "write_note", r#"{"path": "notes/today.md"}"#),
        ToolCallBlock::new("call-3", "write_note", r#"{"path": "/etc/passwd"}"#),
        ToolCallBlock::new("call-4", "write_note", r#"{"path": "notes/secret.txt"}"#),
        ToolCallBlock::new("call-5", "add", r#"{"a": "two"}"#),
    ]);
    batch.agent = Some(agent);
    batch.log = Some(LogStep { turn: 1, step: 1 });

    let result = registry.execute(batch).await?;
    println!("results:");
    for r in &result.results {
        let text = ptc::content_text(&r.result.content);
        println!("  {} -> {}", r.call_id, text);
    }
    println!("session log:");
    for event in log.events() {
        println!("  {}", serde_json::to_string(&event)?);
    }
    Ok(())
}
