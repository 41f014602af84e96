//! Whether a value passes, without messages: the hot path of validation.
//!
//! Nearly every value a tool receives or returns is valid, and the engine in the parent module
//! pays for what only a failure needs (a frame stack, a path arena, failure records). [`passes`]
//! walks the same keywords recursively and allocates nothing. Only `true` is trusted: on `false`
//! (a violation, or nesting deeper than [`MAX_RECURSION`], which it leaves to the iterative
//! engine) the engine runs and reports. The two must agree on which values pass; the test below
//! compares them on generated schemas and values.

use serde_json::Value;

use super::step::Keywords;
use super::{constraints, scalar_eq, UNION_BUDGET};
use crate::refs;
use crate::support::types::entry_matches;

/// How deep the quick check recurses before leaving the value to the engine.
const MAX_RECURSION: usize = 64;

/// Whether `value` satisfies `schema` (an already supported schema). `false` also when the
/// value nests too deep to decide here.
pub(super) fn passes(schema: &Value, value: &Value) -> bool {
    passes_in(schema, schema, value)
}

/// [`passes`] for `schema`, a part of the document `root` (`$ref`s resolve there).
pub(super) fn passes_in(root: &Value, schema: &Value, value: &Value) -> bool {
    let mut cx = Cx {
        root,
        budget: UNION_BUDGET,
    };
    cx.node(schema, value, 0, false)
}

/// The document and the checks left inside the branches of the outermost union.
struct Cx<'r> {
    root: &'r Value,
    budget: usize,
}

