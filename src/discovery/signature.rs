//! A tool's TypeScript call form, short: `tools.x(args: { a: string; b?: number }) =>
//! Promise<string>`, without comments, cut to a few hundred characters.

use serde_json::Value;

use super::overview::{cut, one_line};
use crate::definition::ToolDefinition;
use ptc_sdk_gen::{is_identifier, schema_to_ts, TAGGED_KEYWORDS};

/// At most this many characters of the argument type.
const ARGS_CHARS: usize = 240;
/// At most this many characters of the result type.
const OUTPUT_CHARS: usize = 100;
/// Annotations dropped before rendering (they become comments or nothing); the constraints
/// the SDK shows as tags ([`TAGGED_KEYWORDS`]) are dropped too.
const ANNOTATIONS: &[&str] = &["description", "title", "examples", "$comment"];
/// Schemas are copied without annotations to this depth; deeper nodes are kept as they are
/// (the renderer bounds its own depth).
const STRIP_DEPTH: usize = 16;

/// The call form of `tool`.
pub(crate) fn signature(tool: &ToolDefinition) -> String {
    let callee = match is_identifier(tool.name()) {
        true => format!("tools.{}", tool.name()),
        false => format!(
            "tools[{}]",
            serde_json::to_string(tool.name()).unwrap_or_default()
        ),
    };
    let args = match tool.validates_args() {
        true => schema_to_ts(&bare(tool.parameters(), 0)),
        false => "unknown".to_string(),
    };
    let output = schema_to_ts(&bare(tool.output().schema(), 0));
    format!(
        "{callee}(args: {}) => Promise<{}>",
        short(&args, ARGS_CHARS),
        short(&output, OUTPUT_CHARS)
    )
}

/// A type on one line, without the open-object tail (`& Record<string, JsonValue>`: any
/// other key is allowed), cut to `max` characters.
fn short(ty: &str, max: usize) -> String {
    let code: Vec<&str> = ty.lines().map(code_of).collect();
    let ty = one_line(&code.join("\n"));
    let ty = ty
        .strip_suffix(" & Record<string, JsonValue>")
        .unwrap_or(&ty);
    cut(ty, max)
}

/// A line of TypeScript without its `//` comment (one inside a string literal type stays):
/// joined onto one line, a comment would swallow the rest of the type.
fn code_of(line: &str) -> &str {
    let mut quote = None;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (Some(_), _) if escaped => escaped = false,
            (Some(_), '\\') => escaped = true,
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'' | '`') => quote = Some(c),
            (None, '/') if line[i + 1..].starts_with('/') => return &line[..i],
            (None, _) => {}
        }
    }
    line
}

/// `schema` without annotations, to [`STRIP_DEPTH`].
fn bare(schema: &Value, depth: usize) -> Value {
    match schema {
        Value::Object(map) if depth < STRIP_DEPTH => Value::Object(
            map.iter()
                .filter(|(k, v)| {
                    let k = k.as_str();
                    !(ANNOTATIONS.contains(&k) || TAGGED_KEYWORDS.contains(&k)) || v.is_object()
                })
                .map(|(k, v)| (k.clone(), bare(v, depth + 1)))
                .collect(),
        ),
        Value::Array(items) if depth < STRIP_DEPTH => {
            Value::Array(items.iter().map(|v| bare(v, depth + 1)).collect())
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::{code_of, short};

    #[test]
    fn comments_never_swallow_the_rest_of_a_signature() {
        let ty = "{\n  a?: string; // @minLength 1 @pattern ^x//y$\n  b: \"http://x\" | 'a//b';\n}";
        assert_eq!(short(ty, 200), "{ a?: string; b: \"http://x\" | 'a//b'; }");
        assert_eq!(code_of(r#"c: "q\"//"; // d"#), r#"c: "q\"//"; "#);
    }
}
