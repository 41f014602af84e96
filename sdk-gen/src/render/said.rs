//! What one SDK has said already: property comments, and the aliases of recursive types.

use std::collections::HashSet;

/// What one SDK has said already: the property comments written (a property of the same
/// name and description is commented once per SDK: the model has read it), and, when the
/// SDK declares them ([`Said::with_aliases`]), the type aliases of recursive schemas.
#[derive(Default)]
pub(crate) struct Said {
    comments: HashSet<(String, String)>,
    pub(super) aliases: Option<Aliases>,
}

/// Type aliases for recursive schemas: `type RefNode = { next?: RefNode };`.
#[derive(Default)]
pub(super) struct Aliases {
    names: HashSet<String>,
    pub(super) declarations: String,
}

impl Said {
    /// A `Said` whose SDK declares type aliases, so a recursive schema renders as a named,
    /// recursive type instead of `JsonValue`; [`Said::alias_declarations`] gives them.
    pub(crate) fn with_aliases() -> Self {
        Said {
            comments: HashSet::new(),
            aliases: Some(Aliases::default()),
        }
    }

    /// The `type … = …;` lines of the aliases used so far.
    pub(crate) fn alias_declarations(&self) -> &str {
        self.aliases
            .as_ref()
            .map_or("", |a| a.declarations.as_str())
    }

    /// `doc`, unless `name` was already said with the same text.
    pub(super) fn first(&mut self, name: &str, text: &str, doc: String) -> Option<String> {
        self.comments
            .insert((name.to_owned(), text.to_owned()))
            .then_some(doc)
    }
}

impl Aliases {
    /// A fresh alias name for the target of `reference`: `Ref` and the definition's name
    /// (identifier characters only), numbered when taken.
    pub(super) fn reserve(&mut self, reference: &str) -> String {
        let last = reference.rsplit('/').next().unwrap_or_default();
        let stem: String = last
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let stem = if reference == "#" || stem.is_empty() {
            "Ref".to_owned()
        } else {
            format!("Ref{stem}")
        };
        let mut name = stem.clone();
        let mut n = 1;
        while !self.names.insert(name.clone()) {
            n += 1;
            name = format!("{stem}_{n}");
        }
        name
    }
}
