//! `pattern`: regular expressions compiled once, with bounded size, matched in linear time.
//!
//! Patterns are compiled by the `regex` crate, which never backtracks: matching takes time
//! linear in the string whatever the pattern, so a "pattern bomb" such as `^(a+)+$` costs no
//! more than `^a+$`. Its syntax covers what schemas write (classes, groups, alternation,
//! repetition, anchors); a pattern it cannot compile (look-around, back-references) or whose
//! compiled form passes [`SIZE_LIMIT`] is outside the subset: the support check names it.
//! Unlike ECMA-262, `\d`, `\w` and `\s` are Unicode-aware. Like JSON Schema, a pattern is not
//! anchored: it matches anywhere in the string unless it says `^`/`$`.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock, PoisonError, RwLock};

use regex::Regex;

/// The largest compiled program (and lazy DFA cache) one pattern may use, in bytes.
pub const SIZE_LIMIT: usize = 1 << 20;
/// How many compiled patterns are kept; the cache starts over when it is full.
const CACHE_ENTRIES: usize = 1024;

type Compiled = Result<Arc<Regex>, String>;

fn cache() -> &'static RwLock<HashMap<String, Compiled>> {
    static CACHE: OnceLock<RwLock<HashMap<String, Compiled>>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// The compiled `pattern`, or why it is outside the subset. Validations share the cache
/// under a read lock; a miss compiles outside any lock.
pub(crate) fn compile(pattern: &str) -> Compiled {
    let hit = cache()
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .get(pattern)
        .cloned();
    if let Some(hit) = hit {
        return hit;
    }
    let compiled = regex::RegexBuilder::new(pattern)
        .size_limit(SIZE_LIMIT)
        .dfa_size_limit(SIZE_LIMIT)
        .build()
        .map(Arc::new)
        .map_err(|e| match e {
            regex::Error::CompiledTooBig(_) => {
                format!("`pattern` compiles to more than {SIZE_LIMIT} bytes")
            }
            other => format!(
                "`pattern` is not supported: {}",
                other.to_string().lines().last().unwrap_or_default().trim()
            ),
        });
    let mut cache = cache().write().unwrap_or_else(PoisonError::into_inner);
    if cache.len() >= CACHE_ENTRIES {
        cache.clear();
    }
    cache.insert(pattern.to_owned(), compiled.clone());
    compiled
}

/// Whether `text` matches `pattern`; `None` when the pattern does not compile.
pub(crate) fn matches(pattern: &str, text: &str) -> Option<bool> {
    compile(pattern).ok().map(|re| re.is_match(text))
}
