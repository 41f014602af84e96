//! The `builtin` pack: the seed catalog's file, search, shell and todo tools, confined
//! to a workspace root (`ptc run --tools builtin --root DIR`).
//!
//! | tool | value (typed output) | card | scheduling |
//! |---|---|---|---|
//! | `read` | `{path, offset, lines: {number, text}[], total_lines, truncated, next_offset?}` | `read` | concurrency-safe |
//! | `write` | `{path, created, bytes, lines, hunks}` | `diff` | exclusive |
//! | `edit` | `{path, replacements, hunks}` | `diff` | exclusive |
//! | `glob` | `{paths, total, truncated}` (newest first, ≤ 100) | `search` (paths) | concurrency-safe |
//! | `grep` | `{matches: {path, line, text}[], total, files, truncated}` (≤ 250) | `search` (matches) | concurrency-safe |
//! | `bash` | `{exit_code?, signal?, stdout, stderr, output, truncated}` | `terminal` | exclusive |
//! | `todo_write` | `{todos, pending, in_progress, completed}` | — | exclusive |
//!
//! Names, parameter names, types, descriptions and required lists are the seed
//! catalog's, with two deliberate differences: `bash` has no `run_in_background` (the
//! seed's `enableRunInBackground: false` shape; there is no task runtime here), and the
//! tool descriptions of `glob`, `grep` and `bash` do not promise a spill file or `$DSH_*`
//! variables, which this pack does not provide. `bash` runs in the kernel sandbox of
//! [`crate::sandbox`]; `write` and `edit` refuse the protected files of `PackContext::sandbox`.
//!
//! Every path goes through [`Workspace::resolve`] (see [`workspace`]); paths in values
//! are relative to the root. The host reads the session todo lists through the
//! [`TodoStore`] of [`Builtin::todos`] (or the one [`register`] returns).

mod bash;
mod diff;
mod edit;
mod glob;
mod grep;
mod read;
mod shared;
mod todo;
pub mod workspace;
mod write;

use std::sync::Arc;

pub use todo::{Todo, TodoSnapshot, TodoStatus, TodoStore};
pub use workspace::{Resolved, Workspace};

use super::{PackContext, PackError};
use crate::definition::ToolDefinition;
use crate::registry::ToolRegistry;
use crate::sandbox::Sandbox;

/// The names of the pack's tools, in registration order.
pub const TOOLS: &[&str] = &[
    "read",
    "write",
    "edit",
    "glob",
    "grep",
    "bash",
    "todo_write",
];

/// The pack for one workspace: its confinement and its todo store.
#[derive(Debug, Clone)]
pub struct Builtin {
    workspace: Arc<Workspace>,
    sandbox: Arc<Sandbox>,
    todos: TodoStore,
}

impl Builtin {
    /// The pack for `ctx.root` (which must be an existing directory) under `ctx.sandbox`,
    /// with a fresh todo store.
    pub fn new(ctx: &PackContext) -> Result<Self, PackError> {
        let workspace = Workspace::new(&ctx.root)?.with_protected(&ctx.sandbox.protected);
        let sandbox = Sandbox::new(&ctx.sandbox, workspace.root()).map_err(PackError::Setup)?;
        Ok(Builtin {
            workspace: Arc::new(workspace),
            sandbox: Arc::new(sandbox),
            todos: TodoStore::new(),
        })
    }

    /// The sandbox `bash` runs in.
    pub fn sandbox(&self) -> &Sandbox {
        &self.sandbox
    }

    /// The same pack writing its todo lists to `store` (e.g. one a UI already watches).
    pub fn with_todos(mut self, store: TodoStore) -> Self {
        self.todos = store;
        self
    }

    /// The confinement every tool uses.
    pub fn workspace(&self) -> &Workspace {
        &self.workspace
    }

    /// The store `todo_write` writes to: the host reads the latest lists here.
    pub fn todos(&self) -> &TodoStore {
        &self.todos
    }

    /// The seven tool definitions.
    pub fn tools(&self) -> Vec<ToolDefinition> {
        let ws = &self.workspace;
        vec![
            read::tool(ws.clone()),
            write::tool(ws.clone()),
            edit::tool(ws.clone()),
            glob::tool(ws.clone()),
            grep::tool(ws.clone()),
            bash::tool(ws.clone(), self.sandbox.clone()),
            todo::tool(self.todos.clone()),
        ]
    }

    /// Register the tools in the registry's global layer.
    pub fn register(&self, registry: &ToolRegistry) -> Result<(), PackError> {
        for def in self.tools() {
            registry.register(def).map_err(PackError::Registry)?;
        }
        Ok(())
    }
}

/// The seven tools for `ctx.root`, with a fresh todo store.
pub fn tools(ctx: &PackContext) -> Result<Vec<ToolDefinition>, PackError> {
    Ok(Builtin::new(ctx)?.tools())
}

/// Register the tools for `ctx.root` globally; returns the store their `todo_write`
/// writes to, for the host to read the latest lists.
pub fn register(registry: &ToolRegistry, ctx: &PackContext) -> Result<TodoStore, PackError> {
    let pack = Builtin::new(ctx)?;
    pack.register(registry)?;
    Ok(pack.todos)
}

/// Threads for the parallel walks of `glob` and `grep` (as `rg`: the cores, at most 12).
fn walk_threads() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get().min(12))
}
