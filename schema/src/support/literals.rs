//! `enum` and `const`: scalars that fit the node's `type`.

use serde_json::Value;

use super::types::TypeState;
use super::{kind, preview};

fn is_scalar(value: &Value) -> bool {
    !(value.is_array() || value.is_object())
}

pub(super) fn check_enum(val: &Value, ty: &TypeState<'_>, issues: &mut Vec<(String, String)>) {
    match val {
        Value::Array(a) if a.is_empty() => {
            issues.push(("/enum".into(), "`enum` must not be empty".into()));
        }
        Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                check_scalar(&format!("/enum/{i}"), "`enum` value", v, ty, issues);
            }
        }
        other => issues.push((
            "/enum".into(),
            format!("`enum` must be an array of scalars, got {}", kind(other)),
        )),
    }
}

pub(super) fn check_scalar(
    path: &str,
    what: &str,
    val: &Value,
    ty: &TypeState<'_>,
    issues: &mut Vec<(String, String)>,
) {
    if !is_scalar(val) {
        issues.push((
            path.into(),
            format!(
                "{what} must be a scalar (string, number, boolean or null), got {}",
                kind(val)
            ),
        ));
    } else if !ty.matches(val) {
        if let TypeState::Valid(names) = ty {
            issues.push((
                path.into(),
                format!(
                    "{what} {} does not match type \"{}\"",
                    preview(val),
                    names.join("\" or \"")
                ),
            ));
        }
    }
}
