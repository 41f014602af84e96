//! Entries written ahead of a SQLite run store ([`JournalStore::write_ahead`]): the call a
//! run makes that may change something is on record before it runs, by one `write` to a file
//! of this process's beside the store (about half a microsecond) where a commit costs tens;
//! the run's next append, at most [`Journaling::wait`] later, puts the same entries in the
//! store.
//!
//! A file survives its process's death as a commit does (`synchronous = NORMAL`: neither is
//! synced before the call runs), and is read by whoever takes a run over, on this host: the
//! entries that continue the store's journal are appended under the new owner's lease before
//! the run is resumed, so a call written only ahead is found in doubt, as one appended would
//! be. The fence an append is, an owner writing ahead has instead in its lease's margin: it
//! writes ahead only while the lease surely holds (as for idempotent calls).
//!
//! `<store>-ahead/<owner>.<n>.log` (the owner's `HOST/PID/TAG`, `/` as `%2F`; `n` counts the
//! process's opens of the store), one line a write
//! (its newline first):
//! `{"run","epoch","from","entries"}`. A process empties its file once everything in it is in
//! the store and it has grown past [`EMPTIED_PAST`], and removes it as it closes the store; the
//! file of a process that is gone is removed once none of the runs in it is still that
//! process's.
//!
//! [`JournalStore::write_ahead`]: ptc::journal::JournalStore::write_ahead
//! [`Journaling::wait`]: ptc::journal::Journaling::wait

