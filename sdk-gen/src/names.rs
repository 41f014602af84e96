//! Property names: when a name can stay bare and how it is quoted otherwise.

/// True if `name` can be written as a bare TypeScript property name and
/// property access (`tools.name`, `{ name: T }`).
///
/// The check is deliberately conservative: only ASCII identifier names
/// (`[A-Za-z_$][A-Za-z0-9_$]*`) qualify. Reserved words such as `default`,
/// `new` or `delete` are valid property names in ES5+ and therefore count as
/// identifiers. Everything else (dashes, dots, spaces, leading digits, the
/// empty string, non-ASCII letters) is JSON-quoted instead, which is always
/// valid.
///
/// ```
/// use ptc_sdk_gen::is_identifier;
/// assert!(is_identifier("read_file"));
/// assert!(is_identifier("then"));
/// assert!(!is_identifier("my-tool"));
/// assert!(!is_identifier("1st"));
/// ```
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '$' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// Renders `name` as a property key: bare when [`is_identifier`] holds,
/// otherwise a JSON string literal.
///
/// `__proto__`, `constructor` and `then` are ordinary identifiers here: in an
/// interface or type literal they declare plain properties (checked with
/// `tsc`), so they stay bare and are called as `tools.then(...)`.
pub(crate) fn property_key(name: &str) -> String {
    if is_identifier(name) {
        name.to_owned()
    } else {
        string_literal(name)
    }
}

/// A TypeScript string literal for `s`: JSON encoding plus escaped U+2028 and
/// U+2029, so the literal is valid for every ECMAScript edition and never
/// spans lines.
pub(crate) fn string_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || c == '\u{2028}' || c == '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_literal_matches_json_for_ordinary_text() {
        for s in ["", "a", "a\"b\\c", "line\nbreak\u{1}", "caf\u{e9}"] {
            assert_eq!(string_literal(s), serde_json::to_string(s).unwrap());
        }
        assert_eq!(string_literal("a\u{2028}b"), "\"a\\u2028b\"");
    }
}
