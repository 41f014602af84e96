//! Error types: schema issues and validation failures.

use std::fmt;

/// A schema that falls outside the enforced subset; lists every offending path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct JsonSchemaError {
    /// Every issue found, in document (pre-)order.
    pub issues: Vec<SchemaIssue>,
}

impl fmt::Display for JsonSchemaError {
    /// One line per issue: `<pointer>: <what>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, issue) in self.issues.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{issue}")?;
        }
        Ok(())
    }
}

impl JsonSchemaError {
    /// An error with a single issue.
    pub fn single(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            issues: vec![SchemaIssue {
                path: path.into(),
                message: message.into(),
            }],
        }
    }
}

/// One unsupported or malformed place in a schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaIssue {
    /// JSON pointer into the schema (`""` = root, RFC 6901 escaping).
    pub path: String,
    /// What is wrong there.
    pub message: String,
}

impl fmt::Display for SchemaIssue {
    /// `<pointer>: <what>`, with the root shown as `/`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", display_path(&self.path), self.message)
    }
}

/// The most violations one [`ValidationError`] lists; validation stops collecting there.
pub const MAX_VIOLATIONS: usize = 20;

/// One place where a value breaks its schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// JSON pointer into the validated value (`""` = root).
    pub path: String,
    /// What is wrong there, e.g. `expected string, got number`.
    pub message: String,
}

impl fmt::Display for Violation {
    /// `<pointer>: <what>`, with the root shown as `/`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", display_path(&self.path), self.message)
    }
}

/// A value that does not satisfy its schema: every violation found, in document order, up to
/// [`MAX_VIOLATIONS`]. `path` and `message` repeat the first one.
///
/// Displayed as one line: `<pointer>: <what>`, violations joined by `; `.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ValidationError {
    /// JSON pointer of the first violation (`""` = root).
    pub path: String,
    /// What is wrong at `path`, e.g. `expected string, got number`.
    pub message: String,
    /// Every violation listed, the first included; never empty.
    pub violations: Vec<Violation>,
    /// True when there were more violations than [`MAX_VIOLATIONS`] (the rest are not listed).
    pub more: bool,
}

impl ValidationError {
    /// An error listing `violations` (at most [`MAX_VIOLATIONS`] are kept; `more` says that
    /// others exist), or `None` when there are none.
    pub fn from_violations(mut violations: Vec<Violation>, mut more: bool) -> Option<Self> {
        if violations.len() > MAX_VIOLATIONS {
            violations.truncate(MAX_VIOLATIONS);
            more = true;
        }
        let first = violations.first()?.clone();
        Some(ValidationError {
            path: first.path,
            message: first.message,
            violations,
            more,
        })
    }
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.violations.is_empty() {
            return write!(f, "{}: {}", display_path(&self.path), self.message);
        }
        for (i, v) in self.violations.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{v}")?;
        }
        if self.more {
            write!(f, "; and more (only the first {MAX_VIOLATIONS} are listed)")?;
        }
        Ok(())
    }
}

fn display_path(path: &str) -> &str {
    if path.is_empty() {
        "/"
    } else {
        path
    }
}
