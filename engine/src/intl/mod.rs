//! `Intl` for the sandboxes whose engine has none (QuickJS, deno_core's QuickJS facade): locale
//! formatting backed by ICU4X's compiled CLDR data, engine-neutral behind one raw host function.
//!
//! `runtime-js/intl.js` builds `Intl.NumberFormat`, `Intl.DateTimeFormat`, `Intl.PluralRules`,
//! `Intl.Collator`, `Intl.ListFormat`, `Intl.RelativeTimeFormat`, the `toLocaleString` family and
//! `toLocaleUpperCase`/`toLocaleLowerCase` on top of [`call`]`(op, spec, a, b)`, which
//! each backend exposes as it exposes its other raw functions (QuickJS: `host.intl`; deno_core:
//! an op). Values cross as text: numbers as JavaScript prints them (BigInt as decimal digits),
//! dates as epoch milliseconds, a formatter's `spec` as the JSON of its locales and options.
//! A spec is resolved (checked, its locale matched) once and the formatter built from it kept in
//! a per-thread cache, so formatting again with the same spec only formats. A locale outside
//! [`locale::SUPPORTED`] is a `RangeError` naming it and what is supported, never another
//! locale's formatting in silence.
//!
//! Nothing here runs until a program formats something: the glue loads `intl.js` on first use,
//! and ICU4X's data is baked into the binary (read in place, no start-up cost).

mod calendar;
mod case;
mod cldr48;
mod clock;
mod collate;
mod compose;
mod currencies;
mod date;
mod digits;
mod fields;
mod list;
mod locale;
mod months;
mod number;
mod number_parts;
mod numbering;
mod options;
mod parts;
mod pattern;
mod plural;
mod relative;
mod styles;
mod times;
mod units;
mod ymd;
mod zone;

use std::{cell::RefCell, collections::HashMap, rc::Rc};

pub(crate) use options::IntlError;

/// What the cache holds: a built formatter of one kind.
enum Built {
    Number(number::NumberFormatter),
    Plural(plural::PluralSelector),
    Date(Box<date::DateFormatter>),
    Collator(collate::Comparer),
    List(list::ListFormat),
    Relative(relative::RelativeFormat),
}

/// The most formatters one engine thread keeps (a program making more starts the cache over).
const CACHE_ENTRIES: usize = 256;

thread_local! {
    static CACHE: RefCell<HashMap<(char, String), Rc<Built>>> = RefCell::new(HashMap::new());
}

/// The formatter for `spec` of kind `kind` ('n', 'p', 'd', 'c'), built by `make` on first use.
fn built(
    kind: char,
    spec: &str,
    make: impl FnOnce(&str) -> Result<Built, IntlError>,
) -> Result<Rc<Built>, IntlError> {
    let key = (kind, spec.to_owned());
    if let Some(found) = CACHE.with(|cache| cache.borrow().get(&key).cloned()) {
        return Ok(found);
    }
    let made = Rc::new(make(spec)?);
    CACHE.with(|cache| {
        let mut cache = cache.borrow_mut();
        if cache.len() >= CACHE_ENTRIES {
            cache.clear();
        }
        cache.insert(key, made.clone());
    });
    Ok(made)
}

/// One `Intl` operation; the text the glue receives. Errors come back as text too, as
/// `"\0RangeError\0message"` (see [`encode`]), so that every backend returns a plain string and
/// the glue throws the right constructor.
///
/// * `canonical` (locales JSON) → JSON array of canonical tags (`Intl.getCanonicalLocales`)
/// * `supported` (locales JSON) → JSON array of the supported ones (`supportedLocalesOf`)
/// * `number.resolve` / `plural.resolve` / `date.resolve` / `collator.resolve` (spec) → the
///   JSON of `resolvedOptions()`
/// * `number.format` / `number.parts` (spec, value), `plural.select` (spec, value),
///   `date.format` / `date.parts` (spec, epoch ms), `collator.compare` (spec, a, b) → the
///   text (or `-1`/`0`/`1`)
/// * `list.resolve`, `list.format` / `list.parts` (spec, JSON array of strings)
/// * `relative.resolve`, `relative.format` / `relative.parts` (spec, value, unit)
/// * `case.upper` / `case.lower` (locales JSON, text)
///
/// `*.parts` give `[[type, text], ...]` as JSON.
pub(crate) fn call(op: &str, spec: &str, a: &str, b: &str) -> String {
    encode(dispatch(op, spec, a, b))
}

/// The text for a result: the value, or `"\0Kind\0message"` for an error.
fn encode(result: Result<String, IntlError>) -> String {
    match result {
        Ok(text) => text,
        Err(error) => format!("\0{}\0{}", error.kind, error.message),
    }
}

fn dispatch(op: &str, spec: &str, a: &str, b: &str) -> Result<String, IntlError> {
    let (kind, action) = op.split_once('.').unwrap_or((op, ""));
    let made = match kind {
        "canonical" => return locale::canonical_json(spec),
        "supported" => return locale::supported_json(spec),
        "number" => built('n', spec, |s| {
            number::NumberFormatter::new(s).map(Built::Number)
        })?,
        "plural" => built('p', spec, |s| {
            plural::PluralSelector::new(s).map(Built::Plural)
        })?,
        "date" => built('d', spec, |s| {
            date::DateFormatter::new(s).map(|f| Built::Date(Box::new(f)))
        })?,
        "collator" => built('c', spec, |s| {
            collate::Comparer::new(s).map(Built::Collator)
        })?,
        "case" => return case::map(action == "upper", spec, a),
        "list" => built('l', spec, |s| list::ListFormat::new(s).map(Built::List))?,
        "relative" => {
            // One formatter per unit: the unit is part of the cache key.
            let unit = if action == "resolve" {
                ""
            } else {
                relative::unit(b)?
            };
            built('r', &format!("{unit}\n{spec}"), |key| {
                let spec = key.split_once('\n').map_or(key, |(_, s)| s);
                relative::RelativeFormat::new(spec, unit).map(Built::Relative)
            })?
        }
        _ => return Err(IntlError::type_error(format!("no Intl operation {op:?}"))),
    };
    Ok(match (&*made, action) {
        (Built::Number(f), "resolve") => f.resolved.clone(),
        (Built::Number(f), "format") => f.format(a)?,
        (Built::Number(f), "parts") => f.parts(a)?,
        (Built::Plural(p), "resolve") => p.resolved.clone(),
        (Built::Plural(p), "select") => p.select(a)?.to_owned(),
        (Built::Date(f), "resolve") => f.resolved.clone(),
        (Built::Date(f), "format" | "parts") => f.format(a, action == "parts")?,
        (Built::Collator(c), "resolve") => c.resolved.clone(),
        (Built::Collator(c), "compare") => c.compare(a, b).to_string(),
        (Built::List(l), "resolve") => l.resolved.clone(),
        (Built::List(l), "format" | "parts") => l.format(a, action == "parts")?,
        (Built::Relative(r), "resolve") => r.resolved.clone(),
        (Built::Relative(r), "format" | "parts") => r.format(a, action == "parts")?,
        _ => return Err(IntlError::type_error(format!("no Intl operation {op:?}"))),
    })
}
