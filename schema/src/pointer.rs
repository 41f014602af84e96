//! JSON pointers (RFC 6901) and a parent-linked path arena.
//!
//! Walkers record one small arena entry per visited child instead of an owned
//! path string, so deep documents cost O(n) memory; a pointer string is only
//! rendered when an issue is reported.

/// Escapes one reference token per RFC 6901 (`~` -> `~0`, `/` -> `~1`).
pub fn escape_token(token: &str) -> String {
    if !token.contains(['~', '/']) {
        return token.to_owned();
    }
    token.replace('~', "~0").replace('/', "~1")
}

/// Identifies one path in a [`PathArena`]; [`ROOT`] is the document root.
pub(crate) type PathId = usize;

/// The root path (the empty pointer).
pub(crate) const ROOT: PathId = usize::MAX;

/// One step below a parent path.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Seg<'a> {
    /// A fixed keyword such as `properties` or `items`.
    Keyword(&'static str),
    /// An object key supplied by the document (escaped on render).
    Key(&'a str),
    /// An array index.
    Index(usize),
}

/// Parent-linked storage for paths discovered during an iterative walk.
#[derive(Debug, Default)]
pub(crate) struct PathArena<'a> {
    entries: Vec<(PathId, Seg<'a>)>,
}

impl<'a> PathArena<'a> {
    /// Creates an empty arena.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Records `parent` + `seg` and returns the new path's id.
    pub(crate) fn push(&mut self, parent: PathId, seg: Seg<'a>) -> PathId {
        self.entries.push((parent, seg));
        self.entries.len() - 1
    }

    /// Number of entries (a mark for [`PathArena::truncate`]).
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Forgets every entry recorded after `mark`.
    pub(crate) fn truncate(&mut self, mark: usize) {
        self.entries.truncate(mark);
    }

    /// Renders `id` as a JSON pointer (`""` for the root).
    pub(crate) fn render(&self, id: PathId) -> String {
        self.render_relative(id, ROOT)
    }

    /// Renders `id` relative to its ancestor `base` (`""` when equal). If
    /// `base` is not an ancestor, the full pointer is rendered.
    pub(crate) fn render_relative(&self, id: PathId, base: PathId) -> String {
        use std::fmt::Write as _;
        let mut segs = Vec::new();
        let mut cur = id;
        while cur != base {
            let Some(&(parent, seg)) = self.entries.get(cur) else {
                break;
            };
            segs.push(seg);
            cur = parent;
        }
        let mut out = String::new();
        for seg in segs.iter().rev() {
            out.push('/');
            match seg {
                Seg::Keyword(k) => out.push_str(k),
                Seg::Key(k) if !k.contains(['~', '/']) => out.push_str(k),
                Seg::Key(k) => out.push_str(&escape_token(k)),
                Seg::Index(i) => {
                    let _ = write!(out, "{i}");
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_tilde_before_slash() {
        assert_eq!(escape_token("a/b"), "a~1b");
        assert_eq!(escape_token("m~n"), "m~0n");
        assert_eq!(escape_token("~1"), "~01");
        assert_eq!(escape_token("plain"), "plain");
    }

    #[test]
    fn renders_parent_chain() {
        let mut arena = PathArena::new();
        let p = arena.push(ROOT, Seg::Keyword("properties"));
        let k = arena.push(p, Seg::Key("a/b"));
        let i = arena.push(k, Seg::Index(3));
        assert_eq!(arena.render(ROOT), "");
        assert_eq!(arena.render(i), "/properties/a~1b/3");
        assert_eq!(arena.render_relative(i, p), "/a~1b/3");
        assert_eq!(arena.render_relative(k, k), "");
    }
}
