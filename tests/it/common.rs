//! Shared fixtures for the pipeline and registry tests.
#![allow(dead_code)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use ptc::schema::{ParameterSpec, ValueSpec};
use ptc::{
    ToolBuilder, ToolDefinition, ToolError, ToolExecutionInput, ToolExecutionResult, ToolRegistry,
};
use serde_json::{json, Value};

/// `echo {text} -> string`, concurrency-safe.
pub fn echo() -> ToolBuilder {
    #[derive(serde::Deserialize)]
    struct Args {
        text: String,
    }
    ToolDefinition::builder("echo")
        .description("Return the text.")
        .parameters(ParameterSpec::new().required("text", ValueSpec::string()))
        .output(ValueSpec::string())
        .concurrency_safe(true)
        .execute(|a: Args, _| async move { Ok::<_, ToolError>(a.text) })
}

/// A tool named `name` returning `value` (schema: any JSON).
pub fn constant(name: &str, value: Value) -> ToolBuilder {
    ToolDefinition::builder(name)
        .output(ValueSpec::json())
        .execute_raw(move |_, _| {
            let v = value.clone();
            async move { Ok(v) }
        })
}

/// A tool that fails with `message`.
pub fn failing(name: &str, message: &str) -> ToolBuilder {
    let message = message.to_string();
    ToolDefinition::builder(name)
        .output(ValueSpec::null())
        .execute_raw(move |_, _| {
            let m = message.clone();
            async move { Err(ToolError::new(m)) }
        })
}

/// Tracks how many bodies run at once and the maximum seen.
#[derive(Default)]
pub struct Concurrency {
    pub now: AtomicUsize,
    pub max: AtomicUsize,
    pub started: AtomicUsize,
    pub finished: AtomicUsize,
}

impl Concurrency {
    pub fn enter(&self) {
        self.started.fetch_add(1, Ordering::SeqCst);
        let now = self.now.fetch_add(1, Ordering::SeqCst) + 1;
        self.max.fetch_max(now, Ordering::SeqCst);
    }
    pub fn exit(&self) {
        self.now.fetch_sub(1, Ordering::SeqCst);
        self.finished.fetch_add(1, Ordering::SeqCst);
    }
    pub fn max(&self) -> usize {
        self.max.load(Ordering::SeqCst)
    }
}

/// A tool sleeping `ms` (cancellable), recording concurrency; safe when `safe`.
pub fn sleeper(name: &str, safe: bool, tracker: Arc<Concurrency>) -> ToolBuilder {
    ToolDefinition::builder(name)
        .parameters(ParameterSpec::new().required("ms", ValueSpec::integer()))
        .output(ValueSpec::integer())
        .concurrency_safe(safe)
        .execute_raw(move |args, ctx| {
            let t = tracker.clone();
            async move {
                let ms = args["ms"].as_u64().unwrap_or(0);
                t.enter();
                let r = tokio::select! {
                    _ = tokio::time::sleep(Duration::from_millis(ms)) => Ok(json!(ms)),
                    _ = ctx.signal().cancelled() => Err(ToolError::new("cancelled")),
                };
                t.exit();
                r
            }
        })
}

/// Dispatch one root call.
pub async fn call(registry: &ToolRegistry, name: &str, args: Value) -> ToolExecutionResult {
    registry
        .dispatch(ToolExecutionInput::new("call-1", name, args))
        .await
}

/// The first text block.
pub fn text(result: &ToolExecutionResult) -> &str {
    result
        .content
        .first()
        .and_then(|b| b.as_text())
        .unwrap_or("")
}
