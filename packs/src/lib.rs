//! # ptc-packs — the tool packs ptc ships
//!
//! A pack is a named set of tools a [`ToolRegistry`] can load (`--tools builtin,testkit`):
//!
//! - [`builtin`] — the seed catalog's coding tools (read, write, edit, glob, grep, bash,
//!   background tasks, terminals, todos, questions), confined to a workspace root;
//! - `testkit` — small tools for trying code mode ([`ptc::testkit`]);
//! - [`sandbox`] — the kernel sandbox (Landlock, seccomp, namespaces) of the processes the
//!   builtin pack starts;
//! - [`skills`] — the Agent Skills catalog the builtin pack's `skill` tool offers;
//! - [`fs_tree`] — removing directory trees (the sandbox's scratch directories) iteratively.
//!
//! ```no_run
//! use ptc::ToolRegistry;
//! use ptc_packs::{register_list, PackContext};
//!
//! let registry = ToolRegistry::new();
//! register_list(&registry, "builtin,testkit", &PackContext::new("/path/to/workspace")).unwrap();
//! ```

pub mod builtin;
pub mod fs_tree;
pub mod sandbox;
pub mod skills;

use std::path::PathBuf;
use std::sync::Arc;

use crate::sandbox::SandboxConfig;
use builtin::{TaskLimits, TerminalLimits, WebConfig};
use ptc::policy::question::QuestionService;
use ptc::RegistryError;
use ptc::ToolRegistry;

/// Make ring the process's default TLS provider, unless one is set. `web_fetch` brings rustls
/// without a default provider, and feature unification gives every other reqwest client of the
/// process (e.g. an OTLP exporter's) the same rustls: without a default, building one panics.
/// Hosts call this once at start-up.
pub fn install_tls_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// The names of the packs this build ships.
pub const PACKS: &[&str] = &["builtin", "testkit"];

/// What packs may need from their deployment.
#[derive(Clone)]
pub struct PackContext {
    /// The workspace root that file and shell tools are confined to.
    pub root: PathBuf,
    /// The kernel sandbox of the processes tools start (`bash`, background tasks,
    /// terminals), and the files no tool may change.
    pub sandbox: SandboxConfig,
    /// The caps of background tasks (`[tasks]`).
    pub tasks: TaskLimits,
    /// The caps of terminals (`[terminals]`).
    pub terminals: TerminalLimits,
    /// Who answers `ask_user_question` when the calling agent brings no question service
    /// (the `ptc` command asks on its terminal); `None`: such a call fails, saying no one
    /// can be asked.
    pub questions: Option<Arc<dyn QuestionService>>,
    /// The skills the builtin pack's `skill` tool offers (none: no `skill` tool).
    pub skills: skills::SkillCatalog,
    /// What `web_fetch` may reach and read (`[web]`).
    pub web: WebConfig,
    /// The language servers of the `lsp` tool (`[[lsp]]`), before the defaults on `PATH`.
    pub lsp: Vec<builtin::LspServerConfig>,
}

impl std::fmt::Debug for PackContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PackContext")
            .field("root", &self.root)
            .field("sandbox", &self.sandbox)
            .field("tasks", &self.tasks)
            .field("terminals", &self.terminals)
            .field("questions", &self.questions.is_some())
            .field("skills", &self.skills.skills().len())
            .field("web", &self.web)
            .field("lsp", &self.lsp)
            .finish()
    }
}

impl PackContext {
    /// The context for `root` with the default sandbox (`workspace-write`).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        PackContext {
            root: root.into(),
            sandbox: SandboxConfig::default(),
            tasks: TaskLimits::default(),
            terminals: TerminalLimits::default(),
            questions: None,
            skills: skills::SkillCatalog::default(),
            web: WebConfig::default(),
            lsp: Vec::new(),
        }
    }
}

impl Default for PackContext {
    fn default() -> Self {
        PackContext::new(std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")))
    }
}

/// Register the pack `name` in the registry's global layer, its tools named as a group
/// (discovery's overview gives it one line, and `pinned` may name it).
pub fn register(registry: &ToolRegistry, name: &str, ctx: &PackContext) -> Result<(), PackError> {
    let names = |registry: &ToolRegistry| -> Vec<String> {
        let view = registry.view(None, None);
        view.definitions()
            .iter()
            .map(|d| d.name().to_string())
            .collect()
    };
    let before = names(registry);
    let about = match name {
        "builtin" => {
            builtin::register(registry, ctx)?;
            "coding tools: read, write and edit files, search them, run commands, background tasks, terminals"
        }
        "testkit" => {
            ptc::testkit::register(registry).map_err(PackError::Registry)?;
            "small tools for trying code mode"
        }
        other => return Err(PackError::Unknown(other.to_string())),
    };
    let tools = names(registry)
        .into_iter()
        .filter(|n| !before.contains(n))
        .collect();
    // The group lives as long as the registry.
    std::mem::forget(registry.add_tool_group(ptc::discovery::ToolGroup {
        name: name.to_string(),
        about: Some(about.to_string()),
        tools,
    }));
    Ok(())
}

/// Register each pack of a comma-separated list such as `"testkit"`.
pub fn register_list(
    registry: &ToolRegistry,
    list: &str,
    ctx: &PackContext,
) -> Result<(), PackError> {
    for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        register(registry, name, ctx)?;
    }
    Ok(())
}

/// A pack could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum PackError {
    /// No pack has that name.
    #[error("unknown tool pack `{0}` (available: {list})", list = PACKS.join(", "))]
    Unknown(String),
    /// A tool of the pack could not be registered.
    #[error(transparent)]
    Registry(RegistryError),
    /// The pack could not be set up (e.g. the workspace root does not exist).
    #[error("{0}")]
    Setup(String),
}
