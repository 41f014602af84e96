//! JSON values of any depth: parse, print and drop them without recursion limits or stack
//! overflows, and measure how deep they nest.
//!
//! `serde_json` parses, prints and drops values recursively; a value nested a few tens of
//! thousands of levels deep (easy to send as text) overflows a thread's stack and aborts the
//! process. Everything here is iterative or grows its stack on the heap (`serde_stacker`), and
//! [`MAX_DEPTH`] is the depth ptc accepts for tool arguments, results and returned values: far above
//! real use, and low enough that the recursive code in other crates (printing, comparing,
//! dropping) stays well inside a small stack.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The deepest a tool argument, tool result or returned value may nest (containers inside
/// containers); deeper values are refused with an error naming the limit.
pub const MAX_DEPTH: usize = 1_000;

/// Parse exactly one JSON value from `text`, of any nesting depth (deep input grows the stack on
/// the heap). Trailing non-whitespace is an error.
pub fn parse_unbounded(text: &str) -> Result<Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let value = Value::deserialize(serde_stacker::Deserializer::new(&mut de))?;
    de.end()?;
    Ok(value)
}

/// Compact JSON text of a value of any nesting depth.
pub fn to_string_unbounded(value: &Value) -> String {
    let mut out = Vec::with_capacity(128);
    let mut ser = serde_json::Serializer::new(&mut out);
    value
        .serialize(serde_stacker::Serializer::new(&mut ser))
        .expect("serializing a serde_json::Value cannot fail");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// Drop a value of any nesting depth without overflowing the stack.
pub fn drop_deep(value: Value) {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

/// How many containers deep `value` nests (a scalar is 0, `[]` is 1, `[[1]]` is 2), counting no
/// further than `limit + 1`: enough to tell whether it exceeds `limit`, at a cost bounded by the
/// value's size.
pub fn depth_up_to(value: &Value, limit: usize) -> usize {
    let mut deepest = 0;
    let mut stack: Vec<(&Value, usize)> = vec![(value, 0)];
    while let Some((value, depth)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match value {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(map) => Box::new(map.values()),
            _ => continue,
        };
        let depth = depth + 1;
        deepest = deepest.max(depth);
        if deepest > limit {
            return deepest;
        }
        stack.extend(children.map(|child| (child, depth)));
    }
    deepest
}

/// `Err` with a message naming [`MAX_DEPTH`] when `value` nests deeper than it.
pub fn check_depth(value: &Value) -> Result<(), String> {
    if depth_up_to(value, MAX_DEPTH) > MAX_DEPTH {
        return Err(format!("nests deeper than {MAX_DEPTH} levels"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn deep_text_parses_prints_measures_and_drops() {
        let n = 50_000;
        let text = format!("{}1{}", "[".repeat(n), "]".repeat(n));
        let value = parse_unbounded(&text).unwrap();
        assert_eq!(depth_up_to(&value, usize::MAX), n);
        assert_eq!(depth_up_to(&value, 10), 11);
        assert!(check_depth(&value).unwrap_err().contains("1000"));
        assert_eq!(to_string_unbounded(&value), text);
        drop_deep(value);
    }

    #[test]
    fn depth_counts_containers() {
        assert_eq!(depth_up_to(&json!(1), 5), 0);
        assert_eq!(depth_up_to(&json!([]), 5), 1);
        assert_eq!(depth_up_to(&json!({"a": [1, {"b": []}]}), 5), 4);
        assert!(parse_unbounded("[1] x").is_err());
    }
}
