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
///
/// A failure never drops a deep value recursively: what was built before the error (a complete
/// deep member, then a bad token) is dropped with [`drop_deep`].
pub fn parse_unbounded(text: &str) -> Result<Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let Deep(value) = Deep::deserialize(serde_stacker::Deserializer::new(&mut de))?;
    if let Err(e) = de.end() {
        drop_deep(value);
        return Err(e);
    }
    Ok(value)
}

/// A [`Value`] whose partial containers are dropped with [`drop_deep`] when parsing fails
/// inside them (serde_json's own visitor would drop them recursively).
struct Deep(Value);

impl<'de> Deserialize<'de> for Deep {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(DeepVisitor).map(Deep)
    }
}

struct DeepVisitor;

impl<'de> serde::de::Visitor<'de> for DeepVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        loop {
            match seq.next_element::<Deep>() {
                Ok(Some(Deep(item))) => items.push(item),
                Ok(None) => return Ok(Value::Array(items)),
                Err(e) => {
                    drop_deep(Value::Array(items));
                    return Err(e);
                }
            }
        }
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut members = serde_json::Map::new();
        loop {
            let entry = match map.next_key::<String>() {
                Ok(Some(key)) => map.next_value::<Deep>().map(|Deep(v)| Some((key, v))),
                Ok(None) => Ok(None),
                Err(e) => Err(e),
            };
            match entry {
                Ok(Some((key, value))) => {
                    if let Some(replaced) = members.insert(key, value) {
                        drop_deep(replaced);
                    }
                }
                Ok(None) => return Ok(Value::Object(members)),
                Err(e) => {
                    drop_deep(Value::Object(members));
                    return Err(e);
                }
            }
        }
    }
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
    // Only containers are stacked (a scalar adds no level), so a flat value allocates nothing.
    fn stack_containers<'a>(
        stack: &mut Vec<(&'a Value, usize)>,
        children: impl Iterator<Item = &'a Value>,
        depth: usize,
    ) {
        let containers = children.filter(|c| matches!(c, Value::Array(_) | Value::Object(_)));
        stack.extend(containers.map(|child| (child, depth)));
    }
    let mut deepest = 0;
    let mut stack: Vec<(&Value, usize)> = Vec::new();
    let mut next = Some((value, 0));
    while let Some((value, depth)) = next.take().or_else(|| stack.pop()) {
        if !matches!(value, Value::Array(_) | Value::Object(_)) {
            continue;
        }
        let depth = depth + 1;
        deepest = deepest.max(depth);
        if deepest > limit {
            return deepest;
        }
        match value {
            Value::Array(items) => stack_containers(&mut stack, items.iter(), depth),
            Value::Object(map) => stack_containers(&mut stack, map.values(), depth),
            _ => {}
        }
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
    fn a_failure_after_a_deep_member_drops_it_without_recursion() {
        // Run on a small stack: a recursive drop of 50,000 levels would overflow it.
        let n = 50_000;
        let cases = [
            format!("{{\"a\":{}1{}, x}}", "[".repeat(n), "]".repeat(n)),
            format!("[{}1{}, ]", "[".repeat(n), "]".repeat(n)),
            format!("{}1{} trailing", "[".repeat(n), "]".repeat(n)),
            format!("{{\"a\":{}1{},\"a\":1}}", "[".repeat(n), "]".repeat(n)),
        ];
        std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || {
                for (i, text) in cases.iter().enumerate() {
                    match parse_unbounded(text) {
                        Ok(value) if i == 3 => assert_eq!(value, json!({"a": 1})),
                        Ok(_) => panic!("case {i} parsed"),
                        Err(_) => assert!(i < 3, "case {i}"),
                    }
                }
            })
            .unwrap()
            .join()
            .unwrap();
    }

    #[test]
    fn values_parse_as_serde_json_parses_them() {
        let text = r#"{"a":[1,-2,3.5,1e300,"s",true,false,null,{}],"b":{"c":[]},"d":18446744073709551615}"#;
        let ours = parse_unbounded(text).unwrap();
        let theirs: Value = serde_json::from_str(text).unwrap();
        assert_eq!(ours, theirs);
        assert_eq!(
            to_string_unbounded(&ours),
            serde_json::to_string(&theirs).unwrap()
        );
    }

    #[test]
    fn depth_counts_containers() {
        assert_eq!(depth_up_to(&json!(1), 5), 0);
        assert_eq!(depth_up_to(&json!([]), 5), 1);
        assert_eq!(depth_up_to(&json!({"a": [1, {"b": []}]}), 5), 4);
        assert!(parse_unbounded("[1] x").is_err());
    }
}
