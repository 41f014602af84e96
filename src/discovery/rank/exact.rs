//! Exact and near-exact name matches, which rank before every other hit: a query that is a
//! tool's name (`github__create_issue`), its name without the server prefix (`create_issue`),
//! or either with other separators, spaces or case (`create issue`, `createIssue`, `github
//! create issue`; for `slack__slack_post_message` also `post message`).

use rustc_hash::FxHashMap;

use super::tokens::{capped, joined};
use super::ToolDoc;

/// How closely a query matches a tool's name.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub(super) enum Tier {
    /// The name's words, however separated or cased.
    Near = 1,
    /// The name itself, case aside.
    Exact = 2,
}

/// The name forms of every doc, for lookup by query.
pub(super) struct Names {
    /// Lowercase names, with and without the server prefix.
    exact: FxHashMap<String, Vec<u32>>,
    /// The [`joined`] words of those names, and of the name without a leading server word.
    near: FxHashMap<String, Vec<u32>>,
}

impl Names {
    /// The name forms of `docs`.
    pub(super) fn new(docs: &[ToolDoc]) -> Self {
        let mut exact: FxHashMap<String, Vec<u32>> = FxHashMap::default();
        let mut near: FxHashMap<String, Vec<u32>> = FxHashMap::default();
        let add = |map: &mut FxHashMap<String, Vec<u32>>, form: String, doc: u32| {
            let list = map.entry(form).or_default();
            if !already_listed(list, doc) {
                list.push(doc);
            }
        };
        for (index, doc) in docs.iter().enumerate() {
            let index = index as u32;
            let tool = doc.tool_name();
            add(&mut exact, doc.name.to_lowercase(), index);
            add(&mut exact, tool.to_lowercase(), index);
            let words = joined(tool);
            let server = joined(&doc.server);
            if let Some(rest) = words
                .strip_prefix(server.as_str())
                .and_then(|rest| rest.strip_prefix(' '))
                .filter(|_| !server.is_empty())
            {
                add(&mut near, rest.to_owned(), index);
            }
            add(&mut near, joined(&doc.name), index);
            add(&mut near, words, index);
        }
        exact.remove("");
        near.remove("");
        Names { exact, near }
    }

    /// Calls `each` with every doc whose name `query` is, and how closely (a doc may come
    /// twice: exactly and nearly).
    pub(super) fn matches(&self, query: &str, mut each: impl FnMut(usize, Tier)) {
        let query = capped(query);
        let found = [
            (self.exact.get(&query.trim().to_lowercase()), Tier::Exact),
            (self.near.get(&joined(query)), Tier::Near),
        ];
        for (docs, tier) in found {
            for doc in docs.into_iter().flatten() {
                each(*doc as usize, tier);
            }
        }
    }
}

/// Whether `list` (docs in index order) already ends with `doc`.
fn already_listed(list: &[u32], doc: u32) -> bool {
    list.last() == Some(&doc)
}
