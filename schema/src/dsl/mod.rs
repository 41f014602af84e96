//! The author DSL: [`ValueSpec`] for any JSON value and [`ParameterSpec`] for
//! tool parameters, both compiling to the enforced raw subset.
//!
//! Builders never panic: misuse (say `.property` on a string spec) is recorded
//! and reported by `compile()`. Compilation, cloning and dropping are
//! iterative, so very deep specs are fine on a small stack.

use std::mem;

use serde_json::Value;

mod compile;
mod deep;

use crate::error::JsonSchemaError;
use crate::value::drop_deep;
use compile::compile_tree;

/// Annotations and scalar constraints shared by every node kind.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodeOptions {
    description: Option<String>,
    /// SEP-2243: the HTTP header (`Mcp-Param-<name>`) a 2026-07-28 client copies this
    /// property into, so that a load balancer can route on it.
    mcp_header: Option<String>,
    enum_values: Option<Vec<Value>>,
    constant: Option<Value>,
    misuse: Vec<String>,
}

/// One named property of an object spec.
#[derive(Debug)]
pub struct PropertySpec {
    /// Property name (any string; escaped in pointers).
    pub name: String,
    /// The property's value schema.
    pub spec: ValueSpec,
    /// Whether the property must be present.
    pub required: bool,
}

/// One author-facing schema for any JSON value.
#[derive(Debug)]
pub enum ValueSpec {
    /// A JSON string.
    String(NodeOptions),
    /// Any JSON number.
    Number(NodeOptions),
    /// A JSON number with no fractional part.
    Integer(NodeOptions),
    /// `true` or `false`.
    Boolean(NodeOptions),
    /// `null`.
    Null(NodeOptions),
    /// Any JSON value (compiles to an annotation-only node).
    Json(NodeOptions),
    /// An array whose every item matches `items`.
    Array {
        /// Schema of every item.
        items: Box<ValueSpec>,
        /// Annotations and constraints.
        options: NodeOptions,
    },
    /// An object with declared properties; always states its openness.
    Object {
        /// Declared properties, in declaration order.
        properties: Vec<PropertySpec>,
        /// Whether undeclared keys are accepted.
        additional_properties: bool,
        /// Annotations and constraints.
        options: NodeOptions,
    },
    /// Exactly one branch must match (at least two branches).
    OneOf {
        /// The alternatives.
        branches: Vec<ValueSpec>,
        /// Annotations and constraints.
        options: NodeOptions,
    },
}

impl ValueSpec {
    /// A string node.
    pub fn string() -> Self {
        Self::String(NodeOptions::default())
    }

    /// A number node (integers included).
    pub fn number() -> Self {
        Self::Number(NodeOptions::default())
    }

    /// An integer node (`3` and `3.0` both match).
    pub fn integer() -> Self {
        Self::Integer(NodeOptions::default())
    }

    /// A boolean node.
    pub fn boolean() -> Self {
        Self::Boolean(NodeOptions::default())
    }

    /// A null node.
    pub fn null() -> Self {
        Self::Null(NodeOptions::default())
    }

    /// Any JSON value; compiles to `{}` (plus its description, if any).
    pub fn json() -> Self {
        Self::Json(NodeOptions::default())
    }

    /// An array of `items`.
    pub fn array(items: ValueSpec) -> Self {
        Self::Array {
            items: Box::new(items),
            options: NodeOptions::default(),
        }
    }

    /// An object node; `additional_properties` is always stated in the output.
    pub fn object(additional_properties: bool) -> Self {
        Self::Object {
            properties: Vec::new(),
            additional_properties,
            options: NodeOptions::default(),
        }
    }

    /// Exactly one of `branches` must match.
    pub fn one_of(branches: impl IntoIterator<Item = ValueSpec>) -> Self {
        Self::OneOf {
            branches: branches.into_iter().collect(),
            options: NodeOptions::default(),
        }
    }

    /// Adds an optional property (object specs only; misuse is reported by `compile`).
    pub fn property(self, name: &str, spec: ValueSpec) -> Self {
        self.add_property(name, spec, false)
    }

    /// Adds a required property (object specs only; misuse is reported by `compile`).
    pub fn required_property(self, name: &str, spec: ValueSpec) -> Self {
        self.add_property(name, spec, true)
    }

    /// Sets the description annotation.
    pub fn describe(mut self, text: &str) -> Self {
        self.options_mut().description = Some(text.to_owned());
        self
    }

    /// Marks the node `x-mcp-header: name` (SEP-2243): a 2026-07-28 MCP client sends its
    /// value as the header `Mcp-Param-<name>` too, so that a load balancer routes on it
    /// without reading the body. Only meaningful on a top-level scalar property.
    pub fn mcp_header(mut self, name: &str) -> Self {
        self.options_mut().mcp_header = Some(name.to_owned());
        self
    }

    /// Restricts the node to these scalar values (checked against the node type by `compile`).
    pub fn enum_values(mut self, values: impl IntoIterator<Item = Value>) -> Self {
        self.options_mut().enum_values = Some(values.into_iter().collect());
        self
    }