impl Cx<'_> {
    fn node(&mut self, schema: &Value, value: &Value, depth: usize, in_union: bool) -> bool {
        if depth > MAX_RECURSION {
            return false;
        }
        if in_union {
            self.budget = self.budget.saturating_sub(1);
            if self.budget == 0 {
                return false;
            }
        }
        let Some(schema) = schema.as_object() else {
            return false;
        };
        let keywords = Keywords::of(schema);
        if let Some(reference) = keywords.reference {
            let root = self.root;
            return match reference.as_str().and_then(|r| refs::resolve(root, r)) {
                Some(target) => self.node(target, value, depth + 1, in_union),
                None => false,
            };
        }
        // The engine decides a union alone: the node's other keywords are not read.
        let unions = [keywords.one_of, keywords.any_of];
        if !in_union
            && unions
                .iter()
                .any(|u| u.is_some_and(|b| b.as_array().is_some_and(|b| !b.is_empty())))
        {
            // An outermost union: its branches get a budget of their own.
            self.budget = UNION_BUDGET;
        }
        if let Some(Value::Array(branches)) = keywords.one_of {
            if !branches.is_empty() {
                let mut matched = 0;
                for branch in branches {
                    if self.node(branch, value, depth + 1, true) {
                        matched += 1;
                        if matched > 1 {
                            return false;
                        }
                    }
                }
                return matched == 1;
            }
        }
        if let Some(Value::Array(branches)) = keywords.any_of {
            if !branches.is_empty() {
                return branches
                    .iter()
                    .any(|branch| self.node(branch, value, depth + 1, true));
            }
        }
        if let Some(ty) = keywords.ty {
            if !entry_matches(ty, value) {
                return false;
            }
        }
        if let Some(Value::Array(allowed)) = keywords.enum_ {
            if !allowed.iter().any(|a| scalar_eq(a, value)) {
                return false;
            }
        }
        if let Some(expected) = keywords.const_ {
            if !scalar_eq(expected, value) {
                return false;
            }
        }
        let mut ok = true;
        constraints::check(&keywords, value, |_| {
            ok = false;
            false
        });
        if !ok {
            return false;
        }
        match value {
            Value::Object(map) => {
                let props = keywords.properties.and_then(Value::as_object);
                if let Some(Value::Array(required)) = keywords.required {
                    let mut names = required.iter().filter_map(Value::as_str);
                    if !names.all(|name| map.contains_key(name)) {
                        return false;
                    }
                }
                if let Some(names) = keywords.property_names {
                    for key in map.keys() {
                        let name = Value::String(key.clone());
                        if !self.node(names, &name, depth + 1, in_union) {
                            return false;
                        }
                    }
                }
                map.iter()
                    .all(|(key, child)| match props.and_then(|p| p.get(key)) {
                        Some(declared) => self.node(declared, child, depth + 1, in_union),
                        None => match keywords.additional_properties {
                            Some(Value::Bool(false)) => false,
                            Some(extra @ Value::Object(_)) => {
                                self.node(extra, child, depth + 1, in_union)
                            }
                            _ => true,
                        },
                    })
            }
            Value::Array(items) => keywords.items.is_none_or(|item_schema| {
                items
                    .iter()
                    .all(|item| self.node(item_schema, item, depth + 1, in_union))
            }),
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Map, Value};

    use super::{passes, MAX_RECURSION};
    use crate::validate::validate_engine;

    /// A small deterministic generator (xorshift), so failures reproduce.
    struct Gen(u64);

    impl Gen {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
        fn key(&mut self) -> String {
            ["a", "b", "c"][self.below(3) as usize].to_string()
        }
        fn scalar(&mut self) -> Value {
            match self.below(7) {
                0 => Value::Null,
                1 => json!(true),
                2 => json!(self.below(3)),
                3 => json!(1.5),
                4 => json!(self.key()),
                5 => json!(-1),
                _ => json!(2.0),
            }
        }
        fn value(&mut self, depth: u32) -> Value {
            if depth == 0 || self.below(3) == 0 {
                return self.scalar();
            }
            let len = self.below(4);
            if self.below(2) == 0 {
                Value::Array((0..len).map(|_| self.value(depth - 1)).collect())
            } else {
                let mut map = Map::new();
                for _ in 0..len {
                    let key = self.key();
                    map.insert(key, self.value(depth - 1));
                }
                Value::Object(map)
            }
        }
        fn schema(&mut self, depth: u32) -> Value {
            let mut node = Map::new();
            if depth > 0 && self.below(6) == 0 {
                let union = if self.below(2) == 0 { "oneOf" } else { "anyOf" };
                let branches = (0..1 + self.below(3)).map(|_| self.schema(depth - 1));
                node.insert(union.into(), Value::Array(branches.collect()));
                return Value::Object(node);
            }
            if self.below(12) == 0 {
                // The generated root carries `$defs.s` (see the test).
                return json!({"$ref": "#/$defs/s"});
            }
            let types = [
                "object", "array", "string", "number", "integer", "boolean", "null",
            ];
            match self.below(4) {
                0 => {}
                1 => {
                    let pair = [types[self.below(7) as usize], types[self.below(7) as usize]];
                    if pair[0] == pair[1] {
                        node.insert("type".into(), json!(pair[0]));
                    } else {
                        node.insert("type".into(), json!(pair));
                    }
                }
                _ => {
                    node.insert("type".into(), json!(types[self.below(7) as usize]));
                }
            }
            for (key, value) in [
                ("minimum", json!(0)),
                ("maximum", json!(1.5)),
                ("exclusiveMinimum", json!(-1)),
                ("minLength", json!(1)),
                ("maxLength", json!(1)),
                ("pattern", json!("^[ab]")),
                ("format", json!("date")),
                ("minItems", json!(1)),
                ("maxItems", json!(2)),
                ("uniqueItems", json!(true)),
            ] {
                if self.below(10) == 0 {
                    node.insert(key.into(), value);
                }
            }
            if depth > 0 && self.below(8) == 0 {
                node.insert("propertyNames".into(), json!({"enum": ["a", "b"]}));
            }
            if depth > 0 && self.below(8) == 0 {
                node.insert("additionalProperties".into(), self.schema(depth - 1));
            }
            if self.below(8) == 0 {
                let values = (0..1 + self.below(3)).map(|_| self.scalar());
                node.insert("enum".into(), Value::Array(values.collect()));
            }
            if self.below(12) == 0 {
                node.insert("const".into(), self.scalar());
            }
            if depth > 0 && self.below(2) == 0 {
                let mut props = Map::new();
                for _ in 0..self.below(3) {
                    let key = self.key();
                    props.insert(key, self.schema(depth - 1));
                }
                node.insert("properties".into(), Value::Object(props));
                if self.below(2) == 0 {
                    node.insert("required".into(), json!([self.key()]));
                }
                if self.below(2) == 0 {
                    node.insert("additionalProperties".into(), json!(false));
                }
            }
            if depth > 0 && self.below(3) == 0 {
                node.insert("items".into(), self.schema(depth - 1));
            }
            Value::Object(node)
        }
    }

    #[test]
    fn passes_exactly_when_the_engine_finds_no_violation() {
        let mut gen = Gen(0x9e37_79b9_7f4a_7c15);
        let (mut valid, mut invalid) = (0, 0);
        for _ in 0..20_000 {
            let mut schema = gen.schema(3);
            if let Value::Object(root) = &mut schema {
                root.insert(
                    "$defs".into(),
                    json!({"s": {"type": "string", "maxLength": 1}}),
                );
            }
            let value = if gen.below(2) == 0 {
                gen.value(3)
            } else {
                gen.scalar()
            };
            let engine = validate_engine(&schema, &value).is_ok();
            assert_eq!(
                passes(&schema, &value),
                engine,
                "schema {schema} value {value}"
            );
            if engine {
                valid += 1;
            } else {
                invalid += 1;
            }
        }
        // Both sides of the comparison are exercised.
        assert!(
            valid > 2_000 && invalid > 2_000,
            "{valid} valid, {invalid} invalid"
        );
    }

    #[test]
    fn values_deeper_than_the_recursion_bound_are_left_to_the_engine() {
        let schema = json!({"type": "array", "items": {"type": "array"}});
        let mut value = json!([]);
        for _ in 0..MAX_RECURSION + 2 {
            value = json!([value]);
        }
        let mut nested_schema = json!({"type": "array"});
        for _ in 0..MAX_RECURSION + 2 {
            nested_schema = json!({"type": "array", "items": nested_schema});
        }
        assert!(!passes(&nested_schema, &value));
        assert!(validate_engine(&nested_schema, &value).is_ok());
        assert!(passes(&schema, &json!([[1]])));
    }
}
