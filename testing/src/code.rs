//! Shared fixtures for the code-mode tests: a registry with the testkit pack and the
//! code executor, helpers that send one `run_code` (or direct) call through
//! `ToolRegistry::execute`, views of the session events a run produced, and small
//! recording tools and listeners.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};

use ptc::session::MemoryLog;
use ptc::session::SessionEvent;
use ptc::{
    Agent, CodeConfig, CodeExecutor, ExecutionToken, LogStep, PreToolDecision, ScopeKey,
    ToolBatchInput, ToolBatchResult, ToolCallBlock, ToolExecutionResult, ToolRegistry, UserMessage,
};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

/// The outer call id every helper uses.
pub const CALL_ID: &str = "call-1";

/// A registry with testkit loaded and code mode installed (mode `both`), on the engine
/// of this build (see [`engine_config`]).
pub fn code_registry() -> ToolRegistry {
    code_registry_with(engine_config())
}

/// The code-mode config of the engine this build tests: QuickJS by default, deno_core when
/// built with `--no-default-features --features deno-quickjs` (the same compile-time matrix as
/// the engine's own tests).
pub fn engine_config() -> CodeConfig {
    CodeConfig::default()
}

/// As [`code_registry`], with a custom config.
pub fn code_registry_with(config: CodeConfig) -> ToolRegistry {
    let registry = ToolRegistry::new();
    ptc::testkit::register(&registry).unwrap();
    CodeExecutor::new(config).install(&registry);
    registry
}

/// The [`engine_config`] with `tweak` applied.
pub fn config(tweak: impl FnOnce(&mut CodeConfig)) -> CodeConfig {
    let mut config = engine_config();
    tweak(&mut config);
    config
}

/// One call's outcome, the batch it came from, and the session events it produced.
pub struct Run {
    pub result: ToolExecutionResult,
    pub batch_contexts: Vec<UserMessage>,
    pub concluded: bool,
    pub events: Vec<SessionEvent>,
}

/// A `tool/ptc-dispatch` event, flattened.
#[derive(Debug, Clone, PartialEq)]
pub struct Dispatch {
    pub sub_call_id: String,
    pub parent_call_id: String,
    pub name: String,
    pub is_error: bool,
    pub text: String,
    pub code: Option<String>,
    pub message: Option<String>,
}

impl Run {
    /// The outer result's text content.
    pub fn text(&self) -> String {
        ptc::content_text(&self.result.content)
    }

    /// The outer result's error code.
    pub fn error_code(&self) -> Option<&str> {
        self.result.error_code()
    }

    /// Sub-call ids of the `tool/ptc-dispatch-start` events, in log order.
    pub fn starts(&self) -> Vec<String> {
        self.events
            .iter()
            .filter_map(|e| match e {
                SessionEvent::PtcDispatchStart { sub_call_id, .. } => Some(sub_call_id.clone()),
                _ => None,
            })
            .collect()
    }

    /// The `tool/ptc-dispatch` events, in log order.
    pub fn dispatches(&self) -> Vec<Dispatch> {
        dispatches_of(&self.events)
    }

    /// The `type` of every event, in log order.
    pub fn kinds(&self) -> Vec<&'static str> {
        self.events.iter().map(SessionEvent::kind).collect()
    }
}

/// The `tool/ptc-dispatch` events of `events`, flattened.
pub fn dispatches_of(events: &[SessionEvent]) -> Vec<Dispatch> {
    events
        .iter()
        .filter_map(|e| match e {
            SessionEvent::PtcDispatch {
                parent_call_id,
                sub_call_id,
                name,
                is_error,
                content,
                error,
                ..
            } => Some(Dispatch {
                sub_call_id: sub_call_id.clone(),
                parent_call_id: parent_call_id.clone(),
                name: name.clone(),
                is_error: *is_error,
                text: ptc::content_text(content),
                code: error.as_ref().and_then(|f| f.code()).map(str::to_string),
                message: error.as_ref().map(|f| f.message.clone()),
            }),
            _ => None,
        })
        .collect()
}

