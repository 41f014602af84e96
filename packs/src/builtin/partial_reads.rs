//! Which files a program read only in part, so that read → modify → `write` never drops
//! data: a `write` in the same run (`root_call_id`: the `run_code` call) of content built
//! from a partial read fails, saying which lines were read and which the write would drop.
//!
//! The rule: a write of `path` is refused when, in this run, (1) `path` was read in part
//! (the lines read, over all reads since the file's line count last changed, do not cover
//! it: a window, an `offset`, or a data cap), and (2) the content holds a line seen in
//! that read (a non-blank line of at least [`MIN_LINE_CHARS`] characters). Content sharing
//! no such line is new content, not a modified read, and is written. Paging on with
//! `offset` until every line was read lifts the refusal; a successful write forgets the file.
//!
//! Bounded: the last [`MAX_RUNS`] runs, [`MAX_PATHS`] files per run, [`MAX_LINES`] line
//! hashes per file.

use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::data_caps::thousands;

/// Runs remembered (the oldest is forgotten first).
pub const MAX_RUNS: usize = 32;
/// Files remembered per run.
pub const MAX_PATHS: usize = 256;
/// Seen lines remembered per file (hashes).
pub const MAX_LINES: usize = 4096;
/// Characters a seen line needs (trimmed) to count as evidence that content came from it.
pub const MIN_LINE_CHARS: usize = 3;

/// What a run has seen of one file.
#[derive(Default)]
struct Seen {
    total: u64,
    /// Merged, sorted 1-based inclusive line ranges read.
    ranges: Vec<(u64, u64)>,
    lines: HashSet<u64>,
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

fn hash_line(line: &str) -> Option<u64> {
    let line = line.trim();
    if line.chars().count() < MIN_LINE_CHARS {
        return None;
    }
    let mut h = DefaultHasher::new();
    line.hash(&mut h);
    Some(h.finish())
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
    /// Record that run `run` read lines `first..=last` (their texts `lines`) of `path`, which
    /// has `total` lines.
    pub(crate) fn record<'a>(
        &self,
        run: &str,
        path: &Path,
        (first, last, total): (u64, u64, u64),
        lines: impl Iterator<Item = &'a str>,
    ) {
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
        for hash in lines.filter_map(hash_line) {
            if seen.lines.len() >= MAX_LINES {
                break;
            }
            seen.lines.insert(hash);
        }
    }

    /// Why run `run` may not write `content` to `path` (shown as `shown`), if it may not.
    pub(crate) fn check(
        &self,
        run: &str,
        path: &Path,
        shown: &str,
        content: &str,
    ) -> Result<(), String> {
        let guard = self.runs.lock().unwrap_or_else(|e| e.into_inner());
        let Some(seen) = guard.1.get(run).and_then(|files| files.get(path)) else {
            return Ok(());
        };
        let unread = seen.unread();
        if unread.is_empty()
            || !content
                .lines()
                .filter_map(hash_line)
                .any(|h| seen.lines.contains(&h))
        {
            return Ok(());
        }
        let next = unread[0].0;
        Err(format!(
            "write refused: this content comes from a partial read of `{shown}` (this program \
             read lines {} of {}), so writing it would drop lines {}. Read the rest first \
             (offset={next}) and write all of it; to replace the file with new content, write \
             text not taken from that read.",
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
        let lines: Vec<String> = (first..=last).map(|i| format!("line {i}")).collect();
        log.record(
            "run",
            Path::new("/f"),
            (first, last, total),
            lines.iter().map(String::as_str),
        );
        log
    }

    #[test]
    fn content_from_a_partial_read_is_refused_naming_read_and_dropped_lines() {
        let log = log_with(1, 2000, 2051);
        let err = log
            .check("run", Path::new("/f"), "f.txt", "line 1\nLINE 2\n")
            .unwrap_err();
        assert!(err.contains("read lines 1-2,000 of 2,051"), "{err}");
        assert!(err.contains("would drop lines 2,001-2,051"), "{err}");
        assert!(err.contains("offset=2001"), "{err}");
    }

    #[test]
    fn new_content_after_a_partial_read_is_written() {
        let log = log_with(1, 10, 2051);
        assert!(log
            .check("run", Path::new("/f"), "f", "brand new\n}\n")
            .is_ok());
    }

    #[test]
    fn paging_through_every_line_lifts_the_refusal() {
        let log = log_with(1, 2000, 2051);
        log.record(
            "run",
            Path::new("/f"),
            (2001, 2051, 2051),
            std::iter::empty(),
        );
        assert!(log.check("run", Path::new("/f"), "f", "line 1\n").is_ok());
    }

    #[test]
    fn another_run_and_a_forgotten_path_are_not_refused() {
        let log = log_with(1, 10, 20);
        assert!(log.check("other", Path::new("/f"), "f", "line 1\n").is_ok());
        log.forget("run", Path::new("/f"));
        assert!(log.check("run", Path::new("/f"), "f", "line 1\n").is_ok());
    }

    #[test]
    fn only_the_last_max_runs_are_remembered() {
        let log = log_with(1, 10, 20);
        for i in 0..MAX_RUNS {
            log.record(
                &format!("r{i}"),
                Path::new("/f"),
                (1, 1, 20),
                std::iter::empty(),
            );
        }
        assert!(log.check("run", Path::new("/f"), "f", "line 1\n").is_ok());
        assert_eq!(log.runs.lock().unwrap().1.len(), MAX_RUNS);
    }
}
