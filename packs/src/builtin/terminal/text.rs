//! A terminal's bytes as text for a model: escape sequences (colours, cursor movement, titles)
//! removed, `\r\n` as `\n`, a lone `\r` starting its line over, backspaces applied, other
//! control characters dropped; and paging by lines.

/// `bytes` as plain text.
pub(crate) fn clean(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.next() {
                // CSI: parameters and intermediates, then one final byte.
                Some('[') => {
                    for c in chars.by_ref() {
                        if ('\u{40}'..='\u{7e}').contains(&c) {
                            break;
                        }
                    }
                }
                // OSC and other strings: up to BEL or ESC \.
                Some(']' | 'P' | 'X' | '^' | '_') => {
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' || (c == '\u{1b}' && chars.next_if_eq(&'\\').is_some()) {
                            break;
                        }
                    }
                }
                // Charset designations take one more character.
                Some('(' | ')' | '*' | '+') => drop(chars.next()),
                _ => {}
            },
            '\r' if chars.peek() == Some(&'\n') => {}
            '\r' => {
                let start = out.rfind('\n').map_or(0, |i| i + 1);
                out.truncate(start);
            }
            '\u{8}' => {
                if out.chars().last().is_some_and(|c| c != '\n') {
                    out.pop();
                }
            }
            '\n' | '\t' => out.push(c),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// A page of `text`'s lines (an unterminated last line counts): `count` lines ending
/// `offset` lines before the newest. Returns the page and how many lines precede it.
pub(super) fn page(text: &str, offset: usize, count: usize) -> (String, usize) {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let end = lines.len().saturating_sub(offset);
    let start = end.saturating_sub(count);
    (lines[start..end].concat(), start)
}

#[cfg(test)]
mod tests {
    use super::{clean, page};

    #[test]
    fn escapes_and_carriage_returns_are_cleaned() {
        assert_eq!(
            clean(b"\x1b[?2004h\x1b[01;32muser\x1b[0m$ ls\r\na  b\r\n"),
            "user$ ls\na  b\n"
        );
        assert_eq!(clean(b"\x1b]0;title\x07x 10%\r20%\rdone\n"), "done\n");
        assert_eq!(clean(b"ab\x08c\x07"), "ac");
    }

    #[test]
    fn pages_count_from_the_newest_line() {
        let text = "1\n2\n3\n4\n>>> ";
        assert_eq!(page(text, 0, 2), ("4\n>>> ".to_string(), 3));
        assert_eq!(page(text, 1, 2), ("3\n4\n".to_string(), 2));
        assert_eq!(page(text, 9, 2), (String::new(), 0));
    }
}
