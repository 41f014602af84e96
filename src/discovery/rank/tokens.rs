//! Words and terms: how tool names and prose are cut into what the index matches.
//!
//! A name is cut on every character that is not a letter or digit (`_`, `-`, `__`, `.`, `/`,
//! spaces), at camelCase humps (`fooBar`, `HTTPServer`) and between letters and digits; prose
//! the same way. Terms are those words lowercased, longer than one byte, without stop words; a
//! word that mixes letters and digits (`s3`, `ec2`) and a hyphenated pair (`to-do`) are also
//! kept whole. Each term also has a stem term (Snowball English: `pods` and `pod`, `running`
//! and `run` share one), which the index weighs below the word as written.

use rust_stemmers::{Algorithm, Stemmer};

/// Starts a stem term: words hold only letters and digits.
const STEM_MARK: char = '~';

/// A query is read up to this many characters; the rest is ignored.
pub const MAX_QUERY_CHARS: usize = 512;

/// A query counts at most this many distinct terms; later ones are ignored.
pub const MAX_QUERY_TERMS: usize = 32;

/// Words that carry no meaning a tool could match ("what", "the", "my").
const STOP_WORDS: &[&str] = &[
    "a", "about", "all", "am", "an", "and", "any", "are", "as", "at", "be", "been", "by", "can",
    "could", "did", "do", "does", "for", "from", "had", "has", "have", "he", "her", "here", "his",
    "how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "of", "on", "onto", "or", "our",
    "please", "she", "should", "so", "some", "than", "that", "the", "their", "them", "then",
    "there", "these", "they", "this", "those", "to", "us", "was", "we", "were", "what", "when",
    "where", "which", "who", "whom", "why", "will", "with", "would", "you", "your",
];

/// Whether `word` (lowercase) is a stop word.
pub fn is_stop_word(word: &str) -> bool {
    // None is longer than six bytes: most words are not looked up.
    word.len() <= 6 && STOP_WORDS.binary_search(&word).is_ok()
}

/// The first [`MAX_QUERY_CHARS`] characters of `query`.
pub fn capped(query: &str) -> &str {
    match query.char_indices().nth(MAX_QUERY_CHARS) {
        Some((end, _)) => &query[..end],
        None => query,
    }
}

/// Calls `each` with every word of `text`, lowercased, in order: the pieces of each run of
/// letters and digits, cut at camelCase humps and letter/digit changes. With `whole`, also a
/// hump that mixes letters and digits whole (`s3` after `s` and `3`, for `listS3Buckets`),
/// and two runs of letters joined by one hyphen as one word (`todo` after `to` and `do`, for
/// `to-do`).
pub fn words(text: &str, whole: bool, mut each: impl FnMut(&str)) {
    let mut word = String::new();
    let mut emit = |chars: &[char], each: &mut dyn FnMut(&str)| {
        word.clear();
        word.extend(chars.iter().flat_map(|c| c.to_lowercase()));
        each(&word);
    };
    let mut before: Option<(usize, &str)> = None;
    for (at, run) in runs(text) {
        let chars: Vec<char> = run.chars().collect();
        for hump in split(&chars, is_hump) {
            for piece in split(hump, |run, at| {
                run[at - 1].is_numeric() != run[at].is_numeric()
            }) {
                emit(piece, &mut each);
            }
            let mixed =
                hump.iter().any(|c| c.is_numeric()) && hump.iter().any(|c| c.is_alphabetic());
            if whole && mixed {
                emit(hump, &mut each);
            }
        }
        let letters = chars.iter().all(|c| c.is_alphabetic());
        if let Some((end, previous)) = before.filter(|_| whole && letters) {
            if text[end..at] == *"-" {
                let joined: Vec<char> = previous.chars().chain(run.chars()).collect();
                emit(&joined, &mut each);
            }
        }
        before = letters.then_some((at + run.len(), run));
    }
}

/// The runs of letters and digits of `text`, each with its byte offset.
fn runs(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|run| !run.is_empty())
        .map(move |run| (run.as_ptr() as usize - text.as_ptr() as usize, run))
}

/// `chars` cut wherever `cut(chars, at)` says (between `chars[at - 1]` and `chars[at]`).
fn split<'a>(
    chars: &'a [char],
    cut: impl Fn(&[char], usize) -> bool + 'a,
) -> impl Iterator<Item = &'a [char]> + 'a {
    let mut start = 0;
    (1..=chars.len())
        .filter(move |&end| end == chars.len() || cut(chars, end))
        .map(move |end| {
            let piece = &chars[start..end];
            start = end;
            piece
        })
}

/// Whether a camelCase hump starts at `run[at]`: a capital after a lowercase letter or a digit
/// (`fooBar`, `s3Bucket`), and the last capital of an acronym before a lowercase letter
/// (`HTTPServer` is `HTTP`, `Server`).
fn is_hump(run: &[char], at: usize) -> bool {
    let (before, here) = (run[at - 1], run[at]);
    let after_lower = (before.is_lowercase() || before.is_numeric()) && here.is_uppercase();
    let acronym_end = before.is_uppercase()
        && here.is_uppercase()
        && run.get(at + 1).is_some_and(|next| next.is_lowercase());
    after_lower || acronym_end
}

