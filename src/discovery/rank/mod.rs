//! The search index behind tool discovery: which of hundreds of tools fit a request.
//!
//! Pure and offline: a [`SearchIndex`] is built once per tool set from [`ToolDoc`]s (about
//! 60 ms for 1,000 tools, release) and answers a query in tens of microseconds at 1,000 tools
//! (`benches/search.rs`). Ranking:
//!
//! 1. a query that is a tool's name, exactly or nearly (`exact.rs`), ranks that tool first;
//! 2. then BM25F (`bm25f.rs`) over the name (weighted highest), the server, the description's
//!    first sentence, the whole description, and the parameters' names and descriptions;
//!    terms are words cut at `_`, `-`, camelCase and digits, without stop words (`tokens.rs`);
//!    a word's Snowball stem matches too, at half weight ("pods" finds `get_pod`, below a tool
//!    that says "pods"), and so do its synonyms (`synonyms.rs`: "folder" finds
//!    `list_directory`).
//!
//! Any query is safe: it is read up to [`MAX_QUERY_CHARS`] characters and
//! [`MAX_QUERY_TERMS`] terms. Recall on the recorded catalog's labelled user requests
//! (`testing/catalog/queries.json`) is measured by `tests/it/discovery_rank.rs`: recall@5
//! 0.924, MRR 0.806 over 238 requests and 870 tools. Stems only (no words as written) gave
//! 0.903; words only, 0.924 as well, but then "pods" would not find `get_pod`.

mod bm25f;
mod exact;
mod synonyms;
mod tokens;

use std::fmt;

use serde_json::Value;

use bm25f::Bm25f;
use exact::Names;
use synonyms::Synonyms;
use tokens::Terms;

pub use tokens::{MAX_QUERY_CHARS, MAX_QUERY_TERMS};

/// Added to the score of a tool whose name the query nearly is (twice more for exactly): above
/// any BM25F score of a query of at most [`MAX_QUERY_TERMS`] terms and their synonyms (a term
/// adds less than its IDF, ≤ 15 up to millions of tools; a synonym half of that).
pub const NAME_MATCH_SCORE: f32 = 10_000.0;

/// How much a match of a word's stem only (`pods` for `pod`) counts against the word itself.
const STEM_WEIGHT: f32 = 0.5;

/// One tool as the index sees it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolDoc {
    /// The tool's name (`<server>__<tool>` for an MCP tool).
    pub name: String,
    /// The server or pack that provides it.
    pub server: String,
    /// Its description.
    pub description: String,
    /// Its parameters: each one's name and description.
    pub params: Vec<(String, String)>,
}

impl ToolDoc {
    /// The doc of a tool with this JSON Schema for its input: the parameters are the top-level
    /// `properties`, each with its `description` (else its `title`, else nothing). A schema of
    /// another shape gives no parameters.
    pub fn from_schema(name: &str, server: &str, description: &str, input_schema: &Value) -> Self {
        let params = input_schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|properties| {
                properties
                    .iter()
                    .map(|(param, schema)| {
                        let text = ["description", "title"]
                            .iter()
                            .find_map(|key| schema.get(*key).and_then(Value::as_str))
                            .unwrap_or_default();
                        (param.clone(), text.to_owned())
                    })
                    .collect()
            })
            .unwrap_or_default();
        ToolDoc {
            name: name.to_owned(),
            server: server.to_owned(),
            description: description.to_owned(),
            params,
        }
    }

    /// The name without its server prefix (`create_issue` for `github__create_issue` of server
    /// `github`); the whole name when it has none.
    pub fn tool_name(&self) -> &str {
        self.name
            .strip_prefix(self.server.as_str())
            .and_then(|rest| rest.strip_prefix("__"))
            .filter(|rest| !rest.is_empty())
            .unwrap_or(&self.name)
    }
}

/// One doc that matched a query.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    /// Its position in [`SearchIndex::docs`].
    pub index: usize,
    /// How well it matched: higher is better; [`NAME_MATCH_SCORE`] or more when the query is
    /// its name.
    pub score: f32,
}

/// A search index over tool docs, built once per tool set.
pub struct SearchIndex {
    docs: Vec<ToolDoc>,
    terms: Terms,
    synonyms: Synonyms,
    bm25f: Bm25f,
    names: Names,
}

impl SearchIndex {
    /// Indexes `docs`.
    pub fn new(docs: Vec<ToolDoc>) -> Self {
        let terms = Terms::new();
        let bm25f = Bm25f::new(&docs, &terms);
        let names = Names::new(&docs);
        let synonyms = Synonyms::new(&terms);
        SearchIndex {
            docs,
            terms,
            synonyms,
            bm25f,
            names,
        }
    }

    /// Every doc matching `query` (optionally only `server`'s), best first: (doc index, score).
    ///
    /// A doc matches when the query is its name or shares a term with it; ties keep index
    /// order. A query with no term and no name (empty, blank, only punctuation or stop words)
    /// matches every doc, each with score 0: the listing of `server`, or of everything.
    pub fn search(&self, query: &str, server: Option<&str>) -> Vec<Hit> {
        let query_terms = self.terms.query(query);
        let mut scores = vec![0f32; self.docs.len()];
        let listing = query_terms.is_empty();
        let mut weighted = self.synonyms.expand(query_terms);
        let stems: Vec<(String, f32)> = weighted
            .iter()
            .map(|(term, weight)| (self.terms.stem(term), weight * STEM_WEIGHT))
            .collect();
        for (stem, weight) in stems {
            match weighted.iter_mut().find(|(seen, _)| *seen == stem) {
                Some(seen) => seen.1 = seen.1.max(weight),
                None => weighted.push((stem, weight)),
            }
        }
        self.bm25f.score(&weighted, &mut scores);
        let mut named = false;
        self.names.matches(query, |doc, tier| {
            named = true;
            scores[doc] += NAME_MATCH_SCORE * tier as u8 as f32;
        });
        let listing = listing && !named;
        let mut hits: Vec<Hit> = scores
            .into_iter()
            .enumerate()
            .filter(|(index, score)| {
                (listing || *score > 0.0) && server.is_none_or(|s| self.docs[*index].server == s)
            })
            .map(|(index, score)| Hit { index, score })
            .collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.index.cmp(&b.index)));
        hits
    }

    /// The docs, in the order they were given.
    pub fn docs(&self) -> &[ToolDoc] {
        &self.docs
    }
}

impl fmt::Debug for SearchIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SearchIndex")
            .field("docs", &self.docs.len())
            .field("terms", &self.bm25f.term_count())
            .finish_non_exhaustive()
    }
}
