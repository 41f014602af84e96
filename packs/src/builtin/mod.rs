//! The `builtin` pack: the seed catalog's file, search, shell, background-task, terminal
//! todo and question tools, confined to a workspace root (`ptc run --tools builtin --root DIR`).
//!
//! | tool | value (typed output) | card | scheduling |
//! |---|---|---|---|
//! | `read` | `{path, offset, lines: {number, text}[], total_lines, truncated, next_offset?}` | `read` | concurrency-safe |
//! | `write` | `{path, created, bytes, lines, hunks}` | `diff` | exclusive |
//! | `edit` | `{path, replacements, hunks}` | `diff` | exclusive |
//! | `glob` | `{paths, total, truncated}` (newest first, ≤ 100; ≤ 10,000 in a program) | `search` (paths) | concurrency-safe |
//! | `grep` | `{matches: {path, line, text}[], total, files, truncated}` (≤ 250; ≤ 10,000 in a program) | `search` (matches) | concurrency-safe |
//! | `bash` | `{exit_code?, signal?, stdout, stderr, output, truncated, task_id?}` | `terminal` | exclusive |
//! | `todo_write` | `{todos, pending, in_progress, completed}` | — | exclusive |
//! | `task_list` | `{tasks: {task_id, kind, state, status, …}[]}` | — | concurrency-safe |
//! | `task_output` | `{task_id, state, status, output, dropped_bytes, …}` | — | concurrency-safe |
//! | `task_kill` | `{task_id, killed, state, status, …}` | — | concurrency-safe |
//! | `terminal_open` | `{sessionId, type, cwd, output, until, state, status, …}` | — | exclusive |
//! | `terminal_send` | `{sessionId, output, until, state, status, task_id?, …}` | — | exclusive |
//! | `terminal_read` | `{sessionId, output, lines, skipped_lines, …}` | — | concurrency-safe |
//! | `terminal_list` | `{terminals: {sessionId, type, state, status, …}[]}` | — | concurrency-safe |
//! | `terminal_signal` | `{sessionId, signal, shell}` | — | exclusive |
//! | `terminal_close` | `{sessionId, status, gone, waited_ms}` | — | exclusive |
//! | `lsp` | `{locations?, markdown?, symbols?, diagnostics?}` (a language server's answer) | — | concurrency-safe |
//! | `ask_user_question` | `{answers: {id, answer: string[]}[]}` (the agent's `QuestionService`, else the terminal) | — | exclusive |
//! | `skill` | `{name, description, path, text, files}` (only when [`PackContext::skills`](crate::PackContext::skills) has one) | — | concurrency-safe |
//! | `web_fetch` | `{final_url, status, content_type, offset, text, total_lines, truncated, next_offset?}` (SSRF-guarded, see [`web_fetch`]) | — | concurrency-safe |
//!
//! Names, parameter names, types, descriptions and required lists are the seed
//! catalog's, with deliberate differences: `glob` and `grep` take an `offset` to page past
//! their cap; the items of `todo_write` and `ask_user_question` are closed
//! (`additionalProperties: false`: an unknown key fails the call, naming it); the tool descriptions of `glob`, `grep` and
//! `bash` do not promise a spill file or `$DSH_*` variables, which this pack does not
//! provide; descriptions of the task and terminal tools add what this pack does (caps,
//! backends, how a kill is sent); `terminal_read` also takes `wait` and `timeout_ms`; `skill` also takes `file` (a skill's
//! files may lie outside the root `read` is confined to);
//! `terminal_signal` sends only what the PTY delivers to its foreground job (`SIGINT`,
//! `SIGQUIT`, `SIGTSTP`: never a process group by number). `bash`,
//! background tasks and terminals run in the kernel sandbox of [`crate::sandbox`]; `write`
//! and `edit` refuse the protected files of `PackContext::sandbox`.
//!
//! In a `run_code` program the caps of `read`, `glob` and `grep` are data caps (see
//! `data_caps.rs`): a cap that still cuts a result is said through
//! `ToolRunContext::cut_short` (anything else a program should not miss through
//! `ToolRunContext::note`), and a `write` of a file the same run read only in part, or
//! that changed since the run read or wrote it, is refused (`partial_reads.rs`).
//!
//! Background tasks ([`tasks`]) and terminals ([`terminal`]) belong to the calling agent's
//! [`Owner`] (or, without one, the pack's own, which ends when the pack's tools are
//! dropped), are capped per owner, and die with it.
//!
//! Every path goes through [`Workspace::resolve`] and every file is opened race-free through
//! `Workspace::open` (see [`workspace`]); the sandbox's deny paths bind every file tool as
//! they bind `bash`. Paths in values are relative to the root. The host reads the session todo lists through the
//! [`TodoStore`] of [`Builtin::todos`] (or the one [`register`] returns), and each owner's
//! tasks and terminals through [`Builtin::tasks`] and [`Builtin::terminals`].

mod ask;
mod background;
mod bash;
mod beneath;
mod data_caps;
mod deny;
mod diff;
mod edit;
mod file_form;
mod glob;
mod grep;
mod lsp;
mod partial_reads;
mod path_glob;
mod per_run;
mod read;
mod scratch;
mod shared;
mod skill;
pub mod tasks;
pub mod terminal;
mod text_encoding;
mod todo;
mod walk;
pub mod web_fetch;
pub mod workspace;
mod write;

use std::sync::Arc;