use std::collections::{HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

use ptc::journal::{Batch, Entry};
use serde::Deserialize;

/// How large a process's file grows before it is emptied (once all of it is in the store).
const EMPTIED_PAST: u64 = 1 << 20;

/// The files beside one SQLite run store, and this process's.
pub(super) struct AheadLog {
    dir: PathBuf,
    /// Its file's name: the owner's, and which of the process's logs of this store it is.
    name: String,
    own: Mutex<Own>,
}

/// This process's file: opened at its first write.
#[derive(Default)]
struct Own {
    file: Option<File>,
    bytes: u64,
    /// For each run with entries only here: the number after its last.
    outstanding: HashMap<String, u64>,
}

/// One write, read back.
#[derive(Deserialize)]
struct Line {
    run: String,
    epoch: i64,
    from: u64,
    entries: Vec<Entry>,
}

impl AheadLog {
    /// The log beside the store at `store`, written as `owner` (a file of its own even when the
    /// process opens the store again).
    pub(super) fn new(store: &Path, owner: &str) -> AheadLog {
        static OPENED: AtomicU64 = AtomicU64::new(0);
        let mut dir = store.as_os_str().to_owned();
        dir.push("-ahead");
        let escaped = owner.replace('%', "%25").replace('/', "%2F");
        AheadLog {
            dir: PathBuf::from(dir),
            name: format!("{escaped}.{}.log", OPENED.fetch_add(1, Ordering::Relaxed)),
            own: Mutex::default(),
        }
    }

    fn own(&self) -> MutexGuard<'_, Own> {
        self.own.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Write `batch` as entries `from..` of `run`, held under `epoch`.
    pub(super) fn write(
        &self,
        run: &str,
        epoch: i64,
        from: u64,
        batch: &Batch,
    ) -> std::io::Result<()> {
        let mut line = Vec::with_capacity(batch.json().len() + run.len() + 96);
        let text = |s: &str| serde_json::to_string(s).expect("a string serializes");
        write!(
            line,
            "\n{{\"run\":{},\"epoch\":{epoch},\"from\":{from},\"entries\":{}}}",
            text(run),
            batch.json()
        )?;
        let mut own = self.own();
        if own.file.is_none() {
            own.file = Some(self.open_own()?);
        }
        let file = own.file.as_mut().expect("opened above");
        // A line begins with its newline: one cut short by a failed write (a full disk) ends
        // there, unread, and takes nothing after it along.
        file.write_all(&line)?;
        own.bytes += line.len() as u64;
        own.outstanding.insert(run.to_string(), from + batch.len());
        Ok(())
    }

    fn open_own(&self) -> std::io::Result<File> {
        crate::store::sqlite::private_dirs(&self.dir)?;
        OpenOptions::new()
            .append(true)
            .create(true)
            .mode(0o600)
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
            .open(self.dir.join(&self.name))
    }

    /// `run`'s entries before `upto` are in the store. A file whose every entry is there, and
    /// that grew past [`EMPTIED_PAST`], is emptied. (Entries of a run this process lost before
    /// they were in the store stay: its new owner may still be about to read them.)
    pub(super) fn committed(&self, run: &str, upto: u64) {
        let mut own = self.own();
        if own.outstanding.get(run).is_some_and(|&end| end <= upto) {
            own.outstanding.remove(run);
        }
        self.empty_if_done(&mut own);
    }

    fn empty_if_done(&self, own: &mut Own) {
        if !own.outstanding.is_empty() || own.bytes <= EMPTIED_PAST {
            return;
        }
        if let Some(file) = &own.file {
            // A failure leaves the file to grow until the next try.
            if file.set_len(0).is_ok() {
                own.bytes = 0;
            }
        }
    }

    /// What the owners' files hold of `run` that continues its journal from entry `from`:
    /// at each number, what the latest epoch wrote there.
    pub(super) fn unwritten(&self, run: &str, from: u64) -> Result<Batch, String> {
        let mut found = Vec::new();
        for (path, _) in self.files()? {
            found.extend(lines(&path)?.into_iter().filter(|l| l.run == run));
        }
        let mut batch = Batch::new();
        let mut next = from;
        while let Some(line) = found
            .iter()
            .filter(|l| l.from == next && !l.entries.is_empty())
            .max_by_key(|l| l.epoch)
        {
            for entry in &line.entries {
                batch.push(entry);
            }
            next += line.entries.len() as u64;
        }
        Ok(batch)
    }

    /// Remove the files of owners that are `gone` and no longer `hold` any run in them
    /// (the runs were taken over, and what was written ahead taken with them, or ended).
    pub(super) fn sweep(
        &self,
        gone: impl Fn(&str) -> bool,
        hold: impl Fn(&str, &str) -> bool,
    ) -> Result<(), String> {
        for (path, owner) in self.files()? {
            if path.file_name() == Some(self.name.as_ref()) || !gone(&owner) {
                continue;
            }
            let runs: HashSet<String> = lines(&path)?.into_iter().map(|l| l.run).collect();
            if !runs.iter().any(|run| hold(&owner, run)) {
                std::fs::remove_file(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            }
        }
        Ok(())
    }

    /// The owners' files, and whose each is.
    fn files(&self) -> Result<Vec<(PathBuf, String)>, String> {
        let listing = match std::fs::read_dir(&self.dir) {
            Ok(listing) => listing,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(format!("{}: {e}", self.dir.display())),
        };
        let mut files = Vec::new();
        for entry in listing {
            let entry = entry.map_err(|e| format!("{}: {e}", self.dir.display()))?;
            if let Some(owner) = entry.file_name().to_str().and_then(owner_of) {
                files.push((entry.path(), owner));
            }
        }
        files.sort();
        Ok(files)
    }
}

impl Drop for AheadLog {
    /// Closing the store: a file whose every entry is in the store goes.
    fn drop(&mut self) {
        let own = self.own();
        if own.file.is_some() && own.outstanding.is_empty() {
            let _ = std::fs::remove_file(self.dir.join(&self.name));
        }
    }
}

/// The lines of the file at `path` that read whole: a process killed in the middle of a
/// write leaves its last line cut, and its call never ran (it runs after the write).
fn lines(path: &Path) -> Result<Vec<Line>, String> {
    let file = match OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
        .open(path)
    {
        Ok(file) => file,
        // Removed by its sweeper meanwhile.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let mut found = Vec::new();
    for line in BufReader::new(file).split(b'\n') {
        let line = line.map_err(|e| format!("{}: {e}", path.display()))?;
        if let Ok(line) = serde_json::from_slice::<Line>(&line) {
            found.push(line);
        }
    }
    Ok(found)
}

/// The owner of the file named `name`: `OWNER.N.log`, the owner's `%` and `/` escaped (`%25`,
/// `%2F`), `N` counting the process's logs of the store.
fn owner_of(name: &str) -> Option<String> {
    let (owner, n) = name.strip_suffix(".log")?.rsplit_once('.')?;
    n.parse::<u64>().ok()?;
    Some(owner.replace("%2F", "/").replace("%25", "%"))
}
