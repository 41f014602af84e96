//! Shared test fixtures: tool catalogs that own their schemas, and deep
//! schemas that are built and dropped without recursion.
#![allow(dead_code)]

use ptc_sdk_gen::ToolDecl;
use serde_json::{json, Value};

/// A tool that owns its schemas; [`Tool::decl`] borrows them.
pub struct Tool {
    pub name: String,
    pub description: String,
    pub parameters: Value,
    pub output: Value,
    /// Declared as refusing unknown argument keys ([`ToolDecl::closed`]).
    pub closed: bool,
}

impl Tool {
    pub fn new(name: &str, description: &str, parameters: Value, output: Value) -> Self {
        Tool {
            name: name.to_owned(),
            description: description.to_owned(),
            parameters,
            output,
            closed: false,
        }
    }

    /// The same tool, refusing unknown argument keys.
    pub fn closed(mut self) -> Self {
        self.closed = true;
        self
    }

    pub fn decl(&self) -> ToolDecl<'_> {
        ToolDecl {
            name: &self.name,
            description: &self.description,
            parameters: &self.parameters,
            output: &self.output,
            closed: self.closed,
        }
    }
}

impl Drop for Tool {
    fn drop(&mut self) {
        drop_deep(std::mem::take(&mut self.parameters));
        drop_deep(std::mem::take(&mut self.output));
    }
}

pub fn decls(tools: &[Tool]) -> Vec<ToolDecl<'_>> {
    tools.iter().map(Tool::decl).collect()
}

/// `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`-style
/// parameters: every listed property is required.
pub fn params(props: Value, closed: bool) -> Value {
    let required: Vec<Value> = props
        .as_object()
        .map(|m| m.keys().map(|k| Value::String(k.clone())).collect())
        .unwrap_or_default();
    let mut schema = json!({"type": "object", "properties": props, "required": required});
    if closed {
        schema["additionalProperties"] = json!(false);
    }
    schema
}

/// An open object schema where no property is required.
pub fn optional(props: Value) -> Value {
    json!({"type": "object", "properties": props})
}

/// The realistic catalog from the brief.
pub fn realistic_catalog() -> Vec<Tool> {
    vec![
        Tool::new(
            "echo",
            "Return the given text unchanged.",
            params(
                json!({"text": {"type": "string", "description": "Text to return."}}),
                false,
            ),
            json!({"type": "string"}),
        ),
        Tool::new(
            "add",
            "Add two numbers.",
            params(
                json!({"a": {"type": "number"}, "b": {"type": "number"}}),
                true,
            ),
            json!({"type": "number"}),
        ),
        Tool::new(
            "sleep",
            "Wait for the given number of milliseconds.",
            params(json!({"ms": {"type": "integer"}}), true),
            json!({"type": "object", "properties": {"slept": {"type": "integer"}}, "required": ["slept"], "additionalProperties": false}),
        ),
        Tool::new(
            "fail",
            "Always fails with the given message.",
            params(json!({"message": {"type": "string"}}), true),
            json!({"type": "null"}),
        ),
        Tool::new(
            "counter",
            "Increment a counter and return its new value.",
            json!({"type": "object", "properties": {}}),
            json!({"type": "integer"}),
        ),
    ]
}

// Note: `json!` serialises interpolated values recursively, so deep values
// are spliced in by assignment instead.

/// `levels` nested objects (`{"type":"object","properties":{"x": ...}}`)
/// around a string leaf, built without recursion.
pub fn deep_object(levels: usize) -> Value {
    let mut v = json!({"type": "string"});
    for _ in 0..levels {
        let mut node = json!({"type": "object", "properties": {}, "required": ["x"], "additionalProperties": false});
        node["properties"]["x"] = v;
        v = node;
    }
    v
}

/// `levels` nested arrays around a number leaf.
pub fn deep_array(levels: usize) -> Value {
    let mut v = json!({"type": "number"});
    for _ in 0..levels {
        let mut node = json!({"type": "array"});
        node["items"] = v;
        v = node;
    }
    v
}

/// `levels` nested `oneOf`s around a boolean leaf.
pub fn deep_one_of(levels: usize) -> Value {
    let mut v = json!({"type": "boolean"});
    for _ in 0..levels {
        v = Value::Array(vec![v, json!({"type": "null"})]);
        let mut node = json!({});
        node["oneOf"] = v;
        v = node;
    }
    v
}

/// A value nested `levels` deep in a non-schema position (a `default`).
pub fn deep_default(levels: usize) -> Value {
    let mut v = json!(1);
    for _ in 0..levels {
        v = Value::Array(vec![v]);
    }
    let mut node = json!({"type": "array"});
    node["default"] = v;
    node
}

