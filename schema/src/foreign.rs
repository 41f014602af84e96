//! Schemas written elsewhere (an MCP server's `inputSchema`), as ptc takes them.

use serde_json::{Map, Value};

/// An upstream input schema as ptc registers and re-serves it: the root `$schema` (a dialect
/// declaration most generators add, not a constraint) is dropped, and a root without `type`
/// becomes an object schema (`"type": "object"` first), since tool arguments are always an
/// object and MCP clients refuse an input schema that does not say so.
///
/// ```
/// use ptc_schema::foreign_input_schema;
/// use serde_json::json;
/// let upstream = json!({"$schema": "http://json-schema.org/draft-07/schema#"});
/// let schema = foreign_input_schema(upstream.as_object().unwrap());
/// assert_eq!(schema, json!({"type": "object"}));
/// ```
pub fn foreign_input_schema(schema: &Map<String, Value>) -> Value {
    let mut out = Map::with_capacity(schema.len() + 1);
    if !schema.contains_key("type") {
        out.insert("type".into(), Value::String("object".into()));
    }
    for (key, value) in schema {
        if key != "$schema" {
            out.insert(key.clone(), value.clone());
        }
    }
    Value::Object(out)
}

/// An upstream output schema as ptc takes it: the root `$schema` dropped, and `format` kept
/// nowhere. JSON Schema makes `format` an annotation unless a validator opts in; ptc checks it
/// on the arguments a model writes, but a server that declares `"format": "uri"` and returns
/// `""` would otherwise fail every call with `INVALID_TOOL_OUTPUT` over a detail its clients
/// never enforced. Every other constraint of the schema stays enforced.
///
/// ```
/// use ptc_schema::foreign_output_schema;
/// use serde_json::json;
/// let upstream = json!({"type": "object", "properties": {
///     "format": {"type": "string", "format": "uri"}}});
/// let schema = foreign_output_schema(upstream.as_object().unwrap());
/// assert_eq!(schema, json!({"type": "object", "properties": {"format": {"type": "string"}}}));
/// ```
pub fn foreign_output_schema(schema: &Map<String, Value>) -> Value {
    let mut out = Value::Object(schema.clone());
    if let Value::Object(root) = &mut out {
        root.remove("$schema");
    }
    let mut stack = vec![&mut out];
    while let Some(node) = stack.pop() {
        let Value::Object(map) = node else { continue };
        map.remove("format");
        for (key, child) in map {
            match key.as_str() {
                "items" | "additionalProperties" | "propertyNames" => stack.push(child),
                "properties" | "$defs" | "definitions" => {
                    if let Value::Object(children) = child {
                        stack.extend(children.values_mut());
                    }
                }
                "anyOf" | "oneOf" => {
                    if let Value::Array(branches) = child {
                        stack.extend(branches.iter_mut());
                    }
                }
                _ => {}
            }
        }
    }
    out
}
