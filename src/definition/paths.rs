//! Which arguments of a tool name files in the workspace, and how they read once resolved.
//!
//! Policies match arguments as text; a path can be spelt many ways (`./secrets/x`, an absolute
//! path inside the root, `a/../secrets/x`). A tool that declares its path arguments lets
//! policies see each one as the workspace resolves it — root-relative and normalised — so
//! every spelling of the same file meets the same rules.

use std::fmt;
use std::sync::Arc;

use serde_json::Value;

/// Resolves a path argument to its root-relative form; `None` when it cannot (e.g. it leaves
/// the root), in which case policies see the text as given.
type Normalize = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// A tool's path arguments: their names, the value each has when absent, and the resolver.
#[derive(Clone)]
pub struct PathArguments {
    names: Vec<(String, Option<String>)>,
    normalize: Normalize,
}

impl PathArguments {
    /// No arguments yet, resolved by `normalize`.
    pub fn new(normalize: impl Fn(&str) -> Option<String> + Send + Sync + 'static) -> Self {
        PathArguments {
            names: Vec::new(),
            normalize: Arc::new(normalize),
        }
    }

    /// Declare argument `name` a path; `default` is the path a call without it means.
    pub fn argument(mut self, name: &str, default: Option<&str>) -> Self {
        self.names
            .push((name.to_string(), default.map(str::to_string)));
        self
    }

    /// The declared names.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.names.iter().map(|(name, _)| name.as_str())
    }

    /// Whether `name` is declared.
    pub fn contains(&self, name: &str) -> bool {
        self.names().any(|n| n == name)
    }

    /// The resolved value of every declared argument present in `args` (or defaulted).
    pub fn values(&self, args: &Value) -> Vec<String> {
        self.names
            .iter()
            .filter_map(|(name, default)| match args.get(name) {
                Some(Value::String(raw)) => Some(raw.as_str()),
                Some(_) => None,
                None => default.as_deref(),
            })
            .map(|raw| (self.normalize)(raw).unwrap_or_else(|| raw.to_string()))
            .collect()
    }
}

impl fmt::Debug for PathArguments {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}
