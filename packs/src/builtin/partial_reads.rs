//! What a program knows of each file, so that read → modify → `write` never drops data or
//! undoes a newer change: a `write` in the same run (`root_call_id`: the `run_code` call) of a
//! file it read only in part, or of a file that changed since the run last read or wrote it,
//! fails, saying why and what to do.
//!
//! Three rules, all on the path (ptc cannot tell where content came from: a test on the
//! content lets through exactly the edits that change every line, a redaction, a renumbering):
//!
//! - **Partial**: `path` was read in part (the lines read, over all reads since its bytes last
//!   changed, do not cover it: a window, an `offset`, or the data cap). Paging on with `offset`
//!   until every line was read lifts the refusal.
//! - **Stale**: the file's bytes now differ from what this run last read or wrote of it (their
//!   sha256): an `edit` or a command (`sed -i`) changed it since, and content built from the
//!   older read would undo that change. Reading it again lifts the refusal. An `edit` is not a
//!   read: after read → edit, the program still holds the text from before the edit.
//! - **Raced**: the run read the file more than once, then wrote it, then writes it again with
//!   no read since (`Promise.all` over a list naming one file twice, each task read → write):
//!   the second write's content may be built from a read the first write made stale, and would
//!   undo it. Each read is a token a write uses; reads of bytes the run's own write replaced
//!   are stale, and a write with no fresh read left is refused once per stale read. A run that
//!   read once and writes twice (its own content, then more) is not refused.
//!
//! A file the run never read is written as asked, as is one that is gone since; a successful
//! write is what the run knows of the file from then on.
//!
//! Bounded: the last [`MAX_RUNS`](super::per_run::MAX_RUNS) runs, [`MAX_PATHS`] files per
//! run (past that, a run's further files are not remembered, and written as asked).

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use sha2::{Digest as _, Sha256};

use super::data_caps::thousands;
use super::per_run::PerRun;

/// Files remembered per run.
pub const MAX_PATHS: usize = 256;

/// The sha256 of a file's bytes.
pub(crate) type Digest = [u8; 32];

/// The sha256 of `bytes`.
pub(crate) fn digest_of(bytes: &[u8]) -> Digest {
    Sha256::digest(bytes).into()
}

/// The sha256 of the whole of `file`, read from its start (whatever its position).
pub(crate) fn digest_file(file: &File) -> io::Result<Digest> {
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut at = 0u64;
    loop {
        let n = file.read_at(&mut buf, at)?;
        if n == 0 {
            return Ok(hasher.finalize().into());
        }
        hasher.update(&buf[..n]);
        at += n as u64;
    }
}

/// A reader that hashes every byte read through it (when asked to), for a read that streams
/// the whole file anyway.
pub(crate) struct Hashing<R> {
    inner: R,
    hasher: Option<Sha256>,
}

impl<R: Read> Hashing<R> {
    /// `inner`, hashed when `hash` is set.
    pub(crate) fn new(inner: R, hash: bool) -> Self {
        Hashing {
            inner,
            hasher: hash.then(Sha256::new),
        }
    }

    /// The sha256 of every byte read through it, if it hashed.
    pub(crate) fn finish(self) -> Option<Digest> {
        self.hasher.map(|h| h.finalize().into())
    }
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(hasher) = &mut self.hasher {
            hasher.update(&buf[..n]);
        }
        Ok(n)
    }
}

/// How a run last came to know a file.
#[derive(Default, Clone, Copy, PartialEq, Eq)]
enum Source {
    #[default]
    Read,
    Wrote,
}

/// What a run has seen of one file.
#[derive(Default)]
struct Seen {
    total: u64,
    /// Merged, sorted 1-based inclusive line ranges read.
    ranges: Vec<(u64, u64)>,
    /// The file's bytes as the run last read or wrote them.
    digest: Digest,
    /// Whether the run last read or wrote it; a write knows the whole file.
    source: Source,
    /// Reads of these bytes no write has used yet: the next write may be built from one.
    fresh: u32,
    /// Reads of bytes this run's own write replaced since, with no write refused for them yet:
    /// each is a part of the program that may write what it read, undoing that write.
    stale: u32,
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

