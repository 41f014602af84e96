//! Background work of the `builtin` pack: background `bash` tasks and `task_*` (`tasks`),
//! terminals and `terminal_*` (`terminals`), and owners: isolation, ends, caps, `ptc run`
//! and `ptc serve` leaving nothing behind (`owners`).
//!
//! Processes are found by a marker in their argv (`/proc/*/cmdline`): commands run in PID
//! namespaces, so the pids they see are not the host's. Readiness is a marker in the
//! output or a process appearing, never a fixed sleep.

mod owners;
mod tasks;
mod terminals;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use ptc::{
    Agent, CodeConfig, CodeExecutor, Owner, ScopeKey, ToolBatchInput, ToolCallBlock,
    ToolExecutionInput, ToolExecutionResult, ToolMode, ToolRegistry,
};
use ptc_packs::builtin::Builtin;
use ptc_packs::PackContext;
use serde_json::{json, Value};

/// A workspace with the builtin pack and code mode, and one owner for the calls.
pub struct Bg {
    _tmp: tempfile::TempDir,
    pub root: PathBuf,
    pub registry: ToolRegistry,
    pub pack: Builtin,
    pub owner: Owner,
}

impl Default for Bg {
    fn default() -> Self {
        Self::new()
    }
}

impl Bg {
    /// Default caps.
    pub fn new() -> Self {
        Self::with(|_| {})
    }

    /// Caps adjusted by `adjust`.
    pub fn with(adjust: impl FnOnce(&mut PackContext)) -> Self {
        Self::with_code(adjust, CodeConfig::default())
    }

    /// Caps adjusted by `adjust`, code mode configured as `code`.
    pub fn with_code(adjust: impl FnOnce(&mut PackContext), code: CodeConfig) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap().join("root");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        let mut ctx = PackContext::new(root.clone());
        adjust(&mut ctx);
        let registry = ToolRegistry::new();
        let pack = Builtin::new(&ctx).unwrap();
        pack.register(&registry).unwrap();
        CodeExecutor::new(code).install(&registry);
        registry.set_mode(ToolMode::Both);
        Bg {
            _tmp: tmp,
            root,
            registry,
            pack,
            owner: Owner::new("test"),
        }
    }

    /// An agent of `owner`.
    pub fn agent(owner: &Owner) -> Agent {
        Agent::new(ScopeKey::root("agent")).with_owner(owner.clone())
    }

    /// One call as this fixture's owner.
    pub async fn call(&self, name: &str, args: Value) -> Call {
        self.call_as(&self.owner, name, args).await
    }

    /// One call as `owner`.
    pub async fn call_as(&self, owner: &Owner, name: &str, args: Value) -> Call {
        let input = ToolExecutionInput::new("call-1", name, args).with_agent(Self::agent(owner));
        Call(self.registry.dispatch(input).await)
    }

    /// One `run_code` call of `code` as this fixture's owner.
    pub async fn run(&self, code: &str) -> Call {
        let mut batch = ToolBatchInput::new(vec![ToolCallBlock::new(
            "run-1",
            "run_code",
            json!({"code": code, "description": "background test program"}),
        )]);
        batch.agent = Some(Self::agent(&self.owner));
        Call(
            self.registry
                .execute(batch)
                .await
                .unwrap()
                .results
                .remove(0)
                .result,
        )
    }
}

impl Drop for Bg {
    /// Close the owners, waiting until their processes (and sandbox directories) are gone.
    fn drop(&mut self) {
        futures::executor::block_on(async {
            self.owner.close().await;
            self.pack.owner().close().await;
        });
    }
}

/// A call's result.
pub struct Call(pub ToolExecutionResult);

impl Call {
    /// The value; fails the test with the text when the call failed.
    pub fn value(&self) -> &Value {
        assert!(!self.0.is_error(), "the call failed: {}", self.text());
        self.0.value().unwrap()
    }

    /// A run's returned value (`run_code` shows anything but a string as JSON).
    pub fn json(&self) -> Value {
        serde_json::from_str(self.value().as_str().unwrap()).unwrap()
    }

    /// The model-facing text.
    pub fn text(&self) -> String {
        ptc::content_text(&self.0.content)
    }

    /// The error text; fails the test when the call succeeded.
    pub fn error(&self) -> String {
        assert!(self.0.is_error(), "expected an error, got: {}", self.text());
        self.text()
    }
}

/// `bash` arguments.
pub fn bash(command: &str, background: bool) -> Value {
    json!({"command": command, "description": "test command", "run_in_background": background})
}

/// A marker unique to one test.
pub fn marker(test: &str) -> String {
    format!("ptc-bg-{}-{test}", std::process::id())
}

/// Host pids of live processes whose command line contains `marker`.
pub fn with_marker(marker: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let zombie = stat.rsplit(") ").next().unwrap_or("").starts_with('Z');
        if !zombie && String::from_utf8_lossy(&cmdline).contains(marker) {
            out.push(pid);
        }
    }
    out
}

/// Poll `ready` until it holds (failing after a generous minute: the test is broken then).
pub fn wait_until(what: &str, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !ready() {
        assert!(Instant::now() < deadline, "never happened: {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Wait until processes carrying `marker` run.
pub fn await_marker(marker: &str) {
    wait_until(&format!("a process named {marker}"), || {
        !with_marker(marker).is_empty()
    });
}

/// Wait until no process carries `marker` (SIGKILL is delivered asynchronously).
pub fn assert_all_gone(marker: &str) {
    wait_until(&format!("every process named {marker} gone"), || {
        with_marker(marker).is_empty()
    });
}