    /// Restricts the node to this one scalar value (checked against the node type by `compile`).
    pub fn constant(mut self, value: Value) -> Self {
        self.options_mut().constant = Some(value);
        self
    }

    /// Compiles to the raw subset; the output always passes [`crate::assert_supported`].
    ///
    /// Reports every problem with a pointer into the would-be output: enum or
    /// const values that are not scalars of the node type, property misuse on
    /// non-object specs, duplicate property names, `oneOf` with fewer than two
    /// branches.
    pub fn compile(&self) -> Result<Value, JsonSchemaError> {
        compile_tree(self, false)
    }

    fn add_property(mut self, name: &str, spec: ValueSpec, required: bool) -> Self {
        if let Self::Object { properties, .. } = &mut self {
            properties.push(PropertySpec {
                name: name.to_owned(),
                spec,
                required,
            });
        } else {
            let method = if required {
                "required_property"
            } else {
                "property"
            };
            let msg = format!(
                "`{method}({})` is only valid on object specs, not {}",
                Value::String(name.to_owned()),
                self.kind_name()
            );
            self.options_mut().misuse.push(msg);
            drop(spec);
        }
        self
    }

    fn kind_name(&self) -> &'static str {
        match self {
            Self::String(_) => "string",
            Self::Number(_) => "number",
            Self::Integer(_) => "integer",
            Self::Boolean(_) => "boolean",
            Self::Null(_) => "null",
            Self::Json(_) => "json",
            Self::Array { .. } => "array",
            Self::Object { .. } => "object",
            Self::OneOf { .. } => "oneOf",
        }
    }

    /// The node's annotations and constraints.
    pub fn options(&self) -> &NodeOptions {
        match self {
            Self::String(o)
            | Self::Number(o)
            | Self::Integer(o)
            | Self::Boolean(o)
            | Self::Null(o)
            | Self::Json(o)
            | Self::Array { options: o, .. }
            | Self::Object { options: o, .. }
            | Self::OneOf { options: o, .. } => o,
        }
    }

    fn options_mut(&mut self) -> &mut NodeOptions {
        match self {
            Self::String(o)
            | Self::Number(o)
            | Self::Integer(o)
            | Self::Boolean(o)
            | Self::Null(o)
            | Self::Json(o)
            | Self::Array { options: o, .. }
            | Self::Object { options: o, .. }
            | Self::OneOf { options: o, .. } => o,
        }
    }

    fn child_count(&self) -> usize {
        match self {
            Self::Array { .. } => 1,
            Self::Object { properties, .. } => properties.len(),
            Self::OneOf { branches, .. } => branches.len(),
            _ => 0,
        }
    }

    /// Moves this node's child specs into `out`, leaving it childless; any
    /// container JSON held in `enum` / `const` is dismantled iteratively.
    fn take_children(&mut self, out: &mut Vec<ValueSpec>) {
        let options = self.options_mut();
        if let Some(values) = options.enum_values.take() {
            values.into_iter().for_each(drop_deep);
        }
        if let Some(value) = options.constant.take() {
            drop_deep(value);
        }
        match self {
            Self::Array { items, .. } if items.child_count() > 0 => {
                out.push(mem::replace(&mut **items, Self::json()));
            }
            Self::Object { properties, .. } => {
                out.extend(properties.drain(..).map(|p| p.spec));
            }
            Self::OneOf { branches, .. } => out.append(branches),
            _ => {}
        }
    }
}

impl NodeOptions {
    /// The description annotation, if set.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// The `x-mcp-header` annotation, if set.
    pub fn mcp_header(&self) -> Option<&str> {
        self.mcp_header.as_deref()
    }
}

/// Tool parameters: an implicit open object whose properties are each
/// optional or required.
#[derive(Debug, Clone)]
pub struct ParameterSpec {
    root: ValueSpec,
}

impl Default for ParameterSpec {
    fn default() -> Self {
        Self::new()
    }
}

impl ParameterSpec {
    /// No parameters yet.
    pub fn new() -> Self {
        Self {
            root: ValueSpec::object(true),
        }
    }

    /// Adds an optional parameter.
    pub fn optional(mut self, name: &str, spec: ValueSpec) -> Self {
        self.root = mem::replace(&mut self.root, ValueSpec::json()).property(name, spec);
        self
    }

    /// Adds a required parameter.
    pub fn required(mut self, name: &str, spec: ValueSpec) -> Self {
        self.root = mem::replace(&mut self.root, ValueSpec::json()).required_property(name, spec);
        self
    }

    /// Compiles to `{"type":"object","properties":{...},"required":[...]}`.
    ///
    /// `properties` keeps declaration order, `required` is omitted when
    /// empty, and there is no `additionalProperties` key (open by default).
    pub fn compile(&self) -> Result<Value, JsonSchemaError> {
        compile_tree(&self.root, true)
    }
}
