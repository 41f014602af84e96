//! A skill's folder read whole and bounded: its regular files (none through a symbolic link
//! where a program could have planted one) and the digest trust is recorded against.

use std::fs;
use std::path::{Path, PathBuf};

/// Files a skill folder may hold.
const MAX_FILES: usize = 500;
/// Bytes a skill folder may hold.
const MAX_BYTES: u64 = 8 * 1024 * 1024;
/// Folder depth below the skill's own.
const MAX_DEPTH: usize = 6;

/// A skill folder's files, read at one moment.
#[derive(Debug, Clone)]
pub(crate) struct Folder {
    /// Paths relative to the folder (`/`-separated, sorted) and contents.
    pub(crate) files: Vec<(String, Vec<u8>)>,
}

impl Folder {
    /// Read `dir` whole. With `follow_links` false, links inside it are left out (a program
    /// could point one at a file of its own choosing after the folder was trusted).
    pub(crate) fn read(dir: &Path, follow_links: bool) -> Result<Folder, String> {
        let mut files = Vec::new();
        let mut bytes = 0;
        let mut pending = vec![(dir.to_path_buf(), 0usize)];
        while let Some((at, depth)) = pending.pop() {
            let entries = fs::read_dir(&at).map_err(|e| format!("{}: {e}", at.display()))?;
            for entry in entries {
                let entry = entry.map_err(|e| format!("{}: {e}", at.display()))?;
                let path = entry.path();
                let meta = match follow_links {
                    true => fs::metadata(&path),
                    false => fs::symlink_metadata(&path),
                };
                let Ok(meta) = meta else { continue };
                if meta.is_dir() && depth < MAX_DEPTH {
                    pending.push((path, depth + 1));
                } else if meta.is_file() {
                    bytes += meta.len();
                    if files.len() == MAX_FILES || bytes > MAX_BYTES {
                        return Err(format!(
                            "it holds more than {MAX_FILES} files or {} MiB",
                            MAX_BYTES / 1024 / 1024
                        ));
                    }
                    let content =
                        fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                    files.push((relative(dir, &path), content));
                }
            }
        }
        files.sort();
        Ok(Folder { files })
    }

    /// sha256 over every file's path, length and content, in path order.
    pub(crate) fn digest(&self) -> String {
        let mut all = Vec::new();
        for (path, content) in &self.files {
            all.extend_from_slice(format!("{path}\0{}\0", content.len()).as_bytes());
            all.extend_from_slice(content);
        }
        ptc::session::sha256_hex(&all)
    }

    /// The content of the file at `path` (relative to the folder).
    pub(crate) fn file(&self, path: &str) -> Option<&[u8]> {
        let path = path.trim_start_matches("./");
        self.files
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, c)| c.as_slice())
    }

    /// The paths of the files other than `SKILL.md`.
    pub(crate) fn others(&self) -> Vec<String> {
        self.files
            .iter()
            .map(|(p, _)| p.clone())
            .filter(|p| p != super::SKILL_FILE)
            .collect()
    }
}

fn relative(dir: &Path, path: &Path) -> String {
    let rel: PathBuf = path.strip_prefix(dir).unwrap_or(path).to_path_buf();
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}
