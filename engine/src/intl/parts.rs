//! `formatToParts`: a formatted value's text cut into ECMA-402's typed parts, from the parts
//! ICU4X's `Writeable`s mark (`element`, `integer`, `group`, ...); unmarked text is `literal`.

use std::fmt;

use serde_json::Value;
use writeable::{Part, PartsWrite, Writeable};

/// The parts being collected: `(type, text)`, in order.
#[derive(Default)]
struct Collect {
    parts: Vec<(&'static str, String)>,
    /// The innermost part being written (`None`: unmarked text).
    open: Vec<&'static str>,
    /// The next text starts a new part (a part began or ended).
    fresh: bool,
}

impl fmt::Write for Collect {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if s.is_empty() {
            return Ok(());
        }
        let kind = self.open.last().copied().unwrap_or("literal");
        match self.parts.last_mut() {
            Some((last, text)) if *last == kind && !self.fresh => text.push_str(s),
            _ => self.parts.push((kind, s.to_owned())),
        }
        self.fresh = false;
        Ok(())
    }
}

impl PartsWrite for Collect {
    type SubPartsWrite = Collect;

    fn with_part(
        &mut self,
        part: Part,
        mut f: impl FnMut(&mut Self::SubPartsWrite) -> fmt::Result,
    ) -> fmt::Result {
        self.open.push(part.value);
        self.fresh = true;
        let done = f(self);
        self.open.pop();
        self.fresh = true;
        done
    }
}

/// The parts of a formatted value, as the JSON `[[type, text], ...]` the glue turns into
/// `{ type, value }` objects.
pub(crate) fn json(value: &impl Writeable) -> String {
    let mut collect = Collect::default();
    // Writing to a String-like sink cannot fail.
    let _ = value.write_to_parts(&mut collect);
    let list: Vec<Value> = collect
        .parts
        .into_iter()
        .map(|(kind, text)| Value::from(vec![Value::from(kind), Value::from(text)]))
        .collect();
    Value::from(list).to_string()
}
