//! The one glob `glob`'s `pattern` and `grep`'s `include` filter paths with.
//!
//! Both mean what `rg --glob` means, relative to the searched directory: a glob without `/`
//! matches a name at any depth, one with `/` (or a leading `/`) is anchored at the directory.
//! Models also write the directory into the glob: `./src/**/*.ts`, `./*.md`, or an absolute
//! path under the directory. Taken literally those match nothing, silently; here they mean what
//! they say: the part naming the directory is dropped and the rest is anchored there
//! (`./*.md` is the directory's own `.md` files, not every `.md` below it).

use std::borrow::Cow;
use std::path::Path;

use ignore::overrides::{Override, OverrideBuilder};
use ptc::ToolError;

use super::shared::invalid_args;
use super::workspace::Workspace;

/// The override matching `pattern` (the argument `what`) under `dir`.
pub(crate) fn path_glob(dir: &Path, pattern: &str, what: &str) -> Result<Override, ToolError> {
    if pattern.starts_with('!') {
        return Err(invalid_args(format!(
            "`{what}` starts with `!`; negated globs are not supported"
        )));
    }
    if let Some(parts) = listed(pattern) {
        return Err(invalid_args(format!(
            "`{what}` `{pattern}` is one glob, not a list (a comma outside braces or a space \
             matches itself in a name): for several, use braces: `{{{}}}`",
            parts.join(",")
        )));
    }
    let pattern = anchored(dir, pattern);
    let invalid = |e: ignore::Error| invalid_args(format!("`{what}` is not a valid glob: {e}"));
    let mut builder = OverrideBuilder::new(dir);
    builder.add(&pattern).map_err(invalid)?;
    builder.build().map_err(invalid)
}

/// The parts of `pattern` when it has a comma outside braces (`*.js,*.ts`), or is made of
/// globs with wildcards separated by spaces (`*.ts *.js`; a name with a space, `My Docs/*`,
/// is not): a list a model meant, which as one glob would match nothing.
fn listed(pattern: &str) -> Option<Vec<&str>> {
    let spaced: Vec<&str> = pattern.split_whitespace().collect();
    if spaced.len() > 1 && spaced.iter().all(|part| part.contains(['*', '?'])) {
        return Some(spaced);
    }
    let (mut depth, mut start, mut parts) = (0usize, 0, Vec::new());
    for (at, c) in pattern.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(pattern[start..at].trim());
                start = at + 1;
            }
            _ => {}
        }
    }
    if parts.is_empty() {
        return None;
    }
    parts.push(pattern[start..].trim());
    Some(parts)
}

/// `pattern` with a leading `./` (any number of them) or `dir`'s own absolute path turned into
/// an anchor at `dir`; any other pattern unchanged.
fn anchored<'a>(dir: &Path, pattern: &'a str) -> Cow<'a, str> {
    let mut rest = pattern;
    while let Some(after) = rest.strip_prefix("./") {
        rest = after;
    }
    if rest.len() != pattern.len() {
        return Cow::Owned(format!("/{rest}"));
    }
    match Path::new(pattern).strip_prefix(dir) {
        Ok(below) if pattern.starts_with('/') => match below.to_str() {
            Some("") => Cow::Borrowed(pattern),
            Some(below) => Cow::Owned(format!("/{below}")),
            None => Cow::Borrowed(pattern),
        },
        _ => Cow::Borrowed(pattern),
    }
}

/// The folder a glob is anchored in below `dir`: its leading components before any wildcard,
/// once anchored as [`path_glob`] anchors it (`src/lib` of `src/lib/**/*.ts`); `None` for a
/// glob that matches at any depth or starts with a wildcard, or one that would leave `dir`.
pub(crate) fn literal_folder(dir: &Path, pattern: &str) -> Option<String> {
    let anchored = anchored(dir, pattern);
    let rest = anchored.trim_start_matches('/');
    let mut parts: Vec<&str> = rest.split('/').collect();
    parts.pop();
    let literal: Vec<&str> = parts
        .into_iter()
        .take_while(|part| !part.contains(['*', '?', '[', '{', '\\']))
        .collect();
    if literal.is_empty() || literal.iter().any(|part| matches!(*part, "" | "." | "..")) {
        return None;
    }
    Some(literal.join("/"))
}

/// The folder a glob is anchored in ([`literal_folder`]) when it does not exist under `dir`
/// (`srcx/**/*.ts` with no `srcx`): nothing could match.
fn missing_folder(dir: &Path, pattern: &str) -> Option<String> {
    let folder = literal_folder(dir, pattern)?;
    match std::fs::symlink_metadata(dir.join(&folder)) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(folder),
        _ => None,
    }
}

/// What a glob that matched no file under `path` in `ws` may have meant: one of the
/// shapes of [`no_match_hint`], else that the folder it is anchored in is not there
/// ([`missing_folder`]).
pub(crate) fn no_match_note(ws: &Workspace, pattern: &str, path: &str) -> Option<String> {
    if let Some(hint) = no_match_hint(pattern, path) {
        return Some(hint);
    }
    let dir = ws.resolve(path, "path").ok()?.path;
    let folder = missing_folder(&dir, pattern)?;
    let anywhere = match pattern.starts_with(['/', '.']) {
        false => format!(": `**/{pattern}` matches it at any depth"),
        true => String::new(),
    };
    Some(format!(
        "`{pattern}` is anchored at `{path}`, which has no folder `{folder}`{anywhere}"
    ))
}

