//! Ranking tools for a plain-words query: a placeholder with the API of the real index
//! (token overlap, weighted by field), replaced by the ranking module at merge.

use std::collections::HashSet;

use serde_json::Value;

/// One tool as the index reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDoc {
    /// The tool's registry name (`server__tool` for MCP tools).
    pub name: String,
    /// The server or pack it belongs to.
    pub server: String,
    /// Its description.
    pub description: String,
    /// Its parameters' names and descriptions, top level.
    pub params: Vec<(String, String)>,
}

impl ToolDoc {
    /// The document of a tool with this input schema (top-level properties become params).
    pub fn from_schema(name: &str, server: &str, description: &str, input_schema: &Value) -> Self {
        let params = input_schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|props| {
                props
                    .iter()
                    .map(|(k, v)| {
                        let about = v.get("description").and_then(Value::as_str).unwrap_or("");
                        (k.clone(), about.to_string())
                    })
                    .collect()
            })
            .unwrap_or_default();
        ToolDoc {
            name: name.to_string(),
            server: server.to_string(),
            description: description.to_string(),
            params,
        }
    }
}

/// One match: the index of the document in [`SearchIndex::docs`] and its score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// Position in [`SearchIndex::docs`].
    pub index: usize,
    /// Higher is better.
    pub score: f32,
}

/// The documents with their tokens, ready to rank.
#[derive(Debug, Clone)]
pub struct SearchIndex {
    docs: Vec<ToolDoc>,
    fields: Vec<[HashSet<String>; 4]>,
}

const WEIGHTS: [f32; 4] = [3.0, 2.0, 1.0, 0.5];

impl SearchIndex {
    /// Index `docs`.
    pub fn new(docs: Vec<ToolDoc>) -> Self {
        let fields = docs
            .iter()
            .map(|d| {
                let params: String = d.params.iter().map(|(k, v)| format!("{k} {v} ")).collect();
                [
                    tokens(&d.name),
                    tokens(&d.server),
                    tokens(&d.description),
                    tokens(&params),
                ]
            })
            .collect();
        SearchIndex { docs, fields }
    }

    /// The documents matching `query`, best first (only those of `server` when given).
    pub fn search(&self, query: &str, server: Option<&str>) -> Vec<Hit> {
        let query = tokens(query);
        let mut hits: Vec<Hit> = self
            .fields
            .iter()
            .enumerate()
            .filter(|(i, _)| server.is_none_or(|s| self.docs[*i].server == s))
            .filter_map(|(index, fields)| {
                let score: f32 = query
                    .iter()
                    .map(|t| {
                        fields
                            .iter()
                            .zip(WEIGHTS)
                            .filter(|(f, _)| f.contains(t))
                            .map(|(_, w)| w)
                            .sum::<f32>()
                    })
                    .sum();
                (score > 0.0).then_some(Hit { index, score })
            })
            .collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.index.cmp(&b.index)));
        hits
    }

    /// The indexed documents.
    pub fn docs(&self) -> &[ToolDoc] {
        &self.docs
    }
}

/// Lower-case words: split on anything but letters and digits, and on camelCase.
fn tokens(text: &str) -> HashSet<String> {
    let mut out = HashSet::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in text.chars() {
        if c.is_alphanumeric() {
            if c.is_uppercase() && prev_lower && !word.is_empty() {
                out.insert(std::mem::take(&mut word));
            }
            prev_lower = c.is_lowercase();
            word.extend(c.to_lowercase());
        } else {
            prev_lower = false;
            if !word.is_empty() {
                out.insert(std::mem::take(&mut word));
            }
        }
    }
    if !word.is_empty() {
        out.insert(word);
    }
    out.retain(|w| w.len() > 1 && !STOP.contains(&w.as_str()));
    out
}

const STOP: &[&str] = &[
    "the", "an", "of", "to", "in", "on", "for", "and", "or", "is", "it", "me", "my", "with", "by",
    "at", "from", "what", "how", "this", "that", "all",
];
