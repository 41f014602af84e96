//! Paging a search while the program changes the files it searches: `grep` with `offset` skips
//! the first matches in path order, so an edit between pages that removes (or adds) a match
//! before the cut shifts the page, and a match is skipped (or seen twice) with nothing said.
//!
//! The rule: each page of a search in a program remembers a digest of every match up to its end
//! (path and text, not line numbers: lines added elsewhere shift no page). The next page of the
//! same search (same pattern, path and include, in the same `run_code` run) that starts where
//! that one ended hashes the matches it skips; when the two differ, the files changed between
//! the pages, and the call's result says so in a `[note]`.
//!
//! Bounded: the last [`MAX_RUNS`](super::super::per_run::MAX_RUNS) runs, [`MAX_SEARCHES`]
//! searches per run.

use std::collections::HashMap;

use sha2::{Digest as _, Sha256};

use super::super::data_caps::thousands;
use super::super::per_run::PerRun;

/// Searches remembered per run.
pub const MAX_SEARCHES: usize = 64;

/// The sha256 of the matches up to a point.
pub(super) type Digest = [u8; 32];

/// Hashes matches in path order; [`Hasher::at`] gives the digest so far.
#[derive(Clone, Default)]
pub(super) struct Hasher(Sha256);

impl Hasher {
    /// Add one match.
    pub(super) fn add(&mut self, path: &str, text: &str) {
        self.0.update(path.as_bytes());
        self.0.update([0]);
        self.0.update(text.as_bytes());
        self.0.update([b'\n']);
    }

    /// The digest of the matches added so far.
    pub(super) fn at(&self) -> Digest {
        self.0.clone().finalize().into()
    }
}

/// One search: its pattern, path and include as given.
pub(super) type Search = (String, Option<String>, Option<String>);

/// Where a run's page of a search ended, and the digest of every match up to there.
type Ended = (u64, Digest);

/// What recent runs' searches saw, per search.
#[derive(Default)]
pub(crate) struct Pages {
    /// What each recent run's searches saw.
    runs: PerRun<HashMap<Search, Ended>>,
}

impl Pages {
    /// Record that run `run`'s page of `search` from `offset` skipped matches hashing to
    /// `skipped` and ended at `end` with every match up to there hashing to `through`; the note
    /// when the previous page of the search ended at `offset` having seen other matches.
    pub(super) fn page(
        &self,
        run: &str,
        search: Search,
        (offset, skipped): (u64, Digest),
        (end, through): Ended,
    ) -> Option<String> {
        let shifted = self.runs.update(run, |searches| {
            let shifted = offset > 0
                && searches
                    .get(&search)
                    .is_some_and(|&(ended, seen)| ended == offset && seen != skipped);
            if searches.contains_key(&search) || searches.len() < MAX_SEARCHES {
                searches.insert(search, (end, through));
            }
            shifted
        });
        shifted.then(|| {
            format!(
                "the {} match(es) this page skips are not the ones the previous pages \
                 returned: the files changed between pages, so this page may miss or repeat \
                 matches (collect every page before changing files, or search again from offset 0)",
                thousands(offset)
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest(matches: &[(&str, &str)]) -> Digest {
        let mut h = Hasher::default();
        for (path, text) in matches {
            h.add(path, text);
        }
        h.at()
    }

    fn search() -> Search {
        ("TODO".into(), None, None)
    }

    #[test]
    fn a_next_page_over_unchanged_matches_says_nothing() {
        let pages = Pages::default();
        let first = digest(&[("a", "TODO 1"), ("b", "TODO 2")]);
        let none = digest(&[]);
        assert_eq!(pages.page("run", search(), (0, none), (2, first)), None);
        assert_eq!(pages.page("run", search(), (2, first), (3, none)), None);
    }

    #[test]
    fn a_next_page_after_an_edit_removed_a_match_before_the_cut_says_so() {
        let pages = Pages::default();
        let first = digest(&[("a", "TODO 1"), ("b", "TODO 2")]);
        assert_eq!(
            pages.page("run", search(), (0, digest(&[])), (2, first)),
            None
        );
        // `a`'s TODO became DONE: the two skipped now are b's and c's.
        let skipped = digest(&[("b", "TODO 2"), ("c", "TODO 3")]);
        let note = pages
            .page("run", search(), (2, skipped), (3, skipped))
            .unwrap();
        assert!(
            note.starts_with("the 2 match(es) this page skips"),
            "{note}"
        );
        // Another run, another search, or a page that does not go on from the last: nothing.
        assert_eq!(
            pages.page("other", search(), (2, skipped), (3, skipped)),
            None
        );
        let other = ("FIXME".into(), None, None);
        assert_eq!(pages.page("run", other, (2, skipped), (3, skipped)), None);
        assert_eq!(
            pages.page("run", search(), (1, skipped), (3, skipped)),
            None
        );
    }
}
