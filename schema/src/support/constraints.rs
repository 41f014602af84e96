//! The value constraints: bounds on numbers, strings and arrays, `pattern` and `format`.
//!
//! Each applies to values of its kind only (as JSON Schema says: `minLength` ignores a
//! number), so it needs no `type`; a `type` that rules its kind out is a contradiction and
//! is reported. `format` stands beside any type (`"integer"` with `"int32"` is common): it is
//! checked on strings only.

use serde_json::Value;

use super::kind;
use super::types::TypeState;
use crate::pattern;

/// The kind of value a constraint keyword applies to, or `None` for other keywords.
pub(crate) fn applies_to(keyword: &str) -> Option<&'static str> {
    Some(match keyword {
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => "number",
        "minLength" | "maxLength" | "pattern" => "string",
        "minItems" | "maxItems" | "uniqueItems" => "array",
        _ => return None,
    })
}

/// Checks one constraint keyword's value, and that the node's `type` allows its kind.
pub(crate) fn check(
    key: &str,
    want: &str,
    val: &Value,
    ty: &TypeState<'_>,
    issues: &mut Vec<(String, String)>,
) {
    let path = format!("/{key}");
    if !ty.allows(want) {
        let kinds = if want == "number" {
            "number or integer"
        } else {
            want
        };
        issues.push((
            path.clone(),
            format!("`{key}` applies to {kinds} values, which the node's `type` rules out"),
        ));
    }
    let problem = match key {
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => {
            (!val.is_number()).then(|| format!("`{key}` must be a number, got {}", kind(val)))
        }
        "minLength" | "maxLength" | "minItems" | "maxItems" => val
            .as_u64()
            .is_none()
            .then(|| format!("`{key}` must be a non-negative integer, got {}", kind(val))),
        "uniqueItems" => {
            (!val.is_boolean()).then(|| format!("`{key}` must be a boolean, got {}", kind(val)))
        }
        "format" => {
            (!val.is_string()).then(|| format!("`format` must be a string, got {}", kind(val)))
        }
        "pattern" => match val {
            Value::String(p) => pattern::compile(p).err(),
            other => Some(format!("`pattern` must be a string, got {}", kind(other))),
        },
        _ => None,
    };
    if let Some(message) = problem {
        issues.push((path, message));
    }
}
