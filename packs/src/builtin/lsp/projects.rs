//! Where the workspace's Python projects keep their packages, for pyright.
//!
//! pyright resolves imports from the root it was started at (the workspace) and that root's
//! `src`. A workspace holding a project one level down (`packaging-26.4/src/packaging`, its
//! tests in `packaging-26.4/tests`) leaves `import packaging` in the tests unresolved, and
//! references from them are silently missing. Each project below the root (a folder with a
//! `pyproject.toml`, `setup.py` or `setup.cfg`) adds its `src` folder, or itself, to the
//! import roots, as an editable install of it would.

use std::path::Path;

use ignore::WalkBuilder;

/// How deep below the workspace root a project is looked for.
const DEPTH: usize = 3;

/// The files that make a folder a Python project.
const MARKERS: &[&str] = &["pyproject.toml", "setup.py", "setup.cfg"];

/// The import roots of the Python projects below `root` (not `root` itself, which pyright
/// searches already), as absolute paths, sorted; ignored and hidden folders are not looked in.
pub(crate) fn import_roots(root: &Path) -> Vec<String> {
    let mut roots: Vec<String> = WalkBuilder::new(root)
        .max_depth(Some(DEPTH))
        .require_git(false)
        .filter_entry(|e| {
            e.file_type().is_some_and(|t| t.is_dir()) && e.file_name() != "node_modules"
        })
        .build()
        .flatten()
        .filter(|e| e.depth() > 0)
        .filter(|e| MARKERS.iter().any(|m| e.path().join(m).is_file()))
        .map(|e| {
            let src = e.path().join("src");
            match src.is_dir() {
                true => src,
                false => e.into_path(),
            }
        })
        .map(|p| p.display().to_string())
        .collect();
    roots.sort();
    roots
}

#[cfg(test)]
mod tests {
    use super::import_roots;

    #[test]
    fn projects_below_the_root_add_their_src_or_themselves() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (file, body) in [
            ("pyproject.toml", ""),
            ("packaging-26.4/pyproject.toml", ""),
            ("packaging-26.4/src/packaging/__init__.py", ""),
            ("libs/flat/setup.py", ""),
            ("libs/flat/flat.py", ""),
            ("node_modules/x/pyproject.toml", ""),
            ("a/b/c/d/pyproject.toml", ""),
        ] {
            let path = root.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, body).unwrap();
        }
        let shown = |p: &str| root.join(p).display().to_string();
        assert_eq!(
            import_roots(root),
            [shown("libs/flat"), shown("packaging-26.4/src")]
        );
    }
}
