//! JSON text ⇄ `serde_json::Value` without recursion limits or stack overflows, for deeply nested
//! tool arguments and results.

use serde::{Deserialize, Serialize};

/// Parse JSON text of any nesting depth (`serde_stacker` grows the stack on the heap as needed).
pub(crate) fn parse(text: &str) -> Result<serde_json::Value, String> {
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let value = serde_json::Value::deserialize(serde_stacker::Deserializer::new(&mut de))
        .map_err(|e| e.to_string())?;
    de.end().map_err(|e| e.to_string())?;
    Ok(value)
}

/// Serialize a value of any nesting depth to compact JSON text.
pub(crate) fn to_string(value: &serde_json::Value) -> String {
    let mut out = Vec::with_capacity(128);
    let mut ser = serde_json::Serializer::new(&mut out);
    value
        .serialize(serde_stacker::Serializer::new(&mut ser))
        .expect("serializing a serde_json::Value cannot fail");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// Drop a value of any nesting depth without overflowing the stack.
pub(crate) fn drop_deep(value: serde_json::Value) {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            serde_json::Value::Array(items) => stack.extend(items),
            serde_json::Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}
