//! Engine benchmarks: a trivial run end to end, the host-call round trip, a fan-out, and locale
//! formatting (what the first `toLocaleString` of a run costs over a run that formats nothing,
//! and what each further format costs).
//!
//! `CARGO_TARGET_DIR=/work/target-engine cargo bench -p ptc-engine --bench engine`

use std::{sync::Arc, time::Duration};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ptc_engine::{
    strip_types, Engine, Host, HostCall, Limits, Placement, Program, QuickJsEngine, RunFailure,
};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

/// `echo` returns its arguments, `add` sums `a` and `b` (both ready at once), `sleep` waits 10 ms.
struct BenchHost;

impl Host for BenchHost {
    fn call_tool(&self, name: &str, args: Value) -> Result<HostCall, RunFailure> {
        Ok(match name {
            "add" => {
                let sum = args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0);
                Box::pin(std::future::ready(Ok(json!(sum).into())))
            }
            "sleep" => Box::pin(async move {
                tokio::time::sleep(Duration::from_millis(10)).await;
                Ok(args.into())
            }),
            _ => Box::pin(std::future::ready(Ok(args.into()))),
        })
    }
}

fn program(ts: &str) -> Program {
    Program {
        source: strip_types(ts).unwrap(),
        tool_names: vec!["echo".into(), "add".into(), "sleep".into()],
        result_shapes: Default::default(),
        filename: "run_code.ts".into(),
    }
}

async fn run(engine: &QuickJsEngine, ts: &str) -> Option<Value> {
    engine
        .run(
            program(ts),
            Arc::new(BenchHost),
            Limits::default(),
            CancellationToken::new(),
        )
        .await
        .outcome
        .expect("the bench program runs")
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

const PLACEMENTS: [(&str, Placement); 2] = [
    ("blocking-pool", Placement::BlockingPool),
    ("in-place", Placement::InPlace),
];

fn trivial(c: &mut Criterion) {
    let rt = runtime();
    let mut group = c.benchmark_group("trivial_run");
    for (name, placement) in PLACEMENTS {
        let engine = QuickJsEngine::with_placement(placement);
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.to_async(&rt)
                .iter(|| run(&engine, "return await tools.echo({text:\"hi\"})"))
        });
    }
    group.finish();
}

fn host_calls(c: &mut Criterion) {
    let rt = runtime();
    let mut group = c.benchmark_group("sequential_host_calls");
    group.throughput(Throughput::Elements(1000));
    for (name, placement) in PLACEMENTS {
        let engine = QuickJsEngine::with_placement(placement);
        group.bench_function(BenchmarkId::new("1000_awaited_adds", name), |b| {
            b.to_async(&rt).iter(|| {
                run(
                    &engine,
                    "let s = 0;\nfor (let i = 0; i < 1000; i++) s = await tools.add({ a: i, b: 1 });\nreturn s",
                )
            })
        });
    }
    // The same loop without host calls, to separate the call cost from the loop's own.
    let engine = QuickJsEngine::new();
    group.bench_function("1000_awaited_local_promises", |b| {
        b.to_async(&rt).iter(|| {
            run(
                &engine,
                "let s = 0;\nfor (let i = 0; i < 1000; i++) s = await Promise.resolve(i + 1);\nreturn s",
            )
        })
    });
    group.finish();
}

fn fan_out(c: &mut Criterion) {
    let rt = runtime();
    let mut group = c.benchmark_group("fan_out");
    group.sample_size(20);
    let engine = QuickJsEngine::new();
    group.bench_function("promise_all_100_sleeps_of_10ms", |b| {
        b.to_async(&rt).iter(|| {
            run(
                &engine,
                "return (await Promise.all(Array.from({ length: 100 }, (_, i) => tools.sleep({ i })))).length",
            )
        })
    });
    group.finish();
}

fn strip(c: &mut Criterion) {
    c.bench_function("strip_types_small", |b| {
        b.iter(|| strip_types("const r: { text: string } = await tools.echo({ text: 'hi' });\nreturn r.text as string;").unwrap())
    });
}

fn locale(c: &mut Criterion) {
    let rt = runtime();
    let mut group = c.benchmark_group("locale");
    // In place: the run's thread keeps its built formatters from run to run, as a server's do.
    let engine = QuickJsEngine::with_placement(Placement::InPlace);
    let cases = [
        ("run_formatting_nothing", "return 1234.5"),
        ("run_with_one_toLocaleString", "return (1234.5).toLocaleString('de-DE')"),
        (
            "run_with_1000_number_formats",
            "let s = '';\nfor (let i = 0; i < 1000; i++) s = (i * 1.5).toLocaleString('de-DE', { maximumFractionDigits: 1 });\nreturn s",
        ),
        (
            "run_with_1000_formats_by_one_NumberFormat",
            "const nf = new Intl.NumberFormat('de-DE', { maximumFractionDigits: 1 });\nlet s = '';\nfor (let i = 0; i < 1000; i++) s = nf.format(i * 1.5);\nreturn s",
        ),
        (
            "run_with_1000_date_formats",
            "let s = '';\nfor (let i = 0; i < 1000; i++) s = new Date(i * 86400000).toLocaleDateString('en-US', { dateStyle: 'medium' });\nreturn s",
        ),
    ];
    for (name, ts) in cases {
        group.bench_function(name, |b| b.to_async(&rt).iter(|| run(&engine, ts)));
    }
    group.finish();
}

criterion_group!(benches, trivial, host_calls, fan_out, strip, locale);
criterion_main!(benches);
