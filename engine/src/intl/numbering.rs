//! Numbering systems (`-u-nu-`, the `numberingSystem` option, a locale's default digits): the one
//! chosen is written into the locale ICU4X formats with, and checked to give its digits, so
//! `resolvedOptions().numberingSystem` never names digits that are not printed.

use fixed_decimal::Decimal;
use icu_decimal::DecimalFormatter;
use icu_locale::extensions::unicode::{key, Value};

use super::{locale::Matched, options::IntlError};

/// The decimal numbering systems a program may ask for, each with its digit zero.
const SYSTEMS: &[(&str, char)] = &[
    ("arab", '\u{660}'),
    ("arabext", '\u{6f0}'),
    ("beng", '\u{9e6}'),
    ("deva", '\u{966}'),
    ("fullwide", '\u{ff10}'),
    ("gujr", '\u{ae6}'),
    ("guru", '\u{a66}'),
    ("khmr", '\u{17e0}'),
    ("knda", '\u{ce6}'),
    ("laoo", '\u{ed0}'),
    ("latn", '0'),
    ("mlym", '\u{d66}'),
    ("mymr", '\u{1040}'),
    ("orya", '\u{b66}'),
    ("tamldec", '\u{be6}'),
    ("telu", '\u{c66}'),
    ("thai", '\u{e50}'),
    ("tibt", '\u{f20}'),
];

/// The numbering system a supported locale uses when none is asked for (CLDR's default).
fn default_for(tag: &str) -> &'static str {
    match tag {
        "ar-EG" | "ar-SA" => "arab",
        "fa" | "fa-IR" => "arabext",
        "bn" | "bn-IN" => "beng",
        _ => "latn",
    }
}

/// The numbering system of a matched locale: the `numberingSystem` option, else its `-u-nu-`,
/// else the locale's default.
pub(crate) fn of(matched: &Matched, option: Option<&str>) -> String {
    option
        .map(str::to_owned)
        .or_else(|| {
            let nu = matched.locale.extensions.unicode.keywords.get(&key!("nu"));
            nu.map(|nu| nu.to_string())
        })
        .unwrap_or_else(|| default_for(&matched.tag).to_owned())
}

/// Choose the numbering system (as [`of`]) and write it into `matched.locale`, so every ICU4X
/// formatter built from it prints its digits; a `RangeError` naming it when it is not one of
/// [`SYSTEMS`] or ICU4X's data does not print it.
pub(crate) fn apply(matched: &mut Matched, option: Option<&str>) -> Result<String, IntlError> {
    let name = of(matched, option);
    let unsupported = || {
        let names: Vec<&str> = SYSTEMS.iter().map(|(n, _)| *n).collect();
        IntlError::range(format!(
            "Intl: numbering system {name:?} is not supported in this sandbox (supported: {})",
            names.join(", ")
        ))
    };
    let zero = SYSTEMS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, zero)| *zero)
        .ok_or_else(unsupported)?;
    let value = Value::try_from_str(&name).map_err(|_| unsupported())?;
    matched
        .locale
        .extensions
        .unicode
        .keywords
        .set(key!("nu"), value);
    let formatter = DecimalFormatter::try_new((&matched.locale).into(), Default::default())
        .map_err(|_| unsupported())?;
    if !formatter
        .format(&Decimal::from(0))
        .to_string()
        .contains(zero)
    {
        return Err(unsupported());
    }
    Ok(name)
}

/// For Arabic digits in a locale whose own digits are not Arabic (`en-US-u-nu-arab`): the
/// locale's group and decimal separators, which CLDR writes as the Arabic `٬` and `٫` with those
/// digits where ICU4X keeps the locale's Latin ones.
pub(crate) fn arabic_separators(matched: &Matched, numbering: &str) -> Option<(char, char)> {
    let language = matched.locale.id.language.as_str();
    if !matches!(numbering, "arab" | "arabext") || matches!(language, "ar" | "fa") {
        return None;
    }
    let formatter = DecimalFormatter::try_new((&matched.locale).into(), Default::default()).ok()?;
    let sample: Decimal = "1234.5".parse().ok()?;
    let text: Vec<char> = formatter.format(&sample).to_string().chars().collect();
    let group = *text.get(1)?;
    let decimal = *text.get(text.len().checked_sub(2)?)?;
    Some((group, decimal))
}
