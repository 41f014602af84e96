//! Output kept in a ring buffer with absolute positions: each reader keeps its own cursor,
//! and learns how many bytes the ring dropped before it read them.

use std::collections::VecDeque;

/// The last `cap` bytes of a stream, addressed by their position in the whole stream.
#[derive(Debug)]
pub(crate) struct Ring {
    buf: VecDeque<u8>,
    cap: usize,
    /// The position of `buf[0]` in the whole stream (bytes dropped so far).
    start: u64,
}

/// What a read found between two positions.
#[derive(Debug, Default)]
pub(crate) struct Chunk {
    /// Bytes the reader never saw: dropped before it got to them.
    pub dropped: u64,
    /// The bytes still kept.
    pub bytes: Vec<u8>,
}

impl Ring {
    /// An empty ring keeping at most `cap` bytes (allocated as output arrives).
    pub(crate) fn new(cap: usize) -> Self {
        Ring {
            buf: VecDeque::new(),
            cap: cap.max(1),
            start: 0,
        }
    }

    /// Append `bytes`, dropping the oldest beyond the cap.
    pub(crate) fn push(&mut self, bytes: &[u8]) {
        let bytes = if bytes.len() > self.cap {
            self.start += (self.buf.len() + bytes.len() - self.cap) as u64;
            self.buf.clear();
            &bytes[bytes.len() - self.cap..]
        } else {
            let over = (self.buf.len() + bytes.len()).saturating_sub(self.cap);
            self.buf.drain(..over);
            self.start += over as u64;
            bytes
        };
        self.buf.extend(bytes);
    }

    /// The position after the last byte written.
    pub(crate) fn end(&self) -> u64 {
        self.start + self.buf.len() as u64
    }

    /// The position of the oldest byte kept.
    pub(crate) fn start(&self) -> u64 {
        self.start
    }

    /// The bytes from `from` to `to` (positions; clamped to what was written).
    pub(crate) fn read(&self, from: u64, to: u64) -> Chunk {
        let to = to.min(self.end());
        let begin = from.max(self.start).min(to);
        let (a, b) = ((begin - self.start) as usize, (to - self.start) as usize);
        Chunk {
            dropped: begin.saturating_sub(from),
            bytes: self.buf.range(a..b).copied().collect(),
        }
    }

    /// Bytes allocated for the buffer.
    pub(crate) fn allocated(&self) -> usize {
        self.buf.capacity()
    }
}

/// The length of `bytes` without a UTF-8 sequence cut short at its end (kept for the next
/// read while the stream goes on).
pub(crate) fn complete_len(bytes: &[u8]) -> usize {
    // A sequence is at most 4 bytes: look at the last 3 for the start of an unfinished one.
    for back in 1..=bytes.len().min(3) {
        let b = bytes[bytes.len() - back];
        if b & 0b1100_0000 == 0b1000_0000 {
            continue; // a continuation byte: its lead is further back
        }
        let need = match b {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => 1,
        };
        return if need > back {
            bytes.len() - back
        } else {
            bytes.len()
        };
    }
    bytes.len()
}

/// `bytes` as text; `cut` says the front was dropped, so leading continuation bytes (the rest
/// of a character whose start is gone) are skipped.
pub(crate) fn text(bytes: &[u8], cut: bool) -> String {
    let skip = if cut {
        bytes
            .iter()
            .take(3)
            .take_while(|&&b| b & 0b1100_0000 == 0b1000_0000)
            .count()
    } else {
        0
    };
    String::from_utf8_lossy(&bytes[skip..]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_the_oldest_and_counts_them_for_each_reader() {
        let mut ring = Ring::new(8);
        ring.push(b"0123456");
        assert_eq!(ring.read(0, u64::MAX).bytes, b"0123456");
        ring.push(b"789ab");
        let chunk = ring.read(2, u64::MAX);
        assert_eq!((chunk.dropped, &chunk.bytes[..]), (2, &b"456789ab"[..]));
        ring.push(b"0123456789xyz");
        assert_eq!(ring.start(), 17);
        let chunk = ring.read(12, 20);
        // Positions 12..25 hold the third push; 12..17 were dropped.
        assert_eq!((chunk.dropped, &chunk.bytes[..]), (5, &b"567"[..]));
    }

    #[test]
    fn holds_back_a_cut_character() {
        let euro = "€".as_bytes();
        assert_eq!(complete_len(&euro[..2]), 0);
        assert_eq!(complete_len(euro), 3);
        assert_eq!(complete_len(b"ab\xC3"), 2);
        assert_eq!(text(&euro[1..], true), "");
        assert_eq!(text(b"a\xE2\x82\xAC", false), "a€");
    }
}
