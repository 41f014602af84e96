//! BM25F: term frequencies of a doc's fields, weighted and length-normalised per field, summed
//! into one frequency per term before saturation (Robertson, Zaragoza & Taylor, 2004).

use rustc_hash::FxHashMap;

use super::tokens::{words, Terms};
use super::ToolDoc;

/// The fields of a tool doc, as the index weighs them.
#[derive(Clone, Copy)]
enum Field {
    /// The tool's name without its server prefix.
    Name,
    /// The server (or pack) name.
    Server,
    /// The description's first sentence: what the tool does.
    Summary,
    /// The whole description.
    Description,
    /// The parameters' names.
    ParamName,
    /// The parameters' descriptions.
    ParamText,
}

const FIELDS: usize = 6;

/// Per field: its weight and how much its length normalises (BM25's `b`).
const PARAMS: [(f32, f32); FIELDS] = [
    (3.0, 0.3),  // Name
    (1.5, 0.0),  // Server
    (1.5, 0.5),  // Summary
    (1.0, 0.75), // Description
    (0.7, 0.5),  // ParamName
    (0.3, 0.75), // ParamText
];

/// BM25's saturation: how fast more occurrences stop adding.
const K1: f32 = 1.2;

/// One doc in one term's postings: the term's weighted, normalised frequency in that doc.
struct Posting {
    doc: u32,
    weight: f32,
}

/// An inverted index of terms to the docs that hold them, scored with BM25F.
pub(super) struct Bm25f {
    terms: FxHashMap<String, u32>,
    idf: Vec<f32>,
    postings: Vec<Vec<Posting>>,
}

impl Bm25f {
    /// Indexes `docs`.
    pub(super) fn new(docs: &[ToolDoc], terms: &Terms) -> Self {
        let mut ids: FxHashMap<String, u32> = FxHashMap::default();
        // Per doc: each term's frequency in each field, and each field's length in terms.
        let mut counts: Vec<Vec<(u32, [u16; FIELDS])>> = Vec::with_capacity(docs.len());
        let mut lengths: Vec<[u32; FIELDS]> = Vec::with_capacity(docs.len());
        // Each word's term ids, as written and stemmed (none for a stop word): indexing meets
        // the same words again and again, and stemming is most of its cost.
        let mut word_ids: FxHashMap<String, Option<[u32; 2]>> = FxHashMap::default();
        let mut id_of = |term: String| {
            let next = ids.len() as u32;
            *ids.entry(term).or_insert(next)
        };
        for doc in docs {
            let mut tf: FxHashMap<u32, [u16; FIELDS]> = FxHashMap::default();
            let mut length = [0u32; FIELDS];
            for (field, text) in fields(doc) {
                words(text, true, |word| {
                    let found = match word_ids.get(word) {
                        Some(found) => *found,
                        None => {
                            let found = terms
                                .term(word)
                                .map(|term| [id_of(term.to_owned()), id_of(terms.stem(term))]);
                            word_ids.insert(word.to_owned(), found);
                            found
                        }
                    };
                    let Some(found) = found else { return };
                    length[field as usize] += 1;
                    for id in found {
                        let slot = &mut tf.entry(id).or_default()[field as usize];
                        *slot = slot.saturating_add(1);
                    }
                });
            }
            let mut tf: Vec<_> = tf.into_iter().collect();
            tf.sort_unstable_by_key(|(id, _)| *id);
            counts.push(tf);
            lengths.push(length);
        }

        let n = docs.len().max(1) as f32;
        let mut average = [0f32; FIELDS];
        for length in &lengths {
            for (sum, len) in average.iter_mut().zip(length) {
                *sum += *len as f32 / n;
            }
        }
        let mut postings: Vec<Vec<Posting>> = (0..ids.len()).map(|_| Vec::new()).collect();
        for (doc, (tf, length)) in counts.iter().zip(&lengths).enumerate() {
            let norm: [f32; FIELDS] = std::array::from_fn(|f| {
                let (_, b) = PARAMS[f];
                let relative = if average[f] > 0.0 {
                    length[f] as f32 / average[f]
                } else {
                    1.0
                };
                1.0 - b + b * relative
            });
            for (id, freq) in tf {
                let weight = (0..FIELDS)
                    .map(|f| PARAMS[f].0 * freq[f] as f32 / norm[f])
                    .sum();
                postings[*id as usize].push(Posting {
                    doc: doc as u32,
                    weight,
                });
            }
        }
        let idf = postings
            .iter()
            .map(|list| {
                let df = list.len() as f32;
                (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
            })
            .collect();
        Bm25f {
            terms: ids,
            idf,
            postings,
        }
    }

    /// Adds each query term's BM25F score, times its weight, to `scores` (one slot per doc).
    pub(super) fn score(&self, query: &[(String, f32)], scores: &mut [f32]) {
        for (term, boost) in query {
            let Some(&id) = self.terms.get(term) else {
                continue;
            };
            let idf = self.idf[id as usize] * boost;
            for posting in &self.postings[id as usize] {
                scores[posting.doc as usize] += idf * posting.weight / (K1 + posting.weight);
            }
        }
    }

    /// How many distinct terms the index holds.
    pub(super) fn term_count(&self) -> usize {
        self.terms.len()
    }
}

/// The text of each field of `doc`.
fn fields(doc: &ToolDoc) -> impl Iterator<Item = (Field, &str)> {
    let name = doc.tool_name();
    [
        (Field::Name, name),
        (Field::Server, doc.server.as_str()),
        (Field::Summary, summary(&doc.description)),
        (Field::Description, doc.description.as_str()),
    ]
    .into_iter()
    .chain(doc.params.iter().flat_map(|(name, text)| {
        [
            (Field::ParamName, name.as_str()),
            (Field::ParamText, text.as_str()),
        ]
    }))
}

/// The first sentence of a description (up to `. `, a line break or 300 bytes).
fn summary(description: &str) -> &str {
    let text = description.trim_start();
    let mut end = text.len().min(300);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let head = &text[..end];
    let stop = [". ", ".\n", "\n", "? ", "! "]
        .iter()
        .filter_map(|mark| head.find(mark))
        .min()
        .unwrap_or(head.len());
    &head[..stop]
}

#[cfg(test)]
mod tests {
    use super::summary;

    #[test]
    fn summary_is_the_first_sentence() {
        assert_eq!(summary("  Get a user. Then more."), "Get a user");
        assert_eq!(summary("Line one\nline two"), "Line one");
        assert_eq!(summary("No stop"), "No stop");
        assert_eq!(summary(&"é".repeat(400)).len(), 300);
    }
}
