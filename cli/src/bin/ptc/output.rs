//! Where the CLI's own output goes: standard output that tolerates a closed pipe
//! (`ptc replay log | head`) and shows a terminal no raw control characters, and a session log
//! whose write failures are loud.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use ptc::session::JsonlLog;
use ptc::session::{SessionError, SessionEvent, SessionLog};

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

/// A JSON-lines session log that says so on stderr the first time a write fails (the
/// events from then on may be missing), and can be asked afterwards.
pub struct LoudLog {
    log: JsonlLog,
}

impl LoudLog {
    /// Open (creating or appending to) `path`.
    pub fn open(path: &Path) -> Result<Arc<Self>, String> {
        let log = JsonlLog::open(path)
            .map_err(|e| format!("cannot open the log {}: {e}", path.display()))?;
        Ok(Arc::new(LoudLog { log }))
    }

    /// The first write that failed, if any.
    pub fn failure(&self) -> Option<&str> {
        self.log.failure()
    }
}

impl SessionLog for LoudLog {
    fn append(&self, event: &SessionEvent) -> Result<(), SessionError> {
        let first = self.log.failure().is_none();
        let appended = self.log.append(event);
        if let Err(e) = &appended {
            if first {
                eprintln!("ptc: {e} (session events are being lost)");
            }
        }
        appended
    }
}
