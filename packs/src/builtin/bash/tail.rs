//! The streams of one `bash` call: their tails, the reader that fills them, and the guard
//! that kills the process group.

use std::sync::{Arc, Mutex};

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use tokio::io::{AsyncRead, AsyncReadExt};

use super::super::{shared, text_encoding};

/// The encoding lines of a stream were decoded from, and how many.
pub(super) type Decoded = Option<(&'static encoding_rs::Encoding, usize)>;

/// The tail of one stream, or of both interleaved.
pub(super) struct Tail {
    buf: Vec<u8>,
    cap: usize,
    cut: bool,
    /// Bytes pushed in all.
    seen: u64,
}

impl Tail {
    pub(super) fn new(cap: usize) -> Self {
        Tail {
            buf: Vec::new(),
            cap,
            cut: false,
            seen: 0,
        }
    }

    /// Bytes pushed in all (kept or not).
    pub(super) fn seen(&self) -> u64 {
        self.seen
    }

    fn push(&mut self, bytes: &[u8]) {
        self.seen += bytes.len() as u64;
        self.buf.extend_from_slice(bytes);
        if self.buf.len() > 2 * self.cap {
            self.trim();
        }
    }

    fn trim(&mut self) {
        if self.buf.len() > self.cap {
            self.buf.drain(..self.buf.len() - self.cap);
            self.cut = true;
        }
    }

    /// The kept text, whether it was cut, how many of its bytes are not UTF-8 (each sequence
    /// of them shows as U+FFFD), and the encoding its other lines were decoded from, with how
    /// many ([`text_encoding::output_text`]). A cut tail begins with a whole line (the part of
    /// a line the cut left is not kept), unless the tail is one line.
    pub(super) fn text(mut self) -> (String, bool, usize, Decoded) {
        self.trim();
        let start = match self.cut {
            true => match self.buf.iter().position(|b| *b == b'\n') {
                Some(newline) if newline + 1 < self.buf.len() => newline + 1,
                // A character the cut split at the front is not the command's doing.
                _ => self
                    .buf
                    .iter()
                    .take(3)
                    .take_while(|b| *b & 0xC0 == 0x80)
                    .count(),
            },
            false => 0,
        };
        let (text, decoded) = text_encoding::output_text(&self.buf[start..]);
        let not_utf8 = match decoded {
            Some(_) => 0,
            None => self.buf[start..]
                .utf8_chunks()
                .map(|chunk| chunk.invalid().len())
                .sum(),
        };
        // Decoded text may be longer than the bytes: cut again, from a line's start, and drop
        // the replacement a character split at the front left.
        let text = if self.cut {
            let tail = shared::tail_str(&text, self.cap);
            let tail = match tail.len() < text.len() {
                true => tail.split_once('\n').map_or(tail, |(_, rest)| rest),
                false => tail,
            };
            tail.trim_start_matches('\u{FFFD}').to_string()
        } else {
            text
        };
        (text, self.cut, not_utf8, decoded)
    }
}

/// Kills the process group when dropped, unless disarmed.
pub(super) struct GroupGuard {
    pub(super) pgid: Option<Pid>,
}

impl GroupGuard {
    pub(super) fn kill(&self) {
        if let Some(pgid) = self.pgid {
            // ESRCH (the group is already gone) is fine.
            let _ = killpg(pgid, Signal::SIGKILL);
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill();
    }
}

pub(super) async fn pump(
    mut stream: impl AsyncRead + Unpin,
    own: Arc<Mutex<Tail>>,
    both: Arc<Mutex<Tail>>,
) {
    let mut chunk = vec![0u8; 16 * 1024];
    while let Ok(n) = stream.read(&mut chunk).await {
        if n == 0 {
            break;
        }
        own.lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(&chunk[..n]);
        both.lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(&chunk[..n]);
    }
}

/// The name of signal `number`, e.g. `SIGTERM`.
pub(crate) fn signal_name(number: i32) -> String {
    Signal::try_from(number)
        .map(|s| s.as_str().to_string())
        .unwrap_or_else(|_| format!("signal {number}"))
}
