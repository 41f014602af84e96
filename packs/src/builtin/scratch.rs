//! One scratch directory per owner for `bash`: its `$TMPDIR`, made (mode 0700) on the owner's
//! first `bash` call, kept across its calls (a file written there in one call is there in the
//! next), writable in the sandbox, and removed when the owner ends (after the last command
//! using it). Another owner has its own and cannot see this one through `$TMPDIR`.

use std::collections::HashMap;
use std::fs::{self, DirBuilder};
use std::io;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::tasks::spawn_on_host;
use ptc::OwnerHandle;

/// One owner's scratch directory; removed when the last holder drops it.
#[derive(Debug)]
pub(crate) struct ScratchDir {
    path: PathBuf,
}

impl ScratchDir {
    /// Its path (canonical).
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = crate::fs_tree::remove_tree(&self.path);
    }
}

/// The scratch directories of live owners, by owner id.
#[derive(Clone, Default)]
pub(crate) struct ScratchDirs {
    dirs: Arc<Mutex<HashMap<u64, Arc<ScratchDir>>>>,
}

impl ScratchDirs {
    /// `owner`'s scratch directory, made on first use; forgotten (and removed once no
    /// command holds it) when the owner ends.
    pub(crate) fn of(&self, owner: &OwnerHandle) -> io::Result<Arc<ScratchDir>> {
        let mut dirs = self.dirs.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(dir) = dirs.get(&owner.id()) {
            return Ok(dir.clone());
        }
        if owner.is_ended() {
            return Err(io::Error::other("the owner of this call has ended"));
        }
        let dir = Arc::new(ScratchDir {
            path: make_dir(owner.id())?,
        });
        dirs.insert(owner.id(), dir.clone());
        let (weak, ended, id) = (Arc::downgrade(&self.dirs), owner.ended(), owner.id());
        // Held until the directory is removed: closing the owner waits for it.
        let held = owner.hold();
        spawn_on_host(async move {
            ended.cancelled().await;
            if let Some(dirs) = weak.upgrade() {
                let gone = dirs.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
                drop(gone);
            }
            drop(held);
        });
        Ok(dir)
    }
}

/// A new `<temp>/ptc-scratch-<pid>-<owner>-<n>`, mode 0700.
fn make_dir(owner: u64) -> io::Result<PathBuf> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let base = fs::canonicalize(std::env::temp_dir())?;
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = base.join(format!("ptc-scratch-{}-{owner}-{n}", std::process::id()));
        match DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}
