//! Argument validation: the schema, plus the rule that a call may not carry keys its tool
//! does not declare.
//!
//! The schema layer keeps the seed's semantics: parameters are an open object unless they
//! say `additionalProperties: false` (behaviour 2). On top of it the pipeline treats a
//! tool's parameters as *closed*: an undeclared top-level key fails the call as
//! `INVALID_ARGS`, naming the key, the closest declared name and the declared names:
//!
//! ```text
//! Invalid arguments for tool grep: /inclde: unknown argument (did you mean `include`?);
//! the arguments are: pattern, path, include
//! ```
//!
//! Deeper, every object node that has `properties` and does not say
//! `additionalProperties: true` (or a schema) is closed the same way (see
//! `unknown_keys.rs`), and the message names what the object has:
//!
//! ```text
//! /todos/2/prio: unknown key (did you mean `priority`? todos[] items have content, status, priority)
//! ```
//!
//! A tool is exempt when its parameters say `additionalProperties: true` explicitly (an
//! MCP tool whose schema allows extra keys), when it passes arguments through unvalidated
//! (schema outside the subset), or when the operator allows unknown arguments
//! ([`UnknownArguments::Allow`], `unknown_arguments = "allow"` in `ptc.toml`).
//!
//! The check runs where the seed validates arguments: in the execute stage, after
//! pre-execute policies and guards, just before the body. Its violations and the schema's
//! are reported together in one message (unknown keys first, at most
//! [`ptc_schema::MAX_VIOLATIONS`]). Native calls and sub-calls go through the same stage.

use std::sync::atomic::Ordering;

use ptc_schema::{escape_token, ValidationError, Violation, MAX_VIOLATIONS};
use serde_json::Value;

use crate::definition::ToolDefinition;
use crate::registry::ToolRegistry;
use crate::suggest::closest_or_alias;

use super::unknown_keys::{unknown_keys, Unknown};

/// Longest unknown key looked up for a suggestion (and shown whole).
const MAX_SUGGESTED_KEY: usize = 64;
/// Declared names a message lists at most.
const MAX_LISTED_NAMES: usize = 50;

/// What a call carrying argument keys its tool does not declare gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UnknownArguments {
    /// The call fails as `INVALID_ARGS` naming the key (the default).
    #[default]
    Reject,
    /// The keys are passed to the tool, which ignores them (the seed's open parameters).
    Allow,
}

impl ToolRegistry {
    /// Set what calls carrying undeclared argument keys get (default
    /// [`UnknownArguments::Reject`]); applies to every call that has not started.
    pub fn set_unknown_arguments(&self, policy: UnknownArguments) {
        self.inner
            .allow_unknown_arguments
            .store(policy == UnknownArguments::Allow, Ordering::Relaxed);
    }

    /// What calls carrying undeclared argument keys get.
    pub fn unknown_arguments(&self) -> UnknownArguments {
        match self.inner.allow_unknown_arguments.load(Ordering::Relaxed) {
            true => UnknownArguments::Allow,
            false => UnknownArguments::Reject,
        }
    }

    /// Whether a call of `def` with an undeclared argument key fails: the tool's
    /// parameters are closed ([`ToolDefinition::closes_arguments`]) and the registry
    /// rejects unknown arguments.
    pub fn rejects_unknown_arguments(&self, def: &ToolDefinition) -> bool {
        def.closes_arguments() && self.unknown_arguments() == UnknownArguments::Reject
    }
}

/// Validate `args` against `def`'s parameters, and (when `reject_unknown`) refuse
/// undeclared keys at every depth where the parameters close the object; the error text is
/// the detail of an `INVALID_ARGS` failure.
pub(crate) fn check(
    def: &ToolDefinition,
    args: &Value,
    reject_unknown: bool,
) -> Result<(), String> {
    let Some(schema) = &def.args_schema else {
        return Ok(());
    };
    let declared = &def.declared;
    let unknown = match reject_unknown {
        true => unknown_keys(
            &def.parameters,
            args,
            def.closes_arguments(),
            MAX_VIOLATIONS + 1,
        ),
        false => Vec::new(),
    };
    let schema_error = schema.validate(args).err();
    if unknown.is_empty() {
        return schema_error.map_or(Ok(()), |e| Err(e.to_string()));
    }
    let mut described = Vec::new();
    let mut violations: Vec<Violation> = unknown
        .iter()
        .map(|u| violation(u, &mut described))
        .collect();
    let mut more = false;
    if let Some(e) = schema_error {
        more = e.more;
        // An undeclared key's only schema violation is `additionalProperties: false`,
        // already reported above.
        let paths: Vec<String> = unknown
            .iter()
            .map(|u| format!("{}/{}", u.parent, escape_token(u.key)))
            .collect();
        violations.extend(
            e.violations
                .into_iter()
                .filter(|v| !paths.contains(&v.path)),
        );
    }
    let error = ValidationError::from_violations(violations, more)
        .map_or_else(String::new, |e| e.to_string());
    let names = match declared.is_empty() {
        true => "the tool takes no arguments".to_string(),
        false => {
            let names: Vec<&str> = declared.iter().map(String::as_str).collect();
            format!("the arguments are: {}", list(&names))
        }
    };
    Err(format!("{error}; {names}"))
}

/// The violation of one undeclared key: `unknown argument` at the top level, `unknown key`
/// deeper (naming what the object has, the first time for each place: `described`), with
/// the closest declared name the object does not already carry.
fn violation<'u>(u: &'u Unknown<'_>, described: &mut Vec<&'u str>) -> Violation {
    let free = u.declared.iter().copied().filter(|d| !u.given.contains(d));
    let suggestion = match u.key.len() <= MAX_SUGGESTED_KEY {
        true => closest_or_alias(u.key, free),
        false => None,
    };
    let guess = suggestion.map(|name| format!("did you mean `{name}`?"));
    let message = match (&u.label, guess) {
        (None, Some(guess)) => format!("unknown argument ({guess})"),
        (None, None) => "unknown argument".to_string(),
        (Some(label), guess) => {
            let has = match described.contains(&label.as_str()) {
                true => None,
                false if label.ends_with("[]") => {
                    Some(format!("{label} items have {}", list(&u.declared)))
                }
                false => Some(format!("{label} has {}", list(&u.declared))),
            };
            described.push(label);
            match (guess, has) {
                (Some(guess), Some(has)) => format!("unknown key ({guess} {has})"),
                (Some(guess), None) => format!("unknown key ({guess})"),
                (None, Some(has)) => format!("unknown key ({has})"),
                (None, None) => "unknown key".to_string(),
            }
        }
    };
    Violation {
        path: format!(
            "{}/{}",
            u.parent,
            escape_token(&cut(u.key, MAX_SUGGESTED_KEY))
        ),
        message,
    }
}

/// `names` joined by `, `, at most [`MAX_LISTED_NAMES`] of them.
fn list(names: &[&str]) -> String {
    match names.len() {
        n if n > MAX_LISTED_NAMES => format!(
            "{}, … ({} more)",
            names[..MAX_LISTED_NAMES].join(", "),
            n - MAX_LISTED_NAMES
        ),
        _ => names.join(", "),
    }
}

/// `text` cut to at most `max` bytes (on a character boundary), marked with `…`.
fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}
