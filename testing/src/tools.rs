//! Tools and trackers the tests register: echo, constants, failures, sleepers that record
//! how many bodies run at once, and gates that say when their body started.
#![allow(dead_code)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ptc::schema::{ParameterSpec, ValueSpec};
use ptc::{
    ToolBuilder, ToolDefinition, ToolError, ToolExecutionInput, ToolExecutionResult, ToolRegistry,
};
use serde_json::{json, Value};
use tokio::sync::Notify;

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

/// `name {} -> value` (any JSON), concurrency-safe.
pub fn constant(name: &str, value: Value) -> ToolBuilder {
    ToolDefinition::builder(name)
        .output(ValueSpec::json())
        .concurrency_safe(true)
        .execute_raw(move |_, _| {
            let v = value.clone();
            async move { Ok(v) }
        })
}

/// `name {}`: fails with `message`.
pub fn failing(name: &str, message: &str) -> ToolBuilder {
    let message = message.to_string();
    ToolDefinition::builder(name)
        .output(ValueSpec::null())
        .execute_raw(move |_, _| {
            let m = message.clone();
            async move { Err(ToolError::new(m)) }
        })
}

/// `name {} -> n`: counts its own invocations in `hits` (exclusive unless `safe`).
pub fn counting(name: &str, safe: bool, hits: Arc<AtomicUsize>) -> ToolBuilder {
    ToolDefinition::builder(name)
        .output(ValueSpec::integer())
        .concurrency_safe(safe)
        .execute_raw(move |_, _| {
            let n = hits.fetch_add(1, Ordering::SeqCst) + 1;
            async move { Ok(json!(n)) }
        })
}

/// Tracks how many bodies run at once, the maximum seen, how many started and finished, and
/// the order labelled bodies finish in.
#[derive(Default)]
pub struct Concurrency {
    pub now: AtomicUsize,
    pub max: AtomicUsize,
    pub started: AtomicUsize,
    pub finished: AtomicUsize,
    pub finished_order: Mutex<Vec<String>>,
    /// Set when an exclusive body saw another body running or starting.
    pub exclusive_violations: AtomicUsize,
}

impl Concurrency {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// A body starts; how many run now, itself included.
    pub fn enter(&self) -> usize {
        self.started.fetch_add(1, Ordering::SeqCst);
        let now = self.now.fetch_add(1, Ordering::SeqCst) + 1;
        self.max.fetch_max(now, Ordering::SeqCst);
        now
    }

    /// A body ends.
    pub fn exit(&self) {
        self.now.fetch_sub(1, Ordering::SeqCst);
        self.finished.fetch_add(1, Ordering::SeqCst);
    }

    pub fn max(&self) -> usize {
        self.max.load(Ordering::SeqCst)
    }

    pub fn started(&self) -> usize {
        self.started.load(Ordering::SeqCst)
    }

    pub fn finished_order(&self) -> Vec<String> {
        self.finished_order.lock().unwrap().clone()
    }
}

/// `name {ms, label?}`: sleeps `ms` (cancellable), recording concurrency in `tracker`, then
/// returns `label` when given, else `ms`; concurrency-safe when `safe`. An exclusive sleeper
/// records a violation when any other tracked body runs while it does.
pub fn sleeper(name: &str, safe: bool, tracker: Arc<Concurrency>) -> ToolBuilder {
    ToolDefinition::builder(name)
        .parameters(
            ParameterSpec::new()
                .required("ms", ValueSpec::integer())
                .optional("label", ValueSpec::string()),
        )
        .output(ValueSpec::json())
        .concurrency_safe(safe)
        .execute_raw(move |args, ctx| {
            let t = tracker.clone();
            async move {
                let ms = args["ms"].as_u64().unwrap_or(0);
                let label = args["label"].as_str().map(str::to_string);
                let started_before = t.started();
                let now = t.enter();
                if !safe && now != 1 {
                    t.exclusive_violations.fetch_add(1, Ordering::SeqCst);
                }
                let r = tokio::select! {
                    _ = tokio::time::sleep(Duration::from_millis(ms)) => {
                        Ok(label.clone().map_or(json!(ms), |l| json!(l)))
                    }
                    _ = ctx.signal().cancelled() => Err(ToolError::new("cancelled")),
                };
                if !safe && t.started() != started_before + 1 {
                    t.exclusive_violations.fetch_add(1, Ordering::SeqCst);
                }
                if let Some(label) = label {
                    t.finished_order.lock().unwrap().push(label);
                }
                t.exit();
                r
            }
        })
}

/// Register `par`, a concurrency-safe [`sleeper`], and `exclusive`, an exclusive one, both
/// tracked by `tracker`.
pub fn register_sleepers(registry: &ToolRegistry, exclusive: &str, tracker: &Arc<Concurrency>) {
    registry
        .register(sleeper("par", true, tracker.clone()))
        .unwrap();
    registry
        .register(sleeper(exclusive, false, tracker.clone()))
        .unwrap();
}

/// Bodies that said they started: a test waits for them, then acts (cancels, drops), instead
/// of sleeping and hoping the work has begun.
#[derive(Default)]
pub struct Started {
    count: AtomicUsize,
    changed: Notify,
}

impl Started {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// One more body started.
    pub fn signal(&self) {
        self.count.fetch_add(1, Ordering::SeqCst);
        self.changed.notify_waiters();
    }

    /// How many started so far.
    pub fn count(&self) -> usize {
        self.count.load(Ordering::SeqCst)
    }

    /// Wait until at least `n` started.
    pub async fn wait(&self, n: usize) {
        loop {
            let changed = self.changed.notified();
            if self.count() >= n {
                return;
            }
            changed.await;
        }
    }
}

/// `name {}`: says it started (`started`), then waits for its cancellation and fails;
/// concurrency-safe when `safe`.
pub fn gate(name: &str, safe: bool, started: Arc<Started>) -> ToolBuilder {
    ToolDefinition::builder(name)
        .output(ValueSpec::null())
        .concurrency_safe(safe)
        .execute_raw(move |_, ctx| {
            let started = started.clone();
            async move {
                started.signal();
                ctx.signal().cancelled().await;
                Err(ToolError::new("cancelled"))
            }
        })
}

/// Dispatch one root call `call-1`.
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
