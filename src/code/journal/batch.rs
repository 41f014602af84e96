//! Entries on their way to a store: serialized once, as they are recorded.

use super::{Entry, JournalError};

/// Entries to append to a journal, held as the JSON array a store keeps.
///
/// A run records an entry or more for each sub-call; writing each one into the array at once
/// (rather than keeping the entries and serializing them at the flush) keeps recording to a
/// few hundred bytes of text per call, with nothing cloned or moved again later.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    /// Always a whole JSON array: `[` entries separated by `,` `]`.
    json: Vec<u8>,
    len: u64,
    ends: bool,
}

impl Default for Batch {
    fn default() -> Self {
        Self {
            json: b"[]".to_vec(),
            len: 0,
            ends: false,
        }
    }
}

impl Batch {
    /// An empty batch.
    pub fn new() -> Self {
        Self::default()
    }

    /// A batch of `entries`.
    pub fn of(entries: &[Entry]) -> Self {
        let mut batch = Self::new();
        for entry in entries {
            batch.push(entry);
        }
        batch
    }

    /// Add `entry` at the end.
    pub fn push(&mut self, entry: &Entry) {
        self.json.pop();
        if self.len > 0 {
            self.json.push(b',');
        }
        serde_json::to_writer(&mut self.json, entry)
            .expect("an entry serializes: its maps have string keys");
        self.json.push(b']');
        self.len += 1;
        self.ends |= matches!(entry, Entry::End { .. });
    }

    /// How many entries it holds.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether it holds the run's end.
    pub fn ends(&self) -> bool {
        self.ends
    }

    /// The entries as a JSON array.
    pub fn json(&self) -> &str {
        std::str::from_utf8(&self.json).expect("serde_json writes UTF-8")
    }

    /// The entries, read back.
    pub fn entries(&self) -> Result<Vec<Entry>, JournalError> {
        serde_json::from_slice(&self.json)
            .map_err(|e| JournalError(format!("a batch of entries does not read back: {e}")))
    }

    /// Empty it, keeping its buffer.
    pub fn clear(&mut self) {
        self.json.clear();
        self.json.extend_from_slice(b"[]");
        self.len = 0;
        self.ends = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_is_always_a_whole_array_of_its_entries() {
        let mut batch = Batch::new();
        assert_eq!((batch.json(), batch.is_empty()), ("[]", true));
        let entries = [
            Entry::Delivery { id: 1, timer: true },
            Entry::Returned,
            Entry::End {
                output: "done \"quoted\" \u{e9}".into(),
                is_error: false,
            },
        ];
        for (i, entry) in entries.iter().enumerate() {
            batch.push(entry);
            let parsed: Vec<Entry> = serde_json::from_str(batch.json()).unwrap();
            assert_eq!(parsed, entries[..=i]);
        }
        assert_eq!((batch.len(), batch.ends()), (3, true));
        assert_eq!(batch.entries().unwrap(), entries);
        assert_eq!(batch, Batch::of(&entries));
        batch.clear();
        assert_eq!(batch, Batch::new());
    }
}
