//! A schema proven to be in the enforced subset, so validating against it skips the check.

use serde_json::Value;

use crate::{assert_object_schema, assert_supported, JsonSchemaError, ValidationError};

/// A raw schema that passed [`assert_supported`]. Validation against it does not
/// re-check the schema, which keeps per-call validation cheap.
#[derive(Debug, Clone, PartialEq)]
pub struct SupportedSchema(Value);

impl SupportedSchema {
    /// Check `schema` once and keep it.
    pub fn new(schema: Value) -> Result<Self, JsonSchemaError> {
        assert_supported(&schema)?;
        Ok(SupportedSchema(schema))
    }

    /// Check that `schema` is supported and object-rooted, and keep it.
    pub fn object(schema: Value) -> Result<Self, JsonSchemaError> {
        assert_object_schema(&schema)?;
        Ok(SupportedSchema(schema))
    }

    /// Validate a value against this schema.
    pub fn validate(&self, value: &Value) -> Result<(), ValidationError> {
        crate::validate::validate_supported(&self.0, value)
    }

    /// The raw schema.
    pub fn as_value(&self) -> &Value {
        &self.0
    }
}