pub use deny::SECRET_DIRS;
pub use lsp::config::LspServerConfig;
pub use tasks::{TaskInfo, TaskLimits, TaskStore};
pub use terminal::{TerminalInfo, TerminalLimits, TerminalStore};
pub use todo::{Todo, TodoSnapshot, TodoStatus, TodoStore};
pub use web_fetch::{HostPattern, WebConfig};
pub use workspace::{Resolved, Workspace};

use super::{PackContext, PackError};
use crate::sandbox::Sandbox;
use crate::skills::SkillCatalog;
use background::Background;
use ptc::policy::question::QuestionService;
use ptc::Owner;
use ptc::ToolDefinition;
use ptc::ToolRegistry;

/// The names of the pack's tools, in registration order (`skill` only when there is a skill).
pub const TOOLS: &[&str] = &[
    "read",
    "write",
    "edit",
    "glob",
    "grep",
    "bash",
    "todo_write",
    "task_list",
    "task_output",
    "task_kill",
    "terminal_open",
    "terminal_send",
    "terminal_read",
    "terminal_list",
    "terminal_signal",
    "terminal_close",
    "lsp",
    "ask_user_question",
    "web_fetch",
    "skill",
];

/// The pack for one workspace: its confinement, its todo store, and its stores of
/// background tasks and terminals.
#[derive(Clone)]
pub struct Builtin {
    bg: Background,
    todos: TodoStore,
    questions: Option<Arc<dyn QuestionService>>,
    reads: Arc<partial_reads::ReadLog>,
    skills: SkillCatalog,
    web: Arc<web_fetch::Client>,
    lsp: lsp::Servers,
}

impl std::fmt::Debug for Builtin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Builtin")
            .field("root", &self.bg.ws.root())
            .field("sandbox", &self.bg.sandbox.mode())
            .field("todos", &self.todos)
            .finish_non_exhaustive()
    }
}

impl Builtin {
    /// The pack for `ctx.root` (which must be an existing directory) under `ctx.sandbox`,
    /// with a fresh todo store.
    pub fn new(ctx: &PackContext) -> Result<Self, PackError> {
        let workspace = Workspace::new(&ctx.root)?.with_protected(&ctx.sandbox.protected);
        let sandbox = Sandbox::new(&ctx.sandbox, workspace.root()).map_err(PackError::Setup)?;
        let workspace = workspace.with_denied(sandbox.deny_paths());
        Ok(Builtin {
            bg: Background {
                ws: Arc::new(workspace),
                sandbox: Arc::new(sandbox),
                tasks: TaskStore::new(ctx.tasks),
                terminals: TerminalStore::new(ctx.terminals),
                scratch: Default::default(),
                fallback: Owner::new("builtin"),
            },
            todos: TodoStore::new(),
            questions: ctx.questions.clone(),
            reads: Arc::default(),
            skills: ctx.skills.clone(),
            web: web_fetch::client(ctx.web.clone()),
            lsp: lsp::Servers::new(ctx.lsp.clone()),
        })
    }

    /// The sandbox `bash`, background tasks and terminals run in.
    pub fn sandbox(&self) -> &Sandbox {
        &self.bg.sandbox
    }

    /// Every owner's background tasks.
    pub fn tasks(&self) -> &TaskStore {
        &self.bg.tasks
    }

    /// Every owner's terminals.
    pub fn terminals(&self) -> &TerminalStore {
        &self.bg.terminals
    }

    /// The owner of the background work of calls whose agent has none. It ends when the last
    /// clone of this pack and of its tools is dropped (or when the host ends it).
    pub fn owner(&self) -> &Owner {
        &self.bg.fallback
    }

    /// The same pack writing its todo lists to `store` (e.g. one a UI already watches).
    pub fn with_todos(mut self, store: TodoStore) -> Self {
        self.todos = store;
        self
    }

    /// The confinement every tool uses.
    pub fn workspace(&self) -> &Workspace {
        &self.bg.ws
    }

    /// The store `todo_write` writes to: the host reads the latest lists here.
    pub fn todos(&self) -> &TodoStore {
        &self.todos
    }

    /// The tool definitions, in [`TOOLS`] order.
    pub fn tools(&self) -> Vec<ToolDefinition> {
        let ws = &self.bg.ws;
        let bg = &self.bg;
        vec![
            read::tool(ws.clone(), self.reads.clone()),
            write::tool(ws.clone(), self.reads.clone()),
            edit::tool(ws.clone()),
            glob::tool(ws.clone()),
            grep::tool(ws.clone()),
            bash::tool(bg.clone()),
            todo::tool(self.todos.clone()),
            tasks::tools::list_tool(bg.clone()),
            tasks::tools::output_tool(bg.clone()),
            tasks::tools::kill_tool(bg.clone()),
            terminal::open_tool(bg.clone()),
            terminal::send_tool(bg.clone()),
            terminal::read_tool(bg.clone()),
            terminal::list_tool(bg.clone()),
            terminal::signal_tool(bg.clone()),
            terminal::close_tool(bg.clone()),
            lsp::tool(bg.clone(), self.lsp.clone()),
            ask::tool(self.questions.clone()),
            web_fetch::tool(self.web.clone()),
        ]
        .into_iter()
        .chain((!self.skills.is_empty()).then(|| skill::tool(self.skills.clone())))
        .collect()
    }

    /// Register the tools in the registry's global layer.
    pub fn register(&self, registry: &ToolRegistry) -> Result<(), PackError> {
        for def in self.tools() {
            registry.register(def).map_err(PackError::Registry)?;
        }
        Ok(())
    }
}

/// The tools for `ctx.root`, with fresh stores.
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
