//! How much of a matching line a search keeps: lines up to a number of characters whole;
//! longer ones whole too while a budget of their bytes, shared by all the files of one call,
//! lasts (in a program, where a line is data), cut after that.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::builtin::shared;

/// The line cap of one call.
pub(super) struct LineCap {
    chars: usize,
    budget: AtomicUsize,
}

impl LineCap {
    /// Lines of `chars` characters kept whole, longer ones whole while `budget` bytes of them
    /// last.
    pub(super) fn new(chars: usize, budget: usize) -> Self {
        LineCap {
            chars,
            budget: AtomicUsize::new(budget),
        }
    }

    /// What is kept of `text`, and whether it was cut.
    pub(super) fn keep(&self, text: &str) -> (String, bool) {
        if text.chars().nth(self.chars).is_none() {
            return (text.to_string(), false);
        }
        let len = text.len();
        let paid = self
            .budget
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |b| b.checked_sub(len));
        match paid {
            Ok(_) => (text.to_string(), false),
            Err(_) => (shared::cap_chars(text, self.chars), true),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::LineCap;

    #[test]
    fn long_lines_are_whole_while_the_budget_lasts_then_cut() {
        let cap = LineCap::new(4, 10);
        assert_eq!(cap.keep("abcd"), ("abcd".to_string(), false));
        assert_eq!(cap.keep("abcdefgh"), ("abcdefgh".to_string(), false));
        // 8 of 10 bytes spent: the next long line is cut, a short one is not.
        let (kept, cut) = cap.keep("abcdef");
        assert!(cut && kept.starts_with("abcd…"), "{kept}");
        assert_eq!(cap.keep("ab"), ("ab".to_string(), false));
    }
}
