//! Call spans through ptc's OpenTelemetry layer, collected in memory.

use std::sync::{Arc, Mutex, OnceLock};

use opentelemetry::trace::{SpanId, Status};
use opentelemetry::Value as OtelValue;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{SpanData, SpanExporter};
use ptc::policy::approval::ApprovalAnswer;
use ptc::policy::approval::ApprovalRequest;
use ptc::telemetry::otlp::OtlpExport;
use ptc::{
    Agent, CodeConfig, CodeExecutor, PostToolDecision, PreToolDecision, ScopeKey, ToolBatchInput,
    ToolCallBlock, ToolExecution, ToolRegistry,
};
use serde_json::json;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::Layer;

/// Spans handed to the exporter.
#[derive(Debug, Clone, Default)]
struct Collected(Arc<Mutex<Vec<SpanData>>>);

impl SpanExporter for Collected {
    fn export(
        &self,
        batch: Vec<SpanData>,
    ) -> impl std::future::Future<Output = OTelSdkResult> + Send {
        self.0.lock().unwrap().extend(batch);
        std::future::ready(Ok(()))
    }
}

/// The process-wide exporter: ptc's spans plus the test's own `observe` spans.
fn collector() -> &'static (OtlpExport, Collected) {
    static ONCE: OnceLock<(OtlpExport, Collected)> = OnceLock::new();
    ONCE.get_or_init(|| {
        let collected = Collected::default();
        let export = OtlpExport::with_exporter(collected.clone());
        let filter = Targets::new()
            .with_target(ptc::telemetry::TARGET, tracing::Level::INFO)
            .with_target("observe", tracing::Level::INFO);
        let subscriber = tracing_subscriber::registry().with(export.layer().with_filter(filter));
        tracing::subscriber::set_global_default(subscriber).unwrap();
        (export, collected)
    })
}

/// The exported spans whose `ptc.root_call_id` (or name, for host spans) is `root`.
fn spans_of(root: &str) -> Vec<SpanData> {
    let (export, collected) = collector();
    export.flush().unwrap();
    collected
        .0
        .lock()
        .unwrap()
        .iter()
        .filter(|s| attr(s, "ptc.root_call_id").as_deref() == Some(root) || s.name == root)
        .cloned()
        .collect()
}

fn attr(span: &SpanData, key: &str) -> Option<String> {
    span.attributes
        .iter()
        .find(|kv| kv.key.as_str() == key)
        .map(|kv| match &kv.value {
            OtelValue::String(s) => s.to_string(),
            other => other.to_string(),
        })
}

fn by_call<'a>(spans: &'a [SpanData], call_id: &str) -> &'a SpanData {
    spans
        .iter()
        .find(|s| attr(s, "ptc.call_id").as_deref() == Some(call_id))
        .unwrap_or_else(|| panic!("no span for {call_id} among {spans:#?}"))
}

fn policy_events(span: &SpanData) -> Vec<(String, String, Option<String>)> {
    span.events
        .iter()
        .filter(|e| e.name == "policy")
        .map(|e| {
            let get = |k: &str| {
                e.attributes
                    .iter()
                    .find(|kv| kv.key.as_str() == k)
                    .map(|kv| kv.value.to_string())
            };
            (
                get("ptc.policy.stage").unwrap(),
                get("ptc.policy.decision").unwrap(),
                get("ptc.policy.reason"),
            )
        })
        .collect()
}

fn code_registry() -> ToolRegistry {
    let registry = ToolRegistry::new();
    ptc::testkit::register(&registry).unwrap();
    CodeExecutor::new(CodeConfig::default()).install(&registry);
    registry
}

