//! The author DSL: [`ValueSpec`] for any JSON value and [`ParameterSpec`] for
//! tool parameters, both compiling to the enforced raw subset.
//!
//! Builders never panic: misuse (say `.property` on a string spec) is recorded
//! and reported by `compile()`. Compilation, cloning and dropping are
//! iterative, so very deep specs are fine on a small stack.

use std::mem;

use serde_json::{Map, Value};

use crate::error::{JsonSchemaError, SchemaIssue};
use crate::pointer::{PathArena, PathId, Seg, ROOT};
use crate::support::{check_node, kind};

/// Annotations and scalar constraints shared by every node kind.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodeOptions {
    description: Option<String>,
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
            values.into_iter().for_each(dismantle_json);
        }
        if let Some(value) = options.constant.take() {
            dismantle_json(value);
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
}

impl Drop for ValueSpec {
    /// Iterative: a deep spec is dismantled with a heap stack.
    fn drop(&mut self) {
        let mut stack = Vec::new();
        self.take_children(&mut stack);
        while let Some(mut node) = stack.pop() {
            node.take_children(&mut stack);
        }
    }
}

impl Clone for ValueSpec {
    /// Iterative (post-order with an explicit stack).
    fn clone(&self) -> Self {
        enum Visit<'a> {
            Enter(&'a ValueSpec),
            Exit(&'a ValueSpec),
        }
        let mut stack = vec![Visit::Enter(self)];
        let mut done: Vec<ValueSpec> = Vec::new();
        while let Some(visit) = stack.pop() {
            match visit {
                Visit::Enter(node) => {
                    stack.push(Visit::Exit(node));
                    match node {
                        ValueSpec::Array { items, .. } => stack.push(Visit::Enter(items)),
                        ValueSpec::Object { properties, .. } => {
                            stack.extend(properties.iter().rev().map(|p| Visit::Enter(&p.spec)));
                        }
                        ValueSpec::OneOf { branches, .. } => {
                            stack.extend(branches.iter().rev().map(Visit::Enter));
                        }
                        _ => {}
                    }
                }
                Visit::Exit(node) => {
                    let kids = done.split_off(done.len() - node.child_count());
                    let options = node.options().clone();
                    let copy = match node {
                        ValueSpec::String(_) => ValueSpec::String(options),
                        ValueSpec::Number(_) => ValueSpec::Number(options),
                        ValueSpec::Integer(_) => ValueSpec::Integer(options),
                        ValueSpec::Boolean(_) => ValueSpec::Boolean(options),
                        ValueSpec::Null(_) => ValueSpec::Null(options),
                        ValueSpec::Json(_) => ValueSpec::Json(options),
                        ValueSpec::Array { .. } => ValueSpec::Array {
                            items: Box::new(kids.into_iter().next().unwrap_or_else(Self::json)),
                            options,
                        },
                        ValueSpec::Object {
                            properties,
                            additional_properties,
                            ..
                        } => ValueSpec::Object {
                            properties: properties
                                .iter()
                                .zip(kids)
                                .map(|(p, spec)| PropertySpec {
                                    name: p.name.clone(),
                                    spec,
                                    required: p.required,
                                })
                                .collect(),
                            additional_properties: *additional_properties,
                            options,
                        },
                        ValueSpec::OneOf { .. } => ValueSpec::OneOf {
                            branches: kids,
                            options,
                        },
                    };
                    done.push(copy);
                }
            }
        }
        done.pop().unwrap_or_else(Self::json)
    }
}

impl Clone for PropertySpec {
    fn clone(&self) -> Self {
        Self {
            name: self.name.clone(),
            spec: self.spec.clone(),
            required: self.required,
        }
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

/// Drops a JSON value without recursion.
fn dismantle_json(value: Value) {
    if is_scalar(&value) {
        return;
    }
    let mut stack = vec![value];
    while let Some(mut v) = stack.pop() {
        match &mut v {
            Value::Array(a) => stack.append(a),
            Value::Object(o) => stack.extend(mem::take(o).into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

fn is_scalar(v: &Value) -> bool {
    !(v.is_array() || v.is_object())
}

/// Iterative post-order compilation with issue paths kept in an arena.
fn compile_tree(root: &ValueSpec, parameter_root: bool) -> Result<Value, JsonSchemaError> {
    enum Visit<'a> {
        Enter(&'a ValueSpec, PathId),
        Exit(&'a ValueSpec, PathId),
    }
    let mut arena = PathArena::new();
    let mut issues = Vec::new();
    let mut local = Vec::new();
    let mut stack = vec![Visit::Enter(root, ROOT)];
    let mut done: Vec<Value> = Vec::new();
    while let Some(visit) = stack.pop() {
        match visit {
            Visit::Enter(node, path) => {
                stack.push(Visit::Exit(node, path));
                let start = stack.len();
                match node {
                    ValueSpec::Array { items, .. } => {
                        stack.push(Visit::Enter(items, arena.push(path, Seg::Keyword("items"))));
                    }
                    ValueSpec::Object { properties, .. } if !properties.is_empty() => {
                        let p = arena.push(path, Seg::Keyword("properties"));
                        for prop in properties {
                            let at = arena.push(p, Seg::Key(&prop.name));
                            stack.push(Visit::Enter(&prop.spec, at));
                        }
                    }
                    ValueSpec::OneOf { branches, .. } => {
                        let p = arena.push(path, Seg::Keyword("oneOf"));
                        for (i, branch) in branches.iter().enumerate() {
                            stack.push(Visit::Enter(branch, arena.push(p, Seg::Index(i))));
                        }
                    }
                    _ => {}
                }
                stack[start..].reverse();
            }
            Visit::Exit(node, path) => {
                let kids = done.split_off(done.len() - node.child_count());
                let mut report = |rel: String, message: String| {
                    issues.push(SchemaIssue {
                        path: format!("{}{rel}", arena.render(path)),
                        message,
                    });
                };
                let options = node.options();
                for msg in &options.misuse {
                    report(String::new(), msg.clone());
                }
                let out = build_node(node, kids, parameter_root && path == ROOT, &mut report);
                // The same node-local checker as assert_supported: the output
                // is in the subset by construction or the issue is reported.
                check_node(&out, &mut local);
                for (rel, message) in local.drain(..) {
                    report(rel, message);
                }
                done.push(out);
            }
        }
    }
    let out = done.pop().unwrap_or_else(|| Value::Object(Map::new()));
    if issues.is_empty() {
        Ok(out)
    } else {
        // The partial output may be deep; serde_json's own drop recurses.
        dismantle_json(out);
        Err(JsonSchemaError { issues })
    }
}

fn build_node(
    node: &ValueSpec,
    kids: Vec<Value>,
    parameter_root: bool,
    report: &mut impl FnMut(String, String),
) -> Value {
    let mut out = Map::new();
    let ty = match node {
        ValueSpec::String(_) => Some("string"),
        ValueSpec::Number(_) => Some("number"),
        ValueSpec::Integer(_) => Some("integer"),
        ValueSpec::Boolean(_) => Some("boolean"),
        ValueSpec::Null(_) => Some("null"),
        ValueSpec::Array { .. } => Some("array"),
        ValueSpec::Object { .. } => Some("object"),
        ValueSpec::Json(_) | ValueSpec::OneOf { .. } => None,
    };
    if let Some(ty) = ty {
        out.insert("type".into(), Value::String(ty.into()));
    }
    let options = node.options();
    if let Some(d) = &options.description {
        out.insert("description".into(), Value::String(d.clone()));
    }
    match node {
        ValueSpec::Array { .. } => {
            if let Some(items) = kids.into_iter().next() {
                out.insert("items".into(), items);
            }
        }
        ValueSpec::Object {
            properties,
            additional_properties,
            ..
        } => {
            let mut props = Map::new();
            let mut required = Vec::new();
            for (prop, compiled) in properties.iter().zip(kids) {
                if props.contains_key(&prop.name) {
                    report(
                        format!("/properties/{}", crate::escape_token(&prop.name)),
                        format!("duplicate property {}", Value::String(prop.name.clone())),
                    );
                    dismantle_json(compiled);
                    continue;
                }
                props.insert(prop.name.clone(), compiled);
                if prop.required {
                    required.push(Value::String(prop.name.clone()));
                }
            }
            if !props.is_empty() || parameter_root {
                out.insert("properties".into(), Value::Object(props));
            }
            if !required.is_empty() {
                out.insert("required".into(), Value::Array(required));
            }
            if !parameter_root {
                out.insert(
                    "additionalProperties".into(),
                    Value::Bool(*additional_properties),
                );
            }
        }
        ValueSpec::OneOf { .. } => {
            out.insert("oneOf".into(), Value::Array(kids));
        }
        _ => {}
    }
    // enum / const: only scalars are copied; a non-scalar (possibly deep)
    // value is reported here and never cloned.
    if let Some(values) = &options.enum_values {
        let mut copied = Vec::with_capacity(values.len());
        let mut ok = true;
        for (i, v) in values.iter().enumerate() {
            if is_scalar(v) {
                copied.push(v.clone());
            } else {
                ok = false;
                report(
                    format!("/enum/{i}"),
                    format!("`enum` value must be a scalar, got {}", kind(v)),
                );
            }
        }
        if ok {
            out.insert("enum".into(), Value::Array(copied));
        }
    }
    if let Some(c) = &options.constant {
        if is_scalar(c) {
            out.insert("const".into(), c.clone());
        } else {
            report(
                "/const".into(),
                format!("`const` must be a scalar, got {}", kind(c)),
            );
        }
    }
    Value::Object(out)
}
