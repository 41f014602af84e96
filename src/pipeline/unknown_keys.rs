//! The argument keys a call carries that its tool's parameters do not declare, at every depth.
//!
//! An object node of the parameters that has `properties` is closed unless it says
//! `additionalProperties: true` or gives a schema for the other keys; the walk follows
//! declared properties and array `items` (not `$ref`s or `anyOf`/`oneOf` branches, where
//! which schema applies is not one answer). The top level is closed when the tool is
//! ([`crate::ToolDefinition::closes_arguments`]).

use serde_json::Value;

/// One undeclared key.
pub(crate) struct Unknown<'a> {
    /// JSON pointer of the object holding it (`""` for the arguments).
    pub(crate) parent: String,
    /// The key.
    pub(crate) key: &'a str,
    /// Where it is, for messages: `None` at the top level, else e.g. `todos[]` or `options`.
    pub(crate) label: Option<String>,
    /// The names the object declares.
    pub(crate) declared: Vec<&'a str>,
    /// The keys the object carries.
    pub(crate) given: Vec<&'a str>,
}

/// The undeclared keys of `args` under `schema` (at most `max`), in document order; the top
/// level is checked only when `top_closed`.
pub(crate) fn unknown_keys<'a>(
    schema: &'a Value,
    args: &'a Value,
    top_closed: bool,
    max: usize,
) -> Vec<Unknown<'a>> {
    let mut out = Vec::new();
    walk(
        schema,
        args,
        String::new(),
        None,
        Some(top_closed),
        max,
        &mut out,
    );
    out
}

/// Whether an object node refuses keys it does not declare (`additionalProperties` absent
/// or `false`).
fn closes(schema: &Value) -> bool {
    matches!(
        schema.get("additionalProperties"),
        None | Some(Value::Bool(false))
    )
}

fn walk<'a>(
    schema: &'a Value,
    value: &'a Value,
    pointer: String,
    label: Option<String>,
    closed: Option<bool>,
    max: usize,
    out: &mut Vec<Unknown<'a>>,
) {
    if out.len() >= max {
        return;
    }
    match value {
        Value::Object(map) => {
            // The top level without `properties` declares nothing; deeper, such a node is a
            // free-form object.
            let props = schema.get("properties").and_then(Value::as_object);
            if props.is_none() && closed.is_none() {
                return;
            }
            let declared: Vec<&str> = props
                .map(|p| p.keys().map(String::as_str).collect())
                .unwrap_or_default();
            if closed.unwrap_or_else(|| closes(schema)) {
                for key in map.keys().filter(|k| !declared.contains(&k.as_str())) {
                    out.push(Unknown {
                        parent: pointer.clone(),
                        key,
                        label: label.clone(),
                        declared: declared.clone(),
                        given: map.keys().map(String::as_str).collect(),
                    });
                }
            }
            for (key, child) in map {
                if let Some(child_schema) = props.and_then(|p| p.get(key)) {
                    let at = match &label {
                        Some(l) => format!("{l}.{key}"),
                        None => key.clone(),
                    };
                    let pointer = format!("{pointer}/{}", ptc_schema::escape_token(key));
                    walk(child_schema, child, pointer, Some(at), None, max, out);
                }
            }
        }
        Value::Array(items) => {
            let Some(item_schema) = schema.get("items").filter(|s| s.is_object()) else {
                return;
            };
            let at = format!("{}[]", label.as_deref().unwrap_or(""));
            for (i, item) in items.iter().enumerate() {
                let pointer = format!("{pointer}/{i}");
                walk(item_schema, item, pointer, Some(at.clone()), None, max, out);
            }
        }
        _ => {}
    }
    out.truncate(max);
}
