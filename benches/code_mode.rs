//! Code mode end to end, in process: a trivial program, 1,000 sequential sub-calls (of a
//! tool returning a number, and of one returning a typed object), the same object from two
//! tools that differ only in declaring its type (what typed result access costs a sub-call),
//! a 100-call fan-out of 10 ms sleeps under `Promise.all`, and a trivial program and 1,000
//! plain sub-calls of a journaled run (`ptc::journal`, in memory: what recording costs
//! before any store).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use ptc::journal::{Journaling, MemoryJournal};
use ptc::{CodeConfig, CodeExecutor, ToolBatchInput, ToolCallBlock, ToolDefinition, ToolRegistry};
use ptc_schema::ValueSpec;
use serde_json::json;

fn program(id: &str, source: &str) -> ToolBatchInput {
    ToolBatchInput::new(vec![ToolCallBlock::new(
        id,
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
    for (name, typed) in [("echo_typed", true), ("echo_plain", false)] {
        let tool = ToolDefinition::builder(name)
            .description("Return { slept: 0 }.")
            .concurrency_safe(true)
            .execute_raw(|_, _| async { Ok(json!({"slept": 0})) });
        let tool = match typed {
            true => tool
                .output(ValueSpec::object(false).required_property("slept", ValueSpec::integer())),
            false => tool.output_schema(json!({})),
        };
        registry.register(tool.build().unwrap()).unwrap();
    }
    CodeExecutor::new(CodeConfig::quickjs()).install(&registry);
    let journaled = ToolRegistry::new();
    for def in registry.view(None, None).definitions() {
        journaled.register(Arc::unwrap_or_clone(def)).unwrap();
    }
    let mut config = CodeConfig::quickjs();
    config.journaling = Some(Journaling::new(MemoryJournal::new(), true));
    CodeExecutor::new(config).install(&journaled);
    // Each journaled run is a new one: its own id, its own journal.
    let runs = AtomicU64::new(0);

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
        // The same body and result, read through its declared type or not.
        ("echo_typed_1000", ECHO_TYPED),
        ("echo_plain_1000", ECHO_PLAIN),
        (
            "fanout_sleep_100x10ms",
            include_str!("programs/fanout_sleep.js"),
        ),
        ("journaled_trivial", include_str!("programs/trivial.js")),
        ("journaled_echo_plain_1000", ECHO_PLAIN),
    ] {
        let (registry, journal) = match name.strip_prefix("journaled_") {
            Some(_) => (&journaled, true),
            None => (&registry, false),
        };
        group.bench_function(name, |b| {
            b.to_async(&rt).iter(|| async {
                let id = match journal {
                    true => format!("run-{}", runs.fetch_add(1, Ordering::Relaxed)),
                    false => "bench".to_string(),
                };
                let batch = registry.execute(program(&id, source)).await.unwrap();
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

const ECHO_TYPED: &str =
    "let n = 0\nfor (let i = 0; i < 1000; i++) n += (await tools.echo_typed({})).slept\nreturn n";
const ECHO_PLAIN: &str =
    "let n = 0\nfor (let i = 0; i < 1000; i++) n += (await tools.echo_plain({})).slept\nreturn n";

criterion_group!(benches, bench);
criterion_main!(benches);
