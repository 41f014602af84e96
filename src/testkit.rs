//! The `testkit` pack, for trying code mode and for tests and benchmarks:
//!
//! | tool | arguments | value | scheduling |
//! |---|---|---|---|
//! | `echo` | `{text: string}` | `text` | concurrency-safe |
//! | `add` | `{a: number, b: number}` | `a + b` | concurrency-safe |
//! | `sleep` | `{ms: integer}` | `{slept: ms}` after `ms`, to within a fraction of a millisecond (cancellable) | concurrency-safe |
//! | `fail` | `{message: string}` | always fails with `message` | exclusive |
//! | `counter` | `{}` | 1 on the first call in the process, then 2, 3, … | exclusive |

mod precise_sleep;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use ptc_schema::{ParameterSpec, ValueSpec};
use serde_json::{json, Value};

use crate::definition::ToolDefinition;
use crate::error::{RegistryError, ToolError};
use crate::registry::ToolRegistry;

static COUNTER: AtomicU64 = AtomicU64::new(0);

#[derive(serde::Deserialize)]
struct Echo {
    text: String,
}

#[derive(serde::Deserialize)]
struct Add {
    a: f64,
    b: f64,
}

#[derive(serde::Deserialize)]
struct Sleep {
    ms: u64,
}

#[derive(serde::Deserialize)]
struct Fail {
    message: String,
}

/// The five testkit tools.
pub fn tools() -> Vec<ToolDefinition> {
    let defs = [
        ToolDefinition::builder("echo")
            .description("Return the given text unchanged.")
            .parameters(ParameterSpec::new().required("text", ValueSpec::string().describe("Text to return.")))
            .output(ValueSpec::string())
            .concurrency_safe(true)
            .execute(|a: Echo, _| async move { Ok::<_, ToolError>(a.text) }),
        ToolDefinition::builder("add")
            .description("Add two numbers.")
            .parameters(ParameterSpec::new().required("a", ValueSpec::number()).required("b", ValueSpec::number()))
            .output(ValueSpec::number())
            .concurrency_safe(true)
            .execute(|a: Add, _| async move { Ok::<_, ToolError>(a.a + a.b) }),
        ToolDefinition::builder("sleep")
            .description("Wait for the given number of milliseconds.")
            .parameters(ParameterSpec::new().required("ms", ValueSpec::integer().describe("Milliseconds to wait.")))
            .output(ValueSpec::object(false).required_property("slept", ValueSpec::integer()))
            .concurrency_safe(true)
            .execute(|a: Sleep, ctx| async move {
                tokio::select! {
                    _ = precise_sleep::sleep(Duration::from_millis(a.ms)) => Ok(json!({"slept": a.ms})),
                    _ = ctx.signal().cancelled() => Err(ToolError::new("sleep was cancelled")),
                }
            }),
        ToolDefinition::builder("fail")
            .description("Always fail with the given message.")
            .parameters(ParameterSpec::new().required("message", ValueSpec::string()))
            .output(ValueSpec::null())
            .execute(|a: Fail, _| async move { Err::<Value, _>(ToolError::new(a.message)) }),
        ToolDefinition::builder("counter")
            .description("Increment a process-wide counter and return its new value.")
            .output(ValueSpec::integer())
            .execute_raw(|_, _| async { Ok(json!(COUNTER.fetch_add(1, Ordering::SeqCst) + 1)) }),
    ];
    defs.into_iter()
        .map(|b| b.build().expect("testkit definitions are valid"))
        .collect()
}

/// Register the testkit tools globally.
pub fn register(registry: &ToolRegistry) -> Result<(), RegistryError> {
    for def in tools() {
        registry.register(def)?;
    }
    Ok(())
}
