//! The JSON Schema subset ptc enforces.
//!
//! * [`assert_supported`] / [`assert_object_schema`] check a raw (wire) schema
//!   against the enforced subset and list every offending path;
//! * [`node_is_supported`] is the node-local part of that check;
//! * [`validate`] checks a value against a supported schema;
//! * [`ValueSpec`] / [`ParameterSpec`] are the author DSL; they compile to
//!   the subset;
//! * [`value`] parses, prints, measures and drops JSON values of any depth.
//!
//! Every walk uses an explicit heap stack, so 5,000-deep schemas and values
//! are fine on a small thread stack.
//!
//! ```
//! use ptc_schema::{assert_supported, validate};
//! use serde_json::json;
//!
//! let schema = json!({
//!     "type": "object",
//!     "properties": {"name": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}},
//!     "required": ["name"],
//!     "additionalProperties": false
//! });
//! assert_supported(&schema).unwrap();
//! assert!(validate(&schema, &json!({"name": "x", "tags": ["a"]})).is_ok());
//!
//! let err = validate(&schema, &json!({"name": "x", "tags": ["a", 3]})).unwrap_err();
//! assert_eq!(err.to_string(), "/tags/1: expected string, got number");
//!
//! let err = assert_supported(&json!({"type": "string", "not": {"const": "a"}})).unwrap_err();
//! assert_eq!(err.issues[0].path, "/not");
//!
//! // The author DSL compiles to the same subset.
//! use ptc_schema::{ParameterSpec, ValueSpec};
//! let params = ParameterSpec::new()
//!     .required("name", ValueSpec::string().describe("who"))
//!     .optional("tags", ValueSpec::array(ValueSpec::string()));
//! assert_eq!(
//!     params.compile().unwrap(),
//!     json!({
//!         "type": "object",
//!         "properties": {
//!             "name": {"type": "string", "description": "who"},
//!             "tags": {"type": "array", "items": {"type": "string"}}
//!         },
//!         "required": ["name"]
//!     })
//! );
//! ```
#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod dsl;
mod error;
mod foreign;
pub mod format;
pub mod pattern;
mod pointer;
mod refs;
mod support;
mod supported;
mod validate;
pub mod value;

pub use dsl::{NodeOptions, ParameterSpec, PropertySpec, ValueSpec};
pub use error::{JsonSchemaError, SchemaIssue, ValidationError, Violation, MAX_VIOLATIONS};
pub use foreign::{foreign_input_schema, foreign_output_schema};
pub use pointer::escape_token;
pub use refs::resolve as resolve_ref;
pub use serde_json::Value as JsonValue;
pub use support::{assert_object_schema, assert_supported, node_is_supported};
pub use supported::SupportedSchema;
pub use validate::{validate, UNION_BUDGET};

/// Keywords of the enforced subset.
pub const SUPPORTED_KEYWORDS: &[&str] = &[
    "type",
    "oneOf",
    "anyOf",
    "$ref",
    "$defs",
    "definitions",
    "propertyNames",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minItems",
    "maxItems",
    "uniqueItems",
    "discriminator",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "description",
    "title",
    "default",
    "examples",
    "x-mcp-header",
];
