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

#[cfg(test)]
mod tests {
    use crate::config::Config;

    #[test]
    fn mcp_start_keys_and_flags_make_the_start_options() {
        let cache = Some(ptc_mcp::ToolsCache::new("/cache"));
        let config = Config::parse("[mcp_start]\nparallel = 3\ncache = false\n", None).unwrap();
        let options = config.mcp_start.options(false, false, cache.clone());
        assert_eq!((options.parallel, options.strict), (3, false));
        assert_eq!(options.cache, None);
        let options = Config::default()
            .mcp_start
            .options(true, false, cache.clone());
        assert_eq!(options.parallel, ptc_mcp::DEFAULT_PARALLEL);
        assert!(options.strict);
        assert_eq!(options.cache, cache);
        let options = Config::default().mcp_start.options(false, true, cache);
        assert_eq!(options.cache, None);
    }

    #[test]
    fn mcp_start_bad_values_name_the_key_and_line() {
        for (text, message) in [
            ("[mcp_start]\nparallel = 0\n", "must be at least 1"),
            ("[mcp_start]\nstrict = \"yes\"\n", "strict"),
            ("[mcp_start]\nfast = true\n", "unknown field `fast`"),
        ] {
            let err = Config::parse(text, None).unwrap_err().to_string();
            assert!(
                err.starts_with("line 2: ") && err.contains(message),
                "{text}: {err}"
            );
        }
    }
}