async fn call(registry: &ToolRegistry, id: &str, name: &str, args: serde_json::Value) {
    let mut batch = ToolBatchInput::new(vec![ToolCallBlock::new(id, name, args)]);
    batch.agent = Some(Agent::new(ScopeKey::root("observer")));
    registry.execute(batch).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_code_is_the_parent_span_of_its_sub_calls_with_tool_attributes() {
    collector();
    let registry = code_registry();
    let code = "const e = await tools.echo({ text: 'hi' });\n\
                await Promise.all([tools.sleep({ ms: 20 }), tools.add({ a: 1, b: 2 })]);\n\
                try { await tools.fail({ message: 'boom' }); } catch {}\n\
                return e;";
    let args = json!({"code": code, "description": "spans of a program with sub-calls"});
    call(&registry, "tree-1", "run_code", args).await;

    let spans = spans_of("tree-1");
    assert_eq!(spans.len(), 5, "run_code and four sub-calls: {spans:#?}");
    let root = by_call(&spans, "tree-1");
    assert_eq!(root.name, "execute_tool run_code");
    assert_eq!(
        root.parent_span_id,
        SpanId::INVALID,
        "a root call starts a trace"
    );
    for (key, value) in [
        ("openinference.span.kind", "TOOL"),
        ("gen_ai.operation.name", "execute_tool"),
        ("tool.name", "run_code"),
        ("gen_ai.tool.name", "run_code"),
        ("gen_ai.tool.call.id", "tree-1"),
        ("ptc.scope", "observer"),
        ("ptc.outcome", "ok"),
        ("input.mime_type", "application/json"),
        ("output.value", "hi"),
        ("output.mime_type", "text/plain"),
    ] {
        assert_eq!(attr(root, key).as_deref(), Some(value), "{key}");
    }
    assert!(attr(root, "input.value").unwrap().contains("tools.echo"));

    for (n, name) in [(1, "echo"), (2, "sleep"), (3, "add"), (4, "fail")] {
        let id = format!("tree-1:ptc:{n}");
        let sub = by_call(&spans, &id);
        assert_eq!(sub.name, format!("execute_tool {name}"));
        assert_eq!(
            sub.parent_span_id,
            root.span_context.span_id(),
            "{id}'s parent"
        );
        assert_eq!(sub.span_context.trace_id(), root.span_context.trace_id());
        assert_eq!(
            attr(sub, "gen_ai.tool.call.id").as_deref(),
            Some(id.as_str())
        );
        assert!(sub.start_time >= root.start_time && sub.end_time <= root.end_time);
    }
    let echo = by_call(&spans, "tree-1:ptc:1");
    assert_eq!(
        attr(echo, "input.value").as_deref(),
        Some(r#"{"text":"hi"}"#)
    );
    let add = by_call(&spans, "tree-1:ptc:3");
    assert_eq!(attr(add, "output.value").as_deref(), Some("3"));
    assert_eq!(
        attr(add, "output.mime_type").as_deref(),
        Some("application/json")
    );
    let fail = by_call(&spans, "tree-1:ptc:4");
    assert_eq!(fail.status, Status::error("boom"));
    assert_eq!(attr(fail, "ptc.outcome").as_deref(), Some("error"));
    assert_eq!(attr(fail, "ptc.error.code").as_deref(), Some("TOOL_ERROR"));
    let exception = fail.events.iter().find(|e| e.name == "exception").unwrap();
    assert!(exception
        .attributes
        .iter()
        .any(|kv| kv.key.as_str() == "exception.message" && kv.value.as_str() == "boom"));
    let sleep = by_call(&spans, "tree-1:ptc:2");
    assert!(
        sleep
            .end_time
            .duration_since(sleep.start_time)
            .unwrap()
            .as_millis()
            >= 20
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn policy_decisions_and_approvals_are_span_events() {
    collector();
    let registry = code_registry();
    registry.on_pre_execute(|exec: Arc<ToolExecution>, next: ptc::PreNext| {
        let decision = match exec.arguments().get("text").and_then(|t| t.as_str()) {
            Some("deny me") => Some(PreToolDecision::deny("not this text")),
            Some("ask me") | Some("ask and refuse") => {
                Some(PreToolDecision::ask("a human decides"))
            }
            _ => None,
        };
        async move {
            match decision {
                Some(decision) => decision,
                None => next.run().await,
            }
        }
    });
    registry.guard(|exec: &ToolExecution| {
        (exec.arguments().get("text").and_then(|t| t.as_str()) == Some("guarded"))
            .then(|| "the guard says no".to_string())
    });
    registry.on_post_execute(
        |exec: Arc<ToolExecution>, _: Arc<ptc::ToolExecutionResult>, next: ptc::PostNext| {
            let block = exec.arguments().get("text").and_then(|t| t.as_str()) == Some("block me");
            async move {
                match block {
                    true => PostToolDecision::block("not that result"),
                    false => next.run().await,
                }
            }
        },
    );
    registry.set_approval(Arc::new(|request: ApprovalRequest| async move {
        match request.execution.arguments()["text"].as_str() {
            Some("ask me") => ApprovalAnswer::AllowedOnce,
            _ => ApprovalAnswer::Denied,
        }
    }));
    let code = "for (const text of ['fine', 'deny me', 'ask me', 'ask and refuse', 'guarded', 'block me']) {\n\
                  try { await tools.echo({ text }); } catch {}\n\
                }";
    let args = json!({"code": code, "description": "policy decisions on sub-calls"});
    call(&registry, "policy-1", "run_code", args).await;

    let spans = spans_of("policy-1");
    let events = |n: u32| policy_events(by_call(&spans, &format!("policy-1:ptc:{n}")));
    let outcome = |n: u32| attr(by_call(&spans, &format!("policy-1:ptc:{n}")), "ptc.outcome");
    let ev = |stage: &str, decision: &str, reason: Option<&str>| {
        (
            stage.to_string(),
            decision.to_string(),
            reason.map(str::to_string),
        )
    };
    assert_eq!(events(1), [ev("pre-execute", "allow", None)]);
    assert_eq!(outcome(1).as_deref(), Some("ok"));
    assert_eq!(
        events(2),
        [ev("pre-execute", "deny", Some("not this text"))]
    );
    assert_eq!(outcome(2).as_deref(), Some("denied"));
    assert_eq!(
        events(3),
        [
            ev("pre-execute", "ask", Some("a human decides")),
            ev("approval", "allowed once", None)
        ]
    );
    assert_eq!(outcome(3).as_deref(), Some("ok"));
    assert_eq!(
        events(4),
        [
            ev("pre-execute", "ask", Some("a human decides")),
            ev("approval", "denied", None)
        ]
    );
    assert_eq!(outcome(4).as_deref(), Some("denied"));
    assert_eq!(
        events(5),
        [
            ev("pre-execute", "allow", None),
            ev("guard", "deny", Some("the guard says no"))
        ]
    );
    assert_eq!(
        events(6),
        [
            ev("pre-execute", "allow", None),
            ev("post-execute", "block", Some("not that result"))
        ]
    );
    assert_eq!(outcome(6).as_deref(), Some("denied"));
    assert_eq!(
        attr(by_call(&spans, "policy-1:ptc:6"), "ptc.error.code").as_deref(),
        Some("TOOL_BLOCKED")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_root_call_is_a_child_of_the_hosts_current_span_and_values_are_cut() {
    use tracing::Instrument;
    collector();
    let registry = code_registry();
    let long = "x".repeat(10_000);
    let turn = tracing::info_span!(target: "observe", "host-turn-1");
    async {
        call(&registry, "host-1", "echo", json!({ "text": long })).await;
    }
    .instrument(turn)
    .await;

    let spans = spans_of("host-1");
    let host = spans_of("host-turn-1");
    let echo = by_call(&spans, "host-1");
    assert_eq!(echo.parent_span_id, host[0].span_context.span_id());
    let max = ptc::telemetry::max_attribute_chars();
    assert_eq!(max, ptc::telemetry::DEFAULT_MAX_ATTRIBUTE_CHARS);
    for key in ["input.value", "output.value"] {
        let value = attr(echo, key).unwrap();
        assert_eq!(
            value.chars().count(),
            max,
            "{key} is cut to {max} characters"
        );
        assert!(value.ends_with('…'), "{key} says it was cut");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_whose_future_is_dropped_ends_its_span_as_cancelled() {
    collector();
    let registry = code_registry();
    let started = Arc::new(tokio::sync::Notify::new());
    let notify = started.clone();
    registry.on_execute(move |d: ptc::DispatchExecution, next: ptc::ExecuteNext| {
        notify.notify_one();
        next.run(d)
    });
    let slow = call(&registry, "dropped-1", "sleep", json!({"ms": 600_000}));
    tokio::select! {
        _ = slow => panic!("the sleep ended"),
        _ = started.notified() => {}
    }
    let spans = spans_of("dropped-1");
    let span = by_call(&spans, "dropped-1");
    assert_eq!(attr(span, "ptc.outcome").as_deref(), Some("cancelled"));
    assert_eq!(
        span.status,
        Status::error("the call was dropped before it settled")
    );
}
