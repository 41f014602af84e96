//! Text a person reads on a terminal, with every control character made visible.
//!
//! Tool names, arguments, policy reasons, console lines, results and replays carry text a
//! program or a tool server chose. Written raw to a terminal, escape sequences in it move the
//! cursor, erase or conceal lines (an approval prompt that shows one command and approves
//! another), set the clipboard (OSC 52) or clear the screen; bidirectional overrides reorder
//! what is shown. [`visible`] renders each such character as a visible stand-in instead:
//! C0 controls and DEL as their Unicode control pictures (`ESC` as `␛`, `CR` as `␍`), C1
//! controls (which some terminals obey as `CSI`, `OSC`, …), bidirectional and invisible
//! formatting characters as `<U+XXXX>`. Machine output (`--json`, MCP, a pipe) is never
//! passed through it: that stays byte-exact.

use std::borrow::Cow;
use std::fmt::Write;
use std::io::IsTerminal;

/// `text` with every control character, bidirectional override and invisible formatting
/// character made visible; line feeds and tabs are kept.
pub fn visible(text: &str) -> Cow<'_, str> {
    render(text, &['\n', '\t'])
}

/// [`visible`] for one line of a prompt: line feeds and tabs are made visible too, so the text
/// cannot start a line of its own that looks like ptc's.
pub fn visible_line(text: &str) -> Cow<'_, str> {
    render(text, &[])
}

/// [`visible`] if `terminal` is a terminal, else `text` as it is (a pipe or a file gets the
/// exact bytes).
pub fn for_stream<'a>(text: &'a str, terminal: &impl IsTerminal) -> Cow<'a, str> {
    if terminal.is_terminal() {
        visible(text)
    } else {
        Cow::Borrowed(text)
    }
}

fn render<'a>(text: &'a str, kept: &[char]) -> Cow<'a, str> {
    let hidden = |c: char| !kept.contains(&c) && stand_in(c).is_some();
    let Some(first) = text.find(hidden) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 16);
    out.push_str(&text[..first]);
    for c in text[first..].chars() {
        match stand_in(c) {
            Some(_) if kept.contains(&c) => out.push(c),
            Some(StandIn::Picture(p)) => out.push(p),
            Some(StandIn::CodePoint) => {
                let _ = write!(out, "<U+{:04X}>", c as u32);
            }
            None => out.push(c),
        }
    }
    Cow::Owned(out)
}

enum StandIn {
    /// A Unicode control picture (U+2400 block).
    Picture(char),
    /// `<U+XXXX>`.
    CodePoint,
}

/// How `c` is shown, if it is not shown as itself.
fn stand_in(c: char) -> Option<StandIn> {
    match c {
        '\0'..='\x1f' => char::from_u32(0x2400 + c as u32).map(StandIn::Picture),
        '\x7f' => Some(StandIn::Picture('\u{2421}')),
        // C1 controls; bidirectional marks, embeddings, overrides and isolates; zero-width and
        // other invisible formatting characters; line and paragraph separators.
        '\u{80}'..='\u{9f}'
        | '\u{061c}'
        | '\u{200b}'..='\u{200f}'
        | '\u{2028}'..='\u{202e}'
        | '\u{2060}'..='\u{2069}'
        | '\u{feff}' => Some(StandIn::CodePoint),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_become_visible_and_plain_text_is_borrowed() {
        assert!(matches!(visible("ls -la\n\tok ✓"), Cow::Borrowed(_)));
        assert_eq!(visible("a\x1b[2K\x1b[1Ab"), "a␛[2K␛[1Ab");
        assert_eq!(
            visible("\x1b]52;c;ZWNobw==\x07x"),
            "␛]52;c;ZWNobw==␇x",
            "OSC 52 (clipboard) and BEL"
        );
        assert_eq!(visible("\u{9b}2J\r\x7f"), "<U+009B>2J␍␡");
        assert_eq!(visible("safe\u{202e}txt.exe"), "safe<U+202E>txt.exe");
        assert_eq!(visible("a\nb\tc"), "a\nb\tc");
        assert_eq!(visible_line("a\nb\tc"), "a␊b␉c");
    }
}
