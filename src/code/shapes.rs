//! Result shapes: what of a tool's output type the engine needs to note a read of a field the
//! type does not declare (`m.file` on a grep match). Built from the tool's output schema as a
//! compact JSON value `runtime-js/typed.js` reads:
//!
//! * `0`: open, never noted (no schema, `additionalProperties`, records, `unknown`, scalars);
//! * `{ "n": name, "f": { field: shape } }`: a closed object (`"p": 1` when named in the plural);
//! * `{ "i": shape }`: an array of `shape`.
//!
//! A union notes only a field no branch declares (its object branches' fields merged; any open
//! branch makes it open). Names follow the tool: its result is `grep result`, the items of its
//! `matches` array `grep matches`, an object in field `stats` `grep stats`.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, Weak};

use serde_json::{json, Map, Value};

use crate::definition::ToolDefinition;

/// How deep a schema is followed (deeper reads are open).
const MAX_DEPTH: usize = 16;

/// The shapes of the tool set a run last had: built again only when the set changes.
type Built = (Vec<Weak<ToolDefinition>>, Arc<BTreeMap<String, String>>);
static LAST: Mutex<Option<Built>> = Mutex::new(None);

/// The result shapes of `tools` that have one worth checking (a closed object or an array of
/// them somewhere), as [`ptc_engine::Program::result_shapes`] takes them; the same tool set
/// as the last run's (the same definitions) reuses what was built then.
pub(crate) fn result_shapes(tools: &[Arc<ToolDefinition>]) -> Arc<BTreeMap<String, String>> {
    let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((set, shapes)) = last.as_ref() {
        let same = set.len() == tools.len()
            && set
                .iter()
                .zip(tools)
                .all(|(kept, tool)| Weak::ptr_eq(kept, &Arc::downgrade(tool)));
        if same {
            return shapes.clone();
        }
    }
    let shapes = Arc::new(build(tools));
    *last = Some((tools.iter().map(Arc::downgrade).collect(), shapes.clone()));
    shapes
}

/// [`result_shapes`], built.
fn build(tools: &[Arc<ToolDefinition>]) -> BTreeMap<String, String> {
    tools
        .iter()
        .filter_map(|tool| {
            let schema = tool.output().schema();
            let shape = shape(schema, schema, &format!("{} result", tool.name()), false, 0);
            (shape != json!(0)).then(|| (tool.name().to_string(), shape.to_string()))
        })
        .collect()
}

/// The shape of `node` (in `root`, for `$ref`s), named `name` (`plural` for array items).
fn shape(node: &Value, root: &Value, name: &str, plural: bool, depth: usize) -> Value {
    let open = json!(0);
    let Some(obj) = node.as_object() else {
        return open;
    };
    if depth > MAX_DEPTH {
        return open;
    }
    if let Some(target) = obj
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| resolve(root, r))
    {
        return shape(target, root, name, plural, depth + 1);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = obj.get(key) {
            let shapes: Vec<Value> = branches
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) != Some("null"))
                .map(|b| shape(b, root, name, plural, depth + 1))
                .collect();
            return union(shapes, name, plural);
        }
    }
    let types: Vec<&str> = match obj.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .filter(|t| *t != "null")
            .collect(),
        _ if obj.contains_key("properties") => vec!["object"],
        _ => Vec::new(),
    };
    match types.as_slice() {
        ["object"] => object(obj, root, name, plural, depth),
        ["array"] => match obj.get("items") {
            Some(items) => {
                let field = name.strip_suffix(" result").unwrap_or(name);
                let items = shape(items, root, field, true, depth + 1);
                if items == open {
                    open
                } else {
                    json!({ "i": items })
                }
            }
            None => open,
        },
        _ => open,
    }
}

/// A closed object's shape, or open.
fn object(obj: &Map<String, Value>, root: &Value, name: &str, plural: bool, depth: usize) -> Value {
    let closed = !matches!(
        obj.get("additionalProperties"),
        Some(Value::Bool(true) | Value::Object(_))
    ) && obj.get("patternProperties").is_none();
    let Some(Value::Object(properties)) = obj.get("properties") else {
        return json!(0);
    };
    if !closed || properties.is_empty() {
        return json!(0);
    }
    let tool = name.split(' ').next().unwrap_or(name);
    let fields: Map<String, Value> = properties
        .iter()
        .map(|(field, schema)| {
            let inner = format!("{tool} {field}");
            (field.clone(), shape(schema, root, &inner, false, depth + 1))
        })
        .collect();
    let mut shape = json!({ "n": name, "f": fields });
    if plural {
        shape["p"] = json!(1);
    }
    shape
}