/// The hostile catalog: awkward names, descriptions that try to break out of
/// comments, deep and unsupported schemas.
pub fn stress_catalog() -> Vec<Tool> {
    let open = |props: Value| params(props, false);
    let empty = || json!({"type": "object", "properties": {}});
    let desc_break =
        "Closes early */ then /* opens\nsecond line\r\n\tthird\u{2028}fourth\u{0}\u{1b}[31m end */";
    let mut tools = vec![
        Tool::new(
            "my-tool",
            "A dashed name.",
            open(json!({"x": {"type": "number"}})),
            json!({"type": "string"}),
        ),
        Tool::new(
            "__proto__",
            "Prototype-looking name.",
            open(json!({"a": {"type": "string"}})),
            json!({"type": "number"}),
        ),
        Tool::new(
            "constructor",
            "Constructor-looking name.",
            empty(),
            json!({"type": "string"}),
        ),
        Tool::new(
            "then",
            "Thenable-looking name.",
            json!({"type": "object", "properties": {}, "additionalProperties": false}),
            json!({"type": "null"}),
        ),
        Tool::new("a.b", "Dotted name.", empty(), json!({"type": "boolean"})),
        Tool::new(
            "default",
            "Reserved word.",
            empty(),
            json!({"enum": ["a", "b\"c", "*/", "x\ny", "\u{2028}"]}),
        ),
        Tool::new("new", "Reserved word.", empty(), json!({"const": -0.0})),
        Tool::new(
            "delete",
            "Reserved word.",
            empty(),
            json!({"enum": [1e300, -1.5e-7, 18446744073709551615u64, -9007199254740993i64, true, null]}),
        ),
        Tool::new(
            "caf\u{e9}",
            "Non-ASCII name.",
            empty(),
            json!({"type": "string"}),
        ),
        Tool::new(
            "\u{65e5}\u{672c}\u{1f600}",
            "CJK and emoji name.",
            empty(),
            json!({"type": "string"}),
        ),
        Tool::new("", "Empty name.", empty(), json!({"type": "string"})),
        Tool::new("1st", "Leading digit.", empty(), json!({"type": "string"})),
        Tool::new(
            "with space",
            "Space in name.",
            empty(),
            json!({"type": "string"}),
        ),
        Tool::new(
            "quote\"back\\slash\nnewline",
            "Escapes in name.",
            empty(),
            json!({"type": "string"}),
        ),
        Tool::new("*/ evil /*", desc_break, empty(), json!({"type": "string"})),
        Tool::new(
            "weird_props",
            desc_break,
            json!({
                "type": "object",
                "properties": {
                    "my-key": {"type": "string", "description": "has */ inside\nand a newline"},
                    "__proto__": {"type": "number"},
                    "constructor": {"type": "string"},
                    "*/": {"type": "string", "description": "/* */ /**/"},
                    "": {"type": "null"},
                    "a b": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"oneOf": [{"type": "number"}, {"type": "null"}]}}]}
                },
                "required": ["my-key", "*/"]
            }),
            json!({"type": "array", "items": {"type": "object", "properties": {"k": {"enum": ["x", 2]}}}}),
        ),
        Tool::new(
            "deep_object",
            "5,000-deep object schema.",
            deep_object(5000),
            deep_object(5000),
        ),
        Tool::new(
            "deep_array",
            "5,000-deep array schema.",
            with_property("list", deep_array(5000)),
            deep_array(5000),
        ),
        Tool::new(
            "deep_one_of",
            "5,000-deep oneOf schema.",
            with_property("v", deep_one_of(5000)),
            deep_one_of(5000),
        ),
        Tool::new(
            "deep_default",
            "5,000-deep default value.",
            deep_default(5000),
            json!({"type": "string"}),
        ),
        Tool::new(
            "unsupported",
            "Unsupported keywords everywhere.",
            optional(json!({
                "ref": {"$ref": "#/definitions/x"},
                "pattern": {"type": "string", "pattern": "^a"},
                "min": {"type": "number", "minimum": 0},
                "multi": {"type": ["string", "null"]},
                "bool_true": true,
                "bool_false": false,
                "number": 5,
                "any_of": {"anyOf": [{"type": "string"}, {"type": "number"}]},
                "tuple": {"type": "array", "items": [{"type": "string"}]},
                "add_schema": {"type": "object", "additionalProperties": {"type": "string"}}
            })),
            json!({"$ref": "#/x"}),
        ),
        Tool::new(
            "bool_schemas",
            "Boolean schemas.",
            json!(true),
            json!(false),
        ),
        Tool::new("null_schemas", "Null schemas.", json!(null), json!([1, 2])),
        Tool::new(
            "variants",
            "oneOf of object variants.",
            json!({"oneOf": [
                {"type": "object", "properties": {"kind": {"const": "a"}}, "required": ["kind"]},
                {"type": "object", "properties": {"kind": {"const": "b"}, "n": {"type": "integer"}}, "required": ["kind", "n"], "additionalProperties": false}
            ]}),
            json!({"type": "array", "items": {"oneOf": [
                {"type": "object", "properties": {"a": {"type": "string"}}},
                {"type": "string"}
            ]}}),
        ),
    ];
    tools.push(Tool::new(
        "big_enum",
        "A large enum.",
        open(json!({"pick": {"enum": (0..2000).map(|i| json!(format!("v{i}"))).collect::<Vec<_>>()}})),
        json!({"type": "string"}),
    ));
    tools
}

/// An open object schema with one required property `name` (no recursion).
pub fn with_property(name: &str, schema: Value) -> Value {
    let mut node = params(json!({}), false);
    node["properties"][name] = schema;
    node["required"] = json!([name]);
    node
}

/// Owns a value of any depth and drops it without recursing, also while
/// unwinding from a failed assertion.
pub struct Deep(pub Value);

impl Drop for Deep {
    fn drop(&mut self) {
        drop_deep(std::mem::take(&mut self.0));
    }
}

/// Drops a value of any depth without recursing.
pub fn drop_deep(value: Value) {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}
