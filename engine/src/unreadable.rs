//! A TypeError reading a property of `undefined` or `null` names the expression that was
//! `undefined`: QuickJS says "cannot read property 'split' of undefined", V8 "Cannot read
//! properties of undefined (reading 'split')"; neither says *what* was undefined. The
//! expression is found in the program's line at the error's position (QuickJS points at the
//! start of the expression, V8 at the property read) as the member chain before `.split`.

/// The property read and what it was read of (`"undefined"` or `"null"`), from a TypeError's
/// message in either engine's words.
pub(crate) fn unreadable(message: &str) -> Option<(&str, &str)> {
    if let Some(rest) = message.strip_prefix("cannot read property '") {
        let (property, rest) = rest.split_once("' of ")?;
        return Some((property, rest));
    }
    let rest = message.strip_prefix("Cannot read properties of ")?;
    let (of, rest) = rest.split_once(" (reading '")?;
    Some((rest.strip_suffix("')")?, of))
}

/// The expression whose `.property` (or `?.property`, `["property"]`, `['property']`) is read
/// on `line` at or after 1-based `col` (one character of slack: V8 points at the property,
/// past the dot), else the nearest such read before it (a frame inside a read can point at a
/// later call of the chain): `res.match` in `return res.match.map(f)`, with the 1-based column
/// where it starts.
pub(crate) fn expression(line: &str, col: usize, property: &str) -> Option<(String, usize)> {
    let chars: Vec<char> = line.chars().collect();
    let from = col.saturating_sub(2).min(chars.len());
    let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let at = |i: usize, s: &str| {
        let s: Vec<char> = s.chars().collect();
        chars.get(i..i + s.len()) == Some(&s[..])
    };
    let reads = |i: &usize| {
        let i = *i;
        let dotted = chars[i] == '.'
            && at(i + 1, property)
            && !chars
                .get(i + 1 + property.chars().count())
                .is_some_and(|&c| ident(c));
        let indexed = ['"', '\'']
            .iter()
            .any(|q| at(i, &format!("[{q}{property}{q}]")));
        dotted || indexed
    };
    let read = (from..chars.len())
        .find(reads)
        .or_else(|| (0..from).rev().find(reads))?;
    let end = if read > 0 && chars[read] == '.' && chars[read - 1] == '?' {
        read - 1
    } else {
        read
    };
    let start = chain_start(&chars, end)?;
    let text: String = chars[start..end].iter().collect();
    let skipped = text.len() - text.trim_start().len();
    (!text.trim().is_empty()).then(|| (text.trim().to_string(), start + skipped + 1))
}

/// Where the member chain ending before `end` starts: identifiers, dots (`?.` too) and
/// balanced `(…)`/`[…]` groups, walked back from `end`.
fn chain_start(chars: &[char], end: usize) -> Option<usize> {
    let mut i = end;
    while i > 0 {
        let c = chars[i - 1];
        if c.is_alphanumeric() || matches!(c, '_' | '$' | '.' | '?') {
            i -= 1;
        } else if matches!(c, ')' | ']') {
            i = group_start(chars, i - 1)?;
        } else {
            break;
        }
    }
    // A leading `?` or `.` is not part of the chain (`a ? b.c : d`).
    while i < end && matches!(chars[i], '?' | '.') {
        i += 1;
    }
    Some(i)
}

/// The index of the bracket opening the group closed at `close`.
fn group_start(chars: &[char], close: usize) -> Option<usize> {
    let mut depth = 0usize;
    for i in (0..=close).rev() {
        match chars[i] {
            ')' | ']' => depth += 1,
            '(' | '[' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{expression, unreadable};

    #[test]
    fn both_engines_words_give_the_property_and_what_it_was_read_of() {
        assert_eq!(
            unreadable("cannot read property 'split' of undefined"),
            Some(("split", "undefined"))
        );
        assert_eq!(
            unreadable("Cannot read properties of null (reading 'split')"),
            Some(("split", "null"))
        );
        assert_eq!(unreadable("x is not a function"), None);
    }

    fn named(line: &str, col: usize, property: &str) -> Option<&'static str> {
        expression(line, col, property).map(|(text, _)| &*text.leak())
    }

    #[test]
    fn the_expression_is_the_member_chain_before_the_property() {
        let line = "return res.match.map((m: { path: string }) => m.path);";
        // QuickJS points at the expression's start, V8 at the property.
        assert_eq!(named(line, 8, "map"), Some("res.match"));
        assert_eq!(named(line, 18, "map"), Some("res.match"));
        // A frame inside `r.content` may point at the call after it (V8).
        let line = "const title = r.content.split(\"\\n\")[0];";
        assert_eq!(expression(line, 25, "content"), Some(("r".to_string(), 15)));
        let line = "const n = (await tools.read({ f })).content?.split('\\n')[0].length;";
        assert_eq!(
            named(line, 11, "split"),
            Some("(await tools.read({ f })).content")
        );
        assert_eq!(
            named("x = rows[i]['name'].trim()", 5, "trim"),
            Some("rows[i]['name']")
        );
        assert_eq!(named("x = a[\"b c\"]", 5, "b c"), Some("a"));
        assert_eq!(named("f(ok ? r.x.y : 1)", 1, "y"), Some("r.x"));
        assert_eq!(expression("nothing here", 1, "y"), None);
    }
}
