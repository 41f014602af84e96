//! Tool packs: named sets of tools a registry can load (`--tools builtin,testkit`).

pub mod builtin;
pub mod testkit;

use std::path::PathBuf;

use crate::error::RegistryError;
use crate::registry::ToolRegistry;
use crate::sandbox::SandboxConfig;
use builtin::{TaskLimits, TerminalLimits};

/// The names of the packs this build ships.
pub const PACKS: &[&str] = &["builtin", "testkit"];

/// What packs may need from their deployment.
#[derive(Debug, Clone)]
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
}

impl PackContext {
    /// The context for `root` with the default sandbox (`workspace-write`).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        PackContext {
            root: root.into(),
            sandbox: SandboxConfig::default(),
            tasks: TaskLimits::default(),
            terminals: TerminalLimits::default(),
        }
    }
}

impl Default for PackContext {
    fn default() -> Self {
        PackContext::new(std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")))
    }
}

/// Register the pack `name` in the registry's global layer.
pub fn register(registry: &ToolRegistry, name: &str, ctx: &PackContext) -> Result<(), PackError> {
    match name {
        "builtin" => builtin::register(registry, ctx).map(|_| ()),
        "testkit" => testkit::register(registry).map_err(PackError::Registry),
        other => Err(PackError::Unknown(other.to_string())),
    }
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