    /// The line ranges of `1..=total` never read (none of a file the run wrote).
    fn unread(&self) -> Vec<(u64, u64)> {
        if self.source == Source::Wrote {
            return Vec::new();
        }
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
/// What recent runs read and wrote, shared by `read` and `write` (which record) and `write`
/// (which checks).
#[derive(Default)]
pub(crate) struct ReadLog {
    /// What each recent run has seen, per file.
    runs: PerRun<HashMap<PathBuf, Seen>>,
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
    /// Record that run `run` read lines `first..=last` of `path`, which has `total` lines and
    /// whose bytes hash to `digest`.
    pub(crate) fn record(
        &self,
        run: &str,
        path: &Path,
        (first, last, total): (u64, u64, u64),
        digest: Digest,
    ) {
        self.update(run, path, |seen| {
            // Other bytes (or a file new to the run): what was read of the old ones is void,
            // and a read of them not used by a write is stale.
            if seen.digest != digest {
                *seen = Seen {
                    total,
                    digest,
                    stale: seen.stale + seen.fresh,
                    ..Seen::default()
                };
            }
            seen.fresh += 1;
            // The bytes the run wrote: it knows them whole already.
            if seen.source == Source::Read {
                seen.add(first, last);
            }
        });
    }

    /// Record that run `run` wrote all of `path`, bytes that hash to `digest`: the write used
    /// one read of the bytes it replaced, and any other read of them is stale from now on.
    pub(crate) fn wrote(&self, run: &str, path: &Path, digest: Digest) {
        self.update(run, path, |seen| {
            *seen = Seen {
                digest,
                source: Source::Wrote,
                stale: seen.stale + seen.fresh.saturating_sub(1),
                ..Seen::default()
            }
        });
    }

    /// Whether run `run` knows something of `path` (so `write` must check it).
    pub(crate) fn knows(&self, run: &str, path: &Path) -> bool {
        self.runs.get(run, |files| {
            files.is_some_and(|files| files.contains_key(path))
        })
    }

    /// Change what run `run` knows of `path` with `change` (remembering the run, and the file
    /// while the run has room).
    fn update(&self, run: &str, path: &Path, change: impl FnOnce(&mut Seen)) {
        self.runs.update(run, |files| {
            if !files.contains_key(path) && files.len() >= MAX_PATHS {
                return;
            }
            change(files.entry(path.to_path_buf()).or_default());
        });
    }

    /// Why run `run` may not write `path` (shown as `shown`), whose bytes now hash to
    /// `current` (`None`: it does not exist), if it may not.
    pub(crate) fn check(
        &self,
        run: &str,
        path: &Path,
        shown: &str,
        current: Option<Digest>,
    ) -> Result<(), String> {
        self.runs
            .get(run, |files| match files.and_then(|f| f.get_mut(path)) {
                Some(seen) => refusal(seen, shown, current),
                None => Ok(()),
            })
    }
}

/// Why a write of `shown`, whose bytes now hash to `current`, is refused by what the run saw
/// of it, if it is (a refused stale read is used up).
fn refusal(seen: &mut Seen, shown: &str, current: Option<Digest>) -> Result<(), String> {
    if current.is_some_and(|now| now != seen.digest) {
        let did = match seen.source {
            Source::Read => "read",
            Source::Wrote => "wrote",
        };
        return Err(format!(
            "write refused: `{shown}` changed since this program {did} it (an edit or \
             command since then), so this content would undo that change; read it again and \
             rebuild the content. Nothing was written."
        ));
    }
    // Parts of the program that read it at once, then write one after another: the first
    // write used one read; content built from another would undo it. Each such read is
    // refused once (its part of the program may read again and go on).
    if seen.fresh == 0 && seen.stale > 0 {
        seen.stale -= 1;
        return Err(format!(
            "write refused: `{shown}` was already written by this program since it read the \
             text this content may be built from (reads of one file running at once, then a \
             write each: the later write would undo the earlier one). Read it again after \
             that write and rebuild the content, or handle each file once (one task per \
             file, or one after another). Nothing was written."
        ));
    }
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

#[cfg(test)]
mod tests {
    use super::super::per_run::MAX_RUNS;
    use super::*;

    const D: Digest = [1; 32];

    fn log_with(first: u64, last: u64, total: u64) -> ReadLog {
        let log = ReadLog::default();
        log.record("run", Path::new("/f"), (first, last, total), D);
        log
    }

    #[test]
    fn a_write_after_a_partial_read_is_refused_naming_read_and_dropped_lines() {
        let log = log_with(1, 2000, 2051);
        let err = log
            .check("run", Path::new("/f"), "f.txt", Some(D))
            .unwrap_err();
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
        let err = log.check("run", Path::new("/f"), "f", Some(D)).unwrap_err();
        assert!(err.contains("(lines 10-20 of 30)"), "{err}");
        assert!(err.contains("drop lines 1-9, 21-30"), "{err}");
        assert!(err.contains("offset=1"), "{err}");
    }

    #[test]
    fn paging_through_every_line_lifts_the_refusal() {
        let log = log_with(1, 2000, 2051);
        log.record("run", Path::new("/f"), (2001, 2051, 2051), D);
        assert!(log.check("run", Path::new("/f"), "f", Some(D)).is_ok());
    }

    #[test]
    fn changed_bytes_start_over() {
        let log = log_with(1, 10, 10);
        log.record("run", Path::new("/f"), (1, 5, 20), [2; 32]);
        let err = log.check("run", Path::new("/f"), "f", Some([2; 32]));
        assert!(err.unwrap_err().contains("only in part"));
    }

    #[test]
    fn a_file_changed_since_the_run_read_or_wrote_it_is_refused() {
        let log = log_with(1, 10, 10);
        let err = log
            .check("run", Path::new("/f"), "f", Some([2; 32]))
            .unwrap_err();
        assert!(
            err.contains("`f` changed since this program read it"),
            "{err}"
        );
        log.wrote("run", Path::new("/f"), [3; 32]);
        assert!(log
            .check("run", Path::new("/f"), "f", Some([3; 32]))
            .is_ok());
        let err = log
            .check("run", Path::new("/f"), "f", Some([4; 32]))
            .unwrap_err();
        assert!(err.contains("changed since this program wrote it"), "{err}");
        assert!(log.check("run", Path::new("/f"), "f", None).is_ok());
    }

    #[test]
    fn two_reads_then_two_writes_refuse_the_second_write_once() {
        let log = log_with(1, 10, 10);
        log.record("run", Path::new("/f"), (1, 10, 10), D);
        assert!(log.check("run", Path::new("/f"), "f", Some(D)).is_ok());
        log.wrote("run", Path::new("/f"), [2; 32]);
        let err = log
            .check("run", Path::new("/f"), "f", Some([2; 32]))
            .unwrap_err();
        assert!(
            err.contains("`f` was already written by this program"),
            "{err}"
        );
        // Refused once: the same part of the program writing again is let through.
        assert!(log
            .check("run", Path::new("/f"), "f", Some([2; 32]))
            .is_ok());
    }

    #[test]
    fn one_read_then_writes_in_turn_or_a_read_between_writes_are_not_refused() {
        let log = log_with(1, 10, 10);
        log.wrote("run", Path::new("/f"), [2; 32]);
        assert!(log
            .check("run", Path::new("/f"), "f", Some([2; 32]))
            .is_ok());
        log.wrote("run", Path::new("/f"), [3; 32]);
        assert!(log
            .check("run", Path::new("/f"), "f", Some([3; 32]))
            .is_ok());
        // Two reads, a write, a fresh read of what it wrote: the next write uses that read.
        let log = log_with(1, 10, 10);
        log.record("run", Path::new("/f"), (1, 10, 10), D);
        log.wrote("run", Path::new("/f"), [2; 32]);
        log.record("run", Path::new("/f"), (1, 10, 10), [2; 32]);
        assert!(log
            .check("run", Path::new("/f"), "f", Some([2; 32]))
            .is_ok());
    }

    #[test]
    fn another_run_and_a_file_never_read_are_not_refused() {
        let log = log_with(1, 10, 20);
        assert!(log.check("other", Path::new("/f"), "f", Some(D)).is_ok());
        assert!(log.check("run", Path::new("/g"), "g", Some(D)).is_ok());
        assert!(!log.knows("run", Path::new("/g")));
    }

    #[test]
    fn only_the_last_max_runs_are_remembered() {
        let log = log_with(1, 10, 20);
        for i in 0..MAX_RUNS {
            log.record(&format!("r{i}"), Path::new("/f"), (1, 1, 20), D);
        }
        assert!(log.check("run", Path::new("/f"), "f", Some(D)).is_ok());
        assert_eq!(log.runs.len(), MAX_RUNS);
    }

    #[test]
    fn hashing_reader_and_file_digest_agree() {
        let mut file = tempfile::tempfile().unwrap();
        std::io::Write::write_all(&mut file, b"a\nb\n").unwrap();
        let mut reader = Hashing::new(&file, true);
        let mut _all = Vec::new();
        std::io::Seek::seek(&mut &file, std::io::SeekFrom::Start(0)).unwrap();
        reader.read_to_end(&mut _all).unwrap();
        assert_eq!(reader.finish(), Some(digest_of(b"a\nb\n")));
        assert_eq!(digest_file(&file).unwrap(), digest_of(b"a\nb\n"));
    }
}
