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
/// undeclared keys; the error text is the detail of an `INVALID_ARGS` failure.
pub(crate) fn check(
    def: &ToolDefinition,
    args: &Value,
    reject_unknown: bool,
) -> Result<(), String> {
    let Some(schema) = &def.args_schema else {
        return Ok(());
    };
    let declared = &def.declared;
    let unknown: Vec<&str> = match (reject_unknown, args) {
        (true, Value::Object(map)) => map
            .keys()
            .map(String::as_str)
            .filter(|k| !declared.iter().any(|d| d == k))
            .take(MAX_VIOLATIONS + 1)
            .collect(),
        _ => Vec::new(),
    };
    let schema_error = schema.validate(args).err();
    if unknown.is_empty() {
        return schema_error.map_or(Ok(()), |e| Err(e.to_string()));
    }
    let given = args.as_object();
    let mut violations: Vec<Violation> = unknown
        .iter()
        .map(|key| {
            // Suggest only names the call does not already carry.
            let free = declared
                .iter()
                .map(String::as_str)
                .filter(|d| !given.is_some_and(|m| m.contains_key(*d)));
            let suggestion = match key.len() <= MAX_SUGGESTED_KEY {
                true => closest_or_alias(key, free),
                false => None,
            };
            let message = match suggestion {
                Some(name) => format!("unknown argument (did you mean `{name}`?)"),
                None => "unknown argument".to_string(),
            };
            Violation {
                path: format!("/{}", escape_token(&cut(key, MAX_SUGGESTED_KEY))),
                message,
            }
        })
        .collect();
    let mut more = false;
    if let Some(e) = schema_error {
        more = e.more;
        // An undeclared key's only schema violation is `additionalProperties: false`,
        // already reported above.
        let paths: Vec<String> = unknown
            .iter()
            .map(|k| format!("/{}", escape_token(k)))
            .collect();
        violations.extend(
            e.violations
                .into_iter()
                .filter(|v| !paths.contains(&v.path)),
        );
    }
    let error = ValidationError::from_violations(violations, more)
        .map_or_else(String::new, |e| e.to_string());
    let names = match declared.len() {
        0 => "the tool takes no arguments".to_string(),
        n if n > MAX_LISTED_NAMES => format!(
            "the arguments are: {}, … ({} more)",
            declared[..MAX_LISTED_NAMES].join(", "),
            n - MAX_LISTED_NAMES
        ),
        _ => format!("the arguments are: {}", declared.join(", ")),
    };
    Err(format!("{error}; {names}"))
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
