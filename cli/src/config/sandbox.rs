//! `[sandbox]`: the kernel sandbox of `bash` (see [`ptc_packs::sandbox`]).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use ptc_packs::sandbox::{expand_path, SandboxConfig, SandboxMode};

/// `[sandbox]` as written; [`SandboxSection::resolve`] makes it a [`SandboxConfig`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SandboxSection {
    /// `read-only | workspace-write | danger-full-access`.
    pub mode: Option<SandboxMode>,
    /// Paths no command may read, added to the defaults (`~/` is the home directory; a
    /// relative path is relative to the workspace root); the file tools neither read nor
    /// write them either.
    #[serde(default)]
    pub deny_read: Vec<String>,
    /// More paths commands may write under `workspace-write`.
    #[serde(default)]
    pub writable: Vec<String>,
    /// Whether commands may use the network (default false).
    pub network: Option<bool>,
}

impl SandboxSection {
    /// The sandbox to run under: `flag` (the command line) wins over the file. A file that may
    /// not widen authority (`trusted == false`) can only make it stricter: its mode applies
    /// only when stricter than the default, `writable` and `network = true` are ignored.
    /// `protected` are the files no tool may change.
    pub fn resolve(
        &self,
        root: &Path,
        flag: Option<SandboxMode>,
        trusted: bool,
        protected: Vec<PathBuf>,
    ) -> SandboxConfig {
        let mode = match (flag, self.mode) {
            (Some(mode), _) => mode,
            (None, Some(mode)) if trusted => mode,
            (None, Some(mode)) => mode.min(SandboxMode::default()),
            (None, None) => SandboxMode::default(),
        };
        let expand = |paths: &[String]| paths.iter().map(|p| expand_path(p, root)).collect();
        SandboxConfig {
            mode,
            deny_read: expand(&self.deny_read),
            writable: if trusted {
                expand(&self.writable)
            } else {
                Vec::new()
            },
            network: trusted && self.network.unwrap_or(false),
            protected,
        }
    }

    /// The settings an untrusted file cannot apply (for the notice that says so).
    pub(super) fn widening(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.mode == Some(SandboxMode::DangerFullAccess) {
            out.push("sandbox.mode = \"danger-full-access\"".to_string());
        }
        if !self.writable.is_empty() {
            out.push("sandbox.writable".to_string());
        }
        if self.network == Some(true) {
            out.push("sandbox.network = true".to_string());
        }
        out
    }
}
