//! `[mcp_start]`: how the `[[mcp]]` (and `--mcp`) servers start.
//!
//! ```toml
//! [mcp_start]
//! parallel = 8       # servers starting at once (default 8)
//! strict = false     # true: one server that fails to start stops ptc (as --strict-mcp)
//! cache = true       # false: no tools/list cache, every server starts before ptc is ready
//!                    # (as --no-mcp-cache)
//! ```
//!
//! A flag only tightens: `--strict-mcp` makes the start strict, `--no-mcp-cache` turns the
//! cache off, whatever the file says.

use serde::Deserialize;

use ptc_mcp::{StartOptions, ToolsCache, DEFAULT_PARALLEL};

/// The `[mcp_start]` table; unset fields keep the defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpStartConfig {
    /// Servers starting at once (at least 1; default [`DEFAULT_PARALLEL`]).
    #[serde(default, deserialize_with = "super::positive")]
    pub parallel: Option<usize>,
    /// One failed server stops ptc (all-or-nothing).
    #[serde(default)]
    pub strict: bool,
    /// Whether servers' lists are cached for warm starts (default true).
    #[serde(default)]
    pub cache: Option<bool>,
}

impl McpStartConfig {
    /// The start options with the command line's `strict` and `no_cache` flags applied;
    /// `cache` is where the lists are kept when the cache is on.
    pub fn options(&self, strict: bool, no_cache: bool, cache: Option<ToolsCache>) -> StartOptions {
        let cached = self.cache.unwrap_or(true) && !no_cache;
        StartOptions {
            parallel: self.parallel.unwrap_or(DEFAULT_PARALLEL),
            strict: self.strict || strict,
            cache: cache.filter(|_| cached),
        }
    }
}
