//! `type`: one of the seven types, or an array of them (`["string", "null"]`).

use serde_json::Value;

use super::{is_integral, kind};

/// The seven single types of the subset.
pub(crate) const TYPES: &[&str] = &[
    "object", "array", "string", "number", "integer", "boolean", "null",
];

/// What a node's `type` says, as far as its other keywords care.
pub(crate) enum TypeState<'a> {
    /// No `type`: every kind of value.
    Absent,
    /// A valid `type` (one name, or a non-empty array of distinct names).
    Valid(Vec<&'a str>),
    /// An invalid `type`, already reported: other keywords do not pile on.
    Invalid,
}

impl<'a> TypeState<'a> {
    /// Reads a node's `type` entry.
    pub(crate) fn of(ty: Option<&'a Value>) -> Self {
        match ty {
            None => TypeState::Absent,
            Some(ty) => match names(ty) {
                Some(names) => TypeState::Valid(names),
                None => TypeState::Invalid,
            },
        }
    }

    /// True when the node's `type` is present and names `want`.
    pub(crate) fn names(&self, want: &str) -> bool {
        match self {
            TypeState::Valid(names) => names.contains(&want),
            TypeState::Invalid => true,
            TypeState::Absent => false,
        }
    }

    /// True when values of kind `want` can satisfy the node's `type` (absent allows all).
    pub(crate) fn allows(&self, want: &str) -> bool {
        match self {
            TypeState::Absent | TypeState::Invalid => true,
            TypeState::Valid(names) => names
                .iter()
                .any(|n| *n == want || (want == "number" && *n == "integer")),
        }
    }

    /// True when `value` is of one of the node's types (absent or invalid: true).
    pub(crate) fn matches(&self, value: &Value) -> bool {
        match self {
            TypeState::Valid(names) => names.iter().any(|t| type_matches(t, value)),
            _ => true,
        }
    }
}

/// The type names of a valid `type` entry, else `None`.
fn names(ty: &Value) -> Option<Vec<&str>> {
    match ty {
        Value::String(s) if TYPES.contains(&s.as_str()) => Some(vec![s.as_str()]),
        Value::Array(list) if !list.is_empty() => {
            let mut out: Vec<&str> = Vec::with_capacity(list.len());
            for t in list {
                let t = t.as_str().filter(|t| TYPES.contains(t))?;
                if out.contains(&t) {
                    return None;
                }
                out.push(t);
            }
            Some(out)
        }
        _ => None,
    }
}

/// Checks the `type` entry itself.
pub(crate) fn check_type(val: &Value, issues: &mut Vec<(String, String)>) {
    if names(val).is_some() {
        return;
    }
    let expected = TYPES.join(", ");
    let msg = match val {
        Value::String(s) => format!("unknown type `{s}`; expected one of {expected}"),
        Value::Array(a) if a.is_empty() => "a type array must not be empty".into(),
        Value::Array(_) => {
            format!("a type array must hold distinct names, each one of {expected}")
        }
        other => format!(
            "`type` must be a string or an array of strings, got {}",
            kind(other)
        ),
    };
    issues.push(("/type".into(), msg));
}

/// True when `value` is an instance of the subset type `ty`.
pub(crate) fn type_matches(ty: &str, value: &Value) -> bool {
    match ty {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => is_integral(value),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        _ => false,
    }
}

/// A `type` entry's names for a message: `string`, `string or null`, `string, number or null`.
pub(crate) fn describe(ty: &Value) -> String {
    let names: Vec<&str> = match ty {
        Value::String(s) => vec![s.as_str()],
        Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

/// True when `value` matches a valid `type` entry (a name or an array of names).
pub(crate) fn entry_matches(ty: &Value, value: &Value) -> bool {
    match ty {
        Value::String(t) => type_matches(t, value),
        Value::Array(list) => list
            .iter()
            .any(|t| t.as_str().is_some_and(|t| type_matches(t, value))),
        _ => true,
    }
}