/// A union's shape: closed only when every branch is a closed object (fields merged; a field
/// in several branches with different shapes is open), or every branch an array.
fn union(shapes: Vec<Value>, name: &str, plural: bool) -> Value {
    let open = json!(0);
    if shapes.is_empty() || shapes.iter().any(|s| s == &open) {
        return open;
    }
    if shapes.iter().all(|s| s.get("i").is_some()) {
        let items: Vec<Value> = shapes.iter().map(|s| s["i"].clone()).collect();
        let items = union(items, name, true);
        return if items == open {
            open
        } else {
            json!({ "i": items })
        };
    }
    let mut fields = Map::new();
    for s in &shapes {
        let Some(Value::Object(f)) = s.get("f") else {
            return open;
        };
        for (field, shape) in f {
            match fields.get(field) {
                Some(seen) if seen != shape => {
                    fields.insert(field.clone(), json!(0));
                }
                _ => {
                    fields.insert(field.clone(), shape.clone());
                }
            }
        }
    }
    let mut shape = json!({ "n": name, "f": fields });
    if plural {
        shape["p"] = json!(1);
    }
    shape
}

/// The schema a local `$ref` (`#/…`) points at.
fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    root.pointer(reference.strip_prefix('#')?)
}

#[cfg(test)]
mod tests {
    use super::{result_shapes, shape};
    use crate::definition::ToolDefinition;
    use ptc_schema::ValueSpec;
    use serde_json::json;
    use std::sync::Arc;

    #[test]
    fn a_tool_set_gets_the_shapes_of_its_typed_results_only() {
        let tool = |name: &str, output: ValueSpec| {
            let def = ToolDefinition::builder(name)
                .output(output)
                .execute_raw(|_, _| async { Ok(json!(null)) })
                .build()
                .unwrap();
            Arc::new(def)
        };
        let typed = ValueSpec::object(false).required_property("slept", ValueSpec::integer());
        let tools = [tool("sleep", typed), tool("add", ValueSpec::number())];
        let shapes = result_shapes(&tools);
        assert_eq!(
            shapes.iter().collect::<Vec<_>>(),
            [(
                &"sleep".to_string(),
                &r#"{"n":"sleep result","f":{"slept":0}}"#.to_string()
            )]
        );
        // The same definitions again: the same shapes.
        assert_eq!(result_shapes(&tools), shapes);
    }

    #[test]
    fn a_grep_like_schema_gives_named_closed_objects_and_open_records() {
        let schema = json!({
            "type": "object",
            "properties": {
                "matches": { "type": "array", "items": { "type": "object",
                    "properties": { "path": { "type": "string" }, "line": { "type": "integer" } },
                    "required": ["path"] } },
                "meta": { "type": "object", "additionalProperties": true },
                "tags": { "type": "object", "additionalProperties": { "type": "string" } },
            },
        });
        assert_eq!(
            shape(&schema, &schema, "grep result", false, 0),
            json!({ "n": "grep result", "f": {
                "matches": { "i": { "n": "grep matches", "p": 1, "f": { "path": 0, "line": 0 } } },
                "meta": 0,
                "tags": 0,
            } })
        );
    }

    #[test]
    fn unions_merge_their_branches_and_an_open_branch_opens_them() {
        let a = json!({ "type": "object", "properties": { "ok": { "type": "boolean" } } });
        let b = json!({ "type": "object", "properties": { "error": { "type": "string" } } });
        let union = json!({ "anyOf": [a, b, { "type": "null" }] });
        let got = shape(&union, &union, "t result", false, 0);
        assert_eq!(
            got,
            json!({ "n": "t result", "f": { "ok": 0, "error": 0 } })
        );
        let open = json!({ "anyOf": [a, { "type": "object", "additionalProperties": true }] });
        assert_eq!(shape(&open, &open, "t result", false, 0), json!(0));
        assert_eq!(
            shape(&json!({}), &json!({}), "t result", false, 0),
            json!(0)
        );
        assert_eq!(
            shape(&json!(true), &json!(true), "t result", false, 0),
            json!(0)
        );
    }

    #[test]
    fn refs_are_followed_and_recursion_stops() {
        let schema = json!({
            "$defs": { "node": { "type": "object", "properties": {
                "next": { "$ref": "#/$defs/node" } } } },
            "$ref": "#/$defs/node",
        });
        let got = shape(&schema, &schema, "t result", false, 0);
        assert_eq!(got["f"]["next"]["f"]["next"]["n"], json!("t next"));
    }
}
