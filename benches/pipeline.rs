//! One call through the full pipeline (no hooks, three pass-through hooks) and a
//! 100-call batch of concurrency-safe calls.

use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use ptc::schema::{ParameterSpec, ValueSpec};
use ptc::{
    DispatchExecution, ExecuteNext, PostNext, PreNext, ToolBatchInput, ToolCallBlock,
    ToolDefinition, ToolExecution, ToolExecutionInput, ToolExecutionResult, ToolRegistry,
};
use serde_json::json;

fn noop_registry() -> ToolRegistry {
    let registry = ToolRegistry::new();
    registry
        .register(
            ToolDefinition::builder("noop")
                .parameters(ParameterSpec::new().optional("x", ValueSpec::integer()))
                .output(ValueSpec::null())
                .concurrency_safe(true)
                .execute_raw(|_, _| async { Ok(serde_json::Value::Null) }),
        )
        .unwrap();
    registry
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();

    let registry = noop_registry();
    c.bench_function("pipeline/one_call_no_hooks", |b| {
        b.to_async(&rt)
            .iter(|| registry.dispatch(ToolExecutionInput::new("c", "noop", json!({"x": 1}))))
    });

    let hooked = noop_registry();
    hooked.on_pre_execute(|_: Arc<ToolExecution>, next: PreNext| next.run());
    hooked.on_execute(|d: DispatchExecution, next: ExecuteNext| next.run(d));
    hooked.on_post_execute(
        |_: Arc<ToolExecution>, _: Arc<ToolExecutionResult>, next: PostNext| next.run(),
    );
    c.bench_function("pipeline/one_call_three_hooks", |b| {
        b.to_async(&rt)
            .iter(|| hooked.dispatch(ToolExecutionInput::new("c", "noop", json!({"x": 1}))))
    });

    let calls: Vec<ToolCallBlock> = (0..100)
        .map(|i| ToolCallBlock::new(format!("c{i}"), "noop", json!({"x": i})))
        .collect();
    c.bench_function("pipeline/batch_100_parallel", |b| {
        b.to_async(&rt)
            .iter(|| registry.execute(ToolBatchInput::new(calls.clone())))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
