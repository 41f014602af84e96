//! Shared fixtures for the `builtin` pack tests: a temporary workspace root with a
//! sibling directory outside it, a registry with the pack loaded there, and helpers
//! that send one call through the pipeline and look at its result.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};

use ptc::presentation::{ToolCallView, ToolResult, ToolResultView};
use ptc::{ToolExecutionInput, ToolExecutionResult, ToolRegistry};
use ptc_packs::builtin::{Builtin, TodoStore};
use ptc_packs::PackContext;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// The secret every escape test tries to reach.
pub const SECRET: &str = "top secret outside the root\n";

/// `<tmp>/root` (the workspace) beside `<tmp>/outside` (holding `secret.txt` and `dir/`).
pub struct Fixture {
    _tmp: tempfile::TempDir,
    /// The workspace root (canonical).
    pub root: PathBuf,
    /// A directory beside the root.
    pub outside: PathBuf,
    /// The registry with the builtin pack for `root`.
    pub registry: ToolRegistry,
    /// The pack's todo store.
    pub todos: TodoStore,
    /// The pack itself (its owner, sandbox and stores).
    pub pack: Builtin,
}

impl Fixture {
    /// An empty workspace.
    pub fn new() -> Self {
        Self::with_deny(&[])
    }

    /// An empty workspace whose sandbox denies `deny` (relative to the root) besides the
    /// defaults, as `[sandbox] deny_read` does.
    pub fn with_deny(deny: &[&str]) -> Self {
        Self::with(|ctx, root, _| {
            ctx.sandbox.deny_read = deny.iter().map(|d| root.join(d)).collect();
        })
    }

    /// An empty workspace whose pack context `edit` adjusts (e.g. its `[web]` rules).
    pub fn with_context(edit: impl FnOnce(&mut PackContext)) -> Self {
        Self::with(|ctx, _, _| edit(ctx))
    }

    /// An empty workspace whose pack context `setup` adjusts, given the root and the
    /// directory beside it (both exist).
    pub fn with(setup: impl FnOnce(&mut PackContext, &Path, &Path)) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        let root = base.join("root");
        let outside = base.join("outside");
        fs::create_dir_all(&root).unwrap();
        fs::create_dir_all(outside.join("dir")).unwrap();
        fs::write(outside.join("secret.txt"), SECRET).unwrap();
        fs::write(outside.join("dir/inner.txt"), SECRET).unwrap();
        let registry = ToolRegistry::new();
        let mut ctx = PackContext::new(root.clone());
        setup(&mut ctx, &root, &outside);
        let pack = Builtin::new(&ctx).unwrap();
        pack.register(&registry).unwrap();
        Fixture {
            _tmp: tmp,
            root,
            outside,
            registry,
            todos: pack.todos().clone(),
            pack,
        }
    }

    /// Write `content` to `rel` under the root (creating directories).
    pub fn file(&self, rel: impl AsRef<Path>, content: impl AsRef<[u8]>) -> PathBuf {
        let path = self.root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, content).unwrap();
        path
    }

    /// A symlink at `rel` under the root pointing at `target`.
    pub fn symlink(&self, rel: &str, target: impl AsRef<Path>) {
        let link = self.root.join(rel);
        fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(target, link).unwrap();
    }

    /// The text of `rel` under the root.
    pub fn read(&self, rel: &str) -> String {
        fs::read_to_string(self.root.join(rel)).unwrap()
    }

    /// Send one call of `name` with `args` through the pipeline.
    pub async fn call(&self, name: &str, args: Value) -> Outcome {
        self.call_with_signal(name, args, CancellationToken::new())
            .await
    }

    /// As [`Fixture::call`], with the caller's cancellation signal.
    pub async fn call_with_signal(
        &self,
        name: &str,
        args: Value,
        signal: CancellationToken,
    ) -> Outcome {
        let result = self
            .registry
            .dispatch(ToolExecutionInput::new("call-1", name, args.clone()).with_signal(signal))
            .await;
        Outcome {
            name: name.to_string(),
            args,
            result,
        }
    }

    /// Send one call of `name` with `args` as sub-call `n` of the `run_code` call `run`
    /// (`<run>:ptc:<n>`), as a program's `tools.<name>(…)` is sent.
    pub async fn call_in_program(&self, run: &str, n: u32, name: &str, args: Value) -> Outcome {
        let mut input = ToolExecutionInput::new(format!("{run}:ptc:{n}"), name, args.clone());
        input.root_call_id = Some(run.to_string());
        let result = self.registry.dispatch(input).await;
        Outcome {
            name: name.to_string(),
            args,
            result,
        }
    }

    /// The pending-call card of `name` for `args`.
    pub fn present_call(&self, name: &str, args: &Value) -> Option<ToolCallView> {
        self.registry
            .view(None, None)
            .get(name)
            .unwrap()
            .present_call(args)
    }

    /// The completed-call card of an outcome.
    pub fn present_result(&self, outcome: &Outcome) -> Option<ToolResultView> {
        let result = ToolResult {
            is_error: outcome.result.is_error(),
            content: outcome.result.content.clone(),
            meta: outcome.result.meta.clone(),
        };
        self.registry
            .view(None, None)
            .get(&outcome.name)
            .unwrap()
            .present_result(&outcome.args, &result)
    }

    /// Whether `name` may run alongside siblings for `args`.
    pub fn concurrency_safe(&self, name: &str, args: &Value) -> bool {
        self.registry
            .view(None, None)
            .get(name)
            .unwrap()
            .is_concurrency_safe(args)
    }
}