/// `call-1:ptc:<n>`.
pub fn sub(n: u64) -> String {
    format!("{CALL_ID}:ptc:{n}")
}

/// One root call, sent as a one-call batch through `ToolRegistry::execute`.
pub struct Call {
    pub scope: ScopeKey,
    pub name: String,
    pub args: Value,
    pub signal: CancellationToken,
    pub log: Arc<MemoryLog>,
}

impl Call {
    /// A `run_code` call of `code` (with a valid description).
    pub fn run_code(code: &str) -> Self {
        Self::direct(
            "run_code",
            json!({"code": code, "description": "test program for the suite"}),
        )
    }

    /// A direct call of `name` with `args`.
    pub fn direct(name: &str, args: Value) -> Self {
        Call {
            scope: ScopeKey::root("agent"),
            name: name.to_string(),
            args,
            signal: CancellationToken::new(),
            log: Arc::new(MemoryLog::new()),
        }
    }

    pub fn in_scope(mut self, scope: &ScopeKey) -> Self {
        self.scope = scope.clone();
        self
    }

    pub fn with_signal(mut self, signal: CancellationToken) -> Self {
        self.signal = signal;
        self
    }

    pub fn with_log(mut self, log: Arc<MemoryLog>) -> Self {
        self.log = log;
        self
    }

    /// Send the call as `call-1` of an agent in `scope` with a session log.
    pub async fn send(self, registry: &ToolRegistry) -> Run {
        let agent = Agent::new(self.scope.clone()).with_session(self.log.clone());
        let input = ToolBatchInput::new(vec![ToolCallBlock::new(CALL_ID, self.name, self.args)])
            .with_agent(agent)
            .with_log(LogStep { turn: 1, step: 1 })
            .with_signal(self.signal);
        let ToolBatchResult {
            mut results,
            additional_contexts,
            concluded,
            log_error,
        } = registry.execute(input).await.unwrap();
        assert_eq!(log_error, None, "a memory log records every event");
        Run {
            result: results.remove(0).result,
            batch_contexts: additional_contexts,
            concluded,
            events: self.log.events(),
        }
    }
}

/// Run `code` as the `run_code` call `call-1` of agent scope `scope`.
pub async fn run_in(registry: &ToolRegistry, scope: &ScopeKey, code: &str) -> Run {
    Call::run_code(code).in_scope(scope).send(registry).await
}

/// Run `code` in a fresh scope.
pub async fn run(registry: &ToolRegistry, code: &str) -> Run {
    Call::run_code(code).send(registry).await
}

/// Run `code` and return its output text, failing the test when the run failed.
pub async fn run_ok(registry: &ToolRegistry, code: &str) -> String {
    let r = run(registry, code).await;
    assert!(!r.result.is_error(), "the run failed: {}", r.text());
    r.text()
}

// ---- recording listeners -----------------------------------------------------------------------

/// What a `tools/pre-execute` listener saw of one execution.
#[derive(Debug, Clone)]
pub struct Seen {
    pub call_id: String,
    pub root_call_id: String,
    pub name: String,
    pub token: ExecutionToken,
    pub parent: Option<ExecutionToken>,
}

/// A global pre-execute listener that records every execution it sees and allows it.
pub fn record_pre_execute(registry: &ToolRegistry) -> Arc<Mutex<Vec<Seen>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    registry.on_pre_execute(move |exec: Arc<ptc::ToolExecution>, next: ptc::PreNext| {
        sink.lock().unwrap().push(Seen {
            call_id: exec.call_id().to_string(),
            root_call_id: exec.root_call_id().to_string(),
            name: exec.name().to_string(),
            token: exec.token(),
            parent: exec.parent(),
        });
        next.run()
    });
    seen
}

/// A pre-execute listener denying `name` with `reason`.
pub fn deny_tool(registry: &ToolRegistry, name: &'static str, reason: &'static str) {
    registry.on_pre_execute(move |exec: Arc<ptc::ToolExecution>, next: ptc::PreNext| {
        let deny = exec.name() == name;
        async move {
            if deny {
                PreToolDecision::deny(reason)
            } else {
                next.run().await
            }
        }
    });
}
