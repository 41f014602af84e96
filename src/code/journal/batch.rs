//! Entries on their way to a store: serialized once, as they are recorded.

use super::{Entry, JournalError, ResultEntry};

/// What writes as one [`Entry`]: an entry, or a form of one that borrows its parts.
///
/// The entries a run records for every sub-call (its call, its result, its delivery) are
/// written here field by field, in exactly the bytes serde writes for the [`Entry`] they stand
/// for (a test holds the two together): that is most of what recording costs per call. The
/// others go through serde.
pub(crate) trait Record {
    /// Whether it is the run's end.
    fn ends(&self) -> bool;

    /// Append its JSON object to `out`.
    fn write(&self, out: &mut Vec<u8>);
}

impl Record for Entry {
    fn ends(&self) -> bool {
        matches!(self, Entry::End { .. })
    }

    fn write(&self, out: &mut Vec<u8>) {
        match self {
            Entry::Call { n, name, args } => {
                out.extend_from_slice(br#"{"type":"call""#);
                field(out, "n", n);
                field(out, "name", name);
                field(out, "args", args);
                out.push(b'}');
            }
            Entry::Delivery { id, timer } => {
                out.extend_from_slice(br#"{"type":"delivery""#);
                field(out, "id", id);
                if *timer {
                    field(out, "timer", timer);
                }
                out.push(b'}');
            }
            other => serde_json::to_writer(out, other)
                .expect("an entry serializes: its maps have string keys"),
        }
    }
}

impl Record for ResultEntry<'_> {
    fn ends(&self) -> bool {
        false
    }

    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(br#"{"type":"result""#);
        field(out, "n", &self.n);
        if let Some(value) = self.value {
            field(out, "value", value);
        }
        if let Some(note) = self.note {
            field(out, "note", note);
        }
        if let Some(remark) = self.remark {
            field(out, "remark", remark);
        }
        if let Some(unless_read) = &self.unless_read {
            field(out, "unless_read", unless_read);
        }
        if let Some(error) = self.error {
            field(out, "error", error);
        }
        if let Some(code) = self.code {
            field(out, "code", code);
        }
        out.push(b'}');
    }
}

/// Append `,"<key>":<value>` to `out` (`key` needs no escaping).
fn field(out: &mut Vec<u8>, key: &str, value: &(impl serde::Serialize + ?Sized)) {
    out.extend_from_slice(b",\"");
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(b"\":");
    serde_json::to_writer(out, value).expect("an entry serializes: its maps have string keys");
}

/// A place in a [`Batch`]: how much of its text and how many of its entries came before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Mark {
    /// The bytes before the closing `]` at the mark.
    bytes: usize,
    /// The entries before it.
    pub(crate) len: u64,
}

impl Default for Mark {
    /// The start of any batch.
    fn default() -> Self {
        Batch::new().mark()
    }
}

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
        self.push_record(entry);
    }

    /// Add an entry at the end, in whichever form it was recorded.
    pub(crate) fn push_record(&mut self, entry: &impl Record) {
        self.json.pop();
        if self.len > 0 {
            self.json.push(b',');
        }
        entry.write(&mut self.json);
        self.json.push(b']');
        self.len += 1;
        self.ends |= entry.ends();
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

    /// Where it ends now: [`Batch::since`] takes the entries added after.
    pub(crate) fn mark(&self) -> Mark {
        Mark {
            bytes: self.json.len() - 1,
            len: self.len,
        }
    }

    /// The entries added since `mark` (a mark of this batch, taken since it was last
    /// cleared), as a batch of their own.
    pub(crate) fn since(&self, mark: Mark) -> Batch {
        if self.len == mark.len {
            return Batch::new();
        }
        // The first entry after the mark, past its `,` when one came before.
        let rest = &self.json[mark.bytes + usize::from(mark.len > 0)..];
        let mut json = Vec::with_capacity(rest.len() + 1);
        json.push(b'[');
        json.extend_from_slice(rest);
        Batch {
            json,
            len: self.len - mark.len,
            ends: self.ends,
        }
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

    #[test]
    fn the_entries_since_a_mark_are_a_whole_batch_of_their_own() {
        let entries = [
            Entry::Delivery { id: 1, timer: true },
            Entry::Returned,
            Entry::Clock { ms: 2.0, count: 1 },
        ];
        let mut batch = Batch::new();
        let empty = batch.mark();
        assert_eq!(empty, Mark::default());
        batch.push(&entries[0]);
        let one = batch.mark();
        assert_eq!(batch.since(empty), batch);
        assert_eq!(batch.since(one), Batch::new());
        batch.push(&entries[1]);
        batch.push(&entries[2]);
        assert_eq!(batch.since(one), Batch::of(&entries[1..]));
        assert_eq!(batch.since(empty), Batch::of(&entries));
        assert_eq!(batch.since(batch.mark()), Batch::new());
    }

    #[test]
    fn entries_written_field_by_field_are_the_bytes_serde_writes() {
        let entries = [
            Entry::Call {
                n: 7,
                name: "mcp__x \"y\" \u{e9}".into(),
                args: r#"{"path":"a\\b\n"}"#.into(),
            },
            Entry::Delivery {
                id: 3,
                timer: false,
            },
            Entry::Delivery { id: 4, timer: true },
            Entry::Clock {
                ms: 1.5e12,
                count: 2,
            },
        ];
        for entry in entries {
            let serde = format!("[{}]", serde_json::to_string(&entry).unwrap());
            assert_eq!(Batch::of(&[entry]).json(), serde);
        }
    }

    #[test]
    fn a_result_recorded_from_its_reply_reads_back_as_the_entry() {
        let reply = ptc_engine::Reply {
            value: serde_json::json!({"a": [1, "two"]}),
            note: Some("cut".into()),
            remark: Some("kept \"as is\"".into()),
            unless_read: Some(ptc_engine::UnlessRead {
                fields: vec!["exit_code".into()],
                text: "failed".into(),
            }),
        };
        let failed: Result<ptc_engine::Reply, String> = Err("no such file".into());
        let mut batch = Batch::new();
        batch.push_record(&ResultEntry::of(1, &Ok(reply.clone()), None));
        batch.push_record(&ResultEntry::of(2, &failed, Some("ABORTED")));
        let entry = |n, value, note, remark, unless_read, error, code| Entry::Result {
            n,
            value,
            note,
            remark,
            unless_read,
            error,
            code,
        };
        assert_eq!(
            batch.entries().unwrap(),
            [
                entry(
                    1,
                    Some(reply.value),
                    Some("cut".into()),
                    Some("kept \"as is\"".into()),
                    Some((vec!["exit_code".into()], "failed".into())),
                    None,
                    None
                ),
                entry(
                    2,
                    None,
                    None,
                    None,
                    None,
                    Some("no such file".into()),
                    Some("ABORTED".into())
                ),
            ]
        );
        assert_eq!(batch, {
            let mut same = Batch::new();
            for entry in batch.entries().unwrap() {
                same.push(&entry);
            }
            same
        });
    }
}
