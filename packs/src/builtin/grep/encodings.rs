//! Files that are not UTF-8, for a pattern with non-ASCII characters: those characters match
//! UTF-8 text only, so such a file is searched again decoded from the encoding its first
//! bytes show ([`text_encoding`]), and the search says which files it decoded (or, when it
//! could not tell their encoding, that they may hide matches).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};

use grep_matcher::LineTerminator;
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder};

use super::MAX_LINE_BYTES;
use crate::builtin::shared;
use crate::builtin::text_encoding::{self, TextEncoding};

/// The most of a file that is checked for UTF-8.
const MAX_UTF8_CHECKED: u64 = 16 * 1024 * 1024;

/// Whether `file` (read from its start, up to [`MAX_UTF8_CHECKED`] bytes) is UTF-8 text. A
/// file that cannot be read again counts as UTF-8: nothing is said of it.
pub(super) fn is_utf8(mut file: &File) -> bool {
    let mut bytes = Vec::new();
    let read = file
        .seek(SeekFrom::Start(0))
        .and_then(|_| file.take(MAX_UTF8_CHECKED).read_to_end(&mut bytes));
    if read.is_err() {
        return true;
    }
    match std::str::from_utf8(&bytes) {
        Ok(_) => true,
        // Cut inside a character at the end of what was read.
        Err(e) => e.error_len().is_none() && bytes.len() as u64 == MAX_UTF8_CHECKED,
    }
}

/// The encoding `file`'s first bytes show, when it is text in one other than UTF-8.
pub(super) fn other_encoding(mut file: &File) -> Option<&'static encoding_rs::Encoding> {
    let mut probe = Vec::with_capacity(shared::BINARY_PROBE);
    file.seek(SeekFrom::Start(0)).ok()?;
    file.take(shared::BINARY_PROBE as u64)
        .read_to_end(&mut probe)
        .ok()?;
    let whole = probe.len() < shared::BINARY_PROBE;
    match text_encoding::of(&probe, whole) {
        TextEncoding::Other(encoding) => Some(encoding),
        TextEncoding::Utf8 | TextEncoding::Binary => None,
    }
}

/// A searcher that decodes a file from `encoding` (as `searcher()` otherwise).
pub(super) fn decoding_searcher(encoding: &'static encoding_rs::Encoding) -> Option<Searcher> {
    let label = grep_searcher::Encoding::new(encoding.name()).ok()?;
    Some(
        SearcherBuilder::new()
            .line_number(true)
            .line_terminator(LineTerminator::crlf())
            .binary_detection(BinaryDetection::quit(b'\x00'))
            .heap_limit(Some(MAX_LINE_BYTES))
            .encoding(Some(label))
            .build(),
    )
}
