//! Code mode end to end, in process: a trivial program, 1,000 sequential sub-calls (of a
//! tool returning a number, and of one returning a typed object),
//! and a 100-call fan-out of 10 ms sleeps under `Promise.all`.

use criterion::{criterion_group, criterion_main, Criterion};
use ptc::{CodeConfig, CodeExecutor, ToolBatchInput, ToolCallBlock, ToolRegistry};
use serde_json::json;

fn program(source: &str) -> ToolBatchInput {
    ToolBatchInput::new(vec![ToolCallBlock::new(
        "bench",
        "run_code",
        json!({"code": source, "description": "benchmark program for criterion"}),
    )])
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let registry = ToolRegistry::new();
    ptc::testkit::register(&registry).unwrap();
    CodeExecutor::new(CodeConfig::quickjs()).install(&registry);

    let mut group = c.benchmark_group("code_mode");
    group.sample_size(30);
    for (name, source) in [
        ("trivial", include_str!("programs/trivial.js")),
        (
            "sequential_add_1000",
            include_str!("programs/sequential_add.js"),
        ),
        // A tool whose result has a type (`{ slept }`): each result is read through it.
        (
            "sequential_typed_1000",
            include_str!("programs/sequential_typed.js"),
        ),
        (
            "fanout_sleep_100x10ms",
            include_str!("programs/fanout_sleep.js"),
        ),
    ] {
        group.bench_function(name, |b| {
            b.to_async(&rt).iter(|| async {
                let batch = registry.execute(program(source)).await.unwrap();
                assert!(
                    !batch.results[0].result.is_error(),
                    "{:?}",
                    batch.results[0].result.content
                );
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
