//! Tool packs: named sets of tools a registry can load (`--tools testkit`).

pub mod testkit;

use crate::error::RegistryError;
use crate::registry::ToolRegistry;

/// The names of the packs this build ships.
pub const PACKS: &[&str] = &["testkit"];

/// Register the pack `name` in the registry's global layer.
pub fn register(registry: &ToolRegistry, name: &str) -> Result<(), PackError> {
    match name {
        "testkit" => testkit::register(registry).map_err(PackError::Registry),
        other => Err(PackError::Unknown(other.to_string())),
    }
}

/// Register each pack of a comma-separated list such as `"testkit"`.
pub fn register_list(registry: &ToolRegistry, list: &str) -> Result<(), PackError> {
    for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        register(registry, name)?;
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
}
