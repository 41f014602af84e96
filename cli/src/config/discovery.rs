//! `[discovery]`: how many tools the model is shown up front (see [`ptc::discovery`]).
//!
//! ```toml
//! [discovery]
//! mode = "auto"              # auto | on | off; --discovery wins
//! threshold_bytes = 40000    # auto: on when the full SDK/listing would be longer
//! pinned = ["builtin", "github__create_issue"]   # tools or packs/servers always in full
//! ```
//!
//! `pinned` replaces the default (`["builtin"]`). An untrusted workspace file may set all of
//! it: discovery changes what the model is shown, never what may run (every tool is still
//! behind the same visibility, policies and pipeline).

use ptc::discovery::{Discovery, DiscoveryMode};
use serde::Deserialize;
use toml::Spanned;

/// The `[discovery]` table; unset fields keep the defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DiscoveryConfig {
    /// `auto | on | off`.
    pub mode: Option<DiscoveryMode>,
    /// The size above which `auto` switches on.
    pub threshold_bytes: Option<usize>,
    /// Tools or groups always shown in full (replaces the default).
    pub pinned: Option<Vec<String>>,
}

impl DiscoveryConfig {
    /// The registry setting: `flag` (the command line) wins over the file's mode.
    pub fn resolve(&self, flag: Option<DiscoveryMode>) -> Discovery {
        let default = Discovery::default();
        Discovery {
            mode: flag.or(self.mode).unwrap_or(default.mode),
            threshold_bytes: self.threshold_bytes.unwrap_or(default.threshold_bytes),
            pinned: self.pinned.clone().unwrap_or(default.pinned),
        }
    }
}

/// `[discovery]` as written, with positions for error messages.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawDiscovery {
    mode: Option<Spanned<String>>,
    threshold_bytes: Option<Spanned<usize>>,
    pinned: Option<Vec<String>>,
}

impl RawDiscovery {
    /// Check the values; the error is `(line, message)`.
    pub(super) fn resolve(self, text: &str) -> Result<DiscoveryConfig, (usize, String)> {
        let line = |span: std::ops::Range<usize>| super::line_of(text, span.start);
        let mode = match &self.mode {
            None => None,
            Some(mode) => Some(
                mode.get_ref()
                    .parse::<DiscoveryMode>()
                    .map_err(|e| (line(mode.span()), format!("discovery.mode: {e}")))?,
            ),
        };
        if let Some(bytes) = &self.threshold_bytes {
            if *bytes.get_ref() == 0 {
                return Err((
                    line(bytes.span()),
                    "discovery.threshold_bytes must be at least 1 (for always, set mode = \"on\")"
                        .into(),
                ));
            }
        }
        Ok(DiscoveryConfig {
            mode,
            threshold_bytes: self.threshold_bytes.map(Spanned::into_inner),
            pinned: self.pinned,
        })
    }
}
