//! One-line `/** ... */` doc comments that can never break out of the comment.

/// Turns free text into the inside of a one-line doc comment, or `None` when
/// nothing printable is left.
///
/// * every run of whitespace, control characters, line/paragraph separators
///   and bidirectional-override characters becomes one space, and the result
///   is trimmed, so the comment stays on one line;
/// * `*/` becomes `*\/` and `/*` becomes `/\*`, so the text can neither close
///   the comment nor look like a nested one.
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
        let last = out.chars().next_back();
        match (last, c) {
            (Some('*'), '/') | (Some('/'), '*') => out.push('\\'),
            _ => {}
        }
        out.push(c);
    }
    if out.is_empty() {
        None
    } else {
        Some(out)
    }
}

/// `/** text */` for `text`, or `None` when the text is blank.
pub(crate) fn doc_comment(text: &str) -> Option<String> {
    one_line(text).map(|t| format!("/** {t} */"))
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
    fn escapes_and_collapses() {
        assert_eq!(doc_comment("a */ b").unwrap(), "/** a *\\/ b */");
        assert_eq!(doc_comment("x/*y").unwrap(), "/** x/\\*y */");
        assert_eq!(doc_comment("/*/").unwrap(), "/** /\\*\\/ */");
        assert_eq!(doc_comment("**//").unwrap(), "/** **\\// */");
        assert_eq!(
            doc_comment("  one\n\r\n two\t\u{0}three  ").unwrap(),
            "/** one two three */"
        );
        assert_eq!(doc_comment("end*"), Some("/** end* */".to_owned()));
        assert_eq!(doc_comment(" \n\t "), None);
    }
}
