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

/// A value that does not satisfy its schema.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {message}", display_path(path))]
pub struct ValidationError {
    /// JSON pointer into the validated value (`""` = root).
    pub path: String,
    /// What is wrong there, e.g. `expected string, got number`.
    pub message: String,
}

fn display_path(path: &str) -> &str {
    if path.is_empty() {
        "/"
    } else {
        path
    }
}
