//! Dropping and cloning specs without recursion, so very deep specs are fine on a small stack.

use super::{PropertySpec, ValueSpec};

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
