//! Reading a formatter's spec (`{"locales": ..., "options": {...}}`, JSON from the glue) with the
//! errors real engines give for bad options.

use serde_json::{Map, Value};

/// A failed `Intl` operation: the JavaScript error constructor's name and its message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IntlError {
    /// `RangeError` or `TypeError`.
    pub(crate) kind: &'static str,
    /// What was wrong, naming the option or locale.
    pub(crate) message: String,
}

impl IntlError {
    /// A `RangeError`.
    pub(crate) fn range(message: impl Into<String>) -> Self {
        IntlError {
            kind: "RangeError",
            message: message.into(),
        }
    }

    /// A `TypeError`.
    pub(crate) fn type_error(message: impl Into<String>) -> Self {
        IntlError {
            kind: "TypeError",
            message: message.into(),
        }
    }
}

/// A parsed spec: the requested locales and the options object.
pub(crate) struct Spec {
    /// The `locales` argument: absent, one tag, or a list.
    pub(crate) locales: Value,
    /// The options (already plain data: the glue copies the known keys).
    pub(crate) options: Map<String, Value>,
    /// The glue's other entries (a date format's `required` and `defaults`).
    pub(crate) extra: Map<String, Value>,
}

impl Spec {
    /// Parse the glue's spec text.
    pub(crate) fn parse(text: &str) -> Result<Spec, IntlError> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| IntlError::type_error(format!("Intl: unreadable options ({e})")))?;
        let Value::Object(mut object) = value else {
            return Err(IntlError::type_error("Intl: options must be an object"));
        };
        let locales = object.remove("locales").unwrap_or(Value::Null);
        let options = match object.remove("options") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(options)) => options,
            Some(_) => return Err(IntlError::type_error("Intl: options must be an object")),
        };
        Ok(Spec {
            locales,
            options,
            extra: object,
        })
    }

    /// One of the glue's other entries, as text.
    pub(crate) fn extra(&self, name: &str) -> Option<&str> {
        self.extra.get(name).and_then(Value::as_str)
    }

    /// A string option that must be one of `allowed` (or absent).
    pub(crate) fn choice(
        &self,
        name: &str,
        allowed: &[&'static str],
    ) -> Result<Option<&'static str>, IntlError> {
        let Some(value) = self.options.get(name).filter(|v| !v.is_null()) else {
            return Ok(None);
        };
        let text = match value {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        allowed
            .iter()
            .find(|a| **a == text)
            .map(|a| Some(*a))
            .ok_or_else(|| {
                IntlError::range(format!(
                    "Value {text} out of range for Intl options property {name} (one of: {})",
                    allowed.join(", ")
                ))
            })
    }

    /// A string option of any value.
    pub(crate) fn string(&self, name: &str) -> Option<String> {
        match self.options.get(name)? {
            Value::Null => None,
            Value::String(text) => Some(text.clone()),
            other => Some(other.to_string()),
        }
    }

    /// A boolean option (JavaScript truthiness of what the glue passed).
    pub(crate) fn boolean(&self, name: &str) -> Option<bool> {
        match self.options.get(name)? {
            Value::Null => None,
            Value::Bool(b) => Some(*b),
            Value::String(s) => Some(!s.is_empty()),
            Value::Number(n) => Some(n.as_f64().is_some_and(|n| n != 0.0)),
            _ => Some(true),
        }
    }

    /// An integer option in `min..=max` (a `RangeError` naming it otherwise, as engines say).
    pub(crate) fn integer(&self, name: &str, min: u8, max: u8) -> Result<Option<u8>, IntlError> {
        let Some(value) = self.options.get(name).filter(|v| !v.is_null()) else {
            return Ok(None);
        };
        let number = match value {
            Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
            Value::String(s) => s.trim().parse().unwrap_or(f64::NAN),
            Value::Bool(b) => f64::from(u8::from(*b)),
            _ => f64::NAN,
        };
        if !(f64::from(min)..=f64::from(max)).contains(&number) {
            return Err(IntlError::range(format!(
                "{name} value is out of range (it must be from {min} to {max}, not {value})"
            )));
        }
        Ok(Some(number.floor() as u8))
    }
}
