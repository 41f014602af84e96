//! Discovery: hundreds of tools offered in a few kilobytes.
//!
//! With discovery on, the model is not shown every tool up front: it sees the guidance, the
//! three discovery tools ([`SEARCH_TOOLS`], [`DESCRIBE_TOOLS`], [`CALL_TOOL`]), the pinned
//! tools in full, and one line per server or pack (name, tool count, what it is for). It finds
//! the rest with `search_tools`, reads their declarations with `describe_tools`, and calls
//! them, from a program (`tools.x(args)`: every visible tool stays callable whether it was
//! declared or not) or natively (`call_tool`, or the tool itself once a search returned it:
//! found tools join that owner's native list, see [`ToolView::for_owner`](crate::ToolView::for_owner)).
//!
//! [`Discovery`] is a registry setting like the mode ([`ToolRegistry::set_discovery`](crate::ToolRegistry::set_discovery)):
//! `auto` (the default) switches on when the whole model input of the visible tools would
//! pass `threshold_bytes`. It only changes what the model is shown, never what may run:
//! policies, visibility and the pipeline apply to every call as before.
//!
//! Parts: `settings` (the setting and the groups of tools), `compact` (the up-front model
//! input), `overview` (its text), `rank` (the search index), `index` (indexes cached per tool
//! set), `signature` (a tool's short TypeScript call form) and `tools` (the pack). `settings`,
//! `compact` and `overview` sit with the registry (it consults them for every listing); `tools`
//! sits with code mode, above the pipeline.

mod compact;
mod index;
mod overview;
pub mod rank;
mod settings;
mod signature;
mod tools;

pub(crate) use compact::{callable, model_input, SECTION_ID};
pub(crate) use settings::DiscoveryState;
pub use settings::{Discovery, DiscoveryMode, ToolGroup, DEFAULT_THRESHOLD_BYTES};
pub use tools::{register, tools, CALL_TOOL, DESCRIBE_TOOLS, SEARCH_TOOLS};

/// Whether `name` is one of the discovery tools.
pub fn is_discovery_tool(name: &str) -> bool {
    matches!(name, SEARCH_TOOLS | DESCRIBE_TOOLS | CALL_TOOL)
}
