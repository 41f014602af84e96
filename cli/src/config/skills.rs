//! `[skills]`: where the builtin pack's `skill` tool finds skills (see [`ptc_packs::skills`]).
//!
//! ```toml
//! [skills]
//! paths = ["/srv/team-skills", "skills"]   # folders of skill folders; relative: to this file
//! ```
//!
//! `paths` replaces the defaults, in this order: `$XDG_CONFIG_HOME/ptc/skills` (else
//! `~/.config/ptc/skills`), `~/.claude/skills`, then the workspace's `.ptc/skills` and
//! `.claude/skills`; the first skill of a name wins. A skill a program could have written
//! (inside the workspace or a writable path) is listed only while its files are exactly what
//! the operator trusted with `ptc trust --skills`. An untrusted workspace `ptc.toml` cannot set
//! `[skills]`.

use std::path::{Path, PathBuf};

use ptc_packs::skills::{self, Origin, SkillCatalog};
use serde::Deserialize;

use super::TrustStore;

/// The `[skills]` table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkillsConfig {
    /// Folders of skill folders, replacing the defaults.
    pub paths: Option<Vec<PathBuf>>,
}

impl SkillsConfig {
    /// The same with relative paths resolved against `dir` (the configuration's folder).
    pub(super) fn resolved(mut self, dir: Option<&Path>) -> Self {
        if let (Some(paths), Some(dir)) = (&mut self.paths, dir) {
            for path in paths.iter_mut().filter(|p| p.is_relative()) {
                *path = dir.join(&*path);
            }
        }
        self
    }

    /// The folders to look in, for the workspace `root`.
    pub fn sources(&self, root: &Path) -> Vec<PathBuf> {
        if let Some(paths) = &self.paths {
            return paths.clone();
        }
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let config = std::env::var_os("XDG_CONFIG_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(".config")));
        config
            .map(|c| c.join("ptc").join("skills"))
            .into_iter()
            .chain(home.map(|h| h.join(".claude").join("skills")))
            .chain([
                root.join(".ptc").join("skills"),
                root.join(".claude").join("skills"),
            ])
            .collect()
    }

    /// The catalog for `root` (`exposed`: the folders a program may write, the root first):
    /// a workspace skill only when `store` trusts its files as they are. The notices say
    /// what was left out and why.
    pub fn catalog(
        &self,
        root: &Path,
        exposed: &[PathBuf],
        store: Option<&TrustStore>,
    ) -> (SkillCatalog, Vec<String>) {
        let mut found = skills::discover(&self.sources(root), exposed);
        let mut notices = std::mem::take(&mut found.problems);
        let mut untrusted = Vec::new();
        found.skills.retain(|skill| {
            let trusted = skill.origin == Origin::Operator
                || store
                    .and_then(|s| s.get(&skill.dir).ok().flatten())
                    .is_some_and(|digest| digest == skill.digest);
            if !trusted {
                untrusted.push(format!("`{}` ({})", skill.name, skill.shown));
            }
            trusted
        });
        if !untrusted.is_empty() {
            notices.push(format!(
                "workspace skills not listed (never trusted, or changed since: a program could \
                 have written them): {}. Review them, then run `ptc trust --skills --root {}`",
                untrusted.join(", "),
                root.display()
            ));
        }
        (SkillCatalog::new(found.skills), notices)
    }
}
