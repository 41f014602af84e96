//! Workspace trust: which configuration files the operator vouched for (`ptc trust`).
//!
//! A `ptc.toml` inside the workspace root can be written by the very programs ptc runs (a
//! `write` call, or `bash` under `danger-full-access`). So it decides what ptc executes or
//! allows only when the operator trusted its exact content: the trust store, outside the
//! workspace, maps the file's canonical path to the sha256 of the content trusted. See
//! [`super::Config::discover_trusted`] for what an untrusted or changed file does.
//!
//! The store is `$XDG_CONFIG_HOME/ptc/trusted.toml` (else `~/.config/ptc/trusted.toml`):
//!
//! ```toml
//! [trusted]
//! "/home/me/project/ptc.toml" = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
//! ```

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The trust store: canonical configuration paths and the sha256 of their trusted content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustStore {
    path: PathBuf,
}

#[derive(Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoreFile {
    #[serde(default)]
    trusted: BTreeMap<String, String>,
}

pub use ptc::session::sha256_hex;

impl TrustStore {
    /// The store kept in `path`.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        TrustStore { path: path.into() }
    }

    /// `$XDG_CONFIG_HOME/ptc/trusted.toml`, else `$HOME/.config/ptc/trusted.toml`; `None`
    /// when neither variable is set.
    pub fn default_location() -> Option<TrustStore> {
        let base = std::env::var_os("XDG_CONFIG_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
        Some(TrustStore::new(base.join("ptc").join("trusted.toml")))
    }

    /// The store's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the store lies inside `root` (canonical), where a program could forge it.
    pub fn is_inside(&self, root: &Path) -> bool {
        let mut probe = self.path.as_path();
        loop {
            if let Ok(canonical) = fs::canonicalize(probe) {
                return canonical.starts_with(root);
            }
            match probe.parent() {
                Some(parent) => probe = parent,
                None => return false,
            }
        }
    }

    /// The store's content. A store that is a symbolic link (or not a regular file) is refused:
    /// a link could have been planted to point at a file a program can write.
    fn read(&self) -> Result<StoreFile, String> {
        match super::open::read_config(&self.path, super::open::Links::FinalComponent) {
            Ok(Some(file)) => toml::from_str(&file.text)
                .map_err(|e| format!("the trust store {}: {}", self.path.display(), e.message())),
            Ok(None) => Ok(StoreFile::default()),
            Err(e) => Err(format!("the trust store: {e}")),
        }
    }

    /// The sha256 trusted for the canonical path `config`, if any.
    pub fn get(&self, config: &Path) -> Result<Option<String>, String> {
        Ok(self
            .read()?
            .trusted
            .get(&config.to_string_lossy().into_owned())
            .cloned())
    }

    /// Record `sha256` as the trusted content of the canonical path `config` (`None` forgets
    /// it). The file is replaced atomically.
    pub fn set(&self, config: &Path, sha256: Option<&str>) -> Result<(), String> {
        let mut store = self.read()?;
        let key = config.to_string_lossy().into_owned();
        match sha256 {
            Some(hash) => store.trusted.insert(key, hash.to_string()),
            None => store.trusted.remove(&key),
        };
        let text = format!(
            "# Configurations trusted with `ptc trust`: canonical path = sha256 of the content.\n{}",
            toml::to_string(&store).map_err(|e| e.to_string())?
        );
        let fail = |e: std::io::Error| format!("cannot write {}: {e}", self.path.display());
        let dir = self.path.parent().unwrap_or(Path::new("."));
        fs::create_dir_all(dir).map_err(fail)?;
        let _ = fs::set_permissions(dir, fs::Permissions::from_mode(0o700));
        // A new file of a random name (`O_CREAT | O_EXCL`: never through a link planted in its
        // place), renamed over the store, which replaces a link there rather than following it.
        let mut tmp = tempfile::Builder::new()
            .prefix(".trusted.toml.")
            .tempfile_in(dir)
            .map_err(fail)?;
        tmp.write_all(text.as_bytes()).map_err(fail)?;
        tmp.persist(&self.path).map_err(|e| fail(e.error))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writing_the_store_never_follows_a_link_planted_beside_it() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("ptc");
        fs::create_dir_all(&dir).unwrap();
        let victim = tmp.path().join("victim");
        fs::write(&victim, "untouched").unwrap();
        // The name a predictable temporary file would have had.
        let planted = dir.join(format!(".trusted.toml.{}", std::process::id()));
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        let store = TrustStore::new(dir.join("trusted.toml"));
        store.set(Path::new("/w/ptc.toml"), Some("abc")).unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "untouched");
        assert!(!fs::symlink_metadata(store.path()).unwrap().is_symlink());
        assert_eq!(
            store.get(Path::new("/w/ptc.toml")).unwrap().as_deref(),
            Some("abc")
        );
    }
}
