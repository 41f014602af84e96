//! JSON helpers shared by argument materialisation, typed tools and session replay.

use serde_json::{Number, Value};

pub use ptc_schema::value::parse_unbounded;

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
