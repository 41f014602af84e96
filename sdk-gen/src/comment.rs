//! One-line `//` comments that keep the text literal and can never break out of the comment.

/// Turns free text into one line, or `None` when nothing printable is left: every run of
/// whitespace, control characters, line/paragraph separators and bidirectional-override
/// characters becomes one space, and the result is trimmed.
///
/// Nothing else changes. A `//` comment ends only at a line terminator, and none is left,
/// so `*/`, `/*` and backslashes reach the model exactly as written (a glob example such
/// as `"**/*.ts"` stays copyable).
pub(crate) fn one_line(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    for c in text.chars() {
        if is_separator(c) {
            pending_space = !out.is_empty();
            continue;
        }
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        out.push(c);
    }
    if out.is_empty() {
        None
    } else {
        Some(out)
    }
}

/// `// text` for `text`, or `None` when the text is blank.
pub(crate) fn line_comment(text: &str) -> Option<String> {
    one_line(text).map(|t| format!("// {t}"))
}

fn is_separator(c: char) -> bool {
    c.is_whitespace()
        || c.is_control()
        || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_and_collapsed() {
        assert_eq!(line_comment("a */ b").unwrap(), "// a */ b");
        assert_eq!(
            line_comment("e.g. \"**/*.ts\"").unwrap(),
            "// e.g. \"**/*.ts\""
        );
        assert_eq!(line_comment("x/*y\\z").unwrap(), "// x/*y\\z");
        assert_eq!(
            line_comment("  one\n\r\n two\t\u{0}three\u{2028}four\u{2029}five  ").unwrap(),
            "// one two three four five"
        );
        assert_eq!(line_comment("end*"), Some("// end*".to_owned()));
        assert_eq!(line_comment(" \n\t "), None);
    }
}
