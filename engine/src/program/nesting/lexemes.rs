//! The lexical side of the nesting scan: line breaks, comments, numbers, strings, regular
//! expressions and template text are skipped here, and a `/` is read as a regex or a division.

use super::{Open, Prev, Scan};

impl Scan<'_> {
    /// Skip a line terminator (LF, CR, U+2028, U+2029); `false` when there is none here.
    pub(super) fn line_break(&mut self) -> bool {
        let len = match self.text[self.pos] {
            b'\n' | b'\r' => 1,
            0xe2 if self.peek(1) == 0x80 && matches!(self.peek(2), 0xa8 | 0xa9) => 3,
            _ => return false,
        };
        self.pos += len;
        self.newline = true;
        true
    }

    pub(super) fn line_comment(&mut self) {
        while self.pos < self.text.len() && !matches!(self.text[self.pos], b'\n' | b'\r') {
            self.pos += 1;
        }
    }

    pub(super) fn block_comment(&mut self) {
        self.pos += 2;
        while self.pos < self.text.len() {
            if self.text[self.pos] == b'*' && self.peek(1) == b'/' {
                self.pos += 2;
                return;
            }
            if matches!(self.text[self.pos], b'\n' | b'\r') {
                self.newline = true;
            }
            self.pos += 1;
        }
    }

    /// Whether a `/` here starts a regular expression (`true`) or divides.
    pub(super) fn slash_starts_regex(&mut self) -> bool {
        match self.prev {
            Prev::Operator | Prev::Keyword => true,
            Prev::CloseParen { header } => header,
            Prev::Name | Prev::Literal | Prev::CloseBracket => false,
            Prev::CloseBrace | Prev::MaybeName => {
                // Either reading is possible. Read division, which counts what follows as code;
                // if a regex reading would skip anything that counts, say so.
                if self.ambiguous.is_none() && self.regex_would_hide_structure() {
                    self.ambiguous = Some(self.pos);
                }
                false
            }
        }
    }

    /// Whether reading a regex from here would change what counts: its text (up to the next
    /// unescaped `/` on this line) holds a bracket, a quote or an escaped one, or a comment
    /// would start right after it in the division reading. No closing `/` on the line means no
    /// regex can start here.
    pub(super) fn regex_would_hide_structure(&self) -> bool {
        let structure = |b: u8| b"()[]{}'\"`".contains(&b);
        let mut pos = self.pos + 1;
        while pos < self.text.len() {
            match self.text[pos] {
                b'\n' | b'\r' => return false,
                b'\\' => {
                    let next = self.text.get(pos + 1).copied().unwrap_or(0);
                    if structure(next) || next == b'/' {
                        return true;
                    }
                    pos += 2;
                }
                b'/' => return matches!(self.text.get(pos + 1), Some(b'/' | b'*')),
                b if structure(b) => return true,
                _ => pos += 1,
            }
        }
        false
    }

    pub(super) fn number(&mut self) {
        let start = self.pos;
        let hex = self.text[start..].starts_with(b"0x") || self.text[start..].starts_with(b"0X");
        while self.pos < self.text.len() {
            let b = self.text[self.pos];
            let exponent_sign =
                !hex && matches!(b, b'+' | b'-') && matches!(self.text[self.pos - 1], b'e' | b'E');
            if b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || exponent_sign {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    pub(super) fn string(&mut self, quote: u8) {
        self.pos += 1;
        while self.pos < self.text.len() {
            match self.text[self.pos] {
                b'\\' => self.pos += 2,
                b'\n' | b'\r' => return,
                b if b == quote => {
                    self.pos += 1;
                    return;
                }
                _ => self.pos += 1,
            }
        }
    }

    pub(super) fn regex(&mut self) {
        self.pos += 1;
        let mut class = false;
        while self.pos < self.text.len() {
            match self.text[self.pos] {
                b'\\' => self.pos += 2,
                b'\n' | b'\r' => return,
                b'[' => {
                    class = true;
                    self.pos += 1;
                }
                b']' => {
                    class = false;
                    self.pos += 1;
                }
                b'/' if !class => {
                    self.pos += 1;
                    while self.pos < self.text.len() && is_name_part(self.text[self.pos]) {
                        self.pos += 1;
                    }
                    return;
                }
                _ => self.pos += 1,
            }
        }
    }

    /// Text of a template literal, up to its closing backtick or a `${`.
    pub(super) fn template_text(&mut self) {
        while self.pos < self.text.len() {
            match self.text[self.pos] {
                b'\\' => self.pos += 2,
                b'`' => {
                    self.pos += 1;
                    self.pop(Open::Template);
                    self.prev = Prev::Literal;
                    return;
                }
                b'$' if self.peek(1) == b'{' => {
                    self.pos += 2;
                    self.push(Open::Substitution, false);
                    self.prev = Prev::Operator;
                    return;
                }
                _ => self.pos += 1,
            }
        }
    }
}

pub(super) fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || matches!(b, b'_' | b'$' | b'\\' | b'#') || b >= 0x80
}

pub(super) fn is_name_part(b: u8) -> bool {
    (is_name_start(b) && b != b'#') || b.is_ascii_digit()
}

pub(super) fn is_operator_char(b: u8) -> bool {
    matches!(
        b,
        b'+' | b'-'
            | b'*'
            | b'%'
            | b'='
            | b'<'
            | b'>'
            | b'!'
            | b'&'
            | b'|'
            | b'^'
            | b'~'
            | b'?'
            | b':'
            | b'.'
            | b'@'
    )
}
