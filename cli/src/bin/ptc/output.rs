//! Where the CLI's own output goes: standard output that tolerates a closed pipe
//! (`ptc replay log | head`) and shows a terminal no raw control characters, and a session log
//! whose write failures are loud.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use ptc::session::{SessionError, SessionEvent, SessionLog};
use ptc_cli::store::{LogTarget, Store};

/// Write `text` to standard output; if the reader has gone (a closed pipe), exit quietly
/// with success, as `cat` would under `head`.
pub fn stdout(text: &str) {
    let mut out = std::io::stdout().lock();
    let written = out.write_all(text.as_bytes()).and_then(|_| out.flush());
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => {
            eprintln!("ptc: cannot write to standard output: {e}");
            std::process::exit(2);
        }
    }
}

/// Text for a person: [`stdout`], with control characters made visible when standard output
/// is a terminal ([`ptc::visible`]); exact bytes into a pipe or a file.
pub fn stdout_shown(text: &str) {
    stdout(&ptc::visible::for_stream(text, &std::io::stdout()));
}

/// [`stdout_shown`] with a newline.
pub fn stdout_shown_line(text: &str) {
    stdout_shown(&format!("{text}\n"));
}

/// One line on standard error for a person: control characters made visible when it is a
/// terminal (tool names, paths, messages and server warnings may carry a program's text).
pub fn stderr_line(text: &str) {
    let stderr = std::io::stderr();
    eprintln!("{}", ptc::visible::for_stream(text, &stderr));
}

/// [`stdout`] with a newline.
pub fn stdout_line(text: &str) {
    stdout(&format!("{text}\n"));
}

/// A session log of any kind ([`Store`]) that says so on stderr the first time a write fails
/// (the events from then on may be missing), and can be asked afterwards.
pub struct LoudLog {
    log: Store,
    warned: AtomicBool,
}

impl LoudLog {
    /// Open `target` for runs of `instance`; `None` for `off`.
    pub fn open(target: &LogTarget, instance: &str) -> Result<Option<Arc<Self>>, String> {
        Ok(Store::open(target, instance)?.map(|log| {
            Arc::new(LoudLog {
                log,
                warned: AtomicBool::new(false),
            })
        }))
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.log
    }

    /// Why events are missing, if they are.
    pub fn failure(&self) -> Option<String> {
        self.log.failure()
    }
}

impl SessionLog for LoudLog {
    fn append(&self, event: &SessionEvent) -> Result<(), SessionError> {
        let appended = self.log.append(event);
        if let Err(e) = &appended {
            if !self.warned.swap(true, Ordering::Relaxed) {
                eprintln!("ptc: {e} (session events are being lost)");
            }
        }
        appended
    }
}