/// One call's result with what produced it.
pub struct Outcome {
    pub name: String,
    pub args: Value,
    pub result: ToolExecutionResult,
}

impl Outcome {
    /// The value, failing the test (with the error text) when the call failed.
    pub fn value(&self) -> &Value {
        assert!(
            !self.result.is_error(),
            "{} failed: {}",
            self.name,
            self.text()
        );
        self.result.value().unwrap()
    }

    /// The model-facing text.
    pub fn text(&self) -> String {
        ptc::content_text(&self.result.content)
    }

    /// The error message, failing the test when the call succeeded.
    pub fn error(&self) -> String {
        assert!(
            self.result.is_error(),
            "{} unexpectedly succeeded: {}",
            self.name,
            self.text()
        );
        self.result.error().unwrap().message.clone()
    }

    /// What a cap left out of the result (`ToolRunContext::cut_short`), if anything.
    pub fn cut_short(&self) -> Option<&str> {
        self.result.cut_short.as_deref()
    }

    /// What else the tool said of the result (`ToolRunContext::note`), if anything.
    pub fn note(&self) -> Option<&str> {
        self.result.note.as_deref()
    }

    /// The note that stands unless a program reads the fields it names
    /// (`ToolRunContext::note_unless_read`): the fields and the note.
    pub fn unless_read(&self) -> Option<(Vec<&str>, &str)> {
        let unless = self.result.unless_read.as_ref()?;
        let fields = unless.fields.iter().map(String::as_str).collect();
        Some((fields, unless.text.as_str()))
    }

    /// The error code of a failed call.
    pub fn code(&self) -> Option<&str> {
        self.result.error_code()
    }

    /// Asserts the call was denied as a root escape.
    pub fn assert_escape(&self) {
        let message = self.error();
        assert!(
            message.contains("not inside the workspace root"),
            "expected a root escape denial, got: {message}"
        );
        assert_eq!(self.code(), Some(ptc::codes::TOOL_DENIED), "{message}");
        assert!(!self.text().contains("top secret"), "{}", self.text());
    }
}

/// A grep result's matches as `path:line`, in order.
pub fn match_sites(v: &Value) -> Vec<String> {
    v["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| format!("{}:{}", m["path"].as_str().unwrap(), m["line"]))
        .collect()
}
