//! One-line `//` comments that keep the text literal and can never break out of the comment,
//! and the text of a property's comment: its description and its constraints as tags.

use serde_json::Value;

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

/// Keywords shown as JSDoc-style tags after a property's description, in this order.
pub const TAGGED: &[&str] = &[
    "minimum",
    "exclusiveMinimum",
    "maximum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minItems",
    "maxItems",
    "uniqueItems",
    "default",
];
/// The longest value a tag quotes; longer ones are left out.
const TAG_VALUE_LIMIT: usize = 80;

/// A property's comment text, one line: its description, then its constraints as tags
/// (`@minimum 1 @maxLength 40 @format uri @default 10 @example "a"`), read from the node,
/// its union branches and its `$ref` target (one level, so a `number | null` union still
/// shows the number's bounds). `None` when there is nothing to say.
#[inline(never)]
pub(crate) fn property_doc(schema: &Value, root: &Value) -> Option<String> {
    let mut nodes = vec![schema];
    for union in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = schema.get(union) {
            nodes.extend(branches.iter());
        }
    }
    if let Some(target) = schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| ptc_schema::resolve_ref(root, r))
    {
        nodes.push(target);
    }
    let mut tags: Vec<String> = Vec::new();
    for node in &nodes {
        for key in TAGGED {
            let Some(text) = node.get(*key).and_then(short_json) else {
                continue;
            };
            let text = match node.get(*key) {
                Some(Value::String(s)) if *key == "pattern" || *key == "format" => s.clone(),
                _ => text,
            };
            let tag = format!("@{key} {text}");
            if !tags.contains(&tag) {
                tags.push(tag);
            }
        }
        if let Some(text) = node
            .get("examples")
            .and_then(Value::as_array)
            .and_then(|e| e.first())
            .and_then(short_json)
        {
            let tag = format!("@example {text}");
            if !tags.contains(&tag) {
                tags.push(tag);
            }
        }
    }
    let description = schema.get("description").and_then(Value::as_str);
    let text = description.into_iter().map(str::to_owned).chain(tags);
    one_line(&text.collect::<Vec<_>>().join(" "))
}

/// Compact JSON for a small value (at most three levels, 32 nodes and
/// [`TAG_VALUE_LIMIT`] bytes), else `None`. Never recurses on a large value.
fn short_json(value: &Value) -> Option<String> {
    if ptc_schema::value::depth_up_to(value, 3) > 3 {
        return None;
    }
    let mut nodes = 0;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        nodes += 1;
        if nodes > 32 {
            return None;
        }
        match v {
            Value::Array(items) => stack.extend(items.iter()),
            Value::Object(map) => stack.extend(map.values()),
            _ => {}
        }
    }
    let text = serde_json::to_string(value).ok()?;
    (text.len() <= TAG_VALUE_LIMIT).then_some(text)
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
