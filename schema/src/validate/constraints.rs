//! The value constraints of one node, checked the same way by the engine and by the quick
//! check: each broken one is described by a [`Broken`], which only the engine turns into a
//! message.

use std::cmp::Ordering;
use std::collections::HashMap;

use serde_json::{Number, Value};

use super::step::Keywords;
use crate::support::preview;
use crate::value::to_string_unbounded;
use crate::{format, pattern};

/// One broken constraint.
pub(super) enum Broken<'a> {
    /// A number bound: keyword, bound, value.
    Bound(&'static str, &'a Number, &'a Number),
    /// A length or count bound: keyword, bound, actual.
    Count(&'static str, u64, usize),
    /// Items `i` and `j` are equal.
    Duplicate(usize, usize),
    /// The string does not match the pattern.
    Pattern(&'a str, &'a str),
    /// The string is not of the format.
    Format(&'a str, &'a str),
}

impl Broken<'_> {
    /// What is wrong, in the validator's words.
    pub(super) fn message(&self) -> String {
        match self {
            Broken::Bound(key, bound, value) => {
                let op = match *key {
                    "minimum" => ">=",
                    "maximum" => "<=",
                    "exclusiveMinimum" => ">",
                    _ => "<",
                };
                format!("expected a number {op} {bound} ({key}), got {value}")
            }
            Broken::Count(key, bound, actual) => {
                let (least, what) = match *key {
                    "minLength" => (true, "characters"),
                    "maxLength" => (false, "characters"),
                    "minItems" => (true, "items"),
                    _ => (false, "items"),
                };
                let side = if least { "at least" } else { "at most" };
                format!("expected {side} {bound} {what} ({key}), got {actual}")
            }
            Broken::Duplicate(i, j) => {
                format!("expected unique items (uniqueItems), items {i} and {j} are equal")
            }
            Broken::Pattern(p, s) => format!(
                "expected a string matching {} (pattern), got {}",
                preview(&Value::String((*p).to_owned())),
                preview(&Value::String((*s).to_owned()))
            ),
            Broken::Format(f, s) => format!(
                "expected a string of format \"{f}\", got {}",
                preview(&Value::String((*s).to_owned()))
            ),
        }
    }
}

/// Reports each constraint of `k` that `value` breaks to `report`, until it returns false.
pub(super) fn check<'a>(
    k: &Keywords<'a>,
    value: &'a Value,
    mut report: impl FnMut(Broken<'a>) -> bool,
) {
    match value {
        Value::Number(n) => {
            for (key, bound, ok) in [
                (
                    "minimum",
                    k.minimum,
                    Ordering::is_ge as fn(Ordering) -> bool,
                ),
                ("maximum", k.maximum, Ordering::is_le),
                ("exclusiveMinimum", k.exclusive_minimum, Ordering::is_gt),
                ("exclusiveMaximum", k.exclusive_maximum, Ordering::is_lt),
            ] {
                if let Some(Value::Number(bound)) = bound {
                    if !compare(n, bound).is_some_and(ok) && !report(Broken::Bound(key, bound, n)) {
                        return;
                    }
                }
            }
        }
        Value::String(s) => {
            let counted = [("minLength", k.min_length), ("maxLength", k.max_length)];
            if counted.iter().any(|(_, b)| b.is_some()) {
                let len = s.chars().count();
                if !counts(&counted, len, &mut report) {
                    return;
                }
            }
            if let Some(Value::String(p)) = k.pattern {
                if pattern::matches(p, s) != Some(true) && !report(Broken::Pattern(p, s)) {
                    return;
                }
            }
            if let Some(Value::String(f)) = k.format {
                if format::check(f, s) == Some(false) {
                    report(Broken::Format(f, s));
                }
            }
        }
        Value::Array(items) => {
            let counted = [("minItems", k.min_items), ("maxItems", k.max_items)];
            if !counts(&counted, items.len(), &mut report) {
                return;
            }
            if k.unique_items == Some(&Value::Bool(true)) {
                if let Some((i, j)) = duplicate(items) {
                    report(Broken::Duplicate(i, j));
                }
            }
        }
        _ => {}
    }
}

/// Reports broken count bounds; false once `report` says stop.
fn counts<'a>(
    bounds: &[(&'static str, Option<&Value>)],
    actual: usize,
    report: &mut impl FnMut(Broken<'a>) -> bool,
) -> bool {
    for (key, bound) in bounds {
        let Some(bound) = bound.and_then(Value::as_u64) else {
            continue;
        };
        let fits = u64::try_from(actual).unwrap_or(u64::MAX);
        let ok = if key.starts_with("min") {
            fits >= bound
        } else {
            fits <= bound
        };
        if !ok && !report(Broken::Count(key, bound, actual)) {
            return false;
        }
    }
    true
}

/// Numbers compared exactly when both are integers, else as `f64`.
fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
        return Some(x.cmp(&y));
    }
    if let (Some(x), Some(y)) = (a.as_u64(), b.as_u64()) {
        return Some(x.cmp(&y));
    }
    a.as_f64()?.partial_cmp(&b.as_f64()?)
}

/// The first two equal items. Numbers compare by value (`1` equals `1.0`); arrays and objects
/// by their JSON text (printed without recursion), so two objects with the same members in a
/// different order count as different.
fn duplicate(items: &[Value]) -> Option<(usize, usize)> {
    let mut seen: HashMap<String, usize> = HashMap::with_capacity(items.len());
    for (j, item) in items.iter().enumerate() {
        let key = match item {
            Value::Number(n) => match n.as_f64() {
                Some(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => format!("n{}", f as i64),
                _ => format!("n{n}"),
            },
            other => format!("v{}", to_string_unbounded(other)),
        };
        if let Some(i) = seen.insert(key, j) {
            return Some((i, j));
        }
    }
    None
}