/// What a glob that matched no file under `path` may have meant, for a note: the shapes that
/// match nothing as written (a folder, a bare extension, the searched folder written into the
/// glob again). `None` for any other glob: it matched nothing because nothing is there.
fn no_match_hint(pattern: &str, path: &str) -> Option<String> {
    let wildcard = pattern.contains(['*', '?', '[', '{']);
    if let Some(folder) = pattern.strip_suffix('/').filter(|f| !f.is_empty()) {
        return Some(format!(
            "`{pattern}` names a folder, and only files match: `{folder}/**` is every file under it"
        ));
    }
    let searched = path.trim_end_matches('/');
    let name = Path::new(searched).file_name().and_then(|n| n.to_str());
    let whole = Some(searched).filter(|s| !s.is_empty() && *s != ".");
    for written in [whole, name].into_iter().flatten() {
        if let Some(rest) = pattern.strip_prefix(&format!("{written}/")) {
            return Some(format!(
                "`{pattern}` is matched relative to `{searched}`, which is already `{written}`: \
                 write `{rest}`"
            ));
        }
    }
    if wildcard || pattern.contains('/') {
        return None;
    }
    let extension = |ext: &str| {
        !ext.is_empty() && ext.len() <= 5 && ext.chars().all(|c| c.is_ascii_alphanumeric())
    };
    match pattern.strip_prefix('.') {
        Some(ext) if extension(ext) => Some(format!(
            "`{pattern}` matches only a name that is exactly `{pattern}`: `*{pattern}` is the files \
             ending in it"
        )),
        None if extension(pattern) => Some(format!(
            "`{pattern}` matches only a name that is exactly `{pattern}`: `*.{pattern}` is the files \
             with that extension"
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::{anchored, listed, missing_folder, no_match_hint};

    #[test]
    fn a_glob_anchored_in_a_folder_that_does_not_exist_is_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src/lib")).unwrap();
        let missing = |pattern| missing_folder(dir.path(), pattern);
        assert_eq!(missing("srcx/**/*.ts").as_deref(), Some("srcx"));
        assert_eq!(missing("./src/libx/*.ts").as_deref(), Some("src/libx"));
        assert_eq!(
            missing("src/lib/deep/x.ts").as_deref(),
            Some("src/lib/deep")
        );
        // The folder is there, or nothing before a wildcard names one, or it would leave.
        for pattern in [
            "src/**/*.ts",
            "src/lib/*.ts",
            "*.ts",
            "**/x/*.ts",
            "s*/a/*.ts",
            "../x/*.ts",
        ] {
            assert_eq!(missing(pattern), None, "{pattern}");
        }
    }

    #[test]
    fn a_glob_that_matched_nothing_as_written_gets_what_it_may_have_meant() {
        let hint = |pattern, path| no_match_hint(pattern, path).unwrap_or_default();
        assert!(hint("click/", ".").contains("`click/**` is every file under it"));
        assert!(hint("click/tests/*.py", "click").contains("write `tests/*.py`"));
        assert!(hint("src/click/tests/*.py", "src/click/").contains("write `tests/*.py`"));
        assert!(hint(".py", "click").contains("`*.py` is the files ending in it"));
        assert!(hint("py", ".").contains("`*.py` is the files with that extension"));
        // Globs that mean what they say matched nothing because nothing is there.
        for pattern in ["*.py", "locale/*/index.js", "README.md", "Makefile", "a/b"] {
            assert_eq!(no_match_hint(pattern, "."), None, "{pattern}");
        }
    }

    #[test]
    fn globs_separated_by_commas_or_spaces_are_a_list_a_name_with_a_space_is_not() {
        assert_eq!(listed("*.js,*.ts"), Some(vec!["*.js", "*.ts"]));
        assert_eq!(listed("*.ts *.js"), Some(vec!["*.ts", "*.js"]));
        assert_eq!(
            listed("src/*.ts  test/*.ts"),
            Some(vec!["src/*.ts", "test/*.ts"])
        );
        for one in ["*.{js,ts}", "My Docs/*.txt", "notes *.md", "*.ts"] {
            assert_eq!(listed(one), None, "{one}");
        }
    }

    #[test]
    fn the_directory_written_into_a_glob_anchors_it_there() {
        let dir = Path::new("/work/ws");
        for (pattern, meant) in [
            ("./src/**/*.ts", "/src/**/*.ts"),
            ("./*.md", "/*.md"),
            ("././a/b.txt", "/a/b.txt"),
            ("/work/ws/src/*.ts", "/src/*.ts"),
            ("/work/ws/**/*.rs", "/**/*.rs"),
            // Globs that already mean something are left alone.
            ("*.ts", "*.ts"),
            ("src/**/*.ts", "src/**/*.ts"),
            ("/src/*.ts", "/src/*.ts"),
            ("/work/wsx/*.ts", "/work/wsx/*.ts"),
            ("/work/ws", "/work/ws"),
            ("**/*.{js,jsx}", "**/*.{js,jsx}"),
        ] {
            assert_eq!(anchored(dir, pattern), meant, "{pattern}");
        }
    }
}
