//! The encoding of a text file, judged from its first bytes: UTF-8 (most files), UTF-16 (a
//! byte order mark says so), another encoding that Firefox's detector (`chardetng`) names
//! (Windows-1252 exports, Shift_JIS logs), or binary. `read` shows text in another encoding
//! decoded ([`Decoded`]) and `grep` searches it so, each saying which encoding it took.

use std::io::{self, Read};

use chardetng::EncodingDetector;
use encoding_rs::{Decoder, Encoding, UTF_16BE, UTF_16LE, UTF_8};

use super::shared;

/// What a file's first bytes say of its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TextEncoding {
    /// UTF-8 (or as good as: a character cut at the end of the bytes looked at).
    Utf8,
    /// Text in another encoding.
    Other(&'static Encoding),
    /// Not text: a NUL byte, and no UTF-16 byte order mark.
    Binary,
}

/// The encoding of a file whose first bytes are `probe` (`whole`: they are the whole file).
pub(crate) fn of(probe: &[u8], whole: bool) -> TextEncoding {
    match probe {
        [0xFF, 0xFE, ..] => return TextEncoding::Other(UTF_16LE),
        [0xFE, 0xFF, ..] => return TextEncoding::Other(UTF_16BE),
        _ if shared::looks_binary(probe) => return TextEncoding::Binary,
        _ => {}
    }
    match std::str::from_utf8(probe) {
        Ok(_) => TextEncoding::Utf8,
        Err(e) if e.error_len().is_none() && !whole => TextEncoding::Utf8,
        Err(_) => {
            let mut detector = EncodingDetector::new();
            detector.feed(probe, whole);
            match detector.guess(None, true) {
                encoding if encoding == UTF_8 => TextEncoding::Utf8,
                encoding => TextEncoding::Other(encoding),
            }
        }
    }
}

/// How to convert a file in `encoding` to UTF-8 with bash, for messages.
pub(crate) fn conversion(encoding: &'static Encoding, file: &str) -> String {
    format!("iconv -f {} -t utf-8 '{file}' > NEW", encoding.name())
}

/// The text of `bytes` (not UTF-8) in the encoding they look like, when that reads all of them
/// and writes them back byte for byte (a one-byte encoding such as Windows-1252 does; a
/// misjudged or damaged file does not): a tool may then change the text and write it in that
/// encoding, leaving every other byte as it was. UTF-16 is left out (its files look binary).
pub(crate) fn round_trip(bytes: &[u8]) -> Option<(String, &'static Encoding)> {
    let TextEncoding::Other(encoding) = of(bytes, true) else {
        return None;
    };
    if encoding == UTF_16LE || encoding == UTF_16BE {
        return None;
    }
    let text = encoding
        .decode_without_bom_handling_and_without_replacement(bytes)?
        .into_owned();
    let (back, _, unmappable) = encoding.encode(&text);
    (!unmappable && back == bytes).then_some((text, encoding))
}

/// `text` in `encoding` (one that [`round_trip`] read), or the characters it cannot hold.
pub(crate) fn encode(text: &str, encoding: &'static Encoding) -> Result<Vec<u8>, String> {
    let (bytes, _, unmappable) = encoding.encode(text);
    if !unmappable {
        return Ok(bytes.into_owned());
    }
    let mut buffer = [0u8; 8];
    let lost: String = text
        .chars()
        .filter(|c| {
            let (one, _, bad) = encoding.encode(c.encode_utf8(&mut buffer));
            bad || one.is_empty()
        })
        .take(5)
        .collect();
    Err(lost)
}

/// How to make the file `shown`, whose `bytes` are not valid UTF-8, UTF-8: converted from the
/// encoding they look like (Windows-1252 is not Latin-1: its € is 0x80, which Latin-1 reads as
/// a control character), or, when they are mostly UTF-8, with the odd bytes dropped.
pub(crate) fn not_utf8_advice(bytes: &[u8], shown: &str) -> String {
    match of(bytes, true) {
        TextEncoding::Other(encoding) => format!(
            "it looks like {} text: convert it first (bash: {})",
            encoding.name(),
            conversion(encoding, shown)
        ),
        _ => format!(
            "it is mostly UTF-8 with some bytes that are not: fix those first (bash: iconv -f \
             utf-8 -t utf-8 -c '{shown}' > NEW drops them)"
        ),
    }
}

/// Why `tool` refuses the file `shown` whose first bytes `probe` look binary
/// ([`shared::looks_binary`]): text in another encoding (UTF-16, by its byte order mark) is
/// named as such, with how to convert it; anything else is binary.
pub(crate) fn refusal(shown: &str, probe: &[u8], tool: &str) -> String {
    match of(probe, false) {
        TextEncoding::Other(encoding) => format!(
            "`{shown}` is {} text (it starts with that byte order mark); {tool} works on UTF-8 \
             text. Convert it first (bash: {}); grep searches it as it is.",
            encoding.name(),
            conversion(encoding, shown)
        ),
        _ => format!("`{shown}` is a binary file; {tool} works on text files only."),
    }
}

