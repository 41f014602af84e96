//! Whether a line of a text starts in code, as JavaScript reads the text: not inside a comment,
//! a string, a regular expression or a template literal. Shaping asks it before it takes a
//! markdown fence for one ([`super::super::shape`]): a fence inside a comment or a string is
//! part of what the program says, and unfencing it would run code a reader sees as inert.

use super::{Open, Scan};

/// Whether the line that starts at byte `at` of `text` starts in code: no comment, string,
/// regular expression or template literal runs across `at`, and no `/` before it could have
/// been read either way (the scan cannot tell what follows such a slash).
pub(crate) fn starts_in_code(text: &str, at: usize) -> bool {
    let mut scan = Scan::new(text.as_bytes());
    while scan.pos < at.min(text.len()) {
        let start = scan.pos;
        scan.step();
        // Tokens never run across a line break; what does is a comment, a string continued
        // with `\`, a regular expression's or a template's text.
        if start < at && scan.pos > at {
            return false;
        }
    }
    let in_template = scan
        .levels
        .iter()
        .any(|level| matches!(level.open, Open::Template | Open::Substitution));
    !in_template && scan.ambiguous.is_none()
}

#[cfg(test)]
mod tests {
    use super::starts_in_code;

    /// Whether the line after the first `\n` of `text` starts in code.
    fn second_line_in_code(text: &str) -> bool {
        starts_in_code(text, text.find('\n').unwrap() + 1)
    }

    #[test]
    fn comments_strings_and_templates_are_not_code() {
        assert!(!second_line_in_code("/*\n```ts\n*/"));
        assert!(!second_line_in_code("let s = `\n```ts\n`"));
        assert!(!second_line_in_code("let s = `${`\n```ts\n`}`"));
        assert!(!second_line_in_code("let s = '\\\n```ts'"));
        assert!(!second_line_in_code("let r = /'/; /*\n```ts\n*/"));
        assert!(!second_line_in_code("let r = /`/; `\n```ts\n`"));
    }

    #[test]
    fn prose_and_code_before_a_line_leave_it_in_code() {
        assert!(second_line_in_code("Here's the program:\n```ts"));
        assert!(second_line_in_code(
            "It calls `tools.read` and then /path/to:\n```ts"
        ));
        assert!(second_line_in_code("// a comment\n```ts"));
        assert!(second_line_in_code("/* done */ x = \"a\";\n```ts"));
        assert!(starts_in_code("```ts\nreturn 1\n```", 0));
    }
}
