//! A tool's TypeScript call form, short: `tools.x(args: { a: string; b?: number }) =>
//! Promise<string>`, without comments, cut to a few hundred characters.

use serde_json::Value;

use super::overview::{cut, one_line};
use crate::definition::ToolDefinition;
use ptc_sdk_gen::{is_identifier, schema_to_ts};

/// At most this many characters of the argument type.
const ARGS_CHARS: usize = 240;
/// At most this many characters of the result type.
const OUTPUT_CHARS: usize = 100;
/// Annotations dropped before rendering (they become comments or nothing).
const ANNOTATIONS: &[&str] = &["description", "title", "examples", "default", "$comment"];
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
    let ty = one_line(ty);
    let ty = ty
        .strip_suffix(" & Record<string, JsonValue>")
        .unwrap_or(&ty);
    cut(ty, max)
}

/// `schema` without annotations, to [`STRIP_DEPTH`].
fn bare(schema: &Value, depth: usize) -> Value {
    match schema {
        Value::Object(map) if depth < STRIP_DEPTH => Value::Object(
            map.iter()
                .filter(|(k, v)| !ANNOTATIONS.contains(&k.as_str()) || v.is_object())
                .map(|(k, v)| (k.clone(), bare(v, depth + 1)))
                .collect(),
        ),
        Value::Array(items) if depth < STRIP_DEPTH => {
            Value::Array(items.iter().map(|v| bare(v, depth + 1)).collect())
        }
        other => other.clone(),
    }
}
