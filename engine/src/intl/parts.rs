//! `formatToParts`: a formatted value's text cut into ECMA-402's typed parts, from the parts
//! ICU4X's `Writeable`s mark (`element`, `integer`, `group`, ...); unmarked text is `literal`.

use std::fmt;

use serde_json::Value;
use writeable::{Part, PartsWrite, TryWriteable, Writeable};

/// The parts being collected: `(type, text)`, in order.
#[derive(Default)]
struct Collect {
    parts: Vec<(&'static str, String)>,
    /// The parts being written, outermost first (none: unmarked text).
    open: Vec<&'static str>,
    /// The next text starts a new part (a part began or ended).
    fresh: bool,
    /// A part's type is its outermost one (a date's `year`, not the `integer` of the number
    /// written in it), rather than its innermost (a relative time's number's parts).
    outermost: bool,
}

impl fmt::Write for Collect {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if s.is_empty() {
            return Ok(());
        }
        let kind = match self.outermost {
            true => self.open.first(),
            false => self.open.last(),
        };
        let kind = kind.copied().unwrap_or("literal");
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
        // Taking the outermost part, only its own edges start a new one.
        let edge = !self.outermost || self.open.is_empty();
        self.open.push(part.value);
        self.fresh |= edge;
        let done = f(self);
        self.open.pop();
        self.fresh |= edge;
        done
    }
}

/// The parts of a formatted value, as the JSON `[[type, text], ...]` the glue turns into
/// `{ type, value }` objects.
pub(crate) fn json(value: &impl Writeable) -> String {
    let mut collect = Collect::default();
    // Writing to a String-like sink cannot fail.
    let _ = value.write_to_parts(&mut collect);
    to_json(collect.parts)
}

/// The parts of a formatted date, each typed by its outermost part (`year`, `month`, ...),
/// as [`json`] gives them; `Err` when the formatter failed.
pub(crate) fn date_json<E: fmt::Debug>(value: &impl TryWriteable<Error = E>) -> Result<String, E> {
    let mut collect = Collect {
        outermost: true,
        ..Collect::default()
    };
    match value.try_write_to_parts(&mut collect) {
        Ok(Err(e)) => Err(e),
        // Writing to a String-like sink cannot fail.
        Ok(Ok(())) | Err(_) => Ok(to_json(collect.parts)),
    }
}

fn to_json(parts: Vec<(&'static str, String)>) -> String {
    let list: Vec<Value> = parts
        .into_iter()
        .map(|(kind, text)| Value::from(vec![Value::from(kind), Value::from(text)]))
        .collect();
    Value::from(list).to_string()
}
