//! Which files a program read only in part, so that read → modify → `write` never drops
//! data: a `write` in the same run (`root_call_id`: the `run_code` call) of a file it read
//! only in part fails, saying which lines were read and which the write would drop.
//!
//! The rule: a write of `path` is refused when, in this run, `path` was read in part (the
//! lines read, over all reads since the file's line count last changed, do not cover it: a
//! window, an `offset`, or the data cap). ptc cannot tell where content came from: a test
//! on the content (does it hold a line that was read?) lets through exactly the edits that
//! change every line (a redaction, a renumbering), so the rule is on the path alone. A
//! file never read, or read whole, is written as asked; paging on with `offset` until
//! every line was read lifts the refusal; a successful write forgets the file.
//!
//! Bounded: the last [`MAX_RUNS`] runs, [`MAX_PATHS`] files per run.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::data_caps::thousands;

/// Runs remembered (the oldest is forgotten first).
pub const MAX_RUNS: usize = 32;
/// Files remembered per run.
pub const MAX_PATHS: usize = 256;

/// What a run has seen of one file.
#[derive(Default)]
struct Seen {
    total: u64,
    /// Merged, sorted 1-based inclusive line ranges read.
    ranges: Vec<(u64, u64)>,
}

impl Seen {
    fn add(&mut self, first: u64, last: u64) {
        if first > last {
            return;
        }
        self.ranges.push((first, last));
        self.ranges.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(self.ranges.len());
        for &(a, b) in &self.ranges {
            match merged.last_mut() {
                Some(m) if a <= m.1.saturating_add(1) => m.1 = m.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        self.ranges = merged;
    }

    /// The line ranges of `1..=total` never read.
    fn unread(&self) -> Vec<(u64, u64)> {
        let mut gaps = Vec::new();
        let mut next = 1;
        for &(a, b) in &self.ranges {
            if a > next {
                gaps.push((next, a - 1));
            }
            next = next.max(b.saturating_add(1));
        }
        if next <= self.total {
            gaps.push((next, self.total));
        }
        gaps
    }
}

/// What each run has seen, per file.
type Runs = HashMap<String, HashMap<PathBuf, Seen>>;

/// The partial reads of recent runs, shared by `read` (which records) and `write` (which checks).
#[derive(Default)]
pub(crate) struct ReadLog {
    /// The runs oldest first, and what each has seen.
    runs: Mutex<(VecDeque<String>, Runs)>,
}

fn ranges_text(ranges: &[(u64, u64)]) -> String {
    let list: Vec<String> = ranges
        .iter()
        .map(|&(a, b)| match a == b {
            true => thousands(a),
            false => format!("{}-{}", thousands(a), thousands(b)),
        })
        .collect();
    list.join(", ")
}

impl ReadLog {
    /// Record that run `run` read lines `first..=last` of `path`, which has `total` lines.
    pub(crate) fn record(&self, run: &str, path: &Path, (first, last, total): (u64, u64, u64)) {
        let mut guard = self.runs.lock().unwrap_or_else(|e| e.into_inner());
        let (order, runs) = &mut *guard;
        if !runs.contains_key(run) {
            if order.len() >= MAX_RUNS {
                if let Some(old) = order.pop_front() {
                    runs.remove(&old);
                }
            }
            order.push_back(run.to_string());
        }
        let files = runs.entry(run.to_string()).or_default();
        if !files.contains_key(path) && files.len() >= MAX_PATHS {
            return;
        }
        let seen = files.entry(path.to_path_buf()).or_default();
        if seen.total != total {
            *seen = Seen {
                total,
                ..Seen::default()
            };
        }
        seen.add(first, last);
    }

    /// Why run `run` may not write `path` (shown as `shown`), if it may not.
    pub(crate) fn check(&self, run: &str, path: &Path, shown: &str) -> Result<(), String> {
        let guard = self.runs.lock().unwrap_or_else(|e| e.into_inner());
        let Some(seen) = guard.1.get(run).and_then(|files| files.get(path)) else {
            return Ok(());
        };
        let unread = seen.unread();
        if unread.is_empty() {
            return Ok(());
        }
        let next = unread[0].0;
        Err(format!(
            "write refused: this program read `{shown}` only in part (lines {} of {}), so \
             writing it would drop lines {}, never read. Read the rest first (offset={next}) and \
             write all of it.",
            ranges_text(&seen.ranges),
            thousands(seen.total),
            ranges_text(&unread),
        ))
    }

    /// Forget what run `run` read of `path` (after writing it).
    pub(crate) fn forget(&self, run: &str, path: &Path) {
        let mut guard = self.runs.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(files) = guard.1.get_mut(run) {
            files.remove(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log_with(first: u64, last: u64, total: u64) -> ReadLog {
        let log = ReadLog::default();
        log.record("run", Path::new("/f"), (first, last, total));
        log
    }

    #[test]
    fn a_write_after_a_partial_read_is_refused_naming_read_and_dropped_lines() {
        let log = log_with(1, 2000, 2051);
        let err = log.check("run", Path::new("/f"), "f.txt").unwrap_err();
        assert_eq!(
            err,
            "write refused: this program read `f.txt` only in part (lines 1-2,000 of 2,051), so \
             writing it would drop lines 2,001-2,051, never read. Read the rest first \
             (offset=2001) and write all of it."
        );
    }

    #[test]
    fn a_window_in_the_middle_names_both_gaps() {
        let log = log_with(10, 20, 30);
        let err = log.check("run", Path::new("/f"), "f").unwrap_err();
        assert!(err.contains("(lines 10-20 of 30)"), "{err}");
        assert!(err.contains("drop lines 1-9, 21-30"), "{err}");
        assert!(err.contains("offset=1"), "{err}");
    }

    #[test]
    fn paging_through_every_line_lifts_the_refusal() {
        let log = log_with(1, 2000, 2051);
        log.record("run", Path::new("/f"), (2001, 2051, 2051));
        assert!(log.check("run", Path::new("/f"), "f").is_ok());
    }

    #[test]
    fn a_changed_line_count_starts_over() {
        let log = log_with(1, 10, 10);
        log.record("run", Path::new("/f"), (1, 5, 20));
        assert!(log.check("run", Path::new("/f"), "f").is_err());
    }

    #[test]
    fn another_run_and_a_forgotten_path_are_not_refused() {
        let log = log_with(1, 10, 20);
        assert!(log.check("other", Path::new("/f"), "f").is_ok());
        log.forget("run", Path::new("/f"));
        assert!(log.check("run", Path::new("/f"), "f").is_ok());
    }

    #[test]
    fn only_the_last_max_runs_are_remembered() {
        let log = log_with(1, 10, 20);
        for i in 0..MAX_RUNS {
            log.record(&format!("r{i}"), Path::new("/f"), (1, 1, 20));
        }
        assert!(log.check("run", Path::new("/f"), "f").is_ok());
        assert_eq!(log.runs.lock().unwrap().1.len(), MAX_RUNS);
    }
}
