//! Skills in the Agent Skills layout: a folder holding `SKILL.md`, whose YAML front matter
//! gives the skill's `name` and `description` and whose body is its instructions, with any
//! other files beside it. The builtin pack's `skill` tool lists the [`SkillCatalog`] in its
//! description and loads a skill (or one of its files) when the model asks.
//!
//! [`discover`] reads the folders of the given sources, in order (the first skill of a name
//! wins). A skill whose folder a program could have written (under the workspace root or a
//! writable path: [`Origin::Workspace`]) is read through no symbolic link and carries the
//! digest of its files: the host lists it only if the operator trusted that digest (the `ptc`
//! command's trust store, `ptc trust --skills`), and each load checks the folder still has it.

mod folder;
mod front_matter;

use std::path::{Path, PathBuf};

pub(crate) use folder::Folder;

/// The file that makes a folder a skill.
pub const SKILL_FILE: &str = "SKILL.md";

/// Who could have written a skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Outside anything a sandboxed program may write: the operator's own.
    Operator,
    /// Under the workspace root or a writable path: text a program could have written.
    Workspace,
}

/// One skill of the catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// Its `name` (what `skill({ name })` takes).
    pub name: String,
    /// Its `description`, on one line.
    pub description: String,
    /// Its folder, canonical.
    pub dir: PathBuf,
    /// The folder as shown: relative to the workspace root inside it, else absolute.
    pub shown: String,
    /// Who could have written it.
    pub origin: Origin,
    /// sha256 of its files when discovered (see the module docs).
    pub digest: String,
}

/// What [`discover`] found.
#[derive(Debug, Clone, Default)]
pub struct Discovered {
    /// The skills, first of each name.
    pub skills: Vec<Skill>,
    /// One line each on a folder left out and why (for the operator).
    pub problems: Vec<String>,
}

/// The skills the `skill` tool offers.
#[derive(Debug, Clone, Default)]
pub struct SkillCatalog {
    skills: Vec<Skill>,
}

impl SkillCatalog {
    /// A catalog of `skills` (the host has already left out what it does not trust).
    pub fn new(skills: Vec<Skill>) -> Self {
        SkillCatalog { skills }
    }

    /// The skills, in discovery order.
    pub fn skills(&self) -> &[Skill] {
        &self.skills
    }

    /// Whether there is no skill (the pack then registers no `skill` tool).
    pub fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    /// The skill named `name`.
    pub fn get(&self, name: &str) -> Option<&Skill> {
        self.skills.iter().find(|s| s.name == name)
    }
}

impl Skill {
    /// Its folder as it is now; a workspace skill must still have the digest it was trusted with.
    pub(crate) fn read(&self) -> Result<Folder, String> {
        let folder = Folder::read(&self.dir, self.origin == Origin::Operator)?;
        if self.origin == Origin::Workspace && folder.digest() != self.digest {
            return Err(format!(
                "skill `{}` ({}) changed since it was trusted (a program may have rewritten \
                 it), so it is not loaded; ask the operator to review it and run `ptc trust \
                 --skills`",
                self.name, self.shown
            ));
        }
        Ok(folder)
    }
}

/// The skills in the folders `sources` (each a folder of skill folders; missing ones are
/// skipped), in order. `exposed` are the folders a program may write (the workspace root
/// first, whose paths are shown relative to it).
pub fn discover(sources: &[PathBuf], exposed: &[PathBuf]) -> Discovered {
    let exposed: Vec<PathBuf> = exposed
        .iter()
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect();
    let inside = |p: &Path| exposed.iter().any(|e| p.starts_with(e));
    let mut found = Discovered::default();
    for source in sources {
        let Ok(real) = std::fs::canonicalize(source) else {
            continue;
        };
        let source_exposed = inside(source) || inside(&real);
        let Ok(entries) = std::fs::read_dir(&real) else {
            continue;
        };
        let mut dirs: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        dirs.sort();
        for dir in dirs {
            let hidden = dir
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'));
            if hidden || !dir.join(SKILL_FILE).exists() {
                continue;
            }
            match one(&dir, source_exposed, &inside, exposed.first()) {
                Ok(skill) => match found.skills.iter().find(|s| s.name == skill.name) {
                    Some(first) => found.problems.push(format!(
                        "skill `{}` in {} left out: {} has the same name",
                        skill.name, skill.shown, first.shown
                    )),
                    None => found.skills.push(skill),
                },
                Err(problem) => found.problems.push(problem),
            }
        }
    }
    found
}

/// The skill in `dir`.
fn one(
    dir: &Path,
    source_exposed: bool,
    inside: &dyn Fn(&Path) -> bool,
    root: Option<&PathBuf>,
) -> Result<Skill, String> {
    let shown_of = |p: &Path| match root.and_then(|r| p.strip_prefix(r).ok()) {
        Some(rel) => rel.display().to_string(),
        None => p.display().to_string(),
    };
    let left_out = |why: String| format!("skill folder {} left out: {why}", shown_of(dir));
    let link = std::fs::symlink_metadata(dir).map_err(|e| left_out(e.to_string()))?;
    if source_exposed && link.file_type().is_symlink() {
        return Err(left_out(
            "it is a symbolic link in a folder a program can write".into(),
        ));
    }
    let real = std::fs::canonicalize(dir).map_err(|e| left_out(e.to_string()))?;
    let origin = match source_exposed || inside(&real) {
        true => Origin::Workspace,
        false => Origin::Operator,
    };
    let folder = Folder::read(&real, origin == Origin::Operator).map_err(left_out)?;
    let text = folder
        .file(SKILL_FILE)
        .ok_or_else(|| left_out(format!("its {SKILL_FILE} is not a regular file")))?;
    let text = std::str::from_utf8(text)
        .map_err(|_| left_out(format!("its {SKILL_FILE} is not UTF-8")))?;
    let (front, _) =
        front_matter::split(text).map_err(|e| left_out(format!("{SKILL_FILE}: {e}")))?;
    Ok(Skill {
        name: front.name,
        description: front.description,
        shown: shown_of(&real),
        dir: real,
        origin,
        digest: folder.digest(),
    })
}

/// The body of a `SKILL.md` (after its front matter).
pub(crate) fn body(text: &str) -> Result<&str, String> {
    front_matter::split(text).map(|(_, body)| body)
}
