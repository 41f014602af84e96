//! A small test host and helpers shared by the engine tests, and [`engine_test!`], which runs a
//! test once per backend compiled in.
#![allow(dead_code, unused_macros)]

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use ptc_engine::{
    Engine, FailureKind, Host, HostCall, Limits, Program, Reply, RunFailure, RunReport,
};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

/// Defines `<name>::quickjs` and `<name>::deno` tests (each where its feature is on) that run the
/// async `body` with [`engine()`] returning that backend.
macro_rules! engine_test {
    ($(#[$meta:meta])* async fn $name:ident() $body:block) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            #[cfg(feature = "quickjs")]
            $(#[$meta])*
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn quickjs() {
                common::with_backend(common::Backend::QuickJs, async move $body).await
            }

            #[cfg(any(feature = "v8", feature = "deno-quickjs"))]
            $(#[$meta])*
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn deno() {
                common::with_backend(common::Backend::Deno, async move $body).await
            }
        }
    };
}

/// The backends a test can run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    QuickJs,
    Deno,
}

tokio::task_local! {
    static BACKEND: Backend;
}

/// Run `test` with [`engine()`] returning `backend`'s engine.
pub async fn with_backend(backend: Backend, test: impl std::future::Future<Output = ()>) {
    BACKEND.scope(backend, test).await
}

/// The backend of the running [`engine_test!`].
pub fn backend() -> Backend {
    BACKEND
        .try_with(|b| *b)
        .expect("engine() is used inside an engine_test!")
}

/// The engine of the running [`engine_test!`].
pub fn engine() -> Arc<dyn Engine> {
    match backend() {
        #[cfg(feature = "quickjs")]
        Backend::QuickJs => Arc::new(ptc_engine::QuickJsEngine::new()),
        #[cfg(any(feature = "v8", feature = "deno-quickjs"))]
        Backend::Deno => Arc::new(ptc_engine::DenoEngine::new()),
        #[allow(unreachable_patterns)]
        other => panic!("the {other:?} backend is not compiled in"),
    }
}

/// Tools: `echo` (returns its args), `add` ({a,b} → a+b), `sleep` ({ms} → ms after sleeping),
/// `fail` (rejects with "it failed"), `never` (never settles), `limited` (a CallLimit failure),
/// `deep` ({depth} → a nested array of that depth); any other name echoes `{tool, args}`.
#[derive(Default)]
pub struct TestHost {
    pub calls: Mutex<Vec<(String, Value)>>,
    called: tokio::sync::Notify,
}

impl TestHost {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    pub fn calls(&self) -> Vec<(String, Value)> {
        self.calls.lock().unwrap().clone()
    }

    /// Wait until the program has made at least `n` calls (it is running: readiness, not a
    /// sleep).
    pub async fn wait_for_calls(&self, n: usize) {
        loop {
            let called = self.called.notified();
            if self.calls.lock().unwrap().len() >= n {
                return;
            }
            called.await;
        }
    }
}

impl Host for TestHost {
    fn call_tool(&self, name: &str, args: Value) -> Result<HostCall, RunFailure> {
        // Deep values clone and drop recursively: record a marker instead.
        let recorded = if depth(&args) > 64 {
            json!("<deep>")
        } else {
            args.clone()
        };
        self.calls
            .lock()
            .unwrap()
            .push((name.to_string(), recorded));
        self.called.notify_waiters();
        Ok(match name {
            "echo" => Box::pin(async move { Ok(args.into()) }),
            // A result with a shape (MATCHES_SHAPE); `note` is declared but absent.
            "matches" => Box::pin(async move {
                Ok(json!({
                    "matches": [
                        { "path": "a.rs", "line": 3, "text": "// TODO" },
                        { "path": "b.rs", "line": 9, "text": "// TODO too" },
                    ],
                    "total": 2,
                    "meta": { "took_ms": 1 },
                })
                .into())
            }),
            // Its arguments, with a note that a cap cut them short.
            "capped" => Box::pin(async move {
                Ok(Reply {
                    value: args,
                    note: Some("3 of 9 items (page with offset)".into()),
                    ..Reply::default()
                })
            }),
            "add" => Box::pin(async move {
                Ok(
                    json!(args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0))
                        .into(),
                )
            }),
            "sleep" => Box::pin(async move {
                let ms = args["ms"].as_u64().unwrap_or(10);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                Ok(json!(ms).into())
            }),
            "fail" => Box::pin(async move { Err("it failed".to_string()) }),
            // A large result after a short wait (so the call is in flight when made).
            "big" => Box::pin(async move {
                tokio::time::sleep(Duration::from_millis(5)).await;
                let bytes = args["bytes"].as_u64().unwrap_or(0) as usize;
                Ok(json!("x".repeat(bytes)).into())
            }),
            "never" => Box::pin(futures::future::pending()),
            "limited" => {
                return Err(RunFailure::new(
                    FailureKind::CallLimit,
                    "too many tool calls (limit 0)",
                ))
            }
            "deep" => Box::pin(async move {
                let depth = args["depth"].as_u64().unwrap_or(1);
                let text = "[".repeat(depth as usize) + &"]".repeat(depth as usize);
                Ok(ptc_schema::value::parse_unbounded(&text).unwrap().into())
            }),
            other => {
                let other = other.to_string();
                Box::pin(async move { Ok(json!({ "tool": other, "args": args }).into()) })
            }
        })
    }
}

/// How many containers deep `value` nests, computed without recursion.
pub fn depth(value: &Value) -> usize {
    ptc_schema::value::depth_up_to(value, usize::MAX)
}

#[allow(unused_imports)]
pub use ptc_schema::value::drop_deep;

/// The result shape of `matches` (as ptc builds it from an output schema): `{ matches: { path,
/// line, text, note? }[], total, meta: open }`.
pub const MATCHES_SHAPE: &str = r#"{"n":"matches result","f":{"matches":{"i":{"n":"matches matches","p":1,"f":{"path":0,"line":0,"text":0,"note":0}}},"total":0,"meta":0}}"#;

pub const TOOL_NAMES: &[&str] = &[
    "echo",
    "add",
    "sleep",
    "fail",
    "never",
    "limited",
    "deep",
    "big",
    "capped",
    "matches",
    "__proto__",
    "constructor",
    "then",
    "my-tool",
    "run_code",
];

pub fn program(ts: &str) -> Program {
    Program {
        source: ts.to_string(),
        tool_names: TOOL_NAMES.iter().map(|s| s.to_string()).collect(),
        result_shapes: Arc::new([("matches".to_string(), MATCHES_SHAPE.to_string())].into()),
        filename: "run_code.ts".into(),
    }
}

pub async fn run_full(
    ts: &str,
    host: Arc<TestHost>,
    limits: Limits,
    cancel: CancellationToken,
) -> RunReport {
    engine().run(program(ts), host, limits, cancel).await
}

pub async fn run_with(ts: &str, limits: Limits) -> RunReport {
    run_full(ts, TestHost::new(), limits, CancellationToken::new()).await
}

pub async fn run(ts: &str) -> RunReport {
    run_with(ts, Limits::default()).await
}

/// The returned value of a run that must succeed.
pub async fn value(ts: &str) -> Option<Value> {
    let report = run(ts).await;
    match report.outcome {
        Ok(v) => v,
        Err(e) => panic!("run failed: {e:?}; logs: {:?}", report.logs),
    }
}

/// The failure of a run that must fail.
pub fn failure(report: &RunReport) -> &RunFailure {
    match &report.outcome {
        Ok(v) => panic!("expected a failure, got {v:?}; logs: {:?}", report.logs),
        Err(e) => e,
    }
}