/// Command output as text: lines that are UTF-8 as they are, the others decoded from the one
/// encoding `chardetng` makes of them all (a cp1252 file piped through `sort` beside UTF-8
/// lines), and the encoding with how many lines it decoded. Output with a NUL byte, or whose
/// odd lines look like UTF-8 after all, keeps U+FFFD for what is not UTF-8.
pub(crate) fn output_text(bytes: &[u8]) -> (String, Option<(&'static Encoding, usize)>) {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return (text.to_string(), None);
    }
    let lines = || bytes.split_inclusive(|b| *b == b'\n');
    let odd = || lines().filter(|line| std::str::from_utf8(line).is_err());
    let mut detector = EncodingDetector::new();
    for line in odd() {
        detector.feed(line, false);
    }
    detector.feed(b"", true);
    let encoding = detector.guess(None, true);
    let single_byte = encoding.is_single_byte() && encoding != UTF_8;
    if !single_byte || odd().any(shared::looks_binary) {
        return (String::from_utf8_lossy(bytes).into_owned(), None);
    }
    let mut decoded = 0;
    let text = lines()
        .map(|line| match std::str::from_utf8(line) {
            Ok(text) => std::borrow::Cow::Borrowed(text),
            Err(_) => {
                decoded += 1;
                encoding.decode_without_bom_handling(line).0
            }
        })
        .collect();
    (text, Some((encoding, decoded)))
}

/// A reader of text as UTF-8: `inner`'s bytes as they are, or decoded from an encoding.
pub(crate) struct Decoded<R> {
    inner: R,
    decoder: Option<Decoder>,
    raw: Vec<u8>,
    out: Vec<u8>,
    /// Where the unread part of `out` begins.
    at: usize,
    done: bool,
}

impl<R: Read> Decoded<R> {
    /// `inner` read as UTF-8, decoded from `encoding` if any (its byte order mark dropped).
    pub(crate) fn new(inner: R, encoding: Option<&'static Encoding>) -> Self {
        Decoded {
            inner,
            decoder: encoding.map(Encoding::new_decoder_with_bom_removal),
            raw: Vec::new(),
            out: Vec::new(),
            at: 0,
            done: false,
        }
    }

    /// The reader it reads from.
    pub(crate) fn into_inner(self) -> R {
        self.inner
    }
}

impl<R: Read> Read for Decoded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let Some(decoder) = &mut self.decoder else {
            return self.inner.read(buf);
        };
        while self.at == self.out.len() {
            if self.done {
                return Ok(0);
            }
            self.raw.resize(64 * 1024, 0);
            let n = self.inner.read(&mut self.raw)?;
            self.done = n == 0;
            let most = decoder
                .max_utf8_buffer_length(n)
                .ok_or_else(|| io::Error::other("a decoded chunk too large to hold"))?;
            self.out.resize(most, 0);
            // With room for the most it can write, the decoder takes all of the input.
            let (_, _, written, _) =
                decoder.decode_to_utf8(&self.raw[..n], &mut self.out, self.done);
            self.out.truncate(written);
            self.at = 0;
        }
        let n = buf.len().min(self.out.len() - self.at);
        buf[..n].copy_from_slice(&self.out[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_lines_not_in_utf8_are_decoded_from_the_encoding_they_are_in() {
        let mixed = b"M\xfcnchen;12\nZ\xc3\xbcrich;3\nK\xf6ln;4\n";
        let (text, decoded) = output_text(mixed);
        assert_eq!(text, "München;12\nZürich;3\nKöln;4\n");
        let (encoding, lines) = decoded.unwrap();
        assert_eq!((encoding.name(), lines), ("windows-1252", 2));
        assert_eq!(output_text(b"plain\n"), ("plain\n".to_string(), None));
        // Binary output keeps its replacement characters.
        let (text, decoded) = output_text(b"\x00\xff\xfe\n");
        assert_eq!((text.as_str(), decoded), ("\0\u{FFFD}\u{FFFD}\n", None));
    }

    #[test]
    fn a_files_first_bytes_say_whether_it_is_utf8_another_encoding_or_binary() {
        assert_eq!(of("naïve café\n".as_bytes(), true), TextEncoding::Utf8);
        // A character cut where the bytes looked at end.
        assert_eq!(of(&"é".as_bytes()[..1], false), TextEncoding::Utf8);
        let cp1252 = b"name;city\n\xc5sa;M\xfcnchen\nJos\xe9;Paris\n";
        assert_eq!(
            of(cp1252, true),
            TextEncoding::Other(encoding_rs::WINDOWS_1252)
        );
        assert_eq!(
            of(b"\xff\xfei\x00d\x00", true),
            TextEncoding::Other(UTF_16LE)
        );
        assert_eq!(of(b"\x7fELF\x00\x01", true), TextEncoding::Binary);
    }

    #[test]
    fn decoded_text_reads_as_utf8_in_chunks_of_any_size() {
        let cp1252 = b"\xc5sa;M\xfcnchen\n".repeat(10_000);
        let mut text = String::new();
        let mut reader = Decoded::new(&cp1252[..], Some(encoding_rs::WINDOWS_1252));
        reader.read_to_string(&mut text).unwrap();
        assert_eq!(text, "Åsa;München\n".repeat(10_000));
        let utf16: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain("id\n1\n".encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        let mut text = String::new();
        Decoded::new(&utf16[..], Some(UTF_16LE))
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "id\n1\n");
        let mut same = Vec::new();
        Decoded::new(&b"as is \xff"[..], None)
            .read_to_end(&mut same)
            .unwrap();
        assert_eq!(same, b"as is \xff");
    }
}
