//! Helpers shared by the integration tests.
#![allow(dead_code)]

use serde_json::{json, Value};

/// Drops a JSON value without recursion (serde_json's own drop recurses, so a
/// very deep value could overflow the test thread while being dropped).
pub fn dismantle(value: Value) {
    let mut stack = vec![value];
    while let Some(mut v) = stack.pop() {
        match &mut v {
            Value::Array(a) => stack.append(a),
            Value::Object(o) => {
                let map = std::mem::take(o);
                stack.extend(map.into_iter().map(|(_, v)| v));
            }
            _ => {}
        }
    }
}

/// `depth` levels of `wrap` around `inner`, built bottom-up without recursion.
pub fn nest(depth: usize, inner: Value, wrap: impl Fn(Value) -> Value) -> Value {
    let mut v = inner;
    for _ in 0..depth {
        v = wrap(v);
    }
    v
}

/// `[[[ ... inner ... ]]]`, `depth` arrays deep.
pub fn deep_array_value(depth: usize, inner: Value) -> Value {
    nest(depth, inner, |v| Value::Array(vec![v]))
}

/// Builds an object from `(key, value)` pairs, moving the values.
///
/// (`json!` interpolation serializes its arguments recursively, so it must not
/// be used to wrap deep values.)
pub fn obj<const N: usize>(pairs: [(&str, Value); N]) -> Value {
    Value::Object(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

/// `{"type":"array","items":{...}}`, `depth` levels around `leaf`.
pub fn deep_array_schema(depth: usize, leaf: Value) -> Value {
    nest(depth, leaf, |v| {
        obj([("type", json!("array")), ("items", v)])
    })
}

/// Asserts `issues` mention exactly these paths (order-insensitive).
pub fn paths(err: &ptc_schema::JsonSchemaError) -> Vec<&str> {
    let mut p: Vec<&str> = err.issues.iter().map(|i| i.path.as_str()).collect();
    p.sort_unstable();
    p
}
