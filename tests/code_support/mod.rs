//! Shared fixtures for the code-mode tests: a registry with the testkit pack and the
//! code executor, and a helper that runs one program as a `run_code` call.
#![allow(dead_code)]

use std::sync::Arc;

use ptc::{
    Agent, CodeConfig, CodeExecutor, LogStep, MemoryLog, ScopeKey, SessionEvent, ToolBatchInput, ToolCallBlock,
    ToolExecutionResult, ToolRegistry,
};
use serde_json::json;

/// A registry with testkit loaded and code mode installed (mode `both`).
pub fn code_registry() -> ToolRegistry {
    code_registry_with(CodeConfig::quickjs())
}

/// As [`code_registry`], with a custom config.
pub fn code_registry_with(config: CodeConfig) -> ToolRegistry {
    let registry = ToolRegistry::new();
    ptc::packs::testkit::register(&registry).unwrap();
    CodeExecutor::new(config).install(&registry);
    registry
}

/// One program's outcome and the session events it produced.
pub struct Run {
    pub result: ToolExecutionResult,
    pub events: Vec<SessionEvent>,
}

impl Run {
    pub fn text(&self) -> String {
        ptc::content::content_text(&self.result.content)
    }
}

/// Run `code` as the `run_code` call `call-1` of agent scope `scope`.
pub async fn run_in(registry: &ToolRegistry, scope: &ScopeKey, code: &str) -> Run {
    let log = Arc::new(MemoryLog::new());
    let agent = Agent::new(scope.clone()).with_session(log.clone());
    let mut input = ToolBatchInput::new(vec![ToolCallBlock::new(
        "call-1",
        "run_code",
        json!({"code": code, "description": "test program for the suite"}),
    )]);
    input.agent = Some(agent);
    input.log = Some(LogStep { turn: 1, step: 1 });
    let mut batch = registry.execute(input).await.unwrap();
    Run {
        result: batch.results.remove(0).result,
        events: log.events(),
    }
}

/// Run `code` in a fresh scope.
pub async fn run(registry: &ToolRegistry, code: &str) -> Run {
    run_in(registry, &ScopeKey::root("agent"), code).await
}
