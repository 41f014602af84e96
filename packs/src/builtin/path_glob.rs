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

/// The override matching `pattern` (the argument `what`) under `dir`.
pub(crate) fn path_glob(dir: &Path, pattern: &str, what: &str) -> Result<Override, ToolError> {
    if pattern.starts_with('!') {
        return Err(invalid_args(format!(
            "`{what}` starts with `!`; negated globs are not supported"
        )));
    }
    if let Some(parts) = listed(pattern) {
        return Err(invalid_args(format!(
            "`{what}` `{pattern}` is one glob, not a list (a comma outside braces matches a comma \
             in a name): for several, use braces: `{{{}}}`",
            parts.join(",")
        )));
    }
    let pattern = anchored(dir, pattern);
    let invalid = |e: ignore::Error| invalid_args(format!("`{what}` is not a valid glob: {e}"));
    let mut builder = OverrideBuilder::new(dir);
    builder.add(&pattern).map_err(invalid)?;
    builder.build().map_err(invalid)
}

/// The parts of `pattern` when it has a comma outside braces (`*.js,*.ts`): a list a model
/// meant, which as one glob would match nothing.
fn listed(pattern: &str) -> Option<Vec<&str>> {
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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::anchored;

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
