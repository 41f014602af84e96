//! `[log]`: where `ptc run` and `ptc serve` keep session events (see [`crate::store`]).
//!
//! ```toml
//! [log]
//! url = "sqlite:/var/lib/ptc/runs.sqlite"   # PATH (JSON lines) | sqlite:PATH | postgres://… | off
//! ```
//!
//! A relative path is relative to the file's directory. `--log` wins over it. Without either, `ptc serve` logs to [`crate::store::default_sqlite`]
//! and `ptc run` does not log. An untrusted workspace file's `url` is ignored: it would send
//! every tool's arguments and results elsewhere.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use crate::store::LogTarget;

/// The `[log]` table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogConfig {
    /// Where session events go, if set.
    pub url: Option<LogTarget>,
}

impl LogConfig {
    /// Drop the URL (for an untrusted file); what was dropped.
    pub(super) fn restrict_untrusted(&mut self) -> Option<String> {
        self.url.take().map(|_| "[log] url".to_string())
    }
}

/// `[log]` as written, with positions for error messages.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawLog {
    url: Option<Spanned<String>>,
}

impl RawLog {
    /// Check the URL (a relative file path is relative to `dir`, the file's directory); the
    /// error is `(line, message)`.
    pub(super) fn resolve(
        self,
        text: &str,
        dir: Option<&Path>,
    ) -> Result<LogConfig, (usize, String)> {
        let Some(url) = self.url else {
            return Ok(LogConfig::default());
        };
        let line = super::line_of(text, url.span().start);
        let target = match url.get_ref().parse::<LogTarget>() {
            Ok(LogTarget::Jsonl(path)) => LogTarget::Jsonl(beside(dir, path)),
            Ok(LogTarget::Sqlite(path)) => LogTarget::Sqlite(beside(dir, path)),
            Ok(other) => other,
            Err(e) => return Err((line, format!("log.url: {e}"))),
        };
        Ok(LogConfig { url: Some(target) })
    }
}

fn beside(dir: Option<&Path>, path: PathBuf) -> PathBuf {
    match dir {
        Some(dir) if path.is_relative() => dir.join(path),
        _ => path,
    }
}