/// The words of a name joined by single spaces: the form in which `create_pull_request`,
/// `createPullRequest` and `Create pull request` are equal.
pub fn joined(text: &str) -> String {
    let mut out = String::new();
    words(text, false, |word| {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    });
    out
}

/// Cuts text into the index's terms: words of more than one byte, without stop words,
/// stemmed.
pub struct Terms {
    stemmer: Stemmer,
}

impl Terms {
    /// The English terms.
    pub fn new() -> Self {
        Terms {
            stemmer: Stemmer::create(Algorithm::English),
        }
    }

    /// The term of one word of [`words`]: none for a single letter or digit (`what's`, `2.0`
    /// say nothing; `s3` is kept whole) or a stop word, else the word.
    pub fn term<'w>(&self, word: &'w str) -> Option<&'w str> {
        (word.len() > 1 && !is_stop_word(word)).then_some(word)
    }

    /// The stem term of a term: its Snowball stem, marked so that it never equals a word
    /// (`~pod` for `pods`, and for `pod`).
    pub fn stem(&self, term: &str) -> String {
        format!("{STEM_MARK}{}", self.stemmer.stem(term))
    }

    /// Calls `each` with every term of `text`, in order (repeats included).
    pub fn each(&self, text: &str, mut each: impl FnMut(&str)) {
        words(text, true, |word| {
            if let Some(term) = self.term(word) {
                each(term);
            }
        });
    }

    /// The distinct terms of a query, in order, at most [`MAX_QUERY_TERMS`] of them.
    pub fn query(&self, query: &str) -> Vec<String> {
        let mut terms: Vec<String> = Vec::new();
        self.each(capped(query), |term| {
            if terms.len() < MAX_QUERY_TERMS && !terms.iter().any(|t| t == term) {
                terms.push(term.to_owned());
            }
        });
        terms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        words(text, false, |w| out.push(w.to_owned()));
        out
    }

    fn with_whole(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        words(text, true, |w| out.push(w.to_owned()));
        out
    }

    #[test]
    fn stop_words_are_sorted_for_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
        assert!(STOP_WORDS.iter().all(|w| w.len() <= 6 && is_stop_word(w)));
    }

    #[test]
    fn names_split_on_separators_humps_and_digits() {
        assert_eq!(all("create_pull_request"), ["create", "pull", "request"]);
        assert_eq!(all("github__create-issue"), ["github", "create", "issue"]);
        assert_eq!(all("ForwardGeocodeTool"), ["forward", "geocode", "tool"]);
        assert_eq!(all("getHTTPServer"), ["get", "http", "server"]);
        assert_eq!(
            all("build_and_push_image_to_ecr"),
            ["build", "and", "push", "image", "to", "ecr"]
        );
        assert_eq!(all("list s3 buckets"), ["list", "s", "3", "buckets"]);
    }

    #[test]
    fn whole_words_keep_mixed_runs_and_hyphenated_compounds() {
        assert_eq!(
            with_whole("list s3 buckets"),
            ["list", "s", "3", "s3", "buckets"]
        );
        assert_eq!(
            with_whole("my to-do list"),
            ["my", "to", "do", "todo", "list"]
        );
        assert_eq!(with_whole("a-b--c_d-2"), ["a", "b", "ab", "c", "d", "2"]);
        assert_eq!(all("API-get-user"), ["api", "get", "user"]);
    }

    #[test]
    fn joined_forms_agree_across_spellings() {
        let form = joined("create_pull_request");
        assert_eq!(form, "create pull request");
        assert_eq!(joined("createPullRequest"), form);
        assert_eq!(joined("  Create  pull-request "), form);
    }

    #[test]
    fn terms_drop_stop_words_and_stems_join_inflections() {
        let terms = Terms::new();
        assert_eq!(
            terms.query("list the pods in my namespaces what's 2.0"),
            ["list", "pods", "namespaces"]
        );
        assert_eq!(terms.stem("pods"), terms.stem("pod"));
        assert_eq!(terms.stem("running"), terms.stem("run"));
        assert_eq!(
            terms.stem("Processes".to_lowercase().as_str()),
            terms.stem("process")
        );
        for word in ["commits", "committing", "committed"] {
            assert_eq!(terms.stem(word), terms.stem("commit"));
        }
        assert!(terms.stem("pod").starts_with(STEM_MARK));
    }

    #[test]
    fn queries_are_capped() {
        let long = "word ".repeat(10_000);
        assert_eq!(capped(&long).chars().count(), MAX_QUERY_CHARS);
        let many: String = (0..100).map(|i| format!("term{i} ")).collect();
        assert!(Terms::new().query(&many).len() <= MAX_QUERY_TERMS);
        assert_eq!(capped("ü"), "ü");
    }
}
