//! Quick timing of whole runs (criterion's `benches/engine.rs` is the reference).
//!
//! `cargo run --release -p ptc-engine --example profile [adds | calls | program N SOURCE]`:
//! `calls` runs only the 1,000 sequential sub-calls (for `valgrind --tool=callgrind`), `program`
//! runs SOURCE N times in place.

use std::{sync::Arc, time::Instant};

use ptc_engine::{
    strip_types, Engine, Host, HostCall, Limits, Placement, Program, QuickJsEngine, RunFailure,
};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

struct Ready;
impl Host for Ready {
    fn call_tool(&self, name: &str, args: Value) -> Result<HostCall, RunFailure> {
        if name == "add" {
            let sum = args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0);
            return Ok(Box::pin(std::future::ready(Ok(json!(sum).into()))));
        }
        Ok(Box::pin(std::future::ready(Ok(args.into()))))
    }
}

async fn time(engine: &QuickJsEngine, label: &str, n: u32, ts: &str) -> Option<Value> {
    let mut samples = Vec::new();
    let mut value = None;
    for _ in 0..n {
        let t = Instant::now();
        let program = Program {
            source: strip_types(ts).unwrap(),
            tool_names: vec!["echo".into(), "add".into()],
            result_shapes: Default::default(),
            filename: "run_code.ts".into(),
        };
        let report = engine
            .run(
                program,
                Arc::new(Ready),
                Limits::default(),
                CancellationToken::new(),
            )
            .await;
        value = report.outcome.unwrap();
        samples.push(t.elapsed());
    }
    samples.sort();
    println!("{label}: median {:?}", samples[samples.len() / 2]);
    value
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let [_, mode, n, source] = &args[..] {
        if mode == "program" {
            let engine = QuickJsEngine::with_placement(Placement::InPlace);
            let value = time(&engine, "in-place program", n.parse().unwrap(), source).await;
            println!("{}", value.unwrap_or(Value::Null));
            return;
        }
    }
    if std::env::args().nth(1).as_deref() == Some("calls") {
        let engine = QuickJsEngine::with_placement(Placement::InPlace);
        time(&engine, "in-place 1000 adds", 10, "let s = 0;\nfor (let i = 0; i < 1000; i++) s = await tools.add({ a: i, b: 1 });\nreturn s").await;
        return;
    }
    if std::env::args().nth(1).as_deref() == Some("adds") {
        let engine = QuickJsEngine::new();
        time(&engine, "pool 1000 stringify+parse", 30, "let s = 0;\nfor (let i = 0; i < 1000; i++) s = JSON.parse(JSON.stringify({ a: i, b: 1 })).a;\nreturn s").await;
        time(&engine, "pool 1000 local awaits", 30, "let s = 0;\nfor (let i = 0; i < 1000; i++) s = await Promise.resolve(i + 1);\nreturn s").await;
        time(&engine, "pool 1000 non-JSON rejections", 30, "let s = 0;\nfor (let i = 0; i < 1000; i++) try { await tools.add({ a: i, b: () => 1 }) } catch { s++ }\nreturn s").await;
        time(&engine, "pool 1000 adds", 100, "let s = 0;\nfor (let i = 0; i < 1000; i++) s = await tools.add({ a: i, b: 1 });\nreturn s").await;
        return;
    }
    for (name, placement) in [
        ("pool", Placement::BlockingPool),
        ("in-place", Placement::InPlace),
    ] {
        let engine = QuickJsEngine::with_placement(placement);
        time(
            &engine,
            &format!("{name} trivial"),
            500,
            "return await tools.echo({text:\"hi\"})",
        )
        .await;
        time(&engine, &format!("{name} empty"), 500, "return 1").await;
        time(&engine, &format!("{name} 1000 adds"), 30, "let s = 0;\nfor (let i = 0; i < 1000; i++) s = await tools.add({ a: i, b: 1 });\nreturn s").await;
        time(&engine, &format!("{name} 1000 local awaits"), 30, "let s = 0;\nfor (let i = 0; i < 1000; i++) s = await Promise.resolve(i + 1);\nreturn s").await;
    }
}
