//! JSON helpers shared by argument materialisation, typed tools and session replay.

use serde::Deserialize;
use serde_json::{Number, Value};

/// Parse exactly one JSON value with no nesting limit (deep input grows the stack on
/// the heap instead of overflowing it). Trailing non-whitespace is an error.
pub fn parse_unbounded(text: &str) -> Result<Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let value = Value::deserialize(serde_stacker::Deserializer::new(&mut de))?;
    de.end()?;
    Ok(value)
}

/// Rewrite integral floats (`42.0`) as integers (`42`), as JavaScript would print them.
/// Iterative, so deep values are fine.
pub fn normalize_numbers(value: &mut Value) {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Number(n) => {
                if let Some(f) = n.as_f64().filter(|_| n.is_f64()) {
                    if f.fract() == 0.0 && f.abs() < 9.007_199_254_740_992e15 {
                        *n = Number::from(f as i64);
                    }
                }
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::Object(map) => stack.extend(map.values_mut()),
            _ => {}
        }
    }
}
